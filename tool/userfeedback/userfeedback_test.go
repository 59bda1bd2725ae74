package userfeedback_test

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
	"github.com/agno-go/agno/tool/userfeedback"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// agno v2.6.13's UserFeedbackTools (tools/user_feedback.py) with its
// defaults; the golden schema is agno's Function.to_dict() of ask_user.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "user_feedback",
		Name:      "user_feedback_tools",
		Functions: []tooltest.Function{{Name: "ask_user", Args: []string{"questions"}}},
		// The call pauses a run; outside one there is nobody to ask.
		Failures: map[string][]tooltest.Call{
			"ask_user": {{Args: `{"questions": []}`, Want: "has no run"}},
		},
		Unbounded: "it returns the questions the model wrote and the labels the user's client sent",
		BadOptions: []tooltest.BadOption{
			{Table: "enable_ask_user = true", Key: "enable_ask_user"},
		},
	})
}

const askArgs = `{"questions": [{"question": "Where to?", "header": "Destination", "options": [{"label": "Paris", "description": "City of light"}, {"label": "Rome"}]}, {"question": "Which extras?", "header": "Extras", "options": [{"label": "Breakfast"}, {"label": "Parking"}], "multi_select": true}]}`

// scripted asks, then answers with the tool message it was given.
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
			return modeltest.Response{Content: "Booked: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "ask_user", askArgs)}}
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
	rt, ok := tool.LookupToolkit("user_feedback")
	if !ok {
		t.Fatal("user_feedback is not registered")
	}
	tk, err := rt.New(tool.ToolkitEnv{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "planner", Name: "Planner", Model: m, Tools: []tool.Provider{tk}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return a, store
}

// agno's handle_ask_user_tool_update for the choices below.
const wantAnswer = `User feedback received: [{"question": "Where to?", "selected": ["Rome"]}, {"question": "Which extras?", "selected": ["Breakfast", "Parking"]}]`

// The run pauses with the model's questions (agno's
// user_feedback_schema); continuing it from storage with the choices
// hands the model agno's text, and the tool itself does not run.
func TestPauseAndContinue(t *testing.T) {
	s := &scripted{}
	a, _ := newAgent(t, s.model())
	ctx := context.Background()
	out, err := a.Run(ctx, "plan a trip", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusPaused || len(out.Requirements) != 1 {
		t.Fatalf("status %s, %d requirements", out.Status, len(out.Requirements))
	}
	req := out.Requirements[0]
	if req.PauseType() != run.PauseUserFeedback || !req.NeedsUserFeedback() {
		t.Fatalf("pause type %s", req.PauseType())
	}
	// agno's UserFeedbackQuestion.to_dict() of the questions models/base.py
	// builds from the same arguments.
	want := `[{"question":"Where to?","header":"Destination","multi_select":false,"selected_options":null,"options":[{"label":"Paris","description":"City of light","selected":false},{"label":"Rome","description":null,"selected":false}]},` +
		`{"question":"Which extras?","header":"Extras","multi_select":true,"selected_options":null,"options":[{"label":"Breakfast","description":null,"selected":false},{"label":"Parking","description":null,"selected":false}]}]`
	var te map[string]json.RawMessage
	b, _ := json.Marshal(req.ToolExecution)
	if err := json.Unmarshal(b, &te); err != nil {
		t.Fatal(err)
	}
	if got := compact(t, te["user_feedback_schema"]); got != want {
		t.Fatalf("user_feedback_schema\n got %s\nwant %s", got, want)
	}
	if string(te["requires_user_input"]) != "true" || string(te["tool_name"]) != `"ask_user"` {
		t.Fatalf("tool_execution %s", b)
	}
	if err := req.ProvideUserFeedback(map[string][]string{"Where to?": {"Rome"}, "Which extras?": {"Breakfast", "Parking"}}); err != nil {
		t.Fatal(err)
	}
	done, err := a.Continue(ctx, run.ContinueRequest{RunID: out.RunID, SessionID: "s1", Requirements: []*run.Requirement{req}})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != run.StatusCompleted || done.Content != "Booked: "+wantAnswer {
		t.Fatalf("continued: %s %q", done.Status, done.Content)
	}
	if got := s.toolMessages(); len(got) != 1 || got[0] != wantAnswer {
		t.Fatalf("the model saw %q", got)
	}
	if t0 := done.Tools[0]; t0.Answered == nil || !*t0.Answered || t0.RequiresUserInput {
		t.Fatalf("answered tool %+v", t0)
	}
}

// No questions: agno does not pause; the call runs and says so.
func TestNoQuestions(t *testing.T) {
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "ask_user", `{"questions": []}`)}},
		modeltest.Response{Content: "ok"},
	)
	a, _ := newAgent(t, m)
	out, err := a.Run(context.Background(), "hi", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted || len(out.Tools) != 1 || out.Tools[0].ResultText() != "User feedback received" {
		t.Fatalf("%s %v", out.Status, out.Tools)
	}
}

// Through AgentOS: the paused run's requirement carries the questions;
// the client marks its choices in the paused tool and continues.
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
	post(t, srv, "/agents/planner/runs", url.Values{"message": {"plan a trip"}, "session_id": {"s1"}, "stream": {"false"}}, &paused)
	reqs, _ := paused["requirements"].([]any)
	if paused["status"] != "PAUSED" || len(reqs) != 1 {
		t.Fatalf("run: %v", paused)
	}
	tools := paused["tools"].([]any)
	qs := tools[0].(map[string]any)["user_feedback_schema"].([]any)
	if len(qs) != 2 {
		t.Fatalf("questions %v", qs)
	}
	qs[0].(map[string]any)["selected_options"] = []string{"Rome"}
	qs[1].(map[string]any)["selected_options"] = []string{"Breakfast", "Parking"}
	b, _ := json.Marshal(tools)
	var done map[string]any
	post(t, srv, "/agents/planner/runs/"+paused["run_id"].(string)+"/continue", url.Values{"tools": {string(b)}, "session_id": {"s1"}, "stream": {"false"}}, &done)
	if done["status"] != "COMPLETED" || done["content"] != "Booked: "+wantAnswer {
		t.Fatalf("continue: %v", done)
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

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	return b.String()
}

// The questions as agno's models/base.py reads them: missing keys empty,
// multi_select false; no questions, nothing to ask.
func TestQuestions(t *testing.T) {
	var args map[string]any
	if err := json.Unmarshal([]byte(`{"questions": [{"question": "Q?", "options": [{"label": "A"}]}, "not a question"]}`), &args); err != nil {
		t.Fatal(err)
	}
	fields, qs := userfeedback.Questions(args)
	if fields != nil || len(qs) != 2 || qs[0].Header != "" || qs[0].MultiSelect || len(qs[0].Options) != 1 || qs[1].Question != "" {
		t.Fatalf("questions %+v", qs)
	}
	if _, qs := userfeedback.Questions(map[string]any{"questions": "x"}); qs != nil {
		t.Fatalf("questions of a non-list: %v", qs)
	}
}
