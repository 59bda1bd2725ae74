package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/media"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// execution is one run (or continuation) of a workflow.
type execution struct {
	w   *Workflow
	req *run.Request
	out *RunOutput
	rc  *run.Context

	ctx    context.Context
	cancel context.CancelCauseFunc

	emit         run.Emitter
	stream       bool
	streamEvents bool
	consumerGone bool
	emitMu       sync.Mutex

	// resume is the paused run's state; answer the resolved requirement;
	// errRetry the failed step's requirement when a human asked to retry it.
	resume   *resumeState
	answer   *StepRequirement
	errRetry *ErrorRequirement
	// unregistered: an enclosing workflow agent already tied the run id to
	// a cancel function (its context is this one's parent).
	unregistered bool
	// direct marks a workflow agent's direct answer (no steps ran).
	direct bool
	// state collects this execution's finished nodes for a later resume.
	state *resumeState
	mu    sync.Mutex

	session *storage.Session
	// h is the run in the engine; refused: its id was taken.
	h           *runs.Run
	refused     bool
	stateAtLoad map[string]any
	history     []HistoryRun
	started     time.Time
	tags        run.WorkflowTags
	// failure is the error that ended the run ERROR.
	failure  error
	releases []func()
}

// pauseSignal unwinds the step tree when a node pauses.
type pauseSignal struct {
	req     *StepRequirement
	errReq  *ErrorRequirement
	kind    string
	address string
	name    string
}

func (p *pauseSignal) Error() string { return "workflow paused at " + p.name }

// cancelSignal ends the run as cancelled (a rejection with on_reject
// cancel).
type cancelSignal struct{ reason string }

func (c *cancelSignal) Error() string { return c.reason }

// executeRun runs a request, emitting events to emit (nil: none). With a
// workflow agent configured, the agent answers and runs the workflow when
// it decides to.
func (w *Workflow) executeRun(ctx context.Context, req *run.Request, emit run.Emitter) (*RunOutput, error) {
	if req.RunID == "" {
		req.RunID, req.NewRunID = run.NewID(), true
	}
	if req.SessionID == "" {
		req.SessionID, req.NewSessionID = run.NewID(), true
	}
	if w.agent != nil {
		return w.executeAgent(ctx, req, emit)
	}
	return w.execute(ctx, req, emit, nil)
}

// innerRun is how a workflow agent's tool starts a run: the stored input
// is the user's message (the steps get the agent's query), and the run id
// is already tied to the agent's cancellable context.
type innerRun struct {
	input        string
	unregistered bool
	done         func(*execution)
}

// execute runs the steps.
func (w *Workflow) execute(ctx context.Context, req *run.Request, emit run.Emitter, inner *innerRun) (*RunOutput, error) {
	x := w.newExecution(req, emit)
	x.out = w.newOutput(req)
	if inner != nil {
		x.out.Input = inner.input
		x.unregistered = inner.unregistered
	}
	input, err := w.parseInput(req.Input)
	if err != nil {
		return nil, err
	}
	x.out.Status = run.StatusRunning
	if err := x.begin(ctx, true); err != nil {
		if errors.Is(err, runs.ErrRefused) {
			x.release()
			return nil, err
		}
		return x.result(x.finish(err))
	}
	defer x.release()
	if inner != nil {
		inner.done(x)
	}
	// WorkflowStarted goes out while the run's first write is under way;
	// the steps run once it is stored.
	x.send(&run.WorkflowStarted{EventBase: x.base()}, true)
	if err := x.afterStart(); err != nil {
		if errors.Is(err, run.ErrRunExists) { // another run's: nothing to report on it
			x.refused = true
			return nil, err
		}
		return x.result(x.finish(err))
	}
	err = x.run(func() error { return x.drive(input, 0) })
	return x.result(x.finish(err))
}

// result is what Execute returns for a finished run: an error only when
// it ended ERROR (a run cancelled before it began is CANCELLED, as agno).
func (x *execution) result(out *RunOutput) (*RunOutput, error) {
	if out.Status == run.StatusError {
		return out, x.failed()
	}
	return out, nil
}

