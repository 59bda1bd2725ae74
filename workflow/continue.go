package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// executeContinue continues a paused run with an explicit emitter.
func (w *Workflow) executeContinue(ctx context.Context, req *ContinueRequest, emit run.Emitter) (*RunOutput, error) {
	out, version, err := w.loadPaused(ctx, req)
	if err != nil {
		return nil, err
	}
	var failed *ErrorRequirement
	if out.PauseKind == "error" && len(out.ErrorRequirements) > 0 {
		failed = out.ErrorRequirements[len(out.ErrorRequirements)-1]
	}
	// The answers are checked and applied (to this copy) before the run is
	// claimed: a payload that does not fit leaves the run paused.
	answer, err := applyStepAnswers(out, req.StepRequirements)
	if err != nil {
		return nil, err
	}
	if out.Resume == nil {
		return nil, fmt.Errorf("continue run %s: the stored run has no resume state", out.RunID)
	}
	rreq := &run.Request{RunID: out.RunID, SessionID: out.SessionID, UserID: out.UserID, ParentRunID: out.ParentRunID,
		Stream: req.Stream, StreamEvents: req.StreamEvents, Resumable: req.Resumable, StoreEvents: req.StoreEvents}
	if req.UserID != "" {
		rreq.UserID = req.UserID
	}
	x := w.newExecution(rreq, emit)
	x.out, x.resume, x.answer = out, out.Resume, answer
	if failed != nil && failed.Decision == "retry" {
		x.errRetry = failed
	}
	// Claim the paused run: of two continuations of one pause (any
	// instance, any channel) exactly one goes on.
	cctx, cancel := context.WithCancelCause(ctx)
	x.h, err = w.engine().Claim(cctx, x.row(nil), version, -1, req.Resumable, cancel)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	x.emit = x.h.Emitter(x.emit)
	if err := x.begin(cctx, false); err != nil {
		cancel(nil)
		x.h.Release()
		return nil, fmt.Errorf("%w: %v", ErrRunFailed, err)
	}
	defer x.release()
	out.Status = run.StatusRunning
	out.Resume, out.PausedStepIndex, out.PausedStepName, out.PauseKind = nil, nil, "", ""
	out.ErrorRequirements = nil // agno clears them once the human decided
	if err := x.persist(false); err != nil {
		return x.result(x.finish(err))
	}
	if n := w.Notifier(); n != nil {
		n.Resumed(w, out.RunID)
	}
	err = x.run(func() error { return x.drive(out.Input, x.resume.TopIndex) })
	res := x.finish(err)
	if res.Status == run.StatusError {
		return res, x.failed()
	}
	return res, nil
}

// loadPaused finds the run, checks it is paused, and returns the
// version it was read at (for the claim; -1 without a store).
func (w *Workflow) loadPaused(ctx context.Context, req *ContinueRequest) (*RunOutput, int64, error) {
	var out *RunOutput
	version := int64(-1)
	if req.Output != nil && w.cfg.Store == nil {
		b, err := json.Marshal(req.Output)
		if err != nil {
			return nil, 0, err
		}
		out = &RunOutput{}
		if err := json.Unmarshal(b, out); err != nil {
			return nil, 0, err
		}
	} else {
		id := req.RunID
		if id == "" && req.Output != nil {
			id = req.Output.RunID
		}
		if id == "" {
			return nil, 0, errors.New("continue: give the paused run's RunID")
		}
		var rec *storage.Run
		var err error
		if out, rec, err = w.getRun(ctx, id); err != nil {
			return nil, 0, fmt.Errorf("continue: %w", err)
		}
		if req.SessionID != "" && out.SessionID != req.SessionID {
			return nil, 0, fmt.Errorf("continue run %s: %w", id, run.ErrNotFound)
		}
		version = rec.Version
	}
	if out.Status != run.StatusPaused {
		return nil, 0, fmt.Errorf("%w (status=%s)", run.ErrNotPaused, out.Status)
	}
	return out, version, nil
}

