package agentos

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// Interface is one of AgentOS's interfaces (agno's interfaces=[...]):
// Slack, A2A, AG-UI, the MCP server, or a program's own. Config.Interfaces
// lists them; the OS serves each one's routes beside its own, lists it in
// /config and documents its routes, and gives it a Host to act through.
// An Interface value serves one OS.
type Interface interface {
	// Check validates the interface against the agents, teams and
	// workflows the OS serves, at New; an error fails New.
	Check(served Catalog) error
	// Start is called at New, before the first request: h is how the
	// interface reaches the OS. An error fails New.
	Start(h *Host) error
	// Routes are the interface's rows, served, checked and documented as
	// every other route (each with its access decision); called after
	// Start, each time the OS builds its handler.
	Routes() []Route
	// Listing are its entries in /config "interfaces" (agno's {type,
	// version, route}); none: nil.
	Listing() []any
	// Stop releases what Start began, at Close (or when New fails).
	Stop()
}

// Has reports whether c serves the agent, team or workflow id (kind
// "agent", "team" or "workflow").
func (c Catalog) Has(kind, id string) bool {
	switch kind {
	case "agent":
		return c.Agent(id) != nil
	case "team":
		return c.Team(id) != nil
	case "workflow":
		return c.Workflow(id) != nil
	}
	return false
}

// Agent is the agent id c serves; nil when none.
func (c Catalog) Agent(id string) *agent.Agent { return servedByID(c.Agents, id) }

// Team is the team id c serves; nil when none.
func (c Catalog) Team(id string) *team.Team { return servedByID(c.Teams, id) }

// Workflow is the workflow id c serves; nil when none.
func (c Catalog) Workflow(id string) *workflow.Workflow { return servedByID(c.Workflows, id) }

// servedByID is the one of list with id; the zero T when none.
func servedByID[T interface{ ID() string }](list []T, id string) T {
	for _, v := range list {
		if v.ID() == id {
			return v
		}
	}
	var none T
	return none
}

// Host is what an Interface acts through: it starts, continues and
// cancels runs of the served agents, teams and workflows through the run
// engine (drained at shutdown, cancellable by run id, claimed once),
// checks callers' permissions as the API does, reaches the databases
// and the logger, streams answers as the run routes do, and registers
// how the interface answers approvals of the runs it started.
//
// Start and Continue do not check who asks: an interface whose callers
// carry AgentOS credentials checks Allowed (and Caller, for the user and
// the session) first, as A2A and AG-UI do; a webhook's signature is its
// own check.
type Host struct{ o *OS }

// Logger is the OS's logger.
func (h *Host) Logger() *slog.Logger { return h.o.log }

// DB is the control-plane database (Config.DB); nil without one.
func (h *Host) DB() *sqldb.DB { return h.o.cfg.DB }

// Store is the OS database (sessions, runs); nil without one.
func (h *Host) Store() storage.Store { return h.o.cfg.Store }

// Catalog is what the OS serves now (a reload changes it).
func (h *Host) Catalog() Catalog { return h.o.Catalog() }

// Executor is the served agent or team id (kind "agent" or "team"); nil
// when it is not served now.
func (h *Host) Executor(kind, id string) run.Executor { return h.o.servedExecutor(kind, id) }

// Allowed reports whether r's caller may act on the agent, team or
// workflow id: action "run" or "read", as the run routes check it (the
// token's scopes in JWT mode; every caller that passed the key check
// otherwise).
func (h *Host) Allowed(r *http.Request, kind, id, action string) bool {
	return h.o.may(callerOf(r.Context()), []string{kind + "s:" + action}, kind+"s", id)
}

// Draining reports whether the OS is shutting down (it takes no new
// run); when it is, it has answered w 503, as the run routes do.
func (h *Host) Draining(w http.ResponseWriter) bool {
	if !h.o.draining.Load() {
		return false
	}
	writeError(w, http.StatusServiceUnavailable, shuttingDown)
	return true
}

