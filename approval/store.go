package approval

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agno-go/agno/storage/rowcount"
	"github.com/agno-go/agno/storage/sqldb"
)

// Table is agno's approvals table.
const Table = "agno_approvals"

// Store keeps approvals in a control-plane database; safe for concurrent
// use, and for several processes sharing the database.
type Store struct {
	db *sqldb.DB
}

// Migrations are the schema versions of this package's tables; the
// store applies them when it opens, /databases/{db_id}/migrate again.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	j := db.JSON()
	stmts := []string{`CREATE TABLE IF NOT EXISTS {t:agno_approvals} (
		id              TEXT PRIMARY KEY,
		run_id          TEXT NOT NULL,
		session_id      TEXT NOT NULL,
		status          TEXT NOT NULL,
		source_type     TEXT NOT NULL,
		approval_type   TEXT,
		pause_type      TEXT NOT NULL,
		tool_name       TEXT,
		tool_args       ` + j + `,
		expires_at      BIGINT,
		agent_id        TEXT,
		team_id         TEXT,
		workflow_id     TEXT,
		user_id         TEXT,
		schedule_id     TEXT,
		schedule_run_id TEXT,
		source_name     TEXT,
		requirements    ` + j + `,
		context         ` + j + `,
		resolution_data ` + j + `,
		resolved_by     TEXT,
		resolved_at     BIGINT,
		created_at      BIGINT NOT NULL,
		updated_at      BIGINT,
		run_status      TEXT,
		run_version     BIGINT
	)`}
	// agno indexes these columns; the pending count and per-run reads use
	// them.
	for _, c := range []string{"run_id", "session_id", "status", "source_type", "approval_type", "pause_type", "agent_id", "team_id",
		"workflow_id", "user_id", "schedule_id", "schedule_run_id", "created_at", "run_status"} {
		stmts = append(stmts, `CREATE INDEX IF NOT EXISTS idx_agno_approvals_`+c+` ON {t:agno_approvals} (`+c+`)`)
	}
	return []sqldb.Migration{{Table: Table, Version: 1, Stmts: stmts}, {Table: Table, Version: 2, Stmts: []string{
		// The listing's order (created_at DESC, id) ends the indexes of
		// all approvals, of a status (the pending queue) and of a user
		// (scoped callers), so a page is read in order and stops there.
		`DROP INDEX IF EXISTS {t:idx_agno_approvals_created_at}`,
		`DROP INDEX IF EXISTS {t:idx_agno_approvals_status}`,
		`DROP INDEX IF EXISTS {t:idx_agno_approvals_user_id}`,
		`CREATE INDEX idx_agno_approvals_created_at ON {t:agno_approvals} (created_at DESC, id)`,
		`CREATE INDEX idx_agno_approvals_status ON {t:agno_approvals} (status, created_at DESC, id)`,
		`CREATE INDEX idx_agno_approvals_user_id ON {t:agno_approvals} (user_id, created_at DESC, id)`,
	}}, db.Counts(Table, counted)}
}

// counted are the filters whose total_count is kept: all approvals, by
// status (the pending queue), by user (scoped callers) and both.
var counted = rowcount.Spec{Scopes: [][]string{{}, {"status"}, {"user_id"}, {"status", "user_id"}}}

// NewStore opens the store, migrating the table to its current version.
func NewStore(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("approval: NewStore needs a database")
	}
	if err := db.Migrate(ctx, Migrations(db)); err != nil {
		return nil, fmt.Errorf("approval: migrate %s: %w", Table, err)
	}
	return &Store{db: db}, nil
}

