package a2a

import (
	"encoding/json"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// Frame is one streamed JSON-RPC result; Name is the SSE event name
// (TaskStatusUpdateEvent, Message or Task).
type Frame struct {
	Name   string
	Result any
}

// SSE event names.
const (
	EventStatus  = "TaskStatusUpdateEvent"
	EventMessage = "Message"
	EventTask    = "Task"
)

// Stream turns one run's events into agno's A2A stream
// (stream_a2a_response): a working status when the run starts, a
// Message per content delta, working statuses carrying agno_event_type
// metadata for tool calls, reasoning, memory and workflow steps, then a
// final status and the final Task.
type Stream struct {
	TaskID, ContextID string
	messageID         string
	acc               strings.Builder
}

// NewStream starts the stream of run taskID in session contextID.
func NewStream(taskID, contextID string) *Stream {
	return &Stream{TaskID: taskID, ContextID: contextID, messageID: newID()}
}

func (s *Stream) status(state TaskState, final bool, meta map[string]any) Frame {
	return Frame{EventStatus, NewStatus(s.TaskID, s.ContextID, state, final, meta)}
}

func (s *Stream) message(id string, parts []Part, meta map[string]any) Frame {
	m := AgentMessage(id, s.ContextID, s.TaskID, parts, meta)
	return Frame{EventMessage, &m}
}

// stepEvents are the workflow events agno reports as working statuses,
// with the event fields it copies into the metadata.
var stepEvents = map[string]struct {
	typ    string
	fields []string
}{
	"StepStarted":                 {"workflow_step_started", nil},
	"StepCompleted":               {"workflow_step_completed", nil},
	"StepError":                   {"workflow_step_error", []string{"error"}},
	"LoopExecutionStarted":        {"loop_execution_started", []string{"max_iterations"}},
	"LoopIterationStarted":        {"loop_iteration_started", []string{"iteration", "max_iterations"}},
	"LoopIterationCompleted":      {"loop_iteration_completed", []string{"iteration", "should_continue"}},
	"LoopExecutionCompleted":      {"loop_execution_completed", []string{"total_iterations"}},
	"ParallelExecutionStarted":    {"parallel_execution_started", []string{"parallel_step_count"}},
	"ParallelExecutionCompleted":  {"parallel_execution_completed", []string{"parallel_step_count"}},
	"ConditionExecutionStarted":   {"condition_execution_started", []string{"condition_result"}},
	"ConditionExecutionCompleted": {"condition_execution_completed", []string{"condition_result", "executed_steps"}},
	"RouterExecutionStarted":      {"router_execution_started", []string{"selected_steps"}},
	"RouterExecutionCompleted":    {"router_execution_completed", []string{"selected_steps", "executed_steps"}},
	"StepsExecutionStarted":       {"steps_execution_started", []string{"steps_count"}},
	"StepsExecutionCompleted":     {"steps_execution_completed", []string{"steps_count", "executed_steps"}},
}

// simpleEvents are agent and team events reported as a working status.
var simpleEvents = map[string]string{
	"ReasoningStarted":      "reasoning_started",
	"ReasoningCompleted":    "reasoning_completed",
	"MemoryUpdateStarted":   "memory_update_started",
	"MemoryUpdateCompleted": "memory_update_completed",
}

func fieldsOf(e run.Event) map[string]any {
	b, err := run.EncodeJSON(e)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// Event maps one run event to its frames (none for events agno does not
// stream, and for the terminal ones: End reports those).
func (s *Stream) Event(e run.Event) []Frame {
	name := strings.TrimPrefix(e.Kind(), "Team")
	b := e.Base()
	switch name {
	case "RunStarted", "WorkflowStarted":
		if b.RunID != s.TaskID {
			return nil // a member's or step's run: the task is this run
		}
		return []Frame{s.status(StateWorking, false, nil)}
	case "RunContent":
		rc, ok := e.(*run.RunContent)
		if !ok {
			return nil
		}
		text, _ := rc.Content.(string)
		if text == "" {
			return nil
		}
		s.acc.WriteString(text)
		return []Frame{s.message(s.messageID, []Part{TextPart(text)}, map[string]any{"agno_content_category": "content"})}
	case "ToolCallStarted", "ToolCallCompleted":
		meta := map[string]any{"agno_event_type": "tool_call_started"}
		var tool *run.ToolExecution
		switch v := e.(type) {
		case *run.ToolCallStarted:
			tool = v.Tool
		case *run.ToolCallCompleted:
			tool, meta["agno_event_type"] = v.Tool, "tool_call_completed"
		}
		if tool != nil {
			meta["tool_name"] = tool.ToolName
			if meta["tool_name"] == "" {
				meta["tool_name"] = "tool"
			}
			if tool.ToolCallID != "" {
				meta["tool_call_id"] = tool.ToolCallID
			}
			if len(tool.ToolArgs) > 0 {
				if args, err := pyjson.Dumps(tool.ToolArgs); err == nil {
					meta["tool_args"] = args
				}
			}
		}
		return []Frame{s.status(StateWorking, false, meta)}
	case "ReasoningStep":
		f := fieldsOf(e)
		rc, _ := f["reasoning_content"].(string)
		if rc == "" {
			return nil
		}
		ct, _ := f["content_type"].(string)
		if ct == "" {
			ct = "str"
		}
		p := TextPart(rc)
		p.Metadata = map[string]any{"step_type": ct}
		return []Frame{s.message(newID(), []Part{p}, map[string]any{"agno_content_category": "reasoning", "agno_event_type": "reasoning_step"})}
	}
	if typ, ok := simpleEvents[name]; ok {
		return []Frame{s.status(StateWorking, false, map[string]any{"agno_event_type": typ})}
	}
	if se, ok := stepEvents[e.Kind()]; ok {
		meta := map[string]any{"agno_event_type": se.typ}
		f := fieldsOf(e)
		if b.StepName != "" {
			meta["step_name"] = b.StepName
		}
		for _, k := range se.fields {
			if v, ok := f[k]; ok && v != nil && v != "" {
				meta[k] = v
			}
		}
		return []Frame{s.status(StateWorking, false, meta)}
	}
	return nil
}

// Outcome is how the run ended.
type Outcome struct {
	Status       run.Status
	Content      any
	Metrics      any
	Metadata     map[string]any
	Reason       string
	Requirements []*run.Requirement
	Steps        []*workflow.StepRequirement
	Err          error
}

// End is the final status event and the final Task.
func (s *Stream) End(o Outcome) []Frame {
	switch {
	case o.Err != nil || o.Status == run.StatusError:
		err := o.Err
		if err == nil {
			err = errText(contentText(o.Content))
		}
		t := Failed(s.TaskID, s.ContextID, err)
		return []Frame{s.status(StateFailed, true, nil), {EventTask, t}}
	case o.Status == run.StatusCancelled:
		meta := map[string]any{"agno_event_type": "run_cancelled"}
		note := "Run was cancelled"
		if o.Reason != "" {
			meta["reason"] = o.Reason
			note += ": " + o.Reason
		}
		var parts []Part
		if s.acc.Len() > 0 {
			parts = append(parts, TextPart(s.acc.String()))
		}
		parts = append(parts, TextPart(note))
		m := AgentMessage(s.messageID, s.ContextID, s.TaskID, parts, map[string]any{"agno_event_type": "run_cancelled"})
		t := &Task{Kind: KindTask, ID: s.TaskID, ContextID: s.ContextID, Status: TaskStatus{State: StateCanceled}, History: []Message{m}}
		return []Frame{s.status(StateCanceled, true, meta), {EventTask, t}}
	case o.Status == run.StatusPaused:
		meta := map[string]any{"agno_event_type": "run_paused"}
		m := AgentMessage(newID(), s.ContextID, s.TaskID, PausedParts(o.Requirements, o.Steps), nil)
		st := NewStatus(s.TaskID, s.ContextID, StateInputRequired, true, meta)
		st.Status.Message = &m
		t := &Task{Kind: KindTask, ID: s.TaskID, ContextID: s.ContextID, Status: TaskStatus{State: StateInputRequired, Message: &m}}
		return []Frame{{EventStatus, st}, {EventTask, t}}
	}
	text := contentText(o.Content)
	if text == "" {
		text = s.acc.String()
	}
	var parts []Part
	if text != "" {
		parts = append(parts, TextPart(text))
	}
	meta := map[string]any{}
	if o.Metrics != nil {
		meta["metrics"] = o.Metrics
	}
	for k, v := range o.Metadata {
		meta[k] = v
	}
	if len(meta) == 0 {
		meta = nil
	}
	m := AgentMessage(s.messageID, s.ContextID, s.TaskID, parts, meta)
	t := &Task{Kind: KindTask, ID: s.TaskID, ContextID: s.ContextID, Status: TaskStatus{State: StateCompleted}, History: []Message{m}}
	return []Frame{s.status(StateCompleted, true, nil), {EventTask, t}}
}

type errText string

func (e errText) Error() string { return string(e) }
