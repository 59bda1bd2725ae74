// Package model defines the provider-neutral vocabulary between agents and
// language models: messages, requests, streamed chunks and usage.
//
// Provider SDK types never leave model/<provider>; everything above this
// package speaks only these types.
package model

import (
	"encoding/json"
	"io"
	"strings"
)

// Role is the author of a message.
type Role string

// Message roles, as agno and OpenAI name them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation. Its JSON form matches agno's
// Message.to_dict() so stored runs and API responses read the same.
type Message struct {
	ID      string `json:"id,omitempty"`
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// Images and Files are non-text content of user messages; text stays
	// in Content.
	Images []Image `json:"images,omitempty"`
	Files  []File  `json:"files,omitempty"`
	Name   string  `json:"name,omitempty"`

	// Assistant messages.
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	// ProviderData is what the provider returned beside the answer and
	// needs back on the next turn (a thinking signature, a reasoning
	// item, a thought signature); agno's provider_data.
	ProviderData map[string]any `json:"provider_data,omitempty"`

	// Tool messages.
	ToolCallID        string          `json:"tool_call_id,omitempty"`
	ToolName          string          `json:"tool_name,omitempty"`
	ToolArgs          json.RawMessage `json:"tool_args,omitempty"`
	ToolCallError     bool            `json:"tool_call_error,omitempty"`
	StopAfterToolCall bool            `json:"stop_after_tool_call"`

	// FromHistory marks messages replayed from earlier runs.
	FromHistory bool   `json:"from_history"`
	Metrics     *Usage `json:"metrics,omitempty"`
	CreatedAt   int64  `json:"created_at,omitempty"`
}

// MarshalJSON is agno's Message.to_dict(): None and empty values are
// left out, but the booleans from_history and stop_after_tool_call are
// always sent, and a tool message always says whether its call failed.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	out := struct {
		plain
		ToolCallError *bool `json:"tool_call_error,omitempty"`
	}{plain: plain(m)}
	if m.ToolCallError || m.Role == RoleTool {
		b := m.ToolCallError
		out.ToolCallError = &b
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(buf.String(), "\n")), nil
}

// Image is an image given to or produced for a model: a URL or inline
// bytes. An image a run stored outside its row has only its ID here; the
// run loads the bytes when it calls the model.
type Image struct {
	ID       string `json:"id,omitempty"`
	URL      string `json:"url,omitempty"`
	Content  []byte `json:"content,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Size     int64  `json:"size,omitempty"`
	// Source, when set, opens the bytes (an upload spooled to disk); the
	// run stores them and never holds them in memory before it must.
	Source func() (io.ReadCloser, error) `json:"-"`
}

// File is a document given to a model (a PDF, a text file): inline
// bytes with their MIME type and file name, as agno's File media. Like
// Image, a stored file has only its ID, or a Source to read from.
type File struct {
	ID       string                        `json:"id,omitempty"`
	Filename string                        `json:"filename,omitempty"`
	Content  []byte                        `json:"content,omitempty"`
	MimeType string                        `json:"mime_type,omitempty"`
	Size     int64                         `json:"size,omitempty"`
	Source   func() (io.ReadCloser, error) `json:"-"`
}

// IsText reports whether the file is text a model can read as is.
func (f File) IsText() bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(f.MimeType, ";", 2)[0]))
	switch mt {
	case "application/json", "application/xml", "application/x-javascript", "application/javascript", "application/x-python":
		return true
	}
	return strings.HasPrefix(mt, "text/")
}

// ToolCall is a model's request to call a function. The JSON shape is the
// OpenAI / agno one: {"id","type":"function","function":{"name","arguments"}}.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries the raw JSON arguments text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// NewToolCall builds a function tool call.
func NewToolCall(id, name, arguments string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: arguments}}
}
