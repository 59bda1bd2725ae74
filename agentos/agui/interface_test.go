package agui_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos/internal/ostest"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/interfacetest"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

type aguiEnv struct {
	iface *agui.Interface
	store storage.Store
	url   string
	m     *modeltest.Fake
}

// aguiModel answers by the last message: "weather" calls the backend
// tool, "color" the client's change_color tool; a tool result is
// acknowledged; "fail" fails the model.
func aguiModel() *modeltest.Fake {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "tool":
			return modeltest.Response{Content: "Tool said: " + last.Content}
		case strings.Contains(last.Content, "fail"):
			return modeltest.Response{Err: errors.New("model down")}
		case strings.Contains(last.Content, "weather"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_w", "get_weather", `{"city":"Paris"}`)}}
		case strings.Contains(last.Content, "color"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_c", "change_color", `{"color":"red"}`)}}
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				n++
			}
		}
		return modeltest.Response{Content: "Hello there, turn " + string(rune('0'+n))}
	})
}

func newAGUIEnv(t *testing.T, mods ...func(*agentos.Config)) *aguiEnv {
	t.Helper()
	weather, err := tool.NewRaw("get_weather", "Weather of a city", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		func(ctx context.Context, args map[string]any) (tool.Result, error) {
			return tool.Result{Content: "Sunny in " + args["city"].(string)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	m := aguiModel()
	store := memory.New()
	a := ostest.NewAgent(t, agent.Config{ID: "assistant", Name: "Assistant", Model: m, Store: store, Tools: []tool.Provider{weather}, AddHistoryToContext: true})
	cfg := agentos.Config{Agents: []*agent.Agent{a}, Store: store, Interfaces: []agentos.Interface{agui.New(&agui.Config{AgentID: "assistant"})},
		ShutdownTimeout: 10 * time.Second}
	for _, mod := range mods {
		mod(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	iface, _ := cfg.Interfaces[0].(*agui.Interface)
	return &aguiEnv{iface: iface, store: store, url: ostest.Serve(t, o), m: m}
}

func aguiInput(thread, runID string, state any, tools []agui.Tool, msgs ...agui.Message) string {
	if tools == nil {
		tools = []agui.Tool{}
	}
	b, _ := json.Marshal(map[string]any{"threadId": thread, "runId": runID, "state": state, "messages": msgs,
		"tools": tools, "context": []any{}, "forwardedProps": map[string]any{"user_id": "u1"}})
	return string(b)
}

func aguiUser(id, text string) agui.Message {
	c, _ := json.Marshal(text)
	return agui.Message{ID: id, Role: "user", Content: c}
}

// post sends body to /agui and returns the decoded events.
func (e *aguiEnv) post(t *testing.T, body string, hdr ...string) (int, []map[string]any) {
	t.Helper()
	return e.postPath(t, "/agui", body, hdr...)
}

func (e *aguiEnv) postPath(t *testing.T, path, body string, hdr ...string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var evs []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return resp.StatusCode, evs
}

func aguiTypes(evs []map[string]any) string {
	var s []string
	for _, e := range evs {
		s = append(s, e["type"].(string))
	}
	return strings.Join(s, " ")
}

func aguiFind(evs []map[string]any, typ string) map[string]any {
	for _, e := range evs {
		if e["type"] == typ {
			return e
		}
	}
	return nil
}

func aguiKeys(m map[string]any) string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

func TestAGUITextAnswer(t *testing.T) {
	e := newAGUIEnv(t)
	code, evs := e.post(t, aguiInput("t1", "r1", nil, nil, aguiUser("m1", "hi")))
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if got := aguiTypes(evs); !strings.HasPrefix(got, "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT") || !strings.HasSuffix(got, "TEXT_MESSAGE_END RUN_FINISHED") || strings.Contains(got, "STATE_SNAPSHOT") {
		t.Fatalf("events: %s", got)
	}
	if s := evs[0]; aguiKeys(s) != "runId,threadId,type" || s["threadId"] != "t1" || s["runId"] != "r1" {
		t.Fatalf("RUN_STARTED %v", s)
	}
	start := aguiFind(evs, "TEXT_MESSAGE_START")
	if aguiKeys(start) != "messageId,role,sourceId,sourceName,sourceType,type" || start["role"] != "assistant" || start["sourceType"] != "agent" || start["sourceId"] != "assistant" {
		t.Fatalf("TEXT_MESSAGE_START %v", start)
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			if aguiKeys(ev) != "delta,messageId,type" || ev["messageId"] != start["messageId"] {
				t.Fatalf("content %v", ev)
			}
			text.WriteString(ev["delta"].(string))
		}
	}
	if text.String() != "Hello there, turn 1" {
		t.Fatalf("text %q", text.String())
	}
	if f := evs[len(evs)-1]; aguiKeys(f) != "runId,threadId,type" || f["runId"] != "r1" {
		t.Fatalf("RUN_FINISHED %v", f)
	}
	// The thread is the session: the run is stored under it, for the user.
	rec, err := e.store.GetRun(context.Background(), "r1")
	if err != nil || rec.SessionID != "t1" || rec.UserID != "u1" {
		t.Fatalf("stored run %+v %v", rec, err)
	}
}

func TestAGUIThreadContinuity(t *testing.T) {
	e := newAGUIEnv(t)
	e.post(t, aguiInput("t2", "r1", nil, nil, aguiUser("m1", "hi")))
	// The client resends the conversation; only the last user message is input.
	_, evs := e.post(t, aguiInput("t2", "r2", nil, nil, aguiUser("m1", "hi"), agui.Message{ID: "a1", Role: "assistant", Content: json.RawMessage(`"Hello there, turn 1"`)}, aguiUser("m2", "again")))
	var text string
	for _, ev := range evs {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			text += ev["delta"].(string)
		}
	}
	if text != "Hello there, turn 2" {
		t.Fatalf("second turn saw the history wrong: %q (%s)", text, aguiTypes(evs))
	}
	reqs := e.m.Requests()
	last := reqs[len(reqs)-1]
	var users []string
	for _, m := range last.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, "|") != "hi|again" {
		t.Fatalf("model saw users %v", users)
	}
}

func TestAGUIBackendToolCall(t *testing.T) {
	e := newAGUIEnv(t)
	_, evs := e.post(t, aguiInput("t3", "r1", nil, nil, aguiUser("m1", "weather please")))
	want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_END TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END TOOL_CALL_RESULT TEXT_MESSAGE_START"
	if got := aguiTypes(evs); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "TEXT_MESSAGE_END RUN_FINISHED") {
		t.Fatalf("events: %s", got)
	}
	parent := evs[1]["messageId"]
	st := aguiFind(evs, "TOOL_CALL_START")
	if aguiKeys(st) != "parentMessageId,toolCallId,toolCallName,type" || st["toolCallId"] != "call_w" || st["toolCallName"] != "get_weather" || st["parentMessageId"] != parent {
		t.Fatalf("TOOL_CALL_START %v", st)
	}
	if a := aguiFind(evs, "TOOL_CALL_ARGS"); a["delta"] != `{"city": "Paris"}` || a["toolCallId"] != "call_w" {
		t.Fatalf("TOOL_CALL_ARGS %v", a)
	}
	res := aguiFind(evs, "TOOL_CALL_RESULT")
	if aguiKeys(res) != "content,messageId,role,toolCallId,type" || res["content"] != "Sunny in Paris" || res["role"] != "tool" {
		t.Fatalf("TOOL_CALL_RESULT %v", res)
	}
}

func TestAGUIStateSnapshot(t *testing.T) {
	e := newAGUIEnv(t)
	_, evs := e.post(t, aguiInput("t4", "r1", map[string]any{"theme": "dark"}, nil, aguiUser("m1", "hi")))
	got := aguiTypes(evs)
	if !strings.HasPrefix(got, "RUN_STARTED STATE_SNAPSHOT TEXT_MESSAGE_START") || !strings.HasSuffix(got, "STATE_SNAPSHOT RUN_FINISHED") {
		t.Fatalf("events: %s", got)
	}
	if s := evs[1]; aguiKeys(s) != "snapshot,type" || s["snapshot"].(map[string]any)["theme"] != "dark" {
		t.Fatalf("snapshot %v", s)
	}
	final := evs[len(evs)-2]["snapshot"].(map[string]any)
	if final["theme"] != "dark" {
		t.Fatalf("final snapshot %v", final)
	}
	sess, err := e.store.GetSession(context.Background(), "t4")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sess)
	if !strings.Contains(string(b), `"theme":"dark"`) {
		t.Fatalf("session state not stored: %s", b)
	}
}

