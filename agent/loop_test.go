package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
)

func TestRunCompletes(t *testing.T) {
	fake := modeltest.New(text("Hello there"))
	a := newAgent(t, agent.Config{Name: "Main Agent", Model: fake})
	out, err := a.Run(context.Background(), "hi", run.WithSessionID("s1"), run.WithUserID("u1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted || out.Content != "Hello there" || out.ContentType != "str" {
		t.Fatalf("status %s content %q type %q", out.Status, out.Content, out.ContentType)
	}
	if out.AgentID != "main-agent" || out.AgentName != "Main Agent" || out.SessionID != "s1" || out.UserID != "u1" {
		t.Fatalf("identity: %+v", out)
	}
	if len(out.Messages) != 2 || out.Messages[0].Role != model.RoleUser || out.Messages[1].Content != "Hello there" {
		t.Fatalf("messages: %+v", out.Messages)
	}
	if out.Metrics == nil || out.Metrics.TotalTokens != 15 || out.Metrics.Details["model"][0].ID != "fake-model" {
		t.Fatalf("metrics: %+v", out.Metrics)
	}
	if out.Model != "fake-model" || out.ModelProvider != "Fake" {
		t.Fatalf("model: %s %s", out.Model, out.ModelProvider)
	}
}

// What a provider needs back on the next turn (agno's provider_data: a
// thinking signature, a reasoning item) is kept on the assistant message
// and sent with the history.
func TestProviderDataRoundTrips(t *testing.T) {
	fake := modeltest.New(modeltest.Response{Content: "first", ProviderData: map[string]any{"signature": "sig-1"}}, text("second"))
	// Through SQLite: the history comes back from its stored JSON.
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := newAgent(t, agent.Config{Name: "Main Agent", Model: fake, Store: st, AddHistoryToContext: true})
	out, err := a.Run(context.Background(), "hi", run.WithSessionID("s1"))
	if err != nil || out.Messages[1].ProviderData["signature"] != "sig-1" {
		t.Fatalf("%v %+v", err, out.Messages)
	}
	b, _ := json.Marshal(out.Messages[1])
	if !strings.Contains(string(b), `"provider_data":{"signature":"sig-1"}`) {
		t.Fatalf("stored message %s", b)
	}
	if _, err := a.Run(context.Background(), "again", run.WithSessionID("s1")); err != nil {
		t.Fatal(err)
	}
	var sent *model.Message
	for i, m := range fake.Requests()[1].Messages {
		if m.Role == model.RoleAssistant {
			sent = &fake.Requests()[1].Messages[i]
		}
	}
	if sent == nil || sent.ProviderData["signature"] != "sig-1" {
		t.Fatalf("history sent %+v", fake.Requests()[1].Messages)
	}
}

func TestRunOutputJSONShape(t *testing.T) {
	a := newAgent(t, agent.Config{Name: "Main Agent", Model: modeltest.New(text("ok"))})
	out, _ := a.Run(context.Background(), "hi")
	b, _ := json.Marshal(out)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"run_id", "agent_id", "agent_name", "session_id", "content", "content_type", "model", "model_provider", "messages", "metrics", "status", "created_at", "input"} {
		if _, ok := m[k]; !ok {
			t.Errorf("RunOutput JSON lacks %q: %s", k, b)
		}
	}
	if m["status"] != "COMPLETED" {
		t.Errorf("status = %v", m["status"])
	}
	if in, _ := m["input"].(map[string]any); in["input_content"] != "hi" {
		t.Errorf("input = %v", m["input"])
	}
}

