package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// cancelAcross cancels, through engine b, a foreground run and a
// background run that has not begun yet, both executing on a; a's run
// contexts must end within a second (the bound).
func cancelAcross(t *testing.T, a, b *runs.Engine) {
	ctx := context.Background()
	l := begin(t, a, "r-cancel", false)
	reached, err := b.Cancel(ctx, "r-cancel")
	if err != nil || !reached {
		t.Fatalf("cancel through another engine: reached=%v err=%v", reached, err)
	}
	select {
	case <-l.ctx.Done():
	case <-time.After(time.Second):
		t.Fatal("the run on engine A was not cancelled within 1s of a cancel through engine B")
	}
	if cause := context.Cause(l.ctx); !errors.Is(cause, run.ErrCancelled) {
		t.Fatalf("cancel cause %v, want run.ErrCancelled", cause)
	}
	l.mustEnd(run.StatusCancelled)
	if reached, err := b.Cancel(ctx, "r-cancel"); reached || err != nil {
		t.Fatalf("cancel of a settled run: reached=%v err=%v, want false and no error", reached, err)
	}
	if _, err := b.Cancel(ctx, "no-such-run"); !errors.Is(err, run.ErrNotFound) {
		t.Fatalf("cancel of an unknown run: %v, want run.ErrNotFound", err)
	}

	// A background run, PENDING on a until its executor begins it.
	gate := make(chan struct{})
	cancelled := make(chan error, 1)
	if err := a.Launch(ctx, runs.Launch{Row: row("r-bg"), Exec: func(ctx context.Context) {
		close(gate)
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
	}}); err != nil {
		t.Fatal(err)
	}
	<-gate
	if reached, err := b.Cancel(ctx, "r-bg"); err != nil || !reached {
		t.Fatalf("cancel of a pending background run: reached=%v err=%v", reached, err)
	}
	select {
	case cause := <-cancelled:
		if !errors.Is(cause, run.ErrCancelled) {
			t.Fatalf("background run cancel cause %v", cause)
		}
	case <-time.After(time.Second):
		t.Fatal("the background run on engine A was not cancelled within 1s of a cancel through engine B")
	}
	drain(t, a)
}

func drain(t *testing.T, e *runs.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ids := e.Drain(ctx, errors.New("test over")); len(ids) > 0 {
		t.Fatalf("runs still in flight at the end of the test: %v", ids)
	}
}

// A cancel through one engine reaches a run on another, by polling the
// cancel flag in storage.
func TestCancelThroughAnotherEngine(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		a := started(t, engine(t, d.open(t), "replica-a"))
		b := started(t, engine(t, d.open(t), "replica-b"))
		cancelAcross(t, a, b)
	})
}

// On Postgres the cancel crosses as a NOTIFY: a's poll of the flags is
// blinded, so only the signal can reach it in time.
func TestCancelThroughAnotherEngineBySignal(t *testing.T) {
	d := backends[2].make(t)
	stA, stB := d.open(t), d.open(t)
	sigA, sigB := tap(signalsOf(t, stA)), tap(signalsOf(t, stB))
	a := started(t, engine(t, blindToFlags{stA}, "replica-a", withSignals(sigA)))
	b := started(t, engine(t, stB, "replica-b", withSignals(sigB)))
	listening(t, sigB, sigA, sigB)
	cancelAcross(t, a, b)
	if !sigA.heardKind(runs.SignalCancel, "r-cancel") {
		t.Fatal("engine A heard no cancel signal")
	}
}

