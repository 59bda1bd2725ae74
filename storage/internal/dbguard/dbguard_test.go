package dbguard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/storage"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a fake time a Breaker reads instead of time.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestBreaker() (*Breaker, *clock) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := NewBreaker("postgres")
	b.now = c.now
	return b, c
}

// retry is how long the Breaker holds attempts back from now.
func retry(t *testing.T, b *Breaker) time.Duration {
	t.Helper()
	err := b.Allow()
	var down *DownError
	if !errors.As(err, &down) {
		t.Fatalf("Allow = %v, want a *DownError", err)
	}
	return down.Retry
}

// within reports d in [75%, 125%] of want: the backoff and its jitter.
func within(d, want time.Duration) bool { return d >= want*3/4 && d <= want*5/4 }

var errRefused = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func TestBreakerLetsEveryAttemptGoWhileUp(t *testing.T) {
	b, _ := newTestBreaker()
	for range 100 {
		if err := b.Allow(); err != nil {
			t.Fatalf("Allow on a breaker that saw no failure: %v", err)
		}
	}
	if down, _ := b.Down(); down {
		t.Error("Down on a breaker that saw no failure")
	}
}

func TestBreakerBacksOffExponentiallyToMax(t *testing.T) {
	b, clk := newTestBreaker()
	b.Fail(errRefused)
	if down, last := b.Down(); !down || last != errRefused {
		t.Fatalf("Down = %v, %v after a failure", down, last)
	}
	want := MinBackoff
	for i := range 12 {
		r := retry(t, b)
		if !within(r, want) {
			t.Fatalf("after %d failures the next attempt is in %s, want %s ±25%%", i+1, r, want)
		}
		// Attempts before the slot are held back, and the wait shrinks
		// with the clock.
		clk.advance(r / 2)
		if r2 := retry(t, b); r2 != r-r/2 {
			t.Fatalf("half-way the retry is in %s, want %s", r2, r-r/2)
		}
		clk.advance(r - r/2)
		if err := b.Allow(); err != nil {
			t.Fatalf("the attempt at its slot was held back: %v", err)
		}
		b.Fail(errRefused) // the probe failed
		want = min(2*want, MaxBackoff)
	}
	if want != MaxBackoff {
		t.Fatalf("backoff did not reach MaxBackoff: %s", want)
	}
}

func TestBreakerOneProbePerSlot(t *testing.T) {
	b, clk := newTestBreaker()
	b.Fail(errRefused)
	clk.advance(time.Second)
	if err := b.Allow(); err != nil {
		t.Fatalf("probe held back: %v", err)
	}
	// The probe has not reported (its caller gave up): the others are
	// still held back until the next slot, which is reserved.
	for range 50 {
		if err := b.Allow(); err == nil {
			t.Fatal("a second attempt went while the probe's slot was taken")
		}
	}
}

func TestBreakerCountsAFailureOnce(t *testing.T) {
	b, _ := newTestBreaker()
	b.Fail(errRefused)
	r := retry(t, b)
	// More reports of attempts made before the breaker went down (their
	// callers learn late) neither lengthen nor shorten the wait.
	for range 20 {
		b.Fail(errRefused)
	}
	if r2 := retry(t, b); r2 != r {
		t.Fatalf("reports of the same outage moved the next attempt from %s to %s", r, r2)
	}
	if b.fails != 1 {
		t.Errorf("fails = %d, want 1", b.fails)
	}
}

func TestBreakerOKClosesIt(t *testing.T) {
	b, clk := newTestBreaker()
	for range 5 {
		b.Fail(errRefused)
		clk.advance(MaxBackoff * 2)
		_ = b.Allow()
	}
	b.OK()
	if down, last := b.Down(); down || last != nil {
		t.Fatalf("Down = %v, %v after OK", down, last)
	}
	for range 10 {
		if err := b.Allow(); err != nil {
			t.Fatalf("Allow after OK: %v", err)
		}
	}
	// The next outage starts from MinBackoff again.
	b.Fail(errRefused)
	if r := retry(t, b); !within(r, MinBackoff) {
		t.Errorf("after OK and a new failure the next attempt is in %s, want %s", r, MinBackoff)
	}
}