func TestSystemMessageOrder(t *testing.T) {
	fake := modeltest.New(text("ok"))
	instr := tool.Must(tool.New("noop", "n", func(context.Context, struct{}) (string, error) { return "", nil }, tool.Instructions("Use noop wisely.")))
	a := newAgent(t, agent.Config{
		Name:              "Bot",
		Model:             fake,
		Description:       "You are a helper.",
		Role:              "assistant",
		Instructions:      []string{"Be brief.", "Greet {user_name}."},
		Markdown:          true,
		AddNameToContext:  true,
		ExpectedOutput:    "  A greeting.  ",
		AdditionalContext: "Context {user_name} stays.",
		Tools:             []tool.Provider{instr},
		SessionState:      map[string]any{"user_name": "Ada"},
	})
	if _, err := a.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	sys := fake.Requests()[0].Messages[0]
	want := "You are a helper.\n" +
		"\n<your_role>\nassistant\n</your_role>\n\n" +
		"- Be brief.\n- Greet Ada.\n" +
		"<additional_information>\n- Use markdown to format your answers.\n- Your name is: Bot.\n</additional_information>\n\n" +
		"Use noop wisely.\n" +
		"<expected_output>\nA greeting.\n</expected_output>\n\n" +
		"Context {user_name} stays."
	if sys.Role != model.RoleSystem || sys.Content != want {
		t.Fatalf("system message:\n%q\nwant\n%q", sys.Content, want)
	}
}

func TestSingleInstructionAndSubstitutionSources(t *testing.T) {
	fake := modeltest.New(text("ok"))
	a := newAgent(t, agent.Config{
		Model:        fake,
		Instructions: []string{"state={s} dep={d} meta={m} user={user_id} unknown={nope}"},
		Dependencies: map[string]any{"d": "D", "s": "dep-loses"},
		Metadata:     map[string]any{"m": 3},
	})
	_, _ = a.Run(context.Background(), "x", run.WithSessionState(map[string]any{"s": "S"}), run.WithUserID("u9"))
	got := fake.Requests()[0].Messages[0].Content
	if got != "state=S dep=D meta=3 user=u9 unknown={nope}" {
		t.Fatalf("got %q", got)
	}
}

func TestToolLoopAndResultsInCallOrder(t *testing.T) {
	// Two calls that can only finish if they run at the same time: each
	// waits for the other to start.
	var started sync.WaitGroup
	started.Add(2)
	wait := tool.Must(tool.New("wait", "waits", func(ctx context.Context, a echoArgs) (string, error) {
		started.Done()
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			return "", errors.New("tool calls did not run concurrently")
		}
		if a.Text == "first" {
			time.Sleep(20 * time.Millisecond) // finishes last, still reported first
		}
		return "done:" + a.Text, nil
	}))
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "wait", `{"text":"first"}`), modeltest.ToolCall("c2", "wait", `{"text":"second"}`)),
		text("finished"),
	)
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{wait}})
	out, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Content != "finished" {
		t.Fatalf("content %q", out.Content)
	}
	msgs := toolMessages(fake.Requests()[1])
	if len(msgs) != 2 || msgs[0].ToolCallID != "c1" || msgs[0].Content != "done:first" || msgs[1].Content != "done:second" {
		t.Fatalf("tool messages: %+v", msgs)
	}
	if len(out.Tools) != 2 || out.Tools[0].ResultText() != "done:first" {
		t.Fatalf("tools: %+v", out.Tools)
	}
}

