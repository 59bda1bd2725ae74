package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// Run describes an agent or team run for its span.
type Run struct {
	Team      bool // a team run (agno.team.id) rather than an agent's
	ID        string
	Name      string
	RunID     string
	SessionID string
	UserID    string
	Input     string
}

// StartRun starts the span of an agent or team run ("<Name>.run", AGENT).
// Runs started under the returned context (team members) nest under it.
func StartRun(ctx context.Context, r Run) (context.Context, Span) {
	ctx, sp, ok := start(ctx, func() string {
		if r.Team {
			return spanName(r.Name, "Team", "run")
		}
		return spanName(r.Name, "Agent", "run")
	})
	if !ok {
		return ctx, sp
	}
	parent := parentNode(ctx)
	var node string
	if r.Team {
		ctx, node = withNode(ctx, sp.s)
	} else {
		node = sp.s.SpanContext().SpanID().String()
	}
	kv := []attribute.KeyValue{
		attribute.String(KeySpanKind, KindAgent),
		attribute.String(KeyGraphNodeID, node),
		attribute.String(KeyInputValue, r.Input),
	}
	if r.Name != "" {
		kv = append(kv, attribute.String(KeyGraphNodeName, r.Name), attribute.String(KeyAgentName, r.Name))
	}
	if parent != "" {
		kv = append(kv, attribute.String(KeyGraphNodeParent, parent))
	}
	if r.Team {
		kv = append(kv, attribute.String(KeyTeamID, r.ID), attribute.String("agno.team", r.Name))
	} else {
		kv = append(kv, attribute.String(KeyAgentID, r.ID))
		if r.Name != "" {
			kv = append(kv, attribute.String("agno.agent", r.Name))
		}
	}
	kv = appendIDs(kv, r.RunID, r.SessionID, r.UserID)
	sp.s.SetAttributes(kv...)
	return ctx, sp
}

// SetTools records the tools an agent run offers (agno.tools).
func (s Span) SetTools(names []string) {
	if s.s != nil && len(names) > 0 {
		s.s.SetAttributes(attribute.StringSlice("agno.tools", names))
	}
}

func appendIDs(kv []attribute.KeyValue, runID, sessionID, userID string) []attribute.KeyValue {
	if runID != "" {
		kv = append(kv, attribute.String(KeyRunID, runID))
	}
	if sessionID != "" {
		kv = append(kv, attribute.String(KeySessionID, sessionID))
	}
	if userID != "" {
		kv = append(kv, attribute.String(KeyUserID, userID))
	}
	return kv
}

// SetIDs records the run, session and user ids known once the run ended.
func (s Span) SetIDs(runID, sessionID, userID string) {
	if s.s != nil {
		s.s.SetAttributes(appendIDs(nil, runID, sessionID, userID)...)
	}
}

// EndRun records a run's output (ids the engine filled in, content,
// status) and ends the span. A run that ended ERROR, or an error, is an
// ERROR span.
func (s Span) EndRun(out *run.Output, err error) {
	if s.s == nil {
		return
	}
	failure := ""
	if err != nil {
		failure = err.Error()
	}
	if out != nil {
		s.s.SetAttributes(appendIDs(nil, out.RunID, out.SessionID, out.UserID)...)
		content := jsonText(out.Content)
		if out.Status == run.StatusError {
			if failure == "" {
				failure = content
			}
			if failure == "" {
				failure = "run failed"
			}
		} else if content != "" {
			s.s.SetAttributes(attribute.String(KeyOutputValue, content), attribute.String(KeyOutputMimeType, mimeJSON))
		}
	}
	s.end(failure)
}

// StartModel starts the span of one model request ("<Model>.invoke" or
// "<Model>.invoke_stream", LLM) with the request's messages and tools.
func StartModel(ctx context.Context, info model.Info, req *model.Request) (context.Context, Span) {
	ctx, sp, ok := start(ctx, func() string {
		if req.Stream {
			return spanName(info.Name, "Model", "invoke_stream")
		}
		return spanName(info.Name, "Model", "invoke")
	})
	if !ok {
		return ctx, sp
	}
	kv := []attribute.KeyValue{
		attribute.String(KeySpanKind, KindLLM),
		attribute.String(KeyInputMimeType, mimeJSON),
		attribute.String(KeyInputValue, jsonText(map[string]any{"messages": req.Messages})),
		attribute.String(KeyModelName, info.ID),
		attribute.String(KeyProvider, info.Provider),
	}
	if sys := llmSystem(info.Provider); sys != "" {
		kv = append(kv, attribute.String(KeySystem, sys))
	}
	for i, m := range req.Messages {
		kv = appendMessage(kv, fmt.Sprintf("%s.%d.", KeyInputMessages, i), m.Role, m.Content, m.ToolCallID, m.ToolCalls)
	}
	for i, t := range req.Tools {
		kv = append(kv, attribute.String(fmt.Sprintf("%s.%d.tool.json_schema", KeyLLMTools, i), jsonText(t)))
	}
	sp.s.SetAttributes(kv...)
	return ctx, sp
}