func TestAGUIModelError(t *testing.T) {
	e := newAGUIEnv(t)
	_, evs := e.post(t, aguiInput("t5", "r1", nil, nil, aguiUser("m1", "please fail")))
	last := evs[len(evs)-1]
	if last["type"] != "RUN_ERROR" || !strings.Contains(last["message"].(string), "model down") || strings.Contains(aguiTypes(evs), "RUN_FINISHED") {
		t.Fatalf("events %s, last %v", aguiTypes(evs), last)
	}
	// A reused run id fails the run too, as a RUN_ERROR.
	e.post(t, aguiInput("t5", "r2", nil, nil, aguiUser("m1", "hi")))
	_, evs = e.post(t, aguiInput("t5", "r2", nil, nil, aguiUser("m1", "hi")))
	if l := evs[len(evs)-1]; l["type"] != "RUN_ERROR" {
		t.Fatalf("reused run id: %s", aguiTypes(evs))
	}
}

func TestAGUIFrontendToolRoundTrip(t *testing.T) {
	e := newAGUIEnv(t)
	tools := []agui.Tool{{Name: "change_color", Description: "Change the page color", Parameters: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}}}`)}}
	_, evs := e.post(t, aguiInput("t6", "r1", nil, tools, aguiUser("m1", "make the color red")))
	got := aguiTypes(evs)
	if !strings.HasSuffix(got, "TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END RUN_FINISHED") || strings.Contains(got, "TOOL_CALL_RESULT") {
		t.Fatalf("events: %s", got)
	}
	st := aguiFind(evs, "TOOL_CALL_START")
	if st["toolCallName"] != "change_color" || st["toolCallId"] != "call_c" {
		t.Fatalf("start %v", st)
	}
	// The model was offered the client's tool next to the agent's.
	var names []string
	for _, d := range e.m.Requests()[0].Tools {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "change_color,get_weather" {
		t.Fatalf("tools offered %v", names)
	}
	rec, err := e.store.GetRun(context.Background(), "r1")
	if err != nil || rec.Status != "PAUSED" {
		t.Fatalf("run %+v %v", rec, err)
	}
	// The client ran the tool; its result continues the paused run.
	call := agui.Message{ID: "a1", Role: "assistant", ToolCalls: []agui.ToolCall{{ID: "call_c", Type: "function", Function: agui.FunctionCall{Name: "change_color", Arguments: `{"color":"red"}`}}}}
	result := agui.Message{ID: "tm1", Role: "tool", ToolCallID: "call_c", Content: json.RawMessage(`"color is now red"`)}
	_, evs = e.post(t, aguiInput("t6", "r2", nil, tools, aguiUser("m1", "make the color red"), call, result))
	var text string
	for _, ev := range evs {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			text += ev["delta"].(string)
		}
	}
	if text != "Tool said: color is now red" || evs[len(evs)-1]["type"] != "RUN_FINISHED" || strings.Contains(aguiTypes(evs), "TOOL_CALL") {
		t.Fatalf("continued: %q %s", text, aguiTypes(evs))
	}
	// The model got the client's result as the tool message of its call.
	reqs := e.m.Requests()
	if last := reqs[len(reqs)-1].Messages; last[len(last)-1].Role != "tool" || last[len(last)-1].ToolCallID != "call_c" {
		t.Fatalf("model saw %+v", last[len(last)-1])
	}
	rec, err = e.store.GetRun(context.Background(), "r1")
	if err != nil || rec.Status != "COMPLETED" {
		t.Fatalf("continued run %+v %v", rec, err)
	}
	// Answering again finds no paused run.
	_, evs = e.post(t, aguiInput("t6", "r3", nil, tools, aguiUser("m1", "x"), call, result))
	if l := evs[len(evs)-1]; l["type"] != "RUN_ERROR" || !strings.Contains(l["message"].(string), "No paused run") {
		t.Fatalf("second answer: %v", l)
	}
}

func TestAGUIValidationStatusAndConfig(t *testing.T) {
	e := newAGUIEnv(t)
	code, _ := e.post(t, `{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[],"context":[]}`)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("missing forwardedProps: %d", code)
	}
	resp, err := http.Get(e.url + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st["status"] != "available" {
		t.Fatalf("status %v", st)
	}
	resp, err = http.Get(e.url + "/config")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Interfaces []map[string]any `json:"interfaces"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&cfg)
	resp.Body.Close()
	if len(cfg.Interfaces) != 1 || aguiKeys(cfg.Interfaces[0]) != "route,type,version" || cfg.Interfaces[0]["type"] != "agui" || cfg.Interfaces[0]["route"] != "" {
		t.Fatalf("interfaces %v", cfg.Interfaces)
	}
}

