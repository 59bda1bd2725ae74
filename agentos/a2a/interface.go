package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// Host is what the interface needs of the OS: *agentos.Host, given to
// Start.
type Host interface {
	Logger() *slog.Logger
	// Store holds the runs a task is read back from; nil without one.
	Store() storage.Store
	Catalog() agentos.Catalog
	// Allowed reports whether r's caller may "run" or "read" kind id.
	Allowed(r *http.Request, kind, id, action string) bool
	// Caller is the user r's caller runs as under user isolation; ok
	// false when that user may not run in sessionID.
	Caller(r *http.Request, sessionID string) (user string, ok bool)
	// Draining reports a shutting-down OS, having answered w 503.
	Draining(w http.ResponseWriter) bool
	// EventStream answers w with an SSE stream, returning how to send
	// one event.
	EventStream(w http.ResponseWriter) func(event string, v any) bool
	// Launch runs a background run stored PENDING; false when it did not
	// start, having answered w.
	Launch(w http.ResponseWriter, r *http.Request, row storage.Run, exec func(ctx context.Context)) bool
	// Detach runs fn as run runID in the run engine.
	Detach(ctx context.Context, runID, kind string, fn func(ctx context.Context)) error
	Cancel(ctx context.Context, runID string) (bool, error)
	// KnownRun reports a run in flight here or stored for componentID.
	KnownRun(ctx context.Context, runID, componentID string) bool
	// MayContinue reports whether r's caller may continue the paused
	// run runID; when not, it has answered w 403.
	MayContinue(w http.ResponseWriter, r *http.Request, runID string) bool
}

var _ Host = (*agentos.Host)(nil)

// tag describes the A2A routes' tag.
const tag = "The Agent-to-Agent protocol interface: agent cards and JSON-RPC endpoints of the agents, teams and workflows."

// maxBody bounds one JSON-RPC request (inline file parts included).
const maxBody = 32 << 20

// kinds are the path segments of the served kinds.
var kinds = []struct{ seg, kind, title string }{
	{"agents", "agent", "Agent"}, {"teams", "team", "Team"}, {"workflows", "workflow", "Workflow"},
}

// New is agno's A2A interface: per agent, team and workflow an agent
// card and A2A JSON-RPC endpoints. Give it in agentos.Config.Interfaces.
func New(c *Config) *Interface {
	raw := *c
	return &Interface{raw: &raw}
}

// Interface serves A2A under its prefix (an agentos.Interface).
type Interface struct {
	raw  *Config
	host Host
}

// Config is the interface's configuration.
func (i *Interface) Config() Config { return *i.raw }

func (i *Interface) Check(agentos.Catalog) error { return nil } // a bad prefix is logged, the interface off
func (i *Interface) Start(h *agentos.Host) error { i.host = h; return nil }
func (i *Interface) Stop()                       {}

func (i *Interface) Listing() []any {
	if c := normalized(i.raw); c != nil {
		return []any{c.Listing()}
	}
	return nil
}

// normalized is the normalized config; nil when misconfigured.
func normalized(raw *Config) *Config {
	c := *raw
	if err := c.Normalize(); err != nil {
		return nil
	}
	return &c
}

// entity is one served agent, team or workflow.
type entity struct {
	kind, id, name, desc string
	ex                   run.Executor
	wf                   *workflow.Workflow
}

func (e *entity) session() storage.SessionType {
	switch e.kind {
	case "agent":
		return storage.SessionAgent
	case "team":
		return storage.SessionTeam
	}
	return storage.SessionWorkflow
}

func (i *Interface) lookup(c *Config, kind, id string) *entity {
	if !c.Serves(kind, id) {
		return nil
	}
	cat := i.host.Catalog()
	switch kind {
	case "agent":
		if a := cat.Agent(id); a != nil {
			return &entity{kind: kind, id: id, name: a.Name(), desc: a.Description(), ex: a}
		}
	case "team":
		if t := cat.Team(id); t != nil {
			return &entity{kind: kind, id: id, name: t.Name(), desc: t.Description(), ex: t}
		}
	default:
		if w := cat.Workflow(id); w != nil {
			return &entity{kind: kind, id: id, name: w.Name(), desc: w.Description(), wf: w}
		}
	}
	return nil
}

