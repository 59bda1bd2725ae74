package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Follow is a view of a run's stream from one index on: the events a
// client missed, then the live ones until the run settles (completes,
// fails, is cancelled, or pauses). It reads this instance's live stream
// when the run executes here, else storage — so a client resumes on any
// instance — with no gap and no event twice.
type Follow struct {
	e     *Engine
	runID string
	// Status is the run's status when the follow opened; Settled whether
	// it was no longer in flight then (the follow only replays).
	Status  run.Status
	Settled bool
	// Total is how many events the run had when the follow opened;
	// Missed are those after the requested index.
	Total  int64
	Missed []Event
	// Local reports the run's live stream is in this process.
	Local bool

	last int64
	s    *stream
	gen  int
	// ended: an event that ends the run itself was seen (a follower of a
	// run recovered elsewhere gets one made up from its row).
	ended bool
}

// Follow opens a run's stream after index last (-1: from the start).
// componentID, when set, must be the run's. A run that is neither live
// here nor stored is run.ErrNotFound.
func (e *Engine) Follow(ctx context.Context, runID, componentID string, last int64) (*Follow, error) {
	f := &Follow{e: e, runID: runID, last: last}
	if s := e.streams.get(runID); s != nil && (componentID == "" || e.ownedBy(runID, componentID)) && e.current(ctx, s) {
		gen, next, done, status := s.snapshot()
		evs, n, _, _ := s.since(gen, last)
		// The buffer starts where this instance took the run over (a
		// continuation) or where it dropped old events: the rest is stored.
		if from := n + 1 - int64(len(evs)); from > last+1 && e.st != nil {
			older, err := e.storedSince(ctx, runID, last)
			if err != nil {
				return nil, err
			}
			for i, ev := range older {
				if ev.Index >= from {
					older = older[:i]
					break
				}
			}
			evs = append(older, evs...)
		}
		f.Local, f.s, f.gen = true, s, gen
		f.Status, f.Settled, f.Total, f.Missed, f.last = status, done, next, evs, n
		return f, nil
	}
	if e.st == nil {
		return nil, fmt.Errorf("run %s: %w", runID, run.ErrNotFound)
	}
	rec, err := e.st.GetRun(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && componentID != "" && rec.ComponentID != componentID) {
		return nil, fmt.Errorf("run %s: %w", runID, run.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	evs, err := e.storedSince(ctx, runID, last)
	if err != nil {
		return nil, err
	}
	f.Status, f.Settled, f.Missed = rec.Status, !rec.InFlight(), evs
	f.Total = last + 1 + int64(len(evs))
	if len(evs) > 0 {
		f.last = evs[len(evs)-1].Index
	}
	f.saw(evs)
	if f.Settled {
		// The stream's end, if it has one, is its last event: in Missed,
		// or the last the client has.
		if len(evs) == 0 && last >= 0 {
			tail, err := e.storedSince(ctx, runID, last-1)
			if err != nil {
				return nil, err
			}
			f.saw(tail)
		}
		f.Missed = append(f.Missed, f.ending(rec)...)
	}
	return f, nil
}

// saw notes whether evs hold an event that ends the run itself.
func (f *Follow) saw(evs []Event) {
	for _, ev := range evs {
		if endsRun(ev.Name) && ownEvent(ev.Payload, f.runID) {
			f.ended = true
		}
	}
}

// ending is the terminal event a follower gets of a run that ended ERROR
// or CANCELLED without one in its stream (another instance recovered it
// after its owner's lease lapsed): agno's RunError (TeamRunError,
// WorkflowError) with the reason stored on the row. None when the stream
// has its own end.
func (f *Follow) ending(rec *storage.Run) []Event {
	if f.ended || (rec.Status != run.StatusError && rec.Status != run.StatusCancelled) {
		return nil
	}
	f.ended = true
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	reason, _ := doc["content"].(string)
	if reason == "" {
		reason = "The run ended " + string(rec.Status) + " on another instance."
	}
	b := run.EventBase{RunID: rec.RunID, SessionID: rec.SessionID, ParentRunID: rec.ParentRunID}
	var e run.Event
	switch rec.SessionType {
	case storage.SessionTeam:
		b.TeamID = rec.ComponentID
		e = &run.RunError{EventBase: b, Content: reason}
	case storage.SessionWorkflow:
		b.WorkflowID, b.WorkflowRunID = rec.ComponentID, rec.RunID
		e = &run.WorkflowError{EventBase: b, Error: reason}
	default:
		b.AgentID = rec.ComponentID
		e = &run.RunError{EventBase: b, Content: reason}
	}
	idx := f.last + 1
	p, err := payload(run.Stamp(e), idx, rec.RunID)
	if err != nil {
		return nil
	}
	f.last = idx
	return []Event{{Index: idx, Name: e.Kind(), Payload: p}}
}

// endsRun reports an event name that ends a run's stream (agno closes a
// cancelled stream with RunCompleted too).
func endsRun(name string) bool {
	switch strings.TrimPrefix(name, "Team") {
	case "RunCompleted", "RunError", "RunCancelled", "RunPaused",
		"WorkflowCompleted", "WorkflowError", "WorkflowCancelled", "WorkflowPaused":
		return true
	}
	return false
}

// ownEvent reports an event of the run itself, not of a member run it
// forwards.
func ownEvent(p []byte, runID string) bool {
	var b struct {
		RunID string `json:"run_id"`
	}
	return json.Unmarshal(p, &b) == nil && b.RunID == runID
}

// current reports whether a local stream still tells the run's story: it
// is live, or it ended as the run stands in storage (not continued on
// another instance since: that may have paused it again, so the status
// alone does not tell, but the events stored after the buffer's do).
func (e *Engine) current(ctx context.Context, s *stream) bool {
	_, next, done, status := s.snapshot()
	if !done || e.st == nil {
		return true
	}
	rec, err := e.st.GetRun(ctx, s.runID)
	if err != nil {
		return true
	}
	if rec.Status != status {
		return false
	}
	later, err := e.st.ListEvents(ctx, s.runID, next-1)
	return err != nil || len(later) == 0
}

// ownedBy reports whether the run live here belongs to componentID.
func (e *Engine) ownedBy(runID, componentID string) bool {
	e.mu.Lock()
	r, ok := e.live[runID]
	e.mu.Unlock()
	if ok {
		return r.row.ComponentID == componentID
	}
	if e.st == nil {
		return true
	}
	rec, err := e.st.GetRun(context.Background(), runID)
	return err == nil && rec.ComponentID == componentID
}

// storedSince reads stored events after index last, ready to send.
func (e *Engine) storedSince(ctx context.Context, runID string, last int64) ([]Event, error) {
	recs, err := e.st.ListEvents(ctx, runID, last)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(recs))
	for _, r := range recs {
		if name, p, ok := storedPayload(r.Data, r.Seq, runID); ok {
			out = append(out, Event{Index: r.Seq, Name: name, Payload: p})
		}
	}
	return out, nil
}

// Live yields the events after Missed until the run settles or ctx ends.
// Idle is called every interval without an event (SSE heartbeats); a
// false return ends the follow.
func (f *Follow) Live(ctx context.Context, idle time.Duration, heartbeat func() bool) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if f.Settled {
			return
		}
		var beat <-chan time.Time
		if idle > 0 && heartbeat != nil {
			t := time.NewTicker(idle)
			defer t.Stop()
			beat = t.C
		}
		for {
			var evs []Event
			var done bool
			var wait <-chan struct{}
			var err error
			if f.s != nil {
				evs, f.last, done, wait = f.s.since(f.gen, f.last)
			} else {
				evs, done, wait, err = f.fromStorage(ctx)
				if err != nil {
					yield(Event{}, err)
					return
				}
			}
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
			if done {
				return
			}
			select {
			case <-wait:
			case <-beat:
				if !heartbeat() {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}
}

// fromStorage reads the next events of a run on another instance; the
// run settled once its row says so and no event is left (its last write
// holds both).
func (f *Follow) fromStorage(ctx context.Context) (evs []Event, done bool, wait <-chan struct{}, err error) {
	wait = f.e.waitFor(f.runID)
	rec, err := f.e.st.GetRun(ctx, f.runID)
	if err != nil {
		return nil, false, wait, err
	}
	if evs, err = f.e.storedSince(ctx, f.runID, f.last); err != nil {
		return nil, false, wait, err
	}
	if len(evs) > 0 {
		f.last = evs[len(evs)-1].Index
	}
	f.saw(evs)
	done = !rec.InFlight()
	if done {
		evs = append(evs, f.ending(rec)...)
	}
	return evs, done, wait, nil
}

// waitFor returns a channel closed when the run may have changed: a
// signal, a change here, or the next poll.
func (e *Engine) waitFor(runID string) <-chan struct{} {
	ch := make(chan struct{})
	e.waitMu.Lock()
	e.waiters[runID] = append(e.waiters[runID], ch)
	e.waitMu.Unlock()
	poll := e.cfg.Poll
	if e.cfg.Signals != nil && e.startedSig.Load() {
		poll = time.Second // signals wake it; this catches a missed one
	}
	time.AfterFunc(poll, func() { e.wakeFollowers(runID) })
	return ch
}

// wakeFollowers wakes the storage followers of a run.
func (e *Engine) wakeFollowers(runID string) {
	e.waitMu.Lock()
	list := e.waiters[runID]
	delete(e.waiters, runID)
	e.waitMu.Unlock()
	for _, ch := range list {
		close(ch)
	}
}
