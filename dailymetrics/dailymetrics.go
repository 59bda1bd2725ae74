// Package dailymetrics keeps agno's daily usage metrics (agno_metrics):
// for each UTC day, the sessions created that day by type, their runs,
// their users, their token totals and their runs per model. The figures
// are computed from the stored sessions and runs, as agno's
// calculate_metrics does, and upserted once per (date,
// aggregation_period), so a refresh run by any replica, any number of
// times, leaves the same rows.
package dailymetrics

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
)

// Table is agno's metrics table.
const Table = "agno_metrics"

// Daily is the aggregation period of every row (agno computes no other).
const Daily = "daily"

// Day is one row of agno_metrics: the aggregates of the sessions created
// on one UTC day.
type Day struct {
	ID string
	// Date is the day, at 00:00 UTC.
	Date              time.Time
	AggregationPeriod string

	AgentRunsCount        int
	AgentSessionsCount    int
	TeamRunsCount         int
	TeamSessionsCount     int
	WorkflowRunsCount     int
	WorkflowSessionsCount int
	UsersCount            int
	TokenMetrics          TokenMetrics
	ModelMetrics          []ModelCount

	// Completed marks a day that was over when it was computed: refreshes
	// start after the last completed day.
	Completed bool
	// CreatedAt is when the day was first computed, UpdatedAt when last
	// (epoch s).
	CreatedAt int64
	UpdatedAt int64
}

// TokenMetrics are a day's token totals, with agno's keys in agno's order.
// The audio counts stay 0: no model here reports audio tokens.
type TokenMetrics struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	TotalTokens       int `json:"total_tokens"`
	AudioTotalTokens  int `json:"audio_total_tokens"`
	AudioInputTokens  int `json:"audio_input_tokens"`
	AudioOutputTokens int `json:"audio_output_tokens"`
	CacheReadTokens   int `json:"cache_read_tokens"`
	CacheWriteTokens  int `json:"cache_write_tokens"`
	ReasoningTokens   int `json:"reasoning_tokens"`
}

func (t *TokenMetrics) add(m *run.Metrics) {
	if m == nil {
		return
	}
	t.InputTokens += m.InputTokens
	t.OutputTokens += m.OutputTokens
	t.TotalTokens += m.TotalTokens
	t.CacheReadTokens += m.CacheReadTokens
	t.CacheWriteTokens += m.CacheWriteTokens
	t.ReasoningTokens += m.ReasoningTokens
}

// ModelCount is how many runs of a day one model served.
type ModelCount struct {
	ModelID       string `json:"model_id"`
	ModelProvider string `json:"model_provider"`
	Count         int    `json:"count"`
}

// Config configures a Store.
type Config struct {
	// DB holds agno_metrics.
	DB *sqldb.DB
	// Sessions is the store whose sessions and runs are counted.
	Sessions storage.Store
	// Now is the clock (default time.Now); it decides which day is today.
	Now func() time.Time
}

// Store computes and keeps the daily metrics. It is safe for concurrent
// use, and for several processes sharing the database.
type Store struct {
	db       *sqldb.DB
	sessions storage.Store
	now      func() time.Time
	// refresh runs one refresh at a time in this process; others wait
	// and then compute again, from what is stored by then.
	refresh sync.Mutex
}

// Migrations are the schema versions of this package's tables; the
// store applies them when it opens, /databases/{db_id}/migrate again.
func Migrations(db *sqldb.DB) []sqldb.Migration {
	dateType := db.Dialect().Date() // SQLite: TEXT 'YYYY-MM-DD', as SQLAlchemy stores a Date
	j := db.JSON()
	return []sqldb.Migration{{Table: Table, Version: 1, Stmts: []string{`CREATE TABLE IF NOT EXISTS {t:agno_metrics} (
		id                      TEXT PRIMARY KEY,
		agent_runs_count        BIGINT NOT NULL DEFAULT 0,
		team_runs_count         BIGINT NOT NULL DEFAULT 0,
		workflow_runs_count     BIGINT NOT NULL DEFAULT 0,
		agent_sessions_count    BIGINT NOT NULL DEFAULT 0,
		team_sessions_count     BIGINT NOT NULL DEFAULT 0,
		workflow_sessions_count BIGINT NOT NULL DEFAULT 0,
		users_count             BIGINT NOT NULL DEFAULT 0,
		token_metrics           ` + j + ` NOT NULL,
		model_metrics           ` + j + ` NOT NULL,
		date                    ` + dateType + ` NOT NULL,
		aggregation_period      TEXT NOT NULL,
		created_at              BIGINT NOT NULL,
		updated_at              BIGINT,
		completed               BOOLEAN NOT NULL DEFAULT FALSE,
		UNIQUE (date, aggregation_period)
	)`}}}
}

