package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// A2AConfig configures the A2A interface (agno's A2A); nil: off.
type A2AConfig = a2a.Config

// a2aTag describes the A2A routes' tag.
const a2aTag = "The Agent-to-Agent protocol interface: agent cards and JSON-RPC endpoints of the agents, teams and workflows."

// a2aMaxBody bounds one JSON-RPC request (inline file parts included).
const a2aMaxBody = 32 << 20

// a2aKinds are the path segments of the served kinds.
var a2aKinds = []struct{ seg, kind, title string }{
	{"agents", "agent", "Agent"}, {"teams", "team", "Team"}, {"workflows", "workflow", "Workflow"},
}

// A2A is agno's A2A interface: per agent, team and workflow an agent
// card and A2A JSON-RPC endpoints.
func A2A(c *A2AConfig) *A2AInterface {
	raw := *c
	return &A2AInterface{raw: &raw}
}

// A2AInterface serves A2A under its prefix.
type A2AInterface struct {
	raw *a2a.Config
	o   *OS
}

// Config is the interface's configuration.
func (i *A2AInterface) Config() A2AConfig { return *i.raw }

func (i *A2AInterface) Check(Catalog) error { return nil } // a bad prefix is logged, the interface off
func (i *A2AInterface) Start(h *Host) error { i.o = h.o; return nil }
func (i *A2AInterface) Stop()               {}
func (i *A2AInterface) Routes() []Route     { return i.o.a2aAPIRoutes(i.raw) }

func (i *A2AInterface) Listing() []any {
	if c := a2aConf(i.raw); c != nil {
		return []any{c.Listing()}
	}
	return nil
}

// a2aConf is the normalized config; nil when misconfigured.
func a2aConf(raw *a2a.Config) *a2a.Config {
	c := *raw
	if err := c.Normalize(); err != nil {
		return nil
	}
	return &c
}

// a2aEntity is one served agent, team or workflow.
type a2aEntity struct {
	kind, id, name, desc string
	ex                   run.Executor
	wf                   *workflow.Workflow
}

func (e *a2aEntity) session() storage.SessionType {
	switch e.kind {
	case "agent":
		return storage.SessionAgent
	case "team":
		return storage.SessionTeam
	}
	return storage.SessionWorkflow
}

func (o *OS) a2aLookup(c *a2a.Config, kind, id string) *a2aEntity {
	if !c.Serves(kind, id) {
		return nil
	}
	cat := o.catalog()
	switch kind {
	case "agent":
		if a, ok := cat.agents[id]; ok {
			return &a2aEntity{kind: kind, id: id, name: a.Name(), desc: a.Description(), ex: a}
		}
	case "team":
		if t, ok := cat.teams[id]; ok {
			return &a2aEntity{kind: kind, id: id, name: t.Name(), desc: t.Description(), ex: t}
		}
	default:
		if w, ok := cat.workflows[id]; ok {
			return &a2aEntity{kind: kind, id: id, name: w.Name(), desc: w.Description(), wf: w}
		}
	}
	return nil
}

// a2aOp is what a request asks.
type a2aOp int

const (
	opSend a2aOp = iota
	opStream
	opGet
	opCancel
)

// a2aCard is GET {prefix}/{kind}/{id}/.well-known/agent-card.json:
// agno's card, its url the entity's message:stream endpoint (the one
// JSON-RPC endpoint A2A clients post every method to).
func (o *OS) a2aCard(c *a2a.Config, kind, seg, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := o.a2aLookup(c, kind, r.PathValue("id"))
		if e == nil {
			writeError(w, http.StatusNotFound, title+" not found")
			return
		}
		base := requestBase(r)
		card := a2a.AgentCard{
			Name: e.name, Description: e.desc, Version: "1.0.0",
			URL:             base + c.Prefix + "/" + seg + "/" + e.id + "/v1/message:stream",
			ProtocolVersion: a2a.ProtocolVersion, PreferredTransport: "JSONRPC",
			DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"},
			// agno: workflows are not advertised as streaming.
			Capabilities: a2a.AgentCapabilities{Streaming: kind != "workflow"},
			Skills: []a2a.AgentSkill{{ID: e.id, Name: e.name, Description: e.desc, Tags: []string{"agno"},
				Examples: []string{"search", "ok"}, OutputModes: []string{"application/json"}}},
		}
		writeJSON(w, http.StatusOK, card)
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

// a2aRead reads the JSON-RPC envelope; false when answered.
func a2aRead(w http.ResponseWriter, r *http.Request) (*a2a.Request, bool) {
	if !jsonContent(r) {
		writeError(w, http.StatusUnsupportedMediaType, "Invalid A2A request: send the JSON-RPC body as application/json")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a2aMaxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "Invalid A2A request: could not read the body: "+err.Error())
		return nil, false
	}
	req, err := a2a.ParseRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return req, true
}