// applyStepAnswers copies the caller's answers onto the requirement the
// run waits for, checks them, applies an expired timeout, and returns the
// answered requirement.
func applyStepAnswers(out *RunOutput, answers []*StepRequirement) (*StepRequirement, error) {
	answers, err := checkStepAnswers(out, answers)
	if err != nil {
		return nil, err
	}
	if out.PauseKind == "error" && len(out.ErrorRequirements) > 0 {
		er := out.ErrorRequirements[len(out.ErrorRequirements)-1]
		for _, a := range answers {
			if a.StepID == er.StepID && a.Confirmed != nil {
				er.Decision = "skip"
				if *a.Confirmed {
					er.Decision = "retry"
				}
			}
		}
		switch er.Decision {
		case "retry":
			yes := true
			return &StepRequirement{StepID: er.StepID, StepName: er.StepName, StepIndex: er.StepIndex, Confirmed: &yes}, nil
		case "skip":
			no := false
			return &StepRequirement{StepID: er.StepID, StepName: er.StepName, StepIndex: er.StepIndex, Confirmed: &no, OnReject: RejectSkip}, nil
		}
		return nil, fmt.Errorf("%w: step %q failed; answer with confirmed=true to retry it or false to skip it", run.ErrUnresolved, er.StepName)
	}
	active := out.ActiveRequirement()
	if active == nil {
		return nil, fmt.Errorf("continue run %s: it has no requirement to answer", out.RunID)
	}
	for _, a := range answers {
		if a.StepID != active.StepID {
			continue
		}
		if a.Confirmed != nil {
			active.Confirmed = a.Confirmed
		}
		if a.RejectionFeedback != "" {
			active.RejectionFeedback = a.RejectionFeedback
		}
		if a.UserInput != nil {
			if err := active.validateUserInput(a.UserInput); err != nil {
				return nil, err
			}
			active.UserInput = a.UserInput
		}
		if a.SelectedChoices != nil {
			if err := active.Select(a.SelectedChoices...); err != nil {
				return nil, err
			}
		}
		if a.EditedOutput != nil {
			active.EditedOutput = a.EditedOutput
		}
		if active.RequiresExecutorInput {
			mergeExecutorAnswers(active.ExecutorRequirements, a.ExecutorRequirements)
		}
	}
	if !active.Resolved() && active.TimeoutAt != nil && time.Now().Unix() >= *active.TimeoutAt {
		switch active.OnTimeout {
		case TimeoutApprove:
			active.Confirm()
		case TimeoutSkip:
			active.Reject("timed out")
			active.OnReject = RejectSkip
		default:
			active.Reject("timed out")
			active.OnReject = RejectCancel
		}
	}
	if !active.Resolved() {
		return nil, fmt.Errorf("%w: step %q waits for %s", run.ErrUnresolved, active.StepName, active.Kind())
	}
	return active, nil
}

// checkStepAnswers refuses answers that do not fit the paused run — null
// entries, step ids the run never waited at, two different answers to
// the step it waits at, executor answers that are null, unknown or
// contradict each other — and returns the answers to the step it waits
// at. Echoes of requirements already resolved are dropped: clients send
// back every requirement the pause listed.
func checkStepAnswers(out *RunOutput, answers []*StepRequirement) ([]*StepRequirement, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", run.ErrInvalidAnswer, fmt.Sprintf(format, a...))
	}
	known, echo := map[string]bool{}, map[string]bool{}
	active := out.ActiveRequirement()
	for _, r := range out.StepRequirements {
		if r != nil {
			known[r.StepID] = true
			if r != active {
				echo[stepAnswer(r)] = true
			}
		}
	}
	for _, r := range out.ErrorRequirements {
		if r != nil {
			known[r.StepID] = true
		}
	}
	waiting, waitID := "", ""
	if out.PauseKind == "error" && len(out.ErrorRequirements) > 0 {
		er := out.ErrorRequirements[len(out.ErrorRequirements)-1]
		waiting, waitID, active = fmt.Sprintf("%q (step_id %s)", er.StepName, er.StepID), er.StepID, nil
	} else if active != nil {
		waiting, waitID = fmt.Sprintf("%q (step_id %s)", active.StepName, active.StepID), active.StepID
	}
	var targets, fresh []int
	for i, a := range answers {
		switch {
		case a == nil:
			return nil, bad("step_requirements[%d] is null: send the step requirements of the paused run (WorkflowPaused.step_requirements), answered", i)
		case a.StepID == "":
			return nil, bad("step_requirements[%d] has no step_id: copy it from the paused run's step_requirements", i)
		case !known[a.StepID]:
			return nil, bad("step_requirements[%d].step_id %q is not a step run %s waited at; it waits at step %s", i, a.StepID, out.RunID, waiting)
		}
		if a.StepID != waitID {
			continue
		}
		targets = append(targets, i)
		if !echo[stepAnswer(a)] {
			fresh = append(fresh, i)
		}
	}
	// An echo of an earlier answer to the same step (a step that paused
	// twice) gives way to a new answer; an echo alone is the answer (a
	// loop asking the same again).
	if len(fresh) > 0 {
		targets = fresh
	}
	picked := make([]*StepRequirement, 0, len(targets))
	for _, i := range targets {
		a := answers[i]
		if j := targets[0]; stepAnswer(answers[j]) != stepAnswer(a) {
			return nil, bad("step_requirements[%d] answers step %s differently from step_requirements[%d]: send one answer per step", i, waiting, j)
		}
		if active != nil {
			if err := checkExecutorAnswers(i, active, a.ExecutorRequirements); err != nil {
				return nil, err
			}
		}
		picked = append(picked, a)
	}
	return picked, nil
}