// operation is what a request asks.
type operation int

const (
	opSend operation = iota
	opStream
	opGet
	opCancel
)

// card is GET {prefix}/{kind}/{id}/.well-known/agent-card.json: agno's
// card, its url the entity's message:stream endpoint (the one JSON-RPC
// endpoint A2A clients post every method to).
func (i *Interface) card(c *Config, kind, seg, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := i.lookup(c, kind, r.PathValue("id"))
		if e == nil {
			httpapi.WriteError(w, http.StatusNotFound, title+" not found")
			return
		}
		base := requestBase(r)
		card := AgentCard{
			Name: e.name, Description: e.desc, Version: "1.0.0",
			URL:             base + c.Prefix + "/" + seg + "/" + e.id + "/v1/message:stream",
			ProtocolVersion: ProtocolVersion, PreferredTransport: "JSONRPC",
			DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"},
			// agno: workflows are not advertised as streaming.
			Capabilities: AgentCapabilities{Streaming: kind != "workflow"},
			Skills: []AgentSkill{{ID: e.id, Name: e.name, Description: e.desc, Tags: []string{"agno"},
				Examples: []string{"search", "ok"}, OutputModes: []string{"application/json"}}},
		}
		httpapi.WriteJSON(w, http.StatusOK, card)
	}
}

// requestBase is Starlette's request.base_url without the slash.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// read reads the JSON-RPC envelope; false when answered.
func read(w http.ResponseWriter, r *http.Request) (*Request, bool) {
	if !httpapi.JSONContent(r) {
		httpapi.WriteError(w, http.StatusUnsupportedMediaType, "Invalid A2A request: send the JSON-RPC body as application/json")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, "Invalid A2A request: could not read the body: "+err.Error())
		return nil, false
	}
	req, err := ParseRequest(body)
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return req, true
}

// entityRoute serves the per-entity routes. agno ignores the method on
// tasks:get and tasks:cancel; on message:send and message:stream the
// JSON-RPC method decides, because A2A clients (@a2a-js/sdk) post every
// method to the card's url, which is message:stream.
func (i *Interface) entityRoute(c *Config, kind, title string, op operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, ok := read(w, r)
		if !ok {
			return
		}
		e := i.lookup(c, kind, r.PathValue("id"))
		if e == nil {
			httpapi.WriteError(w, http.StatusNotFound, title+" not found")
			return
		}
		op := op // per request: the method may pick another
		if op == opSend || op == opStream {
			switch req.Method {
			case MethodSend:
				op = opSend
			case MethodStream:
				op = opStream
			case MethodGet:
				op = opGet
			case MethodCancel:
				op = opCancel
			}
		}
		i.serve(w, r, e, req, op)
	}
}

// deprecated is agno's POST {prefix}/message/send|stream: the entity
// named by params.message.agentId or X-Agent-ID (agents, then teams,
// then workflows).
func (i *Interface) deprecated(c *Config, op operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, ok := read(w, r)
		if !ok {
			return
		}
		var p struct {
			Message struct {
				AgentID string `json:"agentId"`
			} `json:"message"`
		}
		_ = json.Unmarshal(req.Params, &p)
		id := p.Message.AgentID
		if id == "" {
			id = r.Header.Get("X-Agent-ID")
		}
		if id == "" {
			detail := "Entity ID required. Provide it via 'agentId' in params.message or 'X-Agent-ID' header."
			if op == opStream {
				detail = "Entity ID required. Provide 'agentId' in params.message or 'X-Agent-ID' header."
			}
			httpapi.WriteError(w, http.StatusBadRequest, detail)
			return
		}
		var e *entity
		for _, k := range kinds {
			if e = i.lookup(c, k.kind, id); e != nil {
				break
			}
		}
		if e == nil {
			httpapi.WriteError(w, http.StatusNotFound, "Agent, Team, or Workflow with ID '"+id+"' not found")
			return
		}
		i.serve(w, r, e, req, op)
	}
}

