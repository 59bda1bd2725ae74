package schedule

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agno-go/agno/storage/rowcount"
	"github.com/agno-go/agno/storage/sqldb"
)

// Store keeps schedules and their runs in a control-plane database.
type Store struct {
	db *sqldb.DB
}

// Migrations are the schema versions of this package's tables; the
// store applies them when it opens, /databases/{db_id}/migrate again.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	js := db.JSON()
	return []sqldb.Migration{
		{Table: "agno_schedules", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_schedules} (
				id                  TEXT PRIMARY KEY,
				name                TEXT NOT NULL,
				description         TEXT,
				method              TEXT NOT NULL,
				endpoint            TEXT NOT NULL,
				payload             ` + js + `,
				cron_expr           TEXT NOT NULL,
				timezone            TEXT NOT NULL,
				timeout_seconds     BIGINT NOT NULL,
				max_retries         BIGINT NOT NULL,
				retry_delay_seconds BIGINT NOT NULL,
				enabled             BOOLEAN NOT NULL DEFAULT TRUE,
				next_run_at         BIGINT,
				locked_by           TEXT,
				locked_at           BIGINT,
				created_at          BIGINT NOT NULL,
				updated_at          BIGINT
			)`,
			`CREATE UNIQUE INDEX IF NOT EXISTS idx_agno_schedules_name ON {t:agno_schedules} (name)`,
			`CREATE INDEX IF NOT EXISTS idx_agno_schedules_enabled_next_run_at ON {t:agno_schedules} (enabled, next_run_at)`,
			`CREATE INDEX IF NOT EXISTS idx_agno_schedules_created_at ON {t:agno_schedules} (created_at)`,
		}},
		// Version 2: who a schedule belongs to and fires as.
		{Table: "agno_schedules", Version: 2, Stmts: []string{
			`ALTER TABLE {t:agno_schedules} ADD COLUMN created_by TEXT`,
			`ALTER TABLE {t:agno_schedules} ADD COLUMN principal ` + js,
			`CREATE INDEX IF NOT EXISTS idx_agno_schedules_created_by ON {t:agno_schedules} (created_by)`,
		}},
		{Table: "agno_schedule_runs", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_schedule_runs} (
				id           TEXT PRIMARY KEY,
				schedule_id  TEXT NOT NULL REFERENCES {t:agno_schedules} (id) ON DELETE CASCADE,
				attempt      BIGINT NOT NULL,
				triggered_at BIGINT,
				completed_at BIGINT,
				status       TEXT NOT NULL,
				status_code  BIGINT,
				run_id       TEXT,
				session_id   TEXT,
				error        TEXT,
				input        ` + js + `,
				output       ` + js + `,
				requirements ` + js + `,
				created_at   BIGINT NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS idx_agno_schedule_runs_schedule_id ON {t:agno_schedule_runs} (schedule_id, created_at)`,
			`CREATE INDEX IF NOT EXISTS idx_agno_schedule_runs_status ON {t:agno_schedule_runs} (status)`,
		}},
		// The listings' orders end their indexes (all schedules, an
		// owner's, a schedule's runs), so a page is read in order and
		// stops there.
		{Table: "agno_schedules", Version: 3, Stmts: []string{
			`DROP INDEX IF EXISTS {t:idx_agno_schedules_created_at}`,
			`DROP INDEX IF EXISTS {t:idx_agno_schedules_created_by}`,
			`CREATE INDEX idx_agno_schedules_created_at ON {t:agno_schedules} (created_at DESC, id)`,
			`CREATE INDEX idx_agno_schedules_created_by ON {t:agno_schedules} (created_by, created_at DESC, id)`,
		}},
		{Table: "agno_schedule_runs", Version: 2, Stmts: []string{
			`DROP INDEX IF EXISTS {t:idx_agno_schedule_runs_schedule_id}`,
			`CREATE INDEX idx_agno_schedule_runs_schedule_id ON {t:agno_schedule_runs} (schedule_id, created_at DESC, attempt DESC, id)`,
		}},
		db.Counts("agno_schedules", countedSchedules),
		db.Counts("agno_schedule_runs", countedRuns),
	}
}

