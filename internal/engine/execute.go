package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agno-go/agno/internal/media"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// Execute runs one request to the end — COMPLETED, PAUSED, CANCELLED or
// ERROR — emitting events through emit (nil: none). Run failures are in
// the returned output; the error is only for misuse.
func (s *Spec) Execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	st := s.newState(req, emit)
	st.out.Input = &run.Input{Content: inputContent(req)}
	if err := st.setup(ctx); err != nil {
		return st.failEarly(err)
	}
	if err := st.open(ctx); err != nil {
		return st.failEarly(err)
	}
	defer st.finish()
	// RunStarted goes out while the run's first write is under way; the
	// run goes on (hooks, tools) only once it is stored.
	st.sendOptional(&run.RunStarted{EventBase: st.base(), Model: st.out.Model, ModelProvider: st.out.ModelProvider})
	stored, err := st.h.Started(st.ctx)
	if errors.Is(err, run.ErrRunExists) { // another run's id: report nothing on it
		st.refused = true
		return nil, err
	}
	if err == nil {
		err = st.loadSession(stored)
	}
	if err == nil {
		err = st.keepMedia()
	}
	if err != nil {
		// Cancelled before it began (a cancel that came first): CANCELLED,
		// not the ERROR of the store read the cancel cut short.
		return st.conclude(err), nil
	}

	for attempt := 0; attempt <= s.Retries; attempt++ {
		if attempt > 0 {
			if werr := st.sleep(s.retryDelay(attempt - 1)); werr != nil {
				err = werr
				break
			}
			if rerr := st.reloadState(); rerr != nil {
				err = rerr
				continue
			}
		}
		err = safe.Call(s.logger, st.where(), st.attempt)
		if err == nil || !retryable(err) || st.ctx.Err() != nil {
			break
		}
		s.logger.Warn("run attempt failed", "run_id", st.out.RunID, "component", s.ID, "session_id", st.out.SessionID,
			"attempt", attempt+1, "of", s.Retries+1, "error", err)
	}
	return st.conclude(err), nil
}

// where names the run for panic reports.
func (st *runState) where() string {
	kind := "agent"
	if st.spec.Team {
		kind = "team"
	}
	return kind + " " + st.spec.ID + " run " + st.out.RunID
}

func inputContent(req *run.Request) any {
	if len(req.Messages) > 0 {
		return req.Messages
	}
	return req.Input
}

func (s *Spec) retryDelay(n int) time.Duration {
	d := s.DelayBetweenRetries
	if d == 0 {
		d = time.Second
	}
	if s.ExponentialBackoff {
		d <<= n
	}
	return d
}

func retryable(err error) bool {
	var ce *CheckError
	var pe *safe.PanicError
	if errors.As(err, &ce) || errors.As(err, &pe) || errors.Is(err, context.Canceled) || errors.Is(err, run.ErrCancelled) {
		return false
	}
	return true
}

func (s *Spec) newState(req *run.Request, emit run.Emitter) *runState {
	if req.RunID == "" {
		req.RunID, req.NewRunID = run.NewID(), true
	}
	if req.SessionID == "" {
		req.SessionID, req.NewSessionID = run.NewID(), true
	}
	info := s.Model.Info()
	out := &run.Output{
		RunID:         req.RunID,
		SessionID:     req.SessionID,
		ParentRunID:   req.ParentRunID,
		UserID:        req.UserID,
		ContentType:   "str",
		Model:         info.ID,
		ModelProvider: info.Provider,
		CreatedAt:     run.Now(),
		Status:        run.StatusRunning,
		Metrics:       &run.Metrics{},
	}
	if s.Team {
		out.TeamID, out.TeamName = s.ID, s.Name
	} else {
		out.AgentID, out.AgentName = s.ID, s.Name
	}
	if req.Workflow != nil {
		out.WorkflowID = req.Workflow.WorkflowID
		out.WorkflowStepID = req.Workflow.StepID
	}
	return &runState{
		spec:         s,
		schema:       s.OutputSchema,
		req:          req,
		out:          out,
		stream:       req.Stream,
		streamEvents: req.StreamEvents,
		emit:         emit,
		started:      time.Now(),
	}
}

// failEarly answers a run that could not start (before any event).
func (st *runState) failEarly(err error) (*run.Output, error) {
	if st.h != nil {
		st.h.Close()
	}
	if errors.Is(err, runs.ErrRefused) || errors.Is(err, run.ErrRunExists) {
		return nil, err
	}
	defer st.finish()
	return st.fail(err), nil
}

