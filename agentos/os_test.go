package agentos_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type emailArgs struct {
	To string `json:"to"`
}

// fixture builds an OS with an agent that can send email (needs
// confirmation) and a workflow with a confirmation step.
func fixture(t *testing.T, cfg agentos.Config) (*agentos.OS, *atomic.Int32) {
	t.Helper()
	var sent atomic.Int32
	send, m := mailParts(&sent)
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Main Agent", Model: m, Tools: []tool.Provider{send}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{ID: "workflow-hitl-step-confirmation", Name: "HITL", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "data"}, nil
		}},
		&workflow.Step{Name: "process_sensitive_data", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "Saved workflow results for " + fmt.Sprint(in.PreviousStepContent)}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Process sensitive data now?"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents, cfg.Workflows, cfg.Store = []*agent.Agent{a}, []*workflow.Workflow{wf}, store
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o, &sent
}

// mailParts are a send_email tool that needs confirmation (counting its
// sends) and a model that calls it when asked to email, then answers.
func mailParts(sent *atomic.Int32) (*tool.Function, model.Model) {
	send := tool.Must(tool.New("send_email", "Send an email", func(_ context.Context, a emailArgs) (string, error) {
		sent.Add(1)
		return "sent to " + a.To, nil
	}, tool.RequiresConfirmation()))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == model.RoleTool:
			return modeltest.Response{Content: "Done: " + last.Content}
		case strings.Contains(last.Content, "email"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "send_email", `{"to":"alice@example.com"}`)}}
		}
		return modeltest.Response{Content: "Hello from the agent"}
	})
	return send, m
}

