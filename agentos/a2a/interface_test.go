package a2a_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos/internal/ostest"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/interfacetest"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
	"go.uber.org/goleak"
)

const a2aJWTSecret = "a2a-test-secret-of-32-bytes-long!!"

// a2aEnv is AgentOS with A2A on: agent "helper" echoes, pays 42 after a
// confirmation ("pay"), or answers slowly ("slow"); team "crew" and
// workflow "flow" for their cards.
type a2aEnv struct {
	iface *a2a.Interface
	url   string
	store storage.Store
	paid  *atomic.Int64
	model *modeltest.Fake
}

func a2aModel() *modeltest.Fake {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == model.RoleTool:
			return modeltest.Response{Content: "Done: " + last.Content}
		case strings.Contains(last.Content, "pay"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":42}`)}}
		case strings.Contains(last.Content, "balance"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c2", "lookup", `{"account":7}`)}}
		case strings.Contains(last.Content, "slow"):
			return modeltest.Response{Content: "finally", Delay: 20 * time.Second}
		}
		return modeltest.Response{Content: "Echo: " + last.Content}
	})
}

func newA2AEnv(t *testing.T, store storage.Store, mods ...func(*agentos.Config)) *a2aEnv {
	t.Helper()
	if store == nil {
		store = memory.New()
	}
	paid := &atomic.Int64{}
	m := a2aModel()
	lookup := tool.Must(tool.New("lookup", "look up the balance", func(context.Context, struct{}) (string, error) { return "balance 100", nil }))
	helper := ostest.NewAgent(t, agent.Config{ID: "helper", Name: "Helper", Description: "Echoes and pays", Model: m, Store: store,
		Tools: []tool.Provider{payTool(paid), lookup}})
	crew := newTeam(t, team.Config{ID: "crew", Name: "Crew", Description: "A crew", Model: a2aModel(), Store: store,
		Members: []run.Executor{ostest.NewAgent(t, agent.Config{ID: "member", Name: "Member", Model: a2aModel()})}})
	flow := newWorkflow(t, workflow.Config{ID: "flow", Name: "Flow", Description: "A flow", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "only", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "flowed"}, nil
		}}}})
	iface := a2a.New(&a2a.Config{})
	cfg := agentos.Config{Agents: []*agent.Agent{helper}, Teams: []*team.Team{crew}, Workflows: []*workflow.Workflow{flow}, Store: store, Interfaces: []agentos.Interface{iface},
		ShutdownTimeout: 10 * time.Second}
	for _, mod := range mods {
		mod(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &a2aEnv{iface: iface, url: ostest.Serve(t, o), store: store, paid: paid, model: m}
}

func newTeam(t *testing.T, cfg team.Config) *team.Team {
	t.Helper()
	tm, err := team.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func newWorkflow(t *testing.T, cfg workflow.Config) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// payTool adds what it pays to paid; each call needs a confirmation.
func payTool(paid *atomic.Int64) *tool.Function {
	return tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int64(a.Amount))
		return "paid " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresConfirmation()))
}

func a2aSend(text, contextID string) map[string]any {
	m := map[string]any{"kind": "message", "messageId": run.NewID(), "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
	if contextID != "" {
		m["contextId"] = contextID
	}
	return map[string]any{"message": m}
}

// post sends a JSON-RPC request and decodes the JSON answer.
func (e *a2aEnv) post(t *testing.T, path, method string, params any, header ...string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "req-1", "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: %d, body is not JSON: %v", path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// call posts and returns the successful answer's result.
func (e *a2aEnv) call(t *testing.T, path, method string, params any, header ...string) map[string]any {
	t.Helper()
	status, out := e.post(t, path, method, params, header...)
	return result(t, status, out)
}

// result is a successful JSON-RPC answer's result.
func result(t *testing.T, status int, out map[string]any) map[string]any {
	t.Helper()
	if status != http.StatusOK || out["jsonrpc"] != "2.0" || out["id"] != "req-1" || out["error"] != nil {
		t.Fatalf("answer %d %v", status, out)
	}
	r, ok := out["result"].(map[string]any)
	if !ok {
		t.Fatalf("result is %T: %v", out["result"], out)
	}
	return r
}

type a2aFrame struct {
	name string
	data map[string]any
}

func (e *a2aEnv) stream(t *testing.T, path string, params any, header ...string) []a2aFrame {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": a2a.MethodStream, "params": params})
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var frames []a2aFrame
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var env map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &env); err != nil {
				t.Fatal(err)
			}
			if env["jsonrpc"] != "2.0" || env["id"] != float64(7) {
				t.Fatalf("frame envelope %v", env)
			}
			frames = append(frames, a2aFrame{name, env["result"].(map[string]any)})
		}
	}
	return frames
}

