package runs_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

func withStartDelay(d time.Duration) func(*runs.Config) {
	return func(c *runs.Config) { c.StartDelay = d }
}

// countingWrites counts the run writes an engine makes to a real store.
type countingWrites struct {
	storage.Store
	starts, saves atomic.Int64
}

func (c *countingWrites) StartRun(ctx context.Context, sess *storage.Session, r *storage.Run, pending bool) (*storage.Session, error) {
	c.starts.Add(1)
	return c.Store.StartRun(ctx, sess, r, pending)
}

func (c *countingWrites) SaveRun(ctx context.Context, w storage.RunWrite) error {
	c.saves.Add(1)
	return c.Store.SaveRun(ctx, w)
}

// mustEndStored ends l with status and checks its stored row has it.
func (l *live) mustEndStored(st storage.Store, status run.Status) {
	l.t.Helper()
	l.mustEnd(status)
	if got := getRun(l.t, st, l.id); got.Status != status {
		l.t.Fatalf("stored run %s: %+v, want %s", l.id, got, status)
	}
}

func notStored(t *testing.T, st storage.Store, id string) {
	t.Helper()
	ctx := context.Background()
	if r, err := st.GetRun(ctx, id); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("run %s is stored before its end: %+v %v", id, r, err)
	}
	if s, err := st.GetSession(ctx, "s-"+id); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("session of run %s is stored before its end: %+v %v", id, s, err)
	}
}

// A run that ends within StartDelay is stored in one write at its end:
// nothing of it before, all of it after (row, events, new session).
func TestShortRunIsStoredInOneWrite(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		st := &countingWrites{Store: d.open(t)}
		e := engine(t, st, "i1", withStartDelay(time.Hour))
		l := begin(t, e, "r-short", false)
		l.events(1) // with the end's, under BatchEvents: no batch
		notStored(t, st, "r-short")
		if !l.h.NewSession() {
			t.Fatal("a run in a session not stored yet: NewSession false")
		}
		l.mustEnd(run.StatusCompleted)
		if starts, saves := st.starts.Load(), st.saves.Load(); starts != 0 || saves != 1 {
			t.Fatalf("the run made %d starts and %d saves, want one save", starts, saves)
		}
		got := getRun(t, st, "r-short")
		if got.Status != run.StatusCompleted || got.Owner != "i1" || got.CreatedAt == 0 {
			t.Fatalf("stored run: %+v", got)
		}
		storedEvents(t, st, "r-short", 2)
		if _, err := st.GetSession(context.Background(), "s-r-short"); err != nil {
			t.Fatalf("session of a run stored at its end: %v", err)
		}
		next := row("r-next")
		next.SessionID = "s-r-short"
		h, err := e.Begin(context.Background(), runs.Begin{Row: next, Session: session("r-short")})
		if err != nil {
			t.Fatal(err)
		}
		if stored, err := h.Started(context.Background()); err != nil || stored == nil || stored.SessionID != "s-r-short" || h.NewSession() {
			t.Fatalf("a run in a stored session: %+v %v, NewSession %v", stored, err, h.NewSession())
		}
		h.Close()
	})
}

// A run still going at StartDelay is stored then, as RUNNING under its
// instance (listed, cancellable from anywhere, recovered if it dies).
func TestLongRunIsStoredAtStartDelay(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		st := d.open(t)
		e := engine(t, st, "i1", withStartDelay(20*time.Millisecond))
		l := begin(t, e, "r-long", false)
		eventually(t, 5*time.Second, "the row written at StartDelay", func() bool {
			r, err := st.GetRun(context.Background(), "r-long")
			return err == nil && r.Status == run.StatusRunning && r.Owner == "i1"
		})
		l.events(1)
		l.mustEndStored(st, run.StatusCompleted)
		storedEvents(t, st, "r-long", 2)
	})
}

// WriteStart stores a deferred run at once (a step that changes its
// session through the store mid-run).
func TestWriteStartStoresTheRunNow(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		st := d.open(t)
		e := engine(t, st, "i1", withStartDelay(time.Hour))
		l := begin(t, e, "r-now", false)
		notStored(t, st, "r-now")
		if err := l.h.WriteStart(l.ctx); err != nil {
			t.Fatal(err)
		}
		if got := getRun(t, st, "r-now"); got.Status != run.StatusRunning {
			t.Fatalf("after WriteStart: %+v", got)
		}
		if _, err := st.UpdateSession(context.Background(), "s-r-now", func(*storage.Session) error { return nil }); err != nil {
			t.Fatalf("session after WriteStart: %v", err)
		}
		l.mustEndStored(st, run.StatusCompleted)
	})
}

