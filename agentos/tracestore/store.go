// Package tracestore keeps finished OpenTelemetry spans in the AgentOS
// database, in agno's agno_traces and agno_spans tables: it is the span
// exporter AgentOS installs when tracing is on, and the queries behind
// the /traces routes.
package tracestore

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
	"github.com/agno-go/agno/storage/sqldb/dialect"
)

// Trace is one row of agno_traces with its span counts: one trace per
// trace id, named after its root span.
type Trace struct {
	TraceID    string
	Name       string
	Status     string // OK or ERROR (any span failed)
	StartTime  time.Time
	EndTime    time.Time
	DurationMS int64
	// Context of the root span; "" is NULL.
	RunID      string
	SessionID  string
	UserID     string
	AgentID    string
	TeamID     string
	WorkflowID string
	CreatedAt  time.Time
	TotalSpans int
	ErrorCount int
}

// Span is one row of agno_spans.
type Span struct {
	SpanID        string
	TraceID       string
	ParentSpanID  string // "" for a root span
	Name          string
	SpanKind      string // INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER
	StatusCode    string // UNSET, OK, ERROR
	StatusMessage string
	StartTime     time.Time
	EndTime       time.Time
	DurationMS    int64
	Attributes    map[string]any
	CreatedAt     time.Time
}

// SessionStats is agno's trace statistics of one session.
type SessionStats struct {
	SessionID    string
	UserID       string
	AgentID      string
	TeamID       string
	WorkflowID   string
	TotalTraces  int
	FirstTraceAt time.Time
	LastTraceAt  time.Time
}

// Store reads and writes the trace tables.
type Store struct{ db *sqldb.DB }

