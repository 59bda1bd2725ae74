package runs_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// background is a Launch whose Exec runs as AgentOS's background runs
// do: it registers its cancel, takes its PENDING row over with Begin,
// then body runs it.
func background(t *testing.T, e *runs.Engine, id string, body func(l *live)) runs.Launch {
	return runs.Launch{Row: row(id), Exec: func(ctx context.Context) {
		rctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		unregister := e.Register(id, cancel)
		defer unregister()
		h, err := e.Begin(rctx, runs.Begin{Row: row(id), Session: session(id), Prepared: true, Resumable: true, Cancel: cancel})
		if err != nil {
			t.Errorf("begin %s: %v", id, err)
			return
		}
		if _, err := h.Started(rctx); err != nil {
			t.Errorf("start %s: %v", id, err)
			h.Close()
			return
		}
		body(&live{t: t, id: id, ctx: rctx, h: h, emit: h.Emitter(nil), unregister: func() {}})
	}}
}

// Background runs — launched, detached, panicking, finishing — are
// waited for by Drain, which cancels the late ones with its cause (and
// they are stored CANCELLED); afterwards nothing starts, and once the
// engine and its store are closed no goroutine is left.
func TestDrainAndCloseLeaveNothingRunning(t *testing.T) {
	t.Run("backends", func(t *testing.T) {
		eachBackend(t, func(t *testing.T, d *db) {
			ctx := context.Background()
			st := d.open(t)
			e := started(t, engine(t, st, "replica-a"))
			shutdown := errors.New("shutting down for the test")

			// A run that completes, followed live from its launch.
			release := make(chan struct{})
			if err := e.Launch(ctx, background(t, e, "r-done", func(l *live) {
				<-release
				l.events(3)
				if err := l.end(run.StatusCompleted); err != nil {
					t.Error(err)
				}
			})); err != nil {
				t.Fatal(err)
			}
			f, err := e.Follow(ctx, "r-done", component, -1)
			if err != nil || !f.Local || f.Settled {
				t.Fatalf("follow of a launched run: %+v %v", f, err)
			}
			if r := getRun(t, st, "r-done"); r.Status != run.StatusPending && r.Status != run.StatusRunning || !r.Listed {
				t.Fatalf("launched run: status %s listed %v", r.Status, r.Listed)
			}
			close(release)
			var got []runs.Event
			for ev, err := range f.Live(ctx, 0, nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			exactly(t, "follow of a background run", got, "r-done", -1, 3)

			// One that only ends when cancelled, as executors end.
			causes := make(chan error, 2)
			if err := e.Launch(ctx, background(t, e, "r-slow", func(l *live) {
				l.events(1)
				<-l.ctx.Done()
				causes <- context.Cause(l.ctx)
				if err := l.end(run.StatusCancelled); err != nil {
					t.Error(err)
				}
			})); err != nil {
				t.Fatal(err)
			}
			// A detached continuation (the WebSocket's), not stored itself.
			if err := e.Detach(ctx, "r-detached", "workflow", func(ctx context.Context) {
				<-ctx.Done()
				causes <- context.Cause(ctx)
			}); err != nil {
				t.Fatal(err)
			}
			// A panic ends the run ERROR, not the process.
			if err := e.Launch(ctx, background(t, e, "r-panic", func(l *live) {
				l.events(1)
				panic("executor bug")
			})); err != nil {
				t.Fatal(err)
			}
			eventually(t, 10*time.Second, "the panicked run is stored ERROR", func() bool {
				r, err := st.GetRun(ctx, "r-panic")
				return err == nil && r.Status == run.StatusError
			})
			if f, err := e.Follow(ctx, "r-panic", component, -1); err != nil || !f.Settled || f.Status != run.StatusError {
				t.Fatalf("follow of the panicked run: %+v %v", f, err)
			}
			// What it emitted before the panic is kept, as the live
			// buffer had it.
			if evs, err := st.ListEvents(ctx, "r-panic", -1); err != nil || len(evs) != 1 {
				t.Fatalf("events of the panicked run: %d %v, want the 1 it emitted", len(evs), err)
			}
			eventually(t, 10*time.Second, "r-slow is running", func() bool { return getRun(t, st, "r-slow").Status == run.StatusRunning })

			dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			drained := make(chan []string, 1)
			go func() { drained <- e.Drain(dctx, shutdown) }()
			var ids []string
			select {
			case ids = <-drained:
			case <-time.After(20 * time.Second):
				t.Fatal("Drain did not end the runs it cancelled")
			}
			slices.Sort(ids)
			if !slices.Equal(ids, []string{"r-detached", "r-slow"}) {
				t.Fatalf("Drain cancelled %v, want r-detached and r-slow", ids)
			}
			for range 2 {
				if cause := <-causes; !errors.Is(cause, shutdown) {
					t.Fatalf("a drained run was cancelled with %v, want the drain's cause", cause)
				}
			}
			for id, want := range map[string]run.Status{"r-done": run.StatusCompleted, "r-slow": run.StatusCancelled, "r-panic": run.StatusError} {
				if r := getRun(t, st, id); r.Status != want {
					t.Errorf("after drain %s is %s, want %s", id, r.Status, want)
				}
			}
			if e.Running("r-slow") || e.Running("r-detached") {
				t.Fatal("a drained run still counts as running")
			}

			// Nothing starts any more.
			if err := e.Launch(ctx, background(t, e, "r-late", func(*live) {})); !errors.Is(err, runs.ErrShuttingDown) {
				t.Fatalf("Launch after Drain: %v", err)
			}
			if _, err := e.Begin(ctx, runs.Begin{Row: row("r-late")}); !errors.Is(err, runs.ErrShuttingDown) {
				t.Fatalf("Begin after Drain: %v", err)
			}
			if err := e.Detach(ctx, "r-late", "agent", func(context.Context) {}); !errors.Is(err, runs.ErrShuttingDown) {
				t.Fatalf("Detach after Drain: %v", err)
			}
			if _, err := e.Claim(ctx, row("r-done"), 1, -1, false, nil); !errors.Is(err, runs.ErrShuttingDown) {
				t.Fatalf("Claim after Drain: %v", err)
			}
			if _, err := st.GetRun(ctx, "r-late"); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("a refused launch was stored: %v", err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		})
	})
	goleak.VerifyNone(t)
}

// Drain waits for runs that end in time and cancels none of them — a
// background run whose executor begins only after the drain started
// included: it was launched before, so it is no new run to refuse.
func TestDrainWaitsForRunsThatEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		st := d.open(t)
		e := started(t, engine(t, st, "replica-a"))
		release := make(chan struct{})
		var ended atomic.Bool
		bg := background(t, e, "r-1", func(l *live) {
			l.events(2)
			if err := l.end(run.StatusCompleted); err != nil {
				t.Error(err)
			}
			ended.Store(true)
		})
		exec := bg.Exec
		bg.Exec = func(ctx context.Context) { <-release; exec(ctx) }
		if err := e.Launch(context.Background(), bg); err != nil {
			t.Fatal(err)
		}
		l := begin(t, e, "r-2", false)
		done := make(chan []string)
		go func() { done <- e.Drain(context.Background(), errors.New("unused")) }()
		// Drain refuses new runs at once, while it waits.
		eventually(t, 10*time.Second, "Drain refuses new runs", func() bool {
			// Admitted until Drain begins: a no-op that ends at once.
			err := e.Detach(context.Background(), "r-3", "agent", func(context.Context) {})
			return errors.Is(err, runs.ErrShuttingDown)
		})
		select {
		case <-done:
			t.Fatal("Drain returned with runs in flight")
		default:
		}
		close(release)
		l.mustEnd(run.StatusCompleted)
		if ids := <-done; ids != nil || !ended.Load() {
			t.Fatalf("Drain cancelled %v, ended %v", ids, ended.Load())
		}
		if l.ctx.Err() != nil {
			t.Fatal("Drain cancelled a run that ended in time")
		}
		for _, id := range []string{"r-1", "r-2"} {
			if r := getRun(t, st, id); r.Status != run.StatusCompleted {
				t.Fatalf("%s is %s after Drain", id, r.Status)
			}
		}
	})
}
