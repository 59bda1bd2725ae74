// Package tracing emits OpenTelemetry spans of runs, model calls, tool
// calls and workflow steps with the names and attributes agno's
// instrumentation (openinference-instrumentation-agno) gives them, so
// that agno's trace views and any OpenInference tool read them as agno's.
//
// It uses the OpenTelemetry API only. Spans go to the provider given to
// SetProvider, else to the otel global provider; with neither installed
// nothing is started and a span costs an atomic load.
package tracing

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of agno's spans.
const TracerName = "github.com/agno-go/agno"

// Attribute keys (OpenInference semantic conventions and agno's own).
const (
	KeySpanKind         = "openinference.span.kind"
	KeyInputValue       = "input.value"
	KeyInputMimeType    = "input.mime_type"
	KeyOutputValue      = "output.value"
	KeyOutputMimeType   = "output.mime_type"
	KeySessionID        = "session.id"
	KeyUserID           = "user.id"
	KeyAgentName        = "agent.name"
	KeyGraphNodeID      = "graph.node.id"
	KeyGraphNodeName    = "graph.node.name"
	KeyGraphNodeParent  = "graph.node.parent_id"
	KeyRunID            = "agno.run.id"
	KeyAgentID          = "agno.agent.id"
	KeyTeamID           = "agno.team.id"
	KeyWorkflowID       = "agno.workflow.id"
	KeyWorkflowDesc     = "agno.workflow.description"
	KeyWorkflowSteps    = "agno.workflow.steps"
	KeyWorkflowStepsN   = "agno.workflow.steps_count"
	KeyWorkflowStepType = "agno.workflow.step_types"
	KeyStepType         = "agno.step.type"
	KeyStepAgentName    = "agno.step.agent_name"
	KeyStepTeamName     = "agno.step.team_name"
	KeyModelName        = "llm.model_name"
	KeyProvider         = "llm.provider"
	KeySystem           = "llm.system"
	KeyInputMessages    = "llm.input_messages"
	KeyOutputMessages   = "llm.output_messages"
	KeyLLMTools         = "llm.tools"
	KeyTokensPrompt     = "llm.token_count.prompt"
	KeyTokensCompletion = "llm.token_count.completion"
	KeyTokensTotal      = "llm.token_count.total"
	KeyTokensCacheRead  = "llm.token_count.prompt_details.cache_read"
	KeyTokensCacheWrite = "llm.token_count.prompt_details.cache_write"
	KeyToolName         = "tool.name"
	KeyToolDescription  = "tool.description"
	KeyToolParameters   = "tool.parameters"
	KeyExceptionMessage = "exception.message"
)

// Span kinds (openinference.span.kind). Agents and teams are AGENT (a
// team span carries agno.team.id); workflows and their steps are CHAIN.
const (
	KindAgent = "AGENT"
	KindLLM   = "LLM"
	KindTool  = "TOOL"
	KindChain = "CHAIN"
)

const (
	mimeJSON = "application/json"
	mimeText = "text/plain"
)

type providerBox struct {
	tp     trace.TracerProvider
	tracer trace.Tracer
}

var (
	installed atomic.Pointer[providerBox]
	// global follows otel.SetTracerProvider (the delegating tracer).
	global = otel.Tracer(TracerName)
	// unset is otel's global provider before anyone sets one: while it is
	// still in place no span is started at all.
	unset = otel.GetTracerProvider()
)

// SetProvider sends agno's spans to tp (nil: back to the otel global
// provider) and returns a function restoring the previous one. AgentOS
// uses it so that runs it serves reach its exporters without taking over
// the process-wide otel provider.
func SetProvider(tp trace.TracerProvider) (restore func()) {
	var box *providerBox
	if tp != nil {
		box = &providerBox{tp: tp, tracer: tp.Tracer(TracerName)}
	}
	prev := installed.Swap(box)
	return func() { installed.CompareAndSwap(box, prev) }
}

// tracer is the tracer in use; nil when no provider is installed.
func tracer() trace.Tracer {
	if b := installed.Load(); b != nil {
		return b.tracer
	}
	if otel.GetTracerProvider() == unset {
		return nil
	}
	return global
}

// Span is one started span; the zero Span does nothing. Its End methods
// record the outcome and end it.
type Span struct{ s trace.Span }

// start begins a span under a constant name (no allocation when nothing
// records) and reports whether it records; a recording span is renamed.
func start(ctx context.Context, name func() string) (context.Context, Span, bool) {
	t := tracer()
	if t == nil {
		return ctx, Span{}, false
	}
	sctx, s := t.Start(ctx, "agno")
	if !s.IsRecording() {
		return ctx, Span{}, false
	}
	s.SetName(name())
	return sctx, Span{s: s}, true
}

// Recording reports whether the span records attributes.
func (s Span) Recording() bool { return s.s != nil }

// SetAttributes adds attributes to a recording span.
func (s Span) SetAttributes(kv ...attribute.KeyValue) {
	if s.s != nil {
		s.s.SetAttributes(kv...)
	}
}

// end records status and ends the span. A non-empty failure is ERROR
// with that message, else OK.
func (s Span) end(failure string) {
	if s.s == nil {
		return
	}
	if failure != "" {
		s.s.SetStatus(codes.Error, failure)
		s.s.SetAttributes(attribute.String(KeyExceptionMessage, failure))
	} else {
		s.s.SetStatus(codes.Ok, "")
	}
	s.s.End()
}

// spanName is agno's "<Name>.<suffix>": spaces and dashes become "_",
// an empty name is fallback.
func spanName(name, fallback, suffix string) string {
	if name == "" {
		name = fallback
	}
	return strings.NewReplacer(" ", "_", "-", "_").Replace(name) + "." + suffix
}

// jsonText is v as JSON text (a string stays as it is).
func jsonText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.RawMessage:
		return string(t)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as Python's json.dumps: "<" stays "<"
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

type nodeKey struct{}

// parentNode is the graph node id of the enclosing team or workflow.
func parentNode(ctx context.Context) string {
	id, _ := ctx.Value(nodeKey{}).(string)
	return id
}

func withNode(ctx context.Context, s trace.Span) (context.Context, string) {
	id := s.SpanContext().SpanID().String()
	return context.WithValue(ctx, nodeKey{}, id), id
}