// New opens the store, migrating agno_metrics to its current version.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.DB == nil {
		return nil, errors.New("dailymetrics: Config.DB is nil: give the control-plane database that holds agno_metrics")
	}
	if cfg.Sessions == nil {
		return nil, errors.New("dailymetrics: Config.Sessions is nil: give the store whose sessions and runs are counted")
	}
	if err := cfg.DB.Migrate(ctx, Migrations(cfg.DB)); err != nil {
		return nil, fmt.Errorf("dailymetrics: migrate %s: %w", Table, err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: cfg.DB, sessions: cfg.Sessions, now: now}, nil
}

const columns = `id, agent_runs_count, agent_sessions_count, team_runs_count, team_sessions_count,
	workflow_runs_count, workflow_sessions_count, users_count, token_metrics, model_metrics,
	date, aggregation_period, completed, created_at, updated_at`

// List returns the days from..to (both inclusive; a zero time leaves that
// side open), oldest first, and the latest updated_at of the whole table
// (0 when no day matched), as agno's get_metrics.
func (s *Store) List(ctx context.Context, from, to time.Time) (days []Day, latestUpdatedAt int64, err error) {
	q := `SELECT ` + columns + ` FROM {t:agno_metrics} WHERE 1 = 1`
	var args []any
	if !from.IsZero() {
		q += ` AND date >= ?`
		args = append(args, dateString(from))
	}
	if !to.IsZero() {
		q += ` AND date <= ?`
		args = append(args, dateString(to))
	}
	rows, err := s.db.Query(ctx, q+` ORDER BY date, aggregation_period`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("dailymetrics: list: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDay(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("dailymetrics: list: %w", err)
		}
		days = append(days, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("dailymetrics: list: %w", err)
	}
	if len(days) == 0 {
		return nil, 0, nil
	}
	var latest sql.NullInt64
	if err := s.db.QueryRow(ctx, `SELECT MAX(updated_at) FROM {t:agno_metrics}`).Scan(&latest); err != nil {
		return nil, 0, fmt.Errorf("dailymetrics: latest update: %w", err)
	}
	return days, latest.Int64, nil
}

// Refresh computes the days agno's calculate_metrics does — from the day
// after the last completed one (the last stored day when it is not
// completed; the first session's day when none is stored) through today
// — and upserts those that had sessions. It returns the rows written,
// oldest first; none when there was nothing to compute.
func (s *Store) Refresh(ctx context.Context) ([]Day, error) {
	s.refresh.Lock()
	defer s.refresh.Unlock()
	start, ok, err := s.startingDate(ctx)
	if err != nil || !ok {
		return nil, err
	}
	today := midnight(s.now())
	if start.After(today) {
		return nil, nil
	}
	end := today.AddDate(0, 0, 1)
	byDay, err := s.collect(ctx, start.Unix(), end.Unix())
	if err != nil {
		return nil, err
	}
	now := s.now().Unix()
	var days []Day
	for d := start; !d.After(today); d = d.AddDate(0, 0, 1) {
		sessions := byDay[d.Unix()]
		if len(sessions) == 0 {
			continue // agno skips days without sessions
		}
		day := compute(sessions)
		day.ID = run.NewID()
		day.Date = d
		day.AggregationPeriod = Daily
		day.Completed = d.Before(today)
		day.CreatedAt, day.UpdatedAt = now, now
		days = append(days, day)
	}
	if len(days) == 0 {
		return nil, nil
	}
	return s.upsert(ctx, days)
}

// startingDate is agno's _get_metrics_calculation_starting_date; ok is
// false when nothing is stored at all.
func (s *Store) startingDate(ctx context.Context) (time.Time, bool, error) {
	var raw any
	var completed bool
	err := s.db.QueryRow(ctx, `SELECT date, completed FROM {t:agno_metrics} ORDER BY date DESC LIMIT 1`).Scan(&raw, &completed)
	switch {
	case err == nil:
		d, err := parseDate(raw)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("dailymetrics: last stored day: %w", err)
		}
		if completed {
			d = d.AddDate(0, 0, 1)
		}
		return d, true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return time.Time{}, false, fmt.Errorf("dailymetrics: last stored day: %w", err)
	}
	first, _, err := s.sessions.ListSessions(ctx, storage.SessionQuery{SortBy: "created_at", SortOrder: storage.Asc, Limit: 1})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("dailymetrics: first session: %w", err)
	}
	if len(first) == 0 {
		return time.Time{}, false, nil
	}
	return midnight(time.Unix(first[0].CreatedAt, 0)), true, nil
}

