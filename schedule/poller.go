package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Executor fires a schedule once: it makes the schedule's request and
// reports how it ended. ctx ends at the attempt's timeout (the
// schedule's timeout_seconds) or when the poller stops.
type Executor interface {
	Execute(ctx context.Context, s *Schedule) Result
}

// Result is how one attempt ended.
type Result struct {
	// Status is StatusSuccess, StatusPaused or StatusFailed.
	Status       string
	StatusCode   *int
	RunID        string
	SessionID    string
	Error        string
	Input        map[string]any
	Output       map[string]any
	Requirements []map[string]any
}

// PollerConfig configures a Poller.
type PollerConfig struct {
	Store    *Store
	Executor Executor
	// Instance names this poller in the leases it takes (default a random
	// "worker-…", as agno's).
	Instance string
	// Interval is how often due schedules are claimed (default 15s, as
	// agno's scheduler_poll_interval).
	Interval time.Duration
	// Lease is how long a claim holds without renewal: a replica that dies
	// firing a schedule frees it after Lease (default 5 minutes, agno's
	// lock grace). The poller renews its leases every Lease/3.
	Lease time.Duration
	// MaxConcurrent bounds the firings in flight (default 10, as agno's).
	MaxConcurrent int
	Logger        *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Poller claims due schedules every interval and fires them through the
// Executor, recording each attempt as a Run.
type Poller struct {
	cfg    PollerConfig
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	slots  chan struct{}

	mu      sync.Mutex
	started bool
	stopped bool
}

// Defaults.
const (
	DefaultPollInterval  = 15 * time.Second
	DefaultLease         = 5 * time.Minute
	DefaultMaxConcurrent = 10
)

// NewPoller checks cfg and returns a poller; Start starts it.
func NewPoller(cfg PollerConfig) (*Poller, error) {
	if cfg.Store == nil || cfg.Executor == nil {
		return nil, errors.New("schedule: a Poller needs a Store and an Executor")
	}
	if cfg.Interval < 0 || cfg.Lease < 0 || cfg.MaxConcurrent < 0 {
		return nil, fmt.Errorf("schedule: poll interval (%s), lease (%s) and max concurrent (%d) must not be negative", cfg.Interval, cfg.Lease, cfg.MaxConcurrent)
	}
	if cfg.Instance == "" {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		cfg.Instance = "worker-" + hex.EncodeToString(b)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultPollInterval
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Poller{cfg: cfg, ctx: ctx, cancel: cancel, slots: make(chan struct{}, cfg.MaxConcurrent)}, nil
}

// Instance is the id the poller claims under.
func (p *Poller) Instance() string { return p.cfg.Instance }

// Start starts polling (once; after Stop it does nothing).
func (p *Poller) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.stopped {
		return
	}
	p.started = true
	p.wg.Add(1)
	go p.loop()
	p.cfg.Logger.Info("scheduler poller started", "instance", p.cfg.Instance, "interval", p.cfg.Interval)
}

// Stop stops polling and cancels the firings in flight (their attempts
// are recorded cancelled), and waits for them.
func (p *Poller) Stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

func (p *Poller) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	for {
		p.poll()
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// poll claims due schedules while a slot is free, firing each in its own
// goroutine.
func (p *Poller) poll() {
	for p.ctx.Err() == nil {
		select {
		case p.slots <- struct{}{}:
		default:
			p.cfg.Logger.Warn("scheduler: max concurrent firings reached, waiting", "max", p.cfg.MaxConcurrent)
			return
		}
		s, err := p.cfg.Store.ClaimDue(p.ctx, p.cfg.Instance, p.cfg.Now(), p.cfg.Lease)
		if err != nil || s == nil {
			<-p.slots
			if err != nil && p.ctx.Err() == nil {
				p.cfg.Logger.Error("scheduler: claiming due schedules failed", "error", err)
			}
			return
		}
		p.cfg.Logger.Info("scheduler: claimed schedule", "schedule", s.Name, "id", s.ID)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() { <-p.slots }()
			p.fireClaimed(s)
		}()
	}
}

// fireClaimed fires a claimed schedule, renewing its lease meanwhile, and
// releases it.
func (p *Poller) fireClaimed(s *Schedule) {
	done := make(chan struct{})
	var renewer sync.WaitGroup
	renewer.Add(1)
	go func() {
		defer renewer.Done()
		t := time.NewTicker(max(p.cfg.Lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if ok, err := p.cfg.Store.Renew(p.ctx, s.ID, p.cfg.Instance, p.cfg.Now()); err != nil || !ok {
					if p.ctx.Err() == nil {
						p.cfg.Logger.Warn("scheduler: could not renew a lease", "schedule", s.ID, "error", err)
					}
				}
			}
		}
	}()
	if _, err := p.fire(p.ctx, s); err != nil && p.ctx.Err() == nil {
		p.cfg.Logger.Error("scheduler: firing failed", "schedule", s.ID, "error", err)
	}
	close(done)
	renewer.Wait()
	// Released even when stopping, so another replica need not wait out
	// the lease.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 10*time.Second)
	defer cancel()
	if err := p.cfg.Store.Release(ctx, s.ID, p.cfg.Instance); err != nil {
		p.cfg.Logger.Error("scheduler: could not release a schedule", "schedule", s.ID, "error", err)
	}
}

// ErrStopped is Trigger's error once the poller stopped.
var ErrStopped = errors.New("schedule: the poller is stopped")

// Trigger fires a schedule now, outside its cron and without a lease
// (agno's trigger route), and returns its last attempt. It ends when the
// firing does, or with ctx or Stop.
func (p *Poller) Trigger(ctx context.Context, s *Schedule) (*Run, error) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil, ErrStopped
	}
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	return p.fire(ctx, s)
}

