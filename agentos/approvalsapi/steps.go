package approvalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// The approvals of workflow steps.

// stepApprovalID is the approval of the index-th pause of a workflow run
// (a step in a loop pauses once per iteration).
func stepApprovalID(runID, stepID string, index int) string {
	return approval.DerivedID("step", runID, stepID, strconv.Itoa(index))
}

// syncStepApprovals is syncApprovals for a workflow run: a step marked
// Approval "required" records a pending approval when it pauses; its
// answer, given on any channel, resolves it; "audit" steps are recorded
// once answered.
func (g *Group) syncStepApprovals(ctx context.Context, rec *storage.Run) error {
	wf := g.host.Workflow(rec.ComponentID)
	if wf == nil {
		return nil
	}
	out := &workflow.RunOutput{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return fmt.Errorf("stored workflow run %s is unreadable: %w", rec.RunID, err)
	}
	store := g.store
	base := func(id string, i int, req *workflow.StepRequirement) *approval.Approval {
		a := &approval.Approval{ID: id, RunID: rec.RunID, SessionID: rec.SessionID, SourceType: approval.SourceWorkflow,
			WorkflowID: rec.ComponentID, UserID: rec.UserID, SourceName: out.WorkflowName, PauseType: req.Kind(), ToolName: req.StepName,
			RunStatus: string(rec.Status), RunVersion: rec.Version, Context: map[string]any{"step_id": req.StepID, "step_name": req.StepName, "requirement_index": i}}
		if a.UserID == "" {
			a.UserID = out.UserID
		}
		if a.SourceName != "" {
			a.Context["source_name"] = a.SourceName
		}
		return a
	}
	if rec.Status == run.StatusPaused {
		if i := len(out.StepRequirements) - 1; i >= 0 {
			req := out.StepRequirements[i]
			if req != nil && !req.Resolved() && wf.StepApproval(req.StepID) == tool.ApprovalRequired {
				a := base(stepApprovalID(rec.RunID, req.StepID, i), i, req)
				a.Status, a.ApprovalType = approval.StatusPending, approval.TypeRequired
				a.Requirements, _ = json.Marshal(out.StepRequirements)
				if _, err := store.Create(ctx, a); err != nil {
					return err
				}
			}
		}
	}
	has, err := store.HasRun(ctx, rec.RunID)
	if err != nil {
		return err
	}
	if has {
		if _, err := store.SetRunStatus(ctx, rec.RunID, string(rec.Status), rec.Version); err != nil {
			return err
		}
	}
	if rec.InFlight() {
		return nil
	}
	now := time.Now().Unix()
	for i, req := range out.StepRequirements {
		if req == nil {
			continue
		}
		typ := wf.StepApproval(req.StepID)
		if typ == "" {
			continue
		}
		status, decided := approval.Status(""), req.Confirmed != nil
		if decided {
			status = approval.StatusApproved
			if !*req.Confirmed {
				status = approval.StatusRejected
			}
		}
		switch {
		case typ == tool.ApprovalRequired && has:
			if !decided {
				if rec.Status == run.StatusPaused {
					continue
				}
				status = approval.StatusCancelled
				if req.TimeoutAt != nil && now >= *req.TimeoutAt {
					status = approval.StatusExpired
				}
			}
			if _, err := store.Resolve(ctx, stepApprovalID(rec.RunID, req.StepID, i), approval.Resolution{Status: status}); err != nil &&
				!errors.Is(err, approval.ErrNotPending) && !errors.Is(err, approval.ErrNotFound) {
				return err
			}
		case typ == tool.ApprovalAudit && decided:
			a := base(approval.DerivedID("step-audit", rec.RunID, req.StepID, strconv.Itoa(i)), i, req)
			a.Status, a.ApprovalType, a.ResolvedAt = status, approval.TypeAudit, &now
			if _, err := store.Create(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// planStepContinue answers a paused workflow's step with the approval's
// decision: approved confirms it (or sets resolution_data.values as its
// user input), rejected refuses it with resolution_data.note.
func (g *Group) planStepContinue(ctx context.Context, a *approval.Approval, rec *storage.Run, res approval.Resolution) (*continuePlan, error) {
	wf := g.host.Workflow(rec.ComponentID)
	if wf == nil {
		return nil, httpapi.ErrStatus(http.StatusServiceUnavailable, approvalNotServed, "workflow", rec.ComponentID)
	}
	out := &workflow.RunOutput{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, fmt.Errorf("stored workflow run %s is unreadable: %w", rec.RunID, err)
	}
	i := len(out.StepRequirements) - 1
	if i < 0 || out.StepRequirements[i] == nil || stepApprovalID(rec.RunID, out.StepRequirements[i].StepID, i) != a.ID {
		return nil, nil // the run waits at another pause now
	}
	req := out.StepRequirements[i]
	data := res.ResolutionData
	note, _ := data["note"].(string)
	switch {
	case res.Status == approval.StatusRejected:
		req.Reject(note)
	case req.RequiresRouteSelection || req.RequiresExecutorInput:
		return nil, httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "a "+req.Kind()+" pause is answered through the workflow's continue route")
	case req.RequiresUserInput && !req.RequiresOutputReview:
		values, _ := data["values"].(map[string]any)
		if values == nil {
			values = data
		}
		if err := req.SetUserInput(values); err != nil {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, err.Error())
		}
	default:
		req.Confirm()
	}
	creq := &workflow.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, StepRequirements: []*workflow.StepRequirement{req},
		Stream: true, StreamEvents: true, StoreEvents: true}
	return &continuePlan{kind: "workflow", runID: rec.RunID, exec: func(ctx context.Context, emit run.Emitter) error {
		_, err := wf.ExecuteContinue(ctx, creq, emit)
		return err
	}}, nil
}
