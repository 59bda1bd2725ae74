package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// BenchOpener returns a new empty store for one benchmark.
type BenchOpener = func(b *testing.B) storage.Store

// Bench measures what one agent turn costs a backend: CreateRun of a ~2 KB
// run document, AppendEvents of 10 events, UpdateSession of the state.
//
//   - Turn/run=1 writes the first run of fresh sessions.
//   - Turn/run=500 writes runs 500, 501, … of one session; with rows
//     appended instead of a session blob rewritten, it should cost about
//     what run 1 does. Run with -benchtime=Nx for a fixed N to keep the
//     run numbers near 500.
//   - Turn/run1-vs-run500 interleaves both and reports their ratio.
//   - Sessions=32 runs turns on 32 sessions at once and reports runs/s.
func Bench(b *testing.B, open BenchOpener) {
	b.Run("Turn/run=1", func(b *testing.B) {
		st := benchStore(b, open)
		ctx := context.Background()
		ids := make([]string, b.N)
		for i := range ids {
			ids[i] = fmt.Sprintf("s%d", i)
			benchSession(b, st, ids[i])
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			turn(ctx, b, st, ids[i], 1)
		}
	})
	b.Run("Turn/run=500", func(b *testing.B) {
		st := benchStore(b, open)
		ctx := context.Background()
		benchSession(b, st, "s")
		const before = 499
		for n := 1; n <= before; n++ {
			turn(ctx, b, st, "s", n)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			turn(ctx, b, st, "s", before+1+i)
		}
	})
	b.Run("Turn/run1-vs-run500", func(b *testing.B) {
		// Alternates a first run of a fresh session with the next run of
		// a session 499 runs deep, so machine noise hits both alike.
		st := benchStore(b, open)
		ctx := context.Background()
		benchSession(b, st, "deep")
		const before = 499
		for n := 1; n <= before; n++ {
			turn(ctx, b, st, "deep", n)
		}
		ids := make([]string, b.N)
		for i := range ids {
			ids[i] = fmt.Sprintf("fresh%d", i)
			benchSession(b, st, ids[i])
		}
		var first, deep time.Duration
		b.ResetTimer()
		for i := range b.N {
			t0 := time.Now()
			turn(ctx, b, st, ids[i], 1)
			t1 := time.Now()
			turn(ctx, b, st, "deep", before+1+i)
			deep += time.Since(t1)
			first += t1.Sub(t0)
		}
		b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "run1-ns/op")
		b.ReportMetric(float64(deep.Nanoseconds())/float64(b.N), "run500-ns/op")
		b.ReportMetric(float64(deep)/float64(first), "run500/run1")
	})
	b.Run("Sessions=32", func(b *testing.B) {
		const sessions = 32
		st := benchStore(b, open)
		ctx := context.Background()
		for i := range sessions {
			benchSession(b, st, fmt.Sprintf("s%d", i))
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		for w := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sid := fmt.Sprintf("s%d", w)
				for n := 1; next.Add(1) <= int64(b.N); n++ {
					turn(ctx, b, st, sid, n)
				}
			}()
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	})
}

func benchStore(b *testing.B, open BenchOpener) storage.Store {
	b.Helper()
	st := open(b)
	b.Cleanup(func() { st.Close() })
	return st
}

func benchSession(b *testing.B, st storage.Store, id string) {
	b.Helper()
	if _, _, err := st.EnsureSession(context.Background(), &storage.Session{SessionID: id, SessionType: storage.SessionAgent,
		AgentID: "bench-agent", UserID: "bench-user", SessionState: map[string]any{"turn": 0, "cart": []any{"apple", "pear"}}}); err != nil {
		b.Fatal(err)
	}
}

// runDoc is a run document of about 2 KB, like a short agent answer with
// its messages and metrics.
var runDoc = func() string {
	content := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 30)
	return `{"content":` + quote(content) + `,"messages":[{"role":"user","content":"hello"},{"role":"assistant","content":` +
		quote(content[:400]) + `}],"metrics":{"input_tokens":120,"output_tokens":340,"total_tokens":460}}`
}()

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func turn(ctx context.Context, b *testing.B, st storage.Store, sid string, n int) {
	turnOf(ctx, b, st, sid, fmt.Sprintf("%s-run%d", sid, n), n)
}

// turnOf writes run rid, the n-th of session sid.
func turnOf(ctx context.Context, b *testing.B, st storage.Store, sid, rid string, n int) {
	if err := st.CreateRun(ctx, &storage.Run{RunID: rid, SessionID: sid, SessionType: storage.SessionAgent,
		ComponentID: "bench-agent", UserID: "bench-user", Status: run.StatusCompleted,
		Data: json.RawMessage(`{"run_id":"` + rid + `",` + runDoc[1:])}); err != nil {
		b.Error(err)
		return
	}
	events := make([]json.RawMessage, 10)
	for i := range events {
		events[i] = json.RawMessage(fmt.Sprintf(`{"event":"RunContent","run_id":%q,"content":"token %d of the answer","created_at":1700000000}`, rid, i))
	}
	if _, err := st.AppendEvents(ctx, rid, events...); err != nil {
		b.Error(err)
		return
	}
	if _, err := st.UpdateSession(ctx, sid, func(s *storage.Session) error {
		s.SessionState["turn"] = n
		s.SessionState["last_run_id"] = rid
		return nil
	}); err != nil {
		b.Error(err)
	}
}

// BenchTurnAtScale writes first turns of new sessions, with session and
// run ids made as the engine makes them (run.NewID), into a store already
// holding n such turns: where an id lands in the indexes keyed by it
// shows once they outgrow the page cache.
func BenchTurnAtScale(b *testing.B, open BenchOpener, n int) {
	st := benchStore(b, open)
	ctx := context.Background()
	first := func() {
		sid := run.NewID()
		benchSession(b, st, sid)
		turnOf(ctx, b, st, sid, run.NewID(), 1)
	}
	for range n {
		first()
	}
	for b.Loop() { // the seeding above runs once, untimed
		first()
	}
}

// ListingSeeder returns a store holding n agent sessions of 4 agents
// ("agent-0" … "agent-3"), each with one top-level run, and n memories of
// 4 users ("user-0" … "user-3"), opened as AgentOS would open it.
type ListingSeeder = func(b *testing.B, n int) storage.Store

// BenchListing measures reads whose cost must not grow with the store, on
// 1,000 and 100,000 sessions: what a run with add_history_to_context
// reads in a new session, and the first page of agno's session list
// (GET /sessions?type=agent&component_id=…&limit=20&page=1), and of a
// user's memories (GET /memories?user_id=…&limit=20&page=1) and of the
// user memory stats (GET /user_memory_stats?limit=20&page=1).
func BenchListing(b *testing.B, seed ListingSeeder) {
	for _, n := range []int{1000, 100000} {
		st := seed(b, n)
		b.Run(fmt.Sprintf("history/sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := st.ListRuns(b.Context(), storage.RunQuery{SessionID: "new-session", TopLevel: true, Newest: true, Limit: 3}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("sessions-page1/sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := st.ListSessions(b.Context(), storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "agent-1", SortOrder: storage.Desc, Limit: 20, Page: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("memories-page1/memories=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := st.ListMemories(b.Context(), storage.MemoryQuery{UserID: "user-1", SortOrder: storage.Desc, Limit: 20, Page: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("memory-stats-page1/memories=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := st.MemoryStats(b.Context(), "", 20, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
