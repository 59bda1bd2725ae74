package run

import (
	"encoding/json"
	"errors"

	"github.com/agno-go/agno/model"
)

// Errors for misuse of the run API. Run failures are not Go errors: they
// come back as an Output with status ERROR.
var (
	// ErrNotPaused: Continue on a run that is not paused.
	ErrNotPaused = errors.New("run is not paused")
	// ErrUnresolved: Continue with requirements still unanswered.
	ErrUnresolved = errors.New("run has unresolved requirements")
	// ErrNotFound: no run with that id.
	ErrNotFound = errors.New("run not found")
	// ErrNoStorage: the operation needs a Store.
	ErrNoStorage = errors.New("no storage configured")
	// ErrRunExists: a new run was given the id of a stored run.
	ErrRunExists = errors.New("a run with this run_id exists")
	// ErrInvalidAnswer: a continue payload that does not fit the paused
	// run (null, unknown or conflicting answers).
	ErrInvalidAnswer = errors.New("invalid answer")
)

// Request is one call to run an agent or team.
type Request struct {
	// Input is the user message.
	Input string
	// Messages, when set, are sent after history instead of a user message
	// built from Input (agno's list-of-messages input).
	Messages []model.Message
	// Images and Files are attached to the user message.
	Images []model.Image
	Files  []model.File

	// RunID is the run's id (default: a new UUID); SessionID its session
	// (created when missing); ParentRunID the run it is a child of.
	RunID       string
	SessionID   string
	UserID      string
	ParentRunID string
	// NewRunID: RunID was just made, or checked unused; NewSessionID:
	// SessionID was just made. A run then does not look them up before
	// its first write (which refuses a taken run id all the same).
	NewRunID, NewSessionID bool

	// SessionState is merged into the session state for this run;
	// Dependencies, Metadata and KnowledgeFilters are what WithDependencies,
	// WithMetadata and WithKnowledgeFilters set.
	SessionState     map[string]any
	Dependencies     map[string]any
	Metadata         map[string]any
	KnowledgeFilters map[string]any
	// OutputSchema, a JSON schema, asks this run for structured output in
	// place of the agent's schema (agno's per-run output_schema); the
	// content is then a map.
	OutputSchema json.RawMessage

	// Stream asks the model for a streamed response (token deltas).
	Stream bool
	// StreamEvents emits the full event set, not just content.
	StreamEvents bool
	// AddHistory overrides the agent's add_history_to_context.
	AddHistory *bool
	// HistoryOfChildRuns reads history from runs that have a parent (a
	// team member reading its runs from the team session).
	HistoryOfChildRuns bool
	// Nested marks a run inside another run's session (a team member, a
	// sub-agent, a workflow step): it does not write the session; the
	// parent stores the run.
	Nested bool
	// Workflow tags events and runs executed as a workflow step.
	Workflow *WorkflowTags
	// NestedDepth is 0 for top-level runs.
	NestedDepth int
	// AdditionalData is passed to workflow steps (StepInput.AdditionalData).
	AdditionalData map[string]any
	// StoreEvents persists the run's events even when the agent does not
	// (AgentOS forces it, as agno does).
	StoreEvents bool
	// Prepared: the caller created the run's row PENDING (a background
	// run), so the run updates it instead of creating it.
	Prepared bool
	// Resumable: clients may resume the run's stream, on any instance
	// (background and WebSocket runs): every event gets its event_index
	// and is stored as the run goes.
	Resumable bool
	// Cancelled: the run was cancelled before it began (agno's
	// cancel-before-start); it starts and ends CANCELLED at once.
	Cancelled bool
}

// WithAdditionalData passes data to workflow steps.
func WithAdditionalData(d map[string]any) Option { return func(r *Request) { r.AdditionalData = d } }

// WorkflowTags are the workflow fields stamped on events of a step's
// executor.
type WorkflowTags struct {
	WorkflowID    string
	WorkflowName  string
	WorkflowRunID string
	StepID        string
	StepName      string
	StepIndex     *int
	ParentStepID  string
}

// Option sets a field of a Request.
type Option func(*Request)

// WithSessionID runs in the given session (a new one is created when it
// does not exist).
func WithSessionID(id string) Option { return func(r *Request) { r.SessionID = id } }

// WithUserID sets the user.
func WithUserID(id string) Option { return func(r *Request) { r.UserID = id } }

// WithRunID fixes the run id (default: a new UUID).
func WithRunID(id string) Option { return func(r *Request) { r.RunID = id } }

// WithSessionState merges state into the session state for this run.
func WithSessionState(s map[string]any) Option { return func(r *Request) { r.SessionState = s } }

// WithDependencies sets run dependencies.
func WithDependencies(d map[string]any) Option { return func(r *Request) { r.Dependencies = d } }

// WithMetadata sets run metadata (the agent's own metadata wins on
// conflicts, as in agno).
func WithMetadata(m map[string]any) Option { return func(r *Request) { r.Metadata = m } }

// WithKnowledgeFilters filters this run's knowledge searches (agno's
// knowledge_filters), merged over the agent's own.
func WithKnowledgeFilters(f map[string]any) Option {
	return func(r *Request) { r.KnowledgeFilters = f }
}

// WithFiles attaches documents (PDF, text) to the user message.
func WithFiles(files ...model.File) Option {
	return func(r *Request) { r.Files = append(r.Files, files...) }
}

// WithImages attaches images to the user message.
func WithImages(imgs ...model.Image) Option {
	return func(r *Request) { r.Images = append(r.Images, imgs...) }
}

// WithMessages sends these messages instead of a user message.
func WithMessages(msgs ...model.Message) Option {
	return func(r *Request) { r.Messages = append(r.Messages, msgs...) }
}

// WithOutputSchema asks this run for structured output matching a JSON
// schema; the content is then a map.
func WithOutputSchema(schema json.RawMessage) Option {
	return func(r *Request) { r.OutputSchema = schema }
}

// WithStreamEvents emits the full event set in streams.
func WithStreamEvents(on bool) Option { return func(r *Request) { r.StreamEvents = on } }

// WithHistory overrides add_history_to_context for this run.
func WithHistory(on bool) Option { return func(r *Request) { r.AddHistory = &on } }

// WithParentRunID marks the run as a child of another run.
func WithParentRunID(id string) Option { return func(r *Request) { r.ParentRunID = id } }

// ContinueRequest continues a paused run.
type ContinueRequest struct {
	// RunID names the paused run (loaded from storage); or pass Output.
	RunID     string
	SessionID string
	UserID    string
	// Output is the paused run itself, when the caller holds it.
	Output *Output
	// Requirements are the resolved requirements (matched by id).
	Requirements []*Requirement
	// Tools are resolved tool executions (agno's legacy updated_tools,
	// and the AgentOS `tools` form field), matched by tool_call_id.
	Tools []*ToolExecution

	// Stream, StreamEvents, Dependencies and Metadata: as in Request.
	Stream       bool
	StreamEvents bool
	Dependencies map[string]any
	Metadata     map[string]any
	// SessionState is merged over the stored state (a team hands a member
	// its copy of the team state).
	SessionState map[string]any
	// Nested: see Request.Nested.
	Nested bool
	// Workflow tags events of a step's executor.
	Workflow *WorkflowTags
	// StoreEvents: see Request.StoreEvents.
	StoreEvents bool
	// Resumable: see Request.Resumable.
	Resumable bool
}
