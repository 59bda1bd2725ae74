// Package agui is AgentOS's AG-UI interface (agno's AGUI): one agent or
// team for AG-UI front ends (docs.ag-ui.com). It holds the protocol: the
// RunAgentInput a client posts, the events streamed back (the JSON of the
// protocol's ag_ui.core types, camelCase, null fields left out) and
// agno's mapping of a run's events onto them; and Interface, which serves
// it. It builds on the core (agentos/internal/httpapi) and on Host, what
// it needs of the OS (*agentos.Host); agentos serves its rows when
// Config.Interfaces holds it.
package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Type and Version are the interface's /config entry (agno's AGUI).
const (
	Type    = "agui"
	Version = "1.0"
)

// RunAgentInput is the body of POST /agui.
type RunAgentInput struct {
	ThreadID       string          `json:"threadId"`
	RunID          string          `json:"runId"`
	ParentRunID    *string         `json:"parentRunId,omitempty"`
	State          json.RawMessage `json:"state"`
	Messages       []Message       `json:"messages"`
	Tools          []Tool          `json:"tools"`
	Context        []Context       `json:"context"`
	ForwardedProps json.RawMessage `json:"forwardedProps"`
}

// Message is one message of the client's conversation (any role).
type Message struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Content is a string, or for a user message a list of input parts.
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// ToolCall is a call in an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function called and its JSON arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a frontend tool the client declares: the model may call it,
// the client runs it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Context is one piece of context the client shares.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// FieldError is a RunAgentInput that does not decode: Loc is the body
// path of the bad field.
type FieldError struct {
	Loc  []string
	Msg  string
	Type string
}

func (e *FieldError) Error() string { return strings.Join(e.Loc, ".") + ": " + e.Msg }

// required are RunAgentInput's fields without a default (ag_ui.core).
var required = []string{"threadId", "runId", "state", "messages", "tools", "context", "forwardedProps"}

// Decode parses a RunAgentInput body, refusing a missing required field
// as pydantic does (the client libraries always send them all).
func Decode(body []byte) (*RunAgentInput, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, &FieldError{Loc: []string{"body"}, Msg: "the body is not a JSON object: send AG-UI's RunAgentInput (" + err.Error() + ")", Type: "json_invalid"}
	}
	for _, k := range required {
		if _, ok := raw[k]; !ok {
			// pydantic also accepts the snake_case name (populate_by_name).
			if v, ok := raw[snake(k)]; ok {
				raw[k] = v
				continue
			}
			return nil, &FieldError{Loc: []string{"body", k}, Msg: "Field required", Type: "missing"}
		}
	}
	b, _ := json.Marshal(raw)
	in := &RunAgentInput{}
	if err := json.Unmarshal(b, in); err != nil {
		return nil, &FieldError{Loc: []string{"body"}, Msg: "RunAgentInput does not decode: " + err.Error(), Type: "model_attributes_type"}
	}
	for i, m := range in.Messages {
		switch m.Role {
		case "user", "assistant", "system", "developer", "tool", "activity", "reasoning":
		default:
			return nil, &FieldError{Loc: []string{"body", "messages", fmt.Sprint(i), "role"}, Msg: fmt.Sprintf("role %q is not an AG-UI role (user, assistant, system, developer, tool)", m.Role), Type: "union_tag_invalid"}
		}
		if m.Role == "tool" && m.ToolCallID == "" {
			return nil, &FieldError{Loc: []string{"body", "messages", fmt.Sprint(i), "toolCallId"}, Msg: "Field required", Type: "missing"}
		}
	}
	return in, nil
}

func snake(k string) string {
	var b strings.Builder
	for _, r := range k {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// text is a message content as text: a string, or the text parts of a
// list joined by newlines (agno's extract_agui_user_input).
func text(c json.RawMessage) (string, bool) {
	if len(c) == 0 || string(c) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) != nil {
		return "", false
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n"), len(out) > 0
}

// UserInput is the last user message's text: the client sends the whole
// conversation each time, the session holds the history (agno).
func UserInput(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		if s, ok := text(msgs[i].Content); ok {
			return s
		}
	}
	return ""
}

// ToolResult is the client's result of one frontend tool call.
type ToolResult struct {
	ToolCallID string
	Content    string
	Error      string
}

// ToolResults are the trailing tool messages: the client ran frontend
// tools and sends their results to continue the paused run (agno's
// extract_tool_messages).
func ToolResults(msgs []Message) []ToolResult {
	var out []ToolResult
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == "tool" {
		i--
	}
	seen := map[string]bool{}
	for _, m := range msgs[i:] {
		if seen[m.ToolCallID] {
			continue // agno keeps the first result of a call
		}
		seen[m.ToolCallID] = true
		c, _ := text(m.Content)
		out = append(out, ToolResult{ToolCallID: m.ToolCallID, Content: c, Error: m.Error})
	}
	return out
}

// State is the client's state as a session state: an object, or nil
// (agno ignores a state that is not a dict).
func (in *RunAgentInput) SessionState() map[string]any {
	var m map[string]any
	if len(in.State) == 0 || json.Unmarshal(in.State, &m) != nil {
		return nil
	}
	return m
}

// Forwarded is forwardedProps as an object (nil when it is not one).
func (in *RunAgentInput) Forwarded() map[string]any {
	var m map[string]any
	if len(in.ForwardedProps) == 0 || json.Unmarshal(in.ForwardedProps, &m) != nil {
		return nil
	}
	return m
}

// UserID is forwardedProps.user_id (agno's way to name the user).
func (in *RunAgentInput) UserID() string {
	if s, ok := in.Forwarded()["user_id"].(string); ok {
		return s
	}
	return ""
}

// Config is the AG-UI interface: agno's AGUI(agent=|team=, prefix="").
type Config struct {
	// AgentID or TeamID: exactly one, the agent or team served.
	AgentID string
	TeamID  string
	// Prefix mounts POST {prefix}/agui and GET {prefix}/status (agno's
	// default "": the root).
	Prefix string
}

// Entity is the kind ("agent" or "team") and id served.
func (c *Config) Entity() (string, string) {
	if c.TeamID != "" {
		return "team", c.TeamID
	}
	return "agent", c.AgentID
}

// Check validates the ids and the prefix.
func (c *Config) Check() error {
	if (c.AgentID == "") == (c.TeamID == "") {
		return errors.New("give exactly one of an agent or a team id (agno: AGUI requires an agent or a team)")
	}
	return CheckPrefix(c.Prefix)
}

// CheckPrefix accepts "" or a path such as "/chat" (no trailing /).
func CheckPrefix(p string) error {
	if p != "" && (!strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsAny(p, " {}")) {
		return fmt.Errorf("prefix %q: give a route prefix such as \"/chat\" (leading /, no trailing /), or \"\" for the root", p)
	}
	return nil
}
