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

var errDisk = errors.New("injected: disk I/O error")

// faulty is real storage whose chosen methods fail, as a full disk or a
// lost database connection makes them.
type faulty struct {
	storage.Store
	mu      sync.Mutex
	failing map[string]bool
}

// Methods faulty can fail: the Store's, and SaveRun split into writes of
// a row ("SaveRow") and of events alone ("SaveEvents").
func newFaulty(st storage.Store) *faulty { return &faulty{Store: st, failing: map[string]bool{}} }

func (f *faulty) fail(method string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[method] = on
}

func (f *faulty) err(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing[method] {
		return errDisk
	}
	return nil
}

func (f *faulty) StartRun(ctx context.Context, sess *storage.Session, r *storage.Run, pending bool) (*storage.Session, error) {
	if err := f.err("StartRun"); err != nil {
		return nil, err
	}
	return f.Store.StartRun(ctx, sess, r, pending)
}

func (f *faulty) SaveRun(ctx context.Context, w storage.RunWrite) error {
	method := "SaveEvents"
	if w.Run != nil {
		method = "SaveRow"
	}
	if err := f.err(method); err != nil {
		return err
	}
	return f.Store.SaveRun(ctx, w)
}

func (f *faulty) CreateRun(ctx context.Context, r *storage.Run) error {
	if err := f.err("CreateRun"); err != nil {
		return err
	}
	return f.Store.CreateRun(ctx, r)
}

func (f *faulty) ClaimRun(ctx context.Context, c storage.Claim) (*storage.Run, error) {
	if err := f.err("ClaimRun"); err != nil {
		return nil, err
	}
	return f.Store.ClaimRun(ctx, c)
}

func (f *faulty) RequestCancel(ctx context.Context, runID string) (*storage.Run, error) {
	if err := f.err("RequestCancel"); err != nil {
		return nil, err
	}
	return f.Store.RequestCancel(ctx, runID)
}

func (f *faulty) Heartbeat(ctx context.Context, id string) error {
	if err := f.err("Heartbeat"); err != nil {
		return err
	}
	return f.Store.Heartbeat(ctx, id)
}

func (f *faulty) Instances(ctx context.Context) (map[string]int64, error) {
	if err := f.err("Instances"); err != nil {
		return nil, err
	}
	return f.Store.Instances(ctx)
}

func (f *faulty) ListEvents(ctx context.Context, runID string, after int64) ([]storage.Event, error) {
	if err := f.err("ListEvents"); err != nil {
		return nil, err
	}
	return f.Store.ListEvents(ctx, runID, after)
}

// isStorageErr: the engine's ErrStorage, saying what failed.
func isStorageErr(err error) bool {
	return errors.Is(err, runs.ErrStorage) && strings.Contains(err.Error(), errDisk.Error())
}

// A run whose first write fails fails with it: Started and Finish say
// so, and nothing is stored.
func TestStartFailureFailsTheRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := newFaulty(d.open(t))
		e := started(t, engine(t, st, "replica-a"))
		st.fail("StartRun", true)
		h, err := e.Begin(ctx, runs.Begin{Row: row("r-1"), Session: session("r-1")})
		if err != nil {
			t.Fatal(err) // Begin writes in the background; Started reports
		}
		if _, err := h.Started(ctx); !isStorageErr(err) {
			t.Fatalf("Started after a failed first write: %v, want ErrStorage with the cause", err)
		}
		if err := h.Finish(ctx, runs.Finish{Status: run.StatusCompleted, Doc: doc("r-1", run.StatusCompleted)}); !isStorageErr(err) {
			t.Fatalf("Finish of a run that never started: %v", err)
		}
		if err := h.Save(ctx, doc("r-1", run.StatusRunning)); !isStorageErr(err) {
			t.Fatalf("Save of a run that never started: %v", err)
		}
		h.Close()
		if _, err := st.GetRun(ctx, "r-1"); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("the failed run was stored: %v", err)
		}
		st.fail("StartRun", false)

		// A taken id is the caller's mistake, not storage's.
		l := begin(t, e, "r-2", false)
		l.mustEnd(run.StatusCompleted)
		h, err = e.Begin(ctx, runs.Begin{Row: row("r-2"), Session: session("r-2")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Started(ctx); !errors.Is(err, run.ErrRunExists) || errors.Is(err, runs.ErrStorage) {
			t.Fatalf("a taken run id: %v, want run.ErrRunExists", err)
		}
		h.Close()
		if r := getRun(t, st, "r-2"); r.Status != run.StatusCompleted {
			t.Fatalf("the stored run with the taken id became %s", r.Status)
		}
		drain(t, e)
	})
}

