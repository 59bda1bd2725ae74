package run

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrCancelled is the cause of a run context cancelled by Cancel.
var ErrCancelled = errors.New("run cancelled")

// Canceller cancels runs by id. The default is in-process; a shared
// implementation (Postgres) reaches runs on other replicas.
type Canceller interface {
	// Register ties a run id to the cancel function of its context. If a
	// cancel for the id arrived earlier, cancel is called at once. The
	// returned function unregisters the run.
	Register(runID string, cancel context.CancelCauseFunc) (unregister func())
	// Cancel cancels the run, or records the intent for a run not yet
	// registered. It reports whether a running run was reached.
	Cancel(ctx context.Context, runID string) (bool, error)
}

// LocalCanceller is the in-process Canceller.
type LocalCanceller struct {
	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
	// pending are intents for runs not registered yet, with when they
	// arrived: an intent is for a run about to start, so it expires
	// rather than wait for whichever run gets that id some day.
	pending map[string]time.Time
}

// pendingCancelTTL is how long an intent waits for its run.
const pendingCancelTTL = time.Minute

// NewLocalCanceller returns an empty in-process canceller.
func NewLocalCanceller() *LocalCanceller {
	return &LocalCanceller{running: map[string]context.CancelCauseFunc{}, pending: map[string]time.Time{}}
}

// DefaultCanceller is shared by agents, teams and workflows that are not
// given one.
var DefaultCanceller Canceller = NewLocalCanceller()

// Register implements Canceller.
func (c *LocalCanceller) Register(runID string, cancel context.CancelCauseFunc) func() {
	c.mu.Lock()
	if at, ok := c.pending[runID]; ok {
		delete(c.pending, runID)
		if time.Since(at) < pendingCancelTTL {
			c.mu.Unlock()
			cancel(ErrCancelled)
			return func() {}
		}
	}
	c.running[runID] = cancel
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.running, runID)
		c.mu.Unlock()
	}
}

// maxPendingCancels bounds intents recorded for runs that never start.
const maxPendingCancels = 10000

// Cancel implements Canceller.
func (c *LocalCanceller) Cancel(_ context.Context, runID string) (bool, error) {
	c.mu.Lock()
	cancel, ok := c.running[runID]
	if !ok {
		if len(c.pending) >= maxPendingCancels {
			for id, at := range c.pending {
				if time.Since(at) >= pendingCancelTTL {
					delete(c.pending, id)
				}
			}
		}
		if len(c.pending) < maxPendingCancels {
			c.pending[runID] = time.Now()
		}
	}
	c.mu.Unlock()
	if ok {
		cancel(ErrCancelled)
	}
	return ok, nil
}
