package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// Tools is one MCP server's tools (agno's MCPTools). It implements
// tool.Connector. All methods are safe for concurrent use.
type Tools struct {
	set *settings
	log *slog.Logger

	// dialMu lets one goroutine at a time open the default session.
	dialMu sync.Mutex

	mu        sync.Mutex
	connected bool
	// gen counts Close calls; work started before a Close does not
	// leave sessions behind after it.
	gen    uint64
	def    *session
	fns    []*tool.Function
	byName map[string]*tool.Function
	open   map[*session]struct{}
	runs   map[string]*runEntry
}

var _ tool.Connector = (*Tools)(nil)

// runEntry is the cached session of one run; parallel calls of the run
// wait for the one that opens it.
type runEntry struct {
	ready   chan struct{} // closed once s or err is set
	s       *session
	err     error
	created time.Time
	refs    int  // calls using s
	dropped bool // out of the map: close s when refs reaches 0
	timer   *time.Timer
}

// New validates cfg. It does not connect: call Connect (an agent does).
func New(cfg Config) (*Tools, error) {
	set, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	return &Tools{set: set, log: set.Logger, open: map[*session]struct{}{}, runs: map[string]*runEntry{}}, nil
}

// Name is the toolkit's name.
func (t *Tools) Name() string { return t.set.Name }

// Instructions are Config.Instructions when AddInstructions is set, for
// the agent's system message; otherwise "".
func (t *Tools) Instructions() string {
	if !t.set.AddInstructions {
		return ""
	}
	return t.set.Instructions
}

// String names the toolkit and its server (never headers or environment).
func (t *Tools) String() string { return t.set.describe() }

// Connected reports whether Connect succeeded and Close has not been
// called since (agno's initialized).
func (t *Tools) Connected() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.connected
}

// OpenSessions is the number of this toolkit's sessions that are open.
func (t *Tools) OpenSessions() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

// Connect opens the default session and lists the server's tools. It
// returns at once when already connected to a live session. On failure
// nothing stays open and Connect can be called again.
func (t *Tools) Connect(ctx context.Context) error {
	t.dialMu.Lock()
	defer t.dialMu.Unlock()
	t.mu.Lock()
	if t.connected && t.def != nil && t.def.alive() {
		t.mu.Unlock()
		return nil
	}
	gen, stale := t.gen, t.def
	t.def = nil
	t.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	s, err := t.openSession(ctx, kindDefault, "", t.headersFor(ctx, nil), gen)
	if err != nil {
		return fmt.Errorf("mcp: failed to connect to %s: %w", t, err)
	}
	fns, err := t.listFunctions(ctx, s)
	if err != nil {
		s.close()
		return fmt.Errorf("mcp: failed to connect to %s: %w", t, err)
	}
	t.mu.Lock()
	if t.gen != gen {
		t.mu.Unlock()
		s.close()
		return ErrNotConnected
	}
	t.def, t.connected = s, true
	t.setFunctions(fns)
	t.mu.Unlock()
	return nil
}

// Close closes every session of the toolkit (default, per-run, and those
// of calls in flight, which then fail) and the processes and connections
// behind them. It is idempotent; Connect may be called again afterwards.
func (t *Tools) Close() error {
	t.mu.Lock()
	t.connected = false
	t.gen++
	t.def = nil
	for _, e := range t.runs {
		if e.timer != nil {
			e.timer.Stop()
		}
		e.dropped = true
	}
	clear(t.runs)
	all := slices.Collect(maps.Keys(t.open))
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.close)
	}
	wg.Wait()
	return nil
}

// Functions returns the server's tools as functions. With
// RefreshConnection it first checks the default session (reconnecting a
// dead one) and lists the tools again.
func (t *Tools) Functions(ctx context.Context) ([]*tool.Function, error) {
	if !t.Connected() {
		return nil, ErrNotConnected
	}
	if t.set.RefreshConnection {
		s, err := t.defaultSession(ctx)
		if err != nil {
			return nil, err
		}
		fns, err := t.listFunctions(ctx, s)
		if err != nil {
			switch {
			case timedOut(ctx, err):
				t.discard(s)
			case ctx.Err() == nil && !isServerError(err):
				t.drop(s)
			}
			return nil, fmt.Errorf("mcp: listing tools of %s: %w", t, err)
		}
		t.mu.Lock()
		t.setFunctions(fns)
		t.mu.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.fns), nil
}