func keys(m map[string]any) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

func textOf(t *testing.T, msg any) string {
	t.Helper()
	m, _ := msg.(map[string]any)
	parts, _ := m["parts"].([]any)
	var b strings.Builder
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm["kind"] == "text" {
			b.WriteString(pm["text"].(string))
		}
	}
	return b.String()
}

// TestA2ACard checks the cards of an agent, a team and a workflow
// against a2a-sdk 0.3's AgentCard fields (FastAPI serialises every
// field, unset ones null) and agno's values; cards need no key.
func TestA2ACard(t *testing.T) {
	e := newA2AEnv(t, nil, func(c *agentos.Config) { c.SecurityKey = "os-key" })
	cardKeys := []string{"additionalInterfaces", "capabilities", "defaultInputModes", "defaultOutputModes", "description", "documentationUrl",
		"iconUrl", "name", "preferredTransport", "protocolVersion", "provider", "security", "securitySchemes", "signatures", "skills",
		"supportsAuthenticatedExtendedCard", "url", "version"}
	nulls := []string{"additionalInterfaces", "documentationUrl", "iconUrl", "provider", "security", "securitySchemes", "signatures"}
	for _, c := range []struct{ seg, id, name, desc string }{{"agents", "helper", "Helper", "Echoes and pays"}, {"teams", "crew", "Crew", "A crew"}, {"workflows", "flow", "Flow", "A flow"}} {
		resp, err := http.Get(e.url + "/a2a/" + c.seg + "/" + c.id + "/.well-known/agent-card.json")
		if err != nil {
			t.Fatal(err)
		}
		var card map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&card)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s card: %d %v", c.seg, resp.StatusCode, card)
		}
		if got := keys(card); !slices.Equal(got, cardKeys) {
			t.Fatalf("%s card keys %v, want %v", c.seg, got, cardKeys)
		}
		for _, k := range nulls {
			if card[k] != nil {
				t.Errorf("%s card %s = %v, want null", c.seg, k, card[k])
			}
		}
		if card["name"] != c.name || card["description"] != c.desc || card["version"] != "1.0.0" || card["protocolVersion"] != "0.3.0" ||
			card["url"] != e.url+"/a2a/"+c.seg+"/"+c.id+"/v1/message:stream" || card["supportsAuthenticatedExtendedCard"] != false {
			t.Errorf("%s card %v", c.seg, card)
		}
		caps := card["capabilities"].(map[string]any)
		if got := keys(caps); !slices.Equal(got, []string{"extensions", "pushNotifications", "stateTransitionHistory", "streaming"}) {
			t.Errorf("capabilities keys %v", got)
		}
		if caps["streaming"] != (c.seg != "workflows") || caps["pushNotifications"] != false {
			t.Errorf("%s capabilities %v", c.seg, caps)
		}
		skill := card["skills"].([]any)[0].(map[string]any)
		if got := keys(skill); !slices.Equal(got, []string{"description", "examples", "id", "inputModes", "name", "outputModes", "security", "tags"}) {
			t.Errorf("skill keys %v", got)
		}
		if skill["id"] != c.id || skill["name"] != c.name || skill["tags"].([]any)[0] != "agno" {
			t.Errorf("skill %v", skill)
		}
	}
	resp, _ := http.Get(e.url + "/a2a/agents/nobody/.well-known/agent-card.json")
	var nf map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&nf)
	resp.Body.Close()
	if resp.StatusCode != 404 || nf["detail"] != "Agent not found" {
		t.Fatalf("unknown card: %d %v", resp.StatusCode, nf)
	}
}

