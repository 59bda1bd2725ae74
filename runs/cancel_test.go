package runs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
)

func TestCancelReachesARegisteredRun(t *testing.T) {
	e := For(nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	unregister := e.Register("c-r1", cancel)
	if ok, _ := e.Cancel(context.Background(), "c-r1"); !ok || !errors.Is(context.Cause(ctx), run.ErrCancelled) {
		t.Fatal("a running run was not cancelled")
	}
	unregister()
	if e.Running("c-r1") {
		t.Fatal("an unregistered run still counts as running")
	}
}

// A cancel for a run not registered yet waits for it, but only a while:
// an old intent must not cancel whichever run gets that id much later.
func TestCancelIntentsExpire(t *testing.T) {
	c := newCancels()
	c.intend("soon")
	ctx, cancel := context.WithCancelCause(context.Background())
	c.register("soon", cancel)()
	if context.Cause(ctx) != run.ErrCancelled {
		t.Fatalf("a fresh intent did not cancel the run: %v", context.Cause(ctx))
	}
	c.intend("stale")
	c.mu.Lock()
	c.pending["stale"] = time.Now().Add(-2 * intentTTL)
	c.mu.Unlock()
	ctx, cancel = context.WithCancelCause(context.Background())
	defer cancel(nil)
	unregister := c.register("stale", cancel)
	defer unregister()
	if ctx.Err() != nil {
		t.Fatal("an expired intent cancelled a new run")
	}
	if !c.cancel("stale") || context.Cause(ctx) != run.ErrCancelled {
		t.Fatal("a registered run was not cancelled")
	}
	// Two registrations of one id (a launch and its run) both hear it.
	a, ca := context.WithCancelCause(context.Background())
	b, cb := context.WithCancelCause(context.Background())
	ua, ub := c.register("two", ca), c.register("two", cb)
	ua()
	if !c.cancel("two") || a.Err() != nil || b.Err() == nil {
		t.Fatal("a cancel after one of two unregistered")
	}
	ub()
}
