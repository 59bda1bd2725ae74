// Package hitl is the local human-in-the-loop channel for workflows: a
// Unix socket over which paused workflow runs are announced and a human
// (the `agno hitl` console, or any program speaking the protocol) answers
// them.
//
// # Protocol
//
// Newline-delimited JSON, one message per line, both directions.
//
// On connect the server sends every paused run it knows of as a
// waiting_for_human line, then {"event":"pending","count":N}. Each new
// pause is announced to every client as a waiting_for_human line; each
// run the socket continued ends with a run_finished line to every client.
//
// Client actions use the shapes of agno's AgentOS WebSocket:
//
//	{"action":"continue-workflow","workflow_id":…,"run_id":…,"session_id":…,"user_id":…,"step_requirements":[…]}
//	  → {"event":"continued","run_id":…} once the run is claimed, later
//	    {"event":"run_finished","run_id":…,"status":"COMPLETED|PAUSED|…","content":…}
//	{"action":"list"} → the pending listing again
//	{"action":"ping"} → {"event":"pong"}
//
// Errors are {"event":"error","error":"…"} with agno's texts
// ("workflow_id is required", "Run <id> not found", "Run is not paused
// (status=RUNNING)", "Invalid step_requirements: …", "Unknown action: x").
// A malformed line gets an error and the connection stays open; a line
// over MaxLineBytes gets an error and the connection is closed.
//
// # Security
//
// The socket file is created with mode 0600: only its owner (and root)
// can connect, and whoever can connect can answer every pause. There is
// no other authentication; put the socket in a directory only the
// operator's user can reach when the machine is shared.
package hitl

import (
	"encoding/json"
	"fmt"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// MaxLineBytes bounds one client message; a longer line closes the
// connection.
const MaxLineBytes = 1 << 20

// maxServerLineBytes bounds one server message as the client reads it (a
// pause carries the step's output for an output review, which may be big).
const maxServerLineBytes = 64 << 20

// Events the server sends.
const (
	EventWaitingForHuman = "waiting_for_human"
	EventPending         = "pending"
	EventContinued       = "continued"
	EventRunFinished     = "run_finished"
	EventPong            = "pong"
	EventError           = "error"
)

// Actions a client sends.
const (
	ActionContinue = "continue-workflow"
	ActionList     = "list"
	ActionPing     = "ping"
)

// Pause is a workflow run waiting for a human: the waiting_for_human
// message without its event name.
type Pause struct {
	RunID           string `json:"run_id"`
	WorkflowID      string `json:"workflow_id"`
	WorkflowName    string `json:"workflow_name,omitempty"`
	SessionID       string `json:"session_id"`
	UserID          string `json:"user_id,omitempty"`
	PausedStepName  string `json:"paused_step_name,omitempty"`
	PausedStepIndex *int   `json:"paused_step_index,omitempty"`
	// PauseKind is step, executor (an agent's or team's tool call inside
	// a step) or error (a failed step with on_error pause).
	PauseKind string `json:"pause_kind,omitempty"`
	// StepRequirements are all requirements of the run, as agno's
	// WorkflowPaused carries them; the last one is what it waits for.
	StepRequirements  []*workflow.StepRequirement  `json:"step_requirements"`
	ErrorRequirements []*workflow.ErrorRequirement `json:"error_requirements,omitempty"`
	CreatedAt         int64                        `json:"created_at,omitempty"`
}

// Finished is the end of a run the socket continued.
type Finished struct {
	RunID      string     `json:"run_id"`
	WorkflowID string     `json:"workflow_id,omitempty"`
	SessionID  string     `json:"session_id,omitempty"`
	Status     run.Status `json:"status"`
	Content    any        `json:"content"`
}

// ServerError is an error line the server answered a request with; its
// text is agno's.
type ServerError struct{ Message string }

func (e *ServerError) Error() string { return e.Message }

// pauseLine is the waiting_for_human message.
type pauseLine struct {
	Event string `json:"event"`
	*Pause
}

type finishedLine struct {
	Event string `json:"event"`
	*Finished
}

type pendingLine struct {
	Event string `json:"event"`
	Count int    `json:"count"`
}

type continuedLine struct {
	Event      string `json:"event"`
	RunID      string `json:"run_id"`
	WorkflowID string `json:"workflow_id,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
}

type errorLine struct {
	Event string `json:"event"`
	Error string `json:"error"`
}

// request is a client message.
type request struct {
	Action           *string         `json:"action"`
	WorkflowID       string          `json:"workflow_id"`
	RunID            string          `json:"run_id"`
	SessionID        string          `json:"session_id"`
	UserID           string          `json:"user_id"`
	StepRequirements json.RawMessage `json:"step_requirements"`
}

// encodeLine renders a message as one line, newline included.
func encodeLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only values of this package are encoded; a failure is a bug, and
		// the client still gets a well-formed line.
		b, _ = json.Marshal(errorLine{Event: EventError, Error: fmt.Sprintf("internal error: %v", err)})
	}
	return append(b, '\n')
}

func errLine(msg string) []byte { return encodeLine(errorLine{Event: EventError, Error: msg}) }

// pauseOf builds the announcement of a paused run. It deep-copies what it
// keeps: the caller still owns out.
func pauseOf(out *workflow.RunOutput) (*Pause, error) {
	p := &Pause{RunID: out.RunID, WorkflowID: out.WorkflowID, WorkflowName: out.WorkflowName, SessionID: out.SessionID,
		UserID: out.UserID, PausedStepName: out.PausedStepName, PauseKind: out.PauseKind, CreatedAt: out.CreatedAt}
	if out.PausedStepIndex != nil {
		i := *out.PausedStepIndex
		p.PausedStepIndex = &i
	}
	if err := clone(out.StepRequirements, &p.StepRequirements); err != nil {
		return nil, fmt.Errorf("run %s: copy step_requirements: %w", out.RunID, err)
	}
	if err := clone(out.ErrorRequirements, &p.ErrorRequirements); err != nil {
		return nil, fmt.Errorf("run %s: copy error_requirements: %w", out.RunID, err)
	}
	if p.StepRequirements == nil {
		p.StepRequirements = []*workflow.StepRequirement{}
	}
	return p, nil
}

// clone deep-copies JSON-shaped values (numbers stay json.Number).
func clone[T any](src T, dst *T) error {
	b, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return run.DecodeJSON(b, dst)
}