func TestAGUISecurityKey(t *testing.T) {
	e := newAGUIEnv(t, func(c *agentos.Config) { c.SecurityKey = "os-key" })
	if code, _ := e.post(t, aguiInput("t7", "r1", nil, nil, aguiUser("m1", "hi"))); code != http.StatusUnauthorized {
		t.Fatalf("without key: %d", code)
	}
	code, evs := e.post(t, aguiInput("t7", "r1", nil, nil, aguiUser("m1", "hi")), "Authorization", "Bearer os-key")
	if code != 200 || evs[len(evs)-1]["type"] != "RUN_FINISHED" {
		t.Fatalf("with key: %d %s", code, aguiTypes(evs))
	}
}

// aguiClient runs the @ag-ui/client script (testdata) for
// scenario against url with the Authorization header auth.
func aguiClient(t *testing.T, url, auth, scenario string) map[string]any {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json")); err != nil {
		t.Fatalf("@ag-ui/client is not installed in %s: run `make test-deps` (npm ci in the testdata directories)", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (Node 20 runs the AG-UI client tests): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", scenario)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGUI_URL="+url+"/agui", "AGUI_AUTH="+auth)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs %s: %v\n%s", scenario, err, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("client.mjs output %q: %v", b, err)
	}
	return out
}

func aguiEventList(v any) string {
	var s []string
	list, _ := v.([]any)
	for _, e := range list {
		s = append(s, e.(string))
	}
	return strings.Join(s, " ")
}

