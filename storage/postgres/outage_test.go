package postgres

// Outages of a PostgreSQL server of the test's own (pgtest.Private):
// stopped, frozen, and asked for more connections than the pool may
// hold. They need the PostgreSQL 15 server binaries, and skip without
// them unless AGNO_TEST_REQUIRE_POSTGRES=1.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/storetest"
)

// openOn opens a store on dsn, closed when the test ends.
func openOn(t *testing.T, cfg Config) *Store {
	t.Helper()
	cfg.Logger = quiet
	st, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// recoverWithin calls GetSession until it works, and fails the test
// unless that happens within d.
func recoverWithin(t *testing.T, st *Store, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for time.Since(start) < d {
		if _, err = st.GetSession(t.Context(), "sess-0"); err == nil {
			return time.Since(start)
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the store did not recover within %s of the database coming back: %v", d, err)
	return 0
}

func containsAny(s string, parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// recoveryBound is how long a store may take to notice that its
// database is back: the longest backoff (with its jitter), and slack
// for a loaded machine.
const recoveryBound = dbguard.MaxBackoff*5/4 + 5*time.Second

// TestOutageStopStart stops the server for a few seconds: calls fail
// fast with storage.ErrUnavailable saying why, the store comes back by
// itself once the server does, and nothing is lost.
func TestOutageStopStart(t *testing.T) {
	testOutage(t, (*pgtest.Server).Stop)
}

// TestOutageKilled is TestOutageStopStart with the server killed
// (SIGKILL, a crash): what was committed before survives its recovery.
func TestOutageKilled(t *testing.T) {
	testOutage(t, (*pgtest.Server).Kill)
}

func testOutage(t *testing.T, down func(*pgtest.Server)) {
	srv := pgtest.Private(t)
	st := openOn(t, Config{DSN: srv.DSN(), MaxConns: 4, CallTimeout: 10 * time.Second})
	storetest.Seed(t, st, 0, 5)
	storetest.CheckSeeded(t, st, 5)

	down(srv)
	outage := time.Now()
	calls := 0
	for time.Since(outage) < 3*time.Second {
		start := time.Now()
		_, err := st.GetSession(t.Context(), "sess-0")
		took := time.Since(start)
		calls++
		if err == nil {
			t.Fatal("GetSession worked with the server down")
		}
		// The database problem is named: the server ended the
		// connection (shutdown, crash), or refused the next.
		if !errors.Is(err, storage.ErrUnavailable) {
			t.Errorf("call %d during the outage: %v\nwant an error wrapping storage.ErrUnavailable", calls, err)
		} else if msg := err.Error(); !containsAny(msg, "connection refused", "terminating connection", "unexpected EOF", "connection reset") {
			t.Errorf("call %d during the outage: %q does not say the connection was refused or ended", calls, msg)
		}
		if took > 2*time.Second {
			t.Errorf("call %d during the outage took %s: want it to fail fast", calls, took)
		}
		if err := storage.Ping(t.Context(), st); !errors.Is(err, storage.ErrUnavailable) {
			t.Errorf("storage.Ping during the outage: %v, want storage.ErrUnavailable", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%d calls in a %s outage", calls, time.Since(outage).Round(time.Millisecond))

	srv.Start()
	t.Logf("recovered %s after the server came back", recoverWithin(t, st, recoveryBound).Round(time.Millisecond))
	if err := storage.Ping(t.Context(), st); err != nil {
		t.Errorf("storage.Ping after the outage: %v", err)
	}
	storetest.CheckSeeded(t, st, 5)
	storetest.Seed(t, st, 5, 6) // writes work again
	storetest.CheckSeeded(t, st, 6)
}

// countingProxy forwards TCP connections to a server and counts the
// connection attempts a client made through it (a startup or SSL
// request opening the connection), apart from cancel requests (pgx
// sends one for a connection it gives up). With the server down it
// resets each connection, as the refused dial it met.
type countingProxy struct {
	l        net.Listener
	upstream string
	// startups and cancels count connections by their first message.
	startups, cancels atomic.Int64
	wg                sync.WaitGroup
	mu                sync.Mutex
	conns             map[net.Conn]struct{}
}

func newCountingProxy(t *testing.T, upstream string) *countingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{l: l, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *countingProxy) addr() string { return p.l.Addr().String() }

func (p *countingProxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return false
	}
	if add {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	return true
}

// cancelRequestCode is the protocol's CancelRequest code (the second
// int32 of the connection's first message).
const cancelRequestCode = 80877102

func (p *countingProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		if !p.track(c, true) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.track(c, false)
			defer c.Close()
			// Length and code of the first message.
			head := make([]byte, 8)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadFull(c, head); err != nil {
				return
			}
			c.SetReadDeadline(time.Time{})
			if binary.BigEndian.Uint32(head[4:]) == cancelRequestCode {
				p.cancels.Add(1)
			} else {
				p.startups.Add(1)
			}
			up, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
			if err != nil {
				c.(*net.TCPConn).SetLinger(0) // a reset, not a clean end
				return
			}
			p.track(up, true)
			defer p.track(up, false)
			defer up.Close()
			if _, err := up.Write(head); err != nil {
				return
			}
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
			<-done
			c.Close()
			up.Close()
			<-done
		}()
	}
}

func (p *countingProxy) close() {
	p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// maxAttempts is how many connection attempts a Breaker lets go in a
// window w after the first failure: one per backoff, each at least 75%
// of min(MinBackoff·2^k, MaxBackoff).
func maxAttempts(w time.Duration) int {
	n, at, d := 1, time.Duration(0), dbguard.MinBackoff
	for {
		at += d * 3 / 4
		if at > w {
			return n
		}
		n++
		d = min(2*d, dbguard.MaxBackoff)
	}
}

// TestOutageConnectionAttemptsBounded keeps many callers busy through a
// stopped server: the store dials it once per backoff, not once per
// call, and comes back by itself.
func TestOutageConnectionAttemptsBounded(t *testing.T) {
	srv := pgtest.Private(t)
	proxy := newCountingProxy(t, srv.Addr())
	const maxConns = 4
	dsn := fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", proxy.addr())
	st := openOn(t, Config{DSN: dsn, MaxConns: maxConns, CallTimeout: 10 * time.Second})
	storetest.Seed(t, st, 0, 3)

	srv.Stop()
	// The pool's connections end with the server; wait until the proxy
	// has let go of them, so what it counts next are new attempts.
	time.Sleep(200 * time.Millisecond)
	before, beforeCancels := proxy.startups.Load(), proxy.cancels.Load()
	const window = 4 * time.Second
	var calls, unavailable atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(window)
	for range 16 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				_, err := st.GetSession(t.Context(), "sess-0")
				calls.Add(1)
				if errors.Is(err, storage.ErrUnavailable) {
					unavailable.Add(1)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	attempts := int(proxy.startups.Load() - before)
	cancels := int(proxy.cancels.Load() - beforeCancels)
	// The callers waiting when the server went may each have dialled
	// (as many as the pool holds, twice when a slot frees before its
	// caller told the breaker of the failure), then one attempt per
	// backoff.
	bound := 2*maxConns + maxAttempts(window) + 1
	t.Logf("%d calls (%d unavailable) made %d connection attempts (and %d cancel requests) in %s; the backoff allows %d",
		calls.Load(), unavailable.Load(), attempts, cancels, window, bound)
	if attempts > bound {
		t.Errorf("%d connection attempts during a %s outage from %d calls: want at most %d (one per backoff, %s doubling to %s)",
			attempts, window, calls.Load(), bound, dbguard.MinBackoff, dbguard.MaxBackoff)
	}
	if cancels > attempts+maxConns {
		t.Errorf("%d cancel requests for %d connection attempts", cancels, attempts)
	}
	if calls.Load() < int64(10*bound) {
		t.Errorf("only %d calls during the outage: too few to tell a bound from one attempt per call", calls.Load())
	}
	if unavailable.Load() < calls.Load()*9/10 {
		t.Errorf("%d of %d calls during the outage failed with storage.ErrUnavailable", unavailable.Load(), calls.Load())
	}

	srv.Start()
	t.Logf("recovered %s after the server came back", recoverWithin(t, st, recoveryBound).Round(time.Millisecond))
	storetest.CheckSeeded(t, st, 3)
}

// TestOutageFrozen freezes the server (SIGSTOP: connections open, no
// answer): a call fails within its deadline saying which setting bounds
// it, and the store works again once the server is thawed.
func TestOutageFrozen(t *testing.T) {
	srv := pgtest.Private(t)
	st := openOn(t, Config{DSN: srv.DSN(), MaxConns: 4, CallTimeout: time.Second, ConnectTimeout: time.Second})
	storetest.Seed(t, st, 0, 3)

	// Frozen for 30s unless thawed sooner: without a deadline a call
	// would return only then.
	srv.Freeze()
	thawed := time.AfterFunc(30*time.Second, srv.Thaw)
	defer thawed.Stop()
	const bound = 20 * time.Second
	for i := range 3 {
		start := time.Now()
		_, err := st.GetSession(t.Context(), "sess-0")
		took := time.Since(start)
		if took > bound {
			t.Errorf("call %d on a frozen server returned after %s: want the call's deadline (1s) to end it before %s", i, took, bound)
		}
		if err == nil {
			t.Fatalf("call %d on a frozen server worked", i)
		}
		if !errors.Is(err, storage.ErrUnavailable) {
			t.Errorf("call %d on a frozen server: %v\nwant an error wrapping storage.ErrUnavailable", i, err)
		}
		if i == 0 && !strings.Contains(err.Error(), "[storage] timeout_seconds") {
			t.Errorf("call on a frozen server: %q does not name [storage] timeout_seconds", err)
		}
		t.Logf("call %d on a frozen server: %s: %v", i, took.Round(time.Millisecond), err)
	}
	start := time.Now()
	if err := storage.Ping(t.Context(), st); !errors.Is(err, storage.ErrUnavailable) || time.Since(start) > bound {
		t.Errorf("storage.Ping on a frozen server: %v after %s, want storage.ErrUnavailable before %s", err, time.Since(start), bound)
	}

	srv.Thaw()
	t.Logf("recovered %s after the thaw", recoverWithin(t, st, recoveryBound).Round(time.Millisecond))
	storetest.CheckSeeded(t, st, 3)
}

// TestPoolBounded makes 50 concurrent calls through a store of
// MaxConns 4: the server never sees more than 4 of its connections.
func TestPoolBounded(t *testing.T) {
	srv := pgtest.Private(t)
	const app = "agno_pool_bounded"
	const maxConns = 4
	st := openOn(t, Config{DSN: srv.DSN("application_name=" + app), MaxConns: maxConns})
	storetest.Seed(t, st, 0, 20)
	admin, err := pgx.Connect(t.Context(), srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())

	var peak atomic.Int64
	watchDone := make(chan struct{})
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		for {
			select {
			case <-watchDone:
				return
			default:
			}
			var n int64
			if err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil {
				t.Errorf("count connections: %v", err)
				return
			}
			if n > peak.Load() {
				peak.Store(n)
			}
		}
	}()

	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range 50 {
		wg.Go(func() {
			for j := range 10 {
				ctx := t.Context()
				var err error
				switch j % 3 {
				case 0:
					_, _, err = st.ListSessions(ctx, storage.SessionQuery{})
				case 1:
					_, err = st.AppendEvents(ctx, fmt.Sprintf("run-%d", i%20), json.RawMessage(`{"event":"x"}`))
				default:
					_, err = st.ListEvents(ctx, fmt.Sprintf("run-%d", i%20), -1)
				}
				if err != nil {
					failed.Add(1)
					t.Errorf("call: %v", err)
				}
			}
		})
	}
	wg.Wait()
	close(watchDone)
	<-watching
	t.Logf("peak %d server connections for 50 concurrent callers", peak.Load())
	if p := peak.Load(); p > maxConns {
		t.Errorf("the server saw %d connections of a store with MaxConns %d", p, maxConns)
	} else if p < 2 {
		t.Errorf("the server saw at most %d connection of the store: the count does not see it", p)
	}
}
