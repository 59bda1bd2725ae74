package agentos

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp"
)

// inMemoryMCP serves a real MCP server with one "search" tool over
// in-memory transports, one server session per client session.
type inMemoryMCP struct {
	server   *sdk.Server
	mu       sync.Mutex
	sessions []*sdk.ServerSession
}

func newInMemoryMCP() *inMemoryMCP {
	s := sdk.NewServer(&sdk.Implementation{Name: "registry-test", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: "Search the docs"},
		func(_ context.Context, _ *sdk.CallToolRequest, in queryArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Query}}}, nil, nil
		})
	return &inMemoryMCP{server: s}
}

func (m *inMemoryMCP) transport(ctx context.Context) (sdk.Transport, error) {
	client, server := sdk.NewInMemoryTransports()
	ss, err := m.server.Connect(ctx, server, nil)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.sessions = append(m.sessions, ss)
	m.mu.Unlock()
	return client, nil
}

func (m *inMemoryMCP) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		_ = s.Close()
	}
}

// An MCP toolkit is one tool entry; it lists its functions once
// connected, and an unconnected server never breaks the listing.
func TestRegistryListsMCPToolkit(t *testing.T) {
	srv := newInMemoryMCP()
	defer srv.close()
	tools, err := mcp.New(mcp.Config{Name: "docs_mcp", NewTransport: srv.transport})
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	a := newAgent(t, agent.Config{Name: "a", Tools: []tool.Provider{tools}})
	b := newAgent(t, agent.Config{Name: "b", Tools: []tool.Provider{tools}})
	o, err := New(Config{Agents: []*agent.Agent{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	h := o.Handler()

	entry := func() RegistryEntry {
		t.Helper()
		p := listRegistry(t, h, url.Values{"resource_type": {"tool"}})
		if len(p.Data) != 1 {
			t.Fatalf("tool entries = %v, want the MCP toolkit once", p.Data)
		}
		return p.Data[0]
	}
	e := entry()
	if e.Name != "docs_mcp" || e.Metadata["class_path"] != "agno.tools.mcp.mcp.MCPTools" || e.Metadata["is_toolkit"] != true {
		t.Fatalf("MCP entry = %+v", e)
	}
	if fns, _ := e.Metadata["functions"].([]any); len(fns) != 0 {
		t.Fatalf("functions before connecting = %v, want none", fns)
	}
	if _, ok := o.registry().ToolFunction("search"); ok {
		t.Fatal("search in the lookup before the server is connected")
	}

	if err := tools.Connect(t.Context()); err != nil {
		t.Fatal(err)
	}
	fns, _ := entry().Metadata["functions"].([]any)
	if len(fns) != 1 {
		t.Fatalf("functions after connecting = %v, want search", fns)
	}
	fn := fns[0].(map[string]any)
	params, _ := json.Marshal(fn["parameters"])
	if fn["name"] != "search" || fn["description"] != "Search the docs" || !json.Valid(params) || string(params) == "null" {
		t.Fatalf("search function = %v", fn)
	}
	if f, ok := o.registry().ToolFunction("search"); !ok || f.Name != "search" {
		t.Fatal("search not in the lookup once connected")
	}
	if rec := getLocal(t, h, "/registry?resource_type=tool"); rec.Code != http.StatusOK {
		t.Fatal(rec.Code)
	}
}