func (i *Interface) serve(w http.ResponseWriter, r *http.Request, e *entity, req *Request, op operation) {
	// agno v2.6.13 maps no scope to its A2A routes; a token still needs
	// the entity's run scope (read for tasks/get), as its run routes do.
	action := "run"
	if op == opGet {
		action = "read"
	}
	if !i.host.Allowed(r, e.kind, e.id, action) {
		httpapi.WriteError(w, http.StatusForbidden, "Access denied to "+action+" this "+e.kind)
		return
	}
	switch op {
	case opGet:
		i.get(w, r, e, req)
	case opCancel:
		i.cancel(w, r, e, req)
	default:
		i.message(w, r, e, req, op == opStream)
	}
}

// userOf is who the run is for: a token's user in JWT mode, else agno's
// X-User-ID header, else params.message.metadata.userId.
func userOf(r *http.Request, m *Message) string {
	if c := httpapi.CallerOf(r.Context()); c != nil && c.UserID != "" {
		return c.UserID
	}
	if u := r.Header.Get("X-User-ID"); u != "" {
		return u
	}
	if u, ok := m.Metadata["userId"].(string); ok {
		return u
	}
	return ""
}

// message is message/send and message/stream: a new run, or the
// continuation of the paused run params.message.taskId names.
func (i *Interface) message(w http.ResponseWriter, r *http.Request, e *entity, req *Request, stream bool) {
	p, err := ParseSend(req)
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	if i.host.Draining(w) {
		return
	}
	m := p.Message
	in, err := MapInput(m)
	if err != nil {
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	user := userOf(r, m)
	if m.TaskID != "" {
		i.continueTask(w, r, e, req, m, user, stream)
		return
	}
	sessionID := m.ContextID
	if sessionID == "" {
		sessionID = run.NewID()
	} else if _, ok := i.host.Caller(r, sessionID); !ok {
		// Under user isolation a context is its user's, as run routes do.
		httpapi.WriteError(w, http.StatusNotFound, "Session not found")
		return
	}
	rreq := &run.Request{Input: in.Text, Images: in.Images, Files: in.Files, RunID: run.NewID(), SessionID: sessionID, UserID: user}
	if stream {
		rreq.Stream, rreq.StreamEvents = true, true // agno: stream=True, stream_events=True
		i.stream(w, req.ID, rreq.RunID, sessionID, func(emit run.Emitter) Outcome {
			return execute(r.Context(), e, rreq, emit)
		})
		return
	}
	if p.Configuration != nil && p.Configuration.Blocking != nil && !*p.Configuration.Blocking && e.ex != nil && i.host.Store() != nil {
		i.background(w, r, e, req.ID, rreq)
		return
	}
	task := i.taskOf(runOnce(r.Context(), e, rreq))
	httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, task))
}

// finished is a finished (or failed) run of any kind.
type finished struct {
	out   *run.Output
	wf    *workflow.RunOutput
	err   error
	runID string
	sess  string
}

func runOnce(ctx context.Context, e *entity, req *run.Request) finished {
	res := finished{runID: req.RunID, sess: req.SessionID}
	if e.wf != nil {
		res.wf, res.err = e.wf.Execute(ctx, req, nil)
	} else {
		res.out, res.err = e.ex.Execute(ctx, req, nil)
	}
	return res
}

// taskOf maps a finished run: agno answers a run that raised with a
// failed task carrying the error.
func (i *Interface) taskOf(res finished) *Task {
	switch {
	case res.out != nil && (res.err == nil || res.out.Status != run.StatusError):
		return FromOutput(res.out)
	case res.wf != nil && (res.err == nil || res.wf.Status != run.StatusError):
		return FromWorkflow(res.wf)
	}
	err := res.err
	if err == nil {
		err = errors.New("the run failed")
	}
	i.host.Logger().Warn("A2A: the run failed", "run_id", res.runID, "err", err)
	return Failed("", res.sess, err)
}

