package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp/internal/mcptest"
)

func connected(t *testing.T, cfg Config) *Tools {
	t.Helper()
	tools, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tools.Close() })
	return tools
}

func names(fns []*tool.Function) []string {
	var out []string
	for _, f := range fns {
		out = append(out, f.Name)
	}
	return out
}

func byName(t *testing.T, fns []*tool.Function, name string) *tool.Function {
	t.Helper()
	for _, f := range fns {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no function %q in %v", name, names(fns))
	return nil
}

func TestConnectListsServerToolsAsFunctions(t *testing.T) {
	tools, err := New(inMemory(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	if _, err := tools.Functions(context.Background()); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Functions before Connect: %v", err)
	}
	if err := tools.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	fns, err := tools.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"search", "echo", "raw_args", "image", "fail", "slow", "pid"} {
		if !slices.Contains(names(fns), want) {
			t.Errorf("missing tool %q in %v", want, names(fns))
		}
	}
	search := byName(t, fns, "search")
	if search.Description != "Search the documentation." {
		t.Errorf("description %q", search.Description)
	}
	var got, want map[string]any
	_ = json.Unmarshal(search.Parameters, &got)
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for"}},"required":["query"]}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parameters are not the server's inputSchema:\n got %s", search.Parameters)
	}
	if tools.OpenSessions() != 1 {
		t.Errorf("OpenSessions = %d after Connect, want 1", tools.OpenSessions())
	}
}

func TestFiltersPrefixAndHumanInTheLoop(t *testing.T) {
	base := inMemory(t)

	cfg := base
	cfg.IncludeTools = []string{"search", "nope", "also-nope"}
	tools, _ := New(cfg)
	err := tools.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Included tool(s) not present in the toolkit: nope, also-nope") {
		t.Fatalf("unknown include: %v", err)
	}
	if tools.OpenSessions() != 0 || tools.Connected() {
		t.Fatalf("a failed Connect left %d sessions open (connected=%v)", tools.OpenSessions(), tools.Connected())
	}
	cfg = base
	cfg.ExcludeTools = []string{"ghost"}
	tools, _ = New(cfg)
	if err := tools.Connect(context.Background()); err == nil || !strings.Contains(err.Error(), "Excluded tool(s) not present in the toolkit: ghost") {
		t.Fatalf("unknown exclude: %v", err)
	}

	cfg = base
	cfg.IncludeTools = []string{"search", "echo", "pid", "fail", "lines"}
	cfg.ExcludeTools = []string{"fail"}
	cfg.ToolNamePrefix = "docs"
	cfg.RequiresConfirmationTools = []string{"search"}
	cfg.ExternalExecutionRequiredTools = []string{"pid"}
	cfg.StopAfterToolCallTools = []string{"echo"}
	cfg.ShowResultTools = []string{"lines", "not-listed"} // unknown names only warn
	fns, err := connected(t, cfg).Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(fns); !slices.Equal(got, []string{"docs_echo", "docs_lines", "docs_pid", "docs_search"}) {
		t.Fatalf("functions %v", got)
	}
	if f := byName(t, fns, "docs_search"); !f.RequiresConfirmation || f.ExternalExecution || f.StopAfterToolCall {
		t.Errorf("docs_search flags %+v", f)
	}
	if f := byName(t, fns, "docs_pid"); !f.ExternalExecution {
		t.Errorf("docs_pid not external")
	}
	if f := byName(t, fns, "docs_echo"); !f.StopAfterToolCall || !f.ShowResult {
		t.Errorf("docs_echo: stop %v show %v", f.StopAfterToolCall, f.ShowResult)
	}
	if f := byName(t, fns, "docs_lines"); !f.ShowResult || f.StopAfterToolCall {
		t.Errorf("docs_lines: show %v", f.ShowResult)
	}
}

