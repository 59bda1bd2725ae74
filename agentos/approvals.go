package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// Approvals (agno's approvals router and agno.run.approval): a tool
// marked ApprovalType "required" pauses its run with an approval_id on
// the paused tool execution; this plane records the pending approval
// once the pause is stored (every replica sees the change, the row is
// created once by id), follows the run's status onto its approvals,
// marks them resolved when the run was answered on another channel, and
// records "audit" approvals after the human answered. POST
// /approvals/{id}/resolve answers the paused run through the run engine,
// whose claim makes the continuation happen once whatever channel races.

// Texts beyond agno's (agno's resolve does not continue the run).
const (
	approvalBlocked    = "This run requires admin approval before it can be continued"
	approvalElsewhere  = "Run %s is not paused: it was answered elsewhere first (the run is %s)"
	approvalNotServed  = "The %s %s of this approval is not served by this AgentOS: the approval was not resolved"
	approvalBadRequire = "resolution_data: %s"
)

// approvalClaimWait bounds how long a resolve waits to learn whether its
// continuation claimed the run.
const approvalClaimWait = 30 * time.Second

// approvalPlane is the approvals part of the control plane.
type approvalPlane struct {
	store *approval.Store

	mu     sync.Mutex
	queued map[string]runs.Change // run id → latest change, coalesced
	order  []string
	// paused are the runs seen paused: only their later changes can
	// carry answers (others are skipped without reading the run).
	paused  map[string]bool
	wake    chan struct{}
	unwatch func()
	cancel  context.CancelFunc
	done    chan struct{}
}

func (o *OS) startApprovals() error {
	store, err := approval.NewStore(context.Background(), o.cfg.DB)
	if err != nil {
		return err
	}
	p := &approvalPlane{store: store, queued: map[string]runs.Change{}, paused: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	o.approvals = p
	if o.eng == nil || o.cfg.Store == nil {
		close(p.done)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.unwatch = o.eng.Watch(p.enqueue)
	go o.approvalWorker(ctx, p)
	return nil
}

func (o *OS) stopApprovals() {
	p := o.approvals
	if p == nil {
		return
	}
	if p.unwatch != nil {
		p.unwatch()
	}
	if p.cancel != nil {
		p.cancel()
	}
	<-p.done
}

// enqueue is the Watch callback: it must not block, so changes queue for
// the worker (the latest per run).
func (p *approvalPlane) enqueue(ch runs.Change) {
	p.mu.Lock()
	if ch.Status == run.StatusPaused && ch.ParentRunID == "" {
		p.paused[ch.RunID] = true
	}
	if _, ok := p.queued[ch.RunID]; !ok {
		p.order = append(p.order, ch.RunID)
	}
	p.queued[ch.RunID] = ch
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *approvalPlane) next() (runs.Change, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.order) == 0 {
		return runs.Change{}, false
	}
	id := p.order[0]
	p.order = p.order[1:]
	ch := p.queued[id]
	delete(p.queued, id)
	return ch, true
}

// approvalWorker records the approvals of run changes; at start it
// records those of runs that paused while no process watched.
func (o *OS) approvalWorker(ctx context.Context, p *approvalPlane) {
	defer close(p.done)
	if paused, err := o.cfg.Store.ListRuns(ctx, storage.RunQuery{Status: []run.Status{run.StatusPaused}, TopLevel: true, Newest: true, Limit: 500}); err == nil {
		for _, r := range paused {
			p.enqueue(runs.Change{RunID: r.RunID, Status: r.Status, ParentRunID: r.ParentRunID})
		}
	} else if ctx.Err() == nil {
		o.log.Warn("approvals: could not list paused runs", "err", err)
	}
	for {
		ch, ok := p.next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
			}
			continue
		}
		if ch.ParentRunID != "" {
			continue // a member's pause is recorded on its top-level run
		}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		if err := o.approvalChange(cctx, p, ch); err != nil && ctx.Err() == nil {
			o.log.Warn("approvals: could not record a run's approvals", "run_id", ch.RunID, "err", err)
		}
		cancel()
	}
}

