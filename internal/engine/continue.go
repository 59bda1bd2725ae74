package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Continue resumes a paused run once its requirements are answered
// (agno's continue_run): confirmed calls run, rejected ones get an error
// tool message, external results and user input are applied, and the
// model loop goes on — possibly pausing again. The paused run comes from
// req.Output or, by id, from storage, so a fresh process can continue it.
func (s *Spec) Continue(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	out, paused, err := s.loadPaused(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := applyAnswers(out, req); err != nil {
		return nil, err
	}
	if pending := out.ActiveRequirements(); len(pending) > 0 {
		ids := make([]string, len(pending))
		for i, r := range pending {
			ids[i] = r.ID + " (" + string(r.PauseType()) + ")"
		}
		return nil, fmt.Errorf("%w: answer %s before continuing", run.ErrUnresolved, strings.Join(ids, ", "))
	}

	rreq := &run.Request{
		RunID: out.RunID, SessionID: out.SessionID, UserID: out.UserID, ParentRunID: out.ParentRunID,
		Dependencies: req.Dependencies, Metadata: req.Metadata, Stream: req.Stream, StreamEvents: req.StreamEvents,
		SessionState: req.SessionState, Nested: req.Nested, Workflow: req.Workflow, StoreEvents: req.StoreEvents,
		Resumable: req.Resumable,
	}
	if req.UserID != "" {
		rreq.UserID = req.UserID
	}
	st := s.newState(rreq, emit)
	st.out = out
	st.out.Status = run.StatusRunning
	if out.Metrics == nil {
		out.Metrics = &run.Metrics{}
	}
	if err := st.setup(ctx); err != nil {
		return st.failEarly(err)
	}
	// Claim the paused run: of two continuations of one pause (any
	// instance, any channel) exactly one runs the confirmed tools.
	if st.stores() {
		if paused != nil {
			st.h, err = st.engine().Claim(ctx, st.row(nil), paused.Version, paused.events, req.Resumable, st.cancel)
			if err != nil {
				st.abandon()
				return nil, err
			}
			st.emit = st.h.Emitter(st.emit)
		} else if err := st.open(ctx); err != nil { // a paused run given in memory is stored now
			return st.failEarly(err)
		}
	}
	defer st.finish()
	var stored *storage.Session
	if st.h != nil {
		if stored, err = st.h.Started(st.ctx); err == nil {
			stored, err = s.Store.GetSession(st.ctx, out.SessionID)
			if errors.Is(err, storage.ErrNotFound) {
				stored, err = nil, nil
			}
		}
		if err != nil {
			return st.fail(err), nil
		}
	}
	if err := st.loadSession(stored); err != nil {
		return st.fail(err), nil
	}
	st.sendOptional(&run.RunContinued{EventBase: st.base()})
	err = safe.Call(s.logger, st.where(), st.resume)
	return st.conclude(err), nil
}

// pausedRun is what Claim needs of a stored paused run: the version it
// was read at and how many events it has (-1: unknown).
type pausedRun struct {
	Version int64
	events  int64
}

// loadPaused finds the paused run and checks it may be continued here;
// paused is nil for a run given in memory that is not stored.
func (s *Spec) loadPaused(ctx context.Context, req *run.ContinueRequest) (*run.Output, *pausedRun, error) {
	out := req.Output
	var paused *pausedRun
	if out == nil {
		if req.RunID == "" {
			return nil, nil, errors.New("continue: give the paused run (Output) or its RunID")
		}
		if s.Store == nil {
			return nil, nil, fmt.Errorf("continue run %s: %w (a run can only be continued by id from storage)", req.RunID, run.ErrNoStorage)
		}
		rec, err := s.Store.GetRun(ctx, req.RunID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil, nil, fmt.Errorf("continue run %s: %w", req.RunID, run.ErrNotFound)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("continue run %s: %w", req.RunID, err)
		}
		if rec.ComponentID != s.ID || (req.SessionID != "" && rec.SessionID != req.SessionID) {
			return nil, nil, fmt.Errorf("continue run %s: %w", req.RunID, run.ErrNotFound)
		}
		out = &run.Output{}
		if err := json.Unmarshal(rec.Data, out); err != nil {
			return nil, nil, fmt.Errorf("continue run %s: stored run is unreadable: %w", req.RunID, err)
		}
		out.Status = rec.Status // the row is the truth (a claim moves only it)
		paused = &pausedRun{Version: rec.Version, events: -1}
		if s.StoreEvents || req.StoreEvents {
			evs, err := s.Store.ListEvents(ctx, req.RunID, -1)
			if err != nil {
				return nil, nil, fmt.Errorf("continue run %s: read its events: %w", req.RunID, err)
			}
			for _, e := range evs {
				if ev, err := run.DecodeEvent(e.Data); err == nil {
					out.Events = append(out.Events, ev)
				}
			}
			paused.events = int64(len(evs))
		}
	} else {
		out = out.Clone()
		if s.Store != nil && !req.Nested {
			if rec, err := s.Store.GetRun(ctx, out.RunID); err == nil {
				paused = &pausedRun{Version: rec.Version, events: -1}
			}
		}
	}
	if out.Status != run.StatusPaused {
		return nil, nil, fmt.Errorf("continue run %s: %w (status=%s)", out.RunID, run.ErrNotPaused, out.Status)
	}
	return out, paused, nil
}

// checkAnswers refuses a continue payload that does not fit the paused
// run before anything is applied, so the run stays paused: null entries,
// entries without their id, ids the run does not have, and two different
// answers to one requirement or tool call. Errors name the field.
func checkAnswers(out *run.Output, req *run.ContinueRequest) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", run.ErrInvalidAnswer, fmt.Sprintf(format, a...))
	}
	reqIDs := map[string]bool{}
	for _, r := range out.Requirements {
		if r != nil {
			reqIDs[r.ID] = true
		}
	}
	seen := map[string]int{}
	for i, ans := range req.Requirements {
		switch {
		case ans == nil:
			return bad("requirements[%d] is null: send the requirement objects of the paused run (RunPaused.requirements), answered", i)
		case ans.ID == "":
			return bad("requirements[%d] has no id: copy each requirement's id from the paused run", i)
		case !reqIDs[ans.ID]:
			return bad("requirements[%d].id %q is not a requirement of run %s (it has %s)", i, ans.ID, out.RunID, quoted(slices.Sorted(maps.Keys(reqIDs))))
		}
		if j, dup := seen[ans.ID]; dup && requirementAnswer(req.Requirements[j]) != requirementAnswer(ans) {
			return bad("requirements[%d] answers requirement %s differently from requirements[%d]: send one answer per requirement", i, ans.ID, j)
		}
		seen[ans.ID] = i
	}
	callIDs := map[string]bool{}
	for _, t := range out.Tools {
		if t != nil {
			callIDs[t.ToolCallID] = true
		}
	}
	seen = map[string]int{}
	for i, ans := range req.Tools {
		switch {
		case ans == nil:
			return bad("tools[%d] is null: send the tool executions of the paused run (RunPaused.tools), answered", i)
		case ans.ToolCallID == "":
			return bad("tools[%d] has no tool_call_id: copy it from the paused run's tools", i)
		case !callIDs[ans.ToolCallID]:
			return bad("tools[%d].tool_call_id %q is not a tool call of run %s", i, ans.ToolCallID, out.RunID)
		}
		if j, dup := seen[ans.ToolCallID]; dup && toolAnswer(req.Tools[j]) != toolAnswer(ans) {
			return bad("tools[%d] answers tool call %s differently from tools[%d]: send one answer per tool call", i, ans.ToolCallID, j)
		}
		seen[ans.ToolCallID] = i
	}
	return nil
}