// failed is the error a run that ended ERROR returns: ErrRunFailed with
// the cause, so callers can tell an expression's failure from others.
func (x *execution) failed() error {
	if x.failure != nil {
		return fmt.Errorf("%w: %w", ErrRunFailed, x.failure)
	}
	return fmt.Errorf("%w: %s", ErrRunFailed, x.out.ContentString())
}

// run drives steps with panics contained: one ends the run ERROR.
func (x *execution) run(drive func() error) error {
	return safe.Call(x.w.cfg.Logger, "workflow "+x.w.cfg.ID+" run "+x.out.RunID, drive)
}

func (w *Workflow) newOutput(req *run.Request) *RunOutput {
	return &RunOutput{
		RunID: req.RunID, WorkflowID: w.cfg.ID, WorkflowName: w.cfg.Name, SessionID: req.SessionID,
		UserID: req.UserID, ParentRunID: req.ParentRunID, Input: req.Input, Status: run.StatusPending,
		CreatedAt: run.Now(), Metadata: mergeMaps(req.Metadata, w.cfg.Metadata), Metrics: &Metrics{},
	}
}

// parseInput validates the input against the input schema.
func (w *Workflow) parseInput(input string) (any, error) {
	if w.schema == nil {
		return input, nil
	}
	var v any
	if err := run.DecodeJSON([]byte(input), &v); err != nil {
		return nil, fmt.Errorf("%w: workflow %q takes a JSON object as input: %v", ErrInvalidInput, w.cfg.ID, err)
	}
	var plain any
	_ = json.Unmarshal([]byte(input), &plain) // the validator wants float64 numbers
	if err := w.schema.Validate(plain); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return v, nil
}

func mergeMaps(low, high map[string]any) map[string]any {
	if len(low) == 0 && len(high) == 0 {
		return nil
	}
	out := map[string]any{}
	for k, v := range low {
		out[k] = v
	}
	for k, v := range high {
		out[k] = v
	}
	return out
}

func (w *Workflow) newExecution(req *run.Request, emit run.Emitter) *execution {
	x := &execution{w: w, req: req, emit: emit, stream: req.Stream, streamEvents: req.StreamEvents, started: time.Now()}
	x.state = &resumeState{Done: map[string]*StepOutput{}, Decisions: map[string]json.RawMessage{}, LoopOutputs: map[string][]*StepOutput{}}
	x.tags = run.WorkflowTags{WorkflowID: w.cfg.ID, WorkflowName: w.cfg.Name, WorkflowRunID: req.RunID}
	return x
}

// begin sets up cancellation and the run context. With create it starts
// the run with the engine — its row and session are written in the
// background, started waits for them — else (a continuation holding its
// claim, a workflow agent's turn) it loads the session now.
func (x *execution) begin(parent context.Context, create bool) error {
	ctx, cancel := context.WithCancelCause(parent)
	x.ctx, x.cancel = ctx, cancel
	if !x.unregistered {
		x.onRelease(x.w.canceller().Register(x.out.RunID, cancel))
	}
	if x.req.Cancelled {
		cancel(run.ErrCancelled)
	}
	x.rc = run.NewContext(nil)
	x.rc.RunID, x.rc.SessionID, x.rc.UserID = x.out.RunID, x.out.SessionID, x.out.UserID
	x.rc.WorkflowID, x.rc.WorkflowName = x.w.cfg.ID, x.w.cfg.Name
	x.rc.Dependencies = mergeMaps(x.w.cfg.Dependencies, x.req.Dependencies)
	x.rc.Metadata = x.out.Metadata
	x.rc.Stream, x.rc.StreamEvents = x.stream, x.streamEvents
	x.ctx = run.WithContext(x.ctx, x.rc)
	if create {
		doc, err := x.document()
		if err != nil {
			return err
		}
		x.h, err = x.w.engine().Begin(x.ctx, runs.Begin{Row: x.row(doc), Session: x.sessionTemplate(),
			Prepared: x.req.Prepared, Resumable: x.req.Resumable, Cancel: cancel, NewID: x.req.NewRunID, NewSession: x.req.NewSessionID})
		if err != nil {
			return err
		}
		x.emit = x.h.Emitter(x.emit)
		return nil
	}
	var sess *storage.Session
	if st := x.w.cfg.Store; st != nil {
		var err error
		if x.h != nil {
			sess, err = st.GetSession(x.ctx, x.out.SessionID)
		} else {
			sess, _, err = st.EnsureSession(x.ctx, x.sessionTemplate())
		}
		if err != nil {
			return fmt.Errorf("load session %s: %w", x.out.SessionID, err)
		}
	}
	return x.loadState(sess)
}