// Call calls one of the toolkit's tools by its function name (with the
// prefix, if any) and returns what an agent would get. It connects first
// when the toolkit is not connected; Close it when done.
func (t *Tools) Call(ctx context.Context, name string, args map[string]any) (tool.Result, error) {
	if !t.Connected() {
		if err := t.Connect(ctx); err != nil {
			return tool.Result{}, err
		}
	}
	t.mu.Lock()
	f := t.byName[name]
	t.mu.Unlock()
	if f == nil {
		return tool.Result{}, fmt.Errorf("%w %q in %s (it has: %s)", ErrUnknownTool, name, t, strings.Join(t.functionNames(), ", "))
	}
	return f.Handler(ctx, args)
}

// ReleaseRun closes the session cached for a run (HeaderProvider without
// RefreshConnection); the agent calls it when the run ends. Calls of the
// run still in flight finish first.
func (t *Tools) ReleaseRun(runID string) {
	t.mu.Lock()
	var s *session
	if e := t.runs[runID]; e != nil {
		s = t.dropRunLocked(runID, e)
	}
	t.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// IsAlive pings the default session (agno's is_alive).
func (t *Tools) IsAlive(ctx context.Context) bool {
	t.mu.Lock()
	s := t.def
	t.mu.Unlock()
	return s != nil && s.alive() && t.ping(ctx, s) == nil
}

func (t *Tools) functionNames() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, len(t.fns))
	for i, f := range t.fns {
		out[i] = f.Name
	}
	return out
}

// setFunctions installs a fresh tool list; t.mu must be held.
func (t *Tools) setFunctions(fns []*tool.Function) {
	t.fns = fns
	t.byName = make(map[string]*tool.Function, len(fns))
	for _, f := range fns {
		t.byName[f.Name] = f
	}
}

// listFunctions lists the server's tools (all pages) and builds the
// functions (agno's build_tools).
func (t *Tools) listFunctions(ctx context.Context, s *session) ([]*tool.Function, error) {
	ctx, cancel := context.WithTimeout(ctx, t.set.readTimeout)
	defer cancel()
	var listed []*sdk.Tool
	for tl, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		listed = append(listed, tl)
	}
	names := make([]string, len(listed))
	for i, tl := range listed {
		names[i] = tl.Name
	}
	if err := t.set.checkToolLists(names); err != nil {
		return nil, err
	}
	var fns []*tool.Function
	for _, tl := range listed {
		if !t.set.keeps(tl.Name) {
			continue
		}
		f, err := t.function(tl)
		if err != nil {
			t.log.Warn("mcp: failed to register tool", "toolkit", t.set.Name, "tool", tl.Name, "error", err)
			continue
		}
		fns = append(fns, f)
	}
	return fns, nil
}

// function turns one server tool into a Function whose parameters are the
// server's input schema.
func (t *Tools) function(tl *sdk.Tool) (*tool.Function, error) {
	var params json.RawMessage
	if tl.InputSchema != nil {
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("inputSchema: %w", err)
		}
		params = b
	}
	name := tl.Name
	if t.set.ToolNamePrefix != "" {
		name = t.set.ToolNamePrefix + "_" + name
	}
	var opts []tool.Option
	if slices.Contains(t.set.RequiresConfirmationTools, tl.Name) {
		opts = append(opts, tool.RequiresConfirmation())
	}
	if slices.Contains(t.set.ExternalExecutionRequiredTools, tl.Name) {
		opts = append(opts, tool.ExternalExecution())
	}
	if slices.Contains(t.set.StopAfterToolCallTools, tl.Name) {
		opts = append(opts, tool.StopAfterToolCall())
	}
	if slices.Contains(t.set.ShowResultTools, tl.Name) {
		opts = append(opts, tool.ShowResult())
	}
	server := tl.Name
	return tool.NewRaw(name, tl.Description, params, func(ctx context.Context, args map[string]any) (tool.Result, error) {
		return t.callTool(ctx, server, args)
	}, opts...)
}

// callTool runs one server tool on the session the call should use.
func (t *Tools) callTool(ctx context.Context, name string, args map[string]any) (tool.Result, error) {
	s, done, err := t.acquire(ctx, run.FromContext(ctx))
	if err != nil {
		return tool.Result{}, fmt.Errorf("mcp tool %q: %w", name, err)
	}
	defer done()
	cctx, cancel := context.WithTimeout(ctx, t.set.readTimeout)
	defer cancel()
	t.log.Debug("mcp tool call", "toolkit", t.set.Name, "tool", name, "session", s.kind, "run_id", s.runID)
	if args == nil {
		args = map[string]any{} // a nil map would go out as null
	}
	res, err := s.cs.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		return convertResult(name, res), nil
	}
	switch rpcErr := serverError(err); {
	case rpcErr != nil:
		// The server answered with an error: the model may retry.
		return tool.Result{Content: "Error: " + rpcErr.Message}, nil
	case ctx.Err() != nil:
		return tool.Result{}, fmt.Errorf("mcp tool %q: %w", name, ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		// agno keeps the session, so a hung server makes every later call
		// wait out the timeout too. Replace it as if it were lost; the model
		// still gets agno's timeout text.
		t.discard(s)
		return tool.Result{Content: "Error: " + timeoutText(t.set.readTimeout)}, nil
	case s.broken.Load():
		// Another call's timeout is closing the session under this one.
		return tool.Result{}, fmt.Errorf("mcp tool %q on %s: %w: %w", name, t, ErrSessionLost, err)
	}
	t.drop(s)
	return tool.Result{}, fmt.Errorf("mcp tool %q on %s: %w: %w", name, t, ErrSessionLost, err)
}