// TestA2ASendContextAndGet sends twice in one context (one session, two
// runs), then reads both tasks back.
func TestA2ASendContextAndGet(t *testing.T) {
	e := newA2AEnv(t, nil)
	task := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("hello", ""), "X-User-ID", "ann")
	if got := keys(task); !slices.Equal(got, []string{"contextId", "history", "id", "kind", "status"}) {
		t.Fatalf("task keys %v: %v", got, task)
	}
	if task["kind"] != "task" || task["status"].(map[string]any)["state"] != "completed" {
		t.Fatalf("task %v", task)
	}
	msg := task["history"].([]any)[0].(map[string]any)
	if got := keys(msg); !slices.Equal(got, []string{"contextId", "kind", "messageId", "metadata", "parts", "role", "taskId"}) {
		t.Fatalf("message keys %v", got)
	}
	if textOf(t, msg) != "Echo: hello" || msg["role"] != "agent" || msg["metadata"].(map[string]any)["userId"] != "ann" || msg["taskId"] != task["id"] {
		t.Fatalf("message %v", msg)
	}
	ctxID := task["contextId"].(string)
	second := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("again", ctxID))
	if second["contextId"] != ctxID || second["id"] == task["id"] {
		t.Fatalf("second task %v (first %v)", second, task)
	}
	for _, id := range []string{task["id"].(string), second["id"].(string)} {
		rec, err := e.store.GetRun(context.Background(), id)
		if err != nil || rec.SessionID != ctxID || rec.ComponentID != "helper" {
			t.Fatalf("run %s stored as %+v, %v", id, rec, err)
		}
	}
	got := e.call(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": task["id"], "contextId": ctxID})
	if got["id"] != task["id"] || got["status"].(map[string]any)["state"] != "completed" || textOf(t, got["history"].([]any)[0]) != "Echo: hello" {
		t.Fatalf("tasks:get %v", got)
	}
	// The JS client's tasks/get carries only the id, on the card url.
	got = e.call(t, "/a2a/agents/helper/v1/message:stream", a2a.MethodGet, map[string]any{"id": second["id"]})
	if got["id"] != second["id"] || textOf(t, got["history"].([]any)[0]) != "Echo: again" {
		t.Fatalf("tasks/get on the card url %v", got)
	}
	// Another context, another agent, or no such task: -32001.
	for _, c := range []struct {
		path   string
		params map[string]any
	}{
		{"/a2a/agents/helper/v1/tasks:get", map[string]any{"id": task["id"], "contextId": "other"}},
		{"/a2a/teams/crew/v1/tasks:get", map[string]any{"id": task["id"]}},
		{"/a2a/agents/helper/v1/tasks:get", map[string]any{"id": "nope"}},
	} {
		_, out := e.post(t, c.path, a2a.MethodGet, c.params)
		if er, _ := out["error"].(map[string]any); er == nil || er["code"] != float64(-32001) || out["id"] != "req-1" {
			t.Fatalf("%s %v: %v", c.path, c.params, out)
		}
	}
	_, out := e.post(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{})
	if er, _ := out["error"].(map[string]any); er == nil || er["code"] != float64(-32602) || er["message"] != "Missing required parameter: id (task_id)" {
		t.Fatalf("no id: %v", out)
	}
	// A team and a workflow answer too, and the deprecated route finds
	// the entity by agentId.
	tt := e.call(t, "/a2a/teams/crew/v1/message:send", a2a.MethodSend, a2aSend("hi", ""))
	wt := e.call(t, "/a2a/workflows/flow/v1/message:send", a2a.MethodSend, a2aSend("go", ""))
	if tt["status"].(map[string]any)["state"] != "completed" || textOf(t, wt["history"].([]any)[0]) != "flowed" {
		t.Fatalf("team %v workflow %v", tt, wt)
	}
	dep := a2aSend("old", "")
	dep["message"].(map[string]any)["agentId"] = "helper"
	dt := e.call(t, "/a2a/message/send", a2a.MethodSend, dep)
	if textOf(t, dt["history"].([]any)[0]) != "Echo: old" {
		t.Fatalf("deprecated send %v", dt)
	}
}

// TestA2ATaskAfterRestart: a new AgentOS over the same store serves the
// task of a run the first one made.
func TestA2ATaskAfterRestart(t *testing.T) {
	store := memory.New()
	first := newA2AEnv(t, store)
	task := first.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("remember", ""))
	second := newA2AEnv(t, store)
	got := second.call(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": task["id"], "contextId": task["contextId"]})
	if got["id"] != task["id"] || textOf(t, got["history"].([]any)[0]) != "Echo: remember" {
		t.Fatalf("after restart %v", got)
	}
}

