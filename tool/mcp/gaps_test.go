package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp/internal/mcptest"
)

// serverConfig is inMemory over a server the test holds, so it can change
// the server's tool set between calls.
func serverConfig(t *testing.T, srv *sdk.Server) Config {
	t.Helper()
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return Config{
		NewTransport: func(ctx context.Context) (sdk.Transport, error) {
			ct, st := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				return nil, err
			}
			wg.Go(func() { _ = ss.Wait() })
			return ct, nil
		},
	}
}

func addTool(srv *sdk.Server, name, answer string) {
	srv.AddTool(&sdk.Tool{Name: name, Description: "Added while connected.", InputSchema: json.RawMessage(objectSchemaJSON)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: answer}}}, nil
		})
}

const objectSchemaJSON = `{"type":"object","properties":{},"required":[]}`

func toolNames(t *testing.T, tools *Tools) []string {
	t.Helper()
	fns, err := tools.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names(fns)
}

// §3 refresh_connection re-lists tools: a tool the server adds or removes
// after Connect shows up in (or leaves) Functions and the agent's next
// run; without refresh the list from Connect stays.
func TestRefreshRelistsChangedTools(t *testing.T) {
	srv := mcptest.NewServer()
	cfg := serverConfig(t, srv)
	cfg.RefreshConnection = true
	tools := connected(t, cfg)
	static := connected(t, serverConfig(t, srv))
	if slices.Contains(toolNames(t, tools), "added") {
		t.Fatal("tool listed before the server added it")
	}

	var seen [][]string // tool names of each model request
	var mu sync.Mutex
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		var n []string
		for _, d := range req.Tools {
			n = append(n, d.Name)
		}
		mu.Lock()
		seen = append(seen, n)
		mu.Unlock()
		return modeltest.Response{Content: "ok"}
	})
	a, err := agent.New(agent.Config{Model: m, Tools: []tool.Provider{tools}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "before"); err != nil {
		t.Fatal(err)
	}

	addTool(srv, "added", "from the added tool")
	if got := toolNames(t, tools); !slices.Contains(got, "added") {
		t.Fatalf("refresh did not pick up the added tool: %v", got)
	}
	if r, err := tools.Call(context.Background(), "added", nil); err != nil || r.Content != "from the added tool" {
		t.Fatalf("calling the added tool: %+v %v", r, err)
	}
	if _, err := a.Run(context.Background(), "after"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(seen) != 2 || slices.Contains(seen[0], "added") || !slices.Contains(seen[1], "added") {
		t.Fatalf("the agent's tool lists per run: %v", seen)
	}
	mu.Unlock()

	srv.RemoveTools("added", "pid")
	got := toolNames(t, tools)
	if slices.Contains(got, "added") || slices.Contains(got, "pid") || !slices.Contains(got, "search") {
		t.Fatalf("refresh did not drop the removed tools: %v", got)
	}
	if _, err := tools.Call(context.Background(), "added", nil); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("call of a removed tool: %v", err)
	}
	// Without refresh the list is the one from Connect.
	if got := toolNames(t, static); slices.Contains(got, "added") || !slices.Contains(got, "pid") {
		t.Fatalf("a toolkit without refresh re-listed: %v", got)
	}
}

// §3 without refresh: the session a run opened (header provider on HTTP)
// is closed by the agent when the run ends, not left for the TTL.
func TestAgentRunClosesItsRunSession(t *testing.T) {
	srv := startHTTP(t)
	perRun := func(_ context.Context, rc *run.Context) map[string]string {
		if rc == nil {
			return nil
		}
		return map[string]string{"Authorization": "Bearer " + rc.RunID}
	}
	tools, err := New(Config{URL: srv.URL, HeaderProvider: perRun})
	if err != nil {
		t.Fatal(err)
	}
	// Two calls in one turn share the run's session.
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "headers", `{}`),
			modeltest.ToolCall("c2", "search", `{"query":"q"}`),
		}}
	})
	a, err := agent.New(agent.Config{Model: m, Tools: []tool.Provider{tools}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	var runIDs []string
	for i := range 2 {
		out, err := a.Run(context.Background(), "call the server")
		if err != nil || out.Status != run.StatusCompleted {
			t.Fatalf("run %d: %v %v", i, err, out.Status)
		}
		runIDs = append(runIDs, out.RunID)
		var h map[string]string
		for _, msg := range out.Messages {
			if msg.Role == model.RoleTool && msg.ToolName == "headers" {
				_ = json.Unmarshal([]byte(msg.Content), &h)
			}
		}
		if h["Authorization"] != "Bearer "+out.RunID {
			t.Fatalf("run %d: the call did not use the run's session: %v", i, h)
		}
		// ReleaseRun closes it before Run returns.
		if n := tools.OpenSessions(); n != 1 {
			t.Fatalf("run %d: %d sessions open after the run, want the default only", i, n)
		}
		tools.mu.Lock()
		cached := len(tools.runs)
		tools.mu.Unlock()
		if cached != 0 {
			t.Fatalf("run %d: %d run sessions still cached", i, cached)
		}
		eventually(t, "the server to see the run's session closed", func() bool { return srv.Sessions() == 1 })
	}
	want := []string{"", "Bearer " + runIDs[0], "Bearer " + runIDs[1]}
	if got := srv.InitAuth(); !slices.Equal(got, want) {
		t.Fatalf("sessions opened %q, want the default and one per run %q", got, want)
	}
}

// hangingServer accepts HTTP requests and never answers them.
func hangingServer(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		ts.Close()
	})
	return ts
}

