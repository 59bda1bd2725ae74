package approvalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// continuePlan is a paused run ready to continue with an approval's
// decision: exec continues it, emitting its events.
type continuePlan struct {
	kind, runID string
	exec        func(ctx context.Context, emit run.Emitter) error
}

// planContinue builds the continuation a resolution makes: the run's
// open requirements answered with this decision and those of its other
// resolved approvals. nil (no error) when the run still waits for other
// answers, or is no longer paused (the sync records that).
func (g *Group) planContinue(ctx context.Context, a *approval.Approval, res approval.Resolution) (*continuePlan, error) {
	rec, out, err := g.storedOutput(ctx, a.RunID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.Status != run.StatusPaused {
		return nil, httpapi.ErrStatus(http.StatusConflict, approvalElsewhere, a.RunID, rec.Status)
	}
	if out == nil {
		return g.planStepContinue(ctx, a, rec, res)
	}
	kind, id := "agent", out.AgentID
	if out.TeamID != "" {
		kind, id = "team", out.TeamID
	}
	cont, ok := g.host.Continuer(ctx, kind, id, a.RunID, rec.SessionID, rec.UserID)
	if !ok {
		return nil, httpapi.ErrStatus(http.StatusServiceUnavailable, approvalNotServed, kind, id)
	}
	others, _, err := g.store.List(ctx, approval.Filter{RunID: a.RunID})
	if err != nil {
		return nil, err
	}
	decisions := map[string]approval.Resolution{a.ID: res}
	for _, x := range others {
		if x.ID != a.ID && (x.Status == approval.StatusApproved || x.Status == approval.StatusRejected) {
			decisions[x.ID] = approval.Resolution{Status: x.Status, ResolutionData: x.ResolutionData}
		}
	}
	active := out.ActiveRequirements()
	for _, req := range active {
		t := req.ToolExecution
		if t == nil {
			return nil, nil
		}
		d, ok := decisions[t.ApprovalID]
		if t.ApprovalID == "" || !ok {
			return nil, nil // other answers are due first
		}
		if err := applyDecision(req, d); err != nil {
			return nil, err
		}
		if !req.Resolved() {
			return nil, nil
		}
	}
	if len(active) == 0 {
		return nil, nil
	}
	creq := &run.ContinueRequest{RunID: a.RunID, SessionID: rec.SessionID, Requirements: active, Stream: true, StreamEvents: true, StoreEvents: true}
	return &continuePlan{kind: kind, runID: a.RunID, exec: func(ctx context.Context, emit run.Emitter) error {
		return cont(ctx, creq, emit)
	}}, nil
}

// applyDecision answers a requirement as agno's _apply_approval_to_tools:
// approved confirms (or fills user input from resolution_data.values,
// or takes resolution_data.result as the external result); rejected
// refuses, with resolution_data.note for the model.
func applyDecision(req *run.Requirement, d approval.Resolution) error {
	data := d.ResolutionData
	switch req.PauseType() {
	case run.PauseConfirmation:
		if d.Status == approval.StatusApproved {
			return req.Confirm()
		}
		note, _ := data["note"].(string)
		return req.Reject(note)
	case run.PauseUserInput:
		if d.Status == approval.StatusRejected {
			return httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "a user-input approval cannot be rejected: approve it with resolution_data.values")
		}
		values, _ := data["values"].(map[string]any)
		if values == nil {
			values = data
		}
		if len(values) == 0 {
			return httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "approving a user-input approval needs the values: {\"values\": {\"<field>\": …}}")
		}
		return req.ProvideUserInput(values)
	case run.PauseExternalExecution:
		if d.Status == approval.StatusRejected {
			return httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "an external-execution approval cannot be rejected: approve it with resolution_data.result")
		}
		v, ok := data["result"]
		if !ok {
			return httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "approving an external-execution approval needs the result: {\"result\": \"…\"}")
		}
		s, isStr := v.(string)
		if !isStr {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		return req.SetExternalResult(s)
	}
	return httpapi.ErrStatus(http.StatusBadRequest, approvalBadRequire, "this approval's requirement ("+string(req.PauseType())+") is answered through the run's continue route")
}

// continueApproved continues the run in the background through the run
// engine and waits until the continuation claimed the run (nil) or
// failed to (its error: run.ErrNotPaused when another channel won).
func (g *Group) continueApproved(p *continuePlan) error {
	claimed := make(chan error, 1)
	var once sync.Once
	signal := func(err error) { once.Do(func() { claimed <- err }) }
	err := g.host.Detach(context.Background(), p.runID, p.kind, func(ctx context.Context) {
		err := p.exec(ctx, func(run.Event) bool { signal(nil); return true })
		signal(err)
		if err != nil && !errors.Is(err, run.ErrNotPaused) {
			g.host.Logger().Warn("approvals: continuing the run failed", "run_id", p.runID, "err", err)
		}
	})
	if err != nil {
		return err
	}
	select {
	case err := <-claimed:
		return err
	case <-time.After(approvalClaimWait):
		return nil
	}
}
