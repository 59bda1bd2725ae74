package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// heartbeatLoop renews this instance's lease.
func (e *Engine) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(e.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		prev := e.renewedAt.Load()
		if err := e.st.Heartbeat(ctx, e.cfg.Instance); err != nil {
			if ctx.Err() != nil {
				return
			}
			e.healthySince.Store(0)
			e.log.Warn("runs: could not renew the lease; other instances take over this instance's runs if it lapses",
				"instance", e.cfg.Instance, "lease", e.cfg.Lease, "error", err)
			continue
		}
		gap := prev != 0 && e.now().Sub(time.Unix(0, prev)) > e.cfg.Lease
		e.renewed(gap)
		if gap {
			// The lease lapsed (an outage, a frozen process): others may
			// have recovered runs still going here.
			e.stopLost(ctx)
		}
		e.settleUnsettled(ctx)
	}
}

// unsettle records a run whose end could not be stored.
func (e *Engine) unsettle(runID, reason string) {
	e.mu.Lock()
	e.unsettled[runID] = reason
	e.mu.Unlock()
}

// settleUnsettled stores ERROR the runs whose end could not be stored,
// now that storage answers (their clients were told the run failed).
func (e *Engine) settleUnsettled(ctx context.Context) {
	e.mu.Lock()
	pending := maps.Clone(e.unsettled)
	e.mu.Unlock()
	for runID, reason := range pending {
		rec, err := e.st.GetRun(ctx, runID)
		failed := false
		if err == nil && rec.InFlight() && rec.Owner == e.cfg.Instance {
			err = e.fail(ctx, rec, reason)
			failed = err == nil
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrConflict) {
			continue // storage still failing: the next beat tries again
		}
		e.mu.Lock()
		delete(e.unsettled, runID)
		e.mu.Unlock()
		if failed {
			e.log.Warn("runs: stored as ERROR a run whose end could not be stored", "run_id", runID)
		}
	}
}

// recoveryLoop ends the in-flight runs of instances whose lease expired.
func (e *Engine) recoveryLoop(ctx context.Context) {
	t := time.NewTicker(max(e.cfg.Lease/2, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := e.RecoverExpired(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("runs: recovery of expired instances' runs failed", "error", err)
		}
	}
}

// RecoverExpired marks ERROR the in-flight runs whose owner's lease
// expired. Any instance may do it; a run claimed by a live instance in
// between is left alone. A started engine does it only once its own
// renewals have succeeded for a full lease: after an outage every
// heartbeat is stale by the outage's length, and the others get that
// lease to renew theirs.
func (e *Engine) RecoverExpired(ctx context.Context) error {
	insts, err := e.st.Instances(ctx)
	if err != nil {
		return err
	}
	e.noteOthers(insts)
	if !e.judgesOthers() {
		return nil // its own outage made every heartbeat look old
	}
	deadline := time.Now().Add(-e.cfg.Lease).Unix()
	for owner, at := range insts {
		if owner == e.cfg.Instance || at >= deadline {
			continue
		}
		if err := e.recoverOwner(ctx, owner, "its server stopped answering (instance "+owner+" let its lease expire)"); err != nil {
			return err
		}
	}
	return nil
}

// noteOthers records whether another instance renews its lease: without
// signals, a cancel from it reaches a run only through the run's row, so
// runs then write their row as they start (Config.StartDelay).
func (e *Engine) noteOthers(insts map[string]int64) {
	live := time.Now().Add(-e.cfg.Lease).Unix()
	others := false
	for owner, at := range insts {
		if owner != e.cfg.Instance && at >= live {
			others = true
		}
	}
	e.othersAlive.Store(others)
}

// deferStarts reports whether a new run that is not resumable may write
// its row late (Config.StartDelay).
func (e *Engine) deferStarts() bool {
	return e.cfg.StartDelay > 0 && (e.cfg.Signals != nil || !e.othersAlive.Load())
}

// recoverOwner marks ERROR the in-flight runs of owner.
func (e *Engine) recoverOwner(ctx context.Context, owner, why string) error {
	recs, err := e.st.ListRuns(ctx, storage.RunQuery{Status: []run.Status{run.StatusRunning, run.StatusPending}})
	if err != nil {
		return fmt.Errorf("runs: list runs in flight: %w", err)
	}
	for _, r := range recs {
		if r.Owner != owner || e.cancels.registered(r.RunID) {
			continue
		}
		err := e.fail(ctx, r, "The run was interrupted: "+why+".")
		if errors.Is(err, storage.ErrConflict) {
			continue // claimed, or ended, meanwhile
		}
		if err != nil {
			return err
		}
		e.log.Warn("runs: marked a run interrupted by a stopped instance as ERROR", "run_id", r.RunID, "component", r.ComponentID, "owner", owner)
	}
	return nil
}

// fail takes an in-flight run from its owner and stores it ERROR with
// reason as its content, in one write (a reader never sees the ERROR
// with the old document). The document is of the row as read; if the
// row moved since, it is read again.
func (e *Engine) fail(ctx context.Context, r *storage.Run, reason string) error {
	for attempt := 0; ; attempt++ {
		doc := map[string]any{}
		if err := run.DecodeJSON(r.Data, &doc); err != nil || len(r.Data) == 0 {
			doc = map[string]any{"run_id": r.RunID}
		}
		doc["status"] = string(run.StatusError)
		doc["content"] = reason
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		taken, err := e.st.ClaimRun(ctx, storage.Claim{RunID: r.RunID, From: r.Status, To: run.StatusError, ExpectOwner: r.Owner,
			Version: r.Version, Listed: true, Data: b})
		if errors.Is(err, storage.ErrConflict) && attempt < 3 {
			fresh, gerr := e.st.GetRun(ctx, r.RunID)
			if gerr != nil {
				return gerr
			}
			if !fresh.InFlight() || fresh.Owner != r.Owner {
				return err // settled or taken meanwhile: nothing to recover
			}
			r = fresh
			continue
		}
		if err != nil {
			return err
		}
		e.changed(ctx, taken, false)
		return nil
	}
}
