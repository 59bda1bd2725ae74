package runsapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// A cancel may arrive before its run starts (agno's cancel-before-start:
// a client that chose the run_id cancels while its start request is in
// flight). agno then answers 200 and keeps the intent. Kept here, an
// intent must not cancel somebody else's later run, so it is bound to
// the caller and the component, lasts a minute, is kept only for an id
// no run had when it arrived, and is used once.
const (
	cancelIntentTTL  = time.Minute
	maxCancelIntents = 10000
)

type cancelIntent struct {
	owner, component string
	at               time.Time
}

type cancelIntents struct {
	mu sync.Mutex
	m  map[string]cancelIntent
}

// add keeps an intent; false when the table is full of fresh ones.
func (c *cancelIntents) add(runID, owner, component string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cancelIntent{}
	}
	if len(c.m) >= maxCancelIntents {
		for id, in := range c.m {
			if now.Sub(in.at) >= cancelIntentTTL {
				delete(c.m, id)
			}
		}
		if len(c.m) >= maxCancelIntents {
			return false
		}
	}
	c.m[runID] = cancelIntent{owner: owner, component: component, at: now}
	return true
}

// take reports whether a fresh intent of owner on component is kept for
// runID, and forgets any intent for it.
func (c *cancelIntents) take(runID, owner, component string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	in, ok := c.m[runID]
	if !ok {
		return false
	}
	delete(c.m, runID)
	return in.owner == owner && in.component == component && now.Sub(in.at) < cancelIntentTTL
}

// runIDUnused reports whether no run has runID, here or in the store.
func (g *Group) runIDUnused(ctx context.Context, runID string) (bool, error) {
	if g.host.Running(runID) {
		return false, nil
	}
	if g.host.Store() == nil {
		return true, nil
	}
	_, err := g.host.Store().GetRun(ctx, runID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return false, nil
}

// honorCancelIntent marks a run about to start cancelled when its caller
// asked for that before it existed.
func (g *Group) honorCancelIntent(ctx context.Context, componentID string, req *run.Request) {
	if g.intents.take(req.RunID, httpapi.CallerUser(ctx), componentID, time.Now()) {
		req.Cancelled = true
	}
}