// A deferred run checks its id at once, and a run that took the id
// before its end makes that end fail with nothing of it stored.
func TestDeferredRunKeepsIDsUnique(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := d.open(t)
		e := engine(t, st, "i1", withStartDelay(time.Hour))
		taken := row("r-taken")
		taken.Status = run.StatusCompleted
		if err := st.CreateRun(ctx, &taken); err != nil {
			t.Fatal(err)
		}
		h, err := e.Begin(ctx, runs.Begin{Row: row("r-taken"), Session: session("r-taken")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Started(ctx); !errors.Is(err, run.ErrRunExists) {
			t.Fatalf("Started of a taken id: %v, want run.ErrRunExists", err)
		}
		h.Close()

		l := begin(t, e, "r-race", false)
		other := row("r-race")
		other.SessionID, other.Owner = "s-other", "i2"
		if err := st.CreateRun(ctx, &other); err != nil {
			t.Fatal(err)
		}
		l.events(1)
		if err := l.end(run.StatusCompleted); !errors.Is(err, run.ErrRunExists) {
			t.Fatalf("end of a run whose id was taken meanwhile: %v, want run.ErrRunExists", err)
		}
		if got := getRun(t, st, "r-race"); got.SessionID != "s-other" || got.Owner != "i2" {
			t.Fatalf("the other run was changed: %+v", got)
		}
		if _, err := st.GetSession(ctx, "s-r-race"); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("a refused end made its session: %v", err)
		}
		if evs, _ := st.ListEvents(ctx, "r-race", -1); len(evs) != 0 {
			t.Fatalf("a refused end stored %d events", len(evs))
		}
	})
}

// A cancel through another instance reaches a run not stored yet: by
// signal, since there is no row to flag.
func TestCancelOfADeferredRunBySignal(t *testing.T) {
	d := backends[2].make(t)
	stA, stB := d.open(t), d.open(t)
	sigA, sigB := tap(signalsOf(t, stA)), tap(signalsOf(t, stB))
	a := started(t, engine(t, stA, "replica-a", withSignals(sigA), withStartDelay(time.Hour)))
	b := started(t, engine(t, stB, "replica-b", withSignals(sigB)))
	listening(t, sigB, sigA, sigB)
	l := begin(t, a, "r-unstored", false)
	notStored(t, stA, "r-unstored")
	if _, err := b.Cancel(context.Background(), "r-unstored"); !errors.Is(err, run.ErrNotFound) {
		t.Fatalf("cancel of a run not stored: %v, want run.ErrNotFound", err)
	}
	select {
	case <-l.ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the run on engine A was not cancelled by the signal")
	}
	l.mustEndStored(stA, run.StatusCancelled)
}

// Without signals a cancel reaches a run on another instance only through
// its row: while another instance is alive, runs write it as they start.
func TestRunsStoredAtStartBesideAnotherInstanceWithoutSignals(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		stA := d.open(t)
		a := started(t, engine(t, stA, "replica-a", withStartDelay(time.Hour)))
		alone := begin(t, a, "r-alone", false)
		notStored(t, stA, "r-alone")
		alone.mustEnd(run.StatusCompleted)

		b := started(t, engine(t, d.open(t), "replica-b"))
		if err := a.RecoverExpired(ctx); err != nil { // a looks at the leases
			t.Fatal(err)
		}
		beside := begin(t, a, "r-beside", false)
		if got := getRun(t, stA, "r-beside"); got.Status != run.StatusRunning {
			t.Fatalf("run beside another instance: %+v", got)
		}
		beside.mustEnd(run.StatusCompleted)
		cancelAcross(t, a, b)
	})
}

// A deferred start that storage refuses is tried again, and the run goes
// on: an outage may end before the run does.
func TestDeferredStartOutlivesAStorageFailure(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		st := newFaulty(d.open(t))
		e := engine(t, st, "i1", withStartDelay(10*time.Millisecond))
		st.fail("StartRun", true)
		l := begin(t, e, "r-outage", false)
		time.Sleep(50 * time.Millisecond) // several tries fail
		if l.ctx.Err() != nil || l.h.Failed() != nil {
			t.Fatalf("a run whose start could not be stored was stopped: %v %v", context.Cause(l.ctx), l.h.Failed())
		}
		notStored(t, st, "r-outage")
		st.fail("StartRun", false)
		eventually(t, 5*time.Second, "the start stored once storage answers", func() bool {
			r, err := st.GetRun(context.Background(), "r-outage")
			return err == nil && r.Status == run.StatusRunning
		})
		l.mustEndStored(st, run.StatusCompleted)
	})
}