func TestResultsAreFormattedLikeAgno(t *testing.T) {
	tools := connected(t, inMemory(t))
	ctx := context.Background()
	call := func(name string) tool.Result {
		t.Helper()
		r, err := tools.Call(ctx, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	if r := call("lines"); r.Content != "line1\nline2" || r.Images != nil {
		t.Errorf("lines: %+v", r)
	}
	r := call("image")
	if r.Content != "Image has been generated and added to the response.\n[Unsupported content type: audio]" {
		t.Errorf("image content %q", r.Content)
	}
	if len(r.Images) != 1 || string(r.Images[0].Content) != "hello" || r.Images[0].MimeType != "image/png" || r.Images[0].ID == "" {
		t.Errorf("image: %+v", r.Images)
	}
	r = call("json_image")
	if r.Content != "Image has been generated and added to the response." || len(r.Images) != 1 ||
		string(r.Images[0].Content) != "hello" || r.Images[0].MimeType != "image/jpeg" {
		t.Errorf("json_image: %+v", r)
	}
	if r := call("empty_json_image"); r.Content != `{"type":"image","data":""}` || r.Images != nil {
		t.Errorf("empty json image: %+v", r)
	}
	if r := call("resource"); r.Content != `[Embedded resource: {"uri":"test://doc/1","mimeType":"text/plain","meta":null,"text":"a <b> & ü"}]`+"\n[Unsupported content type: resource_link]" {
		t.Errorf("resource: %q", r.Content)
	}
	if r := call("fail"); !strings.HasPrefix(r.Content, "Error from MCP tool 'fail': ") || !strings.Contains(r.Content, "boom") {
		t.Errorf("fail: %q", r.Content)
	}
	// The server rejecting the call is result text, as in agno.
	r, err := tools.callTool(ctx, "no-such-tool", nil)
	if err != nil || !strings.HasPrefix(r.Content, "Error: ") || !strings.Contains(r.Content, "no-such-tool") {
		t.Errorf("unknown server tool: %+v, %v", r, err)
	}
	if _, err := tools.Call(ctx, "nope", nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Call of an unknown function: %v", err)
	}
	if tools.OpenSessions() != 1 {
		t.Errorf("OpenSessions = %d", tools.OpenSessions())
	}
}

func TestConvertResultCases(t *testing.T) {
	r := convertResult("x", &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "  \n"},
		&sdk.TextContent{Text: `{"type":"image","data":"not base64!"}`},
		&sdk.TextContent{Text: `["type","image"]`},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "f://b", Blob: []byte{1, 2}}},
		&sdk.TextContent{Text: "tail  \n"},
	}})
	want := `{"type":"image","data":"not base64!"}` + "\n" + `["type","image"]` + "\n" +
		`[Embedded resource: {"uri":"f://b","mimeType":null,"meta":null,"blob":"AQI="}]` + "\ntail"
	if r.Content != want || r.Images != nil {
		t.Errorf("got %q\nwant %q", r.Content, want)
	}
	if r := convertResult("x", &sdk.CallToolResult{IsError: true}); r.Content != "Error from MCP tool 'x': []" {
		t.Errorf("empty error: %q", r.Content)
	}
	if got := timeoutText(50 * time.Millisecond); got != "Timed out while waiting for response to ClientRequest. Waited 0.05 seconds." {
		t.Errorf("timeout text %q", got)
	}
	if got := timeoutText(10 * time.Second); !strings.Contains(got, "Waited 10.0 seconds.") {
		t.Errorf("timeout text %q", got)
	}
}

func TestArgumentsReachTheServerByteForByte(t *testing.T) {
	tools := connected(t, inMemory(t))
	ctx := context.Background()
	r, err := tools.Call(ctx, "echo", map[string]any{"message": "  padded  "})
	if err != nil || r.Content != `"  padded  "` {
		t.Fatalf("echo: %q, %v", r.Content, err)
	}
	args := map[string]any{
		"message": "  padded  ",
		"blank":   "\n\n",
		"code":    "def f():\n    return 1\n",
		"agent":   "alice", // names agno injects itself are plain arguments here
		"n":       json.Number("1.50"),
		"flag":    "true",
	}
	r, err = tools.Call(ctx, "raw_args", args)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	d := json.NewDecoder(strings.NewReader(r.Content))
	d.UseNumber()
	if err := d.Decode(&got); err != nil {
		t.Fatalf("%q: %v", r.Content, err)
	}
	if !reflect.DeepEqual(got, args) {
		t.Fatalf("server received %v, sent %v", got, args)
	}
	if !strings.Contains(r.Content, `"n":1.50`) {
		t.Errorf("number re-encoded: %s", r.Content)
	}
	// No arguments go out as an empty object, as Python's **kwargs do.
	if r, err := tools.Call(ctx, "raw_args", nil); err != nil || r.Content != "{}" {
		t.Errorf("nil arguments arrived as %q (%v)", r.Content, err)
	}
}