// §1 ConnectTimeout: a server that never completes initialize fails
// Connect (and a first Call, which connects) with an error naming
// ConnectTimeout, and leaves no session, process or goroutine behind.
// Timeout is long, so only ConnectTimeout can end these connects.
func TestConnectTimeoutOnAServerThatNeverInitializes(t *testing.T) {
	cases := []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"stdio", func(*testing.T) Config {
			// sleep never reads stdin; it leaves on SIGTERM after the grace.
			return Config{Command: "sleep 600", Stderr: io.Discard, TerminateGrace: 10 * time.Millisecond}
		}},
		{"streamable-http", func(t *testing.T) Config { return Config{URL: hangingServer(t).URL} }},
		{"sse", func(t *testing.T) Config {
			return Config{URL: hangingServer(t).URL, Transport: TransportSSE, HTTPTimeout: time.Hour}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			settle(t, 0)
			before := TotalOpenSessions()
			t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
			cfg := c.cfg(t)
			cfg.Timeout = time.Hour
			cfg.ConnectTimeout = 100 * time.Millisecond
			cfg.Logger = slog.New(slog.DiscardHandler)
			tools, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer tools.Close()
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within ConnectTimeout (100ms)") {
					t.Fatalf("%s: %v, want an error naming ConnectTimeout", what, err)
				}
				if tools.Connected() || tools.OpenSessions() != 0 || TotalOpenSessions() != before {
					t.Fatalf("%s left state: connected=%v open=%d total=%d (before %d)",
						what, tools.Connected(), tools.OpenSessions(), TotalOpenSessions(), before)
				}
			}
			check("Connect", tools.Connect(context.Background()))
			_, err = tools.Call(context.Background(), "search", map[string]any{"query": "q"})
			check("first Call", err)
			settle(t, 0) // each sleep started was reaped
		})
	}
}

// A run session that is not initialised within ConnectTimeout fails every
// parallel call of the run once; the waiting calls do not each try again
// and wait another ConnectTimeout.
func TestRunSessionConnectTimeoutIsSharedByParallelCalls(t *testing.T) {
	srv := mcptest.NewServer()
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var runInits atomic.Int32
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			handler.ServeHTTP(w, r)
			return
		}
		// Run sessions: accept and never answer.
		runInits.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
		close(stop)
		ts.CloseClientConnections()
		ts.Close()
	}()

	const calls = 8
	gate := make(chan struct{})
	open := sync.OnceFunc(func() { close(gate) })
	defer open() // a failed test does not leave calls blocked
	// ConnectTimeout leaves the default session's connect time on a busy
	// machine; the run's session never answers, so its calls wait it out.
	tools := connected(t, Config{URL: ts.URL, Timeout: time.Hour, ConnectTimeout: time.Second,
		HeaderProvider: func(_ context.Context, rc *run.Context) map[string]string {
			if rc == nil {
				return nil
			}
			// The opener waits here, before its ConnectTimeout starts,
			// until every call has joined the run's entry.
			<-gate
			return map[string]string{"Authorization": "Bearer " + rc.RunID}
		}})
	ctx := runCtx("slow-run", "x")
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { _, errs[i] = tools.Call(ctx, "search", map[string]any{"query": "q"}) })
	}
	eventually(t, "every call to wait for the run's session", func() bool {
		tools.mu.Lock()
		defer tools.mu.Unlock()
		e := tools.runs["slow-run"]
		return e != nil && e.refs == calls
	})
	open()
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "ConnectTimeout") {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := runInits.Load(); n != 1 {
		t.Fatalf("%d attempts to open the run's session, want 1 shared by the %d calls", n, calls)
	}
	if tools.OpenSessions() != 1 {
		t.Fatalf("OpenSessions %d, want the default only", tools.OpenSessions())
	}
}

// When ConnectTimeout ends an initialize the server never answers, the
// go-sdk sends a best-effort notifications/cancelled on a detached 5 s
// context, and Connect could wait for it. Nothing is sent once the
// connect context has ended, so the notice never reaches the server.
// (Which of the go-sdk's goroutines wins varies: about one connect in
// ten used to send it, hence the repetitions.)
func TestConnectTimeoutSendsNothingAfterIt(t *testing.T) {
	var notices, requests atomic.Int32
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if b, _ := io.ReadAll(r.Body); strings.Contains(string(b), `"notifications/cancelled"`) {
			notices.Add(1)
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer ts.Close()
	defer close(stop)
	const connects = 40
	for i := range connects {
		tools, err := New(Config{URL: ts.URL, Timeout: time.Hour, ConnectTimeout: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := tools.Connect(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("connect %d: %v", i, err)
		}
	}
	eventually(t, "the server to have been reached", func() bool { return requests.Load() > 0 })
	if n := notices.Load(); n != 0 {
		t.Fatalf("%d cancel notices sent after ConnectTimeout; Connect waits on them", n)
	}
}
