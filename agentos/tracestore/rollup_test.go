package tracestore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func parse(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t.UTC()
}

// grouped is GET /trace_session_stats computed from the traces, as the
// store did before the rollup: the answer the rollup must give.
func grouped(t *testing.T, db *sqldb.DB) []tracestore.SessionStats {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT session_id, COALESCE(MAX(user_id), ''), COALESCE(MAX(agent_id), ''),
		COALESCE(MAX(team_id), ''), COALESCE(MAX(workflow_id), ''), COUNT(*), MIN(created_at), MAX(created_at)
		FROM {t:agno_traces} WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY MAX(created_at) DESC, session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []tracestore.SessionStats
	for rows.Next() {
		var st tracestore.SessionStats
		var first, last string
		if err := rows.Scan(&st.SessionID, &st.UserID, &st.AgentID, &st.TeamID, &st.WorkflowID, &st.TotalTraces, &first, &last); err != nil {
			t.Fatal(err)
		}
		st.FirstTraceAt, st.LastTraceAt = parse(first), parse(last)
		out = append(out, st)
	}
	return out
}

func compareRollup(t *testing.T, db *sqldb.DB, s *tracestore.Store, when string) {
	t.Helper()
	want := grouped(t, db)
	got, total, err := s.SessionStats(context.Background(), tracestore.Query{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var flat []tracestore.SessionStats
	for _, st := range got {
		flat = append(flat, *st)
	}
	if total != len(want) || !reflect.DeepEqual(flat, want) {
		t.Fatalf("%s: session stats (total %d)\n%v\nwant (total %d)\n%v", when, total, flat, len(want), want)
	}
}

// The rollup answers what grouping the traces answers, after inserts,
// widened traces, moves between sessions and owners, and deletes.
func TestSessionRollupMatchesGrouping(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := open(t, db)
		r := rand.New(rand.NewPCG(3, 4))
		pick := func(vals ...any) any { return vals[r.IntN(len(vals))] }
		stamp := func() string { return fmt.Sprintf("2026-03-01T10:00:%02d.000000Z", r.IntN(60)) }
		for step := range 300 {
			id := fmt.Sprint("t", r.IntN(40))
			session, user, agent := pick("s1", "s2", "s3", nil), pick("u1", "u2", nil), pick("a1", "a2", nil)
			var err error
			switch r.IntN(6) {
			case 0, 1:
				_, err = db.Exec(ctx, `INSERT INTO {t:agno_traces} (trace_id, name, status, start_time, end_time, duration_ms,
					session_id, user_id, agent_id, created_at) VALUES (?, 'run', 'OK', ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (trace_id) DO NOTHING`,
					id, stamp(), stamp(), session, user, agent, stamp())
			case 2: // widened, as Write does: nothing the rollup keeps changes
				_, err = db.Exec(ctx, `UPDATE {t:agno_traces} SET end_time = ?, status = 'ERROR' WHERE trace_id = ?`, stamp(), id)
			case 3:
				_, err = db.Exec(ctx, `UPDATE {t:agno_traces} SET session_id = ?, user_id = ? WHERE trace_id = ?`, session, user, id)
			case 4:
				_, err = db.Exec(ctx, `UPDATE {t:agno_traces} SET agent_id = ?, created_at = ? WHERE session_id = ?`, agent, stamp(), session)
			case 5:
				_, err = db.Exec(ctx, `DELETE FROM {t:agno_traces} WHERE trace_id = ? OR (user_id = ? AND agent_id = ?)`, id, user, agent)
			}
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if step%25 == 24 {
				compareRollup(t, db, s, fmt.Sprint("step ", step))
			}
		}
		// Traces written through the store.
		if err := s.Write(ctx, []tracestore.Span{span("tw", "w1", "", "agent.run", 0, 5, "OK", map[string]any{"session_id": "s9", "agent_id": "a1"})}); err != nil {
			t.Fatal(err)
		}
		compareRollup(t, db, s, "after Write")
		if _, err := db.Exec(ctx, `DELETE FROM {t:agno_traces}`); err != nil {
			t.Fatal(err)
		}
		compareRollup(t, db, s, "all deleted")
	})
}

// Writers adding and removing traces of the same sessions at once leave
// the rollup as grouping would find it (Postgres: the session locks).
func TestSessionRollupUnderConcurrentWriters(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := open(t, db)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 40 {
					id := fmt.Sprintf("w%d-%d", w, i)
					session := fmt.Sprint("s", i%3)
					if _, err := db.Exec(ctx, `INSERT INTO {t:agno_traces} (trace_id, name, status, start_time, end_time, duration_ms,
						session_id, user_id, created_at) VALUES (?, 'run', 'OK', '2026-03-01T10:00:00Z', '2026-03-01T10:00:01Z', 1, ?, ?, ?)`,
						id, session, fmt.Sprint("u", w), fmt.Sprintf("2026-03-01T10:%02d:00Z", i)); err != nil {
						t.Error(err)
						return
					}
					if i%4 == 3 {
						if _, err := db.Exec(ctx, `DELETE FROM {t:agno_traces} WHERE trace_id = ?`, fmt.Sprintf("w%d-%d", w, i-2)); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		compareRollup(t, db, s, "after concurrent writers")
	})
}
