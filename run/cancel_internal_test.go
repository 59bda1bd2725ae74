package run

import (
	"context"
	"testing"
	"time"
)

// A cancel for a run not registered yet waits for it, but only a while:
// an old intent must not cancel whichever run gets that id much later.
func TestCancelIntentsExpire(t *testing.T) {
	c := NewLocalCanceller()
	if reached, _ := c.Cancel(context.Background(), "soon"); reached {
		t.Fatal("reached a run that is not registered")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	c.Register("soon", cancel)()
	if context.Cause(ctx) != ErrCancelled {
		t.Fatalf("a fresh intent did not cancel the run: %v", context.Cause(ctx))
	}

	_, _ = c.Cancel(context.Background(), "stale")
	c.mu.Lock()
	c.pending["stale"] = time.Now().Add(-2 * pendingCancelTTL)
	c.mu.Unlock()
	ctx, cancel = context.WithCancelCause(context.Background())
	defer cancel(nil)
	unregister := c.Register("stale", cancel)
	defer unregister()
	if ctx.Err() != nil {
		t.Fatal("an expired intent cancelled a new run")
	}
	if reached, _ := c.Cancel(context.Background(), "stale"); !reached || context.Cause(ctx) != ErrCancelled {
		t.Fatal("a registered run was not cancelled")
	}
}
