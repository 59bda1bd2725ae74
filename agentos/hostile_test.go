package agentos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// hostile is an AgentOS with an agent whose tool needs confirmation, a
// workflow whose step runs that agent (an executor pause), and a
// workflow with a step that panics.
type hostile struct {
	srv   *httptest.Server
	store storage.Store
	paid  *atomic.Int32
}

func newHostile(t testing.TB, cfg agentos.Config) *hostile {
	t.Helper()
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "Done: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":5}`)}}
	})
	store := memory.New()
	cashier, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	flow, err := workflow.New(workflow.Config{Name: "pay-flow", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "pay", Agent: cashier},
	}})
	if err != nil {
		t.Fatal(err)
	}
	crash, err := workflow.New(workflow.Config{Name: "crash-flow", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "crash", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			var m map[string]int
			//lint:ignore SA5000 the panic is what the test recovers
			m["secret-panic-value"]++ // nil map: panics
			return nil, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents, cfg.Workflows, cfg.Store = []*agent.Agent{cashier}, []*workflow.Workflow{flow, crash}, store
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)
	return &hostile{srv: srv, store: store, paid: &paid}
}

func (h *hostile) status(t testing.TB, runID string) run.Status {
	t.Helper()
	rec, err := h.store.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatalf("run %s: %v", runID, err)
	}
	return rec.Status
}

func detail(t testing.TB, resp *http.Response) string {
	t.Helper()
	var body struct {
		Detail any `json:"detail"`
	}
	decode(t, resp, &body)
	if s, ok := body.Detail.(string); ok {
		return s
	}
	b, _ := json.Marshal(body.Detail)
	return string(b)
}

// pausedWorkflow starts pay-flow and returns the run id, the step id and
// the executor requirement id of its pause.
func (h *hostile) pausedWorkflow(t testing.TB, session string) (runID, stepID, reqID string) {
	t.Helper()
	resp := postForm(t, h.srv, "/workflows/pay-flow/runs", url.Values{"message": {"pay"}, "session_id": {session}, "stream": {"false"}})
	var out map[string]any
	decode(t, resp, &out)
	if out["status"] != "PAUSED" {
		t.Fatalf("run: %d %v", resp.StatusCode, out)
	}
	reqs := out["step_requirements"].([]any)
	req := reqs[len(reqs)-1].(map[string]any)
	ex := req["executor_requirements"].([]any)[0].(map[string]any)
	return out["run_id"].(string), req["step_id"].(string), ex["id"].(string)
}

// Continue payloads that do not fit the pause — the null executor
// answer that once killed the process over the socket and WebSocket and
// answered 500 over HTTP, null tools and requirements, unknown ids, two
// different answers — get a 4xx naming the field, and the run stays
// paused and continuable.
func TestMalformedContinuePayloads(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	runID, stepID, reqID := h.pausedWorkflow(t, "s1")
	cont := func(reqs string) *http.Response {
		return postForm(t, h.srv, "/workflows/pay-flow/runs/"+runID+"/continue", url.Values{"step_requirements": {reqs}, "session_id": {"s1"}, "stream": {"false"}})
	}
	for _, tc := range []struct{ reqs, want string }{
		{`[{"step_id":"` + stepID + `","executor_requirements":[null]}]`, "step_requirements[0].executor_requirements[0] is null"},
		{`[null]`, "step_requirements[0] is null"},
		{`[{"step_id":"other","confirmed":true}]`, `step_requirements[0].step_id "other" is not a step`},
		{`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]},` +
			`{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":false}]}]`, "differently from step_requirements[0]"},
	} {
		resp := cont(tc.reqs)
		if d := detail(t, resp); resp.StatusCode != 400 || !strings.Contains(d, tc.want) {
			t.Errorf("%s → %d %q, want 400 containing %q", tc.reqs, resp.StatusCode, d, tc.want)
		}
		if st := h.status(t, runID); st != run.StatusPaused {
			t.Fatalf("after %s the run is %s", tc.reqs, st)
		}
	}

	// The same null answer over the WebSocket: an error frame, and the
	// socket (and the process) go on.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.srv.URL, "http")+"/workflows/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	read := func() string {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	send := func(s string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	read() // connected
	send(`{"action":"continue-workflow","workflow_id":"pay-flow","run_id":"` + runID + `","session_id":"s1","step_requirements":[{"step_id":"` + stepID + `","executor_requirements":[null]}]}`)
	if msg := read(); !strings.Contains(msg, `"event":"error"`) || !strings.Contains(msg, "executor_requirements[0] is null") {
		t.Fatalf("WebSocket null answer: %s", msg)
	}
	send(`{"action":"ping"}`)
	if msg := read(); msg != `{"event":"pong"}` {
		t.Fatalf("after the bad answer: %s", msg)
	}
	if st := h.status(t, runID); st != run.StatusPaused {
		t.Fatalf("after the WebSocket answer the run is %s", st)
	}

	// Answered right, it completes.
	resp := cont(`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]}]`)
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || h.paid.Load() != 5 {
		t.Fatalf("valid continue: %d %v paid %d", resp.StatusCode, out, h.paid.Load())
	}
}

