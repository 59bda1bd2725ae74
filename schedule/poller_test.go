package schedule

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

type clock struct{ t atomic.Pointer[time.Time] }

func (c *clock) now() time.Time      { return *c.t.Load() }
func (c *clock) set(t time.Time)     { c.t.Store(&t) }
func newClock(t time.Time) *clock    { c := &clock{}; c.set(t); return c }
func quiet() *slog.Logger            { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (c *clock) add(d time.Duration) { c.set(c.now().Add(d)) }

// fakeExecutor answers each call with fn (default success).
type fakeExecutor struct {
	mu    sync.Mutex
	calls []string
	fn    func(ctx context.Context, s *Schedule, n int) Result
}

func (f *fakeExecutor) Execute(ctx context.Context, s *Schedule) Result {
	f.mu.Lock()
	f.calls = append(f.calls, s.ID)
	n := len(f.calls)
	f.mu.Unlock()
	if f.fn == nil {
		return Result{Status: StatusSuccess, StatusCode: ptr(200), RunID: "run", SessionID: "sess"}
	}
	return f.fn(ctx, s, n)
}

func (f *fakeExecutor) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func newPoller(t *testing.T, st *Store, ex Executor, clk *clock, instance string) *Poller {
	t.Helper()
	p, err := NewPoller(PollerConfig{Store: st, Executor: ex, Instance: instance, Interval: 10 * time.Millisecond, Lease: time.Minute, Logger: quiet(), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func leakCheck(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}

// Two pollers on one database fire each due time once, record the
// attempt and release the lease.
func TestPollerFiresOncePerDueTime(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		leakCheck(t)
		ctx := context.Background()
		st := newStore(t, db)
		clk := newClock(t0)
		s := mustCreate(t, st, Schedule{Name: "tick", CronExpr: "* * * * *", Endpoint: "/health"}, t0)
		ex := &fakeExecutor{}
		a, b := newPoller(t, st, ex, clk, "a"), newPoller(t, st, ex, clk, "b")
		a.Start()
		b.Start()
		defer a.Stop()
		defer b.Stop()
		time.Sleep(50 * time.Millisecond)
		if n := ex.count(); n != 0 {
			t.Fatalf("fired %d times before due", n)
		}
		clk.set(time.Unix(*s.NextRunAt, 0))
		waitFor(t, "the first firing", func() bool { return ex.count() == 1 })
		waitFor(t, "the release", func() bool { g, _ := st.Get(ctx, s.ID); return g.LockedBy == nil })
		time.Sleep(50 * time.Millisecond)
		if n := ex.count(); n != 1 {
			t.Fatalf("fired %d times for one due time", n)
		}
		clk.add(time.Minute)
		waitFor(t, "the second firing", func() bool { return ex.count() == 2 })
		runs, total, err := st.ListRuns(ctx, s.ID, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "two finished runs", func() bool {
			runs, total, _ = st.ListRuns(ctx, s.ID, 10, 1)
			return total == 2 && runs[0].Status == StatusSuccess && runs[1].Status == StatusSuccess
		})
		if r := runs[0]; r.Attempt != 1 || *r.StatusCode != 200 || *r.RunID != "run" || *r.SessionID != "sess" || r.CompletedAt == nil || r.TriggeredAt == nil {
			t.Fatalf("run %+v", r)
		}
	})
}

func TestPollerRetriesTimeoutAndStop(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		leakCheck(t)
		ctx := context.Background()
		st := newStore(t, db)
		clk := newClock(t0)

		// Two failures, then a success: three attempts recorded.
		flaky := mustCreate(t, st, Schedule{Name: "flaky", CronExpr: "0 0 1 1 *", Endpoint: "/x", MaxRetries: 3}, t0)
		if _, err := st.Update(ctx, flaky.ID, Patch{RetryDelaySeconds: ptr(0)}, t0); err != nil {
			t.Fatal(err)
		}
		flaky, _ = st.Get(ctx, flaky.ID)
		ex := &fakeExecutor{fn: func(_ context.Context, _ *Schedule, n int) Result {
			if n < 3 {
				return Result{Status: StatusFailed, StatusCode: ptr(500), Error: "boom"}
			}
			return Result{Status: StatusSuccess, StatusCode: ptr(200)}
		}}
		p := newPoller(t, st, ex, clk, "a")
		last, err := p.Trigger(ctx, flaky)
		if err != nil || last.Attempt != 3 || last.Status != StatusSuccess {
			t.Fatalf("trigger: %+v %v", last, err)
		}
		runs, total, _ := st.ListRuns(ctx, flaky.ID, 10, 1)
		if total != 3 || runs[2].Status != StatusFailed || *runs[2].Error != "boom" || runs[1].Status != StatusFailed || runs[0].Status != StatusSuccess {
			t.Fatalf("attempts: %d", total)
		}
		// A trigger takes no lease and leaves next_run_at alone.
		if g, _ := st.Get(ctx, flaky.ID); g.LockedBy != nil || *g.NextRunAt != *flaky.NextRunAt {
			t.Fatalf("trigger touched the schedule: %+v", g)
		}

		// An attempt past timeout_seconds ends with the executor's error;
		// a pause is not retried.
		slow := mustCreate(t, st, Schedule{Name: "slow", CronExpr: "0 0 1 1 *", Endpoint: "/x", TimeoutSeconds: 1, MaxRetries: 1}, t0)
		slow.RetryDelaySeconds = 0
		ex.fn = func(ctx context.Context, _ *Schedule, _ int) Result {
			<-ctx.Done()
			return Result{Status: StatusFailed, Error: "timed out: " + ctx.Err().Error()}
		}
		start := time.Now()
		last, _ = p.Trigger(ctx, slow)
		if took := time.Since(start); last.Status != StatusFailed || *last.Error != "timed out: context deadline exceeded" || last.Attempt != 2 || took > 5*time.Second {
			t.Fatalf("timeout: %+v after %s", last, took)
		}
		ex.fn = func(context.Context, *Schedule, int) Result {
			return Result{Status: StatusPaused, Requirements: []map[string]any{{"confirm": true}}}
		}
		if last, _ = p.Trigger(ctx, slow); last.Attempt != 1 || last.Status != StatusPaused || last.Requirements[0]["confirm"] != true {
			t.Fatalf("pause: %+v", last)
		}

		// Stop cancels a firing in flight: recorded cancelled, lease
		// released; the poller takes no trigger after.
		due := mustCreate(t, st, Schedule{Name: "due", CronExpr: "* * * * *", Endpoint: "/x"}, t0)
		inFlight := make(chan struct{})
		ex.fn = func(ctx context.Context, _ *Schedule, _ int) Result {
			close(inFlight)
			<-ctx.Done()
			return Result{Status: StatusFailed, Error: "cut", RunID: "r1"}
		}
		clk.set(time.Unix(*due.NextRunAt, 0))
		p.Start()
		<-inFlight
		p.Stop()
		runs, _, _ = st.ListRuns(ctx, due.ID, 10, 1)
		if len(runs) != 1 || runs[0].Status != StatusCancelled || *runs[0].Error != "Execution cancelled during shutdown" || *runs[0].RunID != "r1" {
			t.Fatalf("stopped firing: %+v", runs)
		}
		if g, _ := st.Get(ctx, due.ID); g.LockedBy != nil {
			t.Fatalf("lease kept after Stop: %+v", g)
		}
		if _, err := p.Trigger(ctx, due); !errors.Is(err, ErrStopped) {
			t.Fatalf("trigger after stop: %v", err)
		}
	})
}