// a2aEntityRoute serves the per-entity routes. agno ignores the method
// on tasks:get and tasks:cancel; on message:send and message:stream the
// JSON-RPC method decides, because A2A clients (@a2a-js/sdk) post every
// method to the card's url, which is message:stream.
func (o *OS) a2aEntityRoute(c *a2a.Config, kind, title string, op a2aOp) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, ok := a2aRead(w, r)
		if !ok {
			return
		}
		e := o.a2aLookup(c, kind, r.PathValue("id"))
		if e == nil {
			writeError(w, http.StatusNotFound, title+" not found")
			return
		}
		op := op // per request: the method may pick another
		if op == opSend || op == opStream {
			switch req.Method {
			case a2a.MethodSend:
				op = opSend
			case a2a.MethodStream:
				op = opStream
			case a2a.MethodGet:
				op = opGet
			case a2a.MethodCancel:
				op = opCancel
			}
		}
		o.a2aServe(w, r, e, req, op)
	}
}

// a2aDeprecated is agno's POST {prefix}/message/send|stream: the entity
// named by params.message.agentId or X-Agent-ID (agents, then teams,
// then workflows).
func (o *OS) a2aDeprecated(c *a2a.Config, op a2aOp) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, ok := a2aRead(w, r)
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
			writeError(w, http.StatusBadRequest, detail)
			return
		}
		var e *a2aEntity
		for _, k := range a2aKinds {
			if e = o.a2aLookup(c, k.kind, id); e != nil {
				break
			}
		}
		if e == nil {
			writeError(w, http.StatusNotFound, "Agent, Team, or Workflow with ID '"+id+"' not found")
			return
		}
		o.a2aServe(w, r, e, req, op)
	}
}

func (o *OS) a2aServe(w http.ResponseWriter, r *http.Request, e *a2aEntity, req *a2a.Request, op a2aOp) {
	// agno v2.6.13 maps no scope to its A2A routes; a token still needs
	// the entity's run scope (read for tasks/get), as its run routes do.
	action := "run"
	if op == opGet {
		action = "read"
	}
	if !o.may(callerOf(r.Context()), []string{e.kind + "s:" + action}, e.kind+"s", e.id) {
		writeError(w, http.StatusForbidden, "Access denied to "+action+" this "+e.kind)
		return
	}
	switch op {
	case opGet:
		o.a2aGet(w, r, e, req)
	case opCancel:
		o.a2aCancel(w, r, e, req)
	default:
		o.a2aMessage(w, r, e, req, op == opStream)
	}
}