// setup makes the run context and its cancellation.
func (st *runState) setup(parent context.Context) error {
	s := st.spec
	ctx, cancel := context.WithCancelCause(parent)
	st.ctx, st.cancel = ctx, cancel
	unregister := s.canceller().Register(st.out.RunID, cancel)
	st.onFinish(unregister)
	if st.req.Cancelled {
		cancel(run.ErrCancelled)
	}

	if len(st.req.OutputSchema) > 0 {
		sch, err := RequestSchema(st.req.OutputSchema)
		if err != nil {
			return err
		}
		st.schema = sch
	}
	st.rc = run.NewContext(nil)
	st.rc.RunID, st.rc.SessionID, st.rc.UserID = st.out.RunID, st.out.SessionID, st.out.UserID
	st.rc.ParentRunID = st.out.ParentRunID
	if s.Team {
		st.rc.TeamID, st.rc.TeamName = s.ID, s.Name
	} else {
		st.rc.AgentID, st.rc.AgentName = s.ID, s.Name
	}
	if w := st.req.Workflow; w != nil {
		st.rc.WorkflowID, st.rc.WorkflowName = w.WorkflowID, w.WorkflowName
	}
	st.rc.Dependencies = mergeMaps(s.Dependencies, st.req.Dependencies)
	// Agent metadata wins over call-site metadata, as in agno.
	st.rc.Metadata = mergeMaps(st.req.Metadata, s.Metadata)
	st.rc.KnowledgeFilters = st.req.KnowledgeFilters
	st.rc.Stream, st.rc.StreamEvents = st.stream, st.streamEvents
	st.rc.NestedDepth = st.req.NestedDepth
	st.out.Metadata = st.rc.Metadata
	st.ctx = run.WithContext(st.ctx, st.rc)
	st.media = media.Loader{Store: st.spec.Store, SessionID: st.out.SessionID}
	st.startReferences()
	return nil
}

// open starts the run with the engine: its row (and session, created
// when new) is written in the background.
func (st *runState) open(ctx context.Context) error {
	if !st.stores() {
		return nil
	}
	doc, err := st.document()
	if err != nil {
		return err
	}
	st.h, err = st.engine().Begin(ctx, runs.Begin{Row: st.row(doc), Session: st.sessionTemplate(),
		Prepared: st.req.Prepared, Resumable: st.req.Resumable, Cancel: st.cancel, NewID: st.req.NewRunID, NewSession: st.req.NewSessionID})
	if err != nil {
		return err
	}
	st.emit = st.h.Emitter(st.emit)
	return nil
}

// engine is the run engine of the spec's store.
func (st *runState) engine() *runs.Engine { return runs.For(st.spec.Store) }

// row is the run's row with document doc.
func (st *runState) row(doc json.RawMessage) storage.Run {
	return storage.Run{RunID: st.out.RunID, SessionID: st.out.SessionID, ParentRunID: st.out.ParentRunID,
		SessionType: st.storedType(), ComponentID: st.spec.ID, UserID: st.out.UserID, Status: st.out.Status, CreatedAt: st.out.CreatedAt, Data: doc}
}

// document encodes the run's output as stored: no events (they are rows
// of their own), member responses only when they are stored.
func (st *runState) document() (json.RawMessage, error) {
	events, members := st.out.Events, st.out.MemberResponses
	st.out.Events = nil
	if !st.spec.StoreMemberResponses {
		st.out.MemberResponses = nil
	}
	data, err := run.EncodeJSON(st.out)
	st.out.Events, st.out.MemberResponses = events, members
	if err != nil {
		return nil, fmt.Errorf("encode run %s: %w", st.out.RunID, err)
	}
	return data, nil
}

// sessionTemplate is the session a new run creates when it has none.
func (st *runState) sessionTemplate() *storage.Session {
	s := st.spec
	sess := &storage.Session{
		SessionID:    st.out.SessionID,
		SessionType:  st.storedType(),
		UserID:       st.out.UserID,
		SessionState: run.CloneMap(s.SessionState),
		Metadata:     run.CloneMap(s.Metadata),
	}
	switch sess.SessionType {
	case storage.SessionTeam:
		sess.TeamID = s.ID
		sess.Data = s.sessionData("team_id")
	case storage.SessionAgent:
		sess.AgentID = s.ID
		sess.Data = s.sessionData("agent_id")
	case storage.SessionWorkflow:
		sess.WorkflowID = st.req.Workflow.WorkflowID
	}
	return sess
}

