package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	agnorun "github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server is an in-process AgentOS serving one agent, "assistant", on a
// loopback port, with SQLite storage (the default of agno agentos start).
type server struct {
	URL   string
	Model *modeltest.Fake
	Store *sqlite.Store
}

func startOS(t *testing.T, m *modeltest.Fake, cfg agentos.Config) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	quiet := slog.New(slog.DiscardHandler)
	store, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "assistant", Name: "Assistant", Model: m, Store: store, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents, cfg.Store, cfg.Closers, cfg.Logger = []*agent.Agent{a}, store, []func() error{store.Close}, quiet
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- o.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return &server{URL: "http://" + ln.Addr().String(), Model: m, Store: store}
}

func mustRun(t *testing.T, ctx context.Context, cfg Config) *Report {
	t.Helper()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRunAgentOS(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			srv := startOS(t, modeltest.New(modeltest.Response{Content: "Hello from the agent"}), agentos.Config{})
			rep := mustRun(t, t.Context(), Config{URL: srv.URL + "/", Agent: "assistant", Concurrency: 4, Requests: 24,
				Stream: stream, Sessions: 3, UserID: "load-user", ServerPID: os.Getpid()})

			if rep.Requests != 24 || rep.OK != 24 || rep.Errors != 0 || rep.Interrupted {
				t.Fatalf("report: %+v", rep)
			}
			if rep.Latency.Count != 24 || rep.Latency.P50 <= 0 || rep.Latency.P50 > rep.Latency.P99 || rep.Latency.P99 > rep.Latency.Max {
				t.Fatalf("latency: %+v", rep.Latency)
			}
			if stream {
				if rep.TTFE == nil || rep.TTFE.Count != 24 || rep.TTFE.Max > rep.Latency.Max {
					t.Fatalf("ttfe: %+v (latency %+v)", rep.TTFE, rep.Latency)
				}
			} else if rep.TTFE != nil {
				t.Fatalf("ttfe without -stream: %+v", rep.TTFE)
			}
			if rep.RunsPerSecond <= 0 || rep.Concurrency != 4 {
				t.Fatalf("runs/s %v, c %d", rep.RunsPerSecond, rep.Concurrency)
			}
			// The server is this process: /proc must have answered.
			// The kernel's RSS counters are per-CPU and read approximately:
			// VmHWM may seem to drop by a little.
			if s := rep.Server; s == nil || s.Error != "" || s.PeakRSSMB <= 0 || s.PeakRSSMB < s.PeakRSSBeforeMB-2 || s.CPUMs < 0 {
				t.Fatalf("server usage: %+v", rep.Server)
			}

			// The server really ran 24 runs, for one user, over 3 sessions.
			if n := srv.Model.Calls(); n != 24 {
				t.Fatalf("model calls: %d", n)
			}
			ctx := t.Context()
			sessions, total, err := srv.Store.ListSessions(ctx, storage.SessionQuery{ComponentID: "assistant"})
			if err != nil {
				t.Fatal(err)
			}
			if total != 3 {
				t.Fatalf("sessions: %d, want 3", total)
			}
			runs := 0
			for _, s := range sessions {
				if s.UserID != "load-user" {
					t.Fatalf("session %s user %q", s.SessionID, s.UserID)
				}
				rs, err := srv.Store.ListRuns(ctx, storage.RunQuery{SessionID: s.SessionID})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					if r.Status != agnorun.StatusCompleted {
						t.Fatalf("run %s: %s", r.RunID, r.Status)
					}
				}
				runs += len(rs)
			}
			if runs != 24 {
				t.Fatalf("stored runs: %d", runs)
			}
		})
	}
}

func TestSessionPerRequestByDefault(t *testing.T) {
	srv := startOS(t, modeltest.New(), agentos.Config{})
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 2, Requests: 5})
	if rep.OK != 5 {
		t.Fatalf("%+v", rep)
	}
	_, total, err := srv.Store.ListSessions(t.Context(), storage.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 5 {
		t.Fatalf("sessions: %d, want one per request", total)
	}
}

