package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/internal/faultfs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqlite"
)

const readyKey = "sk-ready-test"

// readyOS serves st with a security key: every route but the open ones
// needs it.
func readyOS(t *testing.T, st storage.Store, mod ...func(*Config)) *OS {
	t.Helper()
	cfg := Config{Name: "Ready OS", Store: st, SecurityKey: readyKey, Logger: slog.New(slog.DiscardHandler),
		Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a"})}}
	for _, m := range mod {
		m(&cfg)
	}
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

func readySQLite(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(dir, "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// remoteGet calls path as a client on another machine, without a key.
func remoteGet(t *testing.T, h http.Handler, path string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr, req.Host = "203.0.113.7:50000", "agentos.example.com"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("GET %s = %d %q: not JSON: %v", path, rec.Code, rec.Body, err)
	}
	return rec, body
}

// storageCheck is checks.storage of a /ready body.
func storageCheck(body map[string]any) (status, detail string) {
	checks, _ := body["checks"].(map[string]any)
	s, _ := checks["storage"].(map[string]any)
	status, _ = s["status"].(string)
	detail, _ = s["detail"].(string)
	return status, detail
}

func wantReady(t *testing.T, h http.Handler) {
	t.Helper()
	rec, _ := remoteGet(t, h, "/ready")
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != `{"status":"ready","checks":{"storage":{"status":"ok"}}}` {
		t.Fatalf("GET /ready = %d %s, want 200 ready", rec.Code, rec.Body)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
	}
}

// wantUnavailable checks /ready answers 503 naming the problem, and that
// /health stays 200 meanwhile.
func wantUnavailable(t *testing.T, h http.Handler, detailParts ...string) (detail string) {
	t.Helper()
	rec, body := remoteGet(t, h, "/ready")
	status, detail := storageCheck(body)
	if rec.Code != http.StatusServiceUnavailable || body["status"] != "unavailable" || status != "down" {
		t.Fatalf("GET /ready = %d %s, want 503 unavailable", rec.Code, rec.Body)
	}
	t.Logf("GET /ready during the outage: %s", rec.Body)
	for _, p := range detailParts {
		if !strings.Contains(detail, p) {
			t.Errorf("detail %q does not name %q", detail, p)
		}
	}
	if rec, body := remoteGet(t, h, "/health"); rec.Code != http.StatusOK || body["status"] != "ok" {
		t.Errorf("GET /health during the outage = %d %s, want agno's constant 200", rec.Code, rec.Body)
	}
	return detail
}

// Healthy, /ready answers 200 without a key while the other routes need
// one; once the database is closed it answers 503 saying so, and /health
// stays 200.
func TestReadySQLite(t *testing.T) {
	st := readySQLite(t, t.TempDir())
	h := readyOS(t, st).Handler()
	wantReady(t, h)
	if rec, _ := remoteGet(t, h, "/ready/"); rec.Code != http.StatusOK {
		t.Errorf("GET /ready/ = %d", rec.Code)
	}
	if rec, _ := remoteGet(t, h, "/agents"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("GET /agents without the key = %d: the key is not enforced, so the test proves nothing", rec.Code)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	wantUnavailable(t, h, storage.ErrClosed.Error())
}

// The filesystem under the SQLite file fills up: /ready reports the
// full disk as soon as a write fails, and is ready again once a write
// gets through after space is freed.
func TestReadySQLiteDiskFull(t *testing.T) {
	dir := faultfs.Tmpfs(t, 8<<20)
	st := readySQLite(t, dir)
	h := readyOS(t, st).Handler()
	wantReady(t, h)
	free := faultfs.Fill(t, dir)
	big := strings.Repeat("a state that needs new pages ", 80000)
	_, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: "big", SessionType: storage.SessionAgent, SessionState: map[string]any{"x": big}})
	if !errors.Is(err, storage.ErrUnwritable) {
		free()
		t.Fatalf("a write on the full disk: %v, want ErrUnwritable", err)
	}
	wantUnavailable(t, h, "full")
	free()
	if _, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: "small", SessionType: storage.SessionAgent}); err != nil {
		t.Fatal(err)
	}
	wantReady(t, h)
}

