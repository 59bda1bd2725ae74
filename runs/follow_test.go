package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
)

// followed is what a follower received.
type followed struct {
	missed, live []runs.Event
	err          error
}

func (f followed) all() []runs.Event {
	return append(append([]runs.Event(nil), f.missed...), f.live...)
}

// follow opens a follow on e and reads it to its end in the background.
func follow(t *testing.T, e *runs.Engine, id string, last int64) (*runs.Follow, <-chan followed) {
	t.Helper()
	f, err := e.Follow(context.Background(), id, component, last)
	if err != nil {
		t.Fatalf("follow %s after %d: %v", id, last, err)
	}
	ch := make(chan followed, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		got := followed{missed: f.Missed}
		for ev, err := range f.Live(ctx, 0, nil) {
			if err != nil {
				got.err = err
				break
			}
			got.live = append(got.live, ev)
		}
		if ctx.Err() != nil {
			got.err = fmt.Errorf("the follow did not end: %w", ctx.Err())
		}
		ch <- got
	}()
	return f, ch
}

func result(t *testing.T, ch <-chan followed) followed {
	t.Helper()
	select {
	case got := <-ch:
		if got.err != nil {
			t.Fatal(got.err)
		}
		return got
	case <-time.After(30 * time.Second):
		t.Fatal("follower never returned")
		return followed{}
	}
}

// exactly checks evs are the events after last up to end, each once, in
// order, their payloads carrying their index and run id.
func exactly(t *testing.T, what string, evs []runs.Event, id string, last, end int64) {
	t.Helper()
	if int64(len(evs)) != end-last {
		t.Fatalf("%s: %d events %v, want indexes %d..%d", what, len(evs), indexes(evs), last+1, end)
	}
	for i, ev := range evs {
		want := last + 1 + int64(i)
		var p map[string]any
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatalf("%s: event %d payload: %v", what, ev.Index, err)
		}
		if ev.Index != want || p["event_index"] != float64(want) || p["run_id"] != id || p["event"] != ev.Name {
			t.Fatalf("%s: event %d is %d %s %s, want index %d", what, i, ev.Index, ev.Name, ev.Payload, want)
		}
	}
}

func indexes(evs []runs.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Index
	}
	return out
}

// checkFollowFromStorage runs a resumable run on a and follows it on b,
// which reads storage: followers that join before, during and after the
// run get every event after the index they give, once, in order.
func checkFollowFromStorage(t *testing.T, a, b *runs.Engine) {
	const id = "r-follow"
	l := begin(t, a, id, true)
	early, earlyCh := follow(t, b, id, -1)
	if early.Local || early.Settled || early.Status != run.StatusRunning {
		t.Fatalf("follow of a run on another engine: local=%v settled=%v status=%s", early.Local, early.Settled, early.Status)
	}
	l.events(4)
	storedEvents(t, a.Store(), id, 4)
	// This one catches up from storage, then follows live.
	mid, midCh := follow(t, b, id, 1)
	if mid.Settled || len(mid.Missed) < 2 {
		t.Fatalf("follow mid-run after 1: missed %v settled %v", indexes(mid.Missed), mid.Settled)
	}
	for _, n := range []int{1, 3, 2} {
		l.events(n)
	}
	l.mustEnd(run.StatusCompleted) // index 10: RunCompleted
	const end = 10
	got := result(t, earlyCh)
	exactly(t, "follower from the start", got.all(), id, -1, end)
	if got.all()[end].Name != "RunCompleted" || got.all()[3].Name != "RunContent" {
		t.Fatalf("event names: %s, %s", got.all()[3].Name, got.all()[end].Name)
	}
	got = result(t, midCh)
	exactly(t, "follower that joined mid-run", got.all(), id, 1, end)
	if len(got.live) == 0 {
		t.Fatal("the mid-run follower got nothing live")
	}

	// After the end: a replay from any index.
	local, _ := a.Follow(context.Background(), id, component, -1)
	for _, last := range []int64{-1, 0, 4, 9, end, end + 3} {
		f, err := b.Follow(context.Background(), id, component, last)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Settled || f.Status != run.StatusCompleted || f.Local {
			t.Fatalf("follow of a completed run after %d: %+v", last, f)
		}
		exactly(t, fmt.Sprintf("replay after %d", last), f.Missed, id, last, max(last, end))
		if last <= end && f.Total != end+1 {
			t.Fatalf("replay after %d: total %d, want %d", last, f.Total, end+1)
		}
		for range f.Live(context.Background(), 0, nil) {
			t.Fatal("a settled run's follow yields nothing live")
		}
	}
	// The engine that ran it serves the same events from its buffer.
	fromStorage, _ := b.Follow(context.Background(), id, component, -1)
	if !local.Local || len(local.Missed) != len(fromStorage.Missed) {
		t.Fatalf("local follow: local=%v %d events, from storage %d", local.Local, len(local.Missed), len(fromStorage.Missed))
	}
	for i := range local.Missed {
		var x, y map[string]any
		_ = json.Unmarshal(local.Missed[i].Payload, &x)
		_ = json.Unmarshal(fromStorage.Missed[i].Payload, &y)
		if !reflect.DeepEqual(x, y) || local.Missed[i].Name != fromStorage.Missed[i].Name {
			t.Fatalf("event %d live %s, stored %s", i, local.Missed[i].Payload, fromStorage.Missed[i].Payload)
		}
	}
	for _, e := range []*runs.Engine{a, b} {
		if _, err := e.Follow(context.Background(), id, "another-agent", -1); !errors.Is(err, run.ErrNotFound) {
			t.Fatalf("follow under another component: %v", err)
		}
		if _, err := e.Follow(context.Background(), "no-such-run", "", -1); !errors.Is(err, run.ErrNotFound) {
			t.Fatalf("follow of an unknown run: %v", err)
		}
	}
}