func quoted(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return `"` + strings.Join(ids, `", "`) + `"`
}

// requirementAnswer is what a requirement's answer says, for comparing two.
func requirementAnswer(r *run.Requirement) string {
	b, _ := json.Marshal([]any{r.Confirmation, r.ConfirmationNote, r.ExternalExecutionResult, r.UserInputSchema, r.UserFeedbackSchema, toolAnswerFields(r.ToolExecution)})
	return string(b)
}

func toolAnswer(t *run.ToolExecution) string {
	b, _ := json.Marshal(toolAnswerFields(t))
	return string(b)
}

func toolAnswerFields(t *run.ToolExecution) []any {
	if t == nil {
		return nil
	}
	return []any{t.Confirmed, t.ConfirmationNote, t.Result, t.UserInputSchema, t.UserFeedbackSchema}
}

// applyAnswers copies the caller's answers onto the stored run: resolved
// requirements by id, resolved tool executions by tool_call_id.
func applyAnswers(out *run.Output, req *run.ContinueRequest) error {
	if err := checkAnswers(out, req); err != nil {
		return err
	}
	byCall := map[string]*run.ToolExecution{}
	for _, t := range out.Tools {
		if t != nil {
			byCall[t.ToolCallID] = t
		}
	}
	for _, ans := range req.Requirements {
		var target *run.Requirement
		for _, r := range out.Requirements {
			if r != nil && r.ID == ans.ID {
				target = r
			}
		}
		target.Confirmation = ans.Confirmation
		target.ConfirmationNote = ans.ConfirmationNote
		target.ExternalExecutionResult = ans.ExternalExecutionResult
		if ans.UserInputSchema != nil {
			target.UserInputSchema = ans.UserInputSchema
		}
		if ans.UserFeedbackSchema != nil {
			target.UserFeedbackSchema = ans.UserFeedbackSchema
		}
		if ans.ToolExecution != nil {
			mergeTool(target.ToolExecution, ans.ToolExecution)
		}
		syncRequirement(target)
		if target.ToolExecution == nil {
			continue
		}
		if t := byCall[target.ToolExecution.ToolCallID]; t != nil && t != target.ToolExecution {
			mergeTool(t, target.ToolExecution)
			target.ToolExecution = t
		}
	}
	for _, ans := range req.Tools {
		t := byCall[ans.ToolCallID]
		mergeTool(t, ans)
		for _, r := range out.Requirements {
			if r != nil && r.ToolExecution != nil && r.ToolExecution.ToolCallID == t.ToolCallID {
				r.ToolExecution = t
				r.Confirmation = t.Confirmed
				r.ConfirmationNote = t.ConfirmationNote
				if t.ExternalExecutionRequired && t.Result != nil {
					r.ExternalExecutionResult = t.Result
				}
				if t.UserInputSchema != nil {
					r.UserInputSchema = t.UserInputSchema
				}
				if t.UserFeedbackSchema != nil {
					r.UserFeedbackSchema = t.UserFeedbackSchema
				}
				syncRequirement(r)
			}
		}
	}
	return nil
}

