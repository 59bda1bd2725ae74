package rowcount_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/pgcontents"
	"github.com/agno-go/agno/knowledge/contents/sqlitecontents"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

var quiet = slog.New(slog.DiscardHandler)

// series is a FROM clause of n rows numbered i = 0..n-1.
func series(db *sqldb.DB) string {
	if db.Kind == sqldb.Postgres {
		return ` FROM generate_series(0, ? - 1) AS s(i)`
	}
	return ` FROM (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT i FROM s) s`
}

// BenchmarkControlListings reads page 1 (20 rows) of the control-plane
// listings AgentOS serves — approvals (the pending queue), schedules,
// eval runs, traces, trace session stats, knowledge contents — over N rows, seeded in one
// statement each. Compare N=100000 with N=1000: a listing whose cost
// does not grow with the table reads one page and one count.
func BenchmarkControlListings(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, n := range []int{1000, 100000} {
			b.Run(fmt.Sprintf("%s/N=%d", kind, n), func(b *testing.B) {
				db, cs := openControl(b, kind)
				benchListings(b, db, cs, n)
			})
		}
	}
}

// openControl opens the control-plane database and the contents store
// of kind, as AgentOS does.
func openControl(b *testing.B, kind string) (*sqldb.DB, contents.Store) {
	ctx := context.Background()
	if kind == "sqlite" {
		// One file, as AgentOS keeps them.
		path := filepath.Join(b.TempDir(), "agno.db")
		db, err := sqldb.OpenSQLite(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		s, err := sqlitecontents.Open(ctx, sqlitecontents.Config{Path: path, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return db, s
	}
	db := sqldbtest.Postgres(b)
	s, err := pgcontents.Open(ctx, pgcontents.Config{DSN: pgtest.DSN(b), Schema: db.Schema, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return db, s
}

// controlStores are the control-plane stores on one database.
type controlStores struct {
	approvals *approval.Store
	schedules *schedule.Store
	evals     *eval.Store
	traces    *tracestore.Store
}

// seed opens the stores on db and writes n rows into each table.
func seed(b *testing.B, db *sqldb.DB, n int) controlStores {
	ctx := context.Background()
	approvals, err := approval.NewStore(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	schedules, err := schedule.NewStore(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	evals, err := eval.NewStore(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	traces, err := tracestore.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	from := series(db)
	for _, q := range []string{
		`INSERT INTO {t:agno_approvals} (id, run_id, session_id, status, source_type, pause_type, user_id, created_at)
			SELECT 'a' || i, 'r' || i, 's' || i, CASE WHEN i % 10 = 0 THEN 'pending' ELSE 'approved' END, 'agent', 'confirmation', 'u' || (i % 4), i` + from,
		`INSERT INTO {t:agno_schedules} (id, name, method, endpoint, cron_expr, timezone, timeout_seconds, max_retries, retry_delay_seconds, created_at)
			SELECT 'sc' || i, 'sc' || i, 'POST', '/agents/a/runs', '@daily', 'UTC', 60, 0, 60, i` + from,
		`INSERT INTO {t:agno_eval_runs} (run_id, eval_type, eval_data, eval_input, agent_id, created_at)
			SELECT 'e' || i, 'accuracy', '{}', '{}', 'agent-' || (i % 4), i` + from,
		`INSERT INTO {t:agno_knowledge_contents} (id, name, linked_to, status, created_at, updated_at)
			SELECT 'c' || i, 'doc', 'kb', 'completed', i, i` + from,
		`INSERT INTO {t:agno_traces} (trace_id, name, status, start_time, end_time, duration_ms, session_id, user_id, created_at)
			SELECT 't' || i, 'run', 'OK', '2026-01-01T00:00:00.' || (100000 + i) || 'Z', '2026-01-01T00:00:01Z', 1, 's' || (i / 10), 'u' || (i % 4), '2026-01-01T00:00:00Z'` + from,
	} {
		if _, err := db.Exec(ctx, q, n); err != nil {
			b.Fatalf("seed: %v\n%s", err, q)
		}
	}
	return controlStores{approvals, schedules, evals, traces}
}

// total is a listing's total_count.
func total[T any](_ T, n int, err error) (int, error) { return n, err }

func benchListings(b *testing.B, db *sqldb.DB, cs contents.Store, n int) {
	ctx := context.Background()
	st := seed(b, db, n)
	approvals, schedules, evals, traces := st.approvals, st.schedules, st.evals, st.traces
	list := []struct {
		name string
		fn   func() (int, error)
	}{
		{"approvals-pending", func() (int, error) {
			return total(approvals.List(ctx, approval.Filter{Status: approval.StatusPending, Limit: 20, Page: 1}))
		}},
		{"schedules", func() (int, error) { return total(schedules.List(ctx, schedule.ListOptions{Limit: 20, Page: 1})) }},
		{"evals", func() (int, error) { return total(evals.List(ctx, eval.Query{Limit: 20, Page: 1})) }},
		{"traces", func() (int, error) { return total(traces.Traces(ctx, tracestore.Query{Limit: 20, Page: 1})) }},
		{"trace-session-stats", func() (int, error) { return total(traces.SessionStats(ctx, tracestore.Query{Limit: 20, Page: 1})) }},
		{"contents", func() (int, error) {
			return total(cs.List(ctx, contents.ListOptions{LinkedTo: "kb", Limit: 20, Page: 1}))
		}},
	}
	for _, l := range list {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				total, err := l.fn()
				if err != nil || total == 0 {
					b.Fatalf("total %d, %v", total, err)
				}
			}
		})
	}
}

// BenchmarkControlWrites is what the counts cost the writes: creating an
// approval, writing the trace of a run (one root span with its session
// and agent), upserting a knowledge content, on stores already holding
// 1,000 of each.
func BenchmarkControlWrites(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			db, cs := openControl(b, kind)
			st := seed(b, db, 1000)
			b.Run("approval", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					id := fmt.Sprint("w", i)
					if _, err := st.approvals.Create(ctx, &approval.Approval{ID: id, RunID: "r" + id, SessionID: "s" + id, Status: approval.StatusPending,
						SourceType: "agent", PauseType: "confirmation", UserID: "u1", CreatedAt: int64(i)}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("trace", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					id := fmt.Sprint("w", i)
					start := time.Unix(int64(i), 0)
					if err := st.traces.Write(ctx, []tracestore.Span{{SpanID: "sp" + id, TraceID: "tr" + id, Name: "agent.run", SpanKind: "INTERNAL",
						StatusCode: "OK", StartTime: start, EndTime: start.Add(time.Second), DurationMS: 1000,
						Attributes: map[string]any{"session_id": fmt.Sprint("s", i/10), "agent_id": "a1", "run_id": "r" + id}}}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("content", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					if err := cs.Upsert(ctx, contents.Row{ID: fmt.Sprint("cw", i), Name: "doc", LinkedTo: "kb", Status: contents.StatusCompleted,
						CreatedAt: int64(i), UpdatedAt: int64(i)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