// timeLayout is how times are stored: ISO 8601 in UTC with a fixed
// fraction, so that the text columns sort and compare as times.
const timeLayout = "2006-01-02T15:04:05.000000+00:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// Migrations are the schema versions of this package's tables; the
// store applies them when it opens, /databases/{db_id}/migrate again.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	j := db.JSON()
	return []sqldb.Migration{
		{Table: "agno_traces", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_traces} (
				trace_id    TEXT PRIMARY KEY,
				name        TEXT NOT NULL,
				status      TEXT NOT NULL,
				start_time  TEXT NOT NULL,
				end_time    TEXT NOT NULL,
				duration_ms BIGINT NOT NULL,
				run_id      TEXT,
				session_id  TEXT,
				user_id     TEXT,
				agent_id    TEXT,
				team_id     TEXT,
				workflow_id TEXT,
				created_at  TEXT NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_run_id ON {t:agno_traces} (run_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_session_id ON {t:agno_traces} (session_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_user_id ON {t:agno_traces} (user_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_agent_id ON {t:agno_traces} (agent_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_team_id ON {t:agno_traces} (team_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_workflow_id ON {t:agno_traces} (workflow_id)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_status ON {t:agno_traces} (status)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_start_time ON {t:agno_traces} (start_time)`,
			`CREATE INDEX IF NOT EXISTS agno_traces_created_at ON {t:agno_traces} (created_at)`,
		}},
		{Table: "agno_spans", Version: 1, Stmts: []string{
			`CREATE TABLE IF NOT EXISTS {t:agno_spans} (
				span_id        TEXT PRIMARY KEY,
				trace_id       TEXT NOT NULL REFERENCES {t:agno_traces} (trace_id) ON DELETE CASCADE,
				parent_span_id TEXT,
				name           TEXT NOT NULL,
				span_kind      TEXT NOT NULL,
				status_code    TEXT NOT NULL,
				status_message TEXT,
				start_time     TEXT NOT NULL,
				end_time       TEXT NOT NULL,
				duration_ms    BIGINT NOT NULL,
				attributes     ` + j + `,
				created_at     TEXT NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS agno_spans_trace_id ON {t:agno_spans} (trace_id)`,
			`CREATE INDEX IF NOT EXISTS agno_spans_parent_span_id ON {t:agno_spans} (parent_span_id)`,
			`CREATE INDEX IF NOT EXISTS agno_spans_start_time ON {t:agno_spans} (start_time)`,
		}},
		{Table: "agno_traces", Version: 2, Stmts: []string{
			// The listing's order (start_time DESC, trace_id) ends the
			// indexes of all traces and of a user's (scoped callers), so
			// a page is read in order and stops there.
			`DROP INDEX IF EXISTS {t:agno_traces_start_time}`,
			`DROP INDEX IF EXISTS {t:agno_traces_user_id}`,
			`CREATE INDEX agno_traces_start_time ON {t:agno_traces} (start_time DESC, trace_id)`,
			`CREATE INDEX agno_traces_user_id ON {t:agno_traces} (user_id, start_time DESC, trace_id)`,
		}},
		db.Counts("agno_traces", countedTraces),
		{Table: "agno_trace_sessions", Version: 1, Stmts: sessionRollup(db.Dialect().Triggers())},
		db.Counts("agno_trace_sessions", countedSessions),
	}
}

// countedSessions counts the sessions with traces (GET /trace_session_stats'
// total_count).
var countedSessions = rowcount.Spec{Scopes: [][]string{{}}}

// sessionColumns are what SessionStats reports of a session, as the
// rollup keeps them and as grouping its traces computes them.
const sessionColumns = `session_id, user_id, agent_id, team_id, workflow_id, total_traces, first_trace_at, last_trace_at`

// sessionPage is a page of every session with traces, most recently
// traced first (LIMIT, OFFSET).
const sessionPage = `SELECT ` + sessionColumns + ` FROM {t:agno_trace_sessions} ORDER BY last_trace_at DESC, session_id LIMIT ? OFFSET ?`

// regroup is the rollup rows of the traces that where selects, by session.
const regroup = `SELECT session_id, MAX(user_id), MAX(agent_id), MAX(team_id), MAX(workflow_id), COUNT(*), MIN(created_at), MAX(created_at)
	FROM {t:agno_traces} WHERE `

// rollLock is the first key of the advisory locks on a session's rollup
// row ("agtr").
const rollLock = "1634169970"

// movedSessions are the sessions an UPDATE of traces moves a trace out of
// or into, or whose owner or times it changes: a trace's columns before
// (old_rows) and after (new_rows).
const movedSessions = `SELECT o.session_id FROM old_rows o JOIN new_rows n USING (trace_id)
		WHERE o.session_id IS NOT NULL AND (o.session_id, o.user_id, o.agent_id, o.team_id, o.workflow_id, o.created_at)
			IS DISTINCT FROM (n.session_id, n.user_id, n.agent_id, n.team_id, n.workflow_id, n.created_at)
	UNION SELECT n.session_id FROM old_rows o JOIN new_rows n USING (trace_id)
		WHERE n.session_id IS NOT NULL AND (o.session_id, o.user_id, o.agent_id, o.team_id, o.workflow_id, o.created_at)
			IS DISTINCT FROM (n.session_id, n.user_id, n.agent_id, n.team_id, n.workflow_id, n.created_at)`

// sessionRollup keeps agno_trace_sessions, one row per session with
// traces, as GET /trace_session_stats groups them, so its unfiltered
// page reads one page of the rollup in order instead of grouping every
// trace. A new trace widens its session's row; a trace deleted, or moved
// to another session or owner, has its sessions regrouped from their
// traces (through the session index). The rollup is kept by triggers in
// the database's form: statement triggers over transition tables, or row
// triggers.
func sessionRollup(triggers dialect.Triggers) []string {
	stmts := []string{`CREATE TABLE {t:agno_trace_sessions} (
			session_id     TEXT PRIMARY KEY,
			user_id        TEXT,
			agent_id       TEXT,
			team_id        TEXT,
			workflow_id    TEXT,
			total_traces   BIGINT NOT NULL,
			first_trace_at TEXT NOT NULL,
			last_trace_at  TEXT NOT NULL
		)`,
		`CREATE INDEX agno_trace_sessions_last_idx ON {t:agno_trace_sessions} (last_trace_at DESC, session_id)`,
	}
	if triggers == dialect.StatementTriggers {
		stmts = append(stmts,
			// A session's row is changed under a lock on the session, so a
			// regrouping (which reads the traces) and a widening never
			// interleave; sessions are locked in order.
			`CREATE FUNCTION {t:agno_trace_sessions_roll}() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF TG_OP = 'INSERT' THEN
					PERFORM pg_advisory_xact_lock(`+rollLock+`, hashtext(session_id))
						FROM (SELECT DISTINCT session_id FROM new_rows WHERE session_id IS NOT NULL ORDER BY session_id) s;
					INSERT INTO {t:agno_trace_sessions} AS s (`+sessionColumns+`)
						SELECT session_id, MAX(user_id), MAX(agent_id), MAX(team_id), MAX(workflow_id), COUNT(*), MIN(created_at), MAX(created_at)
						FROM new_rows WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY session_id
						ON CONFLICT (session_id) DO UPDATE SET user_id = GREATEST(s.user_id, excluded.user_id),
							agent_id = GREATEST(s.agent_id, excluded.agent_id), team_id = GREATEST(s.team_id, excluded.team_id),
							workflow_id = GREATEST(s.workflow_id, excluded.workflow_id), total_traces = s.total_traces + excluded.total_traces,
							first_trace_at = LEAST(s.first_trace_at, excluded.first_trace_at),
							last_trace_at = GREATEST(s.last_trace_at, excluded.last_trace_at);
				ELSIF TG_OP = 'DELETE' THEN
					PERFORM pg_advisory_xact_lock(`+rollLock+`, hashtext(session_id))
						FROM (SELECT DISTINCT session_id FROM old_rows WHERE session_id IS NOT NULL ORDER BY session_id) s;
					DELETE FROM {t:agno_trace_sessions} WHERE session_id IN (SELECT session_id FROM old_rows);
					INSERT INTO {t:agno_trace_sessions} (`+sessionColumns+`)
						`+regroup+`session_id IN (SELECT session_id FROM old_rows) GROUP BY session_id;
				ELSE
					PERFORM pg_advisory_xact_lock(`+rollLock+`, hashtext(session_id)) FROM (`+movedSessions+` ORDER BY 1) s;
					DELETE FROM {t:agno_trace_sessions} WHERE session_id IN (`+movedSessions+`);
					INSERT INTO {t:agno_trace_sessions} (`+sessionColumns+`)
						`+regroup+`session_id IN (`+movedSessions+`) GROUP BY session_id;
				END IF;
				RETURN NULL;
			END
			$$`,
			`CREATE TRIGGER agno_traces_rolled_ins AFTER INSERT ON {t:agno_traces}
				REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {t:agno_trace_sessions_roll}()`,
			`CREATE TRIGGER agno_traces_rolled_del AFTER DELETE ON {t:agno_traces}
				REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {t:agno_trace_sessions_roll}()`,
			`CREATE TRIGGER agno_traces_rolled_upd AFTER UPDATE ON {t:agno_traces}
				REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {t:agno_trace_sessions_roll}()`,
		)
	} else {
		// SQLite's scalar max() is NULL when one side is: keep the other.
		greatest := func(c string) string {
			return c + ` = CASE WHEN ` + c + ` IS NULL OR excluded.` + c + ` > ` + c + ` THEN excluded.` + c + ` ELSE ` + c + ` END`
		}
		regroupOf := func(sessions string) string {
			return `DELETE FROM {t:agno_trace_sessions} WHERE session_id IN (` + sessions + `);
				INSERT INTO {t:agno_trace_sessions} (` + sessionColumns + `) ` + regroup + `session_id IN (` + sessions + `) GROUP BY session_id;`
		}
		stmts = append(stmts,
			`CREATE TRIGGER agno_traces_rolled_ins AFTER INSERT ON {t:agno_traces} WHEN NEW.session_id IS NOT NULL BEGIN
				INSERT INTO {t:agno_trace_sessions} (`+sessionColumns+`)
					VALUES (NEW.session_id, NEW.user_id, NEW.agent_id, NEW.team_id, NEW.workflow_id, 1, NEW.created_at, NEW.created_at)
					ON CONFLICT (session_id) DO UPDATE SET `+greatest("user_id")+`, `+greatest("agent_id")+`, `+greatest("team_id")+`,
						`+greatest("workflow_id")+`, total_traces = total_traces + 1,
						first_trace_at = min(first_trace_at, excluded.first_trace_at), last_trace_at = max(last_trace_at, excluded.last_trace_at);
			END`,
			`CREATE TRIGGER agno_traces_rolled_del AFTER DELETE ON {t:agno_traces} WHEN OLD.session_id IS NOT NULL BEGIN
				`+regroupOf("OLD.session_id")+`
			END`,
			`CREATE TRIGGER agno_traces_rolled_upd AFTER UPDATE OF session_id, user_id, agent_id, team_id, workflow_id, created_at ON {t:agno_traces}
				WHEN OLD.session_id IS NOT NEW.session_id OR OLD.user_id IS NOT NEW.user_id OR OLD.agent_id IS NOT NEW.agent_id
					OR OLD.team_id IS NOT NEW.team_id OR OLD.workflow_id IS NOT NEW.workflow_id OR OLD.created_at IS NOT NEW.created_at BEGIN
				`+regroupOf("OLD.session_id, NEW.session_id")+`
			END`,
		)
	}
	return append(stmts, `INSERT INTO {t:agno_trace_sessions} (`+sessionColumns+`) `+regroup+`session_id IS NOT NULL GROUP BY session_id`)
}

// countedTraces are the filters whose total_count is kept: all traces, a
// session's, a user's, a component's.
var countedTraces = rowcount.Spec{Scopes: [][]string{{}, {"session_id"}, {"user_id"}, {"agent_id"}, {"team_id"}, {"workflow_id"}}}

// Open migrates the trace tables of db and returns the store.
func Open(ctx context.Context, db *sqldb.DB) (*Store, error) {
	if db == nil {
		return nil, errors.New("tracestore: a database is required")
	}
	if err := db.Migrate(ctx, Migrations(db)); err != nil {
		return nil, fmt.Errorf("tracestore: %w", err)
	}
	return &Store{db: db}, nil
}

// Write stores spans: a row each (a span stored before is kept), and the
// trace row of each trace they belong to, created or widened to cover
// them. A trace takes its name and context from its root span.
func (s *Store) Write(ctx context.Context, spans []Span) error {
	if len(spans) == 0 {
		return nil
	}
	byTrace := map[string][]Span{}
	var order []string
	for _, sp := range spans {
		if _, ok := byTrace[sp.TraceID]; !ok {
			order = append(order, sp.TraceID)
		}
		byTrace[sp.TraceID] = append(byTrace[sp.TraceID], sp)
	}
	return s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		for _, id := range order {
			if err := upsertTrace(ctx, tx, byTrace[id]); err != nil {
				return err
			}
			for _, sp := range byTrace[id] {
				if err := insertSpan(ctx, tx, sp); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// traceContext is agno's create_trace_from_spans context: the first of
// each attribute's aliases set on the root span.
func traceContext(attrs map[string]any) [6]string {
	pick := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := attrs[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	return [6]string{
		pick("run_id", "agno.run.id"),
		pick("session_id", "agno.session.id", "session.id"),
		pick("user_id", "agno.user.id", "user.id"),
		pick("agent_id", "agno.agent.id"),
		pick("team_id", "agno.team.id"),
		pick("workflow_id", "agno.workflow.id"),
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func upsertTrace(ctx context.Context, tx *sqldb.Tx, spans []Span) error {
	var root *Span
	start, end := spans[0].StartTime, spans[0].EndTime
	failed := false
	for i := range spans {
		sp := &spans[i]
		if sp.ParentSpanID == "" && root == nil {
			root = sp
		}
		if sp.StartTime.Before(start) {
			start = sp.StartTime
		}
		if sp.EndTime.After(end) {
			end = sp.EndTime
		}
		failed = failed || sp.StatusCode == "ERROR"
	}
	traceID := spans[0].TraceID
	var (
		name, status, startS, endS string
		cur                        [6]sql.NullString
	)
	err := tx.QueryRow(ctx, `SELECT name, status, start_time, end_time, run_id, session_id, user_id, agent_id, team_id, workflow_id
		FROM {t:agno_traces} WHERE trace_id = ?`, traceID).
		Scan(&name, &status, &startS, &endS, &cur[0], &cur[1], &cur[2], &cur[3], &cur[4], &cur[5])
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("tracestore: read trace %s: %w", traceID, err)
	}
	var ctxVals [6]string
	if exists {
		if t := parseTime(startS); !t.IsZero() && t.Before(start) {
			start = t
		}
		if t := parseTime(endS); t.After(end) {
			end = t
		}
		failed = failed || status == "ERROR"
		for i := range cur {
			ctxVals[i] = cur[i].String
		}
	} else {
		name = spans[0].Name
	}
	if root != nil {
		name = root.Name
		for i, v := range traceContext(root.Attributes) {
			if v != "" {
				ctxVals[i] = v
			}
		}
	}
	status = "OK"
	if failed {
		status = "ERROR"
	}
	args := []any{name, status, formatTime(start), formatTime(end), end.Sub(start).Milliseconds()}
	for _, v := range ctxVals {
		args = append(args, nullable(v))
	}
	if exists {
		_, err = tx.Exec(ctx, `UPDATE {t:agno_traces} SET name = ?, status = ?, start_time = ?, end_time = ?, duration_ms = ?,
			run_id = ?, session_id = ?, user_id = ?, agent_id = ?, team_id = ?, workflow_id = ? WHERE trace_id = ?`,
			append(args, traceID)...)
	} else {
		_, err = tx.Exec(ctx, `INSERT INTO {t:agno_traces} (name, status, start_time, end_time, duration_ms,
			run_id, session_id, user_id, agent_id, team_id, workflow_id, trace_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, traceID, formatTime(time.Now()))...)
	}
	if err != nil {
		return fmt.Errorf("tracestore: write trace %s: %w", traceID, err)
	}
	return nil
}

func insertSpan(ctx context.Context, tx *sqldb.Tx, sp Span) error {
	attrs, err := json.Marshal(sp.Attributes)
	if err != nil {
		return fmt.Errorf("tracestore: span %s attributes: %w", sp.SpanID, err)
	}
	created := sp.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	_, err = tx.Exec(ctx, `INSERT INTO {t:agno_spans} (span_id, trace_id, parent_span_id, name, span_kind, status_code,
		status_message, start_time, end_time, duration_ms, attributes, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (span_id) DO NOTHING`,
		sp.SpanID, sp.TraceID, nullable(sp.ParentSpanID), sp.Name, sp.SpanKind, sp.StatusCode, nullable(sp.StatusMessage),
		formatTime(sp.StartTime), formatTime(sp.EndTime), sp.DurationMS, string(attrs), formatTime(created))
	if err != nil {
		return fmt.Errorf("tracestore: write span %s: %w", sp.SpanID, err)
	}
	return nil
}

// Query selects traces: each set field must match (Start: started at or
// after; End: ended at or before), and Filter when given.
type Query struct {
	RunID, SessionID, UserID, AgentID, TeamID, WorkflowID, Status string
	Start, End                                                    time.Time
	Filter                                                        *Filter
	// Page is 1-based (0 is the first page too); Limit is the page size.
	Page, Limit int
}

func (q Query) where(timeCol string) (string, []any, []rowcount.Eq, error) {
	var conds []string
	var args []any
	var eqs []rowcount.Eq
	eq := func(col, v string) {
		if v != "" {
			conds = append(conds, col+" = ?")
			args = append(args, v)
			eqs = append(eqs, rowcount.Eq{Col: col, Val: v})
		}
	}
	eq("run_id", q.RunID)
	eq("session_id", q.SessionID)
	eq("user_id", q.UserID)
	eq("agent_id", q.AgentID)
	eq("team_id", q.TeamID)
	eq("workflow_id", q.WorkflowID)
	eq("status", q.Status)
	startCol, endCol := "start_time", "end_time"
	if timeCol != "" {
		startCol, endCol = timeCol, timeCol
	}
	if !q.Start.IsZero() || !q.End.IsZero() || q.Filter != nil {
		eqs = append(eqs, rowcount.Other)
	}
	if !q.Start.IsZero() {
		conds = append(conds, startCol+" >= ?")
		args = append(args, formatTime(q.Start))
	}
	if !q.End.IsZero() {
		conds = append(conds, endCol+" <= ?")
		args = append(args, formatTime(q.End))
	}
	if q.Filter != nil {
		c, a, err := q.Filter.sql()
		if err != nil {
			return "", nil, nil, err
		}
		conds = append(conds, c)
		args = append(args, a...)
	}
	if len(conds) == 0 {
		return "", nil, nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, eqs, nil
}

func (q Query) page() (limit, offset int) {
	limit = q.Limit
	if limit <= 0 {
		limit = 20
	}
	return limit, sqldb.Offset(q.Page, limit)
}

const traceColumns = `t.trace_id, t.name, t.status, t.start_time, t.end_time, t.duration_ms, t.run_id, t.session_id,
	t.user_id, t.agent_id, t.team_id, t.workflow_id, t.created_at,
	(SELECT COUNT(*) FROM {t:agno_spans} s WHERE s.trace_id = t.trace_id),
	(SELECT COUNT(*) FROM {t:agno_spans} s WHERE s.trace_id = t.trace_id AND s.status_code = 'ERROR')`

func scanTrace(sc sqldb.Row) (*Trace, error) {
	var t Trace
	var start, end, created string
	var ctx [6]sql.NullString
	if err := sc.Scan(&t.TraceID, &t.Name, &t.Status, &start, &end, &t.DurationMS, &ctx[0], &ctx[1], &ctx[2], &ctx[3],
		&ctx[4], &ctx[5], &created, &t.TotalSpans, &t.ErrorCount); err != nil {
		return nil, err
	}
	t.StartTime, t.EndTime, t.CreatedAt = parseTime(start), parseTime(end), parseTime(created)
	t.RunID, t.SessionID, t.UserID = ctx[0].String, ctx[1].String, ctx[2].String
	t.AgentID, t.TeamID, t.WorkflowID = ctx[3].String, ctx[4].String, ctx[5].String
	return &t, nil
}

// traceQueries renders the count and page queries of q; the page query
// takes LIMIT and OFFSET after args.
func (q Query) traceQueries() (count, list string, args []any, eqs []rowcount.Eq, err error) {
	where, args, eqs, err := q.where("")
	if err != nil {
		return "", "", nil, nil, err
	}
	return `SELECT COUNT(*) FROM {t:agno_traces} t` + where,
		`SELECT ` + traceColumns + ` FROM {t:agno_traces} t` + where + ` ORDER BY t.start_time DESC, t.trace_id LIMIT ? OFFSET ?`, args, eqs, nil
}

// Traces returns one page of the traces q selects, newest start first,
// and how many it selects in all. A bad filter is a *FilterError.
func (s *Store) Traces(ctx context.Context, q Query) ([]*Trace, int, error) {
	count, list, args, eqs, err := q.traceQueries()
	if err != nil {
		return nil, 0, err
	}
	total, err := s.db.Count(ctx, "agno_traces", countedTraces, eqs, count, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("tracestore: count traces: %w", err)
	}
	limit, offset := q.page()
	rows, err := s.db.Query(ctx, list, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("tracestore: list traces: %w", err)
	}
	out, err := sqldb.Collect(rows, scanTrace)
	if err != nil {
		return nil, 0, fmt.Errorf("tracestore: read trace: %w", err)
	}
	return out, total, nil
}

// Trace returns the trace with traceID, or with runID the latest trace of
// that run; nil when there is none.
func (s *Store) Trace(ctx context.Context, traceID, runID string) (*Trace, error) {
	col, v := "t.trace_id", traceID
	if traceID == "" {
		col, v = "t.run_id", runID
	}
	t, err := scanTrace(s.db.QueryRow(ctx, `SELECT `+traceColumns+` FROM {t:agno_traces} t WHERE `+col+` = ?
		ORDER BY t.start_time DESC LIMIT 1`, v))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tracestore: read trace: %w", err)
	}
	return t, nil
}

const spanColumns = `span_id, trace_id, parent_span_id, name, span_kind, status_code, status_message,
	start_time, end_time, duration_ms, attributes, created_at`

func scanSpan(sc sqldb.Row) (*Span, error) {
	var sp Span
	var parent, msg sql.NullString
	var start, end, created string
	var attrs []byte
	if err := sc.Scan(&sp.SpanID, &sp.TraceID, &parent, &sp.Name, &sp.SpanKind, &sp.StatusCode, &msg,
		&start, &end, &sp.DurationMS, &attrs, &created); err != nil {
		return nil, err
	}
	sp.ParentSpanID, sp.StatusMessage = parent.String, msg.String
	sp.StartTime, sp.EndTime, sp.CreatedAt = parseTime(start), parseTime(end), parseTime(created)
	if len(attrs) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(attrs)))
		dec.UseNumber()
		if err := dec.Decode(&sp.Attributes); err != nil {
			return nil, fmt.Errorf("span %s attributes: %w", sp.SpanID, err)
		}
	}
	if sp.Attributes == nil {
		sp.Attributes = map[string]any{}
	}
	return &sp, nil
}

// Spans returns the spans of a trace in start order.
func (s *Store) Spans(ctx context.Context, traceID string) ([]*Span, error) {
	rows, err := s.db.Query(ctx, `SELECT `+spanColumns+` FROM {t:agno_spans} WHERE trace_id = ? ORDER BY start_time, span_id`, traceID)
	if err != nil {
		return nil, fmt.Errorf("tracestore: list spans: %w", err)
	}
	out, err := sqldb.Collect(rows, scanSpan)
	if err != nil {
		return nil, fmt.Errorf("tracestore: read span: %w", err)
	}
	return out, nil
}

// Span returns one span; nil when there is none.
func (s *Store) Span(ctx context.Context, spanID string) (*Span, error) {
	sp, err := scanSpan(s.db.QueryRow(ctx, `SELECT `+spanColumns+` FROM {t:agno_spans} WHERE span_id = ?`, spanID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tracestore: read span: %w", err)
	}
	return sp, nil
}

// SessionStats groups the traces q selects by session (traces without a
// session are left out), most recently traced session first; Start and
// End bound created_at, as agno's do.
func (s *Store) SessionStats(ctx context.Context, q Query) ([]*SessionStats, int, error) {
	where, args, _, err := q.where("created_at")
	if err != nil {
		return nil, 0, err
	}
	limit, offset := q.page()
	var total int
	var rows *sql.Rows
	if where == "" {
		// Every session: one page of the rollup, in its index's order.
		if total, err = s.db.Count(ctx, "agno_trace_sessions", countedSessions, nil, `SELECT COUNT(*) FROM {t:agno_trace_sessions}`); err != nil {
			return nil, 0, fmt.Errorf("tracestore: count sessions: %w", err)
		}
		rows, err = s.db.Query(ctx, sessionPage, limit, offset)
	} else {
		group := regroup + strings.TrimPrefix(where, " WHERE ") + ` AND session_id IS NOT NULL GROUP BY session_id`
		if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM (`+group+`) g`, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("tracestore: count sessions: %w", err)
		}
		rows, err = s.db.Query(ctx, group+` ORDER BY MAX(created_at) DESC, session_id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("tracestore: session stats: %w", err)
	}
	defer rows.Close()
	var out []*SessionStats
	for rows.Next() {
		var st SessionStats
		var ids [4]sql.NullString
		var first, last string
		if err := rows.Scan(&st.SessionID, &ids[0], &ids[1], &ids[2], &ids[3], &st.TotalTraces, &first, &last); err != nil {
			return nil, 0, fmt.Errorf("tracestore: read session stats: %w", err)
		}
		st.UserID, st.AgentID, st.TeamID, st.WorkflowID = ids[0].String, ids[1].String, ids[2].String, ids[3].String
		st.FirstTraceAt, st.LastTraceAt = parseTime(first), parseTime(last)
		out = append(out, &st)
	}
	return out, total, rows.Err()
}
