package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
)

// totalOpen counts open sessions of every toolkit in the process.
var totalOpen atomic.Int64

// TotalOpenSessions is the number of MCP sessions open in this process,
// across all toolkits: what to watch for "sessions stay flat".
func TotalOpenSessions() int { return int(totalOpen.Load()) }

// Session kinds, as logged.
const (
	kindDefault   = "default"
	kindRun       = "run"
	kindTemporary = "temporary"
)

// session is one initialised MCP client session and what it owns.
type session struct {
	owner *Tools
	cs    *sdk.ClientSession
	kind  string
	runID string
	// release frees what the transport left behind (pooled HTTP
	// connections) once the session is closed.
	release func()
	// gone is closed when the connection has ended, by either side.
	gone chan struct{}
	// conn is the transport's connection under cs, for abort.
	conn sdk.Connection
	// broken is set when a request on the session timed out: it is being
	// closed in the background (see Tools.discard).
	broken atomic.Bool

	closeOnce sync.Once
}

// alive reports whether the connection is still up as far as we know.
func (s *session) alive() bool {
	select {
	case <-s.gone:
		return false
	default:
		return true
	}
}

// abort cuts the connection under the session, so that the calls still
// waiting on it fail now (the go-sdk's Close lets them finish first,
// which on a hung server is never, or at their own timeouts), then
// closes the session.
func (s *session) abort() {
	if s.conn != nil {
		_ = s.conn.Close()
	}
	s.close()
}

// close ends the session, its transport and (stdio) the child process,
// then forgets it. Concurrent callers all return once it is done.
func (s *session) close() {
	s.closeOnce.Do(func() {
		err := s.cs.Close()
		<-s.gone
		if s.release != nil {
			s.release()
		}
		t := s.owner
		t.mu.Lock()
		delete(t.open, s)
		n := len(t.open)
		t.mu.Unlock()
		total := totalOpen.Add(-1)
		t.log.Debug("mcp session closed", "toolkit", t.set.Name, "server", t.set.describe(),
			"kind", s.kind, "run_id", s.runID, "open", n, "open_total", total, "close_error", err)
	})
}

