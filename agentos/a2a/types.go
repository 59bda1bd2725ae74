// Package a2a is AgentOS's A2A interface (agno's A2A): per agent, team
// and workflow an agent card and Agent-to-Agent JSON-RPC endpoints that
// run it. It holds the protocol types AgentOS speaks, the JSON of A2A
// spec v0.3 (the a2a-sdk 0.3 line agno v2.6.13 pins,
// a2a-sdk>=0.3.0,<1.0), camelCase with "kind" discriminators, plus the
// JSON-RPC 2.0 envelope; and Interface, their glue to runs. It builds on
// the core (agentos/internal/httpapi) and on Host, what it needs of the
// OS (*agentos.Host); agentos serves its rows when Config.Interfaces
// holds it.
package a2a

import "encoding/json"

// ProtocolVersion is the A2A spec version of these types.
const ProtocolVersion = "0.3.0"

// JSON-RPC methods of A2A v0.3.
const (
	MethodSend   = "message/send"
	MethodStream = "message/stream"
	MethodGet    = "tasks/get"
	MethodCancel = "tasks/cancel"
)

// JSON-RPC and A2A error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeTaskNotFound   = -32001
)

// TaskState is an A2A task state.
type TaskState string

const (
	StateSubmitted     TaskState = "submitted"
	StateWorking       TaskState = "working"
	StateInputRequired TaskState = "input-required"
	StateCompleted     TaskState = "completed"
	StateCanceled      TaskState = "canceled"
	StateFailed        TaskState = "failed"
	StateRejected      TaskState = "rejected"
	StateAuthRequired  TaskState = "auth-required"
	StateUnknown       TaskState = "unknown"
)

// AgentCard is the card served at .well-known/agent-card.json.
type AgentCard struct {
	Name                              string            `json:"name"`
	Description                       string            `json:"description"`
	URL                               string            `json:"url"`
	Version                           string            `json:"version"`
	ProtocolVersion                   string            `json:"protocolVersion"`
	PreferredTransport                string            `json:"preferredTransport"`
	DefaultInputModes                 []string          `json:"defaultInputModes"`
	DefaultOutputModes                []string          `json:"defaultOutputModes"`
	Capabilities                      AgentCapabilities `json:"capabilities"`
	Skills                            []AgentSkill      `json:"skills"`
	SupportsAuthenticatedExtendedCard bool              `json:"supportsAuthenticatedExtendedCard"`
	// Unset optional fields of a2a-sdk's AgentCard, served as null as
	// FastAPI serialises the model.
	AdditionalInterfaces any `json:"additionalInterfaces"`
	DocumentationURL     any `json:"documentationUrl"`
	IconURL              any `json:"iconUrl"`
	Provider             any `json:"provider"`
	Security             any `json:"security"`
	SecuritySchemes      any `json:"securitySchemes"`
	Signatures           any `json:"signatures"`
}

// AgentCapabilities says what the agent's endpoint supports.
type AgentCapabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
	Extensions             any  `json:"extensions"`
}

// AgentSkill is one skill of a card.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples"`
	OutputModes []string `json:"outputModes"`
	InputModes  any      `json:"inputModes"`
	Security    any      `json:"security"`
}

// Part is one part of a message or artifact: kind "text", "file" or
// "data", with that kind's field set.
type Part struct {
	Kind     string         `json:"kind"`
	Text     string         `json:"text,omitempty"`
	File     *FileContent   `json:"file,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// raw is a received data part's data as sent: json.dumps of it keeps
	// the key order and number forms, as Python's json.loads does.
	raw json.RawMessage
}

// UnmarshalJSON keeps a data part's raw data.
func (p *Part) UnmarshalJSON(b []byte) error {
	type plain Part
	var x struct {
		plain
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*p = Part(x.plain)
	if len(x.Data) > 0 && string(x.Data) != "null" {
		if err := json.Unmarshal(x.Data, &p.Data); err != nil {
			return err
		}
		p.raw = x.Data
	}
	return nil
}

// FileContent is a file part's file: by uri or by base64 bytes.
type FileContent struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
}

// TextPart builds a text part.
func TextPart(text string) Part { return Part{Kind: "text", Text: text} }

// DataPart builds a data part.
func DataPart(data map[string]any) Part { return Part{Kind: "data", Data: data} }

// Message is an A2A message (kind "message").
type Message struct {
	Kind      string         `json:"kind"`
	MessageID string         `json:"messageId"`
	Role      string         `json:"role"`
	Parts     []Part         `json:"parts"`
	ContextID string         `json:"contextId,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// AgentID names the entity on agno's deprecated routes.
	AgentID string `json:"agentId,omitempty"`
}

// TaskStatus is a task's state, with the agent's message for it.
type TaskStatus struct {
	State     TaskState `json:"state"`
	Message   *Message  `json:"message,omitempty"`
	Timestamp string    `json:"timestamp,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string `json:"artifactId"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Parts       []Part `json:"parts"`
}

// Task is an A2A task (kind "task"); its id is the agno run id and its
// contextId the session id.
type Task struct {
	Kind      string         `json:"kind"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	History   []Message      `json:"history,omitempty"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TaskStatusUpdateEvent is a streamed status change (kind "status-update").
type TaskStatusUpdateEvent struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Final     bool           `json:"final"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Kinds of the results.
const (
	KindMessage      = "message"
	KindTask         = "task"
	KindStatusUpdate = "status-update"
)

// NewStatus builds a status-update event.
func NewStatus(taskID, contextID string, state TaskState, final bool, meta map[string]any) *TaskStatusUpdateEvent {
	return &TaskStatusUpdateEvent{Kind: KindStatusUpdate, TaskID: taskID, ContextID: contextID, Status: TaskStatus{State: state}, Final: final, Metadata: meta}
}

// AgentMessage builds a message of the agent.
func AgentMessage(id, contextID, taskID string, parts []Part, meta map[string]any) Message {
	if parts == nil {
		parts = []Part{}
	}
	return Message{Kind: KindMessage, MessageID: id, Role: "agent", Parts: parts, ContextID: contextID, TaskID: taskID, Metadata: meta}
}

// Request is a JSON-RPC 2.0 request. ID is kept raw: the answer echoes
// it as sent (string or number).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is a JSON-RPC 2.0 response: Result or Error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Result wraps a result for request id.
func Result(id json.RawMessage, v any) Response {
	return Response{JSONRPC: "2.0", ID: idOr(id), Result: v}
}

// Fail wraps an error for request id.
func Fail(id json.RawMessage, code int, msg string) Response {
	return Response{JSONRPC: "2.0", ID: idOr(id), Error: &Error{Code: code, Message: msg}}
}

// idOr is agno's request_body.get("id", "unknown").
func idOr(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage(`"unknown"`)
	}
	return id
}

// SendParams are message/send and message/stream params.
type SendParams struct {
	Message       *Message       `json:"message"`
	Configuration *SendConfig    `json:"configuration,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// SendConfig is MessageSendConfiguration.
type SendConfig struct {
	Blocking            *bool    `json:"blocking,omitempty"`
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	HistoryLength       *int     `json:"historyLength,omitempty"`
}

// TaskParams are tasks/get and tasks/cancel params. ContextID is agno's
// extension naming the session of the task.
type TaskParams struct {
	ID            string         `json:"id"`
	ContextID     string         `json:"contextId,omitempty"`
	HistoryLength *int           `json:"historyLength,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}