// afterStart waits for a new run's first write, then loads its session
// and keeps its media.
func (x *execution) afterStart() error {
	sess, err := x.h.Started(x.ctx)
	if err != nil {
		return err
	}
	if err := x.loadState(sess); err != nil {
		return err
	}
	// Steps get the run's images and files as stored references.
	x.req.Images, x.req.Files, err = media.Keep(x.ctx, x.w.cfg.Store, x.out.SessionID, x.req.Images, x.req.Files)
	return err
}

// loadState builds the run's state from its stored session (nil: none).
func (x *execution) loadState(sess *storage.Session) error {
	state := map[string]any{}
	if sess != nil {
		x.session = sess
		if sess.SessionState != nil {
			state = run.CloneMap(sess.SessionState)
		}
		if n := x.historyRuns(); n > 0 && !x.direct { // an agent turn reads its own
			x.history = x.w.loadHistory(x.ctx, x.out.SessionID, n)
		}
	} else if x.w.cfg.SessionState != nil {
		state = run.CloneMap(x.w.cfg.SessionState)
	}
	x.stateAtLoad = run.CloneMap(state)
	if x.req.SessionState != nil {
		run.MergeMaps(state, x.req.SessionState)
	}
	x.rc.ReplaceState(state)
	return nil
}

// sessionTemplate is the session a new run creates when it has none.
func (x *execution) sessionTemplate() *storage.Session {
	return &storage.Session{
		SessionID: x.out.SessionID, SessionType: storage.SessionWorkflow, WorkflowID: x.w.cfg.ID,
		UserID: x.out.UserID, SessionState: run.CloneMap(x.w.cfg.SessionState),
		Data: map[string]any{"workflow_name": x.w.cfg.Name},
	}
}

// row is the run's row with document doc.
func (x *execution) row(doc json.RawMessage) storage.Run {
	return storage.Run{RunID: x.out.RunID, SessionID: x.out.SessionID, ParentRunID: x.out.ParentRunID,
		SessionType: storage.SessionWorkflow, ComponentID: x.w.cfg.ID, UserID: x.out.UserID,
		Status: x.out.Status, CreatedAt: x.out.CreatedAt, Data: doc}
}

// document encodes the run's output as stored (events are rows of their
// own).
func (x *execution) document() (json.RawMessage, error) {
	events := x.out.Events
	x.out.Events = nil
	data, err := json.Marshal(x.out)
	x.out.Events = events
	if err != nil {
		return nil, fmt.Errorf("encode workflow run %s: %w", x.out.RunID, err)
	}
	return data, nil
}

// historyRuns is how many earlier runs the steps need: the most any of
// them asks for (0: none wants history).
func (x *execution) historyRuns() int {
	most := 0
	var walk func([]Node)
	walk = func(nodes []Node) {
		for _, n := range nodes {
			if s, ok := n.(*Step); ok && (s.AddWorkflowHistory || x.w.cfg.AddWorkflowHistoryToSteps) {
				most = max(most, x.w.cfg.NumHistoryRuns, s.NumHistoryRuns)
			}
			for _, l := range children(n) {
				walk(l)
			}
		}
	}
	walk(x.w.cfg.Steps)
	return most
}