// fire runs a schedule's attempts: up to max_retries+1, retry_delay
// apart, each bounded by timeout_seconds and stored as a Run; it stops at
// the first success or pause, and returns the last attempt.
func (p *Poller) fire(ctx context.Context, s *Schedule) (*Run, error) {
	attempts := max(1, s.MaxRetries+1)
	delay := time.Duration(max(s.RetryDelaySeconds, 0)) * time.Second
	timeout := time.Duration(s.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = DefaultTimeoutSeconds * time.Second
	}
	var last *Run
	for attempt := 1; attempt <= attempts; attempt++ {
		now := p.cfg.Now().Unix()
		r := &Run{ScheduleID: s.ID, Attempt: attempt, TriggeredAt: &now, Status: StatusRunning, CreatedAt: now}
		if err := p.cfg.Store.CreateRun(ctx, r); err != nil {
			return last, fmt.Errorf("schedule %s: store attempt %d: %w", s.ID, attempt, err)
		}
		last = r
		actx, cancel := context.WithTimeout(ctx, timeout)
		res := p.cfg.Executor.Execute(actx, s)
		cancel()
		if ctx.Err() != nil {
			// Stopped (or the trigger's caller left): the attempt did not
			// end on its own.
			res = Result{Status: StatusCancelled, Error: "Execution cancelled during shutdown", RunID: res.RunID, SessionID: res.SessionID}
		}
		apply(r, res, p.cfg.Now().Unix())
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := p.cfg.Store.UpdateRun(wctx, r)
		wcancel()
		if err != nil {
			return r, fmt.Errorf("schedule %s: store attempt %d: %w", s.ID, attempt, err)
		}
		if r.Status == StatusSuccess || r.Status == StatusPaused || r.Status == StatusCancelled {
			return r, nil
		}
		if attempt < attempts {
			p.cfg.Logger.Info("scheduler: retrying", "schedule", s.ID, "attempt", attempt, "of", attempts, "in", delay)
			select {
			case <-ctx.Done():
				return r, nil
			case <-time.After(delay):
			}
		}
	}
	return last, nil
}

func apply(r *Run, res Result, now int64) {
	if res.Status == "" {
		res.Status = StatusFailed
	}
	r.Status, r.StatusCode, r.CompletedAt = res.Status, res.StatusCode, &now
	r.RunID, r.SessionID, r.Error = optional(res.RunID), optional(res.SessionID), optional(res.Error)
	r.Input, r.Output, r.Requirements = res.Input, res.Output, res.Requirements
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
