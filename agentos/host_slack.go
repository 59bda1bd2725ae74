package agentos

import (
	"context"
	"net/http"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqldb"
)

// What the Slack interface (agentos/slack) and the MCP server
// (agentos/mcpserver) need of the OS beyond Start and Continue: Slack
// does its own work around a run (files, status, a streamed reply,
// approval cards), so it runs in the engine's background and executes
// inside it; the MCP server answers each tool with the HTTP API itself.

// Detach runs fn in the background through the run engine under id (a
// run's id, or a key of the interface's own work, such as
// "slack-card:"+runID): shutdown drains it, a cancel of id reaches it,
// a panic ends it instead of the process. fn's ctx keeps ctx's values,
// not its cancellation. It fails with runs.ErrRefused while the OS
// shuts down.
func (h *Host) Detach(ctx context.Context, id, kind string, fn func(ctx context.Context)) error {
	return h.o.eng.Detach(ctx, id, kind, fn)
}

// Execute runs req on the served agent, team or workflow id now, in ctx:
// Start's run without the background, for an interface that runs it
// inside Detach.
func (h *Host) Execute(ctx context.Context, kind, id string, req *run.Request, emit run.Emitter) Result {
	return h.o.execute(ctx, kind, id, req, emit)
}

// OutputResult is the Result of an agent's or team's run an interface
// made itself (an Executor's Execute or ExecuteContinue).
func OutputResult(out *run.Output, err error) Result { return outputResultOf(out, err) }

// RegisterMigrations registers the schema versions of the interface's
// own tables in Config.DB (ms is called with it), which
// /databases/{db_id}/migrate applies after the control plane's; call it
// from Start.
func (h *Host) RegisterMigrations(ms func(*sqldb.DB) []sqldb.Migration) {
	h.o.interfaceMigrations = append(h.o.interfaceMigrations, ms)
}

// API is the OS's HTTP API for requests an interface makes in process
// with its own caller's credentials: every route, behind the key or JWT
// check, a panic answered 500; without the layers facing the network
// (CORS, protected mode, the access log). Each call builds it anew:
// build it once, at the first request, when every plane has started.
func (h *Host) API() http.Handler {
	o := h.o
	mux := http.NewServeMux()
	return recoverPanics(o.serveRows(mux, o.routes(mux), o.authenticate), o)
}

// Name is the OS's name (Config.Name).
func (h *Host) Name() string { return h.o.cfg.Name }

// Version is the version the OS reports (Config.Version).
func (h *Host) Version() string { return h.o.cfg.Version }
