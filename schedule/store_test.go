package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

var t0 = time.Date(2026, 3, 10, 10, 30, 15, 0, time.UTC)

func newStore(t *testing.T, db *sqldb.DB) *Store {
	t.Helper()
	st, err := NewStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustCreate(t *testing.T, st *Store, s Schedule, now time.Time) *Schedule {
	t.Helper()
	n, err := New(s, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	return n
}

func ptr[T any](v T) *T { return &v }

func TestStoreCRUD(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		if _, err := NewStore(ctx, db); err != nil { // a second start migrates nothing
			t.Fatal(err)
		}
		a := mustCreate(t, st, Schedule{Name: "daily-report", CronExpr: "0 3 * * *", Endpoint: "/agents/a/runs", Method: "post",
			Description: ptr("the report"), Payload: map[string]any{"message": "go", "n": 2.0}}, t0)
		if a.Method != "POST" || a.Timezone != "UTC" || a.TimeoutSeconds != 3600 || a.MaxRetries != 0 || a.RetryDelaySeconds != 60 || !a.Enabled {
			t.Fatalf("defaults: %+v", a)
		}
		got, err := st.Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "daily-report" || *got.Description != "the report" || got.Payload["message"] != "go" || got.Payload["n"] != json.Number("2") ||
			*got.NextRunAt != time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC).Unix() || got.CreatedAt != t0.Unix() || got.UpdatedAt != nil || got.LockedBy != nil {
			t.Fatalf("stored %+v", got)
		}
		if _, err := st.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get missing: %v", err)
		}
		if b, err := st.GetByName(ctx, "daily-report"); err != nil || b.ID != a.ID {
			t.Fatalf("GetByName: %v %v", b, err)
		}
		dup, _ := New(Schedule{Name: "daily-report", CronExpr: "* * * * *", Endpoint: "/x"}, t0)
		if err := st.Create(ctx, dup); !errors.Is(err, ErrNameTaken) {
			t.Fatalf("duplicate name: %v", err)
		}
		b := mustCreate(t, st, Schedule{Name: "b", CronExpr: "* * * * *", Endpoint: "/health", Method: "GET"}, t0.Add(time.Second))
		c := mustCreate(t, st, Schedule{Name: "c", CronExpr: "* * * * *", Endpoint: "/health"}, t0.Add(2*time.Second))

		// Update: a cron change moves next_run_at; a rename to a taken name
		// and a bad cron change nothing.
		up, err := st.Update(ctx, b.ID, Patch{CronExpr: ptr("0 * * * *"), Description: ptr(ptr("hourly")), MaxRetries: ptr(2)}, t0)
		if err != nil || *up.NextRunAt != time.Date(2026, 3, 10, 11, 0, 0, 0, time.UTC).Unix() || *up.Description != "hourly" || up.MaxRetries != 2 || *up.UpdatedAt != t0.Unix() {
			t.Fatalf("update: %+v %v", up, err)
		}
		if _, err := st.Update(ctx, b.ID, Patch{Name: ptr("c")}, t0); !errors.Is(err, ErrNameTaken) {
			t.Fatalf("rename onto c: %v", err)
		}
		if _, err := st.Update(ctx, b.ID, Patch{CronExpr: ptr("not cron"), Name: ptr("b2")}, t0); !errors.Is(err, ErrInvalidCron) {
			t.Fatalf("bad cron: %v", err)
		}
		if _, err := st.Update(ctx, b.ID, Patch{Timezone: ptr("Nowhere/Town")}, t0); !errors.Is(err, ErrInvalidTimezone) {
			t.Fatalf("bad tz: %v", err)
		}
		if _, err := st.Update(ctx, "nope", Patch{Name: ptr("x")}, t0); !errors.Is(err, ErrNotFound) {
			t.Fatalf("update missing: %v", err)
		}
		if again, _ := st.Get(ctx, b.ID); again.Name != "b" || again.CronExpr != "0 * * * *" {
			t.Fatalf("a refused update changed the row: %+v", again)
		}
		if cleared, err := st.Update(ctx, b.ID, Patch{Description: ptr[*string](nil), Payload: ptr[map[string]any](nil)}, t0); err != nil || cleared.Description != nil || cleared.Payload != nil {
			t.Fatalf("clear: %+v %v", cleared, err)
		}

		// Disable keeps next_run_at; enable recomputes it from now.
		d, err := st.SetEnabled(ctx, c.ID, false, nil, t0)
		if err != nil || d.Enabled || d.NextRunAt == nil {
			t.Fatalf("disable: %+v %v", d, err)
		}
		later := t0.Add(time.Hour)
		e, err := st.SetEnabled(ctx, c.ID, true, nil, later)
		if err != nil || !e.Enabled || *e.NextRunAt != time.Date(2026, 3, 10, 11, 31, 0, 0, time.UTC).Unix() || *e.UpdatedAt != later.Unix() {
			t.Fatalf("enable: %+v %v", e, err)
		}
		if _, err := st.SetEnabled(ctx, "nope", true, nil, t0); !errors.Is(err, ErrNotFound) {
			t.Fatalf("enable missing: %v", err)
		}
		st.SetEnabled(ctx, c.ID, false, nil, t0)

		// List: newest first, enabled filter, pages.
		all, total, err := st.List(ctx, ListOptions{})
		if err != nil || total != 3 || len(all) != 3 || all[0].ID != c.ID || all[2].ID != a.ID {
			t.Fatalf("list: %d %v", total, err)
		}
		on, total, _ := st.List(ctx, ListOptions{Enabled: ptr(true)})
		if total != 2 || len(on) != 2 {
			t.Fatalf("enabled: %d", total)
		}
		off, total, _ := st.List(ctx, ListOptions{Enabled: ptr(false)})
		if total != 1 || off[0].ID != c.ID {
			t.Fatalf("disabled: %d", total)
		}
		p2, total, _ := st.List(ctx, ListOptions{Limit: 2, Page: 2})
		if total != 3 || len(p2) != 1 || p2[0].ID != a.ID {
			t.Fatalf("page 2: %d %d", total, len(p2))
		}

		// Runs: stored, updated, listed newest first; deleting the schedule
		// deletes them.
		r1 := &Run{ScheduleID: a.ID, Attempt: 1, TriggeredAt: ptr(t0.Unix()), Status: StatusRunning, CreatedAt: t0.Unix()}
		if err := st.CreateRun(ctx, r1); err != nil {
			t.Fatal(err)
		}
		r1.Status, r1.StatusCode, r1.CompletedAt, r1.RunID, r1.SessionID = StatusPaused, ptr(200), ptr(t0.Unix()+5), ptr("run-1"), ptr("sess-1")
		r1.Input = map[string]any{"input_content": "go"}
		r1.Output = map[string]any{"content": "done", "content_type": "str"}
		r1.Requirements = []map[string]any{{"tool": "x"}}
		if err := st.UpdateRun(ctx, r1); err != nil {
			t.Fatal(err)
		}
		r2 := &Run{ScheduleID: a.ID, Attempt: 2, Status: StatusFailed, Error: ptr("boom"), CreatedAt: t0.Unix() + 10}
		if err := st.CreateRun(ctx, r2); err != nil {
			t.Fatal(err)
		}
		got1, err := st.GetRun(ctx, r1.ID)
		if err != nil || got1.Status != StatusPaused || *got1.StatusCode != 200 || *got1.RunID != "run-1" || got1.Input["input_content"] != "go" ||
			got1.Output["content"] != "done" || got1.Requirements[0]["tool"] != "x" || *got1.CompletedAt != t0.Unix()+5 || got1.Error != nil {
			t.Fatalf("run: %+v %v", got1, err)
		}
		runs, total, err := st.ListRuns(ctx, a.ID, 10, 1)
		if err != nil || total != 2 || runs[0].ID != r2.ID || *runs[0].Error != "boom" || runs[0].StatusCode != nil {
			t.Fatalf("runs: %d %v", total, err)
		}
		if err := st.CreateRun(ctx, &Run{ScheduleID: "nope", Attempt: 1, Status: StatusRunning, CreatedAt: 1}); err == nil {
			t.Fatal("a run of no schedule was stored (no foreign key)")
		}
		if ok, err := st.Delete(ctx, a.ID); !ok || err != nil {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if ok, _ := st.Delete(ctx, a.ID); ok {
			t.Fatal("deleted twice")
		}
		if _, err := st.GetRun(ctx, r1.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("run of a deleted schedule: %v", err)
		}
	})
}