func TestBreakerJitter(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 50 {
		b, _ := newTestBreaker()
		b.Fail(errRefused)
		r := retry(t, b)
		if !within(r, MinBackoff) {
			t.Fatalf("first backoff %s, want %s ±25%%", r, MinBackoff)
		}
		seen[r] = true
	}
	if len(seen) < 5 {
		t.Errorf("50 breakers chose %d distinct backoffs: replicas would probe in step", len(seen))
	}
}

func TestDownError(t *testing.T) {
	b, clk := newTestBreaker()
	b.Fail(errRefused)
	clk.advance(50 * time.Millisecond)
	err := b.Allow()
	if !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("%v does not wrap storage.ErrUnavailable", err)
	}
	if errors.Is(err, errRefused) {
		t.Error("the DownError wraps the last failure: callers would take it for a new one")
	}
	msg := err.Error()
	for _, part := range []string{"postgres: database unreachable", "50ms ago", "connection refused", "requests fail at once"} {
		if !strings.Contains(msg, part) {
			t.Errorf("%q lacks %q", msg, part)
		}
	}
}

// connectError is a real *pgconn.ConnectError: a refused connection.
func connectError(t *testing.T) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = pgconn.Connect(t.Context(), "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=5")
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("connect to a closed port: %v, want a *pgconn.ConnectError", err)
	}
	return err
}

func TestObserve(t *testing.T) {
	ce := connectError(t)
	for _, c := range []struct {
		name string
		err  error
		down bool
	}{
		{"nil", nil, false},
		{"a query error", errors.New("ERROR: syntax error (SQLSTATE 42601)"), false},
		{"a held-back attempt", &DownError{Name: "postgres", Last: errRefused}, false},
		{"canceled", errors.Join(ce, context.Canceled), false},
		{"a failed connection", ce, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, _ := newTestBreaker()
			b.Observe(c.err)
			if down, _ := b.Down(); down != c.down {
				t.Errorf("Observe(%v): Down = %v, want %v", c.err, down, c.down)
			}
		})
	}
}

func TestDialCountsFailedDials(t *testing.T) {
	b, _ := newTestBreaker()
	fail := func(context.Context, string, string) (net.Conn, error) { return nil, errRefused }
	dial := b.Dial(fail)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := dial(ctx, "tcp", "x:1"); err != errRefused {
		t.Fatal(err)
	}
	if down, _ := b.Down(); down {
		t.Error("a dial whose caller gave up counted as a failure")
	}
	if _, err := dial(t.Context(), "tcp", "x:1"); err != errRefused {
		t.Fatal(err)
	}
	if down, last := b.Down(); !down || last != errRefused {
		t.Errorf("after a refused dial: Down = %v, %v", down, last)
	}
}

// fakeConnector fails or succeeds as told, and counts its attempts.
type fakeConnector struct {
	mu       sync.Mutex
	err      error
	attempts int
}

func (f *fakeConnector) Connect(context.Context) (driver.Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts++
	return nil, f.err
}

func (f *fakeConnector) Driver() driver.Driver { return nil }