const columns = `id, run_id, session_id, status, source_type, approval_type, pause_type, tool_name, tool_args, expires_at,
	agent_id, team_id, workflow_id, user_id, schedule_id, schedule_run_id, source_name, requirements, context,
	resolution_data, resolved_by, resolved_at, created_at, updated_at, run_status, run_version`

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullJSON(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		if x == nil {
			return nil, nil
		}
	case json.RawMessage:
		if len(x) == 0 || string(x) == "null" {
			return nil, nil
		}
		if !json.Valid(x) {
			return nil, errors.New("not valid JSON")
		}
		return string(x), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Create inserts a; an approval with its id already stored is left as it
// is (created false), so replicas recording one pause write one row.
// A missing CreatedAt is now; a missing status is pending.
func (s *Store) Create(ctx context.Context, a *Approval) (created bool, err error) {
	if a.ID == "" || a.RunID == "" {
		return false, errors.New("approval: Create needs an id and a run_id")
	}
	if a.Status == "" {
		a.Status = StatusPending
	}
	if !a.Status.Valid() {
		return false, fmt.Errorf("approval: status %q is not one of pending, approved, rejected, expired, cancelled", a.Status)
	}
	if a.SourceType == "" {
		a.SourceType = SourceAgent
	}
	if a.PauseType == "" {
		a.PauseType = "confirmation"
	}
	if a.CreatedAt == 0 {
		a.CreatedAt = time.Now().Unix()
	}
	var js [4]any
	for i, v := range []any{a.ToolArgs, a.Requirements, a.Context, a.ResolutionData} {
		if js[i], err = nullJSON(v); err != nil {
			return false, fmt.Errorf("approval %s: %w", a.ID, err)
		}
	}
	res, err := s.db.Exec(ctx, `INSERT INTO {t:agno_approvals} (`+columns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		a.ID, a.RunID, a.SessionID, string(a.Status), a.SourceType, nullStr(string(a.ApprovalType)), a.PauseType, nullStr(a.ToolName),
		js[0], nullInt(a.ExpiresAt), nullStr(a.AgentID), nullStr(a.TeamID), nullStr(a.WorkflowID), nullStr(a.UserID),
		nullStr(a.ScheduleID), nullStr(a.ScheduleRunID), nullStr(a.SourceName), js[1], js[2], js[3], nullStr(a.ResolvedBy),
		nullInt(a.ResolvedAt), a.CreatedAt, nullInt(a.UpdatedAt), nullStr(a.RunStatus), a.RunVersion)
	if err != nil {
		return false, fmt.Errorf("approval: create %s: %w", a.ID, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

type scanner = sqldb.Row

func scan(row scanner) (*Approval, error) {
	var (
		a                                                                  Approval
		status, source, pause                                              string
		typ, tool, agent, team, wf, user, sched, schedRun, name, by, runSt sql.NullString
		args, reqs, ctxt, res                                              sql.NullString
		expires, resolvedAt, updated, runVersion                           sql.NullInt64
	)
	if err := row.Scan(&a.ID, &a.RunID, &a.SessionID, &status, &source, &typ, &pause, &tool, &args, &expires,
		&agent, &team, &wf, &user, &sched, &schedRun, &name, &reqs, &ctxt, &res, &by, &resolvedAt, &a.CreatedAt, &updated, &runSt, &runVersion); err != nil {
		return nil, err
	}
	a.Status, a.SourceType, a.PauseType, a.RunVersion = Status(status), source, pause, runVersion.Int64
	a.ApprovalType, a.ToolName = Type(typ.String), tool.String
	a.AgentID, a.TeamID, a.WorkflowID, a.UserID = agent.String, team.String, wf.String, user.String
	a.ScheduleID, a.ScheduleRunID, a.SourceName, a.ResolvedBy, a.RunStatus = sched.String, schedRun.String, name.String, by.String, runSt.String
	for _, p := range []struct {
		n   sql.NullInt64
		dst **int64
	}{{expires, &a.ExpiresAt}, {resolvedAt, &a.ResolvedAt}, {updated, &a.UpdatedAt}} {
		if p.n.Valid {
			v := p.n.Int64
			*p.dst = &v
		}
	}
	if args.Valid {
		if err := json.Unmarshal([]byte(args.String), &a.ToolArgs); err != nil {
			return nil, fmt.Errorf("approval %s: tool_args: %w", a.ID, err)
		}
	}
	if reqs.Valid && reqs.String != "null" {
		a.Requirements = json.RawMessage(reqs.String)
	}
	if ctxt.Valid {
		if err := json.Unmarshal([]byte(ctxt.String), &a.Context); err != nil {
			return nil, fmt.Errorf("approval %s: context: %w", a.ID, err)
		}
	}
	if res.Valid {
		if err := json.Unmarshal([]byte(res.String), &a.ResolutionData); err != nil {
			return nil, fmt.Errorf("approval %s: resolution_data: %w", a.ID, err)
		}
	}
	return &a, nil
}

// Get returns one approval, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*Approval, error) {
	a, err := scan(s.db.QueryRow(ctx, `SELECT `+columns+` FROM {t:agno_approvals} WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("approval: get %s: %w", id, err)
	}
	return a, nil
}

// Filter selects approvals (GET /approvals' query); zero fields select
// all. Limit 0 means no limit; Page counts from 1.
type Filter struct {
	Status       Status
	SourceType   string
	ApprovalType Type
	PauseType    string
	AgentID      string
	TeamID       string
	WorkflowID   string
	UserID       string
	ScheduleID   string
	RunID        string
	Limit        int
	Page         int
}

func (f Filter) where() (string, []any, []rowcount.Eq) {
	var conds []string
	var args []any
	var eqs []rowcount.Eq
	for _, c := range []struct{ col, v string }{
		{"status", string(f.Status)}, {"source_type", f.SourceType}, {"approval_type", string(f.ApprovalType)},
		{"pause_type", f.PauseType}, {"agent_id", f.AgentID}, {"team_id", f.TeamID}, {"workflow_id", f.WorkflowID},
		{"user_id", f.UserID}, {"schedule_id", f.ScheduleID}, {"run_id", f.RunID},
	} {
		if c.v != "" {
			conds = append(conds, c.col+" = ?")
			args = append(args, c.v)
			eqs = append(eqs, rowcount.Eq{Col: c.col, Val: c.v})
		}
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, eqs
}

// queries renders the count and page queries of f.
func (f Filter) queries() (count, list string, args []any, eqs []rowcount.Eq) {
	where, args, eqs := f.where()
	list = `SELECT ` + columns + ` FROM {t:agno_approvals}` + where + ` ORDER BY created_at DESC, id`
	if f.Limit > 0 {
		list += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, sqldb.Offset(f.Page, f.Limit))
	}
	return `SELECT COUNT(*) FROM {t:agno_approvals}` + where, list, args, eqs
}

// List returns a page of approvals, newest first, and how many match.
func (s *Store) List(ctx context.Context, f Filter) ([]*Approval, int, error) {
	count, q, args, eqs := f.queries()
	total, err := s.db.Count(ctx, Table, counted, eqs, count, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("approval: count: %w", err)
	}
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("approval: list: %w", err)
	}
	out, err := sqldb.Collect(rows, scan)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// CountPending counts pending approvals, of one user when userID is set.
func (s *Store) CountPending(ctx context.Context, userID string) (int, error) {
	count, _, args, eqs := Filter{Status: StatusPending, UserID: userID}.queries()
	n, err := s.db.Count(ctx, Table, counted, eqs, count, args...)
	if err != nil {
		return 0, fmt.Errorf("approval: count pending: %w", err)
	}
	return n, nil
}

// Resolution is a person's answer to a pending approval.
type Resolution struct {
	Status         Status // approved or rejected (or cancelled/expired)
	ResolvedBy     string
	ResolutionData map[string]any
	// At is the resolution time (epoch s); 0 is now.
	At int64
}

// Resolve moves a pending approval to r.Status and returns it: of
// concurrent resolves exactly one wins, the others get a *ConflictError
// with the status found. ErrNotFound when there is no such approval.
func (s *Store) Resolve(ctx context.Context, id string, r Resolution) (*Approval, error) {
	if r.Status == StatusPending || !r.Status.Valid() {
		return nil, fmt.Errorf("approval: cannot resolve %s to %q: use approved or rejected", id, r.Status)
	}
	if r.At == 0 {
		r.At = time.Now().Unix()
	}
	data, err := nullJSON(r.ResolutionData)
	if err != nil {
		return nil, fmt.Errorf("approval %s: resolution_data: %w", id, err)
	}
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_approvals}
		SET status = ?, resolved_by = ?, resolved_at = ?, resolution_data = COALESCE(?, resolution_data), updated_at = ?
		WHERE id = ? AND status = ?`,
		string(r.Status), nullStr(r.ResolvedBy), r.At, data, r.At, id, string(StatusPending))
	if err != nil {
		return nil, fmt.Errorf("approval: resolve %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, err
	}
	a, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &ConflictError{ID: id, Status: a.Status}
	}
	return a, nil
}

// Reopen undoes a resolution that took no effect (the run it would have
// continued was answered elsewhere first): the approval is pending again
// if it still carries that resolution (status and time).
func (s *Store) Reopen(ctx context.Context, id string, status Status, at int64) (bool, error) {
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_approvals}
		SET status = ?, resolved_by = NULL, resolved_at = NULL, resolution_data = NULL, updated_at = ?
		WHERE id = ? AND status = ? AND resolved_at = ?`,
		string(StatusPending), time.Now().Unix(), id, string(status), at)
	if err != nil {
		return false, fmt.Errorf("approval: reopen %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Delete removes an approval; false when there was none.
func (s *Store) Delete(ctx context.Context, id string) (bool, error) {
	res, err := s.db.Exec(ctx, `DELETE FROM {t:agno_approvals} WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("approval: delete %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// HasRun reports whether any approval belongs to runID (a cheap read
// before writing a run's status).
func (s *Store) HasRun(ctx context.Context, runID string) (bool, error) {
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM {t:agno_approvals} WHERE run_id = ? LIMIT 1`, runID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("approval: read run %s: %w", runID, err)
	}
	return true, nil
}

// SetRunStatus records a run's status on its approvals (agno's
// update_approval_run_status) and returns how many changed. version is
// the run row's version the status was read at: an older reading
// (arriving late) never overwrites a newer one.
func (s *Store) SetRunStatus(ctx context.Context, runID, status string, version int64) (int64, error) {
	res, err := s.db.Exec(ctx, `UPDATE {t:agno_approvals} SET run_status = ?, run_version = ?, updated_at = ?
		WHERE run_id = ? AND (run_version IS NULL OR run_version < ?)`, status, version, time.Now().Unix(), runID, version)
	if err != nil {
		return 0, fmt.Errorf("approval: set run status of %s: %w", runID, err)
	}
	return res.RowsAffected()
}

// Pending returns the pending approvals of a run.
func (s *Store) Pending(ctx context.Context, runID string) ([]*Approval, error) {
	out, _, err := s.List(ctx, Filter{RunID: runID, Status: StatusPending})
	return out, err
}