// An event batch that cannot be written stops the run with the error as
// its context's cause; the events are not lost for it: the run's end
// stores them, with no gap in their indexes.
func TestEventWriteFailureStopsTheRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := newFaulty(d.open(t))
		e := started(t, engine(t, st, "replica-a"))
		l := begin(t, e, "r-ev", true)
		l.events(3)
		storedEvents(t, st, "r-ev", 3)
		st.fail("SaveEvents", true)
		l.events(3) // a full batch: written at once, and failing
		select {
		case <-l.ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the run went on after its events could not be stored")
		}
		if cause := context.Cause(l.ctx); !isStorageErr(cause) || !isStorageErr(l.h.Failed()) {
			t.Fatalf("cause %v, Failed %v: want ErrStorage with the cause", cause, l.h.Failed())
		}
		st.fail("SaveEvents", false)
		l.mustEnd(run.StatusError)
		evs, err := st.ListEvents(ctx, "r-ev", -1)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 7 {
			t.Fatalf("%d events stored, want all 7", len(evs))
		}
		for i, ev := range evs {
			if ev.Seq != int64(i) {
				t.Fatalf("stored event %d has index %d", i, ev.Seq)
			}
		}
		drain(t, e)
	})
}

// A run's end that cannot be written is the caller's error to report;
// nothing of it is half written.
func TestFinishFailureIsReturned(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := newFaulty(d.open(t))
		e := started(t, engine(t, st, "replica-a"))
		l := begin(t, e, "r-fin", true)
		l.events(1)
		storedEvents(t, st, "r-fin", 1)
		st.fail("SaveRow", true)
		if err := l.h.Save(ctx, json.RawMessage(`{"run_id":"r-fin","step":1}`)); !isStorageErr(err) {
			t.Fatalf("Save: %v, want ErrStorage with the cause", err)
		}
		l.events(1)
		if err := l.end(run.StatusCompleted); !isStorageErr(err) {
			t.Fatalf("Finish: %v, want ErrStorage with the cause", err)
		}
		if r := getRun(t, st, "r-fin"); r.Status == run.StatusCompleted {
			t.Fatal("after a failed end the run is COMPLETED")
		}
		evs, _ := st.ListEvents(ctx, "r-fin", -1)
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), "RunCompleted") {
				t.Fatalf("the failed end's event was stored: %s", ev.Data)
			}
		}
		// The row would stay RUNNING under this live instance, where no
		// replica recovers it: once storage answers, it is stored ERROR.
		st.fail("SaveRow", false)
		eventually(t, 5*time.Second, "the unstored end recorded as ERROR", func() bool {
			r := getRun(t, st, "r-fin")
			return r.Status == run.StatusError && strings.Contains(string(r.Data), "could not be stored")
		})
		drain(t, e)
	})
}

// The other durable paths report storage failures too.
func TestStorageFailuresAreReported(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := newFaulty(d.open(t))
		e := engine(t, st, "replica-a")

		st.fail("Heartbeat", true)
		if err := e.Start(ctx); err == nil || !strings.Contains(err.Error(), errDisk.Error()) {
			t.Fatalf("Start without a lease: %v", err)
		}
		st.fail("Heartbeat", false)
		e = started(t, engine(t, st, "replica-b"))

		st.fail("CreateRun", true)
		ran := make(chan struct{}, 1)
		err := e.Launch(ctx, runs.Launch{Row: row("r-bg"), Exec: func(context.Context) { ran <- struct{}{} }})
		if !isStorageErr(err) {
			t.Fatalf("Launch that cannot store its run: %v", err)
		}
		st.fail("CreateRun", false)
		if err := e.Launch(ctx, runs.Launch{Row: row("r-bg2"), Exec: func(context.Context) {}}); err != nil {
			t.Fatal(err)
		}
		if err := e.Launch(ctx, runs.Launch{Row: row("r-bg2"), Exec: func(context.Context) { ran <- struct{}{} }}); !errors.Is(err, run.ErrRunExists) {
			t.Fatalf("Launch of a taken id: %v", err)
		}

		l := begin(t, e, "r-c", false)
		st.fail("RequestCancel", true)
		other := engine(t, st, "replica-c")
		if reached, err := other.Cancel(ctx, "r-c"); reached || err == nil || !strings.Contains(err.Error(), errDisk.Error()) {
			t.Fatalf("cancel that cannot be stored: reached=%v err=%v", reached, err)
		}
		st.fail("RequestCancel", false)
		l.mustEnd(run.StatusPaused)

		st.fail("ClaimRun", true)
		if _, err := claim(t, e, "r-c", false); !isStorageErr(err) {
			t.Fatalf("claim that cannot be stored: %v", err)
		}
		st.fail("ClaimRun", false)
		// Counting the stored events fails after the claim: the claim is
		// given back, so the pause can still be continued.
		st.fail("ListEvents", true)
		if _, err := claim(t, e, "r-c", false); !isStorageErr(err) {
			t.Fatalf("claim whose events cannot be read: %v", err)
		}
		st.fail("ListEvents", false)
		if r := getRun(t, st, "r-c"); r.Status != run.StatusPaused {
			t.Fatalf("a failed claim left the run %s", r.Status)
		}
		c, err := claim(t, e, "r-c", false)
		if err != nil {
			t.Fatal(err)
		}
		c.mustEnd(run.StatusCompleted)
		drain(t, e)
		select {
		case <-ran:
			t.Fatal("a run that could not be stored ran")
		default:
		}
	})
}
