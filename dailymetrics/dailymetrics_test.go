package dailymetrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/dailymetrics"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqlite"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// each runs fn on the run store and the control-plane database of one
// SQLite file, then of one Postgres schema, as AgentOS deploys them.
func each(t *testing.T, fn func(t *testing.T, st storage.Store, db *sqldb.DB)) {
	quiet := slog.New(slog.DiscardHandler)
	t.Run("sqlite", func(t *testing.T) {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "agno.db")
		st, err := sqlite.Open(ctx, sqlite.Config{Path: path, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		db, err := sqldb.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, st, db)
	})
	t.Run("postgres", func(t *testing.T) {
		ctx := context.Background()
		dsn := pgtest.DSN(t)
		schema := pgtest.Schema(t, dsn)
		st, err := postgres.Open(ctx, postgres.Config{DSN: dsn, Schema: schema, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		db, err := sqldb.OpenPostgres(ctx, dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, st, db)
	})
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time    { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)   { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func at(day, hms string) time.Time { return must(time.Parse(time.DateTime, day+" "+hms)) }
func epoch(day, hms string) int64  { return at(day, hms).Unix() }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// fixture writes sessions and runs with known figures.
type fixture struct {
	t   *testing.T
	st  storage.Store
	ctx context.Context
}

func (f fixture) session(id string, typ storage.SessionType, user string, created int64, m *run.Metrics) {
	f.t.Helper()
	s := &storage.Session{SessionID: id, SessionType: typ, UserID: user, CreatedAt: created, UpdatedAt: created, Metrics: m}
	switch typ {
	case storage.SessionTeam:
		s.TeamID = "crew"
	case storage.SessionWorkflow:
		s.WorkflowID = "flow"
	default:
		s.AgentID = "writer"
	}
	if _, _, err := f.st.EnsureSession(f.ctx, s); err != nil {
		f.t.Fatal(err)
	}
}

// run stores a run whose document names model and provider ("" for none).
func (f fixture) run(id, session, parent string, typ storage.SessionType, status run.Status, listed bool, created int64, model, provider string) {
	f.t.Helper()
	doc := map[string]any{"run_id": id, "session_id": session, "status": string(status)}
	if model != "" {
		doc["model"], doc["model_provider"] = model, provider
	}
	data, _ := json.Marshal(doc)
	if err := f.st.CreateRun(f.ctx, &storage.Run{RunID: id, SessionID: session, ParentRunID: parent, SessionType: typ,
		ComponentID: "c", Status: status, Listed: listed, CreatedAt: created, UpdatedAt: created, Data: data}); err != nil {
		f.t.Fatal(err)
	}
}

// want is one expected day; the rest of the row (id, times) is checked
// apart.
type want struct {
	date                           string
	agentRuns, agentSessions       int
	teamRuns, teamSessions         int
	workflowRuns, workflowSessions int
	users                          int
	tokens                         dailymetrics.TokenMetrics
	models                         []dailymetrics.ModelCount
	completed                      bool
	createdAt, updatedAt           int64
}

func checkDays(t *testing.T, what string, got []dailymetrics.Day, want []want) {
	t.Helper()
	if len(got) != len(want) {
		var dates []string
		for _, d := range got {
			dates = append(dates, d.Date.Format(time.DateOnly))
		}
		t.Fatalf("%s: %d days %v, want %d", what, len(got), dates, len(want))
	}
	for i, w := range want {
		d := got[i]
		if g := d.Date.Format(time.DateOnly); g != w.date || d.Date.Location() != time.UTC || d.Date.Hour() != 0 {
			t.Errorf("%s[%d]: date %v, want %s at 00:00 UTC", what, i, d.Date, w.date)
		}
		counts := func(d dailymetrics.Day) string {
			return fmt.Sprintf("agent %d/%d team %d/%d workflow %d/%d users %d", d.AgentRunsCount, d.AgentSessionsCount,
				d.TeamRunsCount, d.TeamSessionsCount, d.WorkflowRunsCount, d.WorkflowSessionsCount, d.UsersCount)
		}
		wd := dailymetrics.Day{AgentRunsCount: w.agentRuns, AgentSessionsCount: w.agentSessions, TeamRunsCount: w.teamRuns,
			TeamSessionsCount: w.teamSessions, WorkflowRunsCount: w.workflowRuns, WorkflowSessionsCount: w.workflowSessions, UsersCount: w.users}
		if counts(d) != counts(wd) {
			t.Errorf("%s %s: runs/sessions %s, want %s", what, w.date, counts(d), counts(wd))
		}
		if d.TokenMetrics != w.tokens {
			t.Errorf("%s %s: tokens %+v, want %+v", what, w.date, d.TokenMetrics, w.tokens)
		}
		if fmt.Sprint(d.ModelMetrics) != fmt.Sprint(w.models) || d.ModelMetrics == nil {
			t.Errorf("%s %s: models %+v, want %+v", what, w.date, d.ModelMetrics, w.models)
		}
		if d.Completed != w.completed || d.AggregationPeriod != "daily" {
			t.Errorf("%s %s: completed %v period %q, want %v daily", what, w.date, d.Completed, d.AggregationPeriod, w.completed)
		}
		if d.CreatedAt != w.createdAt || d.UpdatedAt != w.updatedAt {
			t.Errorf("%s %s: created/updated %d/%d, want %d/%d", what, w.date, d.CreatedAt, d.UpdatedAt, w.createdAt, w.updatedAt)
		}
		if len(d.ID) != 36 || strings.Count(d.ID, "-") != 4 {
			t.Errorf("%s %s: id %q is not a UUID", what, w.date, d.ID)
		}
	}
}

func ids(days []dailymetrics.Day) map[string]string {
	out := map[string]string{}
	for _, d := range days {
		out[d.Date.Format(time.DateOnly)] = d.ID
	}
	return out
}

func TestRefreshCountsStoredSessionsAndRuns(t *testing.T) {
	each(t, func(t *testing.T, st storage.Store, db *sqldb.DB) {
		ctx := t.Context()
		clk := &clock{t: at("2026-03-11", "15:00:00")}
		m, err := dailymetrics.New(ctx, dailymetrics.Config{DB: db, Sessions: st, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		// Nothing stored: nothing to compute, nothing listed.
		days, err := m.Refresh(ctx)
		if err != nil || len(days) != 0 {
			t.Fatalf("refresh of an empty store = %v, %v", days, err)
		}
		if days, latest, err := m.List(ctx, time.Time{}, time.Time{}); err != nil || len(days) != 0 || latest != 0 {
			t.Fatalf("list of an empty table = %v, %d, %v", days, latest, err)
		}

		f := fixture{t: t, st: st, ctx: ctx}
		const agent, team, wf = storage.SessionAgent, storage.SessionTeam, storage.SessionWorkflow
		done, failed, running, pending := run.StatusCompleted, run.StatusError, run.StatusRunning, run.StatusPending
		// 2026-03-08: one agent session.
		f.session("s0", agent, "u1", epoch("2026-03-08", "09:00:00"), &run.Metrics{InputTokens: 1, OutputTokens: 1, TotalTokens: 2})
		f.run("r0", "s0", "", agent, done, false, epoch("2026-03-08", "09:00:01"), "gpt-4o", "OpenAI")
		// 2026-03-09: nothing. 2026-03-10: agents, a team, a workflow.
		f.session("sA1", agent, "u1", epoch("2026-03-10", "01:00:00"),
			&run.Metrics{InputTokens: 100, OutputTokens: 20, TotalTokens: 120, CacheReadTokens: 5, ReasoningTokens: 3})
		f.run("rA1a", "sA1", "", agent, done, false, epoch("2026-03-10", "01:00:01"), "gpt-4o", "OpenAI")
		f.run("rA1b", "sA1", "", agent, failed, false, epoch("2026-03-10", "01:05:00"), "gpt-4o", "OpenAI")
		f.session("sA2", agent, "u2", epoch("2026-03-10", "02:00:00"), &run.Metrics{InputTokens: 50, OutputTokens: 10, TotalTokens: 60, CacheWriteTokens: 7})
		f.run("rA2", "sA2", "", agent, done, false, epoch("2026-03-10", "02:00:01"), "claude-sonnet-4", "Anthropic")
		f.session("sT1", team, "u1", epoch("2026-03-10", "03:00:00"), &run.Metrics{InputTokens: 300, OutputTokens: 40, TotalTokens: 340})
		f.run("rT1", "sT1", "", team, done, false, epoch("2026-03-10", "03:00:01"), "gpt-4o", "OpenAI")
		f.run("rT1m", "sT1", "rT1", agent, done, false, epoch("2026-03-10", "03:00:02"), "gpt-4o-mini", "OpenAI")
		f.session("sW1", wf, "", epoch("2026-03-10", "04:00:00"), &run.Metrics{InputTokens: 7, OutputTokens: 3, TotalTokens: 10})
		f.run("rW1", "sW1", "", wf, done, false, epoch("2026-03-10", "04:00:01"), "", "")
		// Created in the day's last second; its run, a day later, counts
		// on the session's day, as agno counts a session's runs.
		f.session("sA3", agent, "u3", epoch("2026-03-10", "23:59:59"), &run.Metrics{InputTokens: 1, OutputTokens: 1, TotalTokens: 2})
		f.run("rA3", "sA3", "", agent, done, false, epoch("2026-03-11", "01:00:00"), "gpt-4o", "OpenAI")
		// 2026-03-11 (today): a foreground run in flight is not stored yet
		// for agno; a listed background run is.
		f.session("sA4", agent, "u2", epoch("2026-03-11", "00:00:00"), &run.Metrics{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
		f.run("rA4a", "sA4", "", agent, done, false, epoch("2026-03-11", "00:00:01"), "gpt-4o", "OpenAI")
		f.run("rA4b", "sA4", "", agent, running, false, epoch("2026-03-11", "00:10:00"), "gpt-4o", "OpenAI")
		f.run("rA4c", "sA4", "", agent, pending, true, epoch("2026-03-11", "00:20:00"), "gpt-4o", "OpenAI")
		f.session("sT2", team, "u4", epoch("2026-03-11", "02:00:00"), nil)
		// Tomorrow's session (a skewed clock) is outside today's refresh.
		f.session("sF", agent, "u9", epoch("2026-03-12", "00:00:00"), &run.Metrics{InputTokens: 1000, TotalTokens: 1000})

		t1 := clk.Now().Unix()
		gpt4o := func(n int) dailymetrics.ModelCount {
			return dailymetrics.ModelCount{ModelID: "gpt-4o", ModelProvider: "OpenAI", Count: n}
		}
		day8 := want{date: "2026-03-08", agentRuns: 1, agentSessions: 1, users: 1,
			tokens: dailymetrics.TokenMetrics{InputTokens: 1, OutputTokens: 1, TotalTokens: 2},
			models: []dailymetrics.ModelCount{gpt4o(1)}, completed: true, createdAt: t1, updatedAt: t1}
		day10 := want{date: "2026-03-10", agentRuns: 4, agentSessions: 3, teamRuns: 2, teamSessions: 1, workflowRuns: 1, workflowSessions: 1, users: 3,
			tokens: dailymetrics.TokenMetrics{InputTokens: 458, OutputTokens: 74, TotalTokens: 532, CacheReadTokens: 5, CacheWriteTokens: 7, ReasoningTokens: 3},
			models: []dailymetrics.ModelCount{gpt4o(4), {ModelID: "claude-sonnet-4", ModelProvider: "Anthropic", Count: 1},
				{ModelID: "gpt-4o-mini", ModelProvider: "OpenAI", Count: 1}},
			completed: true, createdAt: t1, updatedAt: t1}
		day11 := want{date: "2026-03-11", agentRuns: 2, agentSessions: 1, teamSessions: 1, users: 2,
			tokens: dailymetrics.TokenMetrics{InputTokens: 10, OutputTokens: 5, TotalTokens: 15},
			models: []dailymetrics.ModelCount{gpt4o(2)}, createdAt: t1, updatedAt: t1}

		// First refresh: from the first session's day through today, days
		// without sessions skipped.
		days, err = m.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkDays(t, "first refresh", days, []want{day8, day10, day11})
		first := ids(days)
		listed, latest, err := m.List(ctx, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		checkDays(t, "listed", listed, []want{day8, day10, day11})
		if latest != t1 {
			t.Errorf("latest updated_at %d, want %d", latest, t1)
		}

		// Later the same day: only today, not completed, is computed again;
		// it keeps its id and created_at.
		clk.Set(at("2026-03-11", "16:30:00"))
		t2 := clk.Now().Unix()
		f.run("rA4d", "sA4", "", agent, done, false, epoch("2026-03-11", "16:00:00"), "o3", "OpenAI")
		days, err = m.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		day11b := day11
		day11b.agentRuns, day11b.models, day11b.updatedAt = 3, []dailymetrics.ModelCount{gpt4o(2), {ModelID: "o3", ModelProvider: "OpenAI", Count: 1}}, t2
		checkDays(t, "same-day refresh", days, []want{day11b})
		if days[0].ID != first["2026-03-11"] {
			t.Errorf("today's row changed id: %s, was %s", days[0].ID, first["2026-03-11"])
		}

		// Next day: yesterday is computed once more (now completed) with
		// today; completed days stay as they were, even when a run is
		// added to one of their sessions.
		clk.Set(at("2026-03-12", "08:00:00"))
		t3 := clk.Now().Unix()
		f.run("rA1c", "sA1", "", agent, done, false, epoch("2026-03-12", "07:00:00"), "gpt-4o", "OpenAI")
		f.run("rT2", "sT2", "", team, done, false, epoch("2026-03-12", "07:30:00"), "gpt-4o", "OpenAI")
		days, err = m.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		day11c := day11b
		// The team's model was met first in the agent session: one entry.
		day11c.teamRuns, day11c.models = 1, []dailymetrics.ModelCount{gpt4o(3), {ModelID: "o3", ModelProvider: "OpenAI", Count: 1}}
		day11c.completed, day11c.updatedAt = true, t3
		day12 := want{date: "2026-03-12", agentSessions: 1, users: 1, tokens: dailymetrics.TokenMetrics{InputTokens: 1000, TotalTokens: 1000},
			models: []dailymetrics.ModelCount{}, createdAt: t3, updatedAt: t3}
		checkDays(t, "next-day refresh", days, []want{day11c, day12})
		if days[0].ID != first["2026-03-11"] {
			t.Errorf("yesterday's row changed id: %s, was %s", days[0].ID, first["2026-03-11"])
		}
		listed, latest, err = m.List(ctx, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		checkDays(t, "listed after next-day refresh", listed, []want{day8, day10, day11c, day12})
		if latest != t3 {
			t.Errorf("latest updated_at %d, want %d", latest, t3)
		}

		// Date range: inclusive on both sides; the latest update is the
		// table's, as agno answers it.
		ranged, latest, err := m.List(ctx, at("2026-03-09", "00:00:00"), at("2026-03-11", "00:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		checkDays(t, "2026-03-09..11", ranged, []want{day10, day11c})
		if latest != t3 {
			t.Errorf("ranged latest updated_at %d, want %d", latest, t3)
		}
		if from, _, err := m.List(ctx, at("2026-03-12", "00:00:00"), time.Time{}); err != nil || len(from) != 1 {
			t.Errorf("from 2026-03-12: %d days, %v", len(from), err)
		}
		if none, latest, err := m.List(ctx, at("2026-04-01", "00:00:00"), at("2026-04-30", "00:00:00")); err != nil || len(none) != 0 || latest != 0 {
			t.Errorf("empty range = %d days, latest %d, %v", len(none), latest, err)
		}

		// A refresh with nothing new leaves the rows as they are, but for
		// today's, recomputed.
		days, err = m.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkDays(t, "repeat refresh", days, []want{day12})

		// Another process over the same tables sees the same rows and
		// keeps their ids.
		other, err := dailymetrics.New(ctx, dailymetrics.Config{DB: db, Sessions: st, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		again, err := other.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != 1 || again[0].ID != days[0].ID {
			t.Errorf("second process refresh = %+v, want the stored row %s", again, days[0].ID)
		}
	})
}

// Refreshes racing in several goroutines (one per replica) leave one row
// per day.
func TestConcurrentRefreshesLeaveOneRowPerDay(t *testing.T) {
	each(t, func(t *testing.T, st storage.Store, db *sqldb.DB) {
		ctx := t.Context()
		clk := &clock{t: at("2026-05-02", "12:00:00")}
		f := fixture{t: t, st: st, ctx: ctx}
		f.session("a", storage.SessionAgent, "u1", epoch("2026-05-01", "10:00:00"), &run.Metrics{InputTokens: 3, OutputTokens: 4, TotalTokens: 7})
		f.run("ra", "a", "", storage.SessionAgent, run.StatusCompleted, false, epoch("2026-05-01", "10:00:01"), "gpt-4o", "OpenAI")
		f.session("b", storage.SessionAgent, "u2", epoch("2026-05-02", "10:00:00"), nil)
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			m, err := dailymetrics.New(ctx, dailymetrics.Config{DB: db, Sessions: st, Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := m.Refresh(ctx)
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		var n int
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:agno_metrics}`).Scan(&n); err != nil || n != 2 {
			t.Errorf("rows %d (%v), want 2", n, err)
		}
	})
}

func TestNewNeedsDatabaseAndStore(t *testing.T) {
	_, err := dailymetrics.New(context.Background(), dailymetrics.Config{})
	if err == nil || !strings.Contains(err.Error(), "Config.DB") {
		t.Errorf("New without DB: %v", err)
	}
	db, err := sqldb.OpenSQLite(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = dailymetrics.New(context.Background(), dailymetrics.Config{DB: db})
	if err == nil || !strings.Contains(err.Error(), "Config.Sessions") {
		t.Errorf("New without Sessions: %v", err)
	}
}