// background is configuration.blocking=false: agno's background run,
// answered at once with the submitted task; tasks:get follows it.
func (i *Interface) background(w http.ResponseWriter, r *http.Request, e *entity, id json.RawMessage, req *run.Request) {
	req.Prepared, req.Resumable = true, true
	doc, err := httpapi.Marshal(map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending, "created_at": run.Now(), e.kind + "_id": e.id})
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	row := storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: e.session(), ComponentID: e.id, UserID: req.UserID, Data: doc, CreatedAt: run.Now()}
	ex := e.ex
	if !i.host.Launch(w, r, row, func(ctx context.Context) { _, _ = ex.Execute(ctx, req, nil) }) {
		return
	}
	t := &Task{Kind: KindTask, ID: req.RunID, ContextID: req.SessionID, Status: TaskStatus{State: StateSubmitted}}
	httpapi.WriteJSON(w, http.StatusOK, Result(id, t))
}

// execute runs req streaming its events to emit, and says how it ended.
func execute(ctx context.Context, e *entity, req *run.Request, emit run.Emitter) Outcome {
	if e.wf != nil {
		out, err := e.wf.Execute(ctx, req, emit)
		return wfOutcome(out, err)
	}
	out, err := e.ex.Execute(ctx, req, emit)
	return outOutcome(out, err)
}

func outOutcome(out *run.Output, err error) Outcome {
	if out == nil {
		if err == nil {
			err = errors.New("the run returned nothing")
		}
		return Outcome{Err: err}
	}
	oc := Outcome{Status: out.Status, Content: out.Content, Metadata: out.Metadata, Requirements: out.ActiveRequirements()}
	if out.Metrics != nil {
		oc.Metrics = toMap(out.Metrics)
	}
	if out.Status == run.StatusError && err != nil {
		oc.Err = err
	}
	if out.Status == run.StatusCancelled {
		oc.Reason = cancelReason(out)
	}
	return oc
}

func wfOutcome(out *workflow.RunOutput, err error) Outcome {
	if out == nil {
		if err == nil {
			err = errors.New("the run returned nothing")
		}
		return Outcome{Err: err}
	}
	oc := Outcome{Status: out.Status, Content: out.Content, Metadata: out.Metadata, Steps: out.StepRequirements}
	if out.Status == run.StatusError && err != nil {
		oc.Err = err
	}
	return oc
}

// cancelReason is the reason of the run's RunCancelled event, if stored.
func cancelReason(out *run.Output) string {
	for _, ev := range out.Events {
		if c, ok := ev.(*run.RunCancelled); ok {
			return c.Reason
		}
	}
	return ""
}

func toMap(v any) map[string]any {
	b, err := httpapi.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// stream answers with agno's A2A SSE stream of exec's run.
func (i *Interface) stream(w http.ResponseWriter, id json.RawMessage, runID, sessionID string, exec func(run.Emitter) Outcome) {
	sse := i.host.EventStream(w)
	st := NewStream(runID, sessionID)
	var mu sync.Mutex
	send := func(fs []Frame) bool {
		for _, f := range fs {
			if !sse(f.Name, Result(id, f.Result)) {
				return false
			}
		}
		return true
	}
	oc := exec(func(ev run.Event) bool {
		mu.Lock()
		defer mu.Unlock()
		return send(st.Event(ev))
	})
	mu.Lock()
	defer mu.Unlock()
	send(st.End(oc))
}

// stored reads the stored run of task id for e; nil when there is none
// (or it is not e's, or not the caller's).
func (i *Interface) stored(ctx context.Context, e *entity, id, contextID string) (*storage.Run, error) {
	st := i.host.Store()
	if st == nil {
		return nil, nil
	}
	rec, err := st.GetRun(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.ComponentID != e.id || rec.SessionType != e.session() || (contextID != "" && rec.SessionID != contextID) {
		return nil, nil
	}
	if u := httpapi.ScopedUser(ctx); u != "" && rec.UserID != u {
		return nil, nil
	}
	return rec, nil
}

// storedTask maps a stored run to its task.
func storedTask(rec *storage.Run) (*Task, error) {
	if rec.SessionType == storage.SessionWorkflow {
		out := &workflow.RunOutput{}
		if err := json.Unmarshal(rec.Data, out); err != nil {
			return nil, err
		}
		out.Status = rec.Status
		return FromWorkflow(out), nil
	}
	out := &run.Output{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, err
	}
	out.Status = rec.Status
	if out.RunID == "" {
		out.RunID = rec.RunID
	}
	if out.SessionID == "" {
		out.SessionID = rec.SessionID
	}
	return FromOutput(out), nil
}

func taskParams(req *Request) TaskParams {
	var p TaskParams
	_ = json.Unmarshal(req.Params, &p)
	return p
}

// get is tasks/get: the task of a stored run (a run is stored, so a task
// outlives a restart). agno reads params.id and params.contextId;
// contextId is optional here because A2A's TaskQueryParams has none.
func (i *Interface) get(w http.ResponseWriter, r *http.Request, e *entity, req *Request) {
	p := taskParams(req)
	if p.ID == "" {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInvalidParams, "Missing required parameter: id (task_id)"))
		return
	}
	rec, err := i.stored(r.Context(), e, p.ID, p.ContextID)
	if err != nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, err.Error()))
		return
	}
	if rec == nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeTaskNotFound, "Task "+p.ID+" not found"))
		return
	}
	t, err := storedTask(rec)
	if err != nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, "stored run "+p.ID+" is unreadable: "+err.Error()))
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, t))
}

