// Package approvalsapi is the Approvals route group of AgentOS: agno's
// /approvals routes over package approval (the approvals kept in the
// OS's DB) and the plane that follows the runs' changes onto them. A
// tool marked ApprovalType "required" pauses its run with an approval_id
// on the paused tool execution; the plane records the pending approval
// once the pause is stored (every replica sees the change, the row is
// created once by id), follows the run's status onto its approvals,
// marks them resolved when the run was answered on another channel, and
// records "audit" approvals after the human answered. POST
// /approvals/{id}/resolve answers the paused run through the run engine,
// whose claim makes the continuation happen once whatever channel races.
// It builds on the core (agentos/internal/httpapi) and on Host, what it
// needs of the OS; agentos serves its rows.
package approvalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

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

// Host is what the group needs of the OS. An approval is resolved by a
// caller with the rights: the group checks them through Host as the OS
// checks a request's.
type Host interface {
	// DB holds the approvals.
	DB() *sqldb.DB
	// Store is the OS store whose runs pause and continue (nil: the
	// plane follows no run, a resolve only records its decision).
	Store() storage.Store
	Logger() *slog.Logger
	// WatchRuns calls fn on each change of a run's status, until stop;
	// fn must not block.
	WatchRuns(fn func(runs.Change)) (stop func())
	// Detach runs fn in the background through the run engine as the
	// run runID of kind, which claims the run once.
	Detach(ctx context.Context, runID, kind string, fn func(context.Context)) error
	// May reports whether c's scopes grant required on the resource
	// typ/id; true outside JWT mode.
	May(c *httpapi.Caller, required []string, typ, id string) bool
	// Workflow is the served workflow id; nil when it is not served now.
	Workflow(id string) *workflow.Workflow
	// Continuer is how the paused run runID of the agent or team kind/id
	// continues once its approvals are resolved: through the interface
	// that started it, else the served agent or team; ok false when
	// neither serves it.
	Continuer(ctx context.Context, kind, id, runID, sessionID, userID string) (cont func(context.Context, *run.ContinueRequest, run.Emitter) error, ok bool)
	// Draining is the answer (a 503 for httpapi.Fail) to a request that
	// would continue a run once shutdown began; nil before.
	Draining() error
}

// Group is the approvals part of the control plane: New, then Routes,
// Start and Stop.
type Group struct {
	host Host
	// store is nil until Start: without a DB there are no approvals.
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

// New is the group serving h's approvals.
func New(h Host) *Group { return &Group{host: h} }

// Start opens the approvals table and, with a store, starts following
// the runs' changes.
func (g *Group) Start() error {
	store, err := approval.NewStore(context.Background(), g.host.DB())
	if err != nil {
		return err
	}
	g.store, g.queued, g.paused = store, map[string]runs.Change{}, map[string]bool{}
	g.wake, g.done = make(chan struct{}, 1), make(chan struct{})
	if g.host.Store() == nil {
		close(g.done)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	g.unwatch = g.host.WatchRuns(g.enqueue)
	go g.worker(ctx)
	return nil
}

// Stop stops following the runs and waits for the worker.
func (g *Group) Stop() {
	if g.done == nil {
		return // never started
	}
	if g.unwatch != nil {
		g.unwatch()
	}
	if g.cancel != nil {
		g.cancel()
	}
	<-g.done
}

// enqueue is the WatchRuns callback: it must not block, so changes queue
// for the worker (the latest per run).
func (g *Group) enqueue(ch runs.Change) {
	g.mu.Lock()
	if ch.Status == run.StatusPaused && ch.ParentRunID == "" {
		g.paused[ch.RunID] = true
	}
	if _, ok := g.queued[ch.RunID]; !ok {
		g.order = append(g.order, ch.RunID)
	}
	g.queued[ch.RunID] = ch
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

func (g *Group) next() (runs.Change, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.order) == 0 {
		return runs.Change{}, false
	}
	id := g.order[0]
	g.order = g.order[1:]
	ch := g.queued[id]
	delete(g.queued, id)
	return ch, true
}

// worker records the approvals of run changes; at start it records
// those of runs that paused while no process watched.
func (g *Group) worker(ctx context.Context) {
	defer close(g.done)
	log := g.host.Logger()
	if paused, err := g.host.Store().ListRuns(ctx, storage.RunQuery{Status: []run.Status{run.StatusPaused}, TopLevel: true, Newest: true, Limit: 500}); err == nil {
		for _, r := range paused {
			g.enqueue(runs.Change{RunID: r.RunID, Status: r.Status, ParentRunID: r.ParentRunID})
		}
	} else if ctx.Err() == nil {
		log.Warn("approvals: could not list paused runs", "err", err)
	}
	for {
		ch, ok := g.next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-g.wake:
			}
			continue
		}
		if ch.ParentRunID != "" {
			continue // a member's pause is recorded on its top-level run
		}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		if err := g.change(cctx, ch); err != nil && ctx.Err() == nil {
			log.Warn("approvals: could not record a run's approvals", "run_id", ch.RunID, "err", err)
		}
		cancel()
	}
}