// approvalChange handles one run change: a run that never paused has
// nothing to record, so only its status is copied (when it has
// approvals) without reading the run.
func (o *OS) approvalChange(ctx context.Context, p *approvalPlane, ch runs.Change) error {
	p.mu.Lock()
	seen := p.paused[ch.RunID]
	if ch.Status != run.StatusPaused && ch.Status.Terminal() {
		delete(p.paused, ch.RunID)
	}
	p.mu.Unlock()
	if ch.Status == run.StatusPaused || (seen && ch.Status.Terminal()) {
		return o.syncApprovals(ctx, ch.RunID)
	}
	if ch.Fresh {
		return nil // never paused: it has no approvals
	}
	has, err := p.store.HasRun(ctx, ch.RunID)
	if err != nil || !has {
		return err
	}
	return o.syncApprovals(ctx, ch.RunID) // the stored row is the truth, not the change
}

// approvalTools are the tool executions of a run marked for approval:
// its own and those its requirements carry (a team member's), once each.
func approvalTools(out *run.Output) []*run.ToolExecution {
	var list []*run.ToolExecution
	seen := map[string]bool{}
	add := func(t *run.ToolExecution) {
		if t == nil || t.ApprovalType == "" || (t.ToolCallID != "" && seen[t.ToolCallID]) {
			return
		}
		seen[t.ToolCallID] = true
		list = append(list, t)
	}
	for _, t := range out.Tools {
		add(t)
	}
	for _, r := range out.Requirements {
		if r != nil {
			add(r.ToolExecution)
		}
	}
	return list
}

// toolPauseType is agno's _get_pause_type.
func toolPauseType(t *run.ToolExecution) string {
	switch {
	case t.RequiresUserInput:
		return string(run.PauseUserInput)
	case t.ExternalExecutionRequired:
		return string(run.PauseExternalExecution)
	}
	return string(run.PauseConfirmation)
}

// toolDecision reads the human's answer off a tool execution.
func toolDecision(t *run.ToolExecution) (status approval.Status, decided bool) {
	if t.Confirmed != nil && !*t.Confirmed {
		return approval.StatusRejected, true
	}
	switch {
	case t.RequiresUserInput || len(t.UserFeedbackSchema) > 0:
		decided = t.Answered != nil && *t.Answered
	case t.ExternalExecutionRequired:
		decided = t.Result != nil
	default:
		decided = t.Confirmed != nil
	}
	if !decided {
		return "", false
	}
	return approval.StatusApproved, true
}

// storedOutput reads an agent's or team's run; nil for a workflow run.
func (o *OS) storedOutput(ctx context.Context, runID string) (*storage.Run, *run.Output, error) {
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	if rec.SessionType == storage.SessionWorkflow {
		return rec, nil, nil
	}
	out := &run.Output{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, nil, fmt.Errorf("stored run %s is unreadable: %w", runID, err)
	}
	out.Status = rec.Status
	return rec, out, nil
}

// approvalSource fills the source fields of an approval from its run.
func approvalSource(a *approval.Approval, rec *storage.Run, out *run.Output) {
	a.RunID, a.SessionID = rec.RunID, rec.SessionID
	a.UserID = rec.UserID
	if a.UserID == "" {
		a.UserID = out.UserID
	}
	a.SourceType, a.AgentID, a.SourceName = approval.SourceAgent, out.AgentID, out.AgentName
	if out.TeamID != "" {
		a.SourceType, a.AgentID, a.TeamID, a.SourceName = approval.SourceTeam, "", out.TeamID, out.TeamName
	}
	if out.WorkflowID != "" {
		a.WorkflowID = out.WorkflowID
	}
}