func TestUnknownAgentCountsErrors(t *testing.T) {
	srv := startOS(t, modeltest.New(), agentos.Config{})
	for _, stream := range []bool{false, true} {
		rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "no-such-agent", Concurrency: 3, Requests: 7, Stream: stream})
		if rep.Requests != 7 || rep.OK != 0 || rep.Errors != 7 || rep.ErrorKinds["http_404"] != 7 || len(rep.ErrorKinds) != 1 {
			t.Fatalf("stream=%v: %+v", stream, rep)
		}
		if !strings.Contains(rep.ErrorSamples["http_404"], "Agent not found") {
			t.Fatalf("sample: %q", rep.ErrorSamples["http_404"])
		}
		if rep.Latency.Count != 0 || rep.RunsPerSecond != 0 {
			t.Fatalf("errors must not count as runs: %+v", rep)
		}
	}
}

func TestSecurityKey(t *testing.T) {
	srv := startOS(t, modeltest.New(), agentos.Config{SecurityKey: "sk-load"})
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 1, Requests: 2})
	if rep.ErrorKinds["http_401"] != 2 {
		t.Fatalf("without key: %+v", rep)
	}
	rep = mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 1, Requests: 2, Key: "sk-load", Stream: true})
	if rep.OK != 2 || rep.Errors != 0 {
		t.Fatalf("with key: %+v", rep)
	}
}

func TestFailedRunsAreErrors(t *testing.T) {
	srv := startOS(t, modeltest.New(modeltest.Response{Status: http.StatusTooManyRequests, ErrorMessage: "Rate limit reached"}), agentos.Config{})
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 2, Requests: 4, Stream: true})
	if rep.OK != 0 || rep.ErrorKinds[errRunFailed] != 4 || rep.ErrorSamples[errRunFailed] != "stream ended with RunError" {
		t.Fatalf("stream: %+v", rep)
	}
	rep = mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 2, Requests: 4})
	if rep.OK != 0 || rep.ErrorKinds[errRunFailed] != 4 || rep.ErrorSamples[errRunFailed] != "run ended with status ERROR" {
		t.Fatalf("non-stream: %+v", rep)
	}
}

// sseServer answers every request with the given body as an event
// stream, as AgentOS frames it.
func sseServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func frameOf(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func TestStreamEndings(t *testing.T) {
	big := `{"content":"` + strings.Repeat("x", 100<<10) + `"}` // longer than the read buffer
	for _, tc := range []struct {
		name, body, kind string
	}{
		{"completed", frameOf("RunStarted", "{}") + ": ping\n\n" + frameOf("RunContent", `{"content":"hi"}`) + frameOf("RunCompleted", "{}"), ""},
		{"long completed", frameOf("RunStarted", "{}") + frameOf("RunCompleted", big), ""},
		{"crlf", "event: RunStarted\r\ndata: {}\r\n\r\nevent: RunCompleted\r\ndata: {}\r\n\r\n", ""},
		{"team", frameOf("TeamRunStarted", "{}") + frameOf("RunCompleted", "{}") + frameOf("TeamRunCompleted", "{}"), ""},
		{"cut short", frameOf("RunStarted", "{}") + frameOf("RunContent", `{"content":"hi"}`), errIncomplete},
		{"no closing blank line", frameOf("RunStarted", "{}") + "event: RunCompleted\ndata: {}\n", errIncomplete},
		{"empty", "", errIncomplete},
		{"sub-agent completed, parent failed", frameOf("RunCompleted", "{}") + frameOf("RunError", `{"content":"boom"}`), errRunFailed},
		{"cancelled", frameOf("RunStarted", "{}") + frameOf("RunCancelled", "{}"), errRunFailed},
		{"cancelled then completed", frameOf("RunStarted", "{}") + frameOf("RunCancelled", "{}") + frameOf("RunCompleted", "{}"), errRunFailed},
		{"member cancelled, team completed", frameOf("TeamRunStarted", "{}") + frameOf("RunCancelled", "{}") + frameOf("RunCompleted", "{}") + frameOf("TeamRunCompleted", "{}"), ""},
		{"paused", frameOf("RunStarted", "{}") + frameOf("RunPaused", "{}"), errRunFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := mustRun(t, t.Context(), Config{URL: sseServer(t, tc.body), Agent: "a", Concurrency: 2, Requests: 3, Stream: true})
			if tc.kind == "" {
				if rep.OK != 3 || rep.TTFE.Count != 3 {
					t.Fatalf("%+v", rep)
				}
				return
			}
			if rep.OK != 0 || rep.ErrorKinds[tc.kind] != 3 {
				t.Fatalf("want 3 × %s: %+v", tc.kind, rep)
			}
		})
	}
}