func TestMalformedAgentContinuePayloads(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	resp := postForm(t, h.srv, "/agents/cashier/runs", url.Values{"message": {"pay"}, "session_id": {"s"}, "stream": {"false"}})
	var out map[string]any
	decode(t, resp, &out)
	if out["status"] != "PAUSED" {
		t.Fatalf("run: %d %v", resp.StatusCode, out)
	}
	runID := out["run_id"].(string)
	tools := out["tools"].([]any)
	call := tools[0].(map[string]any)
	reqs := out["requirements"].([]any)
	reqID := reqs[0].(map[string]any)["id"].(string)
	yes, no := clone(t, call), clone(t, call)
	yes["confirmed"], no["confirmed"] = true, false
	for _, tc := range []struct {
		field, value, want string
	}{
		{"tools", `[null]`, "tools[0] is null"},
		{"requirements", `[null]`, "requirements[0] is null"},
		{"tools", `[{"tool_call_id":"nope","confirmed":true}]`, `tools[0].tool_call_id "nope" is not a tool call`},
		{"requirements", `[{"id":"nope","confirmation":true}]`, `requirements[0].id "nope" is not a requirement`},
		{"tools", mustJSON(t, []any{yes, no}), "tools[1] answers tool call c1 differently from tools[0]"},
		{"requirements", `[{"id":"` + reqID + `","confirmation":true},{"id":"` + reqID + `","confirmation":false}]`, "differently from requirements[0]"},
	} {
		resp := postForm(t, h.srv, "/agents/cashier/runs/"+runID+"/continue", url.Values{tc.field: {tc.value}, "session_id": {"s"}, "stream": {"false"}})
		if d := detail(t, resp); resp.StatusCode != 400 || !strings.Contains(d, tc.want) {
			t.Errorf("%s=%s → %d %q, want 400 containing %q", tc.field, tc.value, resp.StatusCode, d, tc.want)
		}
		if st := h.status(t, runID); st != run.StatusPaused {
			t.Fatalf("after %s=%s the run is %s", tc.field, tc.value, st)
		}
	}
	resp = postForm(t, h.srv, "/agents/cashier/runs/"+runID+"/continue", url.Values{"tools": {mustJSON(t, []any{yes})}, "session_id": {"s"}, "stream": {"false"}})
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || h.paid.Load() != 5 {
		t.Fatalf("valid continue: %d %v", resp.StatusCode, out)
	}
}

