package agui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
)

// EventType is an AG-UI event's "type".
type EventType string

// The event types AgentOS sends.
const (
	RunStarted         EventType = "RUN_STARTED"
	RunFinished        EventType = "RUN_FINISHED"
	RunError           EventType = "RUN_ERROR"
	TextMessageStart   EventType = "TEXT_MESSAGE_START"
	TextMessageContent EventType = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd     EventType = "TEXT_MESSAGE_END"
	ToolCallStart      EventType = "TOOL_CALL_START"
	ToolCallArgs       EventType = "TOOL_CALL_ARGS"
	ToolCallEnd        EventType = "TOOL_CALL_END"
	ToolCallResult     EventType = "TOOL_CALL_RESULT"
	StateSnapshot      EventType = "STATE_SNAPSHOT"
	StepStarted        EventType = "STEP_STARTED"
	StepFinished       EventType = "STEP_FINISHED"
	Custom             EventType = "CUSTOM"

	ReasoningStart          EventType = "REASONING_START"
	ReasoningMessageStart   EventType = "REASONING_MESSAGE_START"
	ReasoningMessageContent EventType = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     EventType = "REASONING_MESSAGE_END"
	ReasoningEnd            EventType = "REASONING_END"
)

// Event is one AG-UI event; every field but Type is optional and left
// out when empty, as ag_ui's encoder (exclude_none) writes them.
type Event struct {
	Type EventType `json:"type"`

	ThreadID string `json:"threadId,omitempty"`
	RunID    string `json:"runId,omitempty"`

	MessageID string `json:"messageId,omitempty"`
	Role      string `json:"role,omitempty"`
	Delta     string `json:"delta,omitempty"`
	// Source names the agent or team a message comes from (agno's extra
	// sourceType / sourceId / sourceName).
	SourceType string `json:"sourceType,omitempty"`
	SourceID   string `json:"sourceId,omitempty"`
	SourceName string `json:"sourceName,omitempty"`

	ToolCallID      string  `json:"toolCallId,omitempty"`
	ToolCallName    string  `json:"toolCallName,omitempty"`
	ParentMessageID string  `json:"parentMessageId,omitempty"`
	Content         *string `json:"content,omitempty"`

	Snapshot any    `json:"snapshot,omitempty"`
	StepName string `json:"stepName,omitempty"`

	Name  string `json:"name,omitempty"`
	Value any    `json:"value,omitempty"`

	Message string `json:"message,omitempty"`
}

// MarshalJSON writes a snapshot even when it is empty ({} is a state).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	b, err := json.Marshal(plain(e))
	if err != nil || e.Type != StateSnapshot || e.Snapshot != nil {
		return b, err
	}
	return append(b[:len(b)-1], []byte(`,"snapshot":{}}`)...), nil
}

// Encode is one event as ag_ui's EventEncoder frames it for SSE.
func Encode(e Event) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return append(append([]byte("data: "), b...), '\n', '\n'), nil
}

// Mapper turns a run's events into AG-UI events, with agno's ordering:
// a text message closes before a tool call starts, tool calls get the
// last text message (or an empty one made for them) as parent, and the
// run ends with the closing events, the external tool calls of a pause,
// the final state snapshot and RUN_FINISHED.
type Mapper struct {
	ThreadID, RunID string
	// State is the client's state; non-nil: a final STATE_SNAPSHOT is sent.
	State map[string]any
	// ClientCalls are the tool calls whose results the client sent (a
	// continued run): not sent again.
	ClientCalls map[string]bool
	// NewID makes message ids (run.NewID by default).
	NewID func() string

	messageID      string
	started        bool
	current        string
	pendingParent  string
	active, ended  map[string]bool
	finalState     map[string]any
	paused         *run.RunPaused
	terminalReason string
	// reasoningID is the open reasoning message; reasoningSteps counts
	// its steps.
	reasoningID    string
	reasoningSteps int
}

func (m *Mapper) id() string {
	if m.NewID != nil {
		return m.NewID()
	}
	return run.NewID()
}

func (m *Mapper) init() {
	if m.active == nil {
		m.active, m.ended = map[string]bool{}, map[string]bool{}
	}
}

// source is agno's _extract_source_metadata: the team when the event has
// one, else the agent.
func source(b *run.EventBase, e *Event) {
	switch {
	case b.TeamID != "" || b.TeamName != "":
		e.SourceType, e.SourceID, e.SourceName = "team", b.TeamID, b.TeamName
	case b.AgentID != "" || b.AgentName != "":
		e.SourceType, e.SourceID, e.SourceName = "agent", b.AgentID, b.AgentName
	}
}