// mergeTool applies the answer fields of a tool execution.
func mergeTool(dst, src *run.ToolExecution) {
	if dst == nil || src == nil {
		return
	}
	if src.Confirmed != nil {
		dst.Confirmed = src.Confirmed
	}
	if src.ConfirmationNote != nil {
		dst.ConfirmationNote = src.ConfirmationNote
	}
	if src.Result != nil && dst.ExternalExecutionRequired {
		dst.Result = src.Result
	}
	if src.UserInputSchema != nil {
		dst.UserInputSchema = src.UserInputSchema
	}
	if src.UserFeedbackSchema != nil {
		dst.UserFeedbackSchema = src.UserFeedbackSchema
	}
	if src.Answered != nil {
		dst.Answered = src.Answered
	}
}

// syncRequirement keeps a requirement and its tool execution in step and
// marks user input answered once every field has a value.
func syncRequirement(r *run.Requirement) {
	t := r.ToolExecution
	if t == nil {
		return
	}
	if r.Confirmation != nil && t.Confirmed == nil {
		t.Confirmed = r.Confirmation
	}
	if t.Confirmed != nil && r.Confirmation == nil {
		r.Confirmation = t.Confirmed
	}
	if r.ConfirmationNote != nil {
		t.ConfirmationNote = r.ConfirmationNote
	}
	if r.ExternalExecutionResult != nil {
		t.Result = r.ExternalExecutionResult
	}
	if len(r.UserInputSchema) > 0 {
		t.UserInputSchema = r.UserInputSchema
		complete := true
		for _, f := range r.UserInputSchema {
			if f.Value == nil {
				complete = false
			}
		}
		if complete {
			yes := true
			t.Answered = &yes
		}
	}
	if len(r.UserFeedbackSchema) > 0 {
		t.UserFeedbackSchema = r.UserFeedbackSchema
		complete := true
		for _, q := range r.UserFeedbackSchema {
			if q.SelectedOptions == nil {
				complete = false
			}
		}
		if complete {
			yes := true
			t.Answered = &yes
		}
	}
}

// resume rebuilds the conversation, applies the answers and continues the
// model loop.
func (st *runState) resume() error {
	if err := st.resolveTools(); err != nil {
		return err
	}
	st.messages = append(st.messages[:0], st.out.Messages...)
	if err := st.restoreHistory(); err != nil {
		return err
	}
	st.content = append(st.content[:0], ""...)
	if err := st.applyToolUpdates(); err != nil {
		return err
	}
	if !st.pausedTools() && len(st.out.ActiveRequirements()) == 0 && !st.stoppedAfterTool() {
		if err := st.loop(); err != nil {
			return err
		}
	}
	return st.settle()
}

