package usercontrolflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
	"github.com/agno-go/agno/tool/usercontrolflow"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// agno v2.6.13's UserControlFlowTools (tools/user_control_flow.py) with
// its defaults.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "user_control_flow",
		Name:      "user_control_flow_tools",
		Functions: []tooltest.Function{{Name: "get_user_input", Args: []string{"user_input_fields"}}},
		// The call runs only when a paused run is continued; outside a
		// run there is nothing to answer it.
		Failures: map[string][]tooltest.Call{
			"get_user_input": {{Args: `{"user_input_fields": []}`, Want: "has no run"}},
		},
		Unbounded: "it returns the field names the model wrote and the answers the user's client sent",
		BadOptions: []tooltest.BadOption{
			{Table: "enable_user_input = true", Key: "enable_user_input"},
		},
	})
}

// The form built from the model's arguments: agno's field_type mapping
// (unknown types become str) and field order.
func TestForm(t *testing.T) {
	var args map[string]any
	if err := json.Unmarshal([]byte(`{"user_input_fields": [
		{"field_name": "to_address", "field_type": "str", "field_description": "The recipient"},
		{"field_name": "count", "field_type": "int", "field_description": "How many"},
		{"field_name": "when", "field_type": "datetime"},
		{"field_name": "ok", "field_type": "bool", "field_description": "Go on?"}]}`), &args); err != nil {
		t.Fatal(err)
	}
	got := usercontrolflow.Form(args)
	want := []run.UserInputField{
		{Name: "to_address", FieldType: "str", Description: "The recipient"},
		{Name: "count", FieldType: "int", Description: "How many"},
		{Name: "when", FieldType: "str"},
		{Name: "ok", FieldType: "bool", Description: "Go on?"},
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Fatalf("form\n got %s\nwant %s", g, w)
	}
	if f := usercontrolflow.Form(map[string]any{"user_input_fields": "not a list"}); len(f) != 0 {
		t.Fatalf("form of a non-list: %v", f)
	}
}

func TestDisabled(t *testing.T) {
	tk, err := usercontrolflow.New(usercontrolflow.Config{AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mustFns(t, tk)); n != 0 {
		t.Fatalf("enable_get_user_input = false: %d functions", n)
	}
	tk, err = usercontrolflow.New(usercontrolflow.Config{All: true, AddInstructions: true, Instructions: "mine"})
	if err != nil || len(mustFns(t, tk)) != 1 || tk.Instructions() != "mine" {
		t.Fatalf("all = true: %v %d %q", err, len(mustFns(t, tk)), tk.Instructions())
	}
}

const askArgs = `{"user_input_fields": [{"field_name": "to_address", "field_type": "str", "field_description": "The address to send the email to"}, {"field_name": "copies", "field_type": "int", "field_description": "How many copies"}]}`

// scripted is a model that asks for the fields, then answers with the
// tool message it was given; seen keeps that message.
type scripted struct {
	mu   sync.Mutex
	seen []string
}

func (s *scripted) model() model.Model {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			s.mu.Lock()
			s.seen = append(s.seen, last.Content)
			s.mu.Unlock()
			return modeltest.Response{Content: "Sent: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "get_user_input", askArgs)}}
	})
}