// TestA2AStream checks the order of the stream: working, content
// Messages, the final completed status, then the Task.
func TestA2AStream(t *testing.T) {
	e := newA2AEnv(t, nil)
	frames := e.stream(t, "/a2a/agents/helper/v1/message:stream", a2aSend("stream me", ""))
	if len(frames) < 4 {
		t.Fatalf("frames %v", frames)
	}
	first, end, task := frames[0], frames[len(frames)-2], frames[len(frames)-1]
	if first.name != "TaskStatusUpdateEvent" || first.data["kind"] != "status-update" || first.data["status"].(map[string]any)["state"] != "working" || first.data["final"] != false {
		t.Fatalf("first frame %v", first)
	}
	var text strings.Builder
	for _, f := range frames[1 : len(frames)-2] {
		if f.name != "Message" || f.data["kind"] != "message" || f.data["taskId"] != first.data["taskId"] ||
			f.data["metadata"].(map[string]any)["agno_content_category"] != "content" {
			t.Fatalf("content frame %v", f)
		}
		text.WriteString(textOf(t, f.data))
	}
	if text.String() != "Echo: stream me" {
		t.Fatalf("streamed %q", text.String())
	}
	if end.name != "TaskStatusUpdateEvent" || end.data["final"] != true || end.data["status"].(map[string]any)["state"] != "completed" {
		t.Fatalf("final status %v", end)
	}
	if task.name != "Task" || task.data["id"] != first.data["taskId"] || task.data["contextId"] != first.data["contextId"] ||
		textOf(t, task.data["history"].([]any)[0]) != "Echo: stream me" {
		t.Fatalf("task frame %v", task)
	}
	rec, err := e.store.GetRun(context.Background(), task.data["id"].(string))
	if err != nil || rec.Status != run.StatusCompleted {
		t.Fatalf("stored %+v %v", rec, err)
	}
	// A tool call shows as working statuses with agno's metadata.
	frames = e.stream(t, "/a2a/agents/helper/v1/message:stream", a2aSend("balance", ""))
	var started, completed map[string]any
	for _, f := range frames {
		switch md, _ := f.data["metadata"].(map[string]any); md["agno_event_type"] {
		case "tool_call_started":
			started = md
		case "tool_call_completed":
			completed = md
		}
	}
	if started == nil || completed == nil || started["tool_name"] != "lookup" || started["tool_call_id"] != "c2" || started["tool_args"] != `{"account": 7}` {
		t.Fatalf("tool frames %v", frames)
	}
	// A pause ends the stream input-required, the requirements attached.
	frames = e.stream(t, "/a2a/agents/helper/v1/message:stream", a2aSend("pay", ""))
	end, last := frames[len(frames)-2], frames[len(frames)-1]
	if end.data["final"] != true || end.data["status"].(map[string]any)["state"] != "input-required" || end.data["metadata"].(map[string]any)["agno_event_type"] != "run_paused" ||
		last.name != "Task" || last.data["status"].(map[string]any)["state"] != "input-required" {
		t.Fatalf("pause frames %v", frames)
	}
}