// sessionData is agno's agent_data / team_data of a new session: name,
// id (under idKey) and the model's to_dict(), each when set.
func (s *Spec) sessionData(idKey string) map[string]any {
	d := map[string]any{}
	if s.Name != "" {
		d["name"] = s.Name
	}
	if s.ID != "" {
		d[idKey] = s.ID
	}
	if s.Model != nil {
		info := s.Model.Info()
		m := map[string]any{}
		for k, v := range map[string]string{"name": info.Name, "id": info.ID, "provider": info.Provider} {
			if v != "" {
				m[k] = v
			}
		}
		d["model"] = m
	}
	return d
}

// keepMedia stores the run's images and files as blobs of the session,
// so the run's row, events and messages carry only their ids; the model
// call loads them back.
func (st *runState) keepMedia() error {
	var err error
	st.req.Images, st.req.Files, err = media.Keep(st.ctx, st.spec.Store, st.out.SessionID, st.req.Images, st.req.Files)
	if err != nil {
		return err
	}
	st.out.Input = &run.Input{Content: inputContent(st.req), Images: st.req.Images, Files: st.req.Files}
	return nil
}

func mergeMaps(low, high map[string]any) map[string]any {
	if len(low) == 0 && len(high) == 0 {
		return nil
	}
	out := make(map[string]any, len(low)+len(high))
	for k, v := range low {
		out[k] = v
	}
	for k, v := range high {
		out[k] = v
	}
	return out
}

// loadSession builds this run's state from its stored session: stored
// state ← run state (deep merge, run wins). The agent's default state
// seeds only a new session.
func (st *runState) loadSession(stored *storage.Session) error {
	s := st.spec
	state := map[string]any{}
	if stored != nil {
		st.session = stored
		if !s.OverwriteDBSessionState && stored.SessionState != nil {
			state = run.CloneMap(stored.SessionState)
		}
	} else if s.SessionState != nil && !st.req.Nested {
		state = run.CloneMap(s.SessionState)
	}
	st.stateAtLoad = run.CloneMap(state)
	if st.req.SessionState != nil {
		run.MergeMaps(state, st.req.SessionState)
	}
	st.rc.ReplaceState(state)
	return nil
}

// storedType is the type of the session the run is kept in: a workflow
// step's runs live in the workflow's session.
func (st *runState) storedType() storage.SessionType {
	switch {
	case st.req.Workflow != nil:
		return storage.SessionWorkflow
	case st.spec.Team:
		return storage.SessionTeam
	}
	return storage.SessionAgent
}

// stores reports whether this run writes its own row and session.
func (st *runState) stores() bool { return st.spec.Store != nil && !st.req.Nested }

func (st *runState) reloadState() error {
	if st.session == nil {
		return nil
	}
	if err := st.h.WriteStart(st.ctx); err != nil {
		return err
	}
	stored, err := st.spec.Store.GetSession(st.ctx, st.out.SessionID)
	if err != nil {
		return fmt.Errorf("load session %s: %w", st.out.SessionID, err)
	}
	return st.loadSession(stored)
}

// attempt is one try at the run: hooks, tools, messages, the model loop.
func (st *runState) attempt() error {
	st.content, st.reasoning = st.content[:0], st.reasoning[:0]
	st.toolReasoning, st.toolReasoningStarted, st.unstored = st.toolReasoning[:0], false, nil
	st.out.ReasoningContent, st.out.ReasoningSteps, st.out.ReasoningMessages = "", nil, nil
	st.out.Tools, st.out.Requirements, st.out.Files = nil, nil, nil
	// Each try has the whole tool_call_limit, as agno's retries call the
	// model afresh.
	st.toolCalls = 0
	input := st.req.Input
	if err := st.runPreHooks(&input); err != nil {
		return err
	}
	st.rc.Input = input
	if err := st.resolveTools(); err != nil {
		return err
	}
	if err := st.buildMessages(input); err != nil {
		return err
	}
	waitMemory := st.startMemory(input)
	err := st.reason()
	if err == nil {
		err = st.iterate()
	}
	waitMemory()
	if err != nil {
		return err
	}
	if err := st.settle(); err != nil {
		return err
	}
	if st.out.Status != run.StatusPaused {
		st.summarize()
	}
	return nil
}