// checkExecutorAnswers checks the answers to a paused agent's or team's
// tool calls inside step requirement i.
func checkExecutorAnswers(i int, active *StepRequirement, answers []*run.Requirement) error {
	if len(answers) == 0 {
		return nil
	}
	field := fmt.Sprintf("step_requirements[%d].executor_requirements", i)
	if !active.RequiresExecutorInput {
		return fmt.Errorf("%w: %s: step %q waits for %s, not for its executor's tool calls", run.ErrInvalidAnswer, field, active.StepName, active.Kind())
	}
	ids := map[string]bool{}
	for _, r := range active.ExecutorRequirements {
		if r != nil {
			ids[r.ID] = true
		}
	}
	seen := map[string]int{}
	for j, a := range answers {
		switch {
		case a == nil:
			return fmt.Errorf("%w: %s[%d] is null: send the executor requirements of the paused step, answered", run.ErrInvalidAnswer, field, j)
		case !ids[a.ID]:
			return fmt.Errorf("%w: %s[%d].id %q is not a requirement of step %q", run.ErrInvalidAnswer, field, j, a.ID, active.StepName)
		}
		if k, dup := seen[a.ID]; dup && executorAnswer(answers[k]) != executorAnswer(a) {
			return fmt.Errorf("%w: %s[%d] answers requirement %s differently from %s[%d]", run.ErrInvalidAnswer, field, j, a.ID, field, k)
		}
		seen[a.ID] = j
	}
	return nil
}

// stepAnswer is what an answer to a step says, for comparing two.
func stepAnswer(a *StepRequirement) string {
	ex := make([]string, len(a.ExecutorRequirements))
	for i, r := range a.ExecutorRequirements {
		ex[i] = executorAnswer(r)
	}
	b, _ := json.Marshal([]any{a.Confirmed, a.RejectionFeedback, a.UserInput, a.SelectedChoices, a.EditedOutput, ex})
	return string(b)
}

func executorAnswer(r *run.Requirement) string {
	if r == nil {
		return "null"
	}
	var confirmed *bool
	if r.ToolExecution != nil {
		confirmed = r.ToolExecution.Confirmed
	}
	b, _ := json.Marshal([]any{r.ID, r.Confirmation, r.ConfirmationNote, r.ExternalExecutionResult, r.UserInputSchema, r.UserFeedbackSchema, confirmed})
	return string(b)
}

// mergeExecutorAnswers copies answers onto the stored member requirements
// by id.
func mergeExecutorAnswers(stored, answers []*run.Requirement) {
	for _, a := range answers {
		for _, r := range stored {
			if a == nil || r == nil || r.ID != a.ID {
				continue
			}
			r.Confirmation, r.ConfirmationNote, r.ExternalExecutionResult = a.Confirmation, a.ConfirmationNote, a.ExternalExecutionResult
			if a.UserInputSchema != nil {
				r.UserInputSchema = a.UserInputSchema
			}
			if a.UserFeedbackSchema != nil {
				r.UserFeedbackSchema = a.UserFeedbackSchema
			}
			if r.ToolExecution != nil {
				if r.Confirmation != nil {
					r.ToolExecution.Confirmed = r.Confirmation
				}
				if r.ConfirmationNote != nil {
					r.ToolExecution.ConfirmationNote = r.ConfirmationNote
				}
				if r.ExternalExecutionResult != nil {
					r.ToolExecution.Result = r.ExternalExecutionResult
				}
				if a.ToolExecution != nil && a.ToolExecution.Confirmed != nil && r.Confirmation == nil {
					r.Confirmation, r.ToolExecution.Confirmed = a.ToolExecution.Confirmed, a.ToolExecution.Confirmed
				}
			}
		}
	}
}