// TestA2AHITL: a paused run is an input-required task carrying its
// requirements; a wrong answer keeps it waiting, the confirmed one
// continues the run to completion.
func TestA2AHITL(t *testing.T) {
	e := newA2AEnv(t, nil)
	task := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("pay please", ""))
	st := task["status"].(map[string]any)
	if st["state"] != "input-required" {
		t.Fatalf("task %v", task)
	}
	parts := st["message"].(map[string]any)["parts"].([]any)
	if parts[0].(map[string]any)["text"] != "Run is paused and requires input to continue: tool pay" {
		t.Fatalf("note %v", parts[0])
	}
	reqs := parts[1].(map[string]any)["data"].(map[string]any)["requirements"].([]any)
	if len(reqs) != 1 || reqs[0].(map[string]any)["tool_execution"].(map[string]any)["tool_name"] != "pay" {
		t.Fatalf("requirements %v", reqs)
	}
	answer := func(reqs []any) map[string]any {
		m := a2aSend("", "")
		msg := m["message"].(map[string]any)
		msg["taskId"], msg["contextId"] = task["id"], task["contextId"]
		msg["parts"] = []any{map[string]any{"kind": "data", "data": map[string]any{"requirements": reqs}}}
		return e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, m)
	}
	wrong := answer([]any{map[string]any{"id": "not-this-one", "confirmation": true}})
	if wrong["status"].(map[string]any)["state"] != "input-required" ||
		!strings.HasPrefix(textOf(t, wrong["status"].(map[string]any)["message"]), "Error: the requirements sent are not the ones this task waits on") || e.paid.Load() != 0 {
		t.Fatalf("wrong answer %v", wrong)
	}
	req := reqs[0].(map[string]any)
	req["confirmation"] = true
	done := answer([]any{req})
	if done["id"] != task["id"] || done["status"].(map[string]any)["state"] != "completed" || textOf(t, done["history"].([]any)[0]) != "Done: paid 42" {
		t.Fatalf("continued %v", done)
	}
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d", e.paid.Load())
	}
	// Answered: a second answer does not run it again.
	again := answer([]any{req})
	if again["status"].(map[string]any)["state"] != "completed" || e.paid.Load() != 42 {
		t.Fatalf("second answer %v, paid %d", again, e.paid.Load())
	}
	// Over message/stream: the continuation streams to its end.
	frames := e.stream(t, "/a2a/agents/helper/v1/message:stream", a2aSend("pay again", ""))
	paused := frames[len(frames)-1].data
	preq := paused["status"].(map[string]any)["message"].(map[string]any)["parts"].([]any)[1].(map[string]any)["data"].(map[string]any)["requirements"].([]any)[0].(map[string]any)
	preq["confirmation"] = true
	m := a2aSend("", "")
	msg := m["message"].(map[string]any)
	msg["taskId"], msg["parts"] = paused["id"], []any{map[string]any{"kind": "data", "data": map[string]any{"requirements": []any{preq}}}}
	frames = e.stream(t, "/a2a/agents/helper/v1/message:stream", m)
	last := frames[len(frames)-1]
	if last.name != "Task" || last.data["id"] != paused["id"] || last.data["status"].(map[string]any)["state"] != "completed" ||
		textOf(t, last.data["history"].([]any)[0]) != "Done: paid 42" || e.paid.Load() != 84 {
		t.Fatalf("streamed continuation %v, paid %d", frames, e.paid.Load())
	}
}

// TestA2ACancel cancels a non-blocking (background) task while its
// model is still answering, and refuses to cancel a finished one.
func TestA2ACancel(t *testing.T) {
	e := newA2AEnv(t, nil)
	params := a2aSend("slow please", "")
	params["configuration"] = map[string]any{"blocking": false}
	task := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, params)
	if task["status"].(map[string]any)["state"] != "submitted" {
		t.Fatalf("background task %v", task)
	}
	id := task["id"].(string)
	deadline := time.Now().Add(10 * time.Second)
	// In flight: its task is working.
	for time.Now().Before(deadline) && e.call(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": id})["status"].(map[string]any)["state"] != "working" {
		time.Sleep(5 * time.Millisecond)
	}
	res := e.call(t, "/a2a/agents/helper/v1/tasks:cancel", a2a.MethodCancel, map[string]any{"id": id})
	if res["id"] != id || res["status"].(map[string]any)["state"] != "canceled" {
		t.Fatalf("cancel %v", res)
	}
	var state any
	for time.Now().Before(deadline) {
		got := e.call(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": id})
		if state = got["status"].(map[string]any)["state"]; state == "canceled" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if state != "canceled" {
		t.Fatalf("task state after cancel %v", state)
	}
	done := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("hi", ""))
	res = e.call(t, "/a2a/agents/helper/v1/tasks:cancel", a2a.MethodCancel, map[string]any{"id": done["id"]})
	if res["status"].(map[string]any)["state"] != "failed" {
		t.Fatalf("cancel of a finished task %v", res)
	}
}