// openSession opens and initialises a session. gen is the toolkit's close
// generation the caller started in: if Close ran meanwhile, the new
// session is closed again and ErrNotConnected returned, so nothing opened
// during a Close outlives it.
func (t *Tools) openSession(parent context.Context, kind, runID string, headers map[string]string, gen uint64) (*session, error) {
	ctx, cancel := context.WithTimeout(parent, t.set.ConnectTimeout)
	defer cancel()
	tr, release, gate, err := t.transport(ctx, headers)
	if err != nil {
		return nil, t.connectError(parent, ctx, err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agno-go", Version: "2.6.13"}, &sdk.ClientOptions{Logger: t.log})
	kept := &keptTransport{inner: tr}
	cs, err := client.Connect(ctx, kept, nil)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, t.connectError(parent, ctx, err)
	}
	if gate != nil {
		gate.connecting.Store(nil)
	}
	s := &session{owner: t, cs: cs, conn: kept.conn, kind: kind, runID: runID, release: release, gone: make(chan struct{})}
	go func() {
		defer close(s.gone)
		defer safe.Recover(t.log, "MCP session of "+t.Name(), nil)
		_ = cs.Wait()
	}()
	t.mu.Lock()
	if t.gen != gen {
		t.mu.Unlock()
		_ = cs.Close()
		<-s.gone
		if release != nil {
			release()
		}
		return nil, ErrNotConnected
	}
	t.open[s] = struct{}{}
	n := len(t.open)
	t.mu.Unlock()
	total := totalOpen.Add(1)
	t.log.Debug("mcp session opened", "toolkit", t.set.Name, "server", t.set.describe(),
		"kind", kind, "run_id", runID, "open", n, "open_total", total)
	return s, nil
}

// connectError names ConnectTimeout when it is what ended the connect: the
// go-sdk reports only a bare context error (SSE even "context canceled").
func (t *Tools) connectError(parent, ctx context.Context, err error) error {
	if parent.Err() != nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return &connectTimeoutError{limit: t.set.ConnectTimeout, err: err}
}

// connectTimeoutError is a session that was not initialised within
// ConnectTimeout. It matches context.DeadlineExceeded on every transport.
type connectTimeoutError struct {
	limit time.Duration
	err   error
}

func (e *connectTimeoutError) Error() string {
	return fmt.Sprintf("no initialized session within ConnectTimeout (%s): %v", e.limit, e.err)
}

func (e *connectTimeoutError) Unwrap() []error { return []error{context.DeadlineExceeded, e.err} }

// transport builds the go-sdk transport of one session. ctx is the
// connect context; HTTP transports return the gate tied to it.
func (t *Tools) transport(ctx context.Context, headers map[string]string) (sdk.Transport, func(), *sessionTransport, error) {
	switch t.set.kind {
	case transportCustom:
		tr, err := t.set.NewTransport(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return tr, nil, nil, nil
	case TransportStdio:
		return &stdioTransport{argv: t.set.argv, env: t.set.env, stderr: t.set.Stderr, log: t.set.Logger, name: t.set.Name, grace: t.set.TerminateGrace}, nil, nil, nil
	}
	client, gate, release := t.httpClient(headers)
	gate.connecting.Store(&ctx)
	if t.set.kind == TransportSSE {
		// The SSE stream lives on the context given to Connect, so it gets
		// one that ends with the session, not with the connect timeout.
		streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		free := func() {
			cancel()
			if release != nil {
				release()
			}
		}
		return &streamTransport{inner: &sdk.SSEClientTransport{Endpoint: t.set.URL, HTTPClient: client}, ctx: streamCtx, cancel: cancel}, free, gate, nil
	}
	// The standalone SSE stream only carries notifications we do not use;
	// without it a session holds no idle request open.
	return &sdk.StreamableClientTransport{Endpoint: t.set.URL, HTTPClient: client, DisableStandaloneSSE: true}, release, gate, nil
}

// httpClient returns a client whose requests go through a sessionTransport.
// Without a configured base client it has a connection pool of its own,
// emptied by release when the session closes.
func (t *Tools) httpClient(headers map[string]string) (*http.Client, *sessionTransport, func()) {
	var base http.RoundTripper
	var release func()
	client := &http.Client{}
	if t.set.HTTPClient != nil {
		*client = *t.set.HTTPClient
		base = client.Transport
		if base == nil {
			base = http.DefaultTransport
		}
	} else {
		pool := &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: t.set.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   t.set.ConnectTimeout,
			ExpectContinueTimeout: time.Second,
		}
		base, release = pool, pool.CloseIdleConnections
	}
	gate := &sessionTransport{base: base, headers: headers}
	client.Transport = gate
	return client, gate, release
}

// keptTransport keeps the connection inner made, for session.abort.
// client.Connect connects it before returning, on the caller's goroutine.
type keptTransport struct {
	inner sdk.Transport
	conn  sdk.Connection
}

func (k *keptTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := k.inner.Connect(ctx)
	k.conn = conn
	return conn, err
}

// streamTransport connects inner with a long-lived context; the connect
// context only bounds the connecting itself.
type streamTransport struct {
	inner  sdk.Transport
	ctx    context.Context
	cancel context.CancelFunc
}

func (s *streamTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stop := context.AfterFunc(ctx, s.cancel)
	conn, err := s.inner.Connect(s.ctx)
	if !stop() && err == nil {
		_ = conn.Close()
		return nil, ctx.Err()
	}
	return conn, err
}

// sessionTransport adds the session's headers to its requests and, while
// the session connects, ends its POSTs with the connect context. The
// go-sdk sends the notice cancelling a timed-out initialize on a detached
// 5 s context, and Connect can wait for it: a server that never answers
// would stretch ConnectTimeout by 5 s. GETs are left alone, since the SSE
// stream opened while connecting must outlive it.
type sessionTransport struct {
	base    http.RoundTripper
	headers map[string]string
	// connecting is the connect context; nil once connected.
	connecting atomic.Pointer[context.Context]
}

func (h *sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if p := h.connecting.Load(); p != nil && r.Method == http.MethodPost {
		cctx := *p
		if cctx.Err() != nil {
			if r.Body != nil {
				_ = r.Body.Close()
			}
			return nil, context.Cause(cctx)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		context.AfterFunc(cctx, cancel)
	}
	r = r.Clone(ctx)
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// headersFor merges the static headers and the provider's (provider wins).
// A provider that panics is logged and contributes nothing, as in agno.
func (t *Tools) headersFor(ctx context.Context, rc *run.Context) (out map[string]string) {
	out = maps.Clone(t.set.Headers)
	if t.set.HeaderProvider == nil {
		return out
	}
	defer func() {
		if p := recover(); p != nil {
			t.log.Warn("mcp: header provider failed", "toolkit", t.set.Name, "error", fmt.Sprint(p))
		}
	}()
	dyn := t.set.HeaderProvider(ctx, rc)
	if len(dyn) == 0 {
		return out
	}
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, dyn)
	return out
}