// iterate runs the model loop, inside the spec's outer loop if it has
// one. Running out of iterations is not an error (agno logs it).
func (st *runState) iterate() error {
	it := st.spec.Iterations
	if it == nil {
		return st.loop()
	}
	for i := 1; i <= it.Max; i++ {
		if it.Before != nil {
			msg, evs := it.Before(st.rc, i)
			st.sendAll(evs)
			if msg != "" {
				st.messages = append(st.messages, model.Message{ID: run.NewID(), Role: model.RoleUser, Content: msg, CreatedAt: run.Now()})
			}
		}
		if err := st.loop(); err != nil {
			return err
		}
		if st.pausedTools() || len(st.out.ActiveRequirements()) > 0 {
			return nil
		}
		evs, done := it.After(st.rc, i)
		st.sendAll(evs)
		if done {
			return nil
		}
	}
	st.spec.logger.Warn(fmt.Sprintf("Reached max_iterations (%d) without completing all tasks.", it.Max), "run_id", st.out.RunID)
	return nil
}

// sendAll emits hook events (stream_events only) with this run's base.
func (st *runState) sendAll(evs []run.Event) {
	for _, e := range evs {
		b := e.Base()
		*b = st.base()
		st.sendOptional(e)
	}
}

// settle turns the loop's result into the output: content, pause, parse,
// post-hooks.
func (st *runState) settle() error {
	// agno's non-stream run copies the model's tool list even when empty,
	// so its RunOutput has "tools": []; a stream run leaves it unset.
	if st.out.Tools == nil && !st.stream {
		st.out.Tools = []*run.ToolExecution{}
	}
	st.out.Content = string(st.content)
	// The model's own reasoning replaces what reasoning wrote, as in
	// agno; think/analyze steps stay after it.
	if len(st.reasoning) > 0 {
		st.out.ReasoningContent = string(st.reasoning) + string(st.toolReasoning)
	}
	st.completeToolReasoning()
	if st.pausedTools() || len(st.out.ActiveRequirements()) > 0 {
		st.out.Status = run.StatusPaused
		if st.out.ContentString() == "" {
			st.out.Content = pausedContent(st.out.Tools)
		}
		return nil
	}
	st.parseStructured()
	// agno closes the content before the post-hooks run, so a stream shows
	// RunContentCompleted, then PostHookStarted/Completed.
	st.sendOptional(&run.RunContentCompleted{EventBase: st.base()})
	return st.runPostHooks()
}

func (st *runState) pausedTools() bool {
	for _, t := range st.out.Tools {
		if t.Paused() {
			return true
		}
	}
	return false
}

// pausedContent is agno's content for a paused run without text.
func pausedContent(tools []*run.ToolExecution) string {
	var conf, input, ext bool
	for _, t := range tools {
		conf = conf || t.RequiresConfirmation
		input = input || t.RequiresUserInput
		ext = ext || t.ExternalExecutionRequired
	}
	var needs []string
	if conf {
		needs = append(needs, "confirmation")
	}
	if input {
		needs = append(needs, "user input")
	}
	if ext {
		needs = append(needs, "external execution")
	}
	switch len(needs) {
	case 0:
		return "I have tools to execute, but I need confirmation."
	case 1:
		if ext {
			return "I have tools to execute, but it needs external execution."
		}
		return "I have tools to execute, but I need " + needs[0] + "."
	case 2:
		return "I have tools to execute, but I need " + needs[0] + " or " + needs[1] + "."
	}
	return "I have tools to execute, but I need " + strings.Join(needs[:len(needs)-1], ", ") + ", or " + needs[len(needs)-1] + "."
}

func (st *runState) runPreHooks(input *string) error {
	for _, h := range st.spec.PreHooks {
		name := FuncName(h)
		// run_input is agno's RunInput ({"input_content": …}), not the bare text.
		st.sendOptional(&run.PreHookStarted{EventBase: st.base(), PreHookName: name, RunInput: &run.Input{Content: *input, Images: st.req.Images, Files: st.req.Files}})
		in := &HookInput{Input: *input, RunContext: st.rc}
		err := h(st.ctx, in)
		var ce *CheckError
		if errors.As(err, &ce) {
			return err
		}
		// As agno, a failed hook is logged and gets no Completed event.
		if err != nil {
			st.spec.logger.Warn("pre-hook failed", "hook", name, "error", err)
			continue
		}
		*input = in.Input
		st.sendOptional(&run.PreHookCompleted{EventBase: st.base(), PreHookName: name, RunInput: &run.Input{Content: *input, Images: st.req.Images, Files: st.req.Files}})
	}
	return nil
}

