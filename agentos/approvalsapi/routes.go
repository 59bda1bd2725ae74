package approvalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/run"
)

// Routes are agno's /approvals routes (tag Approvals).
func (g *Group) Routes() []httpapi.Route {
	filters := []httpapi.Param{
		{Name: "status", Type: "string", Enum: []string{"pending", "approved", "rejected", "expired", "cancelled"}},
		{Name: "source_type", Type: "string", Desc: "agent, team or workflow"},
		{Name: "approval_type", Type: "string", Enum: []string{"required", "audit"}},
		{Name: "pause_type", Type: "string", Desc: "confirmation, user_input or external_execution"},
		{Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"},
		httpapi.UserQuery, {Name: "schedule_id", Type: "string"}, {Name: "run_id", Type: "string"},
		{Name: "limit", Type: "integer", Default: 100, Min: 1, Max: 1000}, {Name: "page", Type: "integer", Default: 1, Min: 1},
	}
	const resp = "ApprovalResponse {id, run_id, session_id, status, source_type, approval_type, pause_type, tool_name, tool_args, expires_at, agent_id, team_id, workflow_id, user_id, schedule_id, schedule_run_id, source_name, requirements, context, resolution_data, resolved_by, resolved_at, created_at, updated_at, run_status}"
	return []httpapi.Route{
		{Pattern: "GET /approvals", Handler: g.handleListApprovals, Access: httpapi.Needs("approvals:read"), Tag: "Approvals", Summary: "List approvals", Desc: "Newest first; under user isolation a caller sees its own user's approvals.",
			Query: filters, Schema: "PaginatedResponse", Result: "PaginatedResponse[ApprovalResponse]"},
		{Pattern: "GET /approvals/count", Handler: g.handleApprovalCount, Access: httpapi.Needs("approvals:read"), Tag: "Approvals", Summary: "Count pending approvals", Query: []httpapi.Param{httpapi.UserQuery}, Result: "{count}"},
		{Pattern: "GET /approvals/{approval_id}/status", Handler: g.handleApprovalStatus, Access: httpapi.Needs("approvals:read"), Tag: "Approvals", Summary: "Status of an approval",
			Result: "{approval_id, status, run_id, resolved_at, resolved_by}; 404 \"Approval not found\""},
		{Pattern: "GET /approvals/{approval_id}", Handler: g.handleGetApproval, Access: httpapi.Needs("approvals:read"), Tag: "Approvals", Summary: "Get an approval", Result: resp + "; 404"},
		{Pattern: "POST /approvals/{approval_id}/resolve", Handler: g.handleResolveApproval, Access: httpapi.Needs("approvals:write"), Tag: "Approvals", Summary: "Approve or reject a pending approval",
			Desc: "Only a pending approval resolves (409 \"Approval is already '<status>' and cannot be resolved\"). A required approval then continues its paused run once through the run engine (approved confirms the tool call, rejected refuses it with resolution_data.note; user input from resolution_data.values, an external result from resolution_data.result); 409 when another channel continued the run first. With a JWT, its sub is resolved_by.",
			JSON: []httpapi.Param{{Name: "status", Type: "string", Required: true, Enum: []string{"approved", "rejected"}}, {Name: "resolved_by", Type: "string"},
				{Name: "resolution_data", Type: "object"}}, Result: resp},
		{Pattern: "DELETE /approvals/{approval_id}", Handler: g.handleDeleteApproval, Access: httpapi.Needs("approvals:delete"), Tag: "Approvals", Summary: "Delete an approval", Status: http.StatusNoContent, Result: "No content; 404"},
	}
}

// ApprovalResponse is agno's ApprovalResponse: every field, null when
// unset.
type ApprovalResponse struct {
	ID             string          `json:"id"`
	RunID          string          `json:"run_id"`
	SessionID      string          `json:"session_id"`
	Status         string          `json:"status"`
	SourceType     string          `json:"source_type"`
	ApprovalType   *string         `json:"approval_type"`
	PauseType      *string         `json:"pause_type"`
	ToolName       *string         `json:"tool_name"`
	ToolArgs       map[string]any  `json:"tool_args"`
	ExpiresAt      *int64          `json:"expires_at"`
	AgentID        *string         `json:"agent_id"`
	TeamID         *string         `json:"team_id"`
	WorkflowID     *string         `json:"workflow_id"`
	UserID         *string         `json:"user_id"`
	ScheduleID     *string         `json:"schedule_id"`
	ScheduleRunID  *string         `json:"schedule_run_id"`
	SourceName     *string         `json:"source_name"`
	Requirements   json.RawMessage `json:"requirements"`
	Context        map[string]any  `json:"context"`
	ResolutionData map[string]any  `json:"resolution_data"`
	ResolvedBy     *string         `json:"resolved_by"`
	ResolvedAt     *int64          `json:"resolved_at"`
	CreatedAt      *int64          `json:"created_at"`
	UpdatedAt      *int64          `json:"updated_at"`
	RunStatus      *string         `json:"run_status"`
}

// ApprovalListResponse is agno's PaginatedResponse[ApprovalResponse].
type ApprovalListResponse struct {
	Data []ApprovalResponse     `json:"data"`
	Meta httpapi.PaginationInfo `json:"meta"`
}

// ApprovalCountResponse is agno's ApprovalCountResponse.
type ApprovalCountResponse struct {
	Count int `json:"count"`
}

// ApprovalStatusResponse is agno's ApprovalStatusResponse.
type ApprovalStatusResponse struct {
	ApprovalID string  `json:"approval_id"`
	Status     string  `json:"status"`
	RunID      string  `json:"run_id"`
	ResolvedAt *int64  `json:"resolved_at"`
	ResolvedBy *string `json:"resolved_by"`
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func approvalResponse(a *approval.Approval) ApprovalResponse {
	created := a.CreatedAt
	return ApprovalResponse{
		ID: a.ID, RunID: a.RunID, SessionID: a.SessionID, Status: string(a.Status), SourceType: a.SourceType,
		ApprovalType: optStr(string(a.ApprovalType)), PauseType: optStr(a.PauseType), ToolName: optStr(a.ToolName), ToolArgs: a.ToolArgs,
		ExpiresAt: a.ExpiresAt, AgentID: optStr(a.AgentID), TeamID: optStr(a.TeamID), WorkflowID: optStr(a.WorkflowID),
		UserID: optStr(a.UserID), ScheduleID: optStr(a.ScheduleID), ScheduleRunID: optStr(a.ScheduleRunID), SourceName: optStr(a.SourceName),
		Requirements: a.Requirements, Context: a.Context, ResolutionData: a.ResolutionData, ResolvedBy: optStr(a.ResolvedBy),
		ResolvedAt: a.ResolvedAt, CreatedAt: &created, UpdatedAt: a.UpdatedAt, RunStatus: optStr(a.RunStatus),
	}
}

// literalQuery reads an optional query parameter limited to choices, with
// FastAPI's 422 item for another value.
func literalQuery(q map[string][]string, name string, choices ...string) (string, *httpapi.ValidationItem) {
	vs, ok := q[name]
	if !ok {
		return "", nil
	}
	for _, c := range choices {
		if vs[0] == c {
			return c, nil
		}
	}
	quoted := make([]string, len(choices))
	for i, c := range choices {
		quoted[i] = "'" + c + "'"
	}
	expected := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	return "", &httpapi.ValidationItem{Type: "literal_error", Loc: []any{"query", name}, Msg: "Input should be " + expected,
		Input: vs[0], Ctx: map[string]any{"expected": expected}}
}

func (g *Group) handleListApprovals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var errs []httpapi.ValidationItem
	status, e := literalQuery(q, "status", "pending", "approved", "rejected", "expired", "cancelled")
	if e != nil {
		errs = append(errs, *e)
	}
	typ, e := literalQuery(q, "approval_type", "required", "audit")
	if e != nil {
		errs = append(errs, *e)
	}
	limit, le := httpapi.IntQuery(q, "limit", 100, 1, 1000)
	errs = append(errs, le...)
	page, pe := httpapi.IntQuery(q, "page", 1, 1, 0)
	errs = append(errs, pe...)
	if len(errs) > 0 {
		httpapi.WriteValidation(w, errs...)
		return
	}
	f := approval.Filter{Status: approval.Status(status), SourceType: q.Get("source_type"), ApprovalType: approval.Type(typ),
		PauseType: q.Get("pause_type"), AgentID: q.Get("agent_id"), TeamID: q.Get("team_id"), WorkflowID: q.Get("workflow_id"),
		UserID: q.Get("user_id"), ScheduleID: q.Get("schedule_id"), RunID: q.Get("run_id"), Limit: limit, Page: page}
	if u := httpapi.ScopedUser(r.Context()); u != "" {
		f.UserID = u
	}
	list, total, err := g.store.List(r.Context(), f)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	resp := ApprovalListResponse{Data: make([]ApprovalResponse, 0, len(list)),
		Meta: httpapi.PaginationInfo{Page: page, Limit: limit, TotalPages: httpapi.TotalPages(total, limit), TotalCount: total}}
	for _, a := range list {
		resp.Data = append(resp.Data, approvalResponse(a))
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
}

func (g *Group) handleApprovalCount(w http.ResponseWriter, r *http.Request) {
	user := r.URL.Query().Get("user_id")
	if u := httpapi.ScopedUser(r.Context()); u != "" {
		user = u
	}
	n, err := g.store.CountPending(r.Context(), user)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, ApprovalCountResponse{Count: n})
}

// visibleApproval loads an approval the caller may see: under user
// isolation a non-admin sees its own user's only (404 otherwise).
func (g *Group) visibleApproval(w http.ResponseWriter, r *http.Request) (*approval.Approval, bool) {
	a, err := g.store.Get(r.Context(), r.PathValue("approval_id"))
	if errors.Is(err, approval.ErrNotFound) {
		httpapi.WriteError(w, http.StatusNotFound, "Approval not found")
		return nil, false
	}
	if err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	if u := httpapi.ScopedUser(r.Context()); u != "" && a.UserID != u {
		httpapi.WriteError(w, http.StatusNotFound, "Approval not found")
		return nil, false
	}
	return a, true
}

func (g *Group) handleApprovalStatus(w http.ResponseWriter, r *http.Request) {
	a, ok := g.visibleApproval(w, r)
	if !ok {
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, ApprovalStatusResponse{ApprovalID: a.ID, Status: string(a.Status), RunID: a.RunID,
		ResolvedAt: a.ResolvedAt, ResolvedBy: optStr(a.ResolvedBy)})
}

func (g *Group) handleGetApproval(w http.ResponseWriter, r *http.Request) {
	if a, ok := g.visibleApproval(w, r); ok {
		httpapi.WriteJSON(w, http.StatusOK, approvalResponse(a))
	}
}

func (g *Group) handleDeleteApproval(w http.ResponseWriter, r *http.Request) {
	a, ok := g.visibleApproval(w, r)
	if !ok {
		return
	}
	deleted, err := g.store.Delete(r.Context(), a.ID)
	if err != nil || !deleted {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete approval")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

const resolvePattern = "^(approved|rejected)$"

func approvalConflict(w http.ResponseWriter, status approval.Status) {
	httpapi.WriteError(w, http.StatusConflict, fmt.Sprintf("Approval is already '%s' and cannot be resolved", status))
}

// handleResolveApproval is POST /approvals/{approval_id}/resolve: the
// approval moves from pending once (409 after), then the paused run is
// continued with the decision — unless the run waits for other answers
// too, which then continue it.
func (g *Group) handleResolveApproval(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var status, by string
	var data map[string]any
	if !b.Require("status", &status) {
		return
	}
	if status != string(approval.StatusApproved) && status != string(approval.StatusRejected) {
		b.RejectCtx([]string{"status"}, "String should match pattern '"+resolvePattern+"'", "string_pattern_mismatch", map[string]any{"pattern": resolvePattern})
		return
	}
	b.Get("resolved_by", &by)
	b.Get("resolution_data", &data)
	if b.Bad {
		return
	}
	if c := httpapi.CallerOf(r.Context()); c != nil && c.UserID != "" {
		by = c.UserID // the token's sub, not what the body claims
	}
	a, ok := g.visibleApproval(w, r)
	if !ok {
		return
	}
	if a.Status != approval.StatusPending {
		approvalConflict(w, a.Status)
		return
	}
	res := approval.Resolution{Status: approval.Status(status), ResolvedBy: by, ResolutionData: data, At: time.Now().Unix()}
	if a.ApprovalType != approval.TypeRequired || g.host.Store() == nil {
		g.recordResolution(w, r, a.ID, res)
		return
	}
	plan, err := g.planContinue(r.Context(), a, res)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if plan == nil { // nothing to continue: the row is the record
		g.recordResolution(w, r, a.ID, res)
		return
	}
	if err := g.host.Draining(); err != nil {
		httpapi.Fail(w, err)
		return
	}
	resolved, err := g.store.Resolve(r.Context(), a.ID, res)
	if !resolveFailed(w, err) {
		return
	}
	log := g.host.Logger()
	claimErr := g.continueApproved(plan)
	if errors.Is(claimErr, run.ErrNotPaused) || errors.Is(claimErr, run.ErrNotFound) {
		// Another channel answered first: this decision took no effect.
		if _, err := g.store.Reopen(context.WithoutCancel(r.Context()), a.ID, res.Status, res.At); err != nil {
			log.Warn("approvals: could not reopen an approval whose run was answered elsewhere", "approval_id", a.ID, "err", err)
		}
		_ = g.syncApprovals(context.WithoutCancel(r.Context()), a.RunID)
		st := "not found"
		if rec, err := g.host.Store().GetRun(r.Context(), a.RunID); err == nil {
			st = string(rec.Status)
		}
		httpapi.WriteError(w, http.StatusConflict, fmt.Sprintf(approvalElsewhere, a.RunID, st))
		return
	}
	if claimErr != nil {
		log.Warn("approvals: the resolved run did not continue", "run_id", a.RunID, "err", claimErr)
	}
	if again, err := g.store.Get(r.Context(), a.ID); err == nil {
		resolved = again
	}
	httpapi.WriteJSON(w, http.StatusOK, approvalResponse(resolved))
}

// resolveFailed answers a failed Resolve (404, 409, 500); true when it
// succeeded.
func resolveFailed(w http.ResponseWriter, err error) bool {
	var ce *approval.ConflictError
	switch {
	case err == nil:
		return true
	case errors.As(err, &ce):
		approvalConflict(w, ce.Status)
	case errors.Is(err, approval.ErrNotFound):
		httpapi.WriteError(w, http.StatusNotFound, "Approval not found")
	default:
		httpapi.Fail(w, err)
	}
	return false
}

func (g *Group) recordResolution(w http.ResponseWriter, r *http.Request, id string, res approval.Resolution) {
	a, err := g.store.Resolve(r.Context(), id, res)
	if resolveFailed(w, err) {
		httpapi.WriteJSON(w, http.StatusOK, approvalResponse(a))
	}
}