// The filters whose total_count is kept: all schedules, enabled or not,
// an owner's, both; a schedule's runs.
var (
	countedSchedules = rowcount.Spec{Scopes: [][]string{{}, {"enabled"}, {"created_by"}, {"enabled", "created_by"}}}
	countedRuns      = rowcount.Spec{Scopes: [][]string{{"schedule_id"}}}
)

// NewStore migrates db's schedule tables and returns the store.
func NewStore(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("schedule: NewStore needs a database")
	}
	if err := db.Migrate(ctx, Migrations(db)); err != nil {
		return nil, fmt.Errorf("schedule: migrate: %w", err)
	}
	return &Store{db: db}, nil
}

const scheduleColumns = `id, name, description, method, endpoint, payload, cron_expr, timezone, timeout_seconds, max_retries,
	retry_delay_seconds, enabled, next_run_at, locked_by, locked_at, created_at, updated_at, created_by, principal`

type scanner = sqldb.Row

func scanSchedule(row scanner) (*Schedule, error) {
	var s Schedule
	var desc, payload, lockedBy, createdBy, principal sql.NullString
	var next, lockedAt, updated sql.NullInt64
	if err := row.Scan(&s.ID, &s.Name, &desc, &s.Method, &s.Endpoint, &payload, &s.CronExpr, &s.Timezone,
		&s.TimeoutSeconds, &s.MaxRetries, &s.RetryDelaySeconds, &s.Enabled, &next, &lockedBy, &lockedAt,
		&s.CreatedAt, &updated, &createdBy, &principal); err != nil {
		return nil, err
	}
	s.CreatedBy = createdBy.String
	if principal.Valid {
		s.Principal = json.RawMessage(principal.String)
	}
	s.Description, s.LockedBy = nullString(desc), nullString(lockedBy)
	s.NextRunAt, s.LockedAt, s.UpdatedAt = nullInt(next), nullInt(lockedAt), nullInt(updated)
	if payload.Valid {
		if err := decodeJSON(payload.String, &s.Payload); err != nil {
			return nil, fmt.Errorf("schedule %s: payload: %w", s.ID, err)
		}
	}
	return &s, nil
}

func nullString(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}

// decodeJSON keeps numbers exact (json.Number): a payload's integers
// reach the run form as written.
func decodeJSON(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	return d.Decode(v)
}

