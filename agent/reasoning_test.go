package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
	memstore "github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	reasoningtools "github.com/agno-go/agno/tool/reasoning"
)

// testdata/agno_reasoning_events.golden.json is what agno v2.6.13 itself
// streams (run(..., stream=True, stream_events=True)) for the scenarios
// below, with scripted models that answer exactly what the fakes here
// answer; each event is cut to event, content, content_type and
// reasoning_content, as the scenario functions cut ours.

// reasoningStep is the content the scripted reasoning model answers: one
// agno ReasoningStep in a ReasoningSteps.
func reasoningStep(title, next string, confidence float64) modeltest.Response {
	lower := strings.ToLower(title)
	b, _ := json.Marshal(map[string]any{"reasoning_steps": []map[string]any{{
		"title": title, "action": "I will " + lower, "result": "I did " + lower, "reasoning": "Because " + lower,
		"next_action": next, "confidence": confidence,
	}}})
	return modeltest.Response{Content: string(b)}
}

// whole streams a text as one delta, as the scripted agno model does.
func whole(s string) modeltest.Response { return modeltest.Response{Content: s, Tokens: []string{s}} }

var elapsedRE = regexp.MustCompile(`completed in [0-9.]+s\. `)

// cut keeps the fields the golden keeps, as JSON values.
func cut(t *testing.T, evs []run.Event) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range evs {
		b, err := run.EncodeJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]any
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatal(err)
		}
		kept := map[string]any{}
		for _, k := range []string{"event", "content", "content_type", "reasoning_content"} {
			if v, ok := all[k]; ok && v != nil && v != "" {
				kept[k] = v
			}
		}
		if s, ok := kept["content"].(string); ok && strings.HasSuffix(all["event"].(string), "ToolCallCompleted") {
			kept["content"] = elapsedRE.ReplaceAllString(s, "completed in <t>s. ")
		}
		out = append(out, kept)
	}
	return out
}

func goldenReasoning(t *testing.T, scenario string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/agno_reasoning_events.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var all map[string][]map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	evs, ok := all[scenario]
	if !ok {
		t.Fatalf("no golden scenario %q", scenario)
	}
	for _, e := range evs {
		if s, ok := e["content"].(string); ok && strings.HasSuffix(e["event"].(string), "ToolCallCompleted") {
			e["content"] = elapsedRE.ReplaceAllString(s, "completed in <t>s. ")
		}
	}
	return evs
}

func sameEvents(t *testing.T, scenario string, got []run.Event) {
	t.Helper()
	want, have := goldenReasoning(t, scenario), cut(t, got)
	for i := range max(len(want), len(have)) {
		var w, h map[string]any
		if i < len(want) {
			w = want[i]
		}
		if i < len(have) {
			h = have[i]
		}
		if !reflect.DeepEqual(w, h) {
			wb, _ := json.Marshal(w)
			hb, _ := json.Marshal(h)
			t.Fatalf("%s: event %d differs from agno's\nagno: %s\nours: %s", scenario, i, wb, hb)
		}
	}
}

func streamAll(t *testing.T, seq func(func(run.Event, error) bool)) []run.Event {
	t.Helper()
	return collect(t, seq)
}

const question = "What is 6 times 7?"

