package run

import (
	"encoding/json"
	"fmt"
)

// Event is one event of a run stream. The set is closed: every concrete
// type is declared in this package. Kind is agno's event name ("RunContent",
// "TeamToolCallStarted", "StepPaused", …), also found in the JSON "event"
// field.
type Event interface {
	Kind() string
	Base() *EventBase
}

// EventBase holds the fields every event carries. Agent events fill AgentID
// and AgentName; team events TeamID and TeamName — and that choice alone
// decides whether an event is, say, "RunContent" or "TeamRunContent".
// Workflow tags are added when the event travels through a workflow.
type EventBase struct {
	CreatedAt   int64  `json:"created_at"`
	Event       string `json:"event"`
	AgentID     string `json:"agent_id,omitempty"`
	AgentName   string `json:"agent_name,omitempty"`
	TeamID      string `json:"team_id,omitempty"`
	TeamName    string `json:"team_name,omitempty"`
	RunID       string `json:"run_id,omitempty"`
	ParentRunID string `json:"parent_run_id,omitempty"`
	SessionID   string `json:"session_id,omitempty"`

	WorkflowID    string `json:"workflow_id,omitempty"`
	WorkflowName  string `json:"workflow_name,omitempty"`
	WorkflowRunID string `json:"workflow_run_id,omitempty"`
	StepID        string `json:"step_id,omitempty"`
	StepName      string `json:"step_name,omitempty"`
	StepIndex     *int   `json:"step_index,omitempty"`
	ParentStepID  string `json:"parent_step_id,omitempty"`
	NestedDepth   int    `json:"nested_depth"`

	// EventIndex is set on events of background and resumable streams.
	EventIndex *int `json:"event_index,omitempty"`
}

// Base returns the base itself, so every event embedding it is an Event
// once it adds Kind.
func (b *EventBase) Base() *EventBase { return b }

func (b *EventBase) kind(name string) string {
	if b.TeamID != "" {
		return "Team" + name
	}
	return name
}

// Stamp sets the event name and creation time before an event is emitted.
func Stamp(e Event) Event {
	b := e.Base()
	b.Event = e.Kind()
	if b.CreatedAt == 0 {
		b.CreatedAt = Now()
	}
	return e
}

// RunStarted opens a run.
type RunStarted struct {
	EventBase
	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"model_provider,omitempty"`
}

// RunContent is a content delta (or the whole parsed structured output).
// It is the most frequent event, so rarely used fields sit behind one
// pointer (the JSON is the same).
type RunContent struct {
	EventBase
	Content          any    `json:"content,omitempty"`
	ContentType      string `json:"content_type,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	*ContentExtras
	// WorkflowAgent marks content of a workflow agent's answer. agno's
	// agent content events always carry it, its team ones never: set it
	// with ContentFlag. The values it points to are shared: never write
	// through it.
	WorkflowAgent *bool `json:"workflow_agent,omitempty"`
}

var flagFalse, flagTrue = false, true

// ContentFlag is RunContent.WorkflowAgent for content on b: absent in a
// team's events, else whether a workflow agent answers.
func ContentFlag(b *EventBase, workflowAgent bool) *bool {
	switch {
	case b.TeamID != "":
		return nil
	case workflowAgent:
		return &flagTrue
	}
	return &flagFalse
}

// ContentExtras are the less common RunContent fields.
type ContentExtras struct {
	Citations  json.RawMessage `json:"citations,omitempty"`
	Image      any             `json:"image,omitempty"`
	References json.RawMessage `json:"references,omitempty"`
	// ModelProvider is the provider's own data on the delta
	// (model_provider_data).
	ModelProvider json.RawMessage `json:"model_provider_data,omitempty"`
}

// RunIntermediateContent is main-model content when an output model writes
// the final answer.
type RunIntermediateContent struct {
	EventBase
	Content     any    `json:"content,omitempty"`
	ContentType string `json:"content_type,omitempty"`
}

// RunContentCompleted marks the end of content streaming.
type RunContentCompleted struct{ EventBase }