// a2aUser is who the run is for: a token's user in JWT mode, else
// agno's X-User-ID header, else params.message.metadata.userId.
func a2aUser(r *http.Request, m *a2a.Message) string {
	if c := callerOf(r.Context()); c != nil && c.UserID != "" {
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

// a2aMessage is message/send and message/stream: a new run, or the
// continuation of the paused run params.message.taskId names.
func (o *OS) a2aMessage(w http.ResponseWriter, r *http.Request, e *a2aEntity, req *a2a.Request, stream bool) {
	p, err := a2a.ParseSend(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if o.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, shuttingDown)
		return
	}
	m := p.Message
	in, err := a2a.MapInput(m)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	user := a2aUser(r, m)
	if m.TaskID != "" {
		o.a2aContinue(w, r, e, req, m, user, stream)
		return
	}
	sessionID := m.ContextID
	if sessionID == "" {
		sessionID = run.NewID()
	} else if _, ok := o.callerIn(r, sessionID); !ok {
		// Under user isolation a context is its user's, as run routes do.
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	rreq := &run.Request{Input: in.Text, Images: in.Images, Files: in.Files, RunID: run.NewID(), SessionID: sessionID, UserID: user}
	if stream {
		rreq.Stream, rreq.StreamEvents = true, true // agno: stream=True, stream_events=True
		o.a2aStream(w, r, req.ID, rreq.RunID, sessionID, func(emit run.Emitter) a2a.Outcome {
			return o.a2aExecute(r.Context(), e, rreq, emit)
		})
		return
	}
	if p.Configuration != nil && p.Configuration.Blocking != nil && !*p.Configuration.Blocking && e.ex != nil && o.cfg.Store != nil {
		o.a2aBackground(w, r, e, req.ID, rreq)
		return
	}
	task := o.a2aTask(o.a2aRunOnce(r.Context(), e, rreq))
	writeJSON(w, http.StatusOK, a2a.Result(req.ID, task))
}

// a2aResult is a finished (or failed) run of any kind.
type a2aResult struct {
	out   *run.Output
	wf    *workflow.RunOutput
	err   error
	runID string
	sess  string
}

func (o *OS) a2aRunOnce(ctx context.Context, e *a2aEntity, req *run.Request) a2aResult {
	res := a2aResult{runID: req.RunID, sess: req.SessionID}
	if e.wf != nil {
		res.wf, res.err = e.wf.Execute(ctx, req, nil)
	} else {
		res.out, res.err = e.ex.Execute(ctx, req, nil)
	}
	return res
}

// a2aTask maps a finished run: agno answers a run that raised with a
// failed task carrying the error.
func (o *OS) a2aTask(res a2aResult) *a2a.Task {
	switch {
	case res.out != nil && (res.err == nil || res.out.Status != run.StatusError):
		return a2a.FromOutput(res.out)
	case res.wf != nil && (res.err == nil || res.wf.Status != run.StatusError):
		return a2a.FromWorkflow(res.wf)
	}
	err := res.err
	if err == nil {
		err = errors.New("the run failed")
	}
	o.log.Warn("A2A: the run failed", "run_id", res.runID, "err", err)
	return a2a.Failed("", res.sess, err)
}

// a2aBackground is configuration.blocking=false: agno's background run,
// answered at once with the submitted task; tasks:get follows it.
func (o *OS) a2aBackground(w http.ResponseWriter, r *http.Request, e *a2aEntity, id json.RawMessage, req *run.Request) {
	req.Prepared, req.Resumable = true, true
	doc, err := marshal(map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending, "created_at": run.Now(), e.kind + "_id": e.id})
	if err != nil {
		fail(w, err)
		return
	}
	row := storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: e.session(), ComponentID: e.id, UserID: req.UserID, Data: doc, CreatedAt: run.Now()}
	ex := e.ex
	if err := o.eng.Launch(r.Context(), runs.Launch{Row: row, Exec: func(ctx context.Context) { _, _ = ex.Execute(ctx, req, nil) }}); err != nil {
		runError(w, req.RunID, err)
		return
	}
	t := &a2a.Task{Kind: a2a.KindTask, ID: req.RunID, ContextID: req.SessionID, Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
	writeJSON(w, http.StatusOK, a2a.Result(id, t))
}

// a2aExecute runs req streaming its events to emit, and says how it ended.
func (o *OS) a2aExecute(ctx context.Context, e *a2aEntity, req *run.Request, emit run.Emitter) a2a.Outcome {
	if e.wf != nil {
		out, err := e.wf.Execute(ctx, req, emit)
		return wfOutcome(out, err)
	}
	out, err := e.ex.Execute(ctx, req, emit)
	return outOutcome(out, err)
}

func outOutcome(out *run.Output, err error) a2a.Outcome {
	if out == nil {
		if err == nil {
			err = errors.New("the run returned nothing")
		}
		return a2a.Outcome{Err: err}
	}
	oc := a2a.Outcome{Status: out.Status, Content: out.Content, Metadata: out.Metadata, Requirements: out.ActiveRequirements()}
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

func wfOutcome(out *workflow.RunOutput, err error) a2a.Outcome {
	if out == nil {
		if err == nil {
			err = errors.New("the run returned nothing")
		}
		return a2a.Outcome{Err: err}
	}
	oc := a2a.Outcome{Status: out.Status, Content: out.Content, Metadata: out.Metadata, Steps: out.StepRequirements}
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
	b, err := marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// a2aStream answers with agno's A2A SSE stream of exec's run.
func (o *OS) a2aStream(w http.ResponseWriter, r *http.Request, id json.RawMessage, runID, sessionID string, exec func(run.Emitter) a2a.Outcome) {
	sse := newSSE(w)
	st := a2a.NewStream(runID, sessionID)
	var mu sync.Mutex
	send := func(fs []a2a.Frame) bool {
		for _, f := range fs {
			if !sse.json(f.Name, a2a.Result(id, f.Result)) {
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

// a2aStored reads the stored run of task id for e; nil when there is
// none (or it is not e's, or not the caller's).
func (o *OS) a2aStored(ctx context.Context, e *a2aEntity, id, contextID string) (*storage.Run, error) {
	if o.cfg.Store == nil {
		return nil, nil
	}
	rec, err := o.cfg.Store.GetRun(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.ComponentID != e.id || rec.SessionType != e.session() || (contextID != "" && rec.SessionID != contextID) {
		return nil, nil
	}
	if u := scopedUser(ctx); u != "" && rec.UserID != u {
		return nil, nil
	}
	return rec, nil
}

// a2aStoredTask maps a stored run to its task.
func a2aStoredTask(rec *storage.Run) (*a2a.Task, error) {
	if rec.SessionType == storage.SessionWorkflow {
		out := &workflow.RunOutput{}
		if err := json.Unmarshal(rec.Data, out); err != nil {
			return nil, err
		}
		out.Status = rec.Status
		return a2a.FromWorkflow(out), nil
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
	return a2a.FromOutput(out), nil
}

func a2aTaskParams(req *a2a.Request) a2a.TaskParams {
	var p a2a.TaskParams
	_ = json.Unmarshal(req.Params, &p)
	return p
}

// a2aGet is tasks/get: the task of a stored run (a run is stored, so a
// task outlives a restart). agno reads params.id and params.contextId;
// contextId is optional here because A2A's TaskQueryParams has none.
func (o *OS) a2aGet(w http.ResponseWriter, r *http.Request, e *a2aEntity, req *a2a.Request) {
	p := a2aTaskParams(req)
	if p.ID == "" {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInvalidParams, "Missing required parameter: id (task_id)"))
		return
	}
	rec, err := o.a2aStored(r.Context(), e, p.ID, p.ContextID)
	if err != nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, err.Error()))
		return
	}
	if rec == nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeTaskNotFound, "Task "+p.ID+" not found"))
		return
	}
	t, err := a2aStoredTask(rec)
	if err != nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, "stored run "+p.ID+" is unreadable: "+err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, a2a.Result(req.ID, t))
}