// A replica that stops renewing its lease (hung, or killed) loses its
// in-flight runs to another replica — only once the lease expired —
// while its paused runs stay paused for anyone to continue.
func TestExpiredLeaseRecovery(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		const lease = time.Second
		stA := d.open(t)
		a := started(t, engine(t, stA, "replica-a", withLease(lease)))
		inflight := begin(t, a, "r-inflight", true)
		inflight.events(2)
		storedEvents(t, stA, "r-inflight", 2)
		paused := begin(t, a, "r-paused", true)
		paused.events(1)
		paused.mustEnd(run.StatusPaused)

		// A stops heartbeating; its run is still registered, as in a
		// process that hangs.
		a.Close()
		insts, err := stA.Instances(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Heartbeats are whole seconds: nothing may recover A's runs
		// before a lease after the second after its last one.
		safeUntil := time.Unix(insts["replica-a"]+1, 0).Add(lease)

		stB := d.open(t)
		b := engine(t, stB, "replica-b", withLease(lease))
		changes := make(chan runs.Change, 64)
		defer b.Watch(func(c runs.Change) { changes <- c })()
		before := getRun(t, stB, "r-inflight")
		started(t, b)
		f, err := b.Follow(ctx, "r-inflight", component, -1)
		if err != nil || f.Settled || len(f.Missed) != 2 {
			t.Fatalf("follow of A's run on B: %+v %v", f, err)
		}
		followed := make(chan int)
		go func() {
			n := 0
			for _, err := range f.Live(ctx, 0, nil) {
				if err != nil {
					t.Error(err)
				}
				n++
			}
			followed <- n
		}()

		checked := false
		for deadline := time.Now().Add(15 * time.Second); ; {
			if !checked {
				if err := b.RecoverExpired(ctx); err != nil {
					t.Fatal(err)
				}
			}
			r := getRun(t, stB, "r-inflight")
			now := time.Now()
			if r.Status == run.StatusRunning {
				if r.Version != before.Version || r.Owner != "replica-a" {
					t.Fatalf("A's run was written while A's lease held: %+v", r)
				}
				if now.Before(safeUntil) {
					checked = true // B started and recovered, and left it alone
				}
				if now.After(deadline) {
					t.Fatal("B never recovered the run of A's expired lease")
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if now.Before(safeUntil) {
				t.Fatalf("B took A's run at %v, before A's lease expired (%v)", now, safeUntil)
			}
			if r.Status != run.StatusError || r.Owner != "" {
				t.Fatalf("recovered run: status %s owner %q, want ERROR and no owner", r.Status, r.Owner)
			}
			// The document follows the status in a second write.
			var got map[string]any
			eventually(t, 5*time.Second, "the recovered run's document says why", func() bool {
				r = getRun(t, stB, "r-inflight")
				got = nil
				return json.Unmarshal(r.Data, &got) == nil && got["status"] == "ERROR"
			})
			if c, _ := got["content"].(string); !strings.Contains(c, "replica-a let its lease expire") || got["agent_id"] != component {
				t.Fatalf("recovered run document: %s", r.Data)
			}
			break
		}
		if !checked {
			t.Fatal("the test never looked at A's run while A's lease held (machine too slow?)")
		}
		select {
		case n := <-followed:
			if n != 1 {
				t.Fatalf("follower got %d events after recovery, want the RunError of its end", n)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("B's follower of the recovered run did not end")
		}
		waitChange(t, changes, "r-inflight", run.StatusError)

		inflight.h.Close()
		inflight.unregister()

		// The paused run was left alone; B continues it.
		if p := getRun(t, stB, "r-paused"); p.Status != run.StatusPaused {
			t.Fatalf("paused run of the expired replica: %s", p.Status)
		}
		c, err := claim(t, b, "r-paused", true)
		if err != nil {
			t.Fatalf("B claims A's paused run: %v", err)
		}
		c.events(1)
		c.mustEnd(run.StatusCompleted)
		if p := getRun(t, stB, "r-paused"); p.Status != run.StatusCompleted {
			t.Fatalf("continued run: %s", p.Status)
		}
		drain(t, b)
	})
}

func waitChange(t *testing.T, changes <-chan runs.Change, runID string, status run.Status) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.RunID == runID && c.Status == status {
				return
			}
		case <-timeout:
			t.Fatalf("no change of %s to %s seen", runID, status)
		}
	}
}

// A restarted process (same instance id) recovers the runs it left in
// flight as it starts, without waiting for its old lease; its paused
// runs, and its own live runs, are left alone.
func TestRestartRecoversOwnRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		stA := d.open(t)
		// A short lease: the restart waits it out, as after a crash (it
		// cannot tell a dead process from a live one sooner).
		a := started(t, engine(t, stA, "replica-a", withLease(time.Second)))
		fg := begin(t, a, "r-fg", false)
		gate := make(chan struct{})
		if err := a.Launch(ctx, runs.Launch{Row: row("r-bg"), Exec: func(ctx context.Context) { <-gate }}); err != nil {
			t.Fatal(err)
		}
		p := begin(t, a, "r-paused", false)
		p.mustEnd(run.StatusPaused)
		// The engine's own live run is not recovered by its Recover.
		if err := a.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if r := getRun(t, stA, "r-fg"); r.Status != run.StatusRunning {
			t.Fatalf("Recover took the engine's own live run: %s", r.Status)
		}

		a.Close() // the process dies
		restarted := engine(t, d.open(t), "replica-a", withLease(time.Second))
		started(t, restarted)
		for id, want := range map[string]run.Status{"r-fg": run.StatusError, "r-bg": run.StatusError, "r-paused": run.StatusPaused} {
			if r := getRun(t, stA, id); r.Status != want {
				t.Errorf("after restart %s is %s, want %s", id, r.Status, want)
			}
		}
		fg.h.Close()
		fg.unregister()
		close(gate)
		drain(t, a)
		c, err := claim(t, restarted, "r-paused", false)
		if err != nil {
			t.Fatal(err)
		}
		c.mustEnd(run.StatusCompleted)
	})
}