// TestA2ABadRequests: agno's 400s for what a2a-sdk does not validate,
// 404 for an unknown entity, JSON-RPC errors for task params.
func TestA2ABadRequests(t *testing.T) {
	e := newA2AEnv(t, nil)
	post := func(path, body string) (int, map[string]any) {
		resp, err := http.Post(e.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	cases := []struct {
		path, body string
		status     int
		detail     string
	}{
		{"/a2a/agents/helper/v1/message:send", `{not json`, 400, "Invalid A2A request: the body is not a JSON-RPC object"},
		{"/a2a/agents/helper/v1/message:send", `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"messageId":"m","role":"agent","parts":[]}}}`, 400, "Only user messages are accepted"},
		{"/a2a/agents/helper/v1/message:send", `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"role":"user","parts":[]}}}`, 400, "Invalid A2A request: params.message.messageId is required"},
		{"/a2a/agents/helper/v1/message:send", `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"file","file":{}}]}}}`, 400, "Invalid A2A request: params.message.parts[0]: a file part needs file.uri or file.bytes"},
		{"/a2a/agents/nobody/v1/message:send", `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{}}`, 404, "Agent not found"},
		{"/a2a/message/send", `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[]}}}`, 400, "Entity ID required. Provide it via 'agentId' in params.message or 'X-Agent-ID' header."},
	}
	for _, c := range cases {
		status, out := post(c.path, c.body)
		if d, _ := out["detail"].(string); status != c.status || !strings.HasPrefix(d, c.detail) {
			t.Errorf("%s %s: %d %v, want %d %q", c.path, c.body, status, out, c.status, c.detail)
		}
	}
	// Nothing ran.
	if e.model.Calls() != 0 {
		t.Fatalf("the model was called %d times", e.model.Calls())
	}
}

func a2aToken(t *testing.T, sub string, scopes ...string) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(map[string]any{"sub": sub, "scopes": scopes, "exp": time.Now().Add(time.Hour).Unix()})
	mac := hmac.New(sha256.New, []byte(a2aJWTSecret))
	mac.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// TestA2AAuth: with the key and with JWT, the card stays open and every
// JSON-RPC route is refused without credentials and served with them.
func TestA2AAuth(t *testing.T) {
	for _, mode := range []string{"key", "jwt"} {
		t.Run(mode, func(t *testing.T) {
			var cred string
			e := newA2AEnv(t, nil, func(c *agentos.Config) {
				if mode == "key" {
					c.SecurityKey, cred = "os-key", "os-key"
					return
				}
				c.Authorization = &auth.Config{VerificationKeys: []string{a2aJWTSecret}, Algorithm: "HS256"}
			})
			if mode == "jwt" {
				cred = a2aToken(t, "ann", "agents:read", "agents:run")
			}
			resp, err := http.Get(e.url + "/a2a/agents/helper/.well-known/agent-card.json")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("card without credentials: %d", resp.StatusCode)
			}
			for _, path := range []string{"/a2a/agents/helper/v1/message:send", "/a2a/agents/helper/v1/message:stream", "/a2a/agents/helper/v1/tasks:get",
				"/a2a/agents/helper/v1/tasks:cancel", "/a2a/message/send", "/a2a/message/stream", "/a2a/workflows/flow/v1/message:send"} {
				status, out := e.post(t, path, a2a.MethodSend, a2aSend("hi", ""))
				if status != http.StatusUnauthorized {
					t.Errorf("%s without credentials: %d %v", path, status, out)
				}
			}
			task := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("hi", ""), "Authorization", "Bearer "+cred, "X-User-ID", "mallory")
			if textOf(t, task["history"].([]any)[0]) != "Echo: hi" {
				t.Fatalf("with credentials %v", task)
			}
			if mode == "jwt" {
				// A token without the agent's run scope is refused.
				status, out := e.post(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("hi", ""), "Authorization", "Bearer "+a2aToken(t, "ann", "sessions:read"))
				if status != http.StatusForbidden || out["detail"] != "Access denied to run this agent" {
					t.Fatalf("without agents:run: %d %v", status, out)
				}
				// The token's user, not the header's, owns the run.
				if rec, err := e.store.GetRun(context.Background(), task["id"].(string)); err != nil || rec.UserID != "ann" {
					t.Fatalf("run user %+v %v", rec, err)
				}
			}
		})
	}
}