func TestCallTwiceInARowKeepsOneSession(t *testing.T) {
	var logs logBuffer
	cfg := inMemory(t)
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tools, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	before := TotalOpenSessions()
	ctx := context.Background()
	// Call connects a toolkit that is not connected yet.
	for _, q := range []string{"agno v2.6.13", "mcp sessions"} {
		r, err := tools.Call(ctx, "search", map[string]any{"query": q})
		if err != nil || r.Content != "results for "+q {
			t.Fatalf("search %q: %+v %v", q, r, err)
		}
		if tools.OpenSessions() != 1 || TotalOpenSessions() != before+1 {
			t.Fatalf("open sessions %d (total %d, before %d)", tools.OpenSessions(), TotalOpenSessions(), before)
		}
	}
	if err := tools.Close(); err != nil {
		t.Fatal(err)
	}
	if tools.OpenSessions() != 0 || TotalOpenSessions() != before {
		t.Fatalf("after Close: %d open, total %d (before %d)", tools.OpenSessions(), TotalOpenSessions(), before)
	}
	// The lifecycle is in the log: one open, one close, with counts.
	out := logs.String()
	if strings.Count(out, "msg=\"mcp session opened\"") != 1 || strings.Count(out, "msg=\"mcp session closed\"") != 1 ||
		!strings.Contains(out, "kind=default") || !strings.Contains(out, "open=0") {
		t.Fatalf("log:\n%s", out)
	}
}

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestConnectAndCloseAreIdempotentAndConcurrent(t *testing.T) {
	tools, err := New(inMemory(t))
	if err != nil {
		t.Fatal(err)
	}
	before := TotalOpenSessions()
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := tools.Connect(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if tools.OpenSessions() != 1 {
		t.Fatalf("8 concurrent Connects opened %d sessions", tools.OpenSessions())
	}
	fns, _ := tools.Functions(ctx)
	search := byName(t, fns, "search")

	// Close racing with calls and with itself: no panic, no race, nothing
	// left open afterwards.
	for range 4 {
		wg.Go(func() { _, _ = search.Handler(ctx, map[string]any{"query": "q"}) })
		wg.Go(func() { _ = tools.Close() })
	}
	wg.Wait()
	if err := tools.Close(); err != nil {
		t.Fatal(err)
	}
	if tools.OpenSessions() != 0 || TotalOpenSessions() != before {
		t.Fatalf("after Close: %d open, total %d (before %d)", tools.OpenSessions(), TotalOpenSessions(), before)
	}
	if _, err := search.Handler(ctx, map[string]any{"query": "q"}); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("a handler after Close: %v", err)
	}
	// Connect works again after Close.
	if err := tools.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := search.Handler(ctx, map[string]any{"query": "again"}); err != nil || r.Content != "results for again" {
		t.Fatalf("after reconnect: %+v %v", r, err)
	}
	_ = tools.Close()
	if TotalOpenSessions() != before {
		t.Fatalf("total %d, before %d", TotalOpenSessions(), before)
	}
}

func TestReadTimeoutIsResultTextAndCancelIsError(t *testing.T) {
	cfg := inMemory(t)
	cfg.Timeout = 50 * time.Millisecond
	cfg.ConnectTimeout = 10 * time.Second
	tools := connected(t, cfg)
	r, err := tools.Call(context.Background(), "slow", map[string]any{"ms": 60000})
	if err != nil || r.Content != "Error: Timed out while waiting for response to ClientRequest. Waited 0.05 seconds." {
		t.Fatalf("timeout: %+v, %v", r, err)
	}
	// The next call answers, on a new session: the timed-out one is
	// replaced (timeout_test.go).
	if r, err := tools.Call(context.Background(), "search", map[string]any{"query": "ok"}); err != nil || r.Content != "results for ok" {
		t.Fatalf("after timeout: %+v %v", r, err)
	}

	// A caller that gives up gets its context's error, not result text.
	tools2 := connected(t, inMemory(t))
	marker := filepath.Join(t.TempDir(), "in-call")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var callErr error
	wg.Go(func() { _, callErr = tools2.Call(ctx, "slow", map[string]any{"ms": 60000, "marker": marker}) })
	eventually(t, "the call to reach the server", func() bool { _, err := os.Stat(marker); return err == nil })
	cancel()
	wg.Wait()
	if !errors.Is(callErr, context.Canceled) {
		t.Fatalf("cancelled call: %v", callErr)
	}
	if r, err := tools2.Call(context.Background(), "search", map[string]any{"query": "ok"}); err != nil || r.Content != "results for ok" {
		t.Fatalf("after cancel: %+v %v", r, err)
	}
	if tools.OpenSessions() != 1 || tools2.OpenSessions() != 1 {
		t.Fatalf("OpenSessions %d, %d", tools.OpenSessions(), tools2.OpenSessions())
	}
}