// cancelResult is agno's tasks:cancel result.
type cancelResult struct {
	ID     string `json:"id"`
	Status struct {
		State TaskState `json:"state"`
	} `json:"status"`
}

// cancel is tasks/cancel: canceled when a known run was told to stop
// (wherever it runs), failed otherwise (agno's acancel_run false).
func (i *Interface) cancel(w http.ResponseWriter, r *http.Request, e *entity, req *Request) {
	p := taskParams(req)
	if p.ID == "" {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInvalidParams, "Missing required parameter: id (task_id)"))
		return
	}
	res := cancelResult{ID: p.ID}
	res.Status.State = StateFailed
	known := i.host.KnownRun(r.Context(), p.ID, e.id)
	if u := httpapi.ScopedUser(r.Context()); known && u != "" {
		rec, err := i.stored(r.Context(), e, p.ID, "")
		known = err == nil && rec != nil
	}
	if known {
		// ok: a run in flight was reached, here or through its owner; a
		// settled run cannot be cancelled (agno's cancel_run False).
		if ok, err := i.host.Cancel(r.Context(), p.ID); err == nil && ok {
			res.Status.State = StateCanceled
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, res))
}

// continueTask answers a message for an existing task: a paused run is
// continued with the requirements the client resolved (sent back as a
// data part {"requirements": [...]}), through the run engine; any other
// task is answered as it stands.
func (i *Interface) continueTask(w http.ResponseWriter, r *http.Request, e *entity, req *Request, m *Message, user string, stream bool) {
	ctx := r.Context()
	rec, err := i.stored(ctx, e, m.TaskID, "")
	if err != nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, err.Error()))
		return
	}
	if rec == nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeTaskNotFound, "Task "+m.TaskID+" not found"))
		return
	}
	current, err := storedTask(rec)
	if err != nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, err.Error()))
		return
	}
	answer := func(t *Task) {
		if stream {
			sse := i.host.EventStream(w)
			if t.Status.Message != nil {
				st := NewStatus(t.ID, t.ContextID, t.Status.State, true, map[string]any{"agno_event_type": "run_paused"})
				st.Status.Message = t.Status.Message
				sse(EventStatus, Result(req.ID, st))
			}
			sse(EventTask, Result(req.ID, t))
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, t))
	}
	if rec.Status != run.StatusPaused {
		// Only a task waiting for input takes another message.
		answer(current)
		return
	}
	refuse := func() {
		t := *current
		msg := *current.Status.Message
		msg.Parts = append([]Part{TextPart("Error: the requirements sent are not the ones this task waits on")}, msg.Parts[1:]...)
		t.Status.Message = &msg
		answer(&t)
	}
	if user == "" {
		user = rec.UserID
	}
	var cont func(ctx context.Context, emit run.Emitter) Outcome
	if e.wf != nil {
		// A workflow's step pause: the answers are step requirements.
		raw := StepRequirements(m)
		if len(raw) == 0 {
			answer(current) // nothing resolved: the task keeps waiting
			return
		}
		b, err := json.Marshal(raw)
		if err != nil {
			refuse()
			return
		}
		steps, err := workflow.ParseStepRequirements(b)
		if err != nil {
			refuse()
			return
		}
		if !i.host.MayContinue(w, r, rec.RunID) {
			return
		}
		wreq := &workflow.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, UserID: user, StepRequirements: steps, StoreEvents: true, Stream: stream, StreamEvents: stream}
		cont = func(ctx context.Context, emit run.Emitter) Outcome {
			return wfOutcome(e.wf.ExecuteContinue(ctx, wreq, emit))
		}
	} else {
		out := &run.Output{}
		if err := json.Unmarshal(rec.Data, out); err != nil {
			httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, err.Error()))
			return
		}
		raw := Requirements(m)
		if len(raw) == 0 {
			answer(current) // nothing resolved: the task keeps waiting
			return
		}
		reqs, ok := DecodeRequirements(raw, WaitingOn(out.ActiveRequirements()))
		if !ok {
			refuse()
			return
		}
		if !i.host.MayContinue(w, r, rec.RunID) {
			return
		}
		creq := &run.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, UserID: user, Requirements: reqs, StoreEvents: true, Stream: stream, StreamEvents: stream}
		ex := e.ex
		cont = func(ctx context.Context, emit run.Emitter) Outcome {
			return outOutcome(ex.ExecuteContinue(ctx, creq, emit))
		}
	}
	// The continuation runs in the engine (drained at shutdown,
	// cancellable by tasks/cancel), the request waits for it.
	exec := func(emit run.Emitter) Outcome {
		done := make(chan Outcome, 1)
		err := i.host.Detach(ctx, rec.RunID, e.kind, func(ctx context.Context) {
			done <- cont(ctx, emit)
		})
		if err != nil {
			return Outcome{Err: err}
		}
		return <-done
	}
	if stream {
		i.stream(w, req.ID, rec.RunID, rec.SessionID, exec)
		return
	}
	oc := exec(nil)
	if oc.Err != nil && oc.Status == "" {
		if errors.Is(oc.Err, run.ErrNotPaused) {
			answer(current)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, Failed(rec.RunID, rec.SessionID, oc.Err)))
		return
	}
	rec2, err := i.stored(ctx, e, rec.RunID, "")
	if err != nil || rec2 == nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, "the continued run could not be read back"))
		return
	}
	t, err := storedTask(rec2)
	if err != nil {
		httpapi.WriteJSON(w, http.StatusOK, Fail(req.ID, CodeInternal, err.Error()))
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, Result(req.ID, t))
}

