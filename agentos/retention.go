package agentos

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agno-go/agno/storage"
)

// RetentionConfig prunes the store in the background ([storage.retention]).
type RetentionConfig struct {
	// Policy says what goes (storage.RetentionPolicy); the zero policy
	// starts nothing.
	Policy storage.RetentionPolicy
	// Interval between prunes (default DefaultRetentionInterval); the
	// first prune runs at start.
	Interval time.Duration
}

// DefaultRetentionInterval is RetentionConfig.Interval's default.
const DefaultRetentionInterval = time.Hour

// StartRetention prunes st by c.Policy now and every c.Interval, logging
// what each prune deleted, until the returned stop is called: stop
// cancels a prune under way (its transactions roll back whole) and waits
// for the loop to end. Give it to Config.Closers ahead of the store's
// closer. With the zero policy nothing starts and stop does nothing. A
// store that cannot prune (no storage.Pruner) or a negative policy is an
// error.
func StartRetention(st storage.Store, c RetentionConfig, log *slog.Logger) (stop func() error, err error) {
	nop := func() error { return nil }
	if err := c.Policy.Validate(); err != nil {
		return nop, fmt.Errorf("agentos: retention: %w", err)
	}
	if !c.Policy.Enabled() {
		return nop, nil
	}
	p, ok := st.(storage.Pruner)
	if !ok {
		return nop, fmt.Errorf("agentos: retention ([storage.retention]) is set but the store %T cannot prune: use the sqlite, postgres or memory store, or remove the policy", st)
	}
	if c.Interval <= 0 {
		c.Interval = DefaultRetentionInterval
	}
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.Interval)
		defer t.Stop()
		for {
			prune(ctx, p, c.Policy, log)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() error {
		once.Do(func() {
			cancel()
			<-done
		})
		return nil
	}, nil
}

// prune runs one prune and logs it.
func prune(ctx context.Context, p storage.Pruner, pol storage.RetentionPolicy, log *slog.Logger) {
	start := time.Now()
	res, err := p.Prune(ctx, pol)
	attrs := []any{"sessions", res.Sessions, "runs", res.Runs, "events", res.Events, "took", time.Since(start).Round(time.Millisecond),
		"max_age_days", int64(pol.MaxAge / (24 * time.Hour)), "max_runs", pol.MaxRuns}
	switch {
	case err != nil && ctx.Err() != nil:
		// Stopping: the prune was cut short on purpose.
	case err != nil:
		log.Warn("storage retention: prune failed; it is tried again at the next interval", append(attrs, "error", err)...)
	default:
		log.Info("storage retention: pruned", attrs...)
	}
}
