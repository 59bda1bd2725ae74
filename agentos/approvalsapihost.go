package agentos

import (
	"context"
	"net/http"

	"github.com/agno-go/agno/agentos/approvalsapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/workflow"
)

// ApprovalResponse is agno's ApprovalResponse: every field, null when
// unset.
type ApprovalResponse = approvalsapi.ApprovalResponse

// ApprovalListResponse is agno's PaginatedResponse[ApprovalResponse].
type ApprovalListResponse = approvalsapi.ApprovalListResponse

// ApprovalCountResponse is agno's ApprovalCountResponse.
type ApprovalCountResponse = approvalsapi.ApprovalCountResponse

// ApprovalStatusResponse is agno's ApprovalStatusResponse.
type ApprovalStatusResponse = approvalsapi.ApprovalStatusResponse

// approvalsHost is what the Approvals group needs of the OS
// (approvalsapi.Host): the run engine that continues resolved runs, and
// the checks a resolution passes.
type approvalsHost struct{ *Host }

func (h approvalsHost) WatchRuns(fn func(runs.Change)) (stop func()) { return h.o.eng.Watch(fn) }

func (h approvalsHost) Detach(ctx context.Context, runID, kind string, fn func(context.Context)) error {
	return h.o.eng.Detach(ctx, runID, kind, fn)
}

func (h approvalsHost) May(c *caller, required []string, typ, id string) bool {
	return h.o.may(c, required, typ, id)
}

func (h approvalsHost) Workflow(id string) *workflow.Workflow { return h.o.catalog().workflows[id] }

// Continuer continues the run with the answer of the interface that
// started it (its emitter sees the events after the OS's, its Done the
// result), else on the served agent or team.
func (h approvalsHost) Continuer(ctx context.Context, kind, id, runID, sessionID, userID string) (func(context.Context, *run.ContinueRequest, run.Emitter) error, bool) {
	ans, ok := h.o.answerFor(ctx, Paused{Kind: kind, ID: id, RunID: runID, SessionID: sessionID, UserID: userID})
	if !ok {
		return nil, false
	}
	return func(ctx context.Context, creq *run.ContinueRequest, emit run.Emitter) error {
		if ans.Emit != nil {
			emit = teeEmit(emit, ans.Emit)
		}
		res := outputResultOf(ans.Executor.ExecuteContinue(ctx, creq, emit))
		if ans.Done != nil {
			ans.Done(res)
		}
		return res.Err
	}, true
}

func (h approvalsHost) Draining() error {
	if h.o.draining.Load() {
		return errStatus(http.StatusServiceUnavailable, "%s", shuttingDown)
	}
	return nil
}

// approvalGate is agno's require_approval_resolved for the continue
// routes (approvalsapi.Group.Gate): false when it answered 403.
func (o *OS) approvalGate(w http.ResponseWriter, r *http.Request, runID string) bool {
	return o.approvals.Gate(w, r, runID)
}