func clone(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, m)), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A panicking workflow step, run in the foreground or in the background,
// ends the run ERROR with a message that does not carry the panic; the
// server goes on serving.
func TestPanickingStepEndsTheRunNotTheServer(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	resp := postForm(t, h.srv, "/workflows/crash-flow/runs", url.Values{"message": {"go"}, "session_id": {"s"}, "stream": {"false"}})
	d := detail(t, resp)
	if resp.StatusCode != 500 || strings.Contains(d, "secret-panic-value") || !strings.Contains(d, "internal error in workflow crash-flow step crash") {
		t.Fatalf("foreground: %d %q", resp.StatusCode, d)
	}
	runID := startBackground(t, h.srv, "/workflows/crash-flow/runs", "s2")
	waitStatus(t, h.store, runID, run.StatusError)
	rec, _ := h.store.GetRun(context.Background(), runID)
	if strings.Contains(string(rec.Data), "secret-panic-value") {
		t.Fatalf("stored run carries the panic: %s", rec.Data)
	}
	resp = postForm(t, h.srv, "/workflows/crash-flow/runs", url.Values{"message": {"go"}, "session_id": {"s3"}})
	for _, e := range readSSE(t, resp) {
		if b, _ := json.Marshal(e.data); strings.Contains(string(b), "secret-panic-value") {
			t.Fatalf("stream event %s carries the panic: %s", e.name, b)
		}
	}
	r, err := h.srv.Client().Get(h.srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("health after the panics: %d", r.StatusCode)
	}
}

// A client-chosen run_id that exists — in another session, or a paused
// workflow run — answers 409 and changes nothing: the run stays in its
// session with its history and events, and a pause stays continuable.
// An id that is not valid answers 422.
func TestClientRunIDNeverReplacesARun(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	runID, stepID, reqID := h.pausedWorkflow(t, "victim")
	before, err := h.store.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := h.store.ListEvents(context.Background(), runID, -1)
	for _, tc := range []struct{ path, extra string }{
		{"/workflows/pay-flow/runs", ""},
		{"/workflows/crash-flow/runs", ""},
		{"/agents/cashier/runs", ""},
		{"/agents/cashier/runs", "background"},
		{"/workflows/pay-flow/runs", "background"},
		{"/agents/cashier/runs", "stream"},
	} {
		form := url.Values{"message": {"take over"}, "session_id": {"attacker"}, "run_id": {runID}, "stream": {"false"}}
		if tc.extra == "background" {
			form.Set("background", "true")
		}
		if tc.extra == "stream" {
			form.Set("stream", "true")
		}
		resp := postForm(t, h.srv, tc.path, form)
		if d := detail(t, resp); resp.StatusCode != 409 || !strings.Contains(d, runID) {
			t.Errorf("%s %s with a taken run_id: %d %q, want 409", tc.path, tc.extra, resp.StatusCode, d)
		}
	}
	after, _ := h.store.GetRun(context.Background(), runID)
	if after.SessionID != "victim" || after.Status != run.StatusPaused || string(after.Data) != string(before.Data) {
		t.Fatalf("run after the attempts: session %s status %s", after.SessionID, after.Status)
	}
	if evs, _ := h.store.ListEvents(context.Background(), runID, -1); len(evs) != len(events) {
		t.Fatalf("events %d, were %d", len(evs), len(events))
	}
	if _, err := h.store.GetSession(context.Background(), "attacker"); err == nil {
		t.Error("a refused run created the attacker's session")
	}
	for _, bad := range []string{"../../etc", "a b", strings.Repeat("x", 129), ""} {
		resp := postForm(t, h.srv, "/agents/cashier/runs", url.Values{"message": {"hi"}, "run_id": {bad}, "stream": {"false"}})
		if d := detail(t, resp); resp.StatusCode != 422 || !strings.Contains(d, "run_id") {
			t.Errorf("run_id %q: %d %q, want 422", bad, resp.StatusCode, d)
		}
	}
	// A free client id still works, and the victim's pause continues.
	resp := postForm(t, h.srv, "/workflows/crash-flow/runs", url.Values{"message": {"go"}, "run_id": {"my-own-id"}, "stream": {"false"}})
	if resp.StatusCode != 500 {
		t.Fatalf("free run_id: %d", resp.StatusCode)
	}
	if rec, err := h.store.GetRun(context.Background(), "my-own-id"); err != nil || rec.Status != run.StatusError {
		t.Fatalf("free run_id run: %+v %v", rec, err)
	}
	resp = postForm(t, h.srv, "/workflows/pay-flow/runs/"+runID+"/continue", url.Values{"session_id": {"victim"}, "stream": {"false"},
		"step_requirements": {`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]}]`}})
	var out map[string]any
	decode(t, resp, &out)
	if out["status"] != "COMPLETED" {
		t.Fatalf("victim's continue: %d %v", resp.StatusCode, out)
	}
}