// runCtx is a context inside a run with a token for the header provider.
func runCtx(runID, token string) context.Context {
	rc := run.NewContext(nil)
	rc.RunID = runID
	rc.Metadata = map[string]any{"token": token}
	return run.WithContext(context.Background(), rc)
}

func bearer(_ context.Context, rc *run.Context) map[string]string {
	if rc == nil {
		return map[string]string{"X-Connect": "startup"}
	}
	return map[string]string{"Authorization": "Bearer " + rc.Metadata["token"].(string), "X-Run": rc.RunID}
}

// headersOf calls the server's headers tool and decodes its answer.
func headersOf(t *testing.T, tools *Tools, ctx context.Context) map[string]string {
	t.Helper()
	r, err := tools.Call(ctx, "headers", nil)
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(r.Content), &h); err != nil {
		t.Fatalf("%q: %v", r.Content, err)
	}
	return h
}

// A6 case 1: refresh + header provider on HTTP: each call opens, uses and
// closes its own session; nothing is cached.
func TestRefreshWithHeaderProviderClosesSessionInTheCall(t *testing.T) {
	srv := startHTTP(t)
	tools := connected(t, Config{URL: srv.URL, Headers: map[string]string{"X-Static": "s"}, HeaderProvider: bearer, RefreshConnection: true})
	if got := srv.InitAuth(); len(got) != 1 || got[0] != "" {
		t.Fatalf("Connect: init requests %q", got)
	}
	ctx := runCtx("refresh-run", "run-token")
	for i := range 20 {
		h := headersOf(t, tools, ctx)
		if h["Authorization"] != "Bearer run-token" || h["X-Run"] != "refresh-run" || h["X-Static"] != "s" {
			t.Fatalf("call %d headers %v", i, h)
		}
		if n := tools.OpenSessions(); n != 1 {
			t.Fatalf("call %d: %d sessions open after the call, want the default only", i, n)
		}
		tools.mu.Lock()
		cached := len(tools.runs)
		tools.mu.Unlock()
		if cached != 0 {
			t.Fatalf("call %d cached %d run sessions", i, cached)
		}
	}
	if got := srv.InitAuth(); len(got) != 21 || got[20] != "Bearer run-token" {
		t.Fatalf("want one new session per call with the run's headers, got %q", got)
	}
	eventually(t, "server sessions back to 1", func() bool { return srv.Sessions() == 1 })
}

// A6 case 2: no refresh: one session per run, shared by its parallel
// calls, closed by ReleaseRun.
func TestRunSessionIsSharedAndReleased(t *testing.T) {
	srv := startHTTP(t)
	tools := connected(t, Config{URL: srv.URL, HeaderProvider: bearer})
	ctx := runCtx("run-1", "t1")
	for range 2 {
		h := headersOf(t, tools, ctx)
		if h["Authorization"] != "Bearer t1" {
			t.Fatalf("headers %v", h)
		}
	}
	if n := len(srv.InitAuth()); n != 2 {
		t.Fatalf("two calls of one run opened %d sessions, want 1 (+1 default)", n-1)
	}
	if tools.OpenSessions() != 2 {
		t.Fatalf("OpenSessions %d, want 2", tools.OpenSessions())
	}

	ctx2 := runCtx("run-2", "t2")
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			r, err := tools.Call(ctx2, "search", map[string]any{"query": "p"})
			if err != nil || r.Content != "results for p" {
				t.Errorf("parallel call: %+v %v", r, err)
			}
		})
	}
	wg.Wait()
	if got := srv.InitAuth(); len(got) != 3 || got[2] != "Bearer t2" {
		t.Fatalf("16 parallel calls of one run: init requests %q, want exactly one more", got)
	}
	// Outside a run: the default session (A6 case 3).
	if h := headersOf(t, tools, context.Background()); h["X-Connect"] != "startup" || h["Authorization"] != "" {
		t.Fatalf("default session headers %v", h)
	}
	tools.ReleaseRun("run-1")
	tools.ReleaseRun("run-2")
	tools.ReleaseRun("never-ran")
	if tools.OpenSessions() != 1 {
		t.Fatalf("after ReleaseRun: %d open", tools.OpenSessions())
	}
	eventually(t, "server sessions back to 1", func() bool { return srv.Sessions() == 1 })
	if len(srv.InitAuth()) != 3 {
		t.Fatalf("extra sessions: %q", srv.InitAuth())
	}
}