// jsonArg is a JSON column's argument: NULL for nil.
func jsonArg(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		if x == nil {
			return nil, nil
		}
	case []map[string]any:
		if x == nil {
			return nil, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// New fills a schedule's defaults, checks its cron expression and
// timezone and computes its next run after now. It does not store it.
func New(s Schedule, now time.Time) (*Schedule, error) {
	if s.ID == "" {
		s.ID = uuid.NewString()
	}
	if s.Method == "" {
		s.Method = DefaultMethod
	}
	s.Method = strings.ToUpper(s.Method)
	if s.Timezone == "" {
		s.Timezone = DefaultTimezone
	}
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if s.RetryDelaySeconds == 0 {
		s.RetryDelaySeconds = DefaultRetryDelaySeconds
	}
	next, err := NextRun(s.CronExpr, s.Timezone, now)
	if err != nil {
		return nil, err
	}
	s.Enabled, s.NextRunAt, s.LockedBy, s.LockedAt = true, &next, nil, nil
	s.CreatedAt, s.UpdatedAt = now.Unix(), nil
	return &s, nil
}

// Create stores a schedule built by New; ErrNameTaken when its name is
// another's.
func (st *Store) Create(ctx context.Context, s *Schedule) error {
	payload, err := jsonArg(s.Payload)
	if err != nil {
		return fmt.Errorf("schedule: payload: %w", err)
	}
	_, err = st.db.Exec(ctx, `INSERT INTO {t:agno_schedules} (`+scheduleColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Name, s.Description, s.Method, s.Endpoint, payload, s.CronExpr, s.Timezone, s.TimeoutSeconds, s.MaxRetries,
		s.RetryDelaySeconds, s.Enabled, s.NextRunAt, s.LockedBy, s.LockedAt, s.CreatedAt, s.UpdatedAt, s.CreatedBy, principalArg(s.Principal))
	return nameConflict(err)
}

// principalArg is the principal column's argument: NULL when none.
func principalArg(p json.RawMessage) any {
	if len(p) == 0 {
		return nil
	}
	return string(p)
}

func nameConflict(err error) error {
	if errors.Is(err, sqldb.ErrConflict) {
		return fmt.Errorf("%w: %v", ErrNameTaken, err)
	}
	return err
}

// Get returns a schedule; ErrNotFound when there is none.
func (st *Store) Get(ctx context.Context, id string) (*Schedule, error) {
	return st.one(ctx, st.db, `WHERE id = ?`, id)
}

// GetByName returns the schedule named name; ErrNotFound when there is
// none.
func (st *Store) GetByName(ctx context.Context, name string) (*Schedule, error) {
	return st.one(ctx, st.db, `WHERE name = ?`, name)
}

type rowQuerier interface {
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

func (st *Store) one(ctx context.Context, q rowQuerier, where string, args ...any) (*Schedule, error) {
	s, err := scanSchedule(q.QueryRow(ctx, `SELECT `+scheduleColumns+` FROM {t:agno_schedules} `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return s, err
}

// ListOptions filter and page List.
type ListOptions struct {
	// Enabled, when set, keeps the enabled (or the disabled) schedules.
	Enabled *bool
	// CreatedBy, when set, keeps the schedules of that owner.
	CreatedBy *string
	// Limit (default 100) and Page (from 1) page the list, newest first.
	Limit, Page int
}

func paging(limit, page int) (int, int) {
	if limit <= 0 {
		limit = 100
	}
	if page <= 0 {
		page = 1
	}
	return limit, sqldb.Offset(page, limit) // saturates: a far page is empty, not the first
}

// queries renders the count and page queries of o; the page query takes
// LIMIT and OFFSET after args.
func (o ListOptions) queries() (count, list string, args []any, eqs []rowcount.Eq) {
	var conds []string
	if o.Enabled != nil {
		conds, args = append(conds, `enabled = ?`), append(args, *o.Enabled)
		eqs = append(eqs, rowcount.Eq{Col: "enabled", Val: *o.Enabled})
	}
	if o.CreatedBy != nil {
		conds, args = append(conds, `created_by = ?`), append(args, *o.CreatedBy)
		eqs = append(eqs, rowcount.Eq{Col: "created_by", Val: *o.CreatedBy})
	}
	where := ""
	if len(conds) > 0 {
		where = `WHERE ` + strings.Join(conds, ` AND `)
	}
	return `SELECT COUNT(*) FROM {t:agno_schedules} ` + where,
		`SELECT ` + scheduleColumns + ` FROM {t:agno_schedules} ` + where + ` ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, args, eqs
}

// List returns a page of schedules, newest first, and how many match.
func (st *Store) List(ctx context.Context, o ListOptions) ([]*Schedule, int, error) {
	count, list, args, eqs := o.queries()
	total, err := st.db.Count(ctx, "agno_schedules", countedSchedules, eqs, count, args...)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := paging(o.Limit, o.Page)
	rows, err := st.db.Query(ctx, list, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	out, err := sqldb.Collect(rows, scanSchedule)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Patch is a change to a schedule: the fields set change. Description and
// Payload may be set to nil (cleared).
type Patch struct {
	Name, Method, Endpoint, CronExpr, Timezone    *string
	Description                                   **string
	Payload                                       *map[string]any
	TimeoutSeconds, MaxRetries, RetryDelaySeconds *int
	// Principal, when set, is who the schedule fires as from now on: the
	// caller making the change.
	Principal json.RawMessage
}

// IsZero reports a patch that changes nothing.
func (p Patch) IsZero() bool {
	return p.Name == nil && p.Method == nil && p.Endpoint == nil && p.CronExpr == nil && p.Timezone == nil &&
		p.Description == nil && p.Payload == nil && p.TimeoutSeconds == nil && p.MaxRetries == nil &&
		p.RetryDelaySeconds == nil && p.Principal == nil
}

// Update applies p at now: a new cron expression or timezone is checked
// and, for an enabled schedule, moves next_run_at (agno's PATCH). It
// returns the schedule; ErrNotFound, ErrNameTaken, ErrInvalidCron or
// ErrInvalidTimezone otherwise, with nothing changed.
func (st *Store) Update(ctx context.Context, id string, p Patch, now time.Time) (*Schedule, error) {
	var out *Schedule
	err := st.db.InTx(ctx, func(tx *sqldb.Tx) error {
		s, err := st.one(ctx, tx, `WHERE id = ?`, id)
		if err != nil || p.IsZero() {
			out = s
			return err
		}
		set := func(v *string, dst *string) {
			if v != nil {
				*dst = *v
			}
		}
		set(p.Name, &s.Name)
		set(p.Endpoint, &s.Endpoint)
		set(p.CronExpr, &s.CronExpr)
		set(p.Timezone, &s.Timezone)
		if p.Method != nil {
			s.Method = strings.ToUpper(*p.Method)
		}
		if p.Description != nil {
			s.Description = *p.Description
		}
		if p.Payload != nil {
			s.Payload = *p.Payload
		}
		if p.Principal != nil {
			s.Principal = p.Principal
		}
		for _, f := range []struct {
			v   *int
			dst *int
		}{{p.TimeoutSeconds, &s.TimeoutSeconds}, {p.MaxRetries, &s.MaxRetries}, {p.RetryDelaySeconds, &s.RetryDelaySeconds}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		if p.CronExpr != nil || p.Timezone != nil {
			next, err := NextRun(s.CronExpr, s.Timezone, now)
			if err != nil {
				return err
			}
			if s.Enabled {
				s.NextRunAt = &next
			}
		}
		u := now.Unix()
		s.UpdatedAt = &u
		payload, err := jsonArg(s.Payload)
		if err != nil {
			return fmt.Errorf("schedule: payload: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE {t:agno_schedules} SET name = ?, description = ?, method = ?, endpoint = ?, payload = ?,
			cron_expr = ?, timezone = ?, timeout_seconds = ?, max_retries = ?, retry_delay_seconds = ?, next_run_at = ?, updated_at = ?,
			principal = ? WHERE id = ?`,
			s.Name, s.Description, s.Method, s.Endpoint, payload, s.CronExpr, s.Timezone, s.TimeoutSeconds, s.MaxRetries,
			s.RetryDelaySeconds, s.NextRunAt, s.UpdatedAt, principalArg(s.Principal), id)
		if err != nil {
			return nameConflict(err)
		}
		out = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetEnabled enables or disables a schedule at now; enabling computes its
// next run after now (agno's enable and disable). A principal, when
// given, is who the schedule fires as from now on (the caller enabling
// it).
func (st *Store) SetEnabled(ctx context.Context, id string, enabled bool, principal json.RawMessage, now time.Time) (*Schedule, error) {
	var out *Schedule
	err := st.db.InTx(ctx, func(tx *sqldb.Tx) error {
		s, err := st.one(ctx, tx, `WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if enabled {
			next, err := NextRun(s.CronExpr, s.Timezone, now)
			if err != nil {
				return err
			}
			s.NextRunAt = &next
		}
		u := now.Unix()
		s.Enabled, s.UpdatedAt = enabled, &u
		if principal != nil {
			s.Principal = principal
		}
		if _, err := tx.Exec(ctx, `UPDATE {t:agno_schedules} SET enabled = ?, next_run_at = ?, updated_at = ?, principal = ? WHERE id = ?`,
			s.Enabled, s.NextRunAt, s.UpdatedAt, principalArg(s.Principal), id); err != nil {
			return err
		}
		out = s
		return nil
	})
	return out, err
}

// Delete removes a schedule and, by the foreign key, its runs; false when
// there was none.
func (st *Store) Delete(ctx context.Context, id string) (bool, error) {
	res, err := st.db.Exec(ctx, `DELETE FROM {t:agno_schedules} WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ClaimDue claims one enabled schedule due at now for instance, or
// returns nil when none is due: it takes the row's lease (locked_by,
// locked_at) and moves next_run_at to the cron's next time after now, in
// one UPDATE conditioned on the row still being enabled, due and free (or
// its lease older than lease). Replicas racing for a schedule each run
// that UPDATE; the database serialises them on the row (SQLite's write
// lock; Postgres re-checks the WHERE on the row a committed rival
// changed), so one sees a due row and the others see next_run_at in the
// future: each due time is claimed once. Release ends the lease, Renew
// extends it while the firing runs.
func (st *Store) ClaimDue(ctx context.Context, instance string, now time.Time, lease time.Duration) (*Schedule, error) {
	if instance == "" {
		return nil, errors.New("schedule: ClaimDue needs an instance id")
	}
	at, stale := now.Unix(), now.Add(-lease).Unix()
	for range 8 { // a lost race re-reads the due rows
		type candidate struct {
			id, cron, tz string
		}
		rows, err := st.db.Query(ctx, `SELECT id, cron_expr, timezone FROM {t:agno_schedules}
			WHERE enabled = ? AND next_run_at IS NOT NULL AND next_run_at <= ? AND (locked_by IS NULL OR locked_at < ?)
			ORDER BY next_run_at, id LIMIT 8`, true, at, stale)
		if err != nil {
			return nil, err
		}
		var cs []candidate
		for rows.Next() {
			var c candidate
			if err := rows.Scan(&c.id, &c.cron, &c.tz); err != nil {
				rows.Close()
				return nil, err
			}
			cs = append(cs, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(cs) == 0 {
			return nil, nil
		}
		for _, c := range cs {
			next, err := NextRun(c.cron, c.tz, now)
			if err != nil {
				// Stored before a check tightened: it can never fire, so
				// it stops being due (agno disables it too).
				_, _ = st.db.Exec(ctx, `UPDATE {t:agno_schedules} SET enabled = ?, updated_at = ? WHERE id = ? AND cron_expr = ? AND timezone = ?`,
					false, at, c.id, c.cron, c.tz)
				continue
			}
			res, err := st.db.Exec(ctx, `UPDATE {t:agno_schedules} SET locked_by = ?, locked_at = ?, next_run_at = ?
				WHERE id = ? AND enabled = ? AND next_run_at IS NOT NULL AND next_run_at <= ? AND (locked_by IS NULL OR locked_at < ?)
				AND cron_expr = ? AND timezone = ?`,
				instance, at, next, c.id, true, at, stale, c.cron, c.tz)
			if err != nil {
				return nil, err
			}
			if n, err := res.RowsAffected(); err != nil {
				return nil, err
			} else if n == 1 {
				return st.Get(ctx, c.id)
			}
		}
	}
	return nil, nil
}

// Renew extends instance's lease on a schedule to now; false when the
// lease is no longer its own.
func (st *Store) Renew(ctx context.Context, id, instance string, now time.Time) (bool, error) {
	res, err := st.db.Exec(ctx, `UPDATE {t:agno_schedules} SET locked_at = ? WHERE id = ? AND locked_by = ?`, now.Unix(), id, instance)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Release ends instance's lease on a schedule (agno's release_schedule;
// next_run_at moved at the claim).
func (st *Store) Release(ctx context.Context, id, instance string) error {
	_, err := st.db.Exec(ctx, `UPDATE {t:agno_schedules} SET locked_by = NULL, locked_at = NULL WHERE id = ? AND locked_by = ?`, id, instance)
	return err
}

// ---- runs ----

const runColumns = `id, schedule_id, attempt, triggered_at, completed_at, status, status_code, run_id, session_id, error,
	input, output, requirements, created_at`

func scanRun(row scanner) (*Run, error) {
	var r Run
	var triggered, completed, code sql.NullInt64
	var runID, sessionID, errText, input, output, reqs sql.NullString
	if err := row.Scan(&r.ID, &r.ScheduleID, &r.Attempt, &triggered, &completed, &r.Status, &code, &runID, &sessionID,
		&errText, &input, &output, &reqs, &r.CreatedAt); err != nil {
		return nil, err
	}
	r.TriggeredAt, r.CompletedAt = nullInt(triggered), nullInt(completed)
	if code.Valid {
		c := int(code.Int64)
		r.StatusCode = &c
	}
	r.RunID, r.SessionID, r.Error = nullString(runID), nullString(sessionID), nullString(errText)
	for _, f := range []struct {
		v   sql.NullString
		dst any
	}{{input, &r.Input}, {output, &r.Output}, {reqs, &r.Requirements}} {
		if f.v.Valid {
			if err := decodeJSON(f.v.String, f.dst); err != nil {
				return nil, fmt.Errorf("schedule run %s: %w", r.ID, err)
			}
		}
	}
	return &r, nil
}

func (r *Run) args() ([]any, error) {
	input, err := jsonArg(r.Input)
	if err != nil {
		return nil, err
	}
	output, err := jsonArg(r.Output)
	if err != nil {
		return nil, err
	}
	reqs, err := jsonArg(r.Requirements)
	if err != nil {
		return nil, err
	}
	return []any{r.TriggeredAt, r.CompletedAt, r.Status, r.StatusCode, r.RunID, r.SessionID, r.Error, input, output, reqs}, nil
}

// CreateRun stores a run (an id is made when it has none).
func (st *Store) CreateRun(ctx context.Context, r *Run) error {
	if r.ID == "" {
		r.ID = uuid.NewString()
	}
	args, err := r.args()
	if err != nil {
		return fmt.Errorf("schedule run: %w", err)
	}
	args = append([]any{r.ID, r.ScheduleID, r.Attempt}, append(args, r.CreatedAt)...)
	_, err = st.db.Exec(ctx, `INSERT INTO {t:agno_schedule_runs} (`+runColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	return err
}

// UpdateRun stores a run's outcome (every field but its id, schedule,
// attempt and creation time).
func (st *Store) UpdateRun(ctx context.Context, r *Run) error {
	args, err := r.args()
	if err != nil {
		return fmt.Errorf("schedule run: %w", err)
	}
	_, err = st.db.Exec(ctx, `UPDATE {t:agno_schedule_runs} SET triggered_at = ?, completed_at = ?, status = ?, status_code = ?,
		run_id = ?, session_id = ?, error = ?, input = ?, output = ?, requirements = ? WHERE id = ?`, append(args, r.ID)...)
	return err
}

// GetRun returns a run; ErrNotFound when there is none.
func (st *Store) GetRun(ctx context.Context, id string) (*Run, error) {
	r, err := scanRun(st.db.QueryRow(ctx, `SELECT `+runColumns+` FROM {t:agno_schedule_runs} WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// listRuns is the page query of a schedule's runs (schedule_id, LIMIT,
// OFFSET).
const listRuns = `SELECT ` + runColumns + ` FROM {t:agno_schedule_runs} WHERE schedule_id = ?
	ORDER BY created_at DESC, attempt DESC, id LIMIT ? OFFSET ?`

// ListRuns returns a page of a schedule's runs, newest first, and how
// many it has.
func (st *Store) ListRuns(ctx context.Context, scheduleID string, limit, page int) ([]*Run, int, error) {
	total, err := st.db.Count(ctx, "agno_schedule_runs", countedRuns, []rowcount.Eq{{Col: "schedule_id", Val: scheduleID}},
		`SELECT COUNT(*) FROM {t:agno_schedule_runs} WHERE schedule_id = ?`, scheduleID)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := paging(limit, page)
	rows, err := st.db.Query(ctx, listRuns, scheduleID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := sqldb.Collect(rows, scanRun)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}
