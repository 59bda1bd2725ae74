package tracing_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tracing"
	"github.com/agno-go/agno/workflow"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// record installs an in-memory provider for the test.
func record(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	restore := tracing.SetProvider(tp)
	t.Cleanup(func() {
		restore()
		_ = tp.Shutdown(context.Background())
	})
	return exp
}

func attrs(s tracetest.SpanStub) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func byName(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q in %v", name, names)
	return tracetest.SpanStub{}
}

func TestAgentRunSpans(t *testing.T) {
	exp := record(t)
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add", `{"a":2,"b":3}`)}, Usage: &model.Usage{InputTokens: 11, OutputTokens: 4, TotalTokens: 15}},
		modeltest.Response{Content: "5", Usage: &model.Usage{InputTokens: 20, OutputTokens: 1, TotalTokens: 21}},
	)
	fake.ModelID, fake.ProviderName = "gpt-test", "OpenAI"
	add := tool.Must(tool.New("add", "adds two numbers", func(_ context.Context, a struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return a.A + a.B, nil
	}))
	fail := tool.Must(tool.New("fail", "fails", func(context.Context, struct{}) (string, error) { return "", errors.New("boom") }))
	a, err := agent.New(agent.Config{ID: "calc", Name: "Calc Agent", Model: fake, Tools: []tool.Provider{add, fail}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "2+3?", run.WithSessionID("s1"), run.WithUserID("u1"))
	if err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want run, 2 model calls and a tool call", len(spans))
	}
	runSpan := byName(t, spans, "Calc_Agent.run")
	ra := attrs(runSpan)
	if ra[tracing.KeySpanKind].AsString() != "AGENT" || ra[tracing.KeyAgentID].AsString() != "calc" ||
		ra[tracing.KeyRunID].AsString() != out.RunID || ra[tracing.KeySessionID].AsString() != "s1" ||
		ra[tracing.KeyUserID].AsString() != "u1" || ra[tracing.KeyInputValue].AsString() != "2+3?" ||
		ra[tracing.KeyOutputValue].AsString() != "5" || !slices.Equal(ra["agno.tools"].AsStringSlice(), []string{"add", "fail"}) {
		t.Errorf("run span attributes = %v", ra)
	}
	if runSpan.Status.Code != codes.Ok || runSpan.Parent.IsValid() {
		t.Errorf("run span status %v parent %v", runSpan.Status, runSpan.Parent)
	}
	var llms int
	for _, s := range spans {
		if s.Name == "Fake.invoke" {
			llms++
			la := attrs(s)
			if s.Parent.SpanID() != runSpan.SpanContext.SpanID() || la[tracing.KeySpanKind].AsString() != "LLM" ||
				la[tracing.KeyModelName].AsString() != "gpt-test" || la[tracing.KeyProvider].AsString() != "OpenAI" ||
				la[tracing.KeySystem].AsString() != "openai" || la[tracing.KeyTokensPrompt].AsInt64() == 0 ||
				la["llm.input_messages.0.message.role"].AsString() == "" {
				t.Errorf("model span %v", la)
			}
		}
	}
	if llms != 2 {
		t.Errorf("%d model spans, want 2", llms)
	}
	ts := byName(t, spans, "add")
	ta := attrs(ts)
	if ts.Parent.SpanID() != runSpan.SpanContext.SpanID() || ta[tracing.KeySpanKind].AsString() != "TOOL" ||
		ta[tracing.KeyToolName].AsString() != "add" || ta[tracing.KeyToolParameters].AsString() != `{"a":2,"b":3}` ||
		ta[tracing.KeyOutputValue].AsString() != "5" || ta[tracing.KeyToolDescription].AsString() != "adds two numbers" {
		t.Errorf("tool span %v", ta)
	}
}

func TestFailedToolAndRunAreErrors(t *testing.T) {
	exp := record(t)
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "fail", `{}`)}},
		modeltest.Response{Status: 500, ErrorMessage: "model down"},
	)
	fail := tool.Must(tool.New("fail", "fails", func(context.Context, struct{}) (string, error) { return "", errors.New("boom") }))
	a, err := agent.New(agent.Config{Name: "Breaker", Model: fake, Tools: []tool.Provider{fail}})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = a.Run(context.Background(), "go")
	spans := exp.GetSpans()
	ts := byName(t, spans, "fail")
	if ts.Status.Code != codes.Error || ts.Status.Description != "boom" || attrs(ts)[tracing.KeyOutputValue].AsString() != "boom" {
		t.Errorf("failed tool span %v %v", ts.Status, attrs(ts))
	}
	rs := byName(t, spans, "Breaker.run")
	if rs.Status.Code != codes.Error || rs.Status.Description == "" {
		t.Errorf("failed run span status %v", rs.Status)
	}
}

func TestWorkflowStepSpans(t *testing.T) {
	exp := record(t)
	fake := modeltest.New(modeltest.Response{Content: "drafted"})
	writer, err := agent.New(agent.Config{ID: "writer", Name: "Writer", Model: fake})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{ID: "pipeline", Name: "Content Pipeline", Description: "writes",
		Steps: []workflow.Node{&workflow.Step{Name: "draft", Agent: writer}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := wf.Run(context.Background(), "topic")
	if err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	root := byName(t, spans, "Content_Pipeline.run")
	wa := attrs(root)
	if wa[tracing.KeySpanKind].AsString() != "CHAIN" || wa[tracing.KeyWorkflowID].AsString() != "pipeline" ||
		wa[tracing.KeyRunID].AsString() != out.RunID || !slices.Equal(wa[tracing.KeyWorkflowSteps].AsStringSlice(), []string{"draft"}) ||
		!slices.Equal(wa[tracing.KeyWorkflowStepType].AsStringSlice(), []string{"Step"}) || wa[tracing.KeyOutputValue].AsString() != "drafted" {
		t.Errorf("workflow span %v", wa)
	}
	step := byName(t, spans, "draft.execute")
	if step.Parent.SpanID() != root.SpanContext.SpanID() || attrs(step)[tracing.KeyStepType].AsString() != "agent" ||
		attrs(step)[tracing.KeyGraphNodeParent].AsString() != root.SpanContext.SpanID().String() {
		t.Errorf("step span parent %v attrs %v", step.Parent, attrs(step))
	}
	agentRun := byName(t, spans, "Writer.run")
	if agentRun.Parent.SpanID() != step.SpanContext.SpanID() {
		t.Errorf("agent run of the step is not under the step span")
	}
	if llm := byName(t, spans, "Fake.invoke"); llm.Parent.SpanID() != agentRun.SpanContext.SpanID() {
		t.Errorf("model call is not under the agent run")
	}
}

func TestNoProviderNoSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	restore := tracing.SetProvider(tp)
	restore()
	ctx, span := tracing.StartTool(context.Background(), "t", "", "{}")
	if span.Recording() || ctx != context.Background() {
		t.Error("a span started with no provider installed")
	}
	span.EndTool("x", nil)
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans recorded after the provider was restored", n)
	}
}

// BenchmarkSpanNoProvider is the cost of a span site when no provider is
// installed: what every run, model call and tool call pays with tracing off.
func BenchmarkSpanNoProvider(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, span := tracing.StartTool(ctx, "lookup", "", `{"q":1}`)
		span.EndTool("ok", nil)
	}
}