func (st *runState) runPostHooks() error {
	for _, h := range st.spec.PostHooks {
		name := FuncName(h)
		st.sendOptional(&run.PostHookStarted{EventBase: st.base(), PostHookName: name})
		err := h(st.ctx, st.out)
		var ce *CheckError
		if errors.As(err, &ce) {
			return err
		}
		if err != nil {
			st.spec.logger.Warn("post-hook failed", "hook", name, "error", err)
			continue
		}
		st.sendOptional(&run.PostHookCompleted{EventBase: st.base(), PostHookName: name})
	}
	return nil
}

// resolveTools gathers this run's functions: the static ones resolved at
// Prepare plus connector-backed ones (MCP), connected on first use.
func (st *runState) resolveTools() error {
	s := st.spec
	if len(s.dynamic) == 0 {
		st.functions, st.defs = s.static, s.staticDefs
		return nil
	}
	fns := append([]*tool.Function(nil), s.static...)
	seen := map[string]bool{}
	for _, f := range fns {
		seen[f.Name] = true
	}
	for _, p := range s.dynamic {
		c := p.(tool.Connector)
		if err := c.Connect(st.ctx); err != nil {
			s.logger.Warn("tool provider failed to connect; its tools are skipped this run", "error", err)
			continue
		}
		more, err := p.Functions(st.ctx)
		if err != nil {
			s.logger.Warn("tool provider failed to list tools; skipped this run", "error", err)
			continue
		}
		for _, f := range more {
			if seen[f.Name] {
				continue
			}
			if err := f.Validate(); err != nil {
				s.logger.Warn("invalid tool skipped", "tool", f.Name, "error", err)
				continue
			}
			seen[f.Name] = true
			fns = append(fns, f)
		}
	}
	st.functions, st.defs = fns, definitions(fns)
	return nil
}