func argsJSON(a map[string]any) string {
	if a == nil {
		return "null" // json.dumps(None)
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "{}"
	}
	return pySpaced(string(b))
}

// pySpaced writes JSON with json.dumps' separators (", " and ": ").
func pySpaced(s string) string {
	var b strings.Builder
	in := false
	esc := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case esc:
			esc = false
		case c == '\\' && in:
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func contentText(c any) string {
	if c == nil {
		return ""
	}
	if s, ok := c.(string); ok {
		return s
	}
	return run.ContentText(c)
}

// Map maps one run event; terminal events (RunCompleted, RunPaused of
// the run itself) are kept for Finish.
func (m *Mapper) Map(ev run.Event) []Event {
	m.init()
	b := ev.Base()
	top := b.NestedDepth == 0 // a member's or sub-agent's terminal event is not the run's
	var out []Event
	switch e := ev.(type) {
	case *run.RunCompleted:
		if top {
			m.finalState = e.SessionState
			return nil
		}
	case *run.RunPaused:
		if top {
			m.paused = e
			return nil
		}
	case *run.RunError:
		if top {
			m.terminalReason = e.Content
		}
	case *run.RunContent:
		if e.Content == nil {
			return nil
		}
		if !m.started {
			m.started = true
			m.current = m.messageIDNext()
			m.messageID = m.current
			m.pendingParent = ""
			start := Event{Type: TextMessageStart, MessageID: m.messageID, Role: "assistant"}
			source(b, &start)
			out = append(out, start)
		}
		if s := contentText(e.Content); s != "" {
			out = append(out, Event{Type: TextMessageContent, MessageID: m.messageID, Delta: s})
		}
	case *run.ToolCallStarted:
		// A continued run replays the client's own frontend tool calls;
		// agno sends nothing for them (the client already has them).
		if e.Tool == nil || e.Tool.ExternalExecutionRequired || m.ClientCalls[e.Tool.ToolCallID] {
			return nil
		}
		if m.started {
			out = append(out, Event{Type: TextMessageEnd, MessageID: m.messageID})
			m.pendingParent = m.messageID
			m.started = false
			m.messageID = ""
		}
		parent := m.pendingParent
		if parent == "" {
			parent = m.current
		}
		if parent == "" {
			parent = m.id()
			out = append(out, Event{Type: TextMessageStart, MessageID: parent, Role: "assistant"}, Event{Type: TextMessageEnd, MessageID: parent})
			m.pendingParent = parent
		}
		out = append(out,
			Event{Type: ToolCallStart, ToolCallID: e.Tool.ToolCallID, ToolCallName: e.Tool.ToolName, ParentMessageID: parent},
			Event{Type: ToolCallArgs, ToolCallID: e.Tool.ToolCallID, Delta: argsJSON(e.Tool.ToolArgs)})
		m.active[e.Tool.ToolCallID] = true
	case *run.ToolCallCompleted:
		if e.Tool == nil || e.Tool.ExternalExecutionRequired || m.ClientCalls[e.Tool.ToolCallID] || m.ended[e.Tool.ToolCallID] {
			return nil
		}
		out = append(out, Event{Type: ToolCallEnd, ToolCallID: e.Tool.ToolCallID})
		m.end(e.Tool.ToolCallID)
		if e.Tool.Result != nil {
			res := *e.Tool.Result
			out = append(out, Event{Type: ToolCallResult, ToolCallID: e.Tool.ToolCallID, Content: &res, Role: "tool", MessageID: m.id()})
		}
	case *run.ReasoningStarted:
		out = m.endText(out)
		out = m.openReasoning(out, true)
	case *run.ReasoningContentDelta:
		out = m.endText(out)
		out = m.openReasoning(out, false)
		if e.ReasoningContent != "" {
			out = append(out, Event{Type: ReasoningMessageContent, MessageID: m.reasoningID, Delta: e.ReasoningContent})
		}
	case *run.ReasoningStep:
		out = m.endText(out)
		out = m.openReasoning(out, false)
		m.reasoningSteps++
		if d := stepDelta(e.Content, m.reasoningSteps); d != "" {
			out = append(out, Event{Type: ReasoningMessageContent, MessageID: m.reasoningID, Delta: d})
		}
	case *run.ReasoningCompleted:
		out = m.closeReasoning(out)
	case *run.CustomEvent:
		v, _ := json.Marshal(e)
		var val any
		_ = json.Unmarshal(v, &val)
		out = append(out, Event{Type: Custom, Name: "CustomEvent", Value: val})
	}
	return out
}

func (m *Mapper) messageIDNext() string { return m.id() }

// endText closes an open text message before reasoning, as agno does.
func (m *Mapper) endText(out []Event) []Event {
	if m.started {
		out = append(out, Event{Type: TextMessageEnd, MessageID: m.messageID})
		m.started, m.messageID = false, ""
	}
	return out
}

// openReasoning starts a reasoning message: always on ReasoningStarted
// (fresh), else only when none is open.
func (m *Mapper) openReasoning(out []Event, fresh bool) []Event {
	if m.reasoningID != "" && !fresh {
		return out
	}
	m.reasoningID, m.reasoningSteps = m.id(), 0
	return append(out,
		Event{Type: ReasoningStart, MessageID: m.reasoningID},
		Event{Type: ReasoningMessageStart, MessageID: m.reasoningID, Role: "reasoning"})
}

func (m *Mapper) closeReasoning(out []Event) []Event {
	if m.reasoningID == "" {
		return out
	}
	out = append(out, Event{Type: ReasoningMessageEnd, MessageID: m.reasoningID}, Event{Type: ReasoningEnd, MessageID: m.reasoningID})
	m.reasoningID, m.reasoningSteps = "", 0
	return out
}

// stepDelta is one reasoning step as agno's AG-UI interface writes it:
// "## Step n: title", then reasoning, action, result and confidence, one
// per line (this step only, not the accumulated reasoning_content).
func stepDelta(content any, n int) string {
	st, ok := reasoning.StepOf(content)
	if !ok {
		return ""
	}
	title := "Thinking"
	if st.Title != nil && *st.Title != "" {
		title = *st.Title
	}
	parts := []string{fmt.Sprintf("## Step %d: %s", n, title)}
	for _, p := range []struct {
		label string
		v     *string
	}{{"", st.Reasoning}, {"Action: ", st.Action}, {"Result: ", st.Result}} {
		if p.v != nil && *p.v != "" {
			parts = append(parts, p.label+*p.v)
		}
	}
	if st.Confidence != nil {
		c, _ := st.Confidence.MarshalJSON()
		parts = append(parts, "Confidence: "+string(c))
	}
	return strings.Join(parts, "\n") + "\n\n"
}

func (m *Mapper) end(id string) {
	delete(m.active, id)
	m.ended[id] = true
}

// Failed reports the run's own RunError text, if it sent one.
func (m *Mapper) Failed() (string, bool) { return m.terminalReason, m.terminalReason != "" }

// Finish is agno's completion: open tool calls and the text message
// end, a pause's external tool calls are sent for the client to run,
// then the final state snapshot and RUN_FINISHED.
func (m *Mapper) Finish() []Event {
	m.init()
	// A stream that ended mid-reasoning closes it first, as agno does.
	out := m.closeReasoning(nil)
	for id := range m.active {
		if !m.ended[id] {
			out = append(out, Event{Type: ToolCallEnd, ToolCallID: id})
			m.end(id)
		}
	}
	if m.started {
		out = append(out, Event{Type: TextMessageEnd, MessageID: m.messageID})
		m.started = false
	}
	if p := m.paused; p != nil {
		var ext []*run.ToolExecution
		for _, t := range p.Tools {
			if t.ExternalExecutionRequired && t.Result == nil {
				ext = append(ext, t)
			}
		}
		if len(ext) > 0 {
			mid := m.id()
			out = append(out, Event{Type: TextMessageStart, MessageID: mid, Role: "assistant"}, Event{Type: TextMessageEnd, MessageID: mid})
			for _, t := range ext {
				if t.ToolCallID == "" || t.ToolName == "" {
					continue
				}
				out = append(out,
					Event{Type: ToolCallStart, ToolCallID: t.ToolCallID, ToolCallName: t.ToolName, ParentMessageID: mid},
					Event{Type: ToolCallArgs, ToolCallID: t.ToolCallID, Delta: argsJSON(t.ToolArgs)},
					Event{Type: ToolCallEnd, ToolCallID: t.ToolCallID})
			}
		}
	}
	if m.State != nil {
		snap := m.State
		if m.finalState != nil {
			snap = m.finalState
		}
		out = append(out, Event{Type: StateSnapshot, Snapshot: snap})
	}
	return append(out, Event{Type: RunFinished, ThreadID: m.ThreadID, RunID: m.RunID})
}

// ErrorEvent is RUN_ERROR.
func ErrorEvent(msg string) Event { return Event{Type: RunError, Message: msg} }

// Started is RUN_STARTED.
func Started(threadID, runID string) Event {
	return Event{Type: RunStarted, ThreadID: threadID, RunID: runID}
}

// Snapshot is STATE_SNAPSHOT.
func Snapshot(s map[string]any) Event { return Event{Type: StateSnapshot, Snapshot: s} }