func TestReasoningChainOfThoughtMatchesAgno(t *testing.T) {
	cot := modeltest.New(reasoningStep("Understand", "continue", 0.9), reasoningStep("Compute", "continue", 0.9), reasoningStep("Validate", "final_answer", 1.0))
	main := modeltest.New(whole("The answer is 42."))
	store := memstore.New()
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: main, Reasoning: true, ReasoningModel: cot, Store: store})
	evs := streamAll(t, a.RunStream(context.Background(), question, run.WithStreamEvents(true)))
	sameEvents(t, "cot_final_answer", evs)
	if cot.Calls() != 3 {
		t.Fatalf("reasoning model asked %d times, want 3", cot.Calls())
	}

	// The main model sees the reasoning between agno's framing messages.
	msgs := main.Requests()[0].Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role)+":"+firstLine(m.Content))
	}
	n := len(msgs)
	if n < 4 || msgs[n-3].Content != reasoning.WorkedThrough && !slices.ContainsFunc(msgs, func(m model.Message) bool { return m.Content == reasoning.WorkedThrough }) {
		t.Fatalf("main model's messages lack the reasoning framing: %v", roles)
	}
	if msgs[n-1].Content != reasoning.Summarize {
		t.Fatalf("last message before the answer = %q, want agno's summarize text", msgs[n-1].Content)
	}

	// The output keeps every step (nulls included when stored), the
	// reasoning messages, and the reasoning model's tokens apart.
	done := evs[len(evs)-1].(*run.RunCompleted)
	stored, err := store.GetRun(context.Background(), done.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var out run.Output
	if err := json.Unmarshal(stored.Data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.ReasoningSteps) != 3 || *out.ReasoningSteps[2].Title != "Validate" || len(out.ReasoningMessages) == 0 {
		t.Fatalf("stored reasoning: %d steps, %d messages", len(out.ReasoningSteps), len(out.ReasoningMessages))
	}
	for _, m := range out.Messages {
		if m.Content == reasoning.WorkedThrough || m.Content == reasoning.Summarize {
			t.Fatalf("framing message stored: %q", m.Content)
		}
	}
	if _, ok := out.Metrics.Details["reasoning_model"]; !ok {
		t.Fatalf("metrics details lack reasoning_model: %v", out.Metrics.Details)
	}
	b, err := json.Marshal(out.ReasoningSteps[:1])
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"title":"Understand","action":"I will understand","result":"I did understand","reasoning":"Because understand","next_action":"continue","confidence":0.9}]`; string(b) != want {
		t.Fatalf("stored step = %s, want %s", b, want)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func TestReasoningStopsAtMaxSteps(t *testing.T) {
	cot := modeltest.New(reasoningStep("Again", "continue", 0.9))
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: modeltest.New(whole("Done.")), Reasoning: true, ReasoningModel: cot, ReasoningMaxSteps: 3})
	sameEvents(t, "cot_max_steps", streamAll(t, a.RunStream(context.Background(), question, run.WithStreamEvents(true))))
	if cot.Calls() != 2 {
		t.Fatalf("reasoning model asked %d times with reasoning_max_steps 3, want 2 (agno asks max-1 times)", cot.Calls())
	}
}

func TestNativeReasoningStreamsThinking(t *testing.T) {
	native := modeltest.New(modeltest.Response{Content: "42", Reasoning: "6 times 7 is 42.", ReasoningTokens: []string{"6 times 7 ", "is 42."}})
	native.ModelID, native.ProviderName, native.NativeReasoning = "deepseek-reasoner", "DeepSeek", model.ReasoningThinking
	main := modeltest.New(whole("The answer is 42."))
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: main, ReasoningModel: native})
	sameEvents(t, "native_stream", streamAll(t, a.RunStream(context.Background(), question, run.WithStreamEvents(true))))
	// The thinking reaches the main model as agno's <thinking> message.
	msgs := main.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != model.RoleAssistant || last.Content != "<thinking>\n6 times 7 is 42.\n</thinking>" {
		t.Fatalf("main model's last message = %+v", last)
	}

	// Without stream_events the thinking is read from the answer.
	native2 := modeltest.New(modeltest.Response{Content: "42", Reasoning: "6 times 7 is 42."})
	native2.NativeReasoning = model.ReasoningThinking
	b := newAgent(t, agent.Config{Name: "Reasoner", Model: modeltest.New(text("42")), ReasoningModel: native2})
	out, err := b.Run(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	if out.ReasoningContent != "Result: <thinking>\n6 times 7 is 42.\n</thinking>\n\n" || len(out.ReasoningMessages) != 1 {
		t.Fatalf("reasoning_content = %q, %d messages", out.ReasoningContent, len(out.ReasoningMessages))
	}
}

// A model that reasons in its content (OpenAI's o-series, Groq's): the
// text between <think> tags is the thinking.
func TestNativeReasoningInContent(t *testing.T) {
	native := modeltest.New(text("<think>Multiply six by seven.</think>42"))
	native.NativeReasoning = model.ReasoningContent
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: modeltest.New(text("42")), ReasoningModel: native})
	out, err := a.Run(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	if out.ReasoningMessages[0].ReasoningContent != "Multiply six by seven." {
		t.Fatalf("thinking = %q", out.ReasoningMessages[0].ReasoningContent)
	}
}

func TestTeamReasoningMatchesAgno(t *testing.T) {
	cot := modeltest.New(reasoningStep("Plan", "final_answer", 0.9))
	member := newAgent(t, agent.Config{Name: "Member", Model: modeltest.New(text("member"))})
	tm, err := team.New(team.Config{Name: "Thinkers", Model: modeltest.New(whole("The team says 42.")), Members: []run.Executor{member}, Reasoning: true, ReasoningModel: cot})
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, "team_cot", streamAll(t, tm.RunStream(context.Background(), question, run.WithStreamEvents(true))))
}

func TestReasoningToolsEmitStepsLikeAgno(t *testing.T) {
	rt, err := reasoningtools.New(reasoningtools.Config{EnableThink: true, EnableAnalyze: true})
	if err != nil {
		t.Fatal(err)
	}
	main := modeltest.New(
		calls(model.ToolCall{ID: "c1", Type: "function", Function: model.FunctionCall{Name: "think", Arguments: `{"title": "Plan", "thought": "Multiply.", "action": "compute", "confidence": 0.8}`}}),
		calls(model.ToolCall{ID: "c2", Type: "function", Function: model.FunctionCall{Name: "analyze", Arguments: `{"title": "Check", "result": "42", "analysis": "Correct.", "next_action": "final_answer", "confidence": 0.95}`}}),
		whole("The answer is 42."),
	)
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: main, Tools: []tool.Provider{rt}})
	evs := streamAll(t, a.RunStream(context.Background(), question, run.WithStreamEvents(true)))
	sameEvents(t, "reasoning_tools", evs)
}

// A reasoning model that fails leaves the run to answer without
// reasoning, as agno's does; a bad step bound is refused at New.
func TestReasoningFailureAndBounds(t *testing.T) {
	broken := modeltest.New(modeltest.Response{Status: 500})
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: modeltest.New(text("42")), Reasoning: true, ReasoningModel: broken})
	out, err := a.Run(context.Background(), question)
	if err != nil || out.Status != run.StatusCompleted || out.ContentString() != "42" || len(out.ReasoningSteps) != 0 {
		t.Fatalf("run = %v %v %q %d steps", err, out.Status, out.ContentString(), len(out.ReasoningSteps))
	}
	if _, err := agent.New(agent.Config{Model: modeltest.New(), Reasoning: true, ReasoningMinSteps: 5, ReasoningMaxSteps: 2}); err == nil || !strings.Contains(err.Error(), "reasoning_min_steps") {
		t.Fatalf("min > max accepted: %v", err)
	}
}

// DeepSeek's reasoner through the OpenAI SDK against the fake
// Chat Completions server (reasoning_content deltas, as DeepSeek's API
// streams them: https://api-docs.deepseek.com/guides/reasoning_model):
// its thinking streams as ReasoningContentDelta events and reaches the
// main model.
func TestDeepSeekReasonerThroughTheSDK(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "42", Reasoning: "six sevens are 42"}}})
	defer srv.Close()
	reasoner, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "k", ID: "deepseek-reasoner", Compatible: true, Class: "DeepSeek", Provider: "DeepSeek"})
	if err != nil {
		t.Fatal(err)
	}
	if reasoner.Info().NativeReasoning != model.ReasoningThinking {
		t.Fatalf("deepseek-reasoner is %q", reasoner.Info().NativeReasoning)
	}
	main := modeltest.New(whole("The answer is 42."))
	a := newAgent(t, agent.Config{Name: "Reasoner", Model: main, ReasoningModel: reasoner})
	var deltas []string
	for _, e := range streamAll(t, a.RunStream(context.Background(), question, run.WithStreamEvents(true))) {
		if d, ok := e.(*run.ReasoningContentDelta); ok {
			deltas = append(deltas, d.ReasoningContent)
		}
	}
	if strings.Join(deltas, "") != "six sevens are 42" || len(deltas) < 2 {
		t.Fatalf("deltas %q", deltas)
	}
	msgs := main.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Content != "<thinking>\nsix sevens are 42\n</thinking>" {
		t.Fatalf("main model's last message %+v", last)
	}
}