// TestConnectorSpacesAttemptsOut makes a call every 10ms for 20s of an
// outage: the database sees one attempt per backoff, not 2000.
func TestConnectorSpacesAttemptsOut(t *testing.T) {
	b, clk := newTestBreaker()
	inner := &fakeConnector{err: errRefused}
	c := Connector{Connector: inner, B: b}
	const outage, every = 20 * time.Second, 10 * time.Millisecond
	var unavailable int
	for elapsed := time.Duration(0); elapsed < outage; elapsed += every {
		_, err := c.Connect(t.Context())
		if errors.Is(err, storage.ErrUnavailable) {
			unavailable++
		} else if err != errRefused {
			t.Fatalf("Connect: %v", err)
		}
		clk.advance(every)
	}
	// 200ms, 400, 800, 1.6s, 3.2s, then 5s apart (each ±25%): at most
	// 1 + 5 + ceil((20s - 4.65s) / 3.75s) = 11 attempts.
	if inner.attempts > 11 || inner.attempts < 5 {
		t.Errorf("%d connection attempts in a %s outage of %d calls: want one per backoff (5 to 11)", inner.attempts, outage, int(outage/every))
	}
	if unavailable < int(outage/every)-11 {
		t.Errorf("%d held-back calls", unavailable)
	}

	// The database is back: the next slot's attempt succeeds, and every
	// attempt goes again.
	inner.mu.Lock()
	inner.err = nil
	inner.mu.Unlock()
	clk.advance(MaxBackoff * 5 / 4)
	if _, err := c.Connect(t.Context()); err != nil {
		t.Fatalf("Connect once the database is back: %v", err)
	}
	before := inner.attempts
	for range 10 {
		if _, err := c.Connect(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if inner.attempts != before+10 {
		t.Errorf("after recovery %d of 10 attempts went", inner.attempts-before)
	}
}

func TestBound(t *testing.T) {
	ctx := t.Context()
	if got, cancel := Bound(ctx, 0); got != ctx {
		t.Error("Bound(ctx, 0) changed the context")
	} else {
		cancel()
	}
	got, cancel := Bound(ctx, time.Second)
	defer cancel()
	dl, ok := got.Deadline()
	if !ok || time.Until(dl) > time.Second || time.Until(dl) < 500*time.Millisecond {
		t.Errorf("Bound(ctx, 1s): deadline %v, %v", dl, ok)
	}
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	if got, cancel := Bound(short, time.Hour); got != short {
		t.Error("Bound lengthened the caller's sooner deadline")
	} else {
		cancel()
	}
}

func TestExplain(t *testing.T) {
	ce := connectError(t)
	if Explain(nil, time.Second) != nil {
		t.Error("Explain(nil) != nil")
	}
	plain := errors.New("ERROR: duplicate key (SQLSTATE 23505)")
	if Explain(plain, time.Second) != plain {
		t.Error("Explain changed an error that is not an outage")
	}
	if err := Explain(context.Canceled, time.Second); err != context.Canceled {
		t.Errorf("Explain(Canceled) = %v", err)
	}
	down := &DownError{Name: "postgres", Last: errRefused}
	if err := Explain(down, time.Second); err != down {
		t.Errorf("Explain(DownError) = %v", err)
	}

	err := Explain(ce, time.Second)
	if !errors.Is(err, storage.ErrUnavailable) || !errors.Is(err, ce) || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("Explain(a refused connection) = %v", err)
	}

	// A connection the server dropped mid-call: shut down, crashed, cut.
	for _, lost := range []error{
		fmt.Errorf("get session: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}),
		fmt.Errorf("get session: %w", io.ErrUnexpectedEOF),
		&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET},
	} {
		if err := Explain(lost, time.Second); !errors.Is(err, storage.ErrUnavailable) || !errors.Is(err, lost) || !strings.Contains(err.Error(), "connection was lost") {
			t.Errorf("Explain(%v) = %v", lost, err)
		}
	}
	if pe := (&pgconn.PgError{Code: "23505"}); Explain(pe, time.Second) != error(pe) {
		t.Error("Explain took a statement's own failure for an outage")
	}

	err = Explain(context.DeadlineExceeded, 15*time.Second)
	if !errors.Is(err, storage.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Explain(DeadlineExceeded) = %v", err)
	}
	for _, part := range []string{"[storage] timeout_seconds", "15s"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q lacks %q", err, part)
		}
	}
}