func TestNonStreamBodies(t *testing.T) {
	for _, tc := range []struct{ body, kind string }{
		{`{"run_id":"r1","status":"COMPLETED","content":"hi"}`, ""},
		{`{"run_id":"r1","status":"ERROR","content":"boom"}`, errRunFailed},
		{`{"run_id":"r1"}`, errBadResponse},
		{`<html>`, errBadResponse},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, tc.body)
		}))
		rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "a", Concurrency: 1, Requests: 2})
		srv.Close()
		if (tc.kind == "" && rep.OK != 2) || (tc.kind != "" && rep.ErrorKinds[tc.kind] != 2) {
			t.Fatalf("%s: %+v", tc.body, rep)
		}
	}
}

func TestTransportErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	rep := mustRun(t, t.Context(), Config{URL: url, Agent: "a", Concurrency: 2, Requests: 4})
	if rep.ErrorKinds[errTransport] != 4 || !strings.Contains(rep.ErrorSamples[errTransport], "refused") {
		t.Fatalf("%+v", rep)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "a", Concurrency: 2, Requests: 2, Timeout: 50 * time.Millisecond})
	if rep.ErrorKinds[errTimeout] != 2 {
		t.Fatalf("%+v", rep)
	}
}

func TestDuration(t *testing.T) {
	srv := startOS(t, modeltest.New(), agentos.Config{})
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 2, Duration: 300 * time.Millisecond, Stream: true})
	if rep.OK == 0 || rep.Errors != 0 || rep.Requests != rep.OK || rep.Interrupted {
		t.Fatalf("%+v", rep)
	}
	if n := srv.Model.Calls(); n != rep.OK {
		t.Fatalf("model calls %d, report ok %d", n, rep.OK)
	}
}

// TestInterruptGivesPartialReport: runs after the fifth block until the
// test cancels, as Ctrl-C does; the report keeps the five and does not
// count the one cut short.
func TestInterruptGivesPartialReport(t *testing.T) {
	var calls atomic.Int32
	blocked := make(chan struct{}, 1)
	m := modeltest.NewFunc(func(*model.Request) modeltest.Response {
		if calls.Add(1) > 5 {
			select {
			case blocked <- struct{}{}:
			default:
			}
			return modeltest.Response{Content: "late", Delay: time.Hour}
		}
		return modeltest.Response{Content: "ok"}
	})
	srv := startOS(t, m, agentos.Config{})
	for _, stream := range []bool{false, true} {
		calls.Store(0)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-blocked
			cancel()
		}()
		rep := mustRun(t, ctx, Config{URL: srv.URL, Agent: "assistant", Concurrency: 1, Requests: 1000, Stream: stream})
		if !rep.Interrupted || rep.OK != 5 || rep.Errors != 0 || rep.Requests != 5 {
			t.Fatalf("stream=%v: %+v", stream, rep)
		}
	}
}

func TestOpenAITarget(t *testing.T) {
	llm := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Tokens: modeltest.FillerTokens(5)}}})
	defer llm.Close()
	for _, stream := range []bool{false, true} {
		before := llm.Calls()
		rep := mustRun(t, t.Context(), Config{Target: TargetOpenAI, URL: llm.URL, Concurrency: 3, Requests: 9, Stream: stream, Message: "hi there"})
		if rep.OK != 9 || rep.Errors != 0 || llm.Calls()-before != 9 {
			t.Fatalf("stream=%v: %+v", stream, rep)
		}
		if stream && rep.TTFE.Count != 9 {
			t.Fatalf("ttfe: %+v", rep.TTFE)
		}
		var body struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct{ Role, Content string }
		}
		if err := llm.Requests()[before].Decode(&body); err != nil {
			t.Fatal(err)
		}
		if body.Model != "fake-model" || body.Stream != stream || len(body.Messages) != 1 || body.Messages[0].Content != "hi there" {
			t.Fatalf("request body: %+v", body)
		}
	}
	// A stream that never says [DONE] is incomplete.
	rep := mustRun(t, t.Context(), Config{Target: TargetOpenAI, URL: sseServer(t, "data: {\"choices\":[]}\n\n"), Concurrency: 1, Requests: 2, Stream: true})
	if rep.ErrorKinds[errIncomplete] != 2 {
		t.Fatalf("%+v", rep)
	}
}