// Starting a replica while another runs — and that replica's recovery
// going on — never touches the live replica's runs.
func TestStartingAnotherEngineLeavesLiveRunsAlone(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		// Heartbeats are whole seconds, so a renewal delayed by a loaded
		// machine (CI runs every package under -race at once) lapses a
		// shorter lease and B rightly recovers A's runs: 1.5 s keeps the
		// test about B's start, not about the machine's latency.
		const lease = 1500 * time.Millisecond
		stA := d.open(t)
		a := started(t, engine(t, stA, "replica-a", withLease(lease)))
		fg := begin(t, a, "r-fg", true)
		fg.events(2)
		gate := make(chan struct{})
		if err := a.Launch(ctx, runs.Launch{Row: row("r-bg"), Exec: func(ctx context.Context) { <-gate }}); err != nil {
			t.Fatal(err)
		}
		storedEvents(t, stA, "r-fg", 2)
		ids := []string{"r-fg", "r-bg"}
		before := map[string]*storage.Run{}
		for _, id := range ids {
			before[id] = getRun(t, stA, id)
		}
		stB := d.open(t)
		b := started(t, engine(t, stB, "replica-b", withLease(lease)))
		// Long enough for A's lease to have lapsed twice had A stopped
		// renewing it (heartbeats are whole seconds).
		for until := time.Now().Add(2*lease + time.Second); time.Now().Before(until); time.Sleep(50 * time.Millisecond) {
			if err := b.Recover(ctx); err != nil {
				t.Fatal(err)
			}
			if err := b.RecoverExpired(ctx); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				r := getRun(t, stB, id)
				if r.Status != before[id].Status || r.Owner != "replica-a" || r.Version != before[id].Version {
					t.Fatalf("starting replica B touched A's run %s: %s owner %q version %d, was %s %q %d",
						id, r.Status, r.Owner, r.Version, before[id].Status, before[id].Owner, before[id].Version)
				}
			}
		}
		fg.events(1)
		fg.mustEnd(run.StatusCompleted)
		close(gate)
		drain(t, a)
	})
}

