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

// RunClaimer is implemented by stores that can move a run from one status
// to another atomically; continuing a paused run claims it, so of two
// humans answering the same pause exactly one continues it.
type RunClaimer interface {
	ClaimRun(ctx context.Context, runID string, from, to run.Status) error
}

// ExecuteContinue continues a paused run with an explicit emitter.
func (w *Workflow) ExecuteContinue(ctx context.Context, req *ContinueRequest, emit run.Emitter) (*RunOutput, error) {
	out, err := w.loadPaused(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := w.claim(ctx, out.RunID); err != nil {
		return nil, err
	}
	defer w.releaseClaim(out.RunID)
	started := false
	defer func() {
		if !started {
			w.unclaim(ctx, out.RunID)
		}
	}()
	var failed *ErrorRequirement
	if out.PauseKind == "error" && len(out.ErrorRequirements) > 0 {
		failed = out.ErrorRequirements[len(out.ErrorRequirements)-1]
	}
	answer, err := applyStepAnswers(out, req.StepRequirements)
	if err != nil {
		return nil, err
	}
	if out.Resume == nil {
		return nil, fmt.Errorf("continue run %s: the stored run has no resume state", out.RunID)
	}
	rreq := &run.Request{RunID: out.RunID, SessionID: out.SessionID, UserID: out.UserID, ParentRunID: out.ParentRunID,
		Stream: req.Stream, StreamEvents: req.StreamEvents}
	if req.UserID != "" {
		rreq.UserID = req.UserID
	}
	x := w.newExecution(rreq, emit)
	x.out, x.resume, x.answer = out, out.Resume, answer
	if failed != nil && failed.Decision == "retry" {
		x.errRetry = failed
	}
	x.storedEv = len(out.Events)
	x.row.Exists = true // claimed
	if err := x.begin(ctx, false); err != nil {
		return x.finish(err), fmt.Errorf("%w: %v", ErrRunFailed, err)
	}
	defer x.release()
	started = true
	out.Status = run.StatusRunning
	out.Resume, out.PausedStepIndex, out.PausedStepName, out.PauseKind = nil, nil, "", ""
	out.ErrorRequirements = nil // agno clears them once the human decided
	_ = x.persist(false)
	if n := w.Notifier(); n != nil {
		n.Resumed(w, out.RunID)
	}
	err = x.run(func() error { return x.drive(out.Input, x.resume.TopIndex) })
	res := x.finish(err)
	if res.Status == run.StatusError {
		return res, fmt.Errorf("%w: %s", ErrRunFailed, res.ContentString())
	}
	return res, nil
}

// loadPaused finds the run and checks it is paused.
func (w *Workflow) loadPaused(ctx context.Context, req *ContinueRequest) (*RunOutput, error) {
	var out *RunOutput
	if req.Output != nil && w.cfg.Store == nil {
		b, err := json.Marshal(req.Output)
		if err != nil {
			return nil, err
		}
		out = &RunOutput{}
		if err := json.Unmarshal(b, out); err != nil {
			return nil, err
		}
	} else {
		id := req.RunID
		if id == "" && req.Output != nil {
			id = req.Output.RunID
		}
		if id == "" {
			return nil, errors.New("continue: give the paused run's RunID")
		}
		var err error
		if out, err = w.GetRun(ctx, id); err != nil {
			return nil, fmt.Errorf("continue: %w", err)
		}
		if req.SessionID != "" && out.SessionID != req.SessionID {
			return nil, fmt.Errorf("continue run %s: %w", id, run.ErrNotFound)
		}
	}
	if out.Status != run.StatusPaused {
		return nil, fmt.Errorf("%w (status=%s)", run.ErrNotPaused, out.Status)
	}
	return out, nil
}

// claim takes the paused run for this continuation.
func (w *Workflow) claim(ctx context.Context, runID string) error {
	w.claimMu.Lock()
	if w.claims[runID] {
		w.claimMu.Unlock()
		return fmt.Errorf("%w (status=RUNNING)", run.ErrNotPaused)
	}
	w.claims[runID] = true
	w.claimMu.Unlock()
	if c, ok := w.cfg.Store.(RunClaimer); ok {
		if err := c.ClaimRun(ctx, runID, run.StatusPaused, run.StatusRunning); err != nil {
			w.releaseClaim(runID)
			if errors.Is(err, storage.ErrConflict) {
				return fmt.Errorf("%w (status=RUNNING)", run.ErrNotPaused)
			}
			return err
		}
	}
	return nil
}

// unclaim gives a run back as paused (the continuation was refused
// before it started).
func (w *Workflow) unclaim(ctx context.Context, runID string) {
	if c, ok := w.cfg.Store.(RunClaimer); ok {
		_ = c.ClaimRun(context.WithoutCancel(ctx), runID, run.StatusRunning, run.StatusPaused)
	}
}

func (w *Workflow) releaseClaim(runID string) {
	w.claimMu.Lock()
	delete(w.claims, runID)
	w.claimMu.Unlock()
}

// applyStepAnswers copies the caller's answers onto the requirement the
// run waits for, checks them, applies an expired timeout, and returns the
// answered requirement.
func applyStepAnswers(out *RunOutput, answers []*StepRequirement) (*StepRequirement, error) {
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

// mergeExecutorAnswers copies answers onto the stored member requirements
// by id.
func mergeExecutorAnswers(stored, answers []*run.Requirement) {
	for _, a := range answers {
		for _, r := range stored {
			if r.ID != a.ID {
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