func postForm(t testing.TB, srv *httptest.Server, path string, form url.Values, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decode(t testing.TB, resp *http.Response, v any) {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

type sseEvent struct {
	name string
	data map[string]any
}

func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q", line)
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

func names(evs []sseEvent) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}

func TestProtectedModeDecision(t *testing.T) {
	for addr, local := range map[string]bool{"127.0.0.1:5000": true, "[::1]:5000": true, "10.1.2.3:5000": false, "192.168.0.9:1": false, "[::ffff:127.0.0.1]:9": true} {
		r := httptest.NewRequest(http.MethodGet, "/registry", nil)
		r.RemoteAddr = addr
		if got := agentos.IsLocalRequest(r); got != local {
			t.Errorf("%s: local=%v", addr, got)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/registry", nil)
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	if agentos.IsLocalRequest(r) {
		t.Error("a proxied request must count as remote")
	}
	o, _ := fixture(t, agentos.Config{})
	h := o.Handler()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/agents", nil)
	req.RemoteAddr, req.Host = "10.0.0.8:4000", "127.0.0.1:7777"
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "OS_SECURITY_KEY") {
		t.Fatalf("remote: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	req.RemoteAddr = "127.0.0.1:4000"
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("loopback: %d", rec.Code)
	}
	off := false
	o2, _ := fixture(t, agentos.Config{ProtectedMode: &off})
	rec = httptest.NewRecorder()
	req.RemoteAddr = "10.0.0.8:4000"
	o2.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("protected_mode=false: %d", rec.Code)
	}
}

func TestSecurityKey(t *testing.T) {
	o, _ := fixture(t, agentos.Config{SecurityKey: "sk-test"})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	for _, tc := range []struct{ auth, want string }{{"", "Authorization header required"}, {"Bearer nope", "Invalid authentication token"}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/agents", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, _ := srv.Client().Do(req)
		var body map[string]string
		decode(t, resp, &body)
		resp.Body.Close()
		if resp.StatusCode != 401 || body["detail"] != tc.want {
			t.Fatalf("%q: %d %v", tc.auth, resp.StatusCode, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/agents/", nil)
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, _ := srv.Client().Do(req)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("with key and trailing slash: %d", resp.StatusCode)
	}
	resp, _ = srv.Client().Get(srv.URL + "/health")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/health must be open: %d", resp.StatusCode)
	}
}

func TestAgentRunModes(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	// Non-stream: RunOutput JSON.
	resp := postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"s1"}})
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["content"] != "Hello from the agent" || out["status"] != "COMPLETED" || out["agent_id"] != "main-agent" {
		t.Fatalf("non-stream: %d %v", resp.StatusCode, out)
	}
	// Stream: SSE framed as agno.
	resp = postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	evs := readSSE(t, resp)
	if got := names(evs); !strings.HasPrefix(got, "RunStarted") || !strings.HasSuffix(got, "RunCompleted") || !strings.Contains(got, "RunContent") {
		t.Fatalf("stream events: %s", got)
	}
	for _, e := range evs {
		if e.data["event"] != e.name || e.data["agent_id"] != "main-agent" {
			t.Fatalf("event %s data %v", e.name, e.data)
		}
	}
	// Missing message: FastAPI's 422.
	resp = postForm(t, srv, "/agents/main-agent/runs", url.Values{"stream": {"false"}})
	if resp.StatusCode != 422 {
		t.Fatalf("missing message: %d", resp.StatusCode)
	}
	// Unknown agent.
	resp = postForm(t, srv, "/agents/nope/runs", url.Values{"message": {"x"}})
	if resp.StatusCode != 404 {
		t.Fatalf("unknown agent: %d", resp.StatusCode)
	}
	// Background: 202, then pollable.
	resp = postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "background": {"true"}, "session_id": {"s2"}})
	var acc map[string]any
	decode(t, resp, &acc)
	if resp.StatusCode != 202 || acc["status"] != "PENDING" || acc["run_id"] == "" {
		t.Fatalf("background: %d %v", resp.StatusCode, acc)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, _ := srv.Client().Get(srv.URL + "/agents/main-agent/runs/" + acc["run_id"].(string) + "?session_id=s2")
		var got map[string]any
		decode(t, r, &got)
		r.Body.Close()
		if got["status"] == "COMPLETED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background run not completed: %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAgentHITLOverHTTP(t *testing.T) {
	o, sent := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	resp := postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"send an email"}, "session_id": {"s"}})
	evs := readSSE(t, resp)
	last := evs[len(evs)-1]
	if last.name != "RunPaused" || sent.Load() != 0 {
		t.Fatalf("events %s sent %d", names(evs), sent.Load())
	}
	runID := last.data["run_id"].(string)
	tools := last.data["tools"].([]any)
	tools[0].(map[string]any)["confirmed"] = true
	b, _ := json.Marshal(tools)
	resp = postForm(t, srv, "/agents/main-agent/runs/"+runID+"/continue", url.Values{"tools": {string(b)}, "session_id": {"s"}, "stream": {"false"}})
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || out["content"] != "Done: sent to alice@example.com" || sent.Load() != 1 {
		t.Fatalf("continue: %d %v sent %d", resp.StatusCode, out, sent.Load())
	}
	resp = postForm(t, srv, "/agents/main-agent/runs/"+runID+"/continue", url.Values{"tools": {string(b)}, "session_id": {"s"}, "stream": {"false"}})
	if resp.StatusCode != 409 {
		t.Fatalf("continue twice: %d", resp.StatusCode)
	}
	resp = postForm(t, srv, "/agents/main-agent/runs/"+runID+"/continue", url.Values{"tools": {"[not json"}, "session_id": {"s"}})
	if resp.StatusCode != 400 {
		t.Fatalf("bad tools JSON: %d", resp.StatusCode)
	}
}

func TestWorkflowHITLOverSSEAndHTTP(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	resp := postForm(t, srv, "/workflows/workflow-hitl-step-confirmation/runs", url.Values{"message": {"Q3 users"}, "session_id": {"s1"}})
	evs := readSSE(t, resp)
	got := names(evs)
	if !strings.HasSuffix(got, "StepPaused WorkflowPaused WorkflowRunOutput") { // A8 case 4
		t.Fatalf("events %s", got)
	}
	// agno's legacy WorkflowRunOutput: its content_type defaults to "str",
	// and the resume state kept for the continuation is not sent.
	legacy := evs[len(evs)-1].data
	if _, leaked := legacy["resume_state"]; leaked || legacy["content_type"] != "str" || legacy["status"] != "PAUSED" {
		t.Errorf("WorkflowRunOutput: %v", legacy)
	}
	paused := evs[len(evs)-2].data
	reqs := paused["step_requirements"].([]any)
	req := reqs[0].(map[string]any)
	req["confirmed"] = true
	b, _ := json.Marshal(reqs)
	runID := paused["run_id"].(string)
	resp = postForm(t, srv, "/workflows/workflow-hitl-step-confirmation/runs/"+runID+"/continue", url.Values{"step_requirements": {string(b)}, "session_id": {"s1"}, "stream": {"false"}})
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || out["content"] != "Saved workflow results for data" {
		t.Fatalf("continue: %d %v", resp.StatusCode, out)
	}
	resp = postForm(t, srv, "/workflows/workflow-hitl-step-confirmation/runs/"+runID+"/continue", url.Values{"step_requirements": {string(b)}, "session_id": {"s1"}, "stream": {"false"}})
	if resp.StatusCode != 409 {
		t.Fatalf("continue twice: %d", resp.StatusCode)
	}
}