func TestClaimDueLease(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		s := mustCreate(t, st, Schedule{Name: "every-minute", CronExpr: "* * * * *", Endpoint: "/health"}, t0)
		due := time.Unix(*s.NextRunAt, 0) // 10:31:00
		if c, err := st.ClaimDue(ctx, "a", due.Add(-time.Second), time.Minute); err != nil || c != nil {
			t.Fatalf("claimed before due: %v %v", c, err)
		}
		c, err := st.ClaimDue(ctx, "a", due, time.Minute)
		if err != nil || c == nil || c.ID != s.ID || *c.LockedBy != "a" || *c.LockedAt != due.Unix() || *c.NextRunAt != due.Unix()+60 {
			t.Fatalf("claim: %+v %v", c, err)
		}
		if c, _ := st.ClaimDue(ctx, "b", due, time.Minute); c != nil {
			t.Fatal("claimed twice")
		}
		// The next due time comes while a holds the lease: not b's until
		// the lease expires.
		next := due.Add(time.Minute)
		if c, _ := st.ClaimDue(ctx, "b", next, 2*time.Minute); c != nil {
			t.Fatal("claimed under a live lease")
		}
		if ok, err := st.Renew(ctx, s.ID, "a", next); !ok || err != nil {
			t.Fatalf("renew: %v %v", ok, err)
		}
		if ok, _ := st.Renew(ctx, s.ID, "b", next); ok {
			t.Fatal("b renewed a's lease")
		}
		if c, _ := st.ClaimDue(ctx, "b", next.Add(time.Minute), 2*time.Minute); c != nil {
			t.Fatal("claimed under a renewed lease")
		}
		c, err = st.ClaimDue(ctx, "b", next.Add(3*time.Minute), 2*time.Minute)
		if err != nil || c == nil || *c.LockedBy != "b" {
			t.Fatalf("claim after the lease expired: %+v %v", c, err)
		}
		// a's release does not free b's lease; b's does.
		if err := st.Release(ctx, s.ID, "a"); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Get(ctx, s.ID); got.LockedBy == nil || *got.LockedBy != "b" {
			t.Fatalf("a released b's lease: %+v", got)
		}
		if err := st.Release(ctx, s.ID, "b"); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Get(ctx, s.ID); got.LockedBy != nil || got.LockedAt != nil {
			t.Fatalf("not released: %+v", got)
		}
		// Disabled schedules are not claimed.
		st.SetEnabled(ctx, s.ID, false, nil, t0)
		if c, _ := st.ClaimDue(ctx, "a", next.Add(time.Hour), time.Minute); c != nil {
			t.Fatal("claimed a disabled schedule")
		}
	})
}