// change handles one run change: a run that never paused has nothing to
// record, so only its status is copied (when it has approvals) without
// reading the run.
func (g *Group) change(ctx context.Context, ch runs.Change) error {
	g.mu.Lock()
	seen := g.paused[ch.RunID]
	if ch.Status != run.StatusPaused && ch.Status.Terminal() {
		delete(g.paused, ch.RunID)
	}
	g.mu.Unlock()
	if ch.Status == run.StatusPaused || (seen && ch.Status.Terminal()) {
		return g.syncApprovals(ctx, ch.RunID)
	}
	if ch.Fresh {
		return nil // never paused: it has no approvals
	}
	has, err := g.store.HasRun(ctx, ch.RunID)
	if err != nil || !has {
		return err
	}
	return g.syncApprovals(ctx, ch.RunID) // the stored row is the truth, not the change
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
func (g *Group) storedOutput(ctx context.Context, runID string) (*storage.Run, *run.Output, error) {
	rec, err := g.host.Store().GetRun(ctx, runID)
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
func (g *Group) syncApprovals(ctx context.Context, runID string) error {
	rec, out, err := g.storedOutput(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil || rec.ParentRunID != "" {
		return err
	}
	if out == nil {
		return g.syncStepApprovals(ctx, rec)
	}
	tools := approvalTools(out)
	if rec.Status == run.StatusPaused {
		if err := g.recordPause(ctx, rec, out, tools); err != nil {
			return err
		}
	}
	has, err := g.store.HasRun(ctx, runID)
	if err != nil || !has && len(tools) == 0 {
		return err
	}
	if has {
		if _, err := g.store.SetRunStatus(ctx, runID, string(rec.Status), rec.Version); err != nil {
			return err
		}
	}
	if rec.InFlight() {
		return nil // a continuation's answers are stored when it settles
	}
	return g.settleApprovals(ctx, rec, out, tools)
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
func (g *Group) recordPause(ctx context.Context, rec *storage.Run, out *run.Output, tools []*run.ToolExecution) error {
	for _, id := range requiredIDs(tools) {
		if _, decided := decision(tools, id); decided {
			continue
		}
		if _, err := g.store.Create(ctx, requiredApproval(rec, out, tools, id)); err != nil {
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
func (g *Group) settleApprovals(ctx context.Context, rec *storage.Run, out *run.Output, tools []*run.ToolExecution) error {
	store := g.store
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

// Gate is agno's require_approval_resolved for the continue routes:
// with authorization on, a run with a pending required approval
// continues only for a caller holding approvals:write. It answers 403
// and returns false when the caller is refused.
func (g *Group) Gate(w http.ResponseWriter, r *http.Request, runID string) bool {
	c := httpapi.CallerOf(r.Context())
	if c == nil || g.store == nil || runID == "" || g.host.May(c, []string{"approvals:write"}, "", "") {
		return true
	}
	list, _, err := g.store.List(r.Context(), approval.Filter{RunID: runID, Status: approval.StatusPending, ApprovalType: approval.TypeRequired, Limit: 1})
	if err != nil {
		g.host.Logger().Warn("approvals: resolution check skipped", "run_id", runID, "err", err)
		return true
	}
	if len(list) > 0 {
		httpapi.WriteError(w, http.StatusForbidden, approvalBlocked)
		return false
	}
	return true
}