// Uploads are bounded while they are read — max_upload_bytes for the
// request, max_file_bytes for a file — with 413 naming the limit; a file
// within the limits is spooled to a private file (not memory), stored as
// a blob of the session, and the run's row holds only its reference.
func TestUploadLimits(t *testing.T) {
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		n := 0
		for _, m := range req.Messages {
			for _, f := range m.Files {
				n += len(f.Content)
			}
		}
		return modeltest.Response{Content: fmt.Sprintf("read %d bytes", n)}
	})
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Reader", Model: fake, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	spool := filepath.Join(t.TempDir(), "spool")
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store, MaxUploadBytes: 1 << 20, MaxFileBytes: 256 << 10, SpoolDir: spool})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	h := o.Handler()
	if fi, err := os.Stat(spool); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("spool directory: %v %v", fi.Mode(), err)
	}
	form := map[string]string{"message": "read", "stream": "false", "session_id": "s"}

	body, ct := multipartBody(t, form, filePart{"files", "big.txt", "text/plain", bytes.Repeat([]byte("x"), 300<<10)})
	rec := do(t, h, "POST", "/agents/reader/runs", body, "Content-Type", ct)
	if d := obj(jsonOf(t, rec))["detail"]; rec.Code != 413 || !strings.Contains(fmt.Sprint(d), "262144 bytes") || !strings.Contains(fmt.Sprint(d), "max_file_bytes") {
		t.Errorf("file over max_file_bytes: %d %v", rec.Code, d)
	}
	body, ct = multipartBody(t, form, filePart{"files", "a.txt", "text/plain", bytes.Repeat([]byte("a"), 200<<10)},
		filePart{"files", "b.txt", "text/plain", bytes.Repeat([]byte("b"), 200<<10)}, filePart{"files", "c.txt", "text/plain", bytes.Repeat([]byte("c"), 200<<10)},
		filePart{"files", "d.txt", "text/plain", bytes.Repeat([]byte("d"), 200<<10)}, filePart{"files", "e.txt", "text/plain", bytes.Repeat([]byte("e"), 200<<10)},
		filePart{"files", "f.txt", "text/plain", bytes.Repeat([]byte("f"), 200<<10)})
	rec = do(t, h, "POST", "/agents/reader/runs", body, "Content-Type", ct)
	if d := obj(jsonOf(t, rec))["detail"]; rec.Code != 413 || !strings.Contains(fmt.Sprint(d), "1048576 bytes (1 MiB)") || !strings.Contains(fmt.Sprint(d), "max_upload_bytes") {
		t.Errorf("request over max_upload_bytes: %d %v", rec.Code, d)
	}
	rec = do(t, h, "POST", "/agents/reader/runs", strings.NewReader("message="+strings.Repeat("x", 2<<20)), "Content-Type", "application/x-www-form-urlencoded")
	if rec.Code != 413 {
		t.Errorf("urlencoded body over the limit: %d %s", rec.Code, rec.Body)
	}
	if runs, _ := store.ListRuns(context.Background(), storage.RunQuery{}); len(runs) != 0 {
		t.Fatalf("refused uploads stored %d runs", len(runs))
	}

	data := bytes.Repeat([]byte("0123456789abcdef"), 12<<10) // 192 KiB
	body, ct = multipartBody(t, form, filePart{"files", "ok.txt", "text/plain", data})
	rec = do(t, h, "POST", "/agents/reader/runs", body, "Content-Type", ct)
	out := obj(jsonOf(t, rec))
	if rec.Code != 200 || out["content"] != fmt.Sprintf("read %d bytes", len(data)) {
		t.Fatalf("upload within the limits: %d %v", rec.Code, out)
	}
	stored, err := store.GetRun(context.Background(), out["run_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.Data) > 8<<10 {
		t.Errorf("the run's row holds %d bytes for a %d-byte upload: the file must live outside it", len(stored.Data), len(data))
	}
	var doc struct {
		Input struct{ Files []model.File } `json:"input"`
	}
	_ = json.Unmarshal(stored.Data, &doc)
	if len(doc.Input.Files) != 1 {
		t.Fatalf("stored input %s", stored.Data)
	}
	if b, err := store.GetBlob(context.Background(), "s", doc.Input.Files[0].ID); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("blob: %d bytes, %v", len(b), err)
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("spool files left after the run: %v", left)
	}
	if _, err := agentos.New(agentos.Config{Store: store, MaxUploadBytes: 10, MaxFileBytes: 20}); err == nil || !strings.Contains(err.Error(), "max_file_bytes") {
		t.Errorf("max_file_bytes over max_upload_bytes: %v", err)
	}
}

