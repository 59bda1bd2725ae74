package runs

import (
	"context"
	"sync"
	"time"

	"github.com/agno-go/agno/run"
)

// cancels are the cancel functions of the runs executing in this
// process, and intents for runs about to start here.
type cancels struct {
	mu      sync.Mutex
	running map[string][]context.CancelCauseFunc
	// pending are cancels that arrived before their run registered, with
	// when: they are for a run about to start, so they expire rather than
	// wait for whichever run gets that id some day.
	pending map[string]time.Time
}

// intentTTL is how long a cancel waits for its run to register.
const intentTTL = time.Minute

// maxIntents bounds the intents kept.
const maxIntents = 10000

func newCancels() *cancels {
	return &cancels{running: map[string][]context.CancelCauseFunc{}, pending: map[string]time.Time{}}
}

func (c *cancels) register(runID string, cancel context.CancelCauseFunc) func() {
	c.mu.Lock()
	if at, ok := c.pending[runID]; ok {
		delete(c.pending, runID)
		if time.Since(at) < intentTTL {
			c.mu.Unlock()
			cancel(run.ErrCancelled)
			return func() {}
		}
	}
	c.running[runID] = append(c.running[runID], cancel)
	n := len(c.running[runID]) - 1
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		list := c.running[runID]
		if n < len(list) {
			list[n] = nil
		}
		for _, f := range list {
			if f != nil {
				return
			}
		}
		delete(c.running, runID)
	}
}

// cancel cancels a registered run; false when none is registered.
func (c *cancels) cancel(runID string) bool {
	// Copied under the lock: an unregister clears its entry in place.
	c.mu.Lock()
	var list []context.CancelCauseFunc
	for _, f := range c.running[runID] {
		if f != nil {
			list = append(list, f)
		}
	}
	c.mu.Unlock()
	for _, f := range list {
		f(run.ErrCancelled)
	}
	return len(list) > 0
}

// intend records a cancel for a run that has not registered yet.
func (c *cancels) intend(runID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) >= maxIntents {
		for id, at := range c.pending {
			if time.Since(at) >= intentTTL {
				delete(c.pending, id)
			}
		}
	}
	if len(c.pending) < maxIntents {
		c.pending[runID] = time.Now()
	}
}

// cancelAll cancels every registered run (shutdown).
func (c *cancels) cancelAll(cause error) {
	c.mu.Lock()
	var all []context.CancelCauseFunc
	for _, list := range c.running {
		for _, f := range list {
			if f != nil {
				all = append(all, f)
			}
		}
	}
	c.mu.Unlock()
	for _, f := range all {
		f(cause)
	}
}

// registered reports whether a run executes here.
func (c *cancels) registered(runID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.running[runID]) > 0
}
