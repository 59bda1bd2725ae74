package runs

import (
	"context"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Signal kinds.
const (
	// SignalCancel: a cancel was requested for RunID (its flag is set in
	// storage); its owner cancels it.
	SignalCancel = "cancel"
	// SignalEvents: RunID stored new events.
	SignalEvents = "events"
	// SignalStatus: RunID changed status (started, paused, continued,
	// ended, recovered).
	SignalStatus = "status"
)

// Signal is a message between the instances sharing a store. Signals are
// hints: the truth is in storage, and an instance that misses one finds
// out by polling.
type Signal struct {
	Kind        string              `json:"k"`
	RunID       string              `json:"r"`
	Owner       string              `json:"o,omitempty"`
	Status      run.Status          `json:"s,omitempty"`
	ComponentID string              `json:"c,omitempty"`
	SessionType storage.SessionType `json:"t,omitempty"`
	ParentRunID string              `json:"p,omitempty"`
}

// Signals carries Signals between the processes sharing a store
// (runs/pgsignal: Postgres LISTEN/NOTIFY).
type Signals interface {
	// Publish sends signals to every instance (this one included), in
	// order.
	Publish(ctx context.Context, s ...Signal) error
	// Listen calls fn with every signal until ctx ends.
	Listen(ctx context.Context, fn func(Signal)) error
}

// Signals wait in a queue for one publisher, so a run never waits for a
// round trip to the database to send one, and the signals of many runs
// go out together. A full queue drops signals: they are hints, and the
// instances that miss one find out by polling.
const (
	maxQueuedSignals = 4096
	maxSignalBatch   = 256
	// signalLinger lets a burst gather behind its first signal: every
	// publish is a transaction on the database (a quarter of what storing
	// a run costs Postgres), whatever it carries. Events wait as long for
	// their batched write (Config.BatchDelay).
	signalLinger = 5 * time.Millisecond
)

func (e *Engine) publish(_ context.Context, s Signal) {
	if e.cfg.Signals == nil || !e.startedSig.Load() {
		return
	}
	select {
	case e.sigq <- s:
	default:
	}
}

// publishLoop sends the queued signals, as many at a time as gather within
// signalLinger of the first.
func (e *Engine) publishLoop(ctx context.Context) {
	batch := make([]Signal, 0, maxSignalBatch)
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return
		case s := <-e.sigq:
			batch = append(batch, s)
		}
		linger := time.NewTimer(signalLinger)
	more:
		for len(batch) < maxSignalBatch {
			select {
			case s := <-e.sigq:
				batch = append(batch, s)
			case <-linger.C:
				break more
			case <-ctx.Done():
				linger.Stop()
				return
			}
		}
		linger.Stop()
		if err := e.cfg.Signals.Publish(ctx, batch...); err != nil && ctx.Err() == nil {
			e.log.Warn("runs: could not signal other instances; they will find out by polling", "signals", len(batch), "error", err)
		}
	}
}

// signalLoop follows the other instances' signals.
func (e *Engine) signalLoop(ctx context.Context) {
	for ctx.Err() == nil {
		err := e.cfg.Signals.Listen(ctx, e.onSignal)
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("runs: lost the signal channel; polling until it is back", "error", err)
		sleep(ctx, time.Second)
	}
}

func (e *Engine) onSignal(s Signal) {
	switch s.Kind {
	case SignalCancel:
		if s.Owner == e.cfg.Instance || s.Owner == "" {
			e.cancels.cancel(s.RunID)
		}
	case SignalEvents:
		e.wakeFollowers(s.RunID)
	case SignalStatus:
		if s.Owner == e.cfg.Instance {
			return // its own, told as it was made (changed)
		}
		e.wakeFollowers(s.RunID)
		e.notifyWatchers(Change{RunID: s.RunID, Status: s.Status, ComponentID: s.ComponentID, SessionType: s.SessionType, ParentRunID: s.ParentRunID, Owner: s.Owner})
	}
}