// TestA2AListingAndDocs: /config lists the interface as agno does and
// every registered A2A route is documented.
func TestA2AListingAndDocs(t *testing.T) {
	e := newA2AEnv(t, nil)
	resp, err := http.Get(e.url + "/config")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&cfg)
	resp.Body.Close()
	found := false
	for _, it := range cfg["interfaces"].([]any) {
		m := it.(map[string]any)
		if m["type"] == "a2a" {
			found = m["version"] == "1.0" && m["route"] == "/a2a" && len(m) == 3
		}
	}
	if !found {
		t.Fatalf("interfaces %v", cfg["interfaces"])
	}
	rows := e.iface.Routes()
	if len(rows) != 15 {
		t.Fatalf("registered %v", rows)
	}
	paths := ostest.OpenAPIPaths(t, e.url)
	for _, r := range rows {
		method, path, _ := strings.Cut(r.Pattern, " ")
		if _, ok := paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("%s is not documented", r.Pattern)
		}
	}
	if _, ok := paths["/a2a/agents/{id}/v1/message:send"]; !ok {
		t.Fatalf("openapi lacks the A2A routes")
	}
}

// TestA2AJSClient runs @a2a-js/sdk's A2AClient (pinned in
// agentos/a2a/testdata) against AgentOS with the key on: card, send,
// stream, get and cancel.
func TestA2AJSClient(t *testing.T) {
	dir, _ := filepath.Abs("testdata")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk")); err != nil {
		t.Fatalf("@a2a-js/sdk is not installed in %s: run `make test-deps` (npm ci in the testdata directories)", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: install Node 20 to run the A2A client test")
	}
	before := goleak.IgnoreCurrent()
	// Registered first, so it runs after the env's cleanup closed it.
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	e := newA2AEnv(t, nil, func(c *agentos.Config) { c.SecurityKey = "os-key" })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "A2A_CARD_URL="+e.url+"/a2a/agents/helper/.well-known/agent-card.json", "A2A_KEY=os-key")
	out, err := cmd.CombinedOutput()
	t.Logf("client output:\n%s", out)
	if err != nil {
		t.Fatalf("A2A client failed: %v", err)
	}
	if !strings.Contains(string(out), "A2A CLIENT OK") {
		t.Fatal("the client did not finish")
	}
}

// TestA2AUserIsolation: under JWT user isolation another user can
// neither read a user's task nor write into their context.
func TestA2AUserIsolation(t *testing.T) {
	e := newA2AEnv(t, nil, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{a2aJWTSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	ann := "Bearer " + a2aToken(t, "ann", "agents:read", "agents:run")
	bob := "Bearer " + a2aToken(t, "bob", "agents:read", "agents:run")
	task := e.call(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("mine", ""), "Authorization", ann)
	if got := e.call(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": task["id"]}, "Authorization", ann); got["id"] != task["id"] {
		t.Fatalf("owner get %v", got)
	}
	_, out := e.post(t, "/a2a/agents/helper/v1/tasks:get", a2a.MethodGet, map[string]any{"id": task["id"]}, "Authorization", bob)
	if er, _ := out["error"].(map[string]any); er == nil || er["code"] != float64(-32001) {
		t.Fatalf("other user's get %v", out)
	}
	status, out := e.post(t, "/a2a/agents/helper/v1/message:send", a2a.MethodSend, a2aSend("yours now", task["contextId"].(string)), "Authorization", bob)
	if status != http.StatusNotFound || out["detail"] != "Session not found" {
		t.Fatalf("other user's context: %d %v", status, out)
	}
	res := e.call(t, "/a2a/agents/helper/v1/tasks:cancel", a2a.MethodCancel, map[string]any{"id": task["id"]}, "Authorization", bob)
	if res["status"].(map[string]any)["state"] != "failed" {
		t.Fatalf("other user's cancel %v", res)
	}
}

// A workflow's step pause is an input-required task carrying
// step_requirements; sending them back confirmed continues the run, once.
func TestA2AWorkflowHITL(t *testing.T) {
	var shipped atomic.Int64
	e := newA2AEnv(t, nil, func(c *agentos.Config) {
		c.Workflows = append(c.Workflows, newWorkflow(t, workflow.Config{ID: "ship-flow", Name: "Ship", Store: c.Store, Steps: []workflow.Node{
			&workflow.Step{Name: "ship", HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Ship it?"},
				Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
					shipped.Add(1)
					return &workflow.StepOutput{Content: "shipped"}, nil
				}}}}))
	})
	task := e.call(t, "/a2a/workflows/ship-flow/v1/message:send", a2a.MethodSend, a2aSend("ship the order", ""))
	st := task["status"].(map[string]any)
	if st["state"] != "input-required" {
		t.Fatalf("task %v", task)
	}
	var steps []any
	for _, p := range st["message"].(map[string]any)["parts"].([]any) {
		if d, ok := p.(map[string]any)["data"].(map[string]any); ok {
			steps, _ = d["step_requirements"].([]any)
		}
	}
	if len(steps) != 1 || shipped.Load() != 0 {
		t.Fatalf("step requirements %v (shipped %d)", steps, shipped.Load())
	}
	answer := func(steps []any) map[string]any {
		m := a2aSend("", "")
		msg := m["message"].(map[string]any)
		msg["taskId"], msg["contextId"] = task["id"], task["contextId"]
		msg["parts"] = []any{map[string]any{"kind": "data", "data": map[string]any{"step_requirements": steps}}}
		return e.call(t, "/a2a/workflows/ship-flow/v1/message:send", a2a.MethodSend, m)
	}
	// A message without answers keeps the task waiting.
	if still := answer(nil); still["status"].(map[string]any)["state"] != "input-required" || shipped.Load() != 0 {
		t.Fatalf("no answer: %v", still)
	}
	step := steps[0].(map[string]any)
	step["confirmed"] = true
	done := answer([]any{step})
	if done["id"] != task["id"] || done["status"].(map[string]any)["state"] != "completed" || shipped.Load() != 1 {
		t.Fatalf("continued %v (shipped %d)", done, shipped.Load())
	}
	if again := answer([]any{step}); again["status"].(map[string]any)["state"] != "completed" || shipped.Load() != 1 {
		t.Fatalf("second answer %v, shipped %d", again, shipped.Load())
	}
}

// The A2A interface passes the interface conformance suite.
func TestA2AConformance(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		e := newA2AEnv(t, nil, func(c *agentos.Config) {
			c.SecurityKey = "os-key"
			c.Agents = []*agent.Agent{ostest.NewAgent(t, agent.Config{ID: "helper", Name: "Helper", Model: f.Model, Store: c.Store, Tools: []tool.Provider{f.Pay}})}
		})
		return &a2aDriver{e: e, tasks: map[string]map[string]any{}}
	})
}