func TestToolErrorAndUnknownTool(t *testing.T) {
	fail := tool.Must(tool.New("fail", "errors", func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") }))
	fake := modeltest.New(
		calls(modeltest.ToolCall("c2", "fail", `{}`), modeltest.ToolCall("c3", "nope", `{}`)),
		text("recovered"),
	)
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{fail}})
	evs := collect(t, a.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
	var errs []string
	for _, e := range evs {
		if te, ok := e.(*run.ToolCallError); ok {
			errs = append(errs, te.Tool.ToolName+":"+te.Error)
		}
	}
	if len(errs) != 1 || errs[0] != "fail:disk full" {
		t.Fatalf("ToolCallError events: %q", errs)
	}
	msgs := toolMessages(fake.Requests()[1])
	if len(msgs) != 2 || !msgs[0].ToolCallError || msgs[0].Content != "disk full" ||
		msgs[1].Content != "Error: The requested tool does not exist or is not available." {
		t.Fatalf("tool messages: %+v", msgs)
	}
	if last := evs[len(evs)-1]; last.Kind() != "RunCompleted" {
		t.Fatalf("last event %s", last.Kind())
	}
}

// A panicking tool is a bug: the run ends ERROR (the other calls of the
// turn finish), the process lives, and neither the model nor the client
// sees the panic value.
func TestToolPanicEndsTheRunError(t *testing.T) {
	boom := tool.Must(tool.New("boom", "panics", func(context.Context, struct{}) (string, error) { panic("kaboom: secret path /etc/x") }))
	ok := tool.Must(tool.New("ok", "works", func(context.Context, struct{}) (string, error) { return "fine", nil }))
	for _, tc := range []struct {
		name  string
		calls []model.ToolCall
	}{
		{"alone", []model.ToolCall{modeltest.ToolCall("c1", "boom", `{}`)}},
		{"concurrent", []model.ToolCall{modeltest.ToolCall("c1", "boom", `{}`), modeltest.ToolCall("c2", "ok", `{}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := modeltest.New(calls(tc.calls...), text("never"))
			a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{boom, ok}})
			evs := collect(t, a.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
			last, isErr := evs[len(evs)-1].(*run.RunError)
			if !isErr {
				t.Fatalf("last event %s, want RunError", evs[len(evs)-1].Kind())
			}
			if last.Content != "internal error in tool boom (details are in the server log)" {
				t.Errorf("RunError content %q", last.Content)
			}
			for _, e := range evs {
				if b, _ := json.Marshal(e); strings.Contains(string(b), "kaboom") {
					t.Errorf("event %s carries the panic value: %s", e.Kind(), b)
				}
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("model called %d times after the panic, want 1", n)
			}
		})
	}
}

func TestToolCallLimit(t *testing.T) {
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`), modeltest.ToolCall("c2", "echo", `{"text":"b"}`)),
		calls(modeltest.ToolCall("c3", "echo", `{"text":"c"}`)),
		text("done"),
	)
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t)}, ToolCallLimit: 1})
	out, _ := a.Run(context.Background(), "go")
	if out.Content != "done" || fake.Calls() != 3 {
		t.Fatalf("limit must not stop the loop: %q after %d calls", out.Content, fake.Calls())
	}
	msgs := toolMessages(fake.Requests()[2])
	want := []string{"echo:a", "Tool call limit reached. Tool call echo not executed. Don't try to execute it again.", "Tool call limit reached. Tool call echo not executed. Don't try to execute it again."}
	for i, m := range msgs {
		if m.Content != want[i] {
			t.Fatalf("message %d = %q, want %q", i, m.Content, want[i])
		}
	}
}

// A retried run has its whole tool_call_limit again: the first try's
// calls do not count against the second.
func TestToolCallLimitIsPerTry(t *testing.T) {
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)),
		modeltest.Response{Err: errors.New("flaky")},
		calls(modeltest.ToolCall("c2", "echo", `{"text":"b"}`)),
		text("done"),
	)
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t)}, ToolCallLimit: 1, Retries: 1, DelayBetweenRetries: time.Millisecond})
	out, _ := a.Run(context.Background(), "go")
	if out.Status != run.StatusCompleted || out.Content != "done" {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	if msgs := toolMessages(fake.Requests()[3]); len(msgs) != 1 || msgs[0].Content != "echo:b" {
		t.Fatalf("the retry's tool call: %+v", msgs)
	}
}