// RunCompleted closes a successful run.
type RunCompleted struct {
	EventBase
	Content          any            `json:"content,omitempty"`
	ContentType      string         `json:"content_type,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	Images           []any          `json:"images,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Metrics          *Metrics       `json:"metrics,omitempty"`
	SessionState     map[string]any `json:"session_state"`
	// References are agno's MessageReferences the run retrieved from its
	// knowledge base.
	References json.RawMessage `json:"references,omitempty"`
	// MemberResponses is filled on team completions when member responses
	// are stored.
	MemberResponses []*Output `json:"member_responses,omitempty"`
}

// MarshalJSON sends session_state {} for a run without state, as agno's
// RunCompletedEvent carries the run context's (always a dict) state.
func (e RunCompleted) MarshalJSON() ([]byte, error) {
	type plain RunCompleted
	p := plain(e)
	if p.SessionState == nil {
		p.SessionState = map[string]any{}
	}
	return EncodeJSON(p)
}

// RunError reports a failed run.
type RunError struct {
	EventBase
	Content        string         `json:"content,omitempty"`
	ErrorType      string         `json:"error_type,omitempty"`
	ErrorID        string         `json:"error_id,omitempty"`
	AdditionalData map[string]any `json:"additional_data,omitempty"`
}

// RunCancelled reports a cancelled run.
type RunCancelled struct {
	EventBase
	Reason string `json:"reason,omitempty"`
}

// RunPaused reports a run waiting for a human or an outside result.
type RunPaused struct {
	EventBase
	Tools        []*ToolExecution `json:"tools,omitempty"`
	Requirements []*Requirement   `json:"requirements,omitempty"`
}

// RunContinued opens a continued run.
type RunContinued struct{ EventBase }

// ReasoningStarted opens an agent's or team's reasoning.
type ReasoningStarted struct{ EventBase }

// ReasoningStep is one reasoning step: Content is a reasoning.Step
// (content_type "ReasoningStep"), ReasoningContent the steps so far as
// text.
type ReasoningStep struct {
	EventBase
	Content          any    `json:"content,omitempty"`
	ContentType      string `json:"content_type"`
	ReasoningContent string `json:"reasoning_content"`
}

// ReasoningContentDelta is a piece of a native reasoning model's thinking
// as it streams.
type ReasoningContentDelta struct {
	EventBase
	ReasoningContent string `json:"reasoning_content"`
}

// ReasoningCompleted closes reasoning: Content is a reasoning.Completed
// (content_type "ReasoningSteps").
type ReasoningCompleted struct {
	EventBase
	Content     any    `json:"content,omitempty"`
	ContentType string `json:"content_type"`
}

// PreHookStarted / PreHookCompleted bracket a pre-hook.
type PreHookStarted struct {
	EventBase
	PreHookName string `json:"pre_hook_name,omitempty"`
	RunInput    any    `json:"run_input,omitempty"`
}

// PreHookCompleted ends a pre-hook.
type PreHookCompleted struct {
	EventBase
	PreHookName string `json:"pre_hook_name,omitempty"`
	RunInput    any    `json:"run_input,omitempty"`
}

// PostHookStarted opens a post-hook.
type PostHookStarted struct {
	EventBase
	PostHookName string `json:"post_hook_name,omitempty"`
}

// PostHookCompleted ends a post-hook.
type PostHookCompleted struct {
	EventBase
	PostHookName string `json:"post_hook_name,omitempty"`
}

// ToolCallStarted opens a tool call.
type ToolCallStarted struct {
	EventBase
	Tool *ToolExecution `json:"tool,omitempty"`
}

// ToolCallCompleted ends a tool call; Content is its result.
type ToolCallCompleted struct {
	EventBase
	Tool    *ToolExecution `json:"tool,omitempty"`
	Content any            `json:"content,omitempty"`
	Images  []any          `json:"images,omitempty"`
}

// ToolCallError follows ToolCallCompleted when the call failed.
type ToolCallError struct {
	EventBase
	Tool  *ToolExecution `json:"tool,omitempty"`
	Error string         `json:"error,omitempty"`
}

