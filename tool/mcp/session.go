package mcp

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
func (t *Tools) openSession(ctx context.Context, kind, runID string, headers map[string]string, gen uint64) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, t.set.ConnectTimeout)
	defer cancel()
	tr, release, err := t.transport(ctx, headers)
	if err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agno-go", Version: "2.6.13"}, &sdk.ClientOptions{Logger: t.log})
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	s := &session{owner: t, cs: cs, kind: kind, runID: runID, release: release, gone: make(chan struct{})}
	go func() {
		_ = cs.Wait()
		close(s.gone)
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

// transport builds the go-sdk transport of one session.
func (t *Tools) transport(ctx context.Context, headers map[string]string) (sdk.Transport, func(), error) {
	switch t.set.kind {
	case transportCustom:
		tr, err := t.set.NewTransport(ctx)
		if err != nil {
			return nil, nil, err
		}
		return tr, nil, nil
	case TransportStdio:
		return &stdioTransport{argv: t.set.argv, env: t.set.env, stderr: t.set.Stderr, grace: t.set.TerminateGrace}, nil, nil
	}
	client, release := t.httpClient(headers)
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
		return &streamTransport{inner: &sdk.SSEClientTransport{Endpoint: t.set.URL, HTTPClient: client}, ctx: streamCtx, cancel: cancel}, free, nil
	}
	// The standalone SSE stream only carries notifications we do not use;
	// without it a session holds no idle request open.
	return &sdk.StreamableClientTransport{Endpoint: t.set.URL, HTTPClient: client, DisableStandaloneSSE: true}, release, nil
}

// httpClient returns a client that adds headers to every request. Without
// a configured base client it has a connection pool of its own, emptied
// by release when the session closes.
func (t *Tools) httpClient(headers map[string]string) (*http.Client, func()) {
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
	if len(headers) > 0 {
		base = &headerTransport{base: base, headers: headers}
	}
	client.Transport = base
	return client, release
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

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
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
