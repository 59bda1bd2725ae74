package runs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
)

// An instance that cannot renew its lease for longer than the lease
// takes no new run (others may be taking its runs over), and takes runs
// again once a renewal succeeds.
func TestLapsedLeaseTakesNoRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := newFaulty(d.open(t))
		e := started(t, engine(t, st, "replica-a"))
		st.fail("Heartbeat", true)
		try := func(i int) error {
			id := fmt.Sprintf("r-%d", i)
			h, err := e.Begin(ctx, runs.Begin{Row: row(id), Session: session(id)})
			if err != nil {
				return err
			}
			h.Finish(ctx, runs.Finish{Status: run.StatusCompleted, Doc: doc(id, run.StatusCompleted)})
			h.Close()
			return nil
		}
		i := 0
		eventually(t, 10*time.Second, "a run refused once the lease lapsed", func() bool {
			i++
			err := try(i)
			if err != nil && !errors.Is(err, runs.ErrLeaseLapsed) {
				t.Fatalf("Begin: %v, want nil or ErrLeaseLapsed", err)
			}
			return err != nil
		})
		st.fail("Heartbeat", false)
		eventually(t, 10*time.Second, "runs taken again after a renewal", func() bool {
			i++
			return try(i) == nil
		})
		drain(t, e)
	})
}

// A run another instance took over while this one's lease had lapsed
// stops here at once, whether this instance learns it from a refused
// write of its events or from its next renewal; nothing more of it is
// stored.
func TestTakenOverRunStopsHere(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		stA := newFaulty(d.open(t))
		a := started(t, engine(t, stA, "replica-a"))
		b := started(t, engine(t, d.open(t), "replica-b"))
		writing := begin(t, a, "r-writing", true)
		idle := begin(t, a, "r-idle", true)
		writing.events(3)
		idle.events(3)
		storedEvents(t, stA, "r-writing", 3)
		storedEvents(t, stA, "r-idle", 3)

		stA.fail("Heartbeat", true) // a frozen or cut-off replica
		for _, id := range []string{"r-writing", "r-idle"} {
			eventually(t, 15*time.Second, id+" recovered by replica-b", func() bool {
				return getRun(t, stA, id).Status == run.StatusError
			})
		}
		before, err := stA.ListEvents(ctx, "r-writing", -1)
		if err != nil {
			t.Fatal(err)
		}

		writing.events(6) // two full batches: written at once, and refused
		for _, l := range []*live{writing} {
			select {
			case <-l.ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the run went on after its events were refused")
			}
			if cause := context.Cause(l.ctx); !errors.Is(cause, runs.ErrTakenOver) {
				t.Fatalf("%s stopped with %v, want ErrTakenOver", l.id, cause)
			}
		}
		after, err := stA.ListEvents(ctx, "r-writing", -1)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Fatalf("%d events stored after the takeover (%d before): a lost run wrote on", len(after), len(before))
		}
		if idle.ctx.Err() != nil {
			t.Fatal("the idle run stopped before this instance renewed its lease")
		}

		stA.fail("Heartbeat", false) // the renewal tells it what it lost
		select {
		case <-idle.ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the idle run went on after its instance renewed a lapsed lease")
		}
		if cause := context.Cause(idle.ctx); !errors.Is(cause, runs.ErrTakenOver) {
			t.Fatalf("r-idle stopped with %v, want ErrTakenOver", cause)
		}
		for _, l := range []*live{writing, idle} {
			if err := l.end(run.StatusCompleted); err == nil {
				t.Fatalf("%s: the end of a taken-over run was stored", l.id)
			}
			if r := getRun(t, stA, l.id); r.Status != run.StatusError {
				t.Fatalf("%s is %s after its old owner ended it, want replica-b's ERROR", l.id, r.Status)
			}
		}
		drain(t, a)
		drain(t, b)
	})
}