func (s *scripted) toolMessages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func newAgent(t *testing.T, m model.Model) (*agent.Agent, *sqlite.Store) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	rt, ok := tool.LookupToolkit("user_control_flow")
	if !ok {
		t.Fatal("user_control_flow is not registered")
	}
	tk, err := rt.New(tool.ToolkitEnv{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "mailer", Name: "Mailer", Model: m, Tools: []tool.Provider{tk}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return a, store
}

const wantAnswer = `User inputs retrieved: [{"name": "to_address", "value": "alice@example.com"}, {"name": "copies", "value": 2}]`

// The run pauses with the fields the model asked for; continuing it by
// id from storage with the answers hands the model agno's text.
func TestPauseAndContinue(t *testing.T) {
	s := &scripted{}
	a, _ := newAgent(t, s.model())
	ctx := context.Background()
	out, err := a.Run(ctx, "send an email", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusPaused || len(out.Requirements) != 1 {
		t.Fatalf("status %s, %d requirements", out.Status, len(out.Requirements))
	}
	req := out.Requirements[0]
	if req.PauseType() != run.PauseUserInput || !req.NeedsUserInput() {
		t.Fatalf("pause type %s", req.PauseType())
	}
	// agno's RunRequirement.to_dict()["user_input_schema"] for the same
	// call (UserInputField.to_dict of the fields models/base.py builds).
	wantSchema := `[{"name":"to_address","field_type":"str","description":"The address to send the email to","value":null},` +
		`{"name":"copies","field_type":"int","description":"How many copies","value":null}]`
	var reqJSON map[string]json.RawMessage
	if err := json.Unmarshal([]byte(mustJSON(t, req)), &reqJSON); err != nil {
		t.Fatal(err)
	}
	if got := compact(t, reqJSON["user_input_schema"]); got != wantSchema {
		t.Fatalf("requirement user_input_schema\n got %s\nwant %s", got, wantSchema)
	}
	var te map[string]json.RawMessage
	if err := json.Unmarshal(reqJSON["tool_execution"], &te); err != nil {
		t.Fatal(err)
	}
	if string(te["tool_name"]) != `"get_user_input"` || string(te["requires_user_input"]) != "true" || string(te["tool_call_id"]) != `"c1"` {
		t.Fatalf("tool_execution %s", reqJSON["tool_execution"])
	}
	if got := compact(t, te["user_input_schema"]); got != wantSchema {
		t.Fatalf("tool_execution user_input_schema\n got %s\nwant %s", got, wantSchema)
	}
	if len(s.toolMessages()) != 0 {
		t.Fatalf("the tool ran before the user answered: %v", s.toolMessages())
	}

	if err := req.ProvideUserInput(map[string]any{"to_address": "alice@example.com", "copies": float64(2)}); err != nil {
		t.Fatal(err)
	}
	done, err := a.Continue(ctx, run.ContinueRequest{RunID: out.RunID, SessionID: "s1", Requirements: []*run.Requirement{req}})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != run.StatusCompleted || done.Content != "Sent: "+wantAnswer {
		t.Fatalf("continued: %s %q", done.Status, done.Content)
	}
	if got := s.toolMessages(); len(got) != 1 || got[0] != wantAnswer {
		t.Fatalf("the model saw %q", got)
	}
	if len(done.ActiveRequirements()) != 0 {
		t.Fatalf("requirements left: %d", len(done.ActiveRequirements()))
	}
}

// An empty field list: agno runs the call without pausing, and the
// model gets the function's "User input received".
func TestEmptyForm(t *testing.T) {
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "get_user_input", `{"user_input_fields": []}`)}},
		modeltest.Response{Content: "ok"},
	)
	a, _ := newAgent(t, m)
	out, err := a.Run(context.Background(), "hi", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted || len(out.Requirements) != 0 || len(out.Tools) != 1 || out.Tools[0].ResultText() != "User input received" {
		t.Fatalf("%s, %d requirements, tools %v", out.Status, len(out.Requirements), out.Tools)
	}
}

// Through AgentOS: POST /agents/{id}/runs pauses with the form;
// POST /agents/{id}/runs/{run_id}/continue with the filled tools hands
// the model agno's text.
func TestAgentOS(t *testing.T) {
	s := &scripted{}
	a, store := newAgent(t, s.model())
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	var paused map[string]any
	post(t, srv, "/agents/mailer/runs", url.Values{"message": {"send an email"}, "session_id": {"s1"}, "stream": {"false"}}, &paused)
	if paused["status"] != "PAUSED" {
		t.Fatalf("run: %v", paused)
	}
	reqs, _ := paused["requirements"].([]any)
	if len(reqs) != 1 {
		t.Fatalf("requirements: %v", paused["requirements"])
	}
	schema, _ := reqs[0].(map[string]any)["user_input_schema"].([]any)
	if len(schema) != 2 || schema[0].(map[string]any)["name"] != "to_address" || schema[1].(map[string]any)["field_type"] != "int" {
		t.Fatalf("requirement form: %v", reqs[0])
	}
	// The client fills the form in the paused tool and sends it back.
	tools := paused["tools"].([]any)
	fields := tools[0].(map[string]any)["user_input_schema"].([]any)
	fields[0].(map[string]any)["value"] = "alice@example.com"
	fields[1].(map[string]any)["value"] = 2
	b, _ := json.Marshal(tools)
	var done map[string]any
	post(t, srv, "/agents/mailer/runs/"+paused["run_id"].(string)+"/continue", url.Values{"tools": {string(b)}, "session_id": {"s1"}, "stream": {"false"}}, &done)
	if done["status"] != "COMPLETED" || done["content"] != "Sent: "+wantAnswer {
		t.Fatalf("continue: %v", done)
	}
	if got := s.toolMessages(); len(got) != 1 || got[0] != wantAnswer {
		t.Fatalf("the model saw %q", got)
	}
}

func post(t *testing.T, srv *httptest.Server, path string, form url.Values, v any) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("POST %s: %v in %s", path, err, b)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustFns(t *testing.T, tk *tool.Toolkit) []*tool.Function {
	t.Helper()
	fns, err := tk.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fns
}

// compact keeps the key order, which is agno's order too.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	return b.String()
}