// A browser on this machine is an outside client: in protected mode a
// page of another site can neither post forms to AgentOS (CSRF: start a
// workflow, approve a pause), nor open its WebSocket, nor read it by
// rebinding its own name to 127.0.0.1 (Host check). agent-ui on
// localhost:3000 keeps working.
func TestProtectedModeRefusesOtherSitesBrowsers(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	runID, stepID, reqID := h.pausedWorkflow(t, "s1")
	post := func(path string, form url.Values, header ...string) *http.Response {
		return postForm(t, h.srv, path, form, header...)
	}
	approve := url.Values{"session_id": {"s1"}, "stream": {"false"},
		"step_requirements": {`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]}]`}}
	for _, tc := range []struct {
		name   string
		path   string
		form   url.Values
		header []string
		status int
	}{
		{"form post from another site starts a workflow", "/workflows/crash-flow/runs", url.Values{"message": {"x"}, "stream": {"false"}}, []string{"Origin", "https://evil.example"}, 403},
		{"form post from another site approves a pause", "/workflows/pay-flow/runs/" + runID + "/continue", approve, []string{"Origin", "https://evil.example"}, 403},
		{"opaque origin", "/workflows/pay-flow/runs/" + runID + "/continue", approve, []string{"Origin", "null"}, 403},
		{"cross-site without an Origin", "/workflows/pay-flow/runs/" + runID + "/continue", approve, []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"rebound name", "/workflows/pay-flow/runs/" + runID + "/continue", approve, []string{"Host", "attacker.example:7777"}, 421},
	} {
		resp := post(tc.path, tc.form, tc.header...)
		if d := detail(t, resp); resp.StatusCode != tc.status || !strings.Contains(d, "protected mode") {
			t.Errorf("%s: %d %q, want %d", tc.name, resp.StatusCode, d, tc.status)
		}
	}
	if st := h.status(t, runID); st != run.StatusPaused {
		t.Fatalf("the pause was answered from another site: %s", st)
	}
	if runs, _ := h.store.ListRuns(context.Background(), storage.RunQuery{ComponentID: "crash-flow"}); len(runs) != 0 {
		t.Fatalf("a run was started from another site")
	}
	// Reads through a rebound name are refused too.
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/sessions", nil)
	req.Host = "attacker.example"
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 421 {
		t.Fatalf("GET through a rebound name: %d", resp.StatusCode)
	}

	// The WebSocket: another site's page is refused, agent-ui is not.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(h.srv.URL, "http") + "/workflows/ws"
	_, resp, err = websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("WebSocket from another site: %v %v", resp, err)
	}
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://localhost:3000"}}})
	if err != nil {
		t.Fatalf("WebSocket from agent-ui: %v", err)
	}
	c.CloseNow()

	// agent-ui on localhost:3000: preflight, then the continue itself.
	pre, _ := http.NewRequest(http.MethodOptions, h.srv.URL+"/workflows/pay-flow/runs/"+runID+"/continue", nil)
	pre.Header.Set("Origin", "http://localhost:3000")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	resp, err = h.srv.Client().Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Fatalf("agent-ui preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = post("/workflows/pay-flow/runs/"+runID+"/continue", approve, "Origin", "http://localhost:3000")
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("agent-ui continue: %d %v", resp.StatusCode, out)
	}
}