// syncApprovals brings a run's approvals in line with the stored run: a
// pause records its pending required approvals; every status is copied
// to run_status; answers given on any channel resolve pending approvals
// and record audit approvals.
func (o *OS) syncApprovals(ctx context.Context, runID string) error {
	store := o.approvals.store
	rec, out, err := o.storedOutput(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil || rec.ParentRunID != "" {
		return err
	}
	if out == nil {
		return o.syncStepApprovals(ctx, rec)
	}
	tools := approvalTools(out)
	if rec.Status == run.StatusPaused {
		if err := o.recordPause(ctx, rec, out, tools); err != nil {
			return err
		}
	}
	has, err := store.HasRun(ctx, runID)
	if err != nil || !has && len(tools) == 0 {
		return err
	}
	if has {
		if _, err := store.SetRunStatus(ctx, runID, string(rec.Status), rec.Version); err != nil {
			return err
		}
	}
	if rec.InFlight() {
		return nil // a continuation's answers are stored when it settles
	}
	return o.settleApprovals(ctx, rec, out, tools)
}

// requiredApproval builds the approval of one pause: the required
// tools stamped with id (tool name and args of the first, as agno).
func requiredApproval(rec *storage.Run, out *run.Output, tools []*run.ToolExecution, id string) *approval.Approval {
	var first *run.ToolExecution
	var names []any
	for _, t := range tools {
		if t.ApprovalID != id {
			continue
		}
		if first == nil {
			first = t
		}
		if t.ToolName != "" {
			names = append(names, t.ToolName)
		}
	}
	a := &approval.Approval{ID: id, Status: approval.StatusPending, ApprovalType: approval.TypeRequired,
		PauseType: toolPauseType(first), ToolName: first.ToolName, ToolArgs: first.ToolArgs, RunStatus: string(rec.Status), RunVersion: rec.Version}
	if len(out.Requirements) > 0 {
		a.Requirements, _ = json.Marshal(out.Requirements)
	}
	approvalSource(a, rec, out)
	a.Context = map[string]any{}
	if len(names) > 0 {
		a.Context["tool_names"] = names
	}
	if a.SourceName != "" {
		a.Context["source_name"] = a.SourceName
	}
	if len(a.Context) == 0 {
		a.Context = nil
	}
	return a
}

// requiredIDs lists the approval ids of the required tools, in order.
func requiredIDs(tools []*run.ToolExecution) []string {
	var ids []string
	for _, t := range tools {
		if t.ApprovalType == tool.ApprovalRequired && t.ApprovalID != "" && !slices.Contains(ids, t.ApprovalID) {
			ids = append(ids, t.ApprovalID)
		}
	}
	return ids
}

// decision is the answer to the tools of one approval: rejected when any
// was refused, approved when all were answered; decided false otherwise.
func decision(tools []*run.ToolExecution, id string) (status approval.Status, decided bool) {
	for _, t := range tools {
		if t.ApprovalID != id {
			continue
		}
		s, ok := toolDecision(t)
		if !ok {
			return "", false
		}
		if status == "" || s == approval.StatusRejected {
			status = s
		}
	}
	return status, status != ""
}

// recordPause creates the pending approval of each pause of the paused,
// unanswered required tools (one per pause, as agno).
func (o *OS) recordPause(ctx context.Context, rec *storage.Run, out *run.Output, tools []*run.ToolExecution) error {
	for _, id := range requiredIDs(tools) {
		if _, decided := decision(tools, id); decided {
			continue
		}
		if _, err := o.approvals.store.Create(ctx, requiredApproval(rec, out, tools, id)); err != nil {
			return err
		}
	}
	return nil
}

// settleApprovals resolves the pending approvals whose tools were
// answered (on any channel), cancels those of a run that ended without
// an answer, records a pause answered before its approval was recorded
// (already resolved), and records audit approvals for answered audit
// tools.
func (o *OS) settleApprovals(ctx context.Context, rec *storage.Run, out *run.Output, tools []*run.ToolExecution) error {
	store := o.approvals.store
	now := time.Now().Unix()
	for _, id := range requiredIDs(tools) {
		status, decided := decision(tools, id)
		if !decided {
			if rec.Status == run.StatusPaused {
				continue
			}
			status = approval.StatusCancelled // the run ended without the answer
		}
		_, err := store.Resolve(ctx, id, approval.Resolution{Status: status, At: now})
		switch {
		case errors.Is(err, approval.ErrNotFound):
			a := requiredApproval(rec, out, tools, id)
			a.Status, a.ResolvedAt = status, &now
			if _, err := store.Create(ctx, a); err != nil {
				return err
			}
		case err != nil && !errors.Is(err, approval.ErrNotPending):
			return err
		}
	}
	for _, t := range tools {
		if t.ApprovalType != tool.ApprovalAudit {
			continue
		}
		status, decided := toolDecision(t)
		if !decided {
			continue
		}
		a := &approval.Approval{ID: approval.DerivedID("audit", rec.RunID, t.ToolCallID), Status: status, ApprovalType: approval.TypeAudit,
			PauseType: toolPauseType(t), ToolName: t.ToolName, ToolArgs: t.ToolArgs, ResolvedAt: &now, RunStatus: string(rec.Status), RunVersion: rec.Version}
		approvalSource(a, rec, out)
		a.WorkflowID = ""
		a.Context = map[string]any{}
		if t.ToolName != "" {
			a.Context["tool_names"] = []any{t.ToolName}
		}
		if a.SourceName != "" {
			a.Context["source_name"] = a.SourceName
		}
		if _, err := store.Create(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// approvalGate is agno's require_approval_resolved for the continue
// routes: with authorization on, a run with a pending required approval
// continues only for a caller holding approvals:write. It answers 403
// and returns false when the caller is refused.
func (o *OS) approvalGate(w http.ResponseWriter, r *http.Request, runID string) bool {
	c := callerOf(r.Context())
	if c == nil || o.approvals == nil || runID == "" || o.may(c, []string{"approvals:write"}, "", "") {
		return true
	}
	list, _, err := o.approvals.store.List(r.Context(), approval.Filter{RunID: runID, Status: approval.StatusPending, ApprovalType: approval.TypeRequired, Limit: 1})
	if err != nil {
		o.log.Warn("approvals: resolution check skipped", "run_id", runID, "err", err)
		return true
	}
	if len(list) > 0 {
		writeError(w, http.StatusForbidden, approvalBlocked)
		return false
	}
	return true
}

// ---- routes ----

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
	Data []ApprovalResponse `json:"data"`
	Meta PaginationInfo     `json:"meta"`
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
func literalQuery(q map[string][]string, name string, choices ...string) (string, *validationItem) {
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
	return "", &validationItem{Type: "literal_error", Loc: []any{"query", name}, Msg: "Input should be " + expected,
		Input: vs[0], Ctx: map[string]any{"expected": expected}}
}

func (o *OS) handleListApprovals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var errs []validationItem
	status, e := literalQuery(q, "status", "pending", "approved", "rejected", "expired", "cancelled")
	if e != nil {
		errs = append(errs, *e)
	}
	typ, e := literalQuery(q, "approval_type", "required", "audit")
	if e != nil {
		errs = append(errs, *e)
	}
	limit, le := intQuery(q, "limit", 100, 1, 1000)
	errs = append(errs, le...)
	page, pe := intQuery(q, "page", 1, 1, 0)
	errs = append(errs, pe...)
	if len(errs) > 0 {
		writeValidation(w, errs...)
		return
	}
	f := approval.Filter{Status: approval.Status(status), SourceType: q.Get("source_type"), ApprovalType: approval.Type(typ),
		PauseType: q.Get("pause_type"), AgentID: q.Get("agent_id"), TeamID: q.Get("team_id"), WorkflowID: q.Get("workflow_id"),
		UserID: q.Get("user_id"), ScheduleID: q.Get("schedule_id"), RunID: q.Get("run_id"), Limit: limit, Page: page}
	if u := scopedUser(r.Context()); u != "" {
		f.UserID = u
	}
	list, total, err := o.approvals.store.List(r.Context(), f)
	if err != nil {
		fail(w, err)
		return
	}
	resp := ApprovalListResponse{Data: make([]ApprovalResponse, 0, len(list)),
		Meta: PaginationInfo{Page: page, Limit: limit, TotalPages: totalPages(total, limit), TotalCount: total}}
	for _, a := range list {
		resp.Data = append(resp.Data, approvalResponse(a))
	}
	writeJSON(w, http.StatusOK, resp)
}

func (o *OS) handleApprovalCount(w http.ResponseWriter, r *http.Request) {
	user := r.URL.Query().Get("user_id")
	if u := scopedUser(r.Context()); u != "" {
		user = u
	}
	n, err := o.approvals.store.CountPending(r.Context(), user)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ApprovalCountResponse{Count: n})
}

// visibleApproval loads an approval the caller may see: under user
// isolation a non-admin sees its own user's only (404 otherwise).
func (o *OS) visibleApproval(w http.ResponseWriter, r *http.Request) (*approval.Approval, bool) {
	a, err := o.approvals.store.Get(r.Context(), r.PathValue("approval_id"))
	if errors.Is(err, approval.ErrNotFound) {
		writeError(w, http.StatusNotFound, "Approval not found")
		return nil, false
	}
	if err != nil {
		fail(w, err)
		return nil, false
	}
	if u := scopedUser(r.Context()); u != "" && a.UserID != u {
		writeError(w, http.StatusNotFound, "Approval not found")
		return nil, false
	}
	return a, true
}

func (o *OS) handleApprovalStatus(w http.ResponseWriter, r *http.Request) {
	a, ok := o.visibleApproval(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ApprovalStatusResponse{ApprovalID: a.ID, Status: string(a.Status), RunID: a.RunID,
		ResolvedAt: a.ResolvedAt, ResolvedBy: optStr(a.ResolvedBy)})
}

func (o *OS) handleGetApproval(w http.ResponseWriter, r *http.Request) {
	if a, ok := o.visibleApproval(w, r); ok {
		writeJSON(w, http.StatusOK, approvalResponse(a))
	}
}

func (o *OS) handleDeleteApproval(w http.ResponseWriter, r *http.Request) {
	a, ok := o.visibleApproval(w, r)
	if !ok {
		return
	}
	deleted, err := o.approvals.store.Delete(r.Context(), a.ID)
	if err != nil || !deleted {
		writeError(w, http.StatusInternalServerError, "Failed to delete approval")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

const resolvePattern = "^(approved|rejected)$"

func approvalConflict(w http.ResponseWriter, status approval.Status) {
	writeError(w, http.StatusConflict, fmt.Sprintf("Approval is already '%s' and cannot be resolved", status))
}

// handleResolveApproval is POST /approvals/{approval_id}/resolve: the
// approval moves from pending once (409 after), then the paused run is
// continued with the decision — unless the run waits for other answers
// too, which then continue it.
func (o *OS) handleResolveApproval(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
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
	if c := callerOf(r.Context()); c != nil && c.UserID != "" {
		by = c.UserID // the token's sub, not what the body claims
	}
	a, ok := o.visibleApproval(w, r)
	if !ok {
		return
	}
	if a.Status != approval.StatusPending {
		approvalConflict(w, a.Status)
		return
	}
	res := approval.Resolution{Status: approval.Status(status), ResolvedBy: by, ResolutionData: data, At: time.Now().Unix()}
	if a.ApprovalType != approval.TypeRequired || o.cfg.Store == nil {
		o.recordResolution(w, r, a.ID, res)
		return
	}
	plan, err := o.planContinue(r.Context(), a, res)
	var he *httpError
	switch {
	case errors.As(err, &he):
		fail(w, err)
		return
	case err != nil:
		fail(w, err)
		return
	}
	if plan == nil { // nothing to continue: the row is the record
		o.recordResolution(w, r, a.ID, res)
		return
	}
	if o.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, shuttingDown)
		return
	}
	resolved, err := o.approvals.store.Resolve(r.Context(), a.ID, res)
	if !o.resolveFailed(w, err) {
		return
	}
	claimErr := o.continueApproved(plan)
	if errors.Is(claimErr, run.ErrNotPaused) || errors.Is(claimErr, run.ErrNotFound) {
		// Another channel answered first: this decision took no effect.
		if _, err := o.approvals.store.Reopen(context.WithoutCancel(r.Context()), a.ID, res.Status, res.At); err != nil {
			o.log.Warn("approvals: could not reopen an approval whose run was answered elsewhere", "approval_id", a.ID, "err", err)
		}
		_ = o.syncApprovals(context.WithoutCancel(r.Context()), a.RunID)
		st := "not found"
		if rec, err := o.cfg.Store.GetRun(r.Context(), a.RunID); err == nil {
			st = string(rec.Status)
		}
		writeError(w, http.StatusConflict, fmt.Sprintf(approvalElsewhere, a.RunID, st))
		return
	}
	if claimErr != nil {
		o.log.Warn("approvals: the resolved run did not continue", "run_id", a.RunID, "err", claimErr)
	}
	if again, err := o.approvals.store.Get(r.Context(), a.ID); err == nil {
		resolved = again
	}
	writeJSON(w, http.StatusOK, approvalResponse(resolved))
}

// resolveFailed answers a failed Resolve (404, 409, 500); true when it
// succeeded.
func (o *OS) resolveFailed(w http.ResponseWriter, err error) bool {
	var ce *approval.ConflictError
	switch {
	case err == nil:
		return true
	case errors.As(err, &ce):
		approvalConflict(w, ce.Status)
	case errors.Is(err, approval.ErrNotFound):
		writeError(w, http.StatusNotFound, "Approval not found")
	default:
		fail(w, err)
	}
	return false
}

func (o *OS) recordResolution(w http.ResponseWriter, r *http.Request, id string, res approval.Resolution) {
	a, err := o.approvals.store.Resolve(r.Context(), id, res)
	if o.resolveFailed(w, err) {
		writeJSON(w, http.StatusOK, approvalResponse(a))
	}
}

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
func (o *OS) planContinue(ctx context.Context, a *approval.Approval, res approval.Resolution) (*continuePlan, error) {
	rec, out, err := o.storedOutput(ctx, a.RunID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.Status != run.StatusPaused {
		return nil, errStatus(http.StatusConflict, approvalElsewhere, a.RunID, rec.Status)
	}
	if out == nil {
		return o.planStepContinue(ctx, a, rec, res)
	}
	kind, id := "agent", out.AgentID
	if out.TeamID != "" {
		kind, id = "team", out.TeamID
	}
	ans, ok := o.answerFor(ctx, Paused{Kind: kind, ID: id, RunID: a.RunID, SessionID: rec.SessionID, UserID: rec.UserID})
	if !ok {
		return nil, errStatus(http.StatusServiceUnavailable, approvalNotServed, kind, id)
	}
	others, _, err := o.approvals.store.List(ctx, approval.Filter{RunID: a.RunID})
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
		if ans.Emit != nil {
			emit = teeEmit(emit, ans.Emit)
		}
		res := outputResultOf(ans.Executor.ExecuteContinue(ctx, creq, emit))
		if ans.Done != nil {
			ans.Done(res)
		}
		return res.Err
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
			return errStatus(http.StatusBadRequest, approvalBadRequire, "a user-input approval cannot be rejected: approve it with resolution_data.values")
		}
		values, _ := data["values"].(map[string]any)
		if values == nil {
			values = data
		}
		if len(values) == 0 {
			return errStatus(http.StatusBadRequest, approvalBadRequire, "approving a user-input approval needs the values: {\"values\": {\"<field>\": …}}")
		}
		return req.ProvideUserInput(values)
	case run.PauseExternalExecution:
		if d.Status == approval.StatusRejected {
			return errStatus(http.StatusBadRequest, approvalBadRequire, "an external-execution approval cannot be rejected: approve it with resolution_data.result")
		}
		v, ok := data["result"]
		if !ok {
			return errStatus(http.StatusBadRequest, approvalBadRequire, "approving an external-execution approval needs the result: {\"result\": \"…\"}")
		}
		s, isStr := v.(string)
		if !isStr {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		return req.SetExternalResult(s)
	}
	return errStatus(http.StatusBadRequest, approvalBadRequire, "this approval's requirement ("+string(req.PauseType())+") is answered through the run's continue route")
}

// continueApproved continues the run in the background through the run
// engine and waits until the continuation claimed the run (nil) or
// failed to (its error: run.ErrNotPaused when another channel won).
func (o *OS) continueApproved(p *continuePlan) error {
	claimed := make(chan error, 1)
	var once sync.Once
	signal := func(err error) { once.Do(func() { claimed <- err }) }
	err := o.eng.Detach(context.Background(), p.runID, p.kind, func(ctx context.Context) {
		err := p.exec(ctx, func(run.Event) bool { signal(nil); return true })
		signal(err)
		if err != nil && !errors.Is(err, run.ErrNotPaused) {
			o.log.Warn("approvals: continuing the run failed", "run_id", p.runID, "err", err)
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

// approvalAPIRoutes are agno's /approvals routes (tag Approvals).
func (o *OS) approvalAPIRoutes() []apiRoute {
	filters := []apiParam{
		{Name: "status", Type: "string", Enum: []string{"pending", "approved", "rejected", "expired", "cancelled"}},
		{Name: "source_type", Type: "string", Desc: "agent, team or workflow"},
		{Name: "approval_type", Type: "string", Enum: []string{"required", "audit"}},
		{Name: "pause_type", Type: "string", Desc: "confirmation, user_input or external_execution"},
		{Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"},
		pUserQ, {Name: "schedule_id", Type: "string"}, {Name: "run_id", Type: "string"},
		{Name: "limit", Type: "integer", Default: 100, Min: 1, Max: 1000}, {Name: "page", Type: "integer", Default: 1, Min: 1},
	}
	const resp = "ApprovalResponse {id, run_id, session_id, status, source_type, approval_type, pause_type, tool_name, tool_args, expires_at, agent_id, team_id, workflow_id, user_id, schedule_id, schedule_run_id, source_name, requirements, context, resolution_data, resolved_by, resolved_at, created_at, updated_at, run_status}"
	return []apiRoute{
		{Pattern: "GET /approvals", Handler: o.handleListApprovals, Access: needs("approvals:read"), Tag: "Approvals", Summary: "List approvals", Desc: "Newest first; under user isolation a caller sees its own user's approvals.",
			Query: filters, Schema: "PaginatedResponse", Result: "PaginatedResponse[ApprovalResponse]"},
		{Pattern: "GET /approvals/count", Handler: o.handleApprovalCount, Access: needs("approvals:read"), Tag: "Approvals", Summary: "Count pending approvals", Query: []apiParam{pUserQ}, Result: "{count}"},
		{Pattern: "GET /approvals/{approval_id}/status", Handler: o.handleApprovalStatus, Access: needs("approvals:read"), Tag: "Approvals", Summary: "Status of an approval",
			Result: "{approval_id, status, run_id, resolved_at, resolved_by}; 404 \"Approval not found\""},
		{Pattern: "GET /approvals/{approval_id}", Handler: o.handleGetApproval, Access: needs("approvals:read"), Tag: "Approvals", Summary: "Get an approval", Result: resp + "; 404"},
		{Pattern: "POST /approvals/{approval_id}/resolve", Handler: o.handleResolveApproval, Access: needs("approvals:write"), Tag: "Approvals", Summary: "Approve or reject a pending approval",
			Desc: "Only a pending approval resolves (409 \"Approval is already '<status>' and cannot be resolved\"). A required approval then continues its paused run once through the run engine (approved confirms the tool call, rejected refuses it with resolution_data.note; user input from resolution_data.values, an external result from resolution_data.result); 409 when another channel continued the run first. With a JWT, its sub is resolved_by.",
			JSON: []apiParam{{Name: "status", Type: "string", Required: true, Enum: []string{"approved", "rejected"}}, {Name: "resolved_by", Type: "string"},
				{Name: "resolution_data", Type: "object"}}, Result: resp},
		{Pattern: "DELETE /approvals/{approval_id}", Handler: o.handleDeleteApproval, Access: needs("approvals:delete"), Tag: "Approvals", Summary: "Delete an approval", Status: http.StatusNoContent, Result: "No content; 404"},
	}
}

// ---- workflow steps ----

// stepApprovalID is the approval of the index-th pause of a workflow run
// (a step in a loop pauses once per iteration).
func stepApprovalID(runID, stepID string, index int) string {
	return approval.DerivedID("step", runID, stepID, strconv.Itoa(index))
}

// syncStepApprovals is syncApprovals for a workflow run: a step marked
// Approval "required" records a pending approval when it pauses; its
// answer, given on any channel, resolves it; "audit" steps are recorded
// once answered.
func (o *OS) syncStepApprovals(ctx context.Context, rec *storage.Run) error {
	wf := o.catalog().workflows[rec.ComponentID]
	if wf == nil {
		return nil
	}
	out := &workflow.RunOutput{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return fmt.Errorf("stored workflow run %s is unreadable: %w", rec.RunID, err)
	}
	store := o.approvals.store
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
func (o *OS) planStepContinue(ctx context.Context, a *approval.Approval, rec *storage.Run, res approval.Resolution) (*continuePlan, error) {
	wf := o.catalog().workflows[rec.ComponentID]
	if wf == nil {
		return nil, errStatus(http.StatusServiceUnavailable, approvalNotServed, "workflow", rec.ComponentID)
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
		return nil, errStatus(http.StatusBadRequest, approvalBadRequire, "a "+req.Kind()+" pause is answered through the workflow's continue route")
	case req.RequiresUserInput && !req.RequiresOutputReview:
		values, _ := data["values"].(map[string]any)
		if values == nil {
			values = data
		}
		if err := req.SetUserInput(values); err != nil {
			return nil, errStatus(http.StatusBadRequest, approvalBadRequire, err.Error())
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
