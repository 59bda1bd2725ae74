// Package dbguard keeps a database outage from turning into a
// connection storm or a hang: a Breaker spaces connection attempts out
// while the database is down (so N requests do not each dial it), and
// Bound gives each storage call a deadline (so a frozen database fails
// requests instead of holding them).
package dbguard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/storage"
)

// Defaults shared by the Postgres run store and the control-plane DB.
const (
	// DefaultCallTimeout bounds one storage call.
	DefaultCallTimeout = 15 * time.Second
	// DefaultConnectTimeout bounds one connection attempt (pgxpool's own
	// default is two minutes).
	DefaultConnectTimeout = 5 * time.Second
	// MinBackoff and MaxBackoff space the attempts after a failure: the
	// first retry comes soon (a blip), the later ones at most MaxBackoff
	// apart, which is also how long a recovered database may wait to be
	// noticed.
	MinBackoff = 200 * time.Millisecond
	MaxBackoff = 5 * time.Second
)

// Breaker decides whether a connection attempt may go. While the
// database answers it lets every attempt go; after an attempt failed, it
// lets one attempt go per backoff (doubling up to Max, with jitter so
// replicas do not probe in step) and fails the others at once with the
// last failure, until an attempt succeeds.
type Breaker struct {
	// Name prefixes messages ("postgres").
	Name     string
	Min, Max time.Duration

	mu      sync.Mutex
	down    bool
	fails   int
	probing bool // an attempt let through while down has not reported
	lastErr error
	lastAt  time.Time
	next    time.Time // no attempt before
	now     func() time.Time
}

// NewBreaker returns a Breaker with MinBackoff and MaxBackoff.
func NewBreaker(name string) *Breaker {
	return &Breaker{Name: name, Min: MinBackoff, Max: MaxBackoff, now: time.Now}
}

// DownError fails a connection attempt the Breaker held back.
type DownError struct {
	Name string
	// Last is the failure of the last attempt, Ago how long since.
	Last error
	Ago  time.Duration
	// Retry is how long until the next attempt may go.
	Retry time.Duration
}

func (e *DownError) Error() string {
	return fmt.Sprintf("%s: database unreachable: the last connection attempt, %s ago, failed (%v); requests fail at once until one succeeds, the next in %s",
		e.Name, e.Ago.Round(time.Millisecond), e.Last, e.Retry.Round(time.Millisecond))
}

// Unwrap makes a DownError storage.ErrUnavailable; the last failure is
// in the message only, so it is not taken for a new one.
func (e *DownError) Unwrap() error { return storage.ErrUnavailable }

// Allow is called before a connection attempt: nil lets it go.
func (b *Breaker) Allow() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.down {
		return nil
	}
	now := b.now()
	if now.Before(b.next) {
		return &DownError{Name: b.Name, Last: b.lastErr, Ago: now.Sub(b.lastAt), Retry: b.next.Sub(now)}
	}
	// This attempt probes; the next slot is reserved now, so an attempt
	// that never reports (its caller gave up) still holds the rest back.
	b.probing = true
	b.next = now.Add(b.backoff())
	return nil
}

// Fail records a failed connection attempt.
func (b *Breaker) Fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.lastErr, b.lastAt = err, now
	switch {
	case !b.down:
		b.down, b.fails = true, 1
	case b.probing:
		b.fails++
		b.probing = false
	default:
		return // another report of an attempt already counted
	}
	b.next = now.Add(b.backoff())
}

// OK records a connection made: attempts go freely again.
func (b *Breaker) OK() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down, b.fails, b.probing, b.lastErr = false, 0, false, nil
}

// Down reports whether attempts are held back, and the last failure.
func (b *Breaker) Down() (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.down, b.lastErr
}

func (b *Breaker) backoff() time.Duration {
	d := b.Max
	if shift := b.fails - 1; shift < 30 {
		d = min(b.Min<<max(shift, 0), b.Max)
	}
	return d*3/4 + rand.N(d/2+1) // 75%–125%
}

// Observe records err, returned by a database call, when it is a failed
// connection attempt (the attempt's caller is the one that learns why).
func (b *Breaker) Observe(err error) {
	var down *DownError
	var ce *pgconn.ConnectError
	if err == nil || errors.As(err, &down) || !errors.As(err, &ce) || errors.Is(err, context.Canceled) {
		return
	}
	b.Fail(err)
}

// Dial wraps a pgx dial function so that a refused or unreachable
// address counts as a failed attempt even when no caller waits for it.
func (b *Breaker) Dial(inner pgconn.DialFunc) pgconn.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := inner(ctx, network, addr)
		if err != nil && ctx.Err() == nil {
			b.Fail(err)
		}
		return c, err
	}
}

// Guard sets cc's connect timeout (when the DSN sets none) and returns
// the hook to run before each connection attempt of cc's copies: it asks
// the Breaker, and wraps the dial.
func (b *Breaker) Guard(cc *pgx.ConnConfig, connectTimeout time.Duration) func(context.Context, *pgx.ConnConfig) error {
	SetConnectTimeout(cc, connectTimeout)
	return func(_ context.Context, c *pgx.ConnConfig) error {
		if err := b.Allow(); err != nil {
			return err
		}
		c.DialFunc = b.Dial(c.DialFunc)
		return nil
	}
}

// SetConnectTimeout sets cc's connect timeout to d, or when d is 0 to
// the DSN's connect_timeout, else DefaultConnectTimeout.
func SetConnectTimeout(cc *pgx.ConnConfig, d time.Duration) {
	if d > 0 {
		cc.ConnectTimeout = d
	} else if cc.ConnectTimeout <= 0 {
		cc.ConnectTimeout = DefaultConnectTimeout
	}
}

// Connector guards a database/sql connector: it asks the Breaker before
// each attempt and tells it how the attempt went.
type Connector struct {
	driver.Connector
	B *Breaker
}

// Connect implements driver.Connector.
func (c Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.B.Allow(); err != nil {
		return nil, err
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.B.Fail(err)
		}
		return nil, err
	}
	c.B.OK()
	return conn, nil
}

// Bound gives ctx a deadline d from now unless it already ends sooner;
// d <= 0 leaves it as it is.
func Bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// Explain marks an error of a database that did not answer in time, or
// could not be connected to, as storage.ErrUnavailable, and says which
// setting bounds the wait.
func Explain(err error, callTimeout time.Duration) error {
	if err == nil || errors.Is(err, storage.ErrUnavailable) || errors.Is(err, context.Canceled) {
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: cannot connect: %w", storage.ErrUnavailable, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: no answer before the deadline (a storage call waits at most %s: [storage] timeout_seconds): %w", storage.ErrUnavailable, callTimeout, err)
	}
	if lost(err) {
		return fmt.Errorf("%w: the connection was lost: %w", storage.ErrUnavailable, err)
	}
	return err
}

// lost reports an error of a connection the server dropped: it shut
// down or crashed (SQLSTATE class 57, operator intervention), or the
// socket ended mid-answer. A statement's own failure is not one.
func lost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "57P")
	}
	var oe *net.OpError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &oe)
}