func TestStopAfterToolCallShowsResult(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"final"}`)), text("never"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t, tool.StopAfterToolCall())}})
	out, _ := a.Run(context.Background(), "go")
	if out.Content != "echo:final" || fake.Calls() != 1 {
		t.Fatalf("content %q after %d model calls", out.Content, fake.Calls())
	}
}

func TestArgumentsPreservedAndNormalized(t *testing.T) {
	var mu sync.Mutex
	got := map[string]bool{}
	rec := tool.Must(tool.New("rec", "records", func(_ context.Context, a echoArgs) (string, error) {
		mu.Lock()
		got[a.Text] = true
		mu.Unlock()
		return "ok", nil
	}))
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "rec", `{"text": "  padded  "}`), modeltest.ToolCall("c2", "rec", `{'text': 'py\nlit'}`)),
		text("done"),
	)
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{rec}})
	out, _ := a.Run(context.Background(), "go")
	if len(got) != 2 || !got["  padded  "] || !got["py\nlit"] {
		t.Fatalf("tool saw %v", got)
	}
	// The Python-literal call is replayed to the provider as JSON (agno #10231).
	asst := fake.Requests()[1].Messages[1]
	if asst.ToolCalls[1].Function.Arguments != `{"text":"py\nlit"}` || asst.ToolCalls[0].Function.Arguments != `{"text": "  padded  "}` {
		t.Fatalf("replayed arguments: %q / %q", asst.ToolCalls[0].Function.Arguments, asst.ToolCalls[1].Function.Arguments)
	}
	if out.Messages[1].ToolCalls[1].Function.Arguments != `{"text":"py\nlit"}` {
		t.Fatalf("stored arguments not normalised: %q", out.Messages[1].ToolCalls[1].Function.Arguments)
	}
}

func TestBadArgumentsGetAgnoError(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{not json`)), calls(modeltest.ToolCall("c2", "echo", `[1,2]`)), text("ok"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t)}})
	_, _ = a.Run(context.Background(), "go")
	m1 := toolMessages(fake.Requests()[1])[0].Content
	if !strings.HasPrefix(m1, "Error while decoding function arguments: ") || !strings.HasSuffix(m1, "\n\nPlease make sure we can json.loads() the arguments and retry.") {
		t.Fatalf("decode error text %q", m1)
	}
	m2 := toolMessages(fake.Requests()[2])[1].Content
	if m2 != "Function arguments are not a valid JSON object.\n\n Please fix and retry." {
		t.Fatalf("non-object text %q", m2)
	}
}

func TestToolSeesRunContextAndState(t *testing.T) {
	inc := tool.Must(tool.New("inc", "increments", func(ctx context.Context, _ struct{}) (string, error) {
		rc := run.FromContext(ctx)
		rc.State(func(s map[string]any) {
			n, _ := s["n"].(int)
			s["n"] = n + 1
		})
		return rc.RunID + "/" + rc.SessionID, nil
	}))
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "inc", `{}`)), text("ok"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{inc}})
	out, _ := a.Run(context.Background(), "go", run.WithRunID("r1"), run.WithSessionID("s1"), run.WithSessionState(map[string]any{"n": 41}))
	if out.Tools[0].ResultText() != "r1/s1" || out.SessionState["n"] != 42 {
		t.Fatalf("result %q state %v", out.Tools[0].ResultText(), out.SessionState)
	}
	// The run context never shows up in the schema.
	if strings.Contains(string(inc.Parameters), "run") {
		t.Fatalf("schema leaks run context: %s", inc.Parameters)
	}
}

func TestModelErrorGivesErrorStatus(t *testing.T) {
	pe := &model.ProviderError{Provider: "Fake", StatusCode: 500, Message: "upstream down"}
	fake := modeltest.New(modeltest.Response{Err: pe})
	a := newAgent(t, agent.Config{Model: fake, Retries: 2, DelayBetweenRetries: time.Millisecond})
	out, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatalf("a run failure must not be a Go error: %v", err)
	}
	if out.Status != run.StatusError || !strings.Contains(out.ContentString(), "upstream down") || fake.Calls() != 3 {
		t.Fatalf("status %s content %q calls %d", out.Status, out.Content, fake.Calls())
	}
}