// After an outage that made every heartbeat stale, a replica that gets
// the database back first does not fail the others' runs: it judges
// others only a lease after its own first renewal, and they renew
// within it.
func TestOutageDoesNotFailOthersRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		const lease = 2 * time.Second
		stA, stB := newFaulty(d.open(t)), newFaulty(d.open(t))
		a := started(t, engine(t, stA, "replica-a", withLease(lease)))
		b := started(t, engine(t, stB, "replica-b", withLease(lease)))
		l := begin(t, a, "r-a", true)
		l.events(3)
		storedEvents(t, stA, "r-a", 3)

		// The database is gone for both, longer than the lease.
		stA.fail("Heartbeat", true)
		stB.fail("Heartbeat", true)
		time.Sleep(lease * 3 / 2)
		stB.fail("Heartbeat", false) // B reaches it first
		time.Sleep(lease / 5)
		stA.fail("Heartbeat", false)

		// B's recovery would have acted within lease/2 of its return.
		time.Sleep(lease * 2)
		if r := getRun(t, stA, "r-a"); r.Status != run.StatusRunning {
			t.Fatalf("a healthy run of replica-a became %s after the outage: %s", r.Status, r.Data)
		}
		l.events(3)
		l.mustEnd(run.StatusCompleted)
		if r := getRun(t, stA, "r-a"); r.Status != run.StatusCompleted {
			t.Fatalf("r-a ended %s, want COMPLETED", r.Status)
		}
		drain(t, a)
		drain(t, b)
	})
}

// A second process started under a live instance's id refuses to start,
// and leaves that instance's runs alone.
func TestStartRefusesALiveInstance(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		a := started(t, engine(t, d.open(t), "replica-a"))
		l := begin(t, a, "r-live", true)
		l.events(2)

		again := engine(t, d.open(t), "replica-a")
		err := again.Start(context.Background())
		if !errors.Is(err, runs.ErrInstanceAlive) || !strings.Contains(err.Error(), "instance replica-a is alive: its lease was renewed") {
			t.Fatalf("second start under a live instance id: %v, want ErrInstanceAlive saying so", err)
		}
		if r := getRun(t, a.Store(), "r-live"); r.Status != run.StatusRunning {
			t.Fatalf("the live run became %s when a second process tried to start", r.Status)
		}
		l.mustEnd(run.StatusCompleted)
		drain(t, a)
	})
}

// A clean stop releases the lease, so a restart under the same id starts
// at once; a crash leaves it to lapse, and the restart waits it out and
// then ends the runs the crash left.
func TestRestartAfterReleaseAndAfterCrash(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		long := withLease(10 * time.Minute)
		a := started(t, engine(t, d.open(t), "replica-a", long))
		begin(t, a, "r-done", false).mustEnd(run.StatusCompleted)
		drain(t, a)
		if err := a.Release(ctx); err != nil {
			t.Fatal(err)
		}
		// Without the release this would wait ten minutes (past ctx).
		if err := engine(t, d.open(t), "replica-a", long).Start(ctx); err != nil {
			t.Fatalf("restart after a clean stop: %v", err)
		}

		crashed := started(t, engine(t, d.open(t), "replica-c"))
		l := begin(t, crashed, "r-crash", true)
		l.events(2)
		storedEvents(t, crashed.Store(), "r-crash", 2)
		crashed.Close() // no drain, no release: its lease lapses
		restarted := engine(t, d.open(t), "replica-c")
		if err := restarted.Start(ctx); err != nil {
			t.Fatalf("restart after a crash: %v", err)
		}
		if r := getRun(t, restarted.Store(), "r-crash"); r.Status != run.StatusError || !strings.Contains(string(r.Data), "interrupted") {
			t.Fatalf("the crashed run is %s after the restart: %s", r.Status, r.Data)
		}
		l.h.Close()
		l.unregister()
	})
}

// Drain returns within its grace after cancelling a run that ignores
// the cancel; the run is left to recovery.
func TestDrainHasAHardDeadline(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		e := started(t, engine(t, d.open(t), "replica-a", func(c *runs.Config) { c.DrainGrace = 100 * time.Millisecond }))
		l := begin(t, e, "r-stuck", true)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		done := make(chan []string, 1)
		go func() { done <- e.Drain(ctx, errors.New("shutting down")) }()
		select {
		case ids := <-done:
			if len(ids) != 1 || ids[0] != "r-stuck" {
				t.Fatalf("Drain cancelled %v, want [r-stuck]", ids)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Drain waited on a run that ignores its cancel")
		}
		l.end(run.StatusCancelled)
	})
}