func (st *runState) function(name string) *tool.Function {
	for _, f := range st.functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// conclude maps the final error to a status and queues the terminal
// events; finish delivers them once the run is stored.
func (st *runState) conclude(err error) *run.Output {
	st.concluding = true
	st.flushReferences()
	if cause := context.Cause(st.ctx); err != nil && errors.Is(cause, runs.ErrStorage) {
		err = cause // what stopped the run, not the cancellation it caused
	}
	switch {
	case err == nil && st.out.Status == run.StatusPaused:
		st.send(&run.RunPaused{EventBase: st.base(), Tools: st.out.Tools, Requirements: st.out.ActiveRequirements()})
	case err == nil:
		st.out.Status = run.StatusCompleted
		st.finalizeMetrics()
		st.sendOptional(&run.RunCompleted{
			EventBase:        st.base(),
			Content:          st.out.Content,
			ContentType:      st.out.ContentType,
			ReasoningContent: st.out.ReasoningContent,
			Metadata:         st.out.Metadata,
			Metrics:          st.out.Metrics,
			SessionState:     st.rc.StateSnapshot(),
			References:       st.out.References,
			MemberResponses:  st.storedMembers(),
		})
	case st.cancelled(err):
		st.out.Status = run.StatusCancelled
		reason := "Run " + st.out.RunID + " was cancelled"
		if st.out.ContentString() == "" || st.out.ContentString() == string(st.content) {
			if len(st.content) > 0 {
				st.messages = append(st.messages, model.Message{ID: run.NewID(), Role: model.RoleAssistant, Content: string(st.content), CreatedAt: run.Now()})
			}
			st.out.Content = reason
		}
		// Unresolved requirements are dropped and pause flags cleared.
		st.out.Requirements = nil
		for _, t := range st.out.Tools {
			t.RequiresConfirmation, t.RequiresUserInput, t.ExternalExecutionRequired = false, false, false
		}
		st.send(&run.RunCancelled{EventBase: st.base(), Reason: reason})
		// agno closes a cancelled stream with RunCompleted too (always, not
		// only with stream_events), carrying the run as it stands.
		st.finalizeMetrics()
		st.send(&run.RunCompleted{
			EventBase:        st.base(),
			Content:          st.out.Content,
			ContentType:      st.out.ContentType,
			ReasoningContent: st.out.ReasoningContent,
			Metadata:         st.out.Metadata,
			Metrics:          st.out.Metrics,
			SessionState:     st.rc.StateSnapshot(),
		})
	default:
		return st.fail(err)
	}
	return st.out
}

func (st *runState) cancelled(err error) bool {
	if errors.Is(context.Cause(st.ctx), runs.ErrStorage) {
		return false // stopped because its events could not be stored: an error
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, run.ErrCancelled) ||
		errors.Is(context.Cause(st.ctx), run.ErrCancelled) || st.ctx.Err() != nil
}

// fail marks the run ERROR. As agno, the error text becomes the content
// only when the run has none yet: an output check keeps the output it
// judged.
func (st *runState) fail(err error) *run.Output {
	st.concluding = true
	st.out.Status = run.StatusError
	if st.out.ContentString() == "" {
		st.out.Content = err.Error()
	}
	ev := &run.RunError{EventBase: st.base(), Content: err.Error()}
	var ce *CheckError
	if errors.As(err, &ce) {
		ev.ErrorType, ev.ErrorID, ev.AdditionalData = ce.TypeName(), ce.ErrorID(), ce.AdditionalData
	} else if pe, ok := model.AsProviderError(err); ok {
		ev.ErrorType = "ModelProviderError"
		ev.AdditionalData = map[string]any{"status_code": pe.StatusCode, "model": pe.Model, "provider": pe.Provider}
	}
	if st.ctx == nil {
		st.ctx, st.cancel = context.WithCancelCause(context.Background())
	}
	st.send(ev)
	return st.out
}

func (st *runState) finalizeMetrics() {
	st.out.Metrics.Duration = time.Since(st.started).Seconds()
}

// finish stores the run and the session, delivers the terminal events,
// then releases run resources — on every path: a panic in a store or an
// emitter must not leave the run counted by the engine (Drain would wait
// for it forever).
func (st *runState) finish() {
	defer st.release()
	if st.out.Status != run.StatusCompleted {
		st.finalizeMetrics()
	}
	if st.rc != nil {
		st.out.SessionState = st.rc.StateSnapshot()
	}
	st.flushReferences()
	st.out.Messages = st.storedMessages()
	if err := st.persist(); err != nil {
		// The run's end could not be stored: it is not what it seemed.
		st.out.Stored = nil
		st.out.Status, st.out.Content = run.StatusError, err.Error()
		st.held = []run.Event{run.Stamp(&run.RunError{EventBase: st.base(), Content: err.Error()})}
	}
	st.concluding = false
	for _, e := range st.held {
		st.deliver(e)
	}
	st.held = nil
}

// release frees what the run holds: its engine handle, the sessions of
// connection-backed toolkits, its hooks and its context.
func (st *runState) release() {
	if st.h != nil {
		st.h.Close()
	}
	// Connection-backed toolkits (MCP) drop sessions cached for this run.
	for _, p := range st.spec.dynamic {
		if r, ok := p.(interface{ ReleaseRun(runID string) }); ok {
			r.ReleaseRun(st.out.RunID)
		}
	}
	for _, f := range st.onDone {
		f()
	}
	if st.cancel != nil {
		st.cancel(context.Canceled)
	}
}

func (st *runState) onFinish(f func()) { st.onDone = append(st.onDone, f) }

// abandon releases a run that did not start (its continuation lost the
// claim): nothing of it is stored or sent.
func (st *runState) abandon() {
	for _, f := range st.onDone {
		f()
	}
	st.cancel(context.Canceled)
}

func (st *runState) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-st.ctx.Done():
		return context.Cause(st.ctx)
	case <-t.C:
		return nil
	}
}