// loadHistory reads up to n completed runs of the session, oldest first.
func (w *Workflow) loadHistory(ctx context.Context, sessionID string, n int) []HistoryRun {
	recs, err := w.cfg.Store.ListRuns(ctx, storage.RunQuery{
		SessionID: sessionID, ComponentID: w.cfg.ID, TopLevel: true,
		Status: []run.Status{run.StatusCompleted}, Newest: true, Limit: n,
	})
	if err != nil {
		w.cfg.Logger.Warn("workflow history unavailable", "error", err)
		return nil
	}
	var h []HistoryRun
	for i := len(recs) - 1; i >= 0; i-- {
		var past RunOutput
		if json.Unmarshal(recs[i].Data, &past) == nil {
			h = append(h, HistoryRun{Input: run.ContentText(past.Input), Content: past.ContentString()})
		}
	}
	return h
}

func (x *execution) onRelease(f func()) { x.releases = append(x.releases, f) }

func (x *execution) release() {
	for _, f := range x.releases {
		f()
	}
	x.cancel(context.Canceled)
	if x.h != nil {
		x.h.Close()
	}
}

// base is the base of this run's own events.
func (x *execution) base() run.EventBase {
	return run.EventBase{WorkflowID: x.w.cfg.ID, WorkflowName: x.w.cfg.Name, RunID: x.out.RunID,
		SessionID: x.out.SessionID, NestedDepth: x.req.NestedDepth}
}

// stepBase is the base of a step's events.
func (x *execution) stepBase(id, name string, index *int) run.EventBase {
	b := x.base()
	b.StepID, b.StepName, b.StepIndex = id, name, index
	return b
}

// send emits a workflow event; optional events only with stream_events.
func (x *execution) send(e run.Event, always bool) {
	x.recordEvent(e)
	x.deliverEvent(e, always)
}

// storeEvents reports events kept with the run: the workflow's
// store_events, or the request's (AgentOS always stores them, as agno).
func (x *execution) storeEvents() bool {
	return x.w.cfg.StoreEvents || x.req != nil && x.req.StoreEvents
}

// recordEvent stamps an event and keeps it for storage.
func (x *execution) recordEvent(e run.Event) {
	run.Stamp(e)
	x.emitMu.Lock()
	defer x.emitMu.Unlock()
	if x.storeEvents() && !x.w.skip[e.Kind()] {
		x.out.Events = append(x.out.Events, e)
		x.h.Record(e)
	}
}

// deliverEvent hands a recorded event to the stream consumer.
func (x *execution) deliverEvent(e run.Event, always bool) {
	x.emitMu.Lock()
	defer x.emitMu.Unlock()
	if (!always && !x.streamEvents) || x.emit == nil || x.consumerGone {
		return
	}
	if !x.emit(e) {
		x.consumerGone = true
		x.cancel(context.Canceled)
	}
}

// forward passes an executor's event into the workflow stream, tagged
// with the workflow and step (agno enriches executor events the same way).
func (x *execution) forward(e run.Event) bool {
	x.emitMu.Lock()
	defer x.emitMu.Unlock()
	if x.storeEvents() && !x.w.skip[e.Kind()] {
		x.out.Events = append(x.out.Events, e)
		x.h.Record(e)
	}
	if x.emit == nil || x.consumerGone {
		return !x.consumerGone
	}
	if !x.emit(e) {
		x.consumerGone = true
		x.cancel(context.Canceled)
		return false
	}
	return true
}

// drive runs the top-level steps from index start.
func (x *execution) drive(input any, start int) error {
	outputs := map[string]*StepOutput{}
	var prev *StepOutput
	for _, o := range x.out.StepResults {
		outputs[o.StepName] = o
		prev = o
	}
	steps := x.w.cfg.Steps
	for i := start; i < len(steps); i++ {
		if err := x.ctx.Err(); err != nil {
			return context.Cause(x.ctx)
		}
		in := x.input(input, prev, outputs)
		idx := i
		o, err := x.runNode(x.ctx, steps[i], strconv.Itoa(i), in, &idx)
		if err != nil {
			var ps *pauseSignal
			if errors.As(err, &ps) {
				return x.pause(ps, i, steps[i])
			}
			return err
		}
		x.out.StepResults = append(x.out.StepResults, o)
		outputs[o.StepName] = o
		prev = o
		if o.Stop {
			break
		}
	}
	if prev != nil {
		x.out.Content = prev.deepest().Content
	}
	return nil
}