// allowed_hosts opens the Host check to a configured name; with a key the
// browser checks give way to CORS and the key, but the WebSocket still
// refuses other sites' pages.
func TestProtectedModeConfiguredHostsAndKeys(t *testing.T) {
	h := newHostile(t, agentos.Config{AllowedHosts: []string{"box.local"}})
	for host, want := range map[string]int{"box.local": 200, "box.local:7777": 200, "other.local": 421, "localhost": 200, "[::1]:7777": 200, "127.0.0.2": 200} {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/health", nil)
		req.Host = host
		resp, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	k := newHostile(t, agentos.Config{SecurityKey: "sk"})
	req, _ := http.NewRequest(http.MethodGet, k.srv.URL+"/health", nil)
	req.Host = "api.example.com"
	resp, err := k.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with a key any Host is served: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, resp, err = websocket.Dial(ctx, "ws"+strings.TrimPrefix(k.srv.URL, "http")+"/workflows/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("WebSocket from another site with a key: %v %v", resp, err)
	}
}

// Pagination is bounded and cannot overflow: limit above 1000 is a 422
// (it once took 9223372036854775807 and answered total_pages 0), and a
// page past the end is an empty page, also on the registry.
func TestPaginationBounds(t *testing.T) {
	h := newHostile(t, agentos.Config{})
	h.pausedWorkflow(t, "s1")
	get := func(path string) (int, map[string]any) {
		resp, err := h.srv.Client().Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		decode(t, resp, &body)
		resp.Body.Close()
		return resp.StatusCode, body
	}
	for _, path := range []string{"/sessions?limit=9223372036854775807", "/sessions?limit=1001", "/memories?limit=5000", "/user_memory_stats?limit=99999999999"} {
		if code, body := get(path); code != 422 || !strings.Contains(mustJSON(t, body), "less than or equal to 1000") {
			t.Errorf("%s: %d %v", path, code, body)
		}
	}
	code, body := get("/sessions?limit=1000")
	if meta, _ := body["meta"].(map[string]any); code != 200 || meta["total_pages"] != float64(1) || meta["total_count"] != float64(1) {
		t.Errorf("limit=1000: %d %v", code, body)
	}
	for _, path := range []string{"/sessions?page=9223372036854775807&limit=20", "/registry?page=9223372036854775807&limit=100"} {
		code, body := get(path)
		if data, _ := body["data"].([]any); code != 200 || len(data) != 0 {
			t.Errorf("%s: %d %v", path, code, body)
		}
	}
}

// An expression that fails on the run's data ends the run ERROR and is
// answered 422 naming it, not 500.
func TestExpressionFailureIsNotAServerError(t *testing.T) {
	store := memory.New()
	wf, err := workflow.New(workflow.Config{Name: "branchy", Store: store, Steps: []workflow.Node{
		&workflow.Condition{Name: "check", Evaluator: func(context.Context, *workflow.StepInput) (bool, error) {
			return false, fmt.Errorf(`%w: CEL expression "previous_step_outputs[\"x\"]": no such key: x`, workflow.ErrExpression)
		}, Steps: []workflow.Node{&workflow.Step{Name: "s", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) { return nil, nil }}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Workflows: []*workflow.Workflow{wf}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	resp := postForm(t, srv, "/workflows/branchy/runs", url.Values{"message": {"go"}, "stream": {"false"}, "run_id": {"r"}})
	if d := detail(t, resp); resp.StatusCode != 422 || !strings.Contains(d, `condition "check"`) || !strings.Contains(d, "no such key") {
		t.Fatalf("%d %q", resp.StatusCode, d)
	}
	if rec, err := store.GetRun(context.Background(), "r"); err != nil || rec.Status != run.StatusError {
		t.Fatalf("stored run %+v %v", rec, err)
	}
}