func TestFollowFromStorage(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		checkFollowFromStorage(t, started(t, engine(t, d.open(t), "replica-a")), started(t, engine(t, d.open(t), "replica-b")))
	})
	// With signals the follower is woken by NOTIFY (its own poll is off;
	// a missed signal is caught a second later).
	t.Run("postgres/signals", func(t *testing.T) {
		d := backends[2].make(t)
		stA, stB := d.open(t), d.open(t)
		sigA, sigB := tap(signalsOf(t, stA)), tap(signalsOf(t, stB))
		a := started(t, engine(t, stA, "replica-a", withSignals(sigA)))
		b := started(t, engine(t, stB, "replica-b", withSignals(sigB), withPoll(time.Hour)))
		listening(t, sigA, sigB)
		checkFollowFromStorage(t, a, b)
		if !sigB.heardKind(runs.SignalEvents, "r-follow") {
			t.Fatal("B heard no events signal")
		}
	})
}

// A paused run continued on another engine, and paused again there, is
// one stream wherever it is followed: a follower from the start gets the
// events of every generation, whichever engine it asks.
func TestFollowAContinuationAcrossEngines(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		const id = "r-gen"
		a := started(t, engine(t, d.open(t), "replica-a"))
		b := started(t, engine(t, d.open(t), "replica-b"))
		first := begin(t, a, id, true)
		first.events(2)
		first.mustEnd(run.StatusPaused) // 0..2
		second, err := claim(t, b, id, true)
		if err != nil {
			t.Fatal(err)
		}
		second.n = 3
		_, liveOnB := follow(t, b, id, -1)
		_, liveOnA := follow(t, a, id, -1)
		second.events(2)
		second.mustEnd(run.StatusPaused) // 3..5
		exactly(t, "follower on the continuing engine during the continuation", result(t, liveOnB).all(), id, -1, 5)
		exactly(t, "follower on the first engine during the continuation", result(t, liveOnA).all(), id, -1, 5)
		for _, e := range []*runs.Engine{a, b} {
			f, err := e.Follow(context.Background(), id, component, -1)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Settled || f.Status != run.StatusPaused {
				t.Fatalf("%s: follow of the paused run: settled=%v status=%s", e.Instance(), f.Settled, f.Status)
			}
			exactly(t, e.Instance()+": replay after the second pause", f.Missed, id, -1, 5)
		}
		third, err := claim(t, a, id, true)
		if err != nil {
			t.Fatal(err)
		}
		third.n = 6
		third.events(1)
		third.mustEnd(run.StatusCompleted) // 6, 7
		for _, e := range []*runs.Engine{a, b} {
			f, err := e.Follow(context.Background(), id, component, 2)
			if err != nil {
				t.Fatal(err)
			}
			exactly(t, e.Instance()+": replay of the completed run after 2", f.Missed, id, 2, 7)
		}
	})
}

// The emitter of a resumable run may be called from several goroutines:
// the live stream stays in index order, each event once.
func TestEmitterConcurrentUse(t *testing.T) {
	e, err := runs.New(runs.Config{Logger: quiet}) // no store: the buffer alone
	if err != nil {
		t.Fatal(err)
	}
	const id = "r-concurrent"
	l := begin(t, e, id, true)
	const workers, each = 8, 100
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				l.emit(content(w*each + i))
			}
		})
	}
	wg.Wait()
	l.mustEnd(run.StatusCompleted)
	f, err := e.Follow(context.Background(), id, component, -1)
	if err != nil {
		t.Fatal(err)
	}
	exactly(t, "concurrently emitted stream", f.Missed, id, -1, workers*each)
	f, _ = e.Follow(context.Background(), id, component, 500)
	exactly(t, "concurrently emitted stream after 500", f.Missed, id, 500, workers*each)
}

// An event that cannot be encoded (a NaN) is neither stored nor
// buffered: it must not take an index, or the buffer and storage no
// longer agree on which event has which index.
func TestUnencodableEventTakesNoIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		const id = "r-nan"
		a := started(t, engine(t, d.open(t), "replica-a"))
		b := engine(t, d.open(t), "replica-b")
		l := begin(t, a, id, true)
		l.events(2)
		l.emit(&run.RunContent{EventBase: run.EventBase{AgentID: component}, Content: math.NaN()})
		l.events(2)
		l.mustEnd(run.StatusCompleted)
		for _, e := range []*runs.Engine{a, b} {
			for _, last := range []int64{-1, 2} {
				f, err := e.Follow(context.Background(), id, component, last)
				if err != nil {
					t.Fatal(err)
				}
				exactly(t, fmt.Sprintf("%s after %d", e.Instance(), last), f.Missed, id, last, 4)
			}
		}
	})
}