func aguiMessages(v any) []map[string]any {
	var out []map[string]any
	list, _ := v.([]any)
	for _, m := range list {
		out = append(out, m.(map[string]any))
	}
	return out
}

// checkClientScenarios runs the three client scenarios against url.
func aguiClientScenarios(t *testing.T, url, auth string) {
	t.Helper()
	out := aguiClient(t, url, auth, "text")
	if out["error"] != nil {
		t.Fatalf("text: %v", out["error"])
	}
	if ev := aguiEventList(out["events"]); !strings.HasPrefix(ev, "RUN_STARTED STATE_SNAPSHOT TEXT_MESSAGE_START") || !strings.HasSuffix(ev, "STATE_SNAPSHOT RUN_FINISHED") {
		t.Fatalf("text events: %s", ev)
	}
	nm := aguiMessages(out["newMessages"])
	if len(nm) != 1 || nm[0]["role"] != "assistant" || nm[0]["content"] != "Hello there, turn 1" {
		t.Fatalf("text new messages: %v", nm)
	}
	if st, _ := out["state"].(map[string]any); st["theme"] != "dark" {
		t.Fatalf("client state %v", out["state"])
	}

	out = aguiClient(t, url, auth, "tool")
	if out["error"] != nil {
		t.Fatalf("tool: %v", out["error"])
	}
	var sawCall, sawResult bool
	for _, m := range aguiMessages(out["newMessages"]) {
		if calls, _ := m["toolCalls"].([]any); len(calls) == 1 {
			fn := calls[0].(map[string]any)["function"].(map[string]any)
			sawCall = fn["name"] == "get_weather" && fn["arguments"] == `{"city": "Paris"}`
		}
		if m["role"] == "tool" && m["content"] == "Sunny in Paris" {
			sawResult = true
		}
	}
	if !sawCall || !sawResult {
		t.Fatalf("tool: call %v result %v in %v", sawCall, sawResult, out["newMessages"])
	}

	out = aguiClient(t, url, auth, "frontend")
	first, _ := out["first"].(map[string]any)
	second, _ := out["second"].(map[string]any)
	if first == nil || first["error"] != nil || second == nil || second["error"] != nil {
		t.Fatalf("frontend: %v", out)
	}
	if ev := aguiEventList(first["events"]); !strings.HasSuffix(ev, "TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END STATE_SNAPSHOT RUN_FINISHED") {
		t.Fatalf("frontend first events: %s", ev)
	}
	nm = aguiMessages(second["newMessages"])
	if len(nm) != 1 || nm[0]["content"] != "Tool said: color is now red" {
		t.Fatalf("frontend continued: %v", second)
	}
}

