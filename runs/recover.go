package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		if err := e.st.Heartbeat(ctx, e.cfg.Instance); err != nil && ctx.Err() == nil {
			e.log.Warn("runs: could not renew the lease; other instances take over this instance's runs if it lapses",
				"instance", e.cfg.Instance, "lease", e.cfg.Lease, "error", err)
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
// between is left alone.
func (e *Engine) RecoverExpired(ctx context.Context) error {
	insts, err := e.st.Instances(ctx)
	if err != nil {
		return err
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
// reason as its content.
func (e *Engine) fail(ctx context.Context, r *storage.Run, reason string) error {
	taken, err := e.st.ClaimRun(ctx, storage.Claim{RunID: r.RunID, From: r.Status, To: run.StatusError, ExpectOwner: r.Owner, Version: -1, Listed: true})
	if err != nil {
		return err
	}
	doc := map[string]any{}
	if err := run.DecodeJSON(taken.Data, &doc); err != nil {
		doc = map[string]any{"run_id": taken.RunID}
	}
	doc["status"] = string(run.StatusError)
	doc["content"] = reason
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	taken.Data, taken.UpdatedAt = b, run.Now()
	if err := e.st.UpdateRun(ctx, taken); err != nil {
		return err
	}
	e.changed(ctx, taken)
	return nil
}