// a2aDriver sends message/send with the key; a pause is an
// input-required task, answered with its requirements confirmed.
type a2aDriver struct {
	e     *a2aEnv
	tasks map[string]map[string]any
}

const a2aPath = "/a2a/agents/helper/v1/message:send"

func (d *a2aDriver) Refuse(t *testing.T, text string) int {
	code, _ := d.e.post(t, a2aPath, a2a.MethodSend, a2aSend(text, ""))
	return code
}

func (d *a2aDriver) reply(t *testing.T, task map[string]any) interfacetest.Reply {
	t.Helper()
	st := task["status"].(map[string]any)
	if st["state"] == "input-required" {
		d.tasks[task["id"].(string)] = task
		return interfacetest.Reply{Paused: true, Ref: task["id"].(string)}
	}
	h, _ := task["history"].([]any)
	if len(h) == 0 {
		return interfacetest.Reply{Text: fmt.Sprint(st["state"])}
	}
	return interfacetest.Reply{Text: textOf(t, h[0])}
}

func (d *a2aDriver) Send(t *testing.T, _, text string) interfacetest.Reply {
	t.Helper()
	return d.reply(t, d.e.call(t, a2aPath, a2a.MethodSend, a2aSend(text, ""), "Authorization", "Bearer os-key"))
}

func (d *a2aDriver) Redeliver(*testing.T, string, string) bool { return false } // no delivery id

func (d *a2aDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	t.Helper()
	task := d.tasks[p.Ref]
	parts := task["status"].(map[string]any)["message"].(map[string]any)["parts"].([]any)
	reqs := parts[1].(map[string]any)["data"].(map[string]any)["requirements"].([]any)
	for _, r := range reqs {
		r.(map[string]any)["confirmation"] = true
	}
	m := a2aSend("", "")
	msg := m["message"].(map[string]any)
	msg["taskId"], msg["contextId"] = task["id"], task["contextId"]
	msg["parts"] = []any{map[string]any{"kind": "data", "data": map[string]any{"requirements": reqs}}}
	return d.reply(t, d.e.call(t, a2aPath, a2a.MethodSend, m, "Authorization", "Bearer os-key"))
}