// ModelRequestStarted opens one model request.
type ModelRequestStarted struct {
	EventBase
	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"model_provider,omitempty"`
}

// ModelRequestCompleted ends one model request with its usage.
type ModelRequestCompleted struct {
	EventBase
	Model            string   `json:"model,omitempty"`
	ModelProvider    string   `json:"model_provider,omitempty"`
	InputTokens      int      `json:"input_tokens"`
	OutputTokens     int      `json:"output_tokens"`
	TotalTokens      int      `json:"total_tokens"`
	TimeToFirstToken *float64 `json:"time_to_first_token,omitempty"`
	ReasoningTokens  int      `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int      `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int      `json:"cache_write_tokens,omitempty"`
}

// MemoryUpdateStarted / MemoryUpdateCompleted bracket memory extraction.
type MemoryUpdateStarted struct{ EventBase }

// MemoryUpdateCompleted ends memory extraction.
type MemoryUpdateCompleted struct {
	EventBase
	Memories any `json:"memories,omitempty"`
}

// SessionSummaryStarted opens a session summary.
type SessionSummaryStarted struct{ EventBase }

// SessionSummaryCompleted ends a session summary.
type SessionSummaryCompleted struct {
	EventBase
	SessionSummary any `json:"session_summary,omitempty"`
}

// ParserModelResponseStarted / Completed bracket a parser-model call.
type ParserModelResponseStarted struct{ EventBase }

// ParserModelResponseCompleted ends a parser-model call.
type ParserModelResponseCompleted struct{ EventBase }

// OutputModelResponseStarted / Completed bracket an output-model call.
type OutputModelResponseStarted struct{ EventBase }

// OutputModelResponseCompleted ends an output-model call.
type OutputModelResponseCompleted struct{ EventBase }

// CustomEvent carries user fields emitted by a tool.
type CustomEvent struct {
	EventBase
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Data are the user's fields, flattened into the event's JSON.
	Data map[string]any `json:"-"`
}

// MarshalJSON flattens Data next to the base fields, as agno's custom
// events serialise their own attributes.
func (e *CustomEvent) MarshalJSON() ([]byte, error) {
	type plain CustomEvent
	b, err := json.Marshal((*plain)(e))
	if err != nil || len(e.Data) == 0 {
		return b, err
	}
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		return nil, err
	}
	for k, v := range e.Data {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON keeps unknown fields in Data.
func (e *CustomEvent) UnmarshalJSON(b []byte) error {
	type plain CustomEvent
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		return err
	}
	known, _ := json.Marshal((*plain)(e))
	var km map[string]any
	_ = json.Unmarshal(known, &km)
	for k := range km {
		delete(m, k)
	}
	if len(m) > 0 {
		e.Data = m
	}
	return nil
}

// Kind is "RunStarted", or "TeamRunStarted" in a team run.
func (e *RunStarted) Kind() string { return e.kind("RunStarted") }

// Kind is "RunContent", or "TeamRunContent" in a team run.
func (e *RunContent) Kind() string { return e.kind("RunContent") }

// Kind is "RunIntermediateContent", or "TeamRunIntermediateContent" in a team run.
func (e *RunIntermediateContent) Kind() string { return e.kind("RunIntermediateContent") }

// Kind is "RunContentCompleted", or "TeamRunContentCompleted" in a team run.
func (e *RunContentCompleted) Kind() string { return e.kind("RunContentCompleted") }

// Kind is "RunCompleted", or "TeamRunCompleted" in a team run.
func (e *RunCompleted) Kind() string { return e.kind("RunCompleted") }

// Kind is "RunError", or "TeamRunError" in a team run.
func (e *RunError) Kind() string { return e.kind("RunError") }

// Kind is "RunCancelled", or "TeamRunCancelled" in a team run.
func (e *RunCancelled) Kind() string { return e.kind("RunCancelled") }

// Kind is "RunPaused", or "TeamRunPaused" in a team run.
func (e *RunPaused) Kind() string { return e.kind("RunPaused") }

// Kind is "RunContinued", or "TeamRunContinued" in a team run.
func (e *RunContinued) Kind() string { return e.kind("RunContinued") }

// Kind is "ReasoningStarted", or "TeamReasoningStarted" in a team run.
func (e *ReasoningStarted) Kind() string { return e.kind("ReasoningStarted") }

// Kind is "ReasoningStep", or "TeamReasoningStep" in a team run.
func (e *ReasoningStep) Kind() string { return e.kind("ReasoningStep") }

// Kind is "ReasoningContentDelta", or "TeamReasoningContentDelta" in a team run.
func (e *ReasoningContentDelta) Kind() string { return e.kind("ReasoningContentDelta") }

// Kind is "ReasoningCompleted", or "TeamReasoningCompleted" in a team run.
func (e *ReasoningCompleted) Kind() string { return e.kind("ReasoningCompleted") }

// Kind is "PreHookStarted", or "TeamPreHookStarted" in a team run.
func (e *PreHookStarted) Kind() string { return e.kind("PreHookStarted") }

// Kind is "PreHookCompleted", or "TeamPreHookCompleted" in a team run.
func (e *PreHookCompleted) Kind() string { return e.kind("PreHookCompleted") }

// Kind is "PostHookStarted", or "TeamPostHookStarted" in a team run.
func (e *PostHookStarted) Kind() string { return e.kind("PostHookStarted") }

// Kind is "PostHookCompleted", or "TeamPostHookCompleted" in a team run.
func (e *PostHookCompleted) Kind() string { return e.kind("PostHookCompleted") }

// Kind is "ToolCallStarted", or "TeamToolCallStarted" in a team run.
func (e *ToolCallStarted) Kind() string { return e.kind("ToolCallStarted") }

// Kind is "ToolCallCompleted", or "TeamToolCallCompleted" in a team run.
func (e *ToolCallCompleted) Kind() string { return e.kind("ToolCallCompleted") }

// Kind is "ToolCallError", or "TeamToolCallError" in a team run.
func (e *ToolCallError) Kind() string { return e.kind("ToolCallError") }

// Kind is "ModelRequestStarted", or "TeamModelRequestStarted" in a team run.
func (e *ModelRequestStarted) Kind() string { return e.kind("ModelRequestStarted") }

// Kind is "ModelRequestCompleted", or "TeamModelRequestCompleted" in a team run.
func (e *ModelRequestCompleted) Kind() string { return e.kind("ModelRequestCompleted") }

// Kind is "MemoryUpdateStarted", or "TeamMemoryUpdateStarted" in a team run.
func (e *MemoryUpdateStarted) Kind() string { return e.kind("MemoryUpdateStarted") }

// Kind is "MemoryUpdateCompleted", or "TeamMemoryUpdateCompleted" in a team run.
func (e *MemoryUpdateCompleted) Kind() string { return e.kind("MemoryUpdateCompleted") }

// Kind is "SessionSummaryStarted", or "TeamSessionSummaryStarted" in a team run.
func (e *SessionSummaryStarted) Kind() string { return e.kind("SessionSummaryStarted") }

// Kind is "SessionSummaryCompleted", or "TeamSessionSummaryCompleted" in a team run.
func (e *SessionSummaryCompleted) Kind() string { return e.kind("SessionSummaryCompleted") }

// Kind is "ParserModelResponseStarted", or "TeamParserModelResponseStarted" in a team run.
func (e *ParserModelResponseStarted) Kind() string { return e.kind("ParserModelResponseStarted") }

// Kind is "ParserModelResponseCompleted", or "TeamParserModelResponseCompleted" in a team run.
func (e *ParserModelResponseCompleted) Kind() string { return e.kind("ParserModelResponseCompleted") }

// Kind is "OutputModelResponseStarted", or "TeamOutputModelResponseStarted" in a team run.
func (e *OutputModelResponseStarted) Kind() string { return e.kind("OutputModelResponseStarted") }

// Kind is "OutputModelResponseCompleted", or "TeamOutputModelResponseCompleted" in a team run.
func (e *OutputModelResponseCompleted) Kind() string { return e.kind("OutputModelResponseCompleted") }

// Kind is "CustomEvent".
func (e *CustomEvent) Kind() string { return "CustomEvent" }

// eventTypes maps an agent event name to a constructor; the team name is
// the same constructor with "Team" in front.
var eventTypes = byKind(
	newEvent[RunStarted], newEvent[RunContent], newEvent[RunIntermediateContent],
	newEvent[RunContentCompleted], newEvent[RunCompleted], newEvent[RunError],
	newEvent[RunCancelled], newEvent[RunPaused], newEvent[RunContinued],
	newEvent[PreHookStarted], newEvent[PreHookCompleted], newEvent[PostHookStarted],
	newEvent[PostHookCompleted], newEvent[ToolCallStarted], newEvent[ToolCallCompleted],
	newEvent[ToolCallError], newEvent[ModelRequestStarted], newEvent[ModelRequestCompleted],
	newEvent[MemoryUpdateStarted], newEvent[MemoryUpdateCompleted], newEvent[SessionSummaryStarted],
	newEvent[SessionSummaryCompleted], newEvent[ParserModelResponseStarted], newEvent[ParserModelResponseCompleted],
	newEvent[OutputModelResponseStarted], newEvent[OutputModelResponseCompleted],
	newEvent[ReasoningStarted], newEvent[ReasoningStep], newEvent[ReasoningContentDelta], newEvent[ReasoningCompleted],
)

// otherEventTypes holds the names that take no "Team" prefix: custom
// events, team task events and workflow events.
var otherEventTypes = byKind(
	newEvent[CustomEvent],
	newEvent[TeamTaskIterationStarted], newEvent[TeamTaskIterationCompleted], newEvent[TeamTaskStateUpdated],
	newEvent[TeamTaskCreated], newEvent[TeamTaskUpdated],
	newEvent[WorkflowStarted], newEvent[WorkflowCompleted], newEvent[WorkflowPaused],
	newEvent[WorkflowCancelled], newEvent[WorkflowError], newEvent[WorkflowAgentStarted],
	newEvent[WorkflowAgentCompleted], newEvent[StepStarted], newEvent[StepCompleted],
	newEvent[StepPaused], newEvent[StepContinued], newEvent[StepExecutorPaused],
	newEvent[StepExecutorContinued], newEvent[StepOutputReview], newEvent[StepError],
	newEvent[LoopExecutionStarted], newEvent[LoopIterationStarted], newEvent[LoopIterationCompleted],
	newEvent[LoopExecutionCompleted], newEvent[ParallelExecutionStarted], newEvent[ParallelExecutionCompleted],
	newEvent[ConditionExecutionStarted], newEvent[ConditionExecutionCompleted], newEvent[RouterExecutionStarted],
	newEvent[RouterExecutionCompleted], newEvent[RouterPaused], newEvent[StepsExecutionStarted],
	newEvent[StepsExecutionCompleted], newEvent[StepOutputEvent],
)

// newEvent makes a zero event of type T.
func newEvent[T any, P interface {
	*T
	Event
}]() Event {
	return P(new(T))
}

// byKind keys constructors by the Kind of the event they make, so each
// name is written once, in its Kind method.
func byKind(ctors ...func() Event) map[string]func() Event {
	m := make(map[string]func() Event, len(ctors))
	for _, c := range ctors {
		m[c().Kind()] = c
	}
	return m
}

// DecodeEvent parses one event from its JSON form, choosing the concrete
// type by the "event" field.
func DecodeEvent(b []byte) (Event, error) {
	var head struct {
		Event string `json:"event"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("run: decode event: %w", err)
	}
	ctor := otherEventTypes[head.Event]
	if ctor == nil {
		ctor = eventTypes[head.Event]
	}
	if ctor == nil && len(head.Event) > 4 && head.Event[:4] == "Team" {
		ctor = eventTypes[head.Event[4:]]
	}
	if ctor == nil {
		return nil, fmt.Errorf("run: unknown event %q", head.Event)
	}
	e := ctor()
	if err := decodeJSON(b, e); err != nil {
		return nil, fmt.Errorf("run: decode %s: %w", head.Event, err)
	}
	return e, nil
}