func TestAGUIOfficialClient(t *testing.T) {
	e := newAGUIEnv(t)
	aguiClientScenarios(t, e.url, "")
}

func TestAGUIOfficialClientWithKey(t *testing.T) {
	e := newAGUIEnv(t, func(c *agentos.Config) { c.SecurityKey = "os-key" })
	out := aguiClient(t, e.url, "", "text")
	if out["error"] == nil || !strings.Contains(out["error"].(string), "401") {
		t.Fatalf("without the key: %v", out)
	}
	aguiClientScenarios(t, e.url, "Bearer os-key")
}

func TestAGUIJWT(t *testing.T) {
	e := newAGUIEnv(t, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{aguiJWTSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	body := aguiInput("t8", "r1", nil, nil, aguiUser("m1", "hi"))
	if code, _ := e.post(t, body); code != http.StatusUnauthorized {
		t.Fatalf("without a token: %d", code)
	}
	code, evs := e.post(t, body, "Authorization", "Bearer "+aguiToken(t, "alice"))
	if code != 200 || evs[len(evs)-1]["type"] != "RUN_FINISHED" {
		t.Fatalf("with a token: %d %s", code, aguiTypes(evs))
	}
	// Under user isolation the token's user runs, whatever forwardedProps says.
	rec, err := e.store.GetRun(context.Background(), "r1")
	if err != nil || rec.UserID != "alice" {
		t.Fatalf("run %+v %v", rec, err)
	}
	// Another user's thread is not theirs to add to.
	if code, _ := e.post(t, aguiInput("t8", "r2", nil, nil, aguiUser("m1", "hi")), "Authorization", "Bearer "+aguiToken(t, "bob")); code != http.StatusNotFound {
		t.Fatalf("bob on alice's thread: %d", code)
	}
	out := aguiClient(t, e.url, "", "text")
	if out["error"] == nil || !strings.Contains(out["error"].(string), "401") {
		t.Fatalf("client without a token: %v", out)
	}
	aguiClientScenarios(t, e.url, "Bearer "+aguiToken(t, "carol"))
}

const aguiJWTSecret = "agui-test-secret-of-at-least-32-bytes"

// aguiToken signs an HS256 token for sub by hand, with a user's run and
// session scopes.
func aguiToken(t *testing.T, sub string) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	claims := map[string]any{"sub": sub, "exp": time.Now().Add(time.Hour).Unix(),
		"scopes": []string{"agents:read", "agents:run", "sessions:read", "sessions:write"}}
	head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(aguiJWTSecret))
	mac.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// The AG-UI routes, mounted under a prefix, are documented.
func TestAGUIRoutesDocumented(t *testing.T) {
	e := newAGUIEnv(t, func(c *agentos.Config) {
		c.Interfaces = []agentos.Interface{agui.New(&agui.Config{AgentID: "assistant", Prefix: "/chat"})}
	})
	var patterns []string
	for _, rt := range e.iface.Routes() {
		patterns = append(patterns, rt.Pattern)
	}
	paths := ostest.OpenAPIPaths(t, e.url)
	for _, p := range []string{"POST /chat/agui", "GET /chat/status"} {
		if !slices.Contains(patterns, p) {
			t.Fatalf("%s not registered: %v", p, patterns)
		}
		method, path, _ := strings.Cut(p, " ")
		if _, ok := paths[path][strings.ToLower(method)]; !ok {
			t.Fatalf("%s not documented", p)
		}
	}
	if resp, err := http.Get(e.url + "/chat/status"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /chat/status not served: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, evs := e.postPath(t, "/chat/agui", aguiInput("t9", "r1", nil, nil, aguiUser("m1", "hi"))); code != 200 || evs[len(evs)-1]["type"] != "RUN_FINISHED" {
		t.Fatalf("prefixed: %d %s", code, aguiTypes(evs))
	}
}

// A team is served the same way; its leader gets the frontend tools.
func TestAGUITeam(t *testing.T) {
	e := newAGUIEnv(t, func(c *agentos.Config) {
		lead := aguiModel()
		crew, err := team.New(team.Config{ID: "crew", Name: "Crew", Model: lead, Members: []run.Executor{c.Agents[0]}, Store: c.Store})
		if err != nil {
			t.Fatal(err)
		}
		c.Teams = []*team.Team{crew}
		c.Interfaces = []agentos.Interface{agui.New(&agui.Config{TeamID: "crew"})}
	})
	_, evs := e.post(t, aguiInput("t10", "r1", map[string]any{"n": 1.0}, nil, aguiUser("m1", "hi")))
	start := aguiFind(evs, "TEXT_MESSAGE_START")
	if evs[len(evs)-1]["type"] != "RUN_FINISHED" || start["sourceType"] != "team" || start["sourceId"] != "crew" {
		t.Fatalf("team: %s %v", aguiTypes(evs), start)
	}
	tools := []agui.Tool{{Name: "change_color", Description: "Change the page color"}}
	_, evs = e.post(t, aguiInput("t10", "r2", nil, tools, aguiUser("m2", "color it")))
	if !strings.HasSuffix(aguiTypes(evs), "TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END RUN_FINISHED") {
		t.Fatalf("team frontend tool: %s", aguiTypes(evs))
	}
	result := agui.Message{ID: "tm", Role: "tool", ToolCallID: "call_c", Content: json.RawMessage(`"ok"`)}
	_, evs = e.post(t, aguiInput("t10", "r3", nil, tools, aguiUser("m2", "color it"), result))
	if evs[len(evs)-1]["type"] != "RUN_FINISHED" || !strings.Contains(aguiTypes(evs), "TEXT_MESSAGE_CONTENT") {
		t.Fatalf("team continued: %s %v", aguiTypes(evs), evs[len(evs)-1])
	}
}

// A reasoning agent's steps reach @ag-ui/client as agno's AG-UI
// interface sends them: a reasoning message (REASONING_START …
// REASONING_END) with one "## Step n: title" delta per step, closed
// before the answer's text message.
func TestAGUIReasoningOfficialClient(t *testing.T) {
	step := func(title, next string) modeltest.Response {
		return modeltest.Response{Content: `{"reasoning_steps":[{"title":"` + title + `","reasoning":"Because.","next_action":"` + next + `","confidence":0.9}]}`}
	}
	e := newAGUIEnv(t, func(c *agentos.Config) {
		a := ostest.NewAgent(t, agent.Config{ID: "thinker", Name: "Thinker", Model: modeltest.New(modeltest.Response{Content: "It is 42."}),
			Reasoning: true, ReasoningModel: modeltest.New(step("Understand", "continue"), step("Answer", "final_answer")), Store: c.Store})
		c.Agents = []*agent.Agent{a}
		c.Interfaces = []agentos.Interface{agui.New(&agui.Config{AgentID: "thinker"})}
	})
	out := aguiClient(t, e.url, "", "reasoning")
	if out["error"] != nil {
		t.Fatalf("reasoning: %v", out["error"])
	}
	ev := aguiEventList(out["events"])
	if !strings.Contains(ev, "REASONING_START REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_END TEXT_MESSAGE_START") {
		t.Fatalf("reasoning events: %s", ev)
	}
	deltas, _ := out["deltas"].([]any)
	if len(deltas) != 2 || deltas[0] != "## Step 1: Understand\nBecause.\nConfidence: 0.9\n\n" || !strings.HasPrefix(deltas[1].(string), "## Step 2: Answer\n") {
		t.Fatalf("reasoning deltas: %q", deltas)
	}
}

// The AG-UI interface passes the interface conformance suite.
func TestAGUIConformance(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		// The client runs pay: a frontend tool, so the pause is its call.
		e := newAGUIEnv(t, func(c *agentos.Config) {
			c.SecurityKey = "os-key"
			c.Agents = []*agent.Agent{ostest.NewAgent(t, agent.Config{ID: "assistant", Name: "Assistant", Model: f.Model, Store: c.Store})}
		})
		return &aguiDriver{e: e, asked: map[string]string{}}
	})
}