func TestCLI(t *testing.T) {
	srv := startOS(t, modeltest.New(), agentos.Config{})
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"-url", srv.URL, "-agent", "assistant", "-c", "2", "-n", "6", "-stream", "-sessions", "2",
		"-server-pid", fmt.Sprint(os.Getpid()), "-json"}, &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, k := range []string{"requests", "ok", "errors", "runs_per_s", "latency", "ttfe", "server", "client_cpu_ms_per_run"} {
		if _, ok := rep[k]; !ok {
			t.Fatalf("no %q in %s", k, out.String())
		}
	}
	if rep["ok"] != 6.0 || rep["latency"].(map[string]any)["count"] != 6.0 || rep["server"].(map[string]any)["peak_rss_mb"].(float64) <= 0 {
		t.Fatalf("%s", out.String())
	}

	out.Reset()
	if err := run(t.Context(), []string{"-url", srv.URL, "-agent", "missing", "-n", "2"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"requests   2 (ok 0, errors 2)", "http_404", "Agent not found", "runs/s", "latency    p50"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in\n%s", want, out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-agent", "a", "-n", "1"}, "-url is required"},
		{[]string{"-url", "localhost:7777", "-agent", "a", "-n", "1"}, "not an http(s) URL"},
		{[]string{"-url", "http://127.0.0.1:1", "-n", "1"}, "-agent is required"},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a"}, "give -n (total requests) or -d"},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a", "-n", "3", "-d", "1s"}, "-n and -d both given"},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a", "-n", "3", "-c", "0"}, "-c 0"},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a", "-n", "3", "-sessions", "-1"}, "-sessions -1"},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a", "-n", "3", "-target", "grpc"}, `-target "grpc" is unknown`},
		{[]string{"-url", "http://127.0.0.1:1", "-agent", "a", "-n", "3", "-server-pid", "999999999"}, "-server-pid 999999999"},
	} {
		err := run(t.Context(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := run(t.Context(), []string{"-bogus"}, io.Discard, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("unknown flag: %v", err)
	}
}

// TestNoGoroutinesLeft: with the servers still up, Run leaves no client
// goroutine behind (its keep-alive connections are closed).
func TestNoGoroutinesLeft(t *testing.T) {
	llm := modeltest.NewServer(modeltest.ServerConfig{})
	defer llm.Close()
	srv := startOS(t, modeltest.New(), agentos.Config{})
	mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 1, Requests: 1}) // the server is up
	before := goleak.IgnoreCurrent()
	for _, stream := range []bool{false, true} {
		if rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "assistant", Concurrency: 4, Requests: 8, Stream: stream}); rep.OK != 8 {
			t.Fatalf("%+v", rep)
		}
		if rep := mustRun(t, t.Context(), Config{Target: TargetOpenAI, URL: llm.URL, Concurrency: 4, Requests: 8, Stream: stream}); rep.OK != 8 {
			t.Fatalf("%+v", rep)
		}
	}
	goleak.VerifyNone(t, before)
}

func TestTimeToFirstContent(t *testing.T) {
	body := frameOf("RunStarted", "{}") + frameOf("RunContent", `{"content":"hi"}`) + frameOf("RunCompleted", "{}")
	rep := mustRun(t, t.Context(), Config{URL: sseServer(t, body), Agent: "a", Concurrency: 2, Requests: 4, Stream: true})
	if rep.OK != 4 || rep.TTFT == nil || rep.TTFT.Count != 4 || rep.TTFT.Max > rep.Latency.Max || rep.PeakOpen < 1 || rep.PeakOpen > 2 {
		t.Fatalf("%+v ttft %+v", rep, rep.TTFT)
	}
	// No content event: no TTFT sample, the run still counts.
	rep = mustRun(t, t.Context(), Config{URL: sseServer(t, frameOf("RunStarted", "{}")+frameOf("RunCompleted", "{}")), Agent: "a", Concurrency: 1, Requests: 2, Stream: true})
	if rep.OK != 2 || rep.TTFT.Count != 0 {
		t.Fatalf("%+v ttft %+v", rep, rep.TTFT)
	}
	// Chat Completions: the role chunk's empty content is not content.
	chunk := func(delta string) string {
		return "data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
	}
	for _, tc := range []struct {
		body string
		want int
	}{
		{chunk(`{"role":"assistant","content":""}`) + chunk(`{"content":"Hello"}`) + "data: [DONE]\n\n", 3},
		{chunk(`{"role":"assistant","content":""}`) + "data: [DONE]\n\n", 0},
	} {
		rep := mustRun(t, t.Context(), Config{Target: TargetOpenAI, URL: sseServer(t, tc.body), Concurrency: 1, Requests: 3, Stream: true})
		if rep.OK != 3 || rep.TTFT.Count != tc.want {
			t.Fatalf("%q: %+v ttft %+v", tc.body, rep, rep.TTFT)
		}
	}
}