// handles opens n handles on one database (a SQLite file, a Postgres
// schema), as n replicas would.
func handles(t *testing.T, backend string, n int) []*sqldb.DB {
	t.Helper()
	ctx := context.Background()
	var out []*sqldb.DB
	var open func() (*sqldb.DB, error)
	switch backend {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "shared.db")
		open = func() (*sqldb.DB, error) { return sqldb.OpenSQLite(ctx, path) }
	default:
		first := sqldbtest.Postgres(t)
		out = append(out, first)
		dsn := pgtest.DSN(t)
		open = func() (*sqldb.DB, error) { return sqldb.OpenPostgres(ctx, dsn, first.Schema) }
	}
	for len(out) < n {
		db, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, db)
	}
	return out
}

// N replicas, each with several claimers, race for every due time of a
// set of every-minute schedules: each due time is claimed exactly once.
func TestClaimDueConcurrentExactlyOnce(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			const replicas, claimersPerReplica, schedules, rounds = 3, 4, 5, 4
			dbs := handles(t, backend, replicas)
			stores := make([]*Store, replicas)
			var wg sync.WaitGroup
			errs := make(chan error, replicas)
			for i, db := range dbs { // replicas start together: one migrates
				wg.Add(1)
				go func() {
					defer wg.Done()
					st, err := NewStore(context.Background(), db)
					stores[i] = st
					errs <- err
				}()
			}
			wg.Wait()
			for range replicas {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			ids := map[string]bool{}
			for i := range schedules {
				ids[mustCreate(t, stores[0], Schedule{Name: fmt.Sprintf("s%d", i), CronExpr: "* * * * *", Endpoint: "/health"}, t0).ID] = true
			}
			first := time.Date(2026, 3, 10, 10, 31, 0, 0, time.UTC)
			for round := range rounds {
				now := first.Add(time.Duration(round) * time.Minute)
				var mu sync.Mutex
				claims := map[string][]string{}
				start := make(chan struct{})
				for r, st := range stores {
					for c := range claimersPerReplica {
						wg.Add(1)
						go func() {
							defer wg.Done()
							who := fmt.Sprintf("replica-%d/%d", r, c)
							<-start
							for {
								s, err := st.ClaimDue(context.Background(), who, now, time.Second)
								if err != nil {
									t.Error(err)
									return
								}
								if s == nil {
									return
								}
								mu.Lock()
								claims[s.ID] = append(claims[s.ID], who)
								mu.Unlock()
							}
						}()
					}
				}
				close(start)
				wg.Wait()
				if len(claims) != schedules {
					t.Fatalf("round %d: %d schedules claimed, want %d", round, len(claims), schedules)
				}
				for id, by := range claims {
					if !ids[id] || len(by) != 1 {
						t.Fatalf("round %d: schedule %s claimed by %v, want once", round, id, by)
					}
					s, _ := stores[0].Get(context.Background(), id)
					if *s.NextRunAt != now.Unix()+60 {
						t.Fatalf("round %d: next_run_at %d, want %d", round, *s.NextRunAt, now.Unix()+60)
					}
					if err := stores[0].Release(context.Background(), id, by[0]); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// A schedule keeps its owner, and who it fires as follows the last
// change: Update and SetEnabled replace the principal when given one.
func TestStoreOwnerAndPrincipal(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st := newStore(t, db)
		alice := json.RawMessage(`{"user_id":"alice","scopes":["agents:run"]}`)
		a := mustCreate(t, st, Schedule{Name: "a", CronExpr: "@daily", Endpoint: "/agents/x/runs", CreatedBy: "alice", Principal: alice}, t0)
		mustCreate(t, st, Schedule{Name: "b", CronExpr: "@daily", Endpoint: "/agents/x/runs", CreatedBy: "bob"}, t0.Add(time.Second))
		got, err := st.Get(ctx, a.ID)
		if err != nil || got.CreatedBy != "alice" || string(got.Principal) != string(alice) && !jsonEqual(got.Principal, alice) {
			t.Fatalf("stored owner %q principal %s (%v)", got.CreatedBy, got.Principal, err)
		}
		list, total, err := st.List(ctx, ListOptions{CreatedBy: ptr("alice")})
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != a.ID {
			t.Fatalf("alice's list: %d %v %v", total, list, err)
		}
		if _, total, _ := st.List(ctx, ListOptions{}); total != 2 {
			t.Fatalf("all: %d", total)
		}
		admin := json.RawMessage(`{"user_id":"root","scopes":["agent_os:admin"]}`)
		up, err := st.Update(ctx, a.ID, Patch{Principal: admin}, t0)
		if err != nil || !jsonEqual(up.Principal, admin) || up.CreatedBy != "alice" {
			t.Fatalf("update principal: %+v %v", up, err)
		}
		en, err := st.SetEnabled(ctx, a.ID, false, alice, t0)
		if err != nil || !jsonEqual(en.Principal, alice) {
			t.Fatalf("disable: %+v %v", en, err)
		}
		if got, _ := st.Get(ctx, a.ID); !jsonEqual(got.Principal, alice) || got.CreatedBy != "alice" {
			t.Fatalf("after disable: %s %q", got.Principal, got.CreatedBy)
		}
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// A table made before owners existed gains the columns; its schedules
// read with no owner and no principal.
func TestStoreMigratesVersion1Table(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		var v1 []sqldb.Migration
		for _, m := range Migrations(db) {
			if m.Version == 1 && !strings.HasSuffix(m.Table, "_counts") { // the counts came later
				v1 = append(v1, m)
			}
		}
		if err := db.Migrate(ctx, v1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO {t:agno_schedules} (id, name, method, endpoint, cron_expr, timezone, timeout_seconds,
			max_retries, retry_delay_seconds, enabled, created_at) VALUES ('old', 'old', 'POST', '/agents/x/runs', '@daily', 'UTC', 60, 0, 60, ?, 1)`, true); err != nil {
			t.Fatal(err)
		}
		st := newStore(t, db)
		got, err := st.Get(ctx, "old")
		if err != nil || got.CreatedBy != "" || got.Principal != nil {
			t.Fatalf("old row: %+v %v", got, err)
		}
	})
}