func appendMessage(kv []attribute.KeyValue, prefix string, role model.Role, content, toolCallID string, calls []model.ToolCall) []attribute.KeyValue {
	kv = append(kv, attribute.String(prefix+"message.role", string(role)))
	if toolCallID != "" {
		kv = append(kv, attribute.String(prefix+"message.tool_call_id", toolCallID))
	}
	if content != "" {
		kv = append(kv, attribute.String(prefix+"message.content", content))
	}
	for j, tc := range calls {
		p := fmt.Sprintf("%smessage.tool_calls.%d.tool_call.", prefix, j)
		kv = append(kv, attribute.String(p+"id", tc.ID), attribute.String(p+"function.name", tc.Function.Name),
			attribute.String(p+"function.arguments", tc.Function.Arguments))
	}
	return kv
}

// llmSystem is OpenInference's llm.system for the providers it names.
func llmSystem(provider string) string {
	switch p := strings.ToLower(strings.TrimSpace(provider)); p {
	case "openai", "anthropic", "cohere", "vertexai":
		return p
	case "mistral":
		return "mistralai"
	}
	return ""
}

// EndModel records the response (output message, token usage) and ends
// the span.
func (s Span) EndModel(resp *model.Response, err error) {
	if s.s == nil {
		return
	}
	if err != nil {
		s.end(err.Error())
		return
	}
	if resp != nil {
		msg := map[string]any{"role": "assistant"}
		if resp.Content != "" {
			msg["content"] = resp.Content
		}
		if len(resp.ToolCalls) > 0 {
			msg["tool_calls"] = resp.ToolCalls
		}
		kv := appendMessage(nil, KeyOutputMessages+".0.", model.RoleAssistant, resp.Content, "", resp.ToolCalls)
		kv = append(kv, attribute.String(KeyOutputMimeType, mimeJSON),
			attribute.String(KeyOutputValue, jsonText([]any{msg})))
		u := resp.Usage
		for _, t := range []struct {
			key string
			n   int
		}{{KeyTokensPrompt, u.InputTokens}, {KeyTokensCompletion, u.OutputTokens}, {KeyTokensTotal, u.TotalTokens},
			{KeyTokensCacheRead, u.CacheReadTokens}, {KeyTokensCacheWrite, u.CacheWriteTokens}} {
			if t.n > 0 {
				kv = append(kv, attribute.Int(t.key, t.n))
			}
		}
		s.s.SetAttributes(kv...)
	}
	s.end("")
}

// StartTool starts the span of one tool call ("<tool name>", TOOL);
// arguments is the call's JSON arguments text.
func StartTool(ctx context.Context, name, description, arguments string) (context.Context, Span) {
	ctx, sp, ok := start(ctx, func() string { return name })
	if !ok {
		return ctx, sp
	}
	if arguments == "" {
		arguments = "{}"
	}
	kv := []attribute.KeyValue{
		attribute.String(KeySpanKind, KindTool),
		attribute.String(KeyInputMimeType, mimeJSON),
		attribute.String(KeyInputValue, arguments),
		attribute.String(KeyToolName, name),
		attribute.String(KeyToolParameters, arguments),
	}
	if description != "" {
		kv = append(kv, attribute.String(KeyToolDescription, description))
	}
	sp.s.SetAttributes(kv...)
	return ctx, sp
}

// EndTool records a tool's result, or its error as the output and an
// ERROR status, and ends the span.
func (s Span) EndTool(result string, err error) {
	if s.s == nil {
		return
	}
	out := result
	if err != nil {
		out = err.Error()
	}
	s.s.SetAttributes(attribute.String(KeyOutputValue, out), attribute.String(KeyOutputMimeType, mimeText))
	if err != nil {
		s.end(err.Error())
		return
	}
	s.end("")
}

