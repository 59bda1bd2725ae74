package slack

import (
	"strconv"
	"strings"

	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
	slackapi "github.com/slack-go/slack"
)

// Task card statuses (Slack's task_update status).
const (
	TaskInProgress = "in_progress"
	TaskComplete   = "complete"
	TaskError      = "error"
	TaskPending    = "pending"
)

// taskOutputMax is agno's cap on a task card's output text.
const taskOutputMax = 200

// TaskChunk is a task_update chunk of a streamed reply. Slack wants the
// output as rich_text, not the plain string slack-go's TaskUpdateChunk
// sends, so it is built here.
type TaskChunk struct {
	Type   slackapi.StreamChunkType `json:"type"`
	ID     string                   `json:"id"`
	Title  string                   `json:"title"`
	Status string                   `json:"status"`
	Output *richText                `json:"output,omitempty"`
}

// ChunkType makes TaskChunk a slack-go StreamChunk.
func (TaskChunk) ChunkType() slackapi.StreamChunkType { return slackapi.StreamChunkTaskUpdate }

type richText struct {
	Type     string            `json:"type"`
	Elements []richTextSection `json:"elements"`
}

type richTextSection struct {
	Type     string         `json:"type"`
	Elements []richTextSpan `json:"elements"`
}

type richTextSpan struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// NewTaskChunk is a task card update; output (cut to agno's 200
// characters) is shown under the title.
func NewTaskChunk(id, title, status, output string) TaskChunk {
	c := TaskChunk{Type: slackapi.StreamChunkTaskUpdate, ID: id, Title: title, Status: status}
	if output != "" {
		r := []rune(output)
		c.Output = &richText{Type: "rich_text", Elements: []richTextSection{{Type: "rich_text_section",
			Elements: []richTextSpan{{Type: "text", Text: string(r[:min(len(r), taskOutputMax)])}}}}}
	}
	return c
}

// Tasks is agno's StreamState task bookkeeping for one streamed reply:
// it turns a run's events into task card updates (tool calls, a team
// member's tool calls labelled with the member, reasoning, memory
// updates) and, at the end, settles the cards still open.
type Tasks struct {
	// EntityName is the answering agent's or team's name: events of
	// another agent are a team member's.
	EntityName string
	order      []string
	title      map[string]string
	status     map[string]string
	reasoning  int    // agno's reasoning_round
	thinking   string // the open reasoning card's id
	thought    strings.Builder
}

// NewTasks starts the bookkeeping of a reply by entityName.
func NewTasks(entityName string) *Tasks {
	return &Tasks{EntityName: entityName, title: map[string]string{}, status: map[string]string{}}
}

func (t *Tasks) set(id, title, status string) {
	if _, ok := t.title[id]; !ok {
		t.order = append(t.order, id)
	}
	t.title[id], t.status[id] = title, status
}

// Update returns the card updates ev causes (none for most events).
func (t *Tasks) Update(ev run.Event) []slackapi.StreamChunk {
	var out []slackapi.StreamChunk
	card := func(id, title, status, output string) {
		t.set(id, title, status)
		out = append(out, NewTaskChunk(id, title, status, output))
	}
	openThinking := func() {
		if t.thinking == "" {
			t.thinking = "reasoning_" + strconv.Itoa(t.reasoning)
			card(t.thinking, "Reasoning", TaskInProgress, "")
		}
	}
	// agno's Reasoning card opens on ReasoningStarted and completes on
	// ReasoningCompleted; the steps and thinking in between are its
	// output.
	switch e := ev.(type) {
	case *run.ReasoningStarted:
		openThinking()
		return out
	case *run.ReasoningContentDelta:
		openThinking()
		t.thought.WriteString(e.ReasoningContent)
		return out
	case *run.ReasoningStep:
		openThinking()
		if st, ok := reasoning.StepOf(e.Content); ok {
			t.thought.WriteString(st.Text())
		}
		return out
	case *run.ReasoningCompleted:
		if t.thinking != "" {
			card(t.thinking, "Reasoning", TaskComplete, strings.TrimSpace(t.thought.String()))
			t.thinking, t.thought = "", strings.Builder{}
			t.reasoning++
		}
		return out
	}
	// A model's own thinking is shown while it streams; the first answer
	// text (or any other card) closes it.
	if rc, ok := ev.(*run.RunContent); ok && rc.ReasoningContent != "" {
		openThinking()
		t.thought.WriteString(rc.ReasoningContent)
		return out
	}
	if t.thinking != "" {
		card(t.thinking, "Reasoning", TaskComplete, t.thought.String())
		t.thinking, t.thought = "", strings.Builder{}
		t.reasoning++
	}
	switch e := ev.(type) {
	case *run.ToolCallStarted:
		id, label := t.toolRef(e.Base(), e.Tool, strconv.Itoa(len(t.order)))
		card(id, label, TaskInProgress, "")
	case *run.ToolCallCompleted:
		id, label := t.toolRef(e.Base(), e.Tool, "")
		if id != "" {
			status := TaskComplete
			if e.Tool != nil && e.Tool.ToolCallError {
				status = TaskError
			}
			card(id, label, status, "")
		}
	case *run.ToolCallError:
		id, label := t.toolRef(e.Base(), e.Tool, "tool_error_"+strconv.Itoa(len(t.order)))
		msg := e.Error
		if msg == "" {
			msg = "Tool call failed"
		}
		card(id, label, TaskError, msg)
	case *run.MemoryUpdateStarted:
		card("memory_update", "Updating memory", TaskInProgress, "")
	case *run.MemoryUpdateCompleted:
		card("memory_update", "Updating memory", TaskComplete, "")
	}
	return out
}

// toolRef is agno's _extract_tool_ref: the card id and title of a tool
// call, prefixed with the member for a team member's call.
func (t *Tasks) toolRef(b *run.EventBase, tool *run.ToolExecution, fallback string) (id, label string) {
	name, call := "tool", fallback
	if tool != nil {
		if tool.ToolName != "" {
			name = tool.ToolName
		}
		if tool.ToolCallID != "" {
			call = tool.ToolCallID
		}
	}
	member := ""
	if b.AgentName != "" && b.AgentName != t.EntityName {
		member = b.AgentName
	}
	label = name
	if member != "" {
		label = member + ": " + name
	}
	if call == "" {
		return "", label
	}
	return taskID(member, call), label
}

// taskID is agno's task_id: cards of different members never collide.
func taskID(member, base string) string {
	if member == "" {
		return base
	}
	safe := []rune(strings.ReplaceAll(strings.ToLower(member), " ", "_"))
	return string(safe[:min(len(safe), 20)]) + "_" + base
}

// Settle is agno's resolve_all_pending: every card still open is given
// status (complete at the end, error after a failure, left pending at a
// pause).
func (t *Tasks) Settle(status string) []slackapi.StreamChunk {
	var out []slackapi.StreamChunk
	if t.thinking != "" {
		t.set(t.thinking, "Reasoning", TaskComplete)
		out = append(out, NewTaskChunk(t.thinking, "Reasoning", TaskComplete, t.thought.String()))
		t.thinking = ""
	}
	for _, id := range t.order {
		if t.status[id] == TaskInProgress || t.status[id] == TaskPending {
			t.status[id] = status
			out = append(out, NewTaskChunk(id, t.title[id], status, ""))
		}
	}
	return out
}
