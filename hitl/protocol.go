// Package hitl is the local human-in-the-loop channel: a Unix socket
// over which runs paused for a human — workflows, agents and teams — are
// announced and a human (the `agno hitl` console, or any program
// speaking the protocol) answers them.
//
// # Protocol
//
// Newline-delimited JSON, one message per line, both directions.
//
// On connect the server sends every paused run it knows of as a
// waiting_for_human line, then {"event":"pending","count":N}. Each new
// pause is announced to every client as a waiting_for_human line; a
// pause answered anywhere else (another client, another channel, another
// AgentOS replica on the same database) ends with a resumed line to every
// client; each run the socket continued ends with a run_finished line to
// every client.
//
// A workflow's pause carries workflow_id and step_requirements; an
// agent's or team's carries agent_id or team_id and requirements (the
// shapes of agno's WorkflowPaused and RunPaused events).
//
// Client actions use the shapes of agno's AgentOS WebSocket and continue
// routes:
//
//	{"action":"continue-workflow","workflow_id":…,"run_id":…,"session_id":…,"user_id":…,"step_requirements":[…]}
//	{"action":"continue-run","agent_id":…|"team_id":…,"run_id":…,"session_id":…,"user_id":…,"requirements":[…]}
//	  → {"event":"continued","run_id":…} once the run is claimed, later
//	    {"event":"run_finished","run_id":…,"status":"COMPLETED|PAUSED|…","content":…}
//	{"action":"list"} → the pending listing again
//	{"action":"ping"} → {"event":"pong"}
//
// A paused run is continued once, whichever client, channel or replica
// answers first; the others get "Run is not paused (status=RUNNING)".
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
	"cmp"
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
	EventResumed         = "resumed"
	EventRunFinished     = "run_finished"
	EventPong            = "pong"
	EventError           = "error"
)

// Actions a client sends.
const (
	ActionContinue    = "continue-workflow"
	ActionContinueRun = "continue-run"
	ActionList        = "list"
	ActionPing        = "ping"
)

// Pause is a run waiting for a human: the waiting_for_human message
// without its event name. A workflow's has WorkflowID and
// StepRequirements; an agent's or team's has AgentID or TeamID and
// Requirements.
type Pause struct {
	RunID           string `json:"run_id"`
	WorkflowID      string `json:"workflow_id,omitempty"`
	WorkflowName    string `json:"workflow_name,omitempty"`
	AgentID         string `json:"agent_id,omitempty"`
	AgentName       string `json:"agent_name,omitempty"`
	TeamID          string `json:"team_id,omitempty"`
	TeamName        string `json:"team_name,omitempty"`
	SessionID       string `json:"session_id"`
	UserID          string `json:"user_id,omitempty"`
	PausedStepName  string `json:"paused_step_name,omitempty"`
	PausedStepIndex *int   `json:"paused_step_index,omitempty"`
	// PauseKind is step, executor (an agent's or team's tool call inside
	// a step) or error (a failed step with on_error pause).
	PauseKind string `json:"pause_kind,omitempty"`
	// StepRequirements are all requirements of the run, as agno's
	// WorkflowPaused carries them; the last one is what it waits for.
	// (Empty, not absent, for a workflow; absent for an agent or team.)
	StepRequirements  []*workflow.StepRequirement  `json:"step_requirements,omitzero"`
	ErrorRequirements []*workflow.ErrorRequirement `json:"error_requirements,omitempty"`
	// Requirements are an agent's or team's, as agno's RunPaused carries
	// them: tool calls waiting for a confirmation, user input or an
	// external result.
	Requirements []*run.Requirement `json:"requirements,omitempty"`
	CreatedAt    int64              `json:"created_at,omitempty"`
}

// Kind is what paused: "workflow", "agent" or "team".
func (p *Pause) Kind() string {
	switch {
	case p.AgentID != "":
		return kindAgent
	case p.TeamID != "":
		return kindTeam
	}
	return kindWorkflow
}

// ComponentID is the id of the workflow, agent or team that paused.
func (p *Pause) ComponentID() string { return cmp.Or(p.WorkflowID, p.AgentID, p.TeamID) }

// ComponentName is its name, or its id when it has none.
func (p *Pause) ComponentName() string {
	return cmp.Or(p.WorkflowName, p.AgentName, p.TeamName, p.ComponentID())
}

const (
	kindWorkflow = "workflow"
	kindAgent    = "agent"
	kindTeam     = "team"
)

// Finished is the end of a run the socket continued.
type Finished struct {
	RunID      string     `json:"run_id"`
	WorkflowID string     `json:"workflow_id,omitempty"`
	AgentID    string     `json:"agent_id,omitempty"`
	TeamID     string     `json:"team_id,omitempty"`
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
	AgentID    string `json:"agent_id,omitempty"`
	TeamID     string `json:"team_id,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
}

// Resumed says a pause was answered elsewhere: the run left PAUSED.
type Resumed struct {
	RunID string `json:"run_id"`
	// Status is the run's new status, when known.
	Status run.Status `json:"status,omitempty"`
}

type resumedLine struct {
	Event string `json:"event"`
	*Resumed
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
	AgentID          string          `json:"agent_id"`
	TeamID           string          `json:"team_id"`
	Requirements     json.RawMessage `json:"requirements"`
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
