package runs

import (
	"context"
	"fmt"
	"time"
)

// The lease is what lets replicas take over each other's runs, so it is
// trusted only when it is known to be live: a process does not start
// under an instance id another live process renews, stops taking runs
// when it cannot renew, stops the runs others took over meanwhile, and
// does not judge others dead from heartbeats its own outage made stale.

// waitOwnLease refuses to start while another live process renews this
// instance's lease, and waits out the lease of one that just died (a
// crash and restart): a renewal seen while waiting is a live process.
func (e *Engine) waitOwnLease(ctx context.Context) error {
	insts, err := e.st.Instances(ctx)
	if err != nil {
		return fmt.Errorf("runs: read the instances' leases: %w", err)
	}
	at, ok := insts[e.cfg.Instance]
	if !ok {
		return nil
	}
	// Heartbeats are whole seconds: the renewal may be up to 1s later.
	lapses := time.Unix(at+1, 0).Add(e.cfg.Lease)
	if !e.now().Before(lapses) {
		return nil
	}
	e.log.Info("runs: this instance id's lease is live; waiting to see whether another process renews it",
		"instance", e.cfg.Instance, "renewed_seconds_ago", e.now().Unix()-at, "lease", e.cfg.Lease)
	step := max(e.cfg.Lease/10, 50*time.Millisecond)
	for {
		t := time.NewTimer(min(step, max(lapses.Sub(e.now()), time.Millisecond)))
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
		insts, err := e.st.Instances(ctx)
		if err != nil {
			return fmt.Errorf("runs: read the instances' leases: %w", err)
		}
		if cur := insts[e.cfg.Instance]; cur > at {
			return fmt.Errorf("%w: instance %s is alive: its lease was renewed %ds ago; stop that process first, or give this one another [agentos] instance_id",
				ErrInstanceAlive, e.cfg.Instance, max(e.now().Unix()-cur, 0))
		}
		if !e.now().Before(lapses) {
			return nil
		}
	}
}

// renewed records a successful renewal. A renewal after a failure, or
// after a gap longer than the lease (the process was frozen), starts a
// new healthy period: others' heartbeats are judged only a lease into
// it.
func (e *Engine) renewed(gap bool) {
	now := e.now().UnixNano()
	e.renewedAt.Store(now)
	if gap || e.healthySince.Load() == 0 {
		e.healthySince.Store(now)
	}
}

// leaseLapsed reports a started engine whose last renewal is older than
// the lease: others may have taken its runs.
func (e *Engine) leaseLapsed() bool {
	at := e.renewedAt.Load()
	return at != 0 && e.now().Sub(time.Unix(0, at)) > e.cfg.Lease
}

// judgesOthers reports whether this instance has been healthy for a full
// lease, so others' stale heartbeats are theirs and not its own outage's.
func (e *Engine) judgesOthers() bool {
	if e.renewedAt.Load() == 0 {
		return true // not started: the caller judges (a test, a tool)
	}
	hs := e.healthySince.Load()
	return hs != 0 && e.now().Sub(time.Unix(0, hs)) >= e.cfg.Lease
}

// stopLost stops the runs live here that storage no longer has in flight
// under this instance: another instance recovered them while this one's
// lease had lapsed. No model or tool call of theirs follows.
func (e *Engine) stopLost(ctx context.Context) {
	e.mu.Lock()
	live := make([]*Run, 0, len(e.live))
	for _, r := range e.live {
		live = append(live, r)
	}
	e.mu.Unlock()
	for _, r := range live {
		rec, err := e.st.GetRun(ctx, r.row.RunID)
		if err != nil {
			continue
		}
		if !rec.InFlight() || rec.Owner != e.cfg.Instance {
			r.lose()
		}
	}
}

// lose stops a run another instance took over.
func (r *Run) lose() {
	err := fmt.Errorf("%w: run %s", ErrTakenOver, r.row.RunID)
	r.mu.Lock()
	first := r.failed == nil
	if first {
		r.failed = err
	}
	r.mu.Unlock()
	if first {
		r.e.log.Warn("runs: a run of this instance was taken over while its lease had lapsed; stopping it here", "run_id", r.row.RunID)
		r.cancel(err)
	}
}
