package mcpserver

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/internal/httpapi"
)

// Host is what the interface needs of the OS; *agentos.Host is one.
type Host interface {
	// API answers each tool call's requests as the HTTP API does, behind
	// the key or JWT check.
	API() http.Handler
	// Catalog says which agents, teams and workflows the run tools may
	// name.
	Catalog() agentos.Catalog
	// Name and Version are the server's, in its MCP implementation info.
	Name() string
	Version() string
	Logger() *slog.Logger
}

var (
	_ Host              = (*agentos.Host)(nil)
	_ agentos.Interface = (*Interface)(nil)
)

// Interface is agno's enable_mcp_server, one of AgentOS's interfaces:
// AgentOS's tools over streamable HTTP at /mcp. The server is built at
// its first request.
type Interface struct {
	host Host
	once sync.Once
	h    http.Handler
}

// NewInterface is the MCP server interface of c (New is the server's
// handler, which the interface builds).
func NewInterface(*Config) *Interface { return &Interface{} }

func (m *Interface) Check(agentos.Catalog) error { return nil }
func (m *Interface) Start(h *agentos.Host) error { m.host = h; return nil }
func (m *Interface) Stop()                       {}

// Listing: agno lists no MCP entry in /config interfaces (the MCP server
// is not one of AgentOS's interfaces).
func (m *Interface) Listing() []any { return nil }

// Routes serve /mcp. Each tool call is the equivalent
// request of the HTTP API, made in process with the MCP request's
// credentials: the same handlers, executors and run engine, so storage,
// scopes and user isolation are those of the API, and /mcp itself sits
// behind the key or JWT like every API route.
func (m *Interface) Routes() []httpapi.Route {
	serve := func(w http.ResponseWriter, r *http.Request) { m.server().ServeHTTP(w, r) }
	stateless := httpapi.CheckedBy("none: answers 405, the server is stateless")
	const desc = "MCP streamable HTTP endpoint (JSON-RPC 2.0; stateless: no Mcp-Session-Id). agno's tools: get_agentos_config, run_agent, run_team, run_workflow, get_sessions, get_session, create_session, get_session_runs, get_session_run, rename_session, update_session, delete_session, delete_sessions, create_memory, get_memory, get_memories, update_memory, delete_memory, delete_memories. Same key or JWT as the HTTP API; each tool call needs the scopes of its HTTP route."
	return []httpapi.Route{
		{Pattern: "POST " + Path, Handler: serve, Access: httpapi.CheckedBy("mcpserver.backend: each tool call is its HTTP route's request, checked with that route's scope"), Tag: "MCP", TagDesc: "The Model Context Protocol server: AgentOS's tools over streamable HTTP.", Summary: "MCP Request", Desc: desc, Result: "JSON-RPC response (application/json or text/event-stream)", Stream: true},
		{Pattern: "GET " + Path, Handler: serve, Access: stateless, Tag: "MCP", Summary: "MCP Stream", Desc: "Stateless server: no standalone stream, 405.", Result: "405"},
		{Pattern: "DELETE " + Path, Handler: serve, Access: stateless, Tag: "MCP", Summary: "MCP Session End", Desc: "Stateless server: no session to end, 405.", Result: "405"},
	}
}

// server is the MCP server, built at its first request: its tool calls
// go to the API, behind the key or JWT check, on a mux of its own.
func (m *Interface) server() http.Handler {
	m.once.Do(func() {
		h := m.host
		m.h = New(Options{Name: h.Name(), Version: h.Version(), Logger: h.Logger()}, backend(h, h.API()))
	})
	return m.h
}