func TestRetrySucceeds(t *testing.T) {
	fake := modeltest.New(modeltest.Response{Err: errors.New("flaky")}, text("second time"))
	a := newAgent(t, agent.Config{Model: fake, Retries: 1, DelayBetweenRetries: time.Millisecond})
	out, _ := a.Run(context.Background(), "go")
	if out.Status != run.StatusCompleted || out.Content != "second time" {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
}

func TestFallbackModel(t *testing.T) {
	primary := modeltest.New(modeltest.Response{Err: &model.ProviderError{StatusCode: 503, Message: "overloaded"}})
	backup := modeltest.New(text("from backup"))
	a := newAgent(t, agent.Config{Model: primary, FallbackModels: []model.Model{backup}})
	out, _ := a.Run(context.Background(), "go")
	if out.Content != "from backup" {
		t.Fatalf("content %q", out.Content)
	}
	// A client error (400) does not fall back.
	primary = modeltest.New(modeltest.Response{Err: &model.ProviderError{StatusCode: 400, Message: "bad request"}})
	backup = modeltest.New(text("from backup"))
	a = newAgent(t, agent.Config{Model: primary, FallbackModels: []model.Model{backup}})
	out, _ = a.Run(context.Background(), "go")
	if out.Status != run.StatusError || backup.Calls() != 0 {
		t.Fatalf("status %s, backup calls %d", out.Status, backup.Calls())
	}
}

// A context overflow falls back to fallback_models when there is no
// list of its own, as agno's get_fallback_models does.
func TestContextOverflowFallsBackToOnError(t *testing.T) {
	overflow := &model.ProviderError{StatusCode: 400, Message: "maximum context length exceeded", ContextOverflow: true}
	primary := modeltest.New(modeltest.Response{Err: overflow})
	backup := modeltest.New(text("from backup"))
	a := newAgent(t, agent.Config{Model: primary, FallbackModels: []model.Model{backup}})
	if out, _ := a.Run(context.Background(), "go"); out.Content != "from backup" {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	// Its own list wins.
	primary = modeltest.New(modeltest.Response{Err: overflow})
	big, backup := modeltest.New(text("from the big one")), modeltest.New(text("from backup"))
	a = newAgent(t, agent.Config{Model: primary, Fallbacks: &agent.Fallbacks{OnError: []model.Model{backup}, OnContextOverflow: []model.Model{big}}})
	if out, _ := a.Run(context.Background(), "go"); out.Content != "from the big one" || backup.Calls() != 0 {
		t.Fatalf("content %q, backup calls %d", out.Content, backup.Calls())
	}
}

func TestInputGuardrailIsNotRetried(t *testing.T) {
	fake := modeltest.New(text("never"))
	guard := func(_ context.Context, in *agent.HookInput) error {
		if strings.Contains(in.Input, "secret") {
			return &agent.CheckError{Message: "input contains a secret", Trigger: "pii_detected"}
		}
		return nil
	}
	a := newAgent(t, agent.Config{Model: fake, PreHooks: []agent.PreHook{guard}, Retries: 3})
	evs := collect(t, a.RunStream(context.Background(), "my secret"))
	out, _ := a.Run(context.Background(), "my secret")
	if out.Status != run.StatusError || out.Content != "input contains a secret" || fake.Calls() != 0 {
		t.Fatalf("status %s content %q calls %d", out.Status, out.Content, fake.Calls())
	}
	re, ok := evs[len(evs)-1].(*run.RunError)
	if !ok || re.ErrorType != "input_check_error" || re.ErrorID != "pii_detected" {
		t.Fatalf("events %s", kinds(evs))
	}
}

func TestPreHookMayRewriteInput(t *testing.T) {
	fake := modeltest.New(text("ok"))
	upper := func(_ context.Context, in *agent.HookInput) error { in.Input = strings.ToUpper(in.Input); return nil }
	a := newAgent(t, agent.Config{Model: fake, PreHooks: []agent.PreHook{upper}})
	_, _ = a.Run(context.Background(), "shout")
	if got := fake.Requests()[0].Messages[0].Content; got != "SHOUT" {
		t.Fatalf("model saw %q", got)
	}
}

type weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

func TestStructuredOutputNative(t *testing.T) {
	fake := modeltest.New(text(`{"city":"SF","temp":18.5}`))
	fake.Structured = true
	schema, err := agent.OutputSchemaFor[weather]()
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, agent.Config{Model: fake, OutputSchema: schema})
	out, _ := a.Run(context.Background(), "weather")
	w, ok := out.Content.(weather)
	if !ok || w.City != "SF" || w.Temp != 18.5 || out.ContentType != "weather" {
		t.Fatalf("content %#v type %q", out.Content, out.ContentType)
	}
	rf := fake.Requests()[0].ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.Name != "weather" || !rf.Strict {
		t.Fatalf("response format %+v", rf)
	}
	if strings.Contains(fake.Requests()[0].Messages[0].Content, "Provide your output as a JSON") {
		t.Fatal("native structured output must not add the JSON prompt")
	}
}

func TestStructuredOutputJSONModeFallback(t *testing.T) {
	fake := modeltest.New(text("Sure!\n```json\n{\"city\":\"NYC\",\"temp\":3}\n```"))
	schema, _ := agent.OutputSchemaFor[weather]()
	a := newAgent(t, agent.Config{Model: fake, OutputSchema: schema})
	out, _ := a.Run(context.Background(), "weather")
	if w, ok := out.Content.(weather); !ok || w.City != "NYC" {
		t.Fatalf("content %#v", out.Content)
	}
	req := fake.Requests()[0]
	if req.ResponseFormat == nil || req.ResponseFormat.Type != "json_object" {
		t.Fatalf("response format %+v", req.ResponseFormat)
	}
	sys := req.Messages[0].Content
	if !strings.Contains(sys, `Provide your output as a JSON containing the following fields:`) || !strings.Contains(sys, `["city", "temp"]`) {
		t.Fatalf("system message lacks the JSON prompt: %q", sys)
	}
}

func TestStructuredOutputDict(t *testing.T) {
	fake := modeltest.New(text(`{"a":1}`))
	schema, err := agent.OutputSchemaFromJSON("thing", []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, agent.Config{Model: fake, OutputSchema: schema})
	out, _ := a.Run(context.Background(), "x")
	if m, ok := out.Content.(map[string]any); !ok || out.ContentType != "dict" || m["a"] != json.Number("1") {
		t.Fatalf("content %#v type %q", out.Content, out.ContentType)
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := agent.New(agent.Config{}); err == nil || !strings.Contains(err.Error(), "Model is required") {
		t.Fatalf("missing model: %v", err)
	}
	if _, err := agent.New(agent.Config{Model: modeltest.New(), ToolCallLimit: -1}); err == nil || !strings.Contains(err.Error(), "ToolCallLimit") {
		t.Fatalf("bad limit: %v", err)
	}
	bad := &tool.Function{Name: "x"}
	if _, err := agent.New(agent.Config{Model: modeltest.New(), Tools: []tool.Provider{bad}}); err == nil || !strings.Contains(err.Error(), "Handler is nil") {
		t.Fatalf("bad tool: %v", err)
	}
}

func TestDefaultID(t *testing.T) {
	if got := agent.DefaultID("My Research_Agent"); got != "my-research-agent" {
		t.Fatalf("got %q", got)
	}
	if got := agent.DefaultID(""); len(got) != 36 {
		t.Fatalf("got %q", got)
	}
}

// store_tool_messages = false keeps neither the tool results nor the
// assistant messages that made those calls, as agno's scrub does: a stored
// history never holds a call without its result.
func TestStoreToolMessagesOffDropsTheCalls(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), text("done"))
	st := memory.New()
	no := false
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t)}, Store: st, StoreToolMessages: &no})
	out, _ := a.Run(context.Background(), "go")
	if out.Status != run.StatusCompleted {
		t.Fatalf("status %s", out.Status)
	}
	rec, err := st.GetRun(context.Background(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []model.Message `json:"messages"`
	}
	if err := json.Unmarshal(rec.Data, &doc); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range doc.Messages {
		roles = append(roles, string(m.Role))
		if m.Role == model.RoleTool || len(m.ToolCalls) > 0 {
			t.Errorf("stored %s message %+v", m.Role, m)
		}
	}
	if len(roles) == 0 || roles[len(roles)-1] != "assistant" {
		t.Errorf("stored roles %v", roles)
	}
}

// The user message is sent as typed: {var} in it are not resolved from
// session state, dependencies or metadata. agno's agent resolves them there
// too; here a caller's text cannot pull the agent's dependencies into the
// conversation (only the system message, which the agent's author writes,
// is resolved).
func TestUserMessageIsNotResolved(t *testing.T) {
	fake := modeltest.New(text("ok"))
	a := newAgent(t, agent.Config{Model: fake, SessionState: map[string]any{"city": "Paris"}, Dependencies: map[string]any{"api_key": "secret"}})
	if _, err := a.Run(context.Background(), "Weather in {city}? My key is {api_key}."); err != nil {
		t.Fatal(err)
	}
	msgs := fake.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "Weather in {city}? My key is {api_key}." {
		t.Errorf("user message %q", got)
	}
}