// A6 case 3: refresh with a provider but no run context uses the default
// session.
func TestNoRunContextUsesDefaultSession(t *testing.T) {
	srv := startHTTP(t)
	tools := connected(t, Config{URL: srv.URL, HeaderProvider: bearer, RefreshConnection: true})
	for range 3 {
		if h := headersOf(t, tools, context.Background()); h["X-Connect"] != "startup" {
			t.Fatalf("headers %v", h)
		}
	}
	if n := len(srv.InitAuth()); n != 1 {
		t.Fatalf("%d sessions opened, want only the default", n)
	}
}

func TestRunSessionExpiresAndCloseClosesRunSessions(t *testing.T) {
	srv := startHTTP(t)
	tools := connected(t, Config{URL: srv.URL, HeaderProvider: bearer, RunSessionTTL: 20 * time.Millisecond})
	if _, err := tools.Call(runCtx("r", "x"), "search", map[string]any{"query": "q"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the run session to expire", func() bool { return tools.OpenSessions() == 1 })
	if _, err := tools.Call(runCtx("r", "x"), "search", map[string]any{"query": "q"}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.InitAuth()); n != 3 {
		t.Fatalf("after expiry a new run session is opened: %d inits", n)
	}

	tools2 := connected(t, Config{URL: srv.URL, HeaderProvider: bearer})
	for _, id := range []string{"a", "b", "c"} {
		if _, err := tools2.Call(runCtx(id, id), "search", map[string]any{"query": "q"}); err != nil {
			t.Fatal(err)
		}
	}
	if tools2.OpenSessions() != 4 {
		t.Fatalf("OpenSessions %d, want 4", tools2.OpenSessions())
	}
	_ = tools2.Close()
	_ = tools.Close()
	if tools2.OpenSessions() != 0 || tools.OpenSessions() != 0 {
		t.Fatalf("Close left sessions: %d, %d", tools2.OpenSessions(), tools.OpenSessions())
	}
	eventually(t, "server sessions closed", func() bool { return srv.Sessions() == 0 })
}

func TestHeaderProviderPanicIsLoggedNotFatal(t *testing.T) {
	srv := startHTTP(t)
	tools := connected(t, Config{URL: srv.URL, Headers: map[string]string{"X-Static": "s"},
		HeaderProvider: func(context.Context, *run.Context) map[string]string { panic("no token") }})
	if h := headersOf(t, tools, context.Background()); h["X-Static"] != "s" {
		t.Fatalf("headers %v", h)
	}
}

func TestSSETransport(t *testing.T) {
	srv := mcptest.NewServer()
	h := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	// Every request, the stream's GET as well as the message POSTs,
	// carries the static header. (The go-sdk's SSE handler does not pass
	// request headers to tools, so the headers tool cannot show them.)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get("X-Static"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
		ts.CloseClientConnections()
		ts.Close()
	}()
	tools := connected(t, Config{URL: ts.URL, Transport: TransportSSE, Headers: map[string]string{"X-Static": "sse"}})
	r, err := tools.Call(context.Background(), "search", map[string]any{"query": "sse"})
	if err != nil || r.Content != "results for sse" {
		t.Fatalf("%+v %v", r, err)
	}
	_ = tools.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(seen, "GET sse") || !slices.Contains(seen, "POST sse") {
		t.Fatalf("requests (method and X-Static): %q", seen)
	}
	for _, s := range seen {
		if !strings.HasSuffix(s, " sse") {
			t.Fatalf("a request without X-Static: %q", seen)
		}
	}
}