// a2aCancelResult is agno's tasks:cancel result.
type a2aCancelResult struct {
	ID     string `json:"id"`
	Status struct {
		State a2a.TaskState `json:"state"`
	} `json:"status"`
}

// a2aCancel is tasks/cancel: canceled when a known run was told to stop
// (wherever it runs), failed otherwise (agno's acancel_run false).
func (o *OS) a2aCancel(w http.ResponseWriter, r *http.Request, e *a2aEntity, req *a2a.Request) {
	p := a2aTaskParams(req)
	if p.ID == "" {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInvalidParams, "Missing required parameter: id (task_id)"))
		return
	}
	res := a2aCancelResult{ID: p.ID}
	res.Status.State = a2a.StateFailed
	known := o.knownRun(r.Context(), p.ID, e.id)
	if u := scopedUser(r.Context()); known && u != "" {
		rec, err := o.a2aStored(r.Context(), e, p.ID, "")
		known = err == nil && rec != nil
	}
	if known {
		// ok: a run in flight was reached, here or through its owner; a
		// settled run cannot be cancelled (agno's cancel_run False).
		if ok, err := o.eng.Cancel(r.Context(), p.ID); err == nil && ok {
			res.Status.State = a2a.StateCanceled
		}
	}
	writeJSON(w, http.StatusOK, a2a.Result(req.ID, res))
}