// counted is one session with the stored runs it holds.
type counted struct {
	session *storage.Session
	runs    []*storage.Run
}

// pageSize bounds the sessions (and their run ids) read at once.
const pageSize = 500

// collect reads the sessions created in [from, to) with their runs,
// grouped by the UTC day (its midnight, epoch s) they were created on,
// oldest first.
func (s *Store) collect(ctx context.Context, from, to int64) (map[int64][]counted, error) {
	out := map[int64][]counted{}
	for page := 1; ; page++ {
		sessions, _, err := s.sessions.ListSessions(ctx, storage.SessionQuery{
			CreatedAfter: from, CreatedBefore: to - 1, SortBy: "created_at", SortOrder: storage.Asc, Limit: pageSize, Page: page,
		})
		if err != nil {
			return nil, fmt.Errorf("dailymetrics: read sessions: %w", err)
		}
		if len(sessions) == 0 {
			return out, nil
		}
		ids := make([]string, len(sessions))
		for i, x := range sessions {
			ids[i] = x.SessionID
		}
		// Settled: a session holds its runs once they are stored as agno
		// stores them (a foreground run when it ends).
		runs, err := s.sessions.ListRuns(ctx, storage.RunQuery{SessionIDs: ids, Settled: true})
		if err != nil {
			return nil, fmt.Errorf("dailymetrics: read runs: %w", err)
		}
		bySession := map[string][]*storage.Run{}
		for _, r := range runs {
			bySession[r.SessionID] = append(bySession[r.SessionID], r)
		}
		for _, x := range sessions {
			day := midnight(time.Unix(x.CreatedAt, 0)).Unix()
			out[day] = append(out[day], counted{session: x, runs: bySession[x.SessionID]})
		}
		if len(sessions) < pageSize {
			return out, nil
		}
	}
}

// compute is agno's calculate_date_metrics: per session type, the
// sessions and every run they hold (team member runs included, as a
// team session holds them); the distinct users of the sessions; the
// sessions' accumulated tokens; and the runs per (model, provider) in
// the order first met, agent sessions first, then team, then workflow.
func compute(sessions []counted) Day {
	var d Day
	users := map[string]bool{}
	models := map[ModelCount]int{} // (id, provider) → index in ModelMetrics
	for _, typ := range []struct {
		t              storage.SessionType
		sessions, runs *int
	}{
		{storage.SessionAgent, &d.AgentSessionsCount, &d.AgentRunsCount},
		{storage.SessionTeam, &d.TeamSessionsCount, &d.TeamRunsCount},
		{storage.SessionWorkflow, &d.WorkflowSessionsCount, &d.WorkflowRunsCount},
	} {
		for _, c := range sessions {
			if c.session.SessionType != typ.t {
				continue
			}
			*typ.sessions++
			*typ.runs += len(c.runs)
			if c.session.UserID != "" {
				users[c.session.UserID] = true
			}
			for _, r := range c.runs {
				id, provider := runModel(r)
				if id == "" {
					continue
				}
				key := ModelCount{ModelID: id, ModelProvider: provider}
				i, seen := models[key]
				if !seen {
					i = len(d.ModelMetrics)
					models[key] = i
					d.ModelMetrics = append(d.ModelMetrics, key)
				}
				d.ModelMetrics[i].Count++
			}
			d.TokenMetrics.add(c.session.Metrics)
		}
	}
	d.UsersCount = len(users)
	if d.ModelMetrics == nil {
		d.ModelMetrics = []ModelCount{}
	}
	return d
}