// storedMessages are the run's own messages, without history unless
// store_history_messages.
func (st *runState) storedMessages() []model.Message {
	if st.spec.StoreHistoryMessages && !off(st.spec.StoreToolMessages) && len(st.unstored) == 0 {
		return st.messages
	}
	// Without tool messages, the assistant messages that made those calls
	// go too (agno's scrub_tool_results_from_run_output): a stored call
	// without its result is a history some providers refuse.
	var dropped map[string]bool
	if off(st.spec.StoreToolMessages) {
		dropped = map[string]bool{}
		for _, m := range st.messages {
			if m.Role == model.RoleTool && m.ToolCallID != "" {
				dropped[m.ToolCallID] = true
			}
		}
	}
	out := make([]model.Message, 0, len(st.messages))
	for _, m := range st.messages {
		if st.unstored[m.ID] {
			continue
		}
		if m.FromHistory && !st.spec.StoreHistoryMessages {
			continue
		}
		if dropped != nil && (m.Role == model.RoleTool || m.Role == model.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(tc model.ToolCall) bool { return dropped[tc.ID] })) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// persist stores the run's end in one write through the engine: its row,
// the events not yet stored, the member runs it started, and the session
// state and metrics it changed.
func (st *runState) persist() error {
	if st.h == nil || st.refused {
		return nil
	}
	doc, err := st.document()
	if err != nil {
		return err
	}
	f := runs.Finish{Status: st.out.Status, Doc: doc, Children: st.children}
	if st.h.Resumable() {
		f.Terminal = st.held
	}
	if st.session != nil {
		changed, removed := diffState(st.stateAtLoad, st.out.SessionState)
		metrics, userID := st.out.Metrics, st.out.UserID
		f.SessionID = st.out.SessionID
		f.Session = func(sess *storage.Session) error {
			if sess.SessionState == nil {
				sess.SessionState = map[string]any{}
			}
			for k, v := range changed {
				sess.SessionState[k] = v
			}
			for _, k := range removed {
				delete(sess.SessionState, k)
			}
			if sess.Metrics == nil {
				sess.Metrics = &run.Metrics{}
			}
			mergeMetrics(sess.Metrics, metrics)
			if sess.UserID == "" {
				sess.UserID = userID
			}
			return nil
		}
	}
	if err := st.h.Finish(st.ctx, f); err != nil {
		return err
	}
	if len(st.out.MemberResponses) == 0 || st.spec.StoreMemberResponses {
		st.out.Stored = doc // what the response is made of too
	}
	return nil
}

// storedMembers are the member responses a completion carries: only when
// they are stored, as agno.
func (st *runState) storedMembers() []*run.Output {
	if st.spec.StoreMemberResponses {
		return st.out.MemberResponses
	}
	return nil
}

// addChildRun records a nested run the tool started: team runs keep it as a
// member response, and it is stored as its own row under this run.
func (st *runState) addChildRun(o *run.Output) {
	if st.spec.Team {
		replaced := false
		for i, m := range st.out.MemberResponses {
			if m.RunID == o.RunID {
				st.out.MemberResponses[i], replaced = o, true
			}
		}
		if !replaced {
			st.out.MemberResponses = append(st.out.MemberResponses, o)
		}
	}
	if st.h == nil || st.session == nil {
		return
	}
	data, err := json.Marshal(o)
	if err != nil {
		st.spec.logger.Error("encode member run", "run_id", o.RunID, "error", err)
		return
	}
	component := o.AgentID
	if o.TeamID != "" {
		component = o.TeamID
	}
	// Stored with this run's end; a member run continued after a pause
	// replaces its earlier form.
	child := &storage.Run{
		RunID: o.RunID, SessionID: st.out.SessionID, ParentRunID: st.out.RunID,
		SessionType: st.session.SessionType, ComponentID: component, UserID: o.UserID,
		Status: o.Status, CreatedAt: o.CreatedAt, Data: data,
	}
	for i, c := range st.children {
		if c.RunID == o.RunID {
			st.children[i] = child
			return
		}
	}
	st.children = append(st.children, child)
}

// memberRun finds a member's run by id.
func (st *runState) memberRun(runID string) (*run.Output, error) {
	for _, m := range st.out.MemberResponses {
		if m.RunID == runID {
			return m, nil
		}
	}
	if st.spec.Store == nil {
		return nil, fmt.Errorf("member run %s: %w", runID, run.ErrNotFound)
	}
	rec, err := st.spec.Store.GetRun(st.ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("member run %s: %w", runID, run.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	out := &run.Output{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, fmt.Errorf("member run %s is unreadable: %w", runID, err)
	}
	return out, nil
}

// diffState returns the top-level keys this run set or removed, so
// concurrent runs in one session merge instead of overwriting each other.
func diffState(before, after map[string]any) (changed map[string]any, removed []string) {
	changed = map[string]any{}
	for k, v := range after {
		if k == "current_user_id" || k == "current_session_id" || k == "current_run_id" {
			continue
		}
		old, ok := before[k]
		if !ok || !jsonEqual(old, v) {
			changed[k] = v
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	return changed, removed
}

func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}