// Caller is the user r's caller acts as under user isolation (JWT mode
// with isolation on; "" otherwise): a run the interface starts for r is
// that user's. ok is false when that user may not run in sessionID
// (another user's session, answered as not found).
func (h *Host) Caller(r *http.Request, sessionID string) (user string, ok bool) {
	return h.o.callerIn(r, sessionID)
}

// callerIn is Host.Caller.
func (o *OS) callerIn(r *http.Request, sessionID string) (user string, ok bool) {
	u := scopedUser(r.Context())
	if u == "" {
		return "", true
	}
	return u, o.sessionOpenTo(r.Context(), sessionID, u)
}

// Result is how a run an interface started or continued ended.
type Result struct {
	RunID  string
	Status run.Status
	// Content is the run's final content as text.
	Content string
	// Output is an agent's or team's output (nil for a workflow's run).
	Output *run.Output
	// Err is why the run could not run, or failed.
	Err error
}

func outputResultOf(out *run.Output, err error) Result {
	if out == nil {
		return Result{Err: err}
	}
	return Result{RunID: out.RunID, Status: out.Status, Content: run.ContentText(out.Content), Output: out, Err: err}
}

// Start runs req on the served agent, team or workflow id in the
// background, through the run engine, under req.RunID (a new id when
// empty): emit gets its events (nil: none), done its result. It fails
// with runs.ErrRefused while the OS shuts down.
func (h *Host) Start(kind, id string, req *run.Request, emit run.Emitter, done func(Result)) error {
	if req.RunID == "" {
		req.RunID = run.NewID()
	}
	return h.o.eng.Detach(context.Background(), req.RunID, kind, func(ctx context.Context) {
		res := h.o.execute(ctx, kind, id, req, emit)
		if done != nil {
			done(res)
		}
	})
}

// Continue continues the paused run creq.RunID of the served agent or
// team id with its answered requirements, in the background through the
// run engine: the run is claimed once, whichever channel answers first
// (the loser's Result.Err is run.ErrNotPaused).
func (h *Host) Continue(kind, id string, creq *run.ContinueRequest, emit run.Emitter, done func(Result)) error {
	ex := h.o.servedExecutor(kind, id)
	if ex == nil {
		return fmt.Errorf("%s %q is not served", kind, id)
	}
	return h.o.eng.Detach(context.Background(), creq.RunID, kind, func(ctx context.Context) {
		res := outputResultOf(ex.ExecuteContinue(ctx, creq, emit))
		if done != nil {
			done(res)
		}
	})
}

// Cancel cancels the run id wherever it runs; false when no run in
// flight was reached.
func (h *Host) Cancel(ctx context.Context, runID string) (bool, error) {
	return h.o.eng.Cancel(ctx, runID)
}

// Launch stores row PENDING and runs exec in the background through the
// run engine, as the run routes' background runs: the run is listed at
// once, shutdown waits for it and a cancel from anywhere reaches it. It
// reports false when the run did not start, having answered w as the run
// routes do (409 for a taken run id, 503 while the OS shuts down or has
// lost its database lease).
func (h *Host) Launch(w http.ResponseWriter, r *http.Request, row storage.Run, exec func(ctx context.Context)) bool {
	if err := h.o.eng.Launch(r.Context(), runs.Launch{Row: row, Exec: exec}); err != nil {
		runError(w, row.RunID, err)
		return false
	}
	return true
}

// Detach runs fn in the background through the run engine under runID
// (a run's id, or a key of the interface's own work, such as
// "slack-card:"+runID) of kind ("agent", "team" or "workflow"): shutdown
// drains it, a cancel of the id reaches it, a panic ends it instead of
// the process. fn's ctx keeps ctx's values, not its cancellation. It
// fails with runs.ErrRefused while the OS shuts down.
func (h *Host) Detach(ctx context.Context, runID, kind string, fn func(ctx context.Context)) error {
	return h.o.eng.Detach(ctx, runID, kind, fn)
}