// input builds a step's input from the previous outputs.
func (x *execution) input(input any, prev *StepOutput, outputs map[string]*StepOutput) *StepInput {
	// The run's images and documents go to every step, as agno's
	// StepInput carries the workflow's media.
	in := &StepInput{Input: input, PreviousStepOutputs: map[string]*StepOutput{}, AdditionalData: map[string]any{}, history: x.history,
		Images: x.req.Images, Files: x.req.Files}
	for k, v := range outputs {
		in.PreviousStepOutputs[k] = v
	}
	for k, v := range x.req.AdditionalData {
		in.AdditionalData[k] = v
	}
	if prev != nil {
		in.PreviousStepContent = prev.deepest().Content
	}
	return in
}

// child derives the input for the next node inside a container.
func child(in *StepInput, prev *StepOutput) *StepInput {
	c := *in
	c.PreviousStepOutputs = map[string]*StepOutput{}
	for k, v := range in.PreviousStepOutputs {
		c.PreviousStepOutputs[k] = v
	}
	c.AdditionalData = map[string]any{}
	for k, v := range in.AdditionalData {
		if k != "user_input" {
			c.AdditionalData[k] = v
		}
	}
	if prev != nil {
		c.PreviousStepOutputs[prev.StepName] = prev
		c.PreviousStepContent = prev.deepest().Content
	}
	return &c
}

// pause records the run as paused and announces it. A nested workflow
// cannot pause (its parent would not know to continue it): an agent of
// one asking for a human ends it ERROR instead of leaving it paused.
func (x *execution) pause(ps *pauseSignal, index int, top Node) error {
	if x.req.NestedDepth > 0 {
		return fmt.Errorf("workflow %q paused at step %q for a human, which a nested workflow cannot do; run that step in the outer workflow", x.w.cfg.ID, ps.name)
	}
	x.out.Status = run.StatusPaused
	x.out.PausedStepIndex = &index
	x.out.PausedStepName = top.nodeName()
	x.out.PauseKind = ps.kind
	if ps.req != nil {
		x.out.StepRequirements = append(x.out.StepRequirements, ps.req)
	}
	if ps.errReq != nil {
		// agno keeps only the error the run waits on.
		x.out.ErrorRequirements = []*ErrorRequirement{ps.errReq}
	}
	x.state.Address, x.state.TopIndex = ps.address, index
	x.out.Resume = x.state
	return nil
}