// runModel reads the model of a stored run document (RunOutput and
// TeamRunOutput carry one; a workflow run has none).
func runModel(r *storage.Run) (id, provider string) {
	if len(r.Data) == 0 {
		return "", ""
	}
	var doc struct {
		Model         any `json:"model"`
		ModelProvider any `json:"model_provider"`
	}
	if json.Unmarshal(r.Data, &doc) != nil {
		return "", ""
	}
	id, _ = doc.Model.(string)
	provider, _ = doc.ModelProvider.(string)
	return id, provider
}

// upsert writes days in one transaction, keeping the id and created_at of
// a day already stored, and returns the rows as stored.
func (s *Store) upsert(ctx context.Context, days []Day) ([]Day, error) {
	out := make([]Day, 0, len(days))
	err := s.db.InTx(ctx, func(tx *sqldb.Tx) error {
		out = out[:0]
		for _, d := range days {
			tokens, err := json.Marshal(d.TokenMetrics)
			if err != nil {
				return err
			}
			models, err := json.Marshal(d.ModelMetrics)
			if err != nil {
				return err
			}
			row := tx.QueryRow(ctx, `INSERT INTO {t:agno_metrics} (id, agent_runs_count, agent_sessions_count, team_runs_count,
				team_sessions_count, workflow_runs_count, workflow_sessions_count, users_count, token_metrics, model_metrics,
				date, aggregation_period, completed, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (date, aggregation_period) DO UPDATE SET
					agent_runs_count = excluded.agent_runs_count,
					agent_sessions_count = excluded.agent_sessions_count,
					team_runs_count = excluded.team_runs_count,
					team_sessions_count = excluded.team_sessions_count,
					workflow_runs_count = excluded.workflow_runs_count,
					workflow_sessions_count = excluded.workflow_sessions_count,
					users_count = excluded.users_count,
					token_metrics = excluded.token_metrics,
					model_metrics = excluded.model_metrics,
					completed = excluded.completed,
					updated_at = excluded.updated_at
				RETURNING `+columns,
				d.ID, d.AgentRunsCount, d.AgentSessionsCount, d.TeamRunsCount, d.TeamSessionsCount, d.WorkflowRunsCount,
				d.WorkflowSessionsCount, d.UsersCount, string(tokens), string(models), dateString(d.Date), d.AggregationPeriod,
				d.Completed, d.CreatedAt, d.UpdatedAt)
			stored, err := scanDay(row)
			if err != nil {
				return fmt.Errorf("day %s: %w", dateString(d.Date), err)
			}
			out = append(out, stored)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dailymetrics: store days: %w", err)
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanDay(sc scanner) (Day, error) {
	var d Day
	var tokens, models []byte
	var date any
	var updated sql.NullInt64
	if err := sc.Scan(&d.ID, &d.AgentRunsCount, &d.AgentSessionsCount, &d.TeamRunsCount, &d.TeamSessionsCount,
		&d.WorkflowRunsCount, &d.WorkflowSessionsCount, &d.UsersCount, &tokens, &models,
		&date, &d.AggregationPeriod, &d.Completed, &d.CreatedAt, &updated); err != nil {
		return Day{}, err
	}
	var err error
	if d.Date, err = parseDate(date); err != nil {
		return Day{}, err
	}
	d.UpdatedAt = d.CreatedAt
	if updated.Valid {
		d.UpdatedAt = updated.Int64
	}
	if err := json.Unmarshal(tokens, &d.TokenMetrics); err != nil {
		return Day{}, fmt.Errorf("token_metrics of %s: %w", d.ID, err)
	}
	if err := json.Unmarshal(models, &d.ModelMetrics); err != nil {
		return Day{}, fmt.Errorf("model_metrics of %s: %w", d.ID, err)
	}
	if d.ModelMetrics == nil {
		d.ModelMetrics = []ModelCount{}
	}
	return d, nil
}

// midnight is the start of t's UTC day.
func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func dateString(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// parseDate reads a date column: TEXT on SQLite, DATE on Postgres.
func parseDate(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return midnight(time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, time.UTC)), nil
	case string:
		return time.Parse(time.DateOnly, x)
	case []byte:
		return time.Parse(time.DateOnly, string(x))
	}
	return time.Time{}, fmt.Errorf("date column holds %T, not a date", v)
}