// TestPreconnect: every client's connection is open before the first run
// is sent, and the runs reuse them: all n are in flight at once.
func TestPreconnect(t *testing.T) {
	const n = 8
	var conns, health atomic.Int32
	var inFlight atomic.Int32
	all := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			health.Add(1)
			_, _ = io.WriteString(w, `{"status":"ok"}`)
			return
		}
		if conns.Load() != n || health.Load() != n {
			http.Error(w, fmt.Sprintf("run before the connections were open: %d conns, %d health", conns.Load(), health.Load()), http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, frameOf("RunStarted", "{}"))
		w.(http.Flusher).Flush()
		if inFlight.Add(1) == n {
			close(all)
		}
		select { // held until all n are in, so they are open at once
		case <-all:
		case <-time.After(10 * time.Second):
		}
		_, _ = io.WriteString(w, frameOf("RunCompleted", "{}"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "a", Concurrency: n, Requests: n, Stream: true, Preconnect: true})
	if rep.OK != n || conns.Load() != n || inFlight.Load() != n || rep.PeakOpen < 1 {
		t.Fatalf("%+v; %d connections, %d in flight", rep, conns.Load(), inFlight.Load())
	}
	select {
	case <-all:
	default:
		t.Fatal("the runs were not all in flight together")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	if _, err := Run(t.Context(), Config{URL: closed, Agent: "a", Concurrency: 3, Requests: 3, Preconnect: true}); err == nil || !strings.Contains(err.Error(), "-preconnect: 3 of 3") {
		t.Fatalf("preconnect to nothing: %v", err)
	}
}

// TestOpenRSS: the server's resident set is sampled while answers are
// open and reported per open answer.
func TestOpenRSS(t *testing.T) {
	release := make(chan struct{})
	var open atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, frameOf("RunStarted", "{}"))
		w.(http.Flusher).Flush()
		if open.Add(1) == 3 {
			go func() { time.Sleep(50 * time.Millisecond); close(release) }() // a few samples' time
		}
		<-release
		_, _ = io.WriteString(w, frameOf("RunCompleted", "{}"))
	}))
	defer srv.Close()
	rep := mustRun(t, t.Context(), Config{URL: srv.URL, Agent: "a", Concurrency: 3, Requests: 3, Stream: true,
		ServerPID: os.Getpid(), Sample: time.Millisecond})
	s := rep.Server
	if rep.OK != 3 || s == nil || s.IdleRSSMB <= 0 || s.Samples == 0 || s.OpenStreams != 3 || s.OpenRSSMB <= 0 || s.MaxRSSMB < s.OpenRSSMB {
		t.Fatalf("%+v server %+v", rep, s)
	}
}

func TestSamplerPicksMostOpen(t *testing.T) {
	s := &rssSampler{}
	for _, x := range [][2]int64{{0, 50_000}, {10, 60_000}, {10, 61_000}, {4, 70_000}, {0, 52_000}} {
		s.add(x[0], x[1])
	}
	var u ServerUsage
	s.fill(&u, procSample{RSSKB: 51_000})
	if u.Samples != 5 || u.OpenStreams != 10 || u.KBPerOpen != 1000 || u.MaxRSSMB*1024 != 70_000 || u.OpenRSSMB*1024 != 61_000 {
		t.Fatalf("%+v", u)
	}
}

func TestRaiseNoFile(t *testing.T) {
	if err := raiseNoFile(64); err != nil { // within any limit
		t.Fatal(err)
	}
}