func TestWorkflowWebSocketHITL(t *testing.T) {
	o, _ := fixture(t, agentos.Config{SecurityKey: "sk-ws"})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/workflows/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	stage := "hello"
	read := func() string {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		return string(b)
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	if msg := read(); !strings.Contains(msg, `"event":"connected"`) || !strings.Contains(msg, `"requires_auth":true`) {
		t.Fatalf("hello %s", msg)
	}
	send(map[string]any{"action": "start-workflow", "workflow_id": "workflow-hitl-step-confirmation"})
	if msg := read(); !strings.Contains(msg, "auth_required") {
		t.Fatalf("unauthenticated start: %s", msg)
	}
	send(map[string]any{"action": "authenticate", "token": "sk-ws"})
	if msg := read(); !strings.Contains(msg, "Authentication successful") {
		t.Fatalf("auth: %s", msg)
	}
	send(map[string]any{"action": "continue-workflow"}) // A8 case 3
	if msg := read(); msg != `{"event":"error","error":"workflow_id is required"}` {
		t.Fatalf("missing workflow_id: %s", msg)
	}
	stage = "start until WorkflowPaused"
	send(map[string]any{"action": "start-workflow", "workflow_id": "workflow-hitl-step-confirmation", "message": "Q3 users", "session_id": "s1"})
	var paused map[string]any
	for paused == nil {
		msg := read()
		if strings.HasPrefix(msg, `{"event":"error"`) {
			t.Fatalf("start: %s", msg)
		}
		if !strings.HasPrefix(msg, "event: ") {
			t.Fatalf("live frames must be SSE-formatted: %q", msg)
		}
		name, data, _ := strings.Cut(strings.TrimPrefix(msg, "event: "), "\ndata: ")
		if name == "WorkflowPaused" {
			_ = json.Unmarshal([]byte(strings.TrimSpace(data)), &paused)
		}
	}
	if paused["event_index"] == nil || paused["run_id"] == nil {
		t.Fatalf("paused frame %v", paused)
	}
	reqs := paused["step_requirements"].([]any)
	reqs[0].(map[string]any)["confirmed"] = true
	stage = "continue until WorkflowCompleted"
	send(map[string]any{"action": "continue-workflow", "workflow_id": "workflow-hitl-step-confirmation", "run_id": paused["run_id"], "session_id": "s1", "step_requirements": reqs})
	var seen []string
	for {
		msg := read()
		if strings.HasPrefix(msg, `{"event":"error"`) {
			t.Fatalf("continue: %s", msg)
		}
		seen = append(seen, strings.SplitN(msg, "\n", 2)[0])
		stage = "continue until WorkflowCompleted, after " + strings.Join(seen, ", ")
		if strings.HasPrefix(msg, "event: WorkflowCompleted") {
			if !strings.Contains(msg, "Saved workflow results for data") {
				t.Fatalf("completed %s", msg)
			}
			break
		}
	}
	stage = "second continue"
	send(map[string]any{"action": "continue-workflow", "workflow_id": "workflow-hitl-step-confirmation", "run_id": paused["run_id"], "session_id": "s1", "step_requirements": reqs})
	if msg := read(); msg != `{"event":"error","error":"Run is not paused (status=COMPLETED)"}` {
		t.Fatalf("second continue: %s", msg)
	}
	send(map[string]any{"action": "nope"})
	if msg := read(); msg != `{"event":"error","error":"Unknown action: nope"}` {
		t.Fatalf("unknown action: %s", msg)
	}
	_ = run.StatusCompleted
}