// serverError returns the JSON-RPC error the server answered with, or nil
// when err is not one: the go-sdk also reports a broken transport or a
// closing connection with JSON-RPC codes of its own.
func serverError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return nil
	}
	switch rpcErr.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return nil
	}
	return rpcErr
}

// The go-sdk's local error codes (internal/jsonrpc2).
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

func isServerError(err error) bool { return serverError(err) != nil }

// acquire picks the session of a call (agno #8230): with a header provider
// on HTTP inside a run, a session of the call's own (RefreshConnection) or
// of the run; otherwise the default session. done releases it.
func (t *Tools) acquire(ctx context.Context, rc *run.Context) (s *session, done func(), err error) {
	perRun := rc != nil && t.set.HeaderProvider != nil &&
		(t.set.kind == TransportSSE || t.set.kind == TransportStreamableHTTP)
	switch {
	case perRun && t.set.RefreshConnection:
		t.mu.Lock()
		connected, gen := t.connected, t.gen
		t.mu.Unlock()
		if !connected {
			return nil, nil, ErrNotConnected
		}
		s, err := t.openSession(ctx, kindTemporary, rc.RunID, t.headersFor(ctx, rc), gen)
		if err != nil {
			return nil, nil, fmt.Errorf("opening a session to %s: %w", t, err)
		}
		return s, func() { closeUnlessBroken(s) }, nil
	case perRun && rc.RunID != "":
		return t.runSession(ctx, rc)
	}
	s, err = t.defaultSession(ctx)
	return s, func() {}, err
}

// defaultSession returns the default session, reopening it when it is
// gone (or, with RefreshConnection, does not answer a ping).
func (t *Tools) defaultSession(ctx context.Context) (*session, error) {
	t.mu.Lock()
	s, connected, gen := t.def, t.connected, t.gen
	t.mu.Unlock()
	if !connected {
		return nil, ErrNotConnected
	}
	if s != nil && s.alive() {
		if !t.set.RefreshConnection {
			return s, nil
		}
		err := t.ping(ctx, s)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if timedOut(ctx, err) {
			// Hung rather than gone: killing it takes a while, so do it
			// beside the reconnect, not before.
			t.discard(s)
		}
		t.log.Debug("mcp: ping failed; reconnecting", "toolkit", t.set.Name, "server", t.set.describe(), "error", err)
	}
	return t.redial(ctx, s, gen)
}

// redial replaces a dead default session; concurrent callers share one
// new session.
func (t *Tools) redial(ctx context.Context, stale *session, gen uint64) (*session, error) {
	t.dialMu.Lock()
	defer t.dialMu.Unlock()
	t.mu.Lock()
	if t.gen != gen || !t.connected {
		t.mu.Unlock()
		return nil, ErrNotConnected
	}
	cur := t.def
	if cur != nil && cur != stale && cur.alive() {
		t.mu.Unlock()
		return cur, nil
	}
	t.def = nil
	t.mu.Unlock()
	if cur != nil {
		cur.close()
	}
	s, err := t.openSession(ctx, kindDefault, "", t.headersFor(ctx, nil), gen)
	if err != nil {
		return nil, fmt.Errorf("%w: reconnecting to %s: %w", ErrSessionLost, t, err)
	}
	var fns []*tool.Function
	if t.set.RefreshConnection {
		if fns, err = t.listFunctions(ctx, s); timedOut(ctx, err) {
			// As agno's connect: a server whose tool list does not come
			// back is closed, not used.
			t.discard(s)
			return nil, fmt.Errorf("%w: reconnecting to %s: listing tools: %w", ErrSessionLost, t, err)
		} else if err != nil {
			t.log.Warn("mcp: listing tools after reconnecting failed", "toolkit", t.set.Name, "error", err)
		}
	}
	t.mu.Lock()
	if t.gen != gen {
		t.mu.Unlock()
		s.close()
		return nil, ErrNotConnected
	}
	t.def = s
	if fns != nil {
		t.setFunctions(fns)
	}
	t.mu.Unlock()
	return s, nil
}