// Of many continuations of one pause, on two engines at once, exactly
// one wins; the rest are told the run is not paused. A claim is of the
// run as read: a stale version loses even when the run is paused again.
func TestClaimExactlyOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		a := started(t, engine(t, d.open(t), "replica-a"))
		b := started(t, engine(t, d.open(t), "replica-b"))
		p := begin(t, a, "r-pause", true)
		p.events(2)
		p.mustEnd(run.StatusPaused) // three events: two and RunPaused
		stored := getRun(t, a.Store(), "r-pause")

		const n = 16
		engines := []*runs.Engine{a, b}
		handles := make([]*runs.Run, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				handles[i], errs[i] = engines[i%2].Claim(ctx, *stored, stored.Version, -1, true, nil)
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("claims %d and %d both won", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, run.ErrNotPaused):
				t.Fatalf("losing claim: %v, want run.ErrNotPaused", err)
			}
		}
		if winner < 0 {
			t.Fatal("no claim won")
		}
		claimed := getRun(t, a.Store(), "r-pause")
		if claimed.Status != run.StatusRunning || claimed.Owner != engines[winner%2].Instance() || claimed.Version <= stored.Version {
			t.Fatalf("claimed run: %+v", claimed)
		}
		// The continuation's events go on from the stored ones; it pauses
		// again.
		h := handles[winner]
		emit := h.Emitter(nil)
		emit(content(3))
		paused := &run.RunPaused{EventBase: run.EventBase{AgentID: component}}
		if err := h.Finish(ctx, runs.Finish{Status: run.StatusPaused, Doc: doc("r-pause", run.StatusPaused), Terminal: []run.Event{paused}}); err != nil {
			t.Fatal(err)
		}
		emit(paused)
		h.Close()
		evs, err := a.Store().ListEvents(ctx, "r-pause", -1)
		if err != nil || len(evs) != 5 {
			t.Fatalf("events after a continuation: %d %v", len(evs), err)
		}
		for i, ev := range evs {
			if ev.Seq != int64(i) {
				t.Fatalf("event %d has seq %d", i, ev.Seq)
			}
		}
		if _, err := b.Claim(ctx, *stored, stored.Version, -1, false, nil); !errors.Is(err, run.ErrNotPaused) {
			t.Fatalf("claim at a stale version of a paused run: %v, want run.ErrNotPaused", err)
		}
		// A continuation refused before it ran gives the pause back.
		c, err := claim(t, b, "r-pause", false)
		if err != nil {
			t.Fatalf("claim at the current version: %v", err)
		}
		c.release()
		if r := getRun(t, a.Store(), "r-pause"); r.Status != run.StatusPaused {
			t.Fatalf("released claim: %s", r.Status)
		}
		if c, err = claim(t, a, "r-pause", false); err != nil {
			t.Fatalf("claim after a release: %v", err)
		}
		c.mustEnd(run.StatusCompleted)
		if _, err := a.Claim(ctx, *stored, stored.Version, -1, false, nil); !errors.Is(err, run.ErrNotPaused) {
			t.Fatalf("claim of a completed run: %v", err)
		}
		missing := row("no-such-run")
		if _, err := a.Claim(ctx, missing, 1, -1, false, nil); !errors.Is(err, run.ErrNotFound) {
			t.Fatalf("claim of an unknown run: %v, want run.ErrNotFound", err)
		}
		drain(t, a)
		drain(t, b)
	})
}

// Other instances learn of a run's status changes: by signal on
// Postgres, by polling storage elsewhere.
func TestWatchSeesOtherEnginesChanges(t *testing.T) {
	check := func(t *testing.T, a, b *runs.Engine) {
		changes := make(chan runs.Change, 64)
		defer b.Watch(func(c runs.Change) { changes <- c })()
		l := begin(t, a, "r-watched", false)
		l.mustEnd(run.StatusCompleted)
		waitChange(t, changes, "r-watched", run.StatusCompleted)
	}
	replicaPairs(t, check, func(t *testing.T, sigB *tapped) {
		if !sigB.heardKind(runs.SignalStatus, "r-watched") {
			t.Fatal("B heard no status signal")
		}
	})
}

// replicaPairs runs check on two started engines of one database: on
// each backend, polling, and on Postgres with signals (then heard, if
// set, with what B's signals carried).
func replicaPairs(t *testing.T, check func(t *testing.T, a, b *runs.Engine), heard func(t *testing.T, sigB *tapped)) {
	eachBackend(t, func(t *testing.T, d *db) {
		check(t, started(t, engine(t, d.open(t), "replica-a")), started(t, engine(t, d.open(t), "replica-b")))
	})
	t.Run("postgres/signals", func(t *testing.T) {
		d := backends[2].make(t)
		stA, stB := d.open(t), d.open(t)
		sigA, sigB := tap(signalsOf(t, stA)), tap(signalsOf(t, stB))
		a := started(t, engine(t, stA, "replica-a", withSignals(sigA)))
		b := started(t, engine(t, stB, "replica-b", withSignals(sigB)))
		listening(t, sigA, sigB)
		check(t, a, b)
		if heard != nil {
			heard(t, sigB)
		}
	})
}

// Each of this instance's run changes is told to its watchers once, as
// it is made, and marked Fresh: the poll for other instances' changes
// (no signals) and the signals heard back (Postgres) tell none of them
// again. Another instance's change comes by the poll or the signal.
func TestOwnChangesAreToldOnce(t *testing.T) {
	check := func(t *testing.T, a, b *runs.Engine) {
		var mu sync.Mutex
		seen := map[string][]runs.Change{}
		defer a.Watch(func(c runs.Change) {
			mu.Lock()
			seen[c.RunID] = append(seen[c.RunID], c)
			mu.Unlock()
		})()
		for _, id := range []string{"r-own-1", "r-own-2"} {
			begin(t, a, id, false).mustEnd(run.StatusCompleted)
		}
		begin(t, b, "r-other", false).mustEnd(run.StatusCompleted)
		eventually(t, 10*time.Second, "another instance's change told", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen["r-other"]) > 0
		})
		time.Sleep(600 * time.Millisecond) // more polls over the same window
		mu.Lock()
		defer mu.Unlock()
		for _, id := range []string{"r-own-1", "r-own-2"} {
			if cs := seen[id]; len(cs) != 1 || cs[0].Status != run.StatusCompleted || !cs[0].Fresh {
				t.Errorf("changes told of %s: %+v, want one COMPLETED, fresh", id, cs)
			}
		}
		if cs := seen["r-other"]; len(cs) == 0 || cs[len(cs)-1].Status != run.StatusCompleted || cs[0].Fresh {
			t.Errorf("changes told of another instance's run: %+v, want its COMPLETED, not fresh", cs)
		}
	}
	replicaPairs(t, check, nil)
}