// a2aContinue answers a message for an existing task: a paused run is
// continued with the requirements the client resolved (sent back as a
// data part {"requirements": [...]}), through the run engine; any other
// task is answered as it stands.
func (o *OS) a2aContinue(w http.ResponseWriter, r *http.Request, e *a2aEntity, req *a2a.Request, m *a2a.Message, user string, stream bool) {
	ctx := r.Context()
	rec, err := o.a2aStored(ctx, e, m.TaskID, "")
	if err != nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, err.Error()))
		return
	}
	if rec == nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeTaskNotFound, "Task "+m.TaskID+" not found"))
		return
	}
	current, err := a2aStoredTask(rec)
	if err != nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, err.Error()))
		return
	}
	answer := func(t *a2a.Task) {
		if stream {
			sse := newSSE(w)
			if t.Status.Message != nil {
				st := a2a.NewStatus(t.ID, t.ContextID, t.Status.State, true, map[string]any{"agno_event_type": "run_paused"})
				st.Status.Message = t.Status.Message
				sse.json(a2a.EventStatus, a2a.Result(req.ID, st))
			}
			sse.json(a2a.EventTask, a2a.Result(req.ID, t))
			return
		}
		writeJSON(w, http.StatusOK, a2a.Result(req.ID, t))
	}
	if rec.Status != run.StatusPaused {
		// Only a task waiting for input takes another message.
		answer(current)
		return
	}
	refuse := func() {
		t := *current
		msg := *current.Status.Message
		msg.Parts = append([]a2a.Part{a2a.TextPart("Error: the requirements sent are not the ones this task waits on")}, msg.Parts[1:]...)
		t.Status.Message = &msg
		answer(&t)
	}
	if user == "" {
		user = rec.UserID
	}
	var cont func(ctx context.Context, emit run.Emitter) a2a.Outcome
	if e.wf != nil {
		// A workflow's step pause: the answers are step requirements.
		raw := a2a.StepRequirements(m)
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
		if !o.approvalGate(w, r, rec.RunID) {
			return
		}
		wreq := &workflow.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, UserID: user, StepRequirements: steps, StoreEvents: true, Stream: stream, StreamEvents: stream}
		cont = func(ctx context.Context, emit run.Emitter) a2a.Outcome {
			return wfOutcome(e.wf.ExecuteContinue(ctx, wreq, emit))
		}
	} else {
		out := &run.Output{}
		if err := json.Unmarshal(rec.Data, out); err != nil {
			writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, err.Error()))
			return
		}
		raw := a2a.Requirements(m)
		if len(raw) == 0 {
			answer(current) // nothing resolved: the task keeps waiting
			return
		}
		reqs, ok := a2a.DecodeRequirements(raw, a2a.WaitingOn(out.ActiveRequirements()))
		if !ok {
			refuse()
			return
		}
		if !o.approvalGate(w, r, rec.RunID) {
			return
		}
		creq := &run.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, UserID: user, Requirements: reqs, StoreEvents: true, Stream: stream, StreamEvents: stream}
		ex := e.ex
		cont = func(ctx context.Context, emit run.Emitter) a2a.Outcome {
			return outOutcome(ex.ExecuteContinue(ctx, creq, emit))
		}
	}
	// The continuation runs in the engine (drained at shutdown,
	// cancellable by tasks/cancel), the request waits for it.
	execute := func(emit run.Emitter) a2a.Outcome {
		done := make(chan a2a.Outcome, 1)
		err := o.eng.Detach(ctx, rec.RunID, e.kind, func(ctx context.Context) {
			done <- cont(ctx, emit)
		})
		if err != nil {
			return a2a.Outcome{Err: err}
		}
		return <-done
	}
	if stream {
		o.a2aStream(w, r, req.ID, rec.RunID, rec.SessionID, execute)
		return
	}
	oc := execute(nil)
	if oc.Err != nil && oc.Status == "" {
		if errors.Is(oc.Err, run.ErrNotPaused) {
			answer(current)
			return
		}
		writeJSON(w, http.StatusOK, a2a.Result(req.ID, a2a.Failed(rec.RunID, rec.SessionID, oc.Err)))
		return
	}
	rec2, err := o.a2aStored(ctx, e, rec.RunID, "")
	if err != nil || rec2 == nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, "the continued run could not be read back"))
		return
	}
	t, err := a2aStoredTask(rec2)
	if err != nil {
		writeJSON(w, http.StatusOK, a2a.Fail(req.ID, a2a.CodeInternal, err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, a2a.Result(req.ID, t))
}

// a2aAPIRoutes are the A2A interface's routes: per agent, team and
// workflow its card and JSON-RPC endpoints, and agno's deprecated
// endpoints naming the entity in the message.
func (o *OS) a2aAPIRoutes(raw *a2a.Config) []apiRoute {
	c := a2aConf(raw)
	if c == nil {
		o.log.Error("A2A: invalid prefix, the interface is off", "prefix", raw.Prefix)
		return nil
	}
	p := c.Prefix
	rpc := []apiParam{
		{Name: "jsonrpc", Type: "string", Desc: "\"2.0\"", Required: true},
		{Name: "id", Type: "string", Desc: "JSON-RPC request id (string or integer), echoed in the answer", Required: true},
		{Name: "method", Type: "string", Desc: "message/send, message/stream, tasks/get or tasks/cancel (A2A v0.3); on message:send and message:stream it picks the operation", Required: true},
		{Name: "params", Type: "object", Desc: "message/*: {message: {messageId, role: \"user\", parts: [{kind: text|file|data, ...}], contextId (= session_id), taskId (answers a paused task), metadata.userId}, configuration.blocking}; tasks/*: {id (= run_id), contextId}", Required: true},
	}
	var out []apiRoute
	for _, k := range a2aKinds {
		base := p + "/" + k.seg + "/{id}"
		// agno v2.6.13's table names no A2A route; a2aServe checks the
		// entity's scope.
		run := checkedBy("OS.a2aServe: " + k.kind + "s:run on the entity (" + k.kind + "s:read for tasks/get)")
		out = append(out,
			apiRoute{Pattern: "GET " + base + "/.well-known/agent-card.json", Handler: o.a2aCard(c, k.kind, k.seg, k.title),
				Access: open("a public discovery document, open in agno"), Tag: "A2A", TagDesc: a2aTag, Summary: "Get " + k.title + " Agent Card",
				Desc:   "The A2A agent card of the " + k.kind + " (no key or token needed): its url is the JSON-RPC endpoint (message:stream) clients post every method to.",
				Result: "AgentCard"},
			apiRoute{Pattern: "POST " + base + "/v1/message:send", Handler: o.a2aEntityRoute(c, k.kind, k.title, opSend), Access: run, Tag: "A2A", Summary: "Send Message To " + k.title, JSON: rpc,
				Desc:   "A2A message/send: runs the " + k.kind + " (contextId is the session, the task id the run id) and answers {jsonrpc, id, result: Task}. User from X-User-ID or params.message.metadata.userId (a JWT's sub wins). A message with taskId answers a paused (input-required) task: a data part {\"requirements\": [...]} continues the run.",
				Result: "JSON-RPC response with the Task"},
			apiRoute{Pattern: "POST " + base + "/v1/message:stream", Handler: o.a2aEntityRoute(c, k.kind, k.title, opStream), Access: run, Tag: "A2A", Summary: "Stream Message To " + k.title, JSON: rpc, Stream: true,
				Desc:   "A2A message/stream: SSE of JSON-RPC responses (event: TaskStatusUpdateEvent | Message | Task): working, content deltas, tool and step statuses, the final status (completed, canceled, failed or input-required) and the final Task. Other methods posted here (message/send, tasks/get, tasks/cancel) are served as such.",
				Result: "text/event-stream"})
		if k.kind != "workflow" {
			out = append(out,
				apiRoute{Pattern: "POST " + base + "/v1/tasks:get", Handler: o.a2aEntityRoute(c, k.kind, k.title, opGet), Access: run, Tag: "A2A", Summary: "Get " + k.title + " Task", JSON: rpc,
					Desc:   "A2A tasks/get: the task of a stored run, params.id the run id (params.contextId, the session, is checked when given). Unknown: JSON-RPC error -32001.",
					Result: "JSON-RPC response with the Task"},
				apiRoute{Pattern: "POST " + base + "/v1/tasks:cancel", Handler: o.a2aEntityRoute(c, k.kind, k.title, opCancel), Access: run, Tag: "A2A", Summary: "Cancel " + k.title + " Task", JSON: rpc,
					Desc:   "A2A tasks/cancel: cancels the run params.id wherever it runs; result {id, status: {state: canceled | failed}}.",
					Result: "JSON-RPC response"})
		}
	}
	named := checkedBy("OS.a2aServe: the run scope of the entity the message names")
	out = append(out,
		apiRoute{Pattern: "POST " + p + "/message/send", Handler: o.a2aDeprecated(c, opSend), Access: named, Tag: "A2A", Summary: "Send Message (deprecated)", JSON: rpc,
			Desc: "[DEPRECATED] message/send to the agent, team or workflow named by params.message.agentId or X-Agent-ID.", Result: "JSON-RPC response with the Task"},
		apiRoute{Pattern: "POST " + p + "/message/stream", Handler: o.a2aDeprecated(c, opStream), Access: named, Tag: "A2A", Summary: "Stream Message (deprecated)", JSON: rpc, Stream: true,
			Desc: "[DEPRECATED] message/stream to the agent, team or workflow named by params.message.agentId or X-Agent-ID.", Result: "text/event-stream"})
	return out
}