// runSession returns the run's cached session, opening it once for all
// parallel calls of the run.
func (t *Tools) runSession(ctx context.Context, rc *run.Context) (*session, func(), error) {
	id := rc.RunID
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		t.mu.Lock()
		if !t.connected {
			t.mu.Unlock()
			return nil, nil, ErrNotConnected
		}
		gen := t.gen
		var stale *session
		e := t.runs[id]
		if e != nil && isClosed(e.ready) && (e.s == nil || !e.s.alive() || time.Since(e.created) >= t.set.RunSessionTTL) {
			stale = t.dropRunLocked(id, e)
			e = nil
		}
		creator := e == nil
		if creator {
			e = &runEntry{ready: make(chan struct{}), created: time.Now()}
			t.runs[id] = e
		}
		e.refs++
		t.mu.Unlock()
		if stale != nil {
			stale.close()
		}

		if creator {
			s, err := t.openSession(ctx, kindRun, id, t.headersFor(ctx, rc), gen)
			t.mu.Lock()
			e.s, e.err = s, err
			if err != nil {
				if t.runs[id] == e {
					delete(t.runs, id)
				}
				e.dropped = true
			} else if !e.dropped {
				e.timer = time.AfterFunc(t.set.RunSessionTTL, func() { t.expireRun(id, e) })
			}
			close(e.ready)
			t.mu.Unlock()
		} else {
			select {
			case <-e.ready:
			case <-ctx.Done():
				t.unrefRun(e)
				return nil, nil, ctx.Err()
			}
		}
		if e.err != nil {
			t.unrefRun(e)
			// The opener's own context ended: try again ourselves. Not after
			// its ConnectTimeout: the server is at fault, and each waiter
			// trying in turn would wait one more ConnectTimeout.
			var slow *connectTimeoutError
			if !creator && !errors.As(e.err, &slow) && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
				continue
			}
			return nil, nil, fmt.Errorf("opening a session to %s for run %s: %w", t, id, e.err)
		}
		return e.s, func() { t.unrefRun(e) }, nil
	}
}

// dropRunLocked takes a run entry out of the map and returns its session
// when it is to be closed now (no call is using it). t.mu must be held.
func (t *Tools) dropRunLocked(id string, e *runEntry) *session {
	if t.runs[id] == e {
		delete(t.runs, id)
	}
	if e.timer != nil {
		e.timer.Stop()
	}
	e.dropped = true
	if e.refs == 0 && e.s != nil {
		return e.s
	}
	return nil
}

func (t *Tools) expireRun(id string, e *runEntry) {
	t.mu.Lock()
	var s *session
	if t.runs[id] == e {
		s = t.dropRunLocked(id, e)
	}
	t.mu.Unlock()
	if s != nil {
		t.log.Debug("mcp: run session expired", "toolkit", t.set.Name, "run_id", id)
		s.close()
	}
}

func (t *Tools) unrefRun(e *runEntry) {
	t.mu.Lock()
	e.refs--
	closeNow := e.dropped && e.refs == 0 && e.s != nil
	t.mu.Unlock()
	if closeNow {
		closeUnlessBroken(e.s)
	}
}

// closeUnlessBroken closes s when done with it; a broken session is
// already being closed, and the caller need not wait for that.
func closeUnlessBroken(s *session) {
	if !s.broken.Load() {
		s.close()
	}
}

// drop forgets a session whose connection failed and closes it.
func (t *Tools) drop(s *session) {
	t.forget(s)
	s.close()
}

// discard forgets a session on which a request timed out and aborts it in
// the background: a hung stdio server ignores its closed stdin and is
// only killed after TerminateGrace twice over, while the caller should
// get its timeout now. Calls still using the session fail at once; Close
// waits for the closing, as the session counts as open until it is
// closed.
func (t *Tools) discard(s *session) {
	if !s.broken.CompareAndSwap(false, true) {
		return
	}
	t.forget(s)
	t.log.Debug("mcp: request timed out; replacing the session", "toolkit", t.set.Name, "server", t.set.describe(),
		"kind", s.kind, "run_id", s.runID)
	go s.abort()
}

// forget takes s out of the default and run slots, so that the next call
// opens a new session.
func (t *Tools) forget(s *session) {
	t.mu.Lock()
	if t.def == s {
		t.def = nil
	}
	for id, e := range t.runs {
		if e.s == s {
			t.dropRunLocked(id, e)
		}
	}
	t.mu.Unlock()
}

// timedOut reports whether err is a request's own read timeout, not the
// caller giving up.
func timedOut(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)
}

func (t *Tools) ping(ctx context.Context, s *session) error {
	ctx, cancel := context.WithTimeout(ctx, t.set.readTimeout)
	defer cancel()
	return s.cs.Ping(ctx, nil)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