// Routes are the A2A interface's routes: per agent, team and workflow
// its card and JSON-RPC endpoints, and agno's deprecated endpoints
// naming the entity in the message.
func (i *Interface) Routes() []agentos.Route {
	c := normalized(i.raw)
	if c == nil {
		i.host.Logger().Error("A2A: invalid prefix, the interface is off", "prefix", i.raw.Prefix)
		return nil
	}
	p := c.Prefix
	rpc := []httpapi.Param{
		{Name: "jsonrpc", Type: "string", Desc: "\"2.0\"", Required: true},
		{Name: "id", Type: "string", Desc: "JSON-RPC request id (string or integer), echoed in the answer", Required: true},
		{Name: "method", Type: "string", Desc: "message/send, message/stream, tasks/get or tasks/cancel (A2A v0.3); on message:send and message:stream it picks the operation", Required: true},
		{Name: "params", Type: "object", Desc: "message/*: {message: {messageId, role: \"user\", parts: [{kind: text|file|data, ...}], contextId (= session_id), taskId (answers a paused task), metadata.userId}, configuration.blocking}; tasks/*: {id (= run_id), contextId}", Required: true},
	}
	var out []httpapi.Route
	for _, k := range kinds {
		base := p + "/" + k.seg + "/{id}"
		// agno v2.6.13's table names no A2A route; serve checks the
		// entity's scope.
		run := httpapi.CheckedBy("a2a.Interface.serve: " + k.kind + "s:run on the entity (" + k.kind + "s:read for tasks/get)")
		out = append(out,
			httpapi.Route{Pattern: "GET " + base + "/.well-known/agent-card.json", Handler: i.card(c, k.kind, k.seg, k.title),
				Access: httpapi.Open("a public discovery document, open in agno"), Tag: "A2A", TagDesc: tag, Summary: "Get " + k.title + " Agent Card",
				Desc:   "The A2A agent card of the " + k.kind + " (no key or token needed): its url is the JSON-RPC endpoint (message:stream) clients post every method to.",
				Result: "AgentCard"},
			httpapi.Route{Pattern: "POST " + base + "/v1/message:send", Handler: i.entityRoute(c, k.kind, k.title, opSend), Access: run, Tag: "A2A", Summary: "Send Message To " + k.title, JSON: rpc,
				Desc:   "A2A message/send: runs the " + k.kind + " (contextId is the session, the task id the run id) and answers {jsonrpc, id, result: Task}. User from X-User-ID or params.message.metadata.userId (a JWT's sub wins). A message with taskId answers a paused (input-required) task: a data part {\"requirements\": [...]} continues the run.",
				Result: "JSON-RPC response with the Task"},
			httpapi.Route{Pattern: "POST " + base + "/v1/message:stream", Handler: i.entityRoute(c, k.kind, k.title, opStream), Access: run, Tag: "A2A", Summary: "Stream Message To " + k.title, JSON: rpc, Stream: true,
				Desc:   "A2A message/stream: SSE of JSON-RPC responses (event: TaskStatusUpdateEvent | Message | Task): working, content deltas, tool and step statuses, the final status (completed, canceled, failed or input-required) and the final Task. Other methods posted here (message/send, tasks/get, tasks/cancel) are served as such.",
				Result: "text/event-stream"})
		if k.kind != "workflow" {
			out = append(out,
				httpapi.Route{Pattern: "POST " + base + "/v1/tasks:get", Handler: i.entityRoute(c, k.kind, k.title, opGet), Access: run, Tag: "A2A", Summary: "Get " + k.title + " Task", JSON: rpc,
					Desc:   "A2A tasks/get: the task of a stored run, params.id the run id (params.contextId, the session, is checked when given). Unknown: JSON-RPC error -32001.",
					Result: "JSON-RPC response with the Task"},
				httpapi.Route{Pattern: "POST " + base + "/v1/tasks:cancel", Handler: i.entityRoute(c, k.kind, k.title, opCancel), Access: run, Tag: "A2A", Summary: "Cancel " + k.title + " Task", JSON: rpc,
					Desc:   "A2A tasks/cancel: cancels the run params.id wherever it runs; result {id, status: {state: canceled | failed}}.",
					Result: "JSON-RPC response"})
		}
	}
	named := httpapi.CheckedBy("a2a.Interface.serve: the run scope of the entity the message names")
	out = append(out,
		httpapi.Route{Pattern: "POST " + p + "/message/send", Handler: i.deprecated(c, opSend), Access: named, Tag: "A2A", Summary: "Send Message (deprecated)", JSON: rpc,
			Desc: "[DEPRECATED] message/send to the agent, team or workflow named by params.message.agentId or X-Agent-ID.", Result: "JSON-RPC response with the Task"},
		httpapi.Route{Pattern: "POST " + p + "/message/stream", Handler: i.deprecated(c, opStream), Access: named, Tag: "A2A", Summary: "Stream Message (deprecated)", JSON: rpc, Stream: true,
			Desc: "[DEPRECATED] message/stream to the agent, team or workflow named by params.message.agentId or X-Agent-ID.", Result: "text/event-stream"})
	return out
}