// finish sets the final status, stores the run, then emits the terminal
// event.
func (x *execution) finish(err error) *RunOutput {
	out := x.out
	out.Metrics.Duration = time.Since(x.started).Seconds()
	var cs *cancelSignal
	var terminal run.Event
	switch {
	case err == nil && out.Status == run.StatusPaused:
		reqs, _ := json.Marshal(out.StepRequirements)
		results, _ := json.Marshal(out.StepResults)
		ev := &run.WorkflowPaused{EventBase: x.base(), Status: run.StatusPaused, PausedStepIndex: out.PausedStepIndex,
			PausedStepName: out.PausedStepName, PauseKind: out.PauseKind, StepRequirements: reqs, StepResults: results,
			Content: out.Content, Metadata: out.Metadata}
		if len(out.StepExecutorRuns) > 0 {
			ev.StepExecutorRuns, _ = json.Marshal(out.StepExecutorRuns)
		}
		terminal = ev
	case err == nil:
		out.Status = run.StatusCompleted
		out.Resume = nil
		if out.ContentType == "" {
			out.ContentType = "str"
			if _, ok := out.Content.(string); !ok && out.Content != nil {
				out.ContentType = "dict"
			}
		}
		results, _ := json.Marshal(out.StepResults)
		ev := &run.WorkflowCompleted{EventBase: x.base(), Content: out.Content, ContentType: out.ContentType, StepResults: results, Metadata: out.Metadata}
		if x.direct {
			ev.StepResults, ev.Metadata = json.RawMessage("[]"), map[string]any{"agent_direct_response": true}
		}
		if len(out.StepExecutorRuns) > 0 {
			ev.StepExecutorRuns, _ = json.Marshal(out.StepExecutorRuns)
		}
		terminal = ev
	case errors.As(err, &cs) || (x.ctx != nil && x.ctx.Err() != nil):
		out.Status = run.StatusCancelled
		reason := "Workflow run " + out.RunID + " was cancelled"
		if cs != nil {
			reason = cs.reason
		}
		out.Content = reason
		terminal = &run.WorkflowCancelled{EventBase: x.base(), Reason: reason, Content: reason}
	default:
		out.Status = run.StatusError
		out.Content = err.Error()
		x.failure = err
		if x.ctx == nil {
			x.ctx, x.cancel = context.WithCancelCause(context.Background())
		}
		terminal = &run.WorkflowError{EventBase: x.base(), Error: err.Error(), ErrorType: fmt.Sprintf("%T", err)}
	}
	if x.rc != nil {
		out.SessionState = x.rc.StateSnapshot()
	}
	// Stored before the client hears of it, so a continue sent on
	// the terminal event finds the run paused or done.
	x.recordEvent(terminal)
	if err := x.persist(true, terminal); err != nil {
		// The run's end could not be stored: it is not what it seemed.
		out.Status, out.Content, x.failure = run.StatusError, err.Error(), err
		terminal = run.Stamp(&run.WorkflowError{EventBase: x.base(), Error: err.Error(), ErrorType: fmt.Sprintf("%T", err)})
	}
	x.deliverEvent(terminal, true)
	if n := x.w.Notifier(); n != nil && out.Status == run.StatusPaused {
		n.Paused(x.w, out)
	}
	return out
}

// persist stores the run through the engine: mid-run its row (a
// continuation's), at the end (final) its row, the events not yet stored
// and the session state it changed, in one write. terminal is the event
// a resumable run delivers after the final write.
func (x *execution) persist(final bool, terminal ...run.Event) error {
	if x.refused {
		return nil
	}
	if x.h == nil {
		if !final || !x.direct {
			return nil
		}
		// A workflow agent's direct answer is stored as a run of its own.
		doc, err := x.document()
		if err != nil {
			return err
		}
		if x.h, err = x.w.engine().Begin(x.ctx, runs.Begin{Row: x.row(doc), Session: x.sessionTemplate(), Prepared: x.req.Prepared,
			Cancel: x.cancel, NewID: x.req.NewRunID, NewSession: x.req.NewSessionID}); err != nil {
			return err
		}
	}
	doc, err := x.document()
	if err != nil {
		return err
	}
	if !final {
		return x.h.Save(x.ctx, doc)
	}
	f := runs.Finish{Status: x.out.Status, Doc: doc}
	if x.h.Resumable() {
		f.Terminal = terminal
	}
	if x.session != nil {
		after := x.out.SessionState
		changed := map[string]any{}
		var removed []string
		for k, v := range after {
			if old, ok := x.stateAtLoad[k]; !ok || !jsonEqual(old, v) {
				changed[k] = v
			}
		}
		for k := range x.stateAtLoad {
			if _, ok := after[k]; !ok {
				removed = append(removed, k)
			}
		}
		f.SessionID = x.out.SessionID
		f.Session = func(s *storage.Session) error {
			if s.SessionState == nil {
				s.SessionState = map[string]any{}
			}
			for k, v := range changed {
				s.SessionState[k] = v
			}
			for _, k := range removed {
				delete(s.SessionState, k)
			}
			return nil
		}
		defer func() { x.stateAtLoad = run.CloneMap(after) }()
	}
	return x.h.Finish(x.ctx, f)
}

func jsonEqual(a, b any) bool {
	ab, e1 := json.Marshal(a)
	bb, e2 := json.Marshal(b)
	return e1 == nil && e2 == nil && string(ab) == string(bb)
}