// KnownRun reports whether the run runID is in flight here, or stored
// for the agent, team or workflow componentID.
func (h *Host) KnownRun(ctx context.Context, runID, componentID string) bool {
	return h.o.knownRun(ctx, runID, componentID)
}

// MayContinue reports whether r's caller may continue the paused run
// runID with answers of its own: not while one of the run's required
// approvals is pending (it is resolved through /approvals), unless the
// caller may resolve approvals. When not, it has answered w 403.
func (h *Host) MayContinue(w http.ResponseWriter, r *http.Request, runID string) bool {
	return h.o.approvalGate(w, r, runID)
}

// EventStream answers w with Server-Sent Events as the run routes stream
// them (200, text/event-stream) and returns how to send one: the event's
// name and v as JSON; false once the client is gone.
func (h *Host) EventStream(w http.ResponseWriter) func(event string, v any) bool {
	return newSSE(w).json
}

// Watch calls fn on each run's status change, until stop; fn must not
// block.
func (h *Host) Watch(fn func(runID string, status run.Status)) (stop func()) {
	return h.o.eng.Watch(func(ch runs.Change) { fn(ch.RunID, ch.Status) })
}

// Paused is a paused run whose approvals were all resolved through
// /approvals, about to continue.
type Paused struct {
	// Kind is "agent" or "team"; ID its id.
	Kind, ID                 string
	RunID, SessionID, UserID string
}

// Answer is how an interface continues a run of its own whose approval
// was resolved elsewhere.
type Answer struct {
	// Executor continues the run (nil: the served agent or team).
	Executor run.Executor
	// Emit gets the continuation's events (nil: none).
	Emit run.Emitter
	// Done gets its result (nil: not told).
	Done func(Result)
}

// ApprovalHook is how an interface answers the approvals of runs it
// started: false when the run is not one of its own.
type ApprovalHook func(ctx context.Context, p Paused) (Answer, bool)

// OnApproval registers how the interface answers approvals of the runs
// it started; call it from Start.
func (h *Host) OnApproval(hook ApprovalHook) {
	h.o.approvalHooks = append(h.o.approvalHooks, hook)
}

// execute runs req on the served agent, team or workflow id.
func (o *OS) execute(ctx context.Context, kind, id string, req *run.Request, emit run.Emitter) Result {
	if kind == "workflow" {
		wf, ok := o.catalog().workflows[id]
		if !ok {
			return Result{Err: fmt.Errorf("workflow %q is no longer served", id)}
		}
		return workflowResult(wf.Execute(ctx, req, emit))
	}
	ex := o.servedExecutor(kind, id)
	if ex == nil {
		return Result{Err: fmt.Errorf("%s %q is no longer served", kind, id)}
	}
	return outputResultOf(ex.Execute(ctx, req, emit))
}

func workflowResult(out *workflow.RunOutput, err error) Result {
	if out == nil {
		return Result{Err: err}
	}
	return Result{RunID: out.RunID, Status: out.Status, Content: run.ContentText(out.Content), Err: err}
}

// servedExecutor is the served agent or team id (nil: not served now).
func (o *OS) servedExecutor(kind, id string) run.Executor {
	cat := o.catalog()
	switch kind {
	case "agent":
		if a, ok := cat.agents[id]; ok {
			return a
		}
	case "team":
		if t, ok := cat.teams[id]; ok {
			return t
		}
	}
	return nil
}

// What the Slack interface (agentos/slack) and the MCP server
// (agentos/mcpserver) need of the OS beyond Start and Continue: Slack
// does its own work around a run (files, status, a streamed reply,
// approval cards), so it runs in the engine's background and executes
// inside it; the MCP server answers each tool with the HTTP API itself.

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