// Workflow describes a workflow run for its span.
type Workflow struct {
	ID          string
	Name        string
	Description string
	// Steps lists the top-level steps and their kinds (Step, Steps, Loop,
	// Parallel, Condition, Router, Function, Workflow); asked only when
	// the span records.
	Steps     StepLister
	RunID     string
	SessionID string
	UserID    string
	Input     string
}

// StepLister names a workflow's top-level steps and their types.
type StepLister interface {
	Steps() (names, types []string)
}

// StartWorkflow starts the span of a workflow run ("<Name>.run", CHAIN).
func StartWorkflow(ctx context.Context, w Workflow) (context.Context, Span) {
	ctx, sp, ok := start(ctx, func() string { return spanName(w.Name, "Workflow", "run") })
	if !ok {
		return ctx, sp
	}
	ctx, node := withNode(ctx, sp.s)
	kv := []attribute.KeyValue{
		attribute.String(KeySpanKind, KindChain),
		attribute.String(KeyGraphNodeID, node),
		attribute.String(KeyInputValue, w.Input),
		attribute.String(KeyWorkflowID, w.ID),
	}
	if w.Name != "" {
		kv = append(kv, attribute.String(KeyGraphNodeName, w.Name))
	}
	if w.Description != "" {
		kv = append(kv, attribute.String(KeyWorkflowDesc, w.Description))
	}
	if w.Steps != nil {
		if names, types := w.Steps.Steps(); len(names) > 0 {
			kv = append(kv, attribute.Int(KeyWorkflowStepsN, len(names)), attribute.StringSlice(KeyWorkflowSteps, names),
				attribute.StringSlice(KeyWorkflowStepType, types))
		}
	}
	sp.s.SetAttributes(appendIDs(kv, w.RunID, w.SessionID, w.UserID)...)
	return ctx, sp
}

// Step describes one workflow step for its span.
type Step struct {
	Name string
	// Input is the step's input, rendered only when the span records.
	Input any
	// Executor is "agent" or "team" for a step that runs one, with its name.
	Executor     string
	ExecutorName string
}

// StartStep starts the span of a workflow step ("<Name>.execute", CHAIN),
// nested under the workflow's (or the enclosing step's) span.
func StartStep(ctx context.Context, st Step) (context.Context, Span) {
	ctx, sp, ok := start(ctx, func() string { return spanName(st.Name, "Step", "execute") })
	if !ok {
		return ctx, sp
	}
	parent := parentNode(ctx)
	ctx, node := withNode(ctx, sp.s)
	kv := []attribute.KeyValue{
		attribute.String(KeySpanKind, KindChain),
		attribute.String(KeyGraphNodeID, node),
		attribute.String(KeyInputValue, jsonText(st.Input)),
	}
	if st.Name != "" {
		kv = append(kv, attribute.String(KeyGraphNodeName, st.Name))
	}
	if parent != "" {
		kv = append(kv, attribute.String(KeyGraphNodeParent, parent))
	}
	switch st.Executor {
	case "agent":
		kv = append(kv, attribute.String(KeyStepType, "agent"), attribute.String(KeyStepAgentName, st.ExecutorName))
	case "team":
		kv = append(kv, attribute.String(KeyStepType, "team"), attribute.String(KeyStepTeamName, st.ExecutorName))
	}
	sp.s.SetAttributes(kv...)
	return ctx, sp
}

// EndChain records a workflow's or step's output and ends the span;
// failure non-empty is an ERROR span.
func (s Span) EndChain(output any, failure string) {
	if s.s == nil {
		return
	}
	if text := jsonText(output); text != "" && failure == "" {
		s.s.SetAttributes(attribute.String(KeyOutputValue, text), attribute.String(KeyOutputMimeType, mimeText))
	}
	s.end(failure)
}

// RequestInput is a run's input as agno's span shows it: the message, or
// the contents of the messages given instead.
func RequestInput(req *run.Request) string {
	if len(req.Messages) == 0 {
		return req.Input
	}
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// ContinueInput is the input of the paused run a continuation resumes.
func ContinueInput(req *run.ContinueRequest) string {
	if req.Output == nil || req.Output.Input == nil {
		return ""
	}
	return jsonText(req.Output.Input.Content)
}