// cancelLoop cancels this instance's runs whose cancel flag another
// instance set (the fallback of SignalCancel), and tells watchers of
// status changes when there are no signals.
func (e *Engine) cancelLoop(ctx context.Context) {
	every := e.cfg.Poll
	if e.cfg.Signals != nil {
		every = time.Second // signals do it; this only catches a missed one
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !e.busy() {
			continue
		}
		flagged, err := e.st.ListRuns(ctx, storage.RunQuery{Owner: e.cfg.Instance, CancelRequested: true,
			Status: []run.Status{run.StatusPending, run.StatusRunning}})
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("runs: could not read cancel requests", "error", err)
			}
			continue
		}
		for _, r := range flagged {
			e.cancels.cancel(r.RunID)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ---- changes ----

// Change is a run's new status, seen on this instance or another.
type Change struct {
	RunID       string
	Status      run.Status
	ComponentID string
	SessionType storage.SessionType
	ParentRunID string
	Owner       string
	// Fresh: the run began on this instance and has not been continued
	// from a pause (false when unknown: another instance's change). Such
	// a run has no approvals unless this change pauses it.
	Fresh bool
}

// Watch calls fn with every run status change — of runs of this
// instance at once, of other instances' by signal or, without signals,
// within a second by polling — until stop is called. fn must not block.
func (e *Engine) Watch(fn func(Change)) (stop func()) {
	e.watchMu.Lock()
	e.watchSeq++
	id := e.watchSeq
	e.watchers[id] = fn
	e.watchMu.Unlock()
	return func() {
		e.watchMu.Lock()
		delete(e.watchers, id)
		e.watchMu.Unlock()
	}
}

func (e *Engine) notifyWatchers(c Change) {
	e.watchMu.Lock()
	fns := make([]func(Change), 0, len(e.watchers))
	for _, fn := range e.watchers {
		fns = append(fns, fn)
	}
	e.watchMu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

// changed tells watchers here and other instances of a run's status;
// fresh as in Change.
func (e *Engine) changed(ctx context.Context, r *storage.Run, fresh bool) {
	c := Change{RunID: r.RunID, Status: r.Status, ComponentID: r.ComponentID, SessionType: r.SessionType, ParentRunID: r.ParentRunID, Owner: r.Owner, Fresh: fresh}
	e.notifyWatchers(c)
	e.wakeFollowers(r.RunID)
	e.publish(ctx, Signal{Kind: SignalStatus, RunID: r.RunID, Owner: r.Owner, Status: r.Status, ComponentID: r.ComponentID,
		SessionType: r.SessionType, ParentRunID: r.ParentRunID})
}

// pollChanges finds status changes of other instances' runs by reading
// recently written runs (no signals to say so). Only this instance
// writes a run it owns, and it tells its own changes as it makes them.
func (e *Engine) pollChanges(ctx context.Context) {
	seen := map[string]int64{} // run id → version seen
	t := time.NewTicker(max(e.cfg.Poll*5, 250*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e.watchMu.Lock()
		n := len(e.watchers)
		e.watchMu.Unlock()
		if n == 0 {
			continue
		}
		// This instance's own changes were told as they happened.
		recs, err := e.st.ListRuns(ctx, storage.RunQuery{UpdatedAfter: run.Now() - 2, ExcludeOwner: e.cfg.Instance, WithoutData: true})
		if err != nil {
			continue
		}
		fresh := map[string]int64{}
		for _, r := range recs {
			fresh[r.RunID] = r.Version
			if v, ok := seen[r.RunID]; ok && v == r.Version {
				continue
			}
			e.notifyWatchers(Change{RunID: r.RunID, Status: r.Status, ComponentID: r.ComponentID, SessionType: r.SessionType, ParentRunID: r.ParentRunID, Owner: r.Owner})
		}
		seen = fresh
	}
}