// A replica that comes back after its run was recovered must not write
// over the recovery: its Finish is refused (the engine reports
// "taken over").
func TestLateFinishOfARecoveredRunIsRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		a := started(t, engine(t, d.open(t), "replica-a", withLease(time.Second)))
		l := begin(t, a, "r-late", true)
		l.events(2)
		a.Close()
		started(t, engine(t, d.open(t), "replica-a", withLease(time.Second))) // restarted once the lease lapsed: recovers r-late
		if r := getRun(t, a.Store(), "r-late"); r.Status != run.StatusError {
			t.Fatalf("not recovered: %s", r.Status)
		}
		if err := l.end(run.StatusCompleted); !errors.Is(err, runs.ErrStorage) {
			t.Errorf("late finish of a recovered run: %v, want ErrStorage (taken over)", err)
		}
		if r := getRun(t, a.Store(), "r-late"); r.Status != run.StatusError {
			t.Errorf("the late finish replaced the recovery: %s", r.Status)
		}
	})
}

// The cancel given to Begin or Claim is "a cancel from anywhere" on its
// own, without a separate Register: through this engine, through another
// one, and it keeps the engine's own Recover off the run.
func TestCancelGivenToBeginIsReached(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		a := started(t, engine(t, d.open(t), "replica-a"))
		b := started(t, engine(t, d.open(t), "replica-b"))
		handle := func(id string, claimIt bool) (context.Context, *runs.Run) {
			rctx, cancel := context.WithCancelCause(ctx)
			t.Cleanup(func() { cancel(nil) })
			if claimIt {
				stored := getRun(t, a.Store(), id)
				h, err := a.Claim(rctx, *stored, stored.Version, -1, false, cancel)
				if err != nil {
					t.Fatal(err)
				}
				return rctx, h
			}
			h, err := a.Begin(rctx, runs.Begin{Row: row(id), Session: session(id), Cancel: cancel})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.Started(rctx); err != nil {
				t.Fatal(err)
			}
			return rctx, h
		}
		cancelled := func(rctx context.Context, how string) {
			t.Helper()
			select {
			case <-rctx.Done():
			case <-time.After(time.Second):
				t.Fatalf("the run was not cancelled within 1s %s", how)
			}
		}
		rctx, h := handle("r-1", false)
		if err := a.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if r := getRun(t, a.Store(), "r-1"); r.Status != run.StatusRunning {
			t.Fatalf("the engine's Recover took its own live run: %s", r.Status)
		}
		if _, err := b.Cancel(ctx, "r-1"); err != nil {
			t.Fatal(err)
		}
		cancelled(rctx, "through another engine")
		h.Finish(ctx, runs.Finish{Status: run.StatusCancelled, Doc: doc("r-1", run.StatusCancelled)})
		h.Close()

		rctx, h = handle("r-2", false)
		if reached, err := a.Cancel(ctx, "r-2"); !reached || err != nil {
			t.Fatalf("cancel through its engine: %v %v", reached, err)
		}
		cancelled(rctx, "through its engine")
		h.Finish(ctx, runs.Finish{Status: run.StatusPaused, Doc: doc("r-2", run.StatusPaused)})
		h.Close()
		if a.Running("r-2") {
			t.Fatal("a closed run still takes cancels")
		}

		rctx, h = handle("r-2", true)
		if _, err := b.Cancel(ctx, "r-2"); err != nil {
			t.Fatal(err)
		}
		cancelled(rctx, "after a claim, through another engine")
		h.Finish(ctx, runs.Finish{Status: run.StatusCancelled, Doc: doc("r-2", run.StatusCancelled)})
		h.Close()
		drain(t, a)
	})
}