// Postgres behind a connection that goes away: /ready turns 503 with
// the driver's reason within its deadline; /health stays 200.
func TestReadyPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	before := goleak.IgnoreCurrent()
	px := newReadyProxy(t, dsn)
	st, err := postgres.Open(t.Context(), postgres.Config{DSN: px.dsn, Schema: schema, MaxConns: 2, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = st.Close()
		goleak.VerifyNone(t, before)
	}()
	o := readyOS(t, st)
	h := o.Handler()
	wantReady(t, h)
	px.close()
	// The open route does not tell the database's address.
	detail := wantUnavailable(t, h, "does not answer")
	if u, _ := url.Parse(px.dsn); strings.Contains(detail, u.Port()) {
		t.Errorf("detail %q names the database's address", detail)
	}
	// Reconnecting fails too: still down, now for want of a connection.
	wantUnavailable(t, h, "does not answer")
	_ = o.Close()
}

// While the server drains, /ready answers 503 "draining" on a
// connection it closes; the other routes keep the drain's agno shape.
func TestReadyDraining(t *testing.T) {
	o := readyOS(t, memory.New())
	served := o.refuseWhileDraining(o.Handler()) // as Serve wraps it
	wantReady(t, served)
	o.draining.Store(true)
	for name, h := range map[string]http.Handler{"served": served, "handler": o.Handler()} {
		rec, body := remoteGet(t, h, "/ready")
		if rec.Code != http.StatusServiceUnavailable || body["status"] != "draining" {
			t.Errorf("%s: GET /ready while draining = %d %s", name, rec.Code, rec.Body)
		}
		if rec.Header().Get("Connection") != "close" || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: draining headers %v", name, rec.Header())
		}
	}
	if rec, body := remoteGet(t, served, "/health"); rec.Code != http.StatusServiceUnavailable || body["detail"] != shuttingDown {
		t.Errorf("GET /health while draining = %d %s: the drain's answer changed", rec.Code, rec.Body)
	}
}

// JWT mode leaves /ready open too; without a Store there is nothing to
// check.
func TestReadyJWTAndNoStore(t *testing.T) {
	o := readyOS(t, nil, func(c *Config) {
		c.SecurityKey = ""
		c.Authorization = &auth.Config{VerificationKeys: []string{"ready-secret-ready-secret-ready-secret"}, Algorithm: "HS256"}
	})
	rec, body := remoteGet(t, o.Handler(), "/ready")
	if rec.Code != http.StatusOK || body["status"] != "ready" {
		t.Fatalf("GET /ready in JWT mode = %d %s", rec.Code, rec.Body)
	}
	if s, _ := storageCheck(body); s != "" {
		t.Errorf("a storage check without a Store: %s", rec.Body)
	}
	if rec, _ := remoteGet(t, o.Handler(), "/agents"); rec.Code != http.StatusUnauthorized {
		t.Errorf("GET /agents without a token = %d", rec.Code)
	}
}

// Concurrent probes share one check of the database.
func TestReadyProbesShareOneCheck(t *testing.T) {
	st := &countingStore{Store: memory.New(), release: make(chan struct{})}
	o := readyOS(t, st)
	h := o.Handler()
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() {
			rec, _ := remoteGet(t, h, "/ready")
			codes[i] = rec.Code
		})
	}
	for deadline := time.Now().Add(5 * time.Second); st.count() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the others join
	close(st.release)
	wg.Wait()
	if n := st.count(); n < 1 || n > 2 {
		t.Errorf("%d database checks for 8 concurrent probes", n)
	}
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("probe %d: %d", i, c)
		}
	}
}

// countingStore counts storage.Ping's probe reads and holds them until
// release.
type countingStore struct {
	storage.Store
	mu      sync.Mutex
	n       int
	release chan struct{}
}

func (c *countingStore) Ping(ctx context.Context) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	select {
	case <-c.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *countingStore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// readyProxy forwards TCP to the test Postgres until closed, so the
// database can vanish mid-test.
type readyProxy struct {
	ln    net.Listener
	dsn   string
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
	once  sync.Once
}

func newReadyProxy(t *testing.T, dsn string) *readyProxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	upstream := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.Host = ln.Addr().String()
	p := &readyProxy{ln: ln, dsn: u.String()}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); _, _ = io.Copy(up, c); up.Close() }()
			go func() { defer p.wg.Done(); _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

// close drops the listener and every connection: the database is gone.
func (p *readyProxy) close() {
	p.once.Do(func() {
		p.ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}