// restoreHistory re-reads history when the stored messages do not carry it.
func (st *runState) restoreHistory() error {
	for _, m := range st.messages {
		if m.FromHistory {
			return nil
		}
	}
	own := st.messages
	st.messages = nil
	var head []model.Message
	if len(own) > 0 && own[0].Role == st.spec.systemRole {
		head, own = own[:1], own[1:]
	}
	st.messages = append(st.messages, head...)
	if err := st.addHistory(); err != nil {
		return err
	}
	st.messages = append(st.messages, own...)
	return nil
}

func (st *runState) stoppedAfterTool() bool { return st.stopAfter }

// applyToolUpdates runs or rejects each answered call (agno's
// handle_tool_call_updates) and hands member requirements to the team.
func (st *runState) applyToolUpdates() error {
	var member []*run.Requirement
	var batch []*call
	for _, r := range st.out.Requirements {
		t := r.ToolExecution
		if r.MemberAgentID != "" || r.MemberRunID != "" {
			if t != nil && t.Paused() {
				member = append(member, r)
			}
			continue
		}
		if t == nil || !t.Paused() {
			continue
		}
		fn := st.function(t.ToolName)
		c := &call{tc: model.NewToolCall(t.ToolCallID, t.ToolName, ""), fn: fn, exec: t, args: t.ToolArgs}
		switch {
		case t.RequiresConfirmation:
			t.RequiresConfirmation = false
			if t.Confirmed != nil && *t.Confirmed && t.Result == nil {
				c.runIt = fn != nil
				if fn == nil {
					c.text = unknownToolText
					t.ToolCallError = true
				}
			} else {
				no := false
				t.Confirmed = &no
				c.text = rejectedToolText
				if t.ConfirmationNote != nil && *t.ConfirmationNote != "" {
					c.text = *t.ConfirmationNote
				}
				t.ToolCallError = true
			}
		case t.ExternalExecutionRequired:
			t.ExternalExecutionRequired = false
			c.text = t.ResultText()
		case t.RequiresUserInput && fn != nil && fn.Interaction != nil:
			// The user's answers are the result; the tool does not run
			// (agno's get_user_input and ask_user updates).
			t.RequiresUserInput = false
			yes := true
			t.Answered = &yes
			text, err := fn.Interaction.Answer(t)
			if err != nil {
				text, t.ToolCallError = err.Error(), true
			}
			c.text = text
		case t.RequiresUserInput:
			t.RequiresUserInput = false
			if t.ToolArgs == nil {
				t.ToolArgs = map[string]any{}
			}
			for _, f := range t.UserInputSchema {
				t.ToolArgs[f.Name] = f.Value
			}
			c.args = t.ToolArgs
			yes := true
			t.Answered = &yes
			c.runIt = fn != nil
			if fn == nil {
				c.text = unknownToolText
				t.ToolCallError = true
			}
		default:
			continue
		}
		batch = append(batch, c)
	}
	if len(batch) > 0 {
		if err := st.execute(batch); err != nil {
			return err
		}
		if st.appendToolResults(batch) {
			st.stopAfter = true
		}
	}
	if len(member) > 0 {
		if st.spec.ContinueMember == nil {
			return fmt.Errorf("continue: run %s has member requirements but no team to resolve them", st.out.RunID)
		}
		res, err := st.spec.ContinueMember(st.ctx, &MemberContinuation{
			RunContext:   st.rc,
			Requirements: member,
			MemberRun:    st.memberRun,
			Emit:         st.forward,
		})
		if err != nil {
			return err
		}
		for _, r := range member {
			if t := r.ToolExecution; t != nil {
				t.RequiresConfirmation, t.RequiresUserInput, t.ExternalExecutionRequired = false, false, false
			}
		}
		for _, o := range res.Runs {
			st.addChildRun(o)
		}
		st.out.Requirements = append(st.out.Requirements, res.Pending...)
		st.rewriteDelegateResult(member, res.Content)
	}
	return nil
}

// rewriteDelegateResult replaces the result of every delegate tool call
// that said a member "requires human input" with the members' results
// after resolution (agno's _prepare_member_hitl_continuation).
func (st *runState) rewriteDelegateResult(_ []*run.Requirement, content string) {
	for _, t := range st.out.Tools {
		if !strings.Contains(strings.ToLower(t.ResultText()), "requires human input") {
			continue
		}
		t.SetResult(content)
		for j := range st.messages {
			if st.messages[j].Role == model.RoleTool && st.messages[j].ToolCallID == t.ToolCallID {
				st.messages[j].Content = content
			}
		}
	}
}
