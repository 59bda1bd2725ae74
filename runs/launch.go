package runs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Launch describes a background run: its PENDING row and what executes
// it. Exec runs detached from the request that launched it, with the
// row Prepared for its Begin.
type Launch struct {
	// Row is the run's row (ids, session type, component, user, first
	// document); it is stored PENDING and listed before Launch returns.
	Row  storage.Run
	Exec func(ctx context.Context)
}

// Launch stores the run PENDING — a taken id is run.ErrRunExists, a
// storage failure ErrStorage, and nothing runs — then executes it in the
// background: shutdown waits for it (Drain), a cancel from anywhere
// reaches it, and a panic ends it ERROR instead of the process.
func (e *Engine) Launch(ctx context.Context, l Launch) error {
	if err := e.admit(""); err != nil {
		return err
	}
	row := l.Row
	row.Status, row.Owner, row.Listed = run.StatusPending, e.cfg.Instance, true
	if e.st != nil {
		if err := e.st.CreateRun(ctx, &row); err != nil {
			e.runs.Done()
			if errors.Is(err, storage.ErrConflict) {
				return fmt.Errorf("%w: %s", run.ErrRunExists, row.RunID)
			}
			return fmt.Errorf("%w: store background run %s: %v", ErrStorage, row.RunID, err)
		}
	}
	e.streams.open(row.RunID, 0, false) // followers can subscribe before it begins
	e.detach(ctx, row.RunID, string(row.SessionType), l.Exec)
	return nil
}

// Detach runs fn for runID in the background, detached from ctx's
// cancellation: shutdown waits for it (Drain), a cancel reaches it, and a
// panic ends the run ERROR instead of the process (a continuation over
// the WebSocket).
func (e *Engine) Detach(ctx context.Context, runID, kind string, fn func(ctx context.Context)) error {
	if err := e.admit(""); err != nil {
		return err
	}
	e.detach(ctx, runID, kind, fn)
	return nil
}

// detach is Detach for an admitted run.
func (e *Engine) detach(ctx context.Context, runID, kind string, fn func(ctx context.Context)) {
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unregister := e.cancels.register(runID, cancel)
	e.mu.Lock()
	e.launched[runID] = cancel
	e.mu.Unlock()
	go func() {
		defer e.runs.Done()
		defer func() {
			e.mu.Lock()
			delete(e.launched, runID)
			e.mu.Unlock()
			unregister()
			cancel(nil)
		}()
		defer safe.Recover(e.log, kind+" run "+runID, func(pe *safe.PanicError) { e.crashed(runID, pe) })
		fn(rctx)
	}()
}

// Next is the index the next event of a run live here gets (0 when it
// has no live stream here).
func (e *Engine) Next(runID string) int64 {
	if s := e.streams.get(runID); s != nil {
		_, next, _, _ := s.snapshot()
		return next
	}
	return 0
}

// crashed stores a run whose goroutine panicked as ERROR (never left
// RUNNING) and ends its stream.
func (e *Engine) crashed(runID string, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e.mu.Lock()
	r := e.live[runID]
	e.mu.Unlock()
	if r != nil {
		// The events it emitted are kept, as the live buffer has them.
		if e.st != nil {
			if err := r.flush(ctx); err != nil {
				e.log.Error("runs: could not store a crashed run's last events", "run_id", runID, "error", err)
			}
		}
		r.row.Status = run.StatusError
		r.Close()
	} else if s := e.streams.get(runID); s != nil {
		gen, _, _, _ := s.snapshot()
		s.finish(gen, run.StatusError)
	}
	if e.st == nil {
		return
	}
	rec, err := e.st.GetRun(ctx, runID)
	if err != nil || !rec.InFlight() {
		return
	}
	if err := e.fail(ctx, rec, cause.Error()); err != nil {
		e.log.Error("runs: could not store a crashed run as ERROR", "run_id", runID, "error", err)
	}
}