// aguiDriver posts RunAgentInput with the key, pay declared as a
// frontend tool; a pause is the stream ending on its call, answered with
// the tool message "paid 42".
type aguiDriver struct {
	e     *aguiEnv
	n     int
	asked map[string]string // thread → the message
}

var aguiPay = []agui.Tool{{Name: "pay", Description: "pay an amount", Parameters: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`)}}

func (d *aguiDriver) Refuse(t *testing.T, text string) int {
	code, _ := d.e.post(t, aguiInput("t-refused", "r-refused", nil, aguiPay, aguiUser("m1", text)))
	return code
}

func (d *aguiDriver) run(t *testing.T, thread string, msgs ...agui.Message) interfacetest.Reply {
	t.Helper()
	d.n++
	code, evs := d.e.post(t, aguiInput(thread, fmt.Sprintf("r%d", d.n), nil, aguiPay, msgs...), "Authorization", "Bearer os-key")
	if code != http.StatusOK || len(evs) == 0 {
		t.Fatalf("AG-UI answered %d", code)
	}
	if call := aguiFind(evs, "TOOL_CALL_START"); call != nil && call["toolCallName"] == "pay" {
		return interfacetest.Reply{Paused: true, Ref: thread + "|" + call["toolCallId"].(string)}
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			text.WriteString(ev["delta"].(string))
		}
		if ev["type"] == "RUN_ERROR" {
			text.WriteString(ev["message"].(string))
		}
	}
	return interfacetest.Reply{Text: text.String()}
}

func (d *aguiDriver) Send(t *testing.T, id, text string) interfacetest.Reply {
	t.Helper()
	d.asked["t-"+id] = text
	return d.run(t, "t-"+id, aguiUser("m1", text))
}

func (d *aguiDriver) Redeliver(*testing.T, string, string) bool { return false } // no delivery id

func (d *aguiDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	t.Helper()
	thread, callID, _ := strings.Cut(p.Ref, "|")
	call := agui.Message{ID: "a1", Role: "assistant", ToolCalls: []agui.ToolCall{{ID: callID, Type: "function", Function: agui.FunctionCall{Name: "pay", Arguments: `{"amount":42}`}}}}
	result := agui.Message{ID: "tm1", Role: "tool", ToolCallID: callID, Content: json.RawMessage(`"paid 42"`)}
	return d.run(t, thread, aguiUser("m1", d.asked[thread]), call, result)
}
