package run

import "encoding/json"

// Workflow events (agno's WorkflowRunEvent). Their base carries
// workflow_id, workflow_name, session_id, run_id, step_id,
// parent_step_id and nested_depth. Payloads that are documents of the
// workflow package (step outputs, requirements, run outputs) are carried
// as JSON so this package stays below workflow.

// WorkflowStarted opens a workflow run.
type WorkflowStarted struct{ EventBase }

// WorkflowCompleted closes a workflow run.
type WorkflowCompleted struct {
	EventBase
	Content          any             `json:"content,omitempty"`
	ContentType      string          `json:"content_type,omitempty"`
	StepResults      json.RawMessage `json:"step_results,omitempty"`
	StepExecutorRuns json.RawMessage `json:"step_executor_runs,omitempty"`
	Metadata         map[string]any  `json:"metadata,omitempty"`
	RunOutput        json.RawMessage `json:"run_output,omitempty"`
}

// WorkflowPaused snapshots a paused workflow with its requirements.
type WorkflowPaused struct {
	EventBase
	Status           Status          `json:"status"`
	PausedStepIndex  *int            `json:"paused_step_index,omitempty"`
	PausedStepName   string          `json:"paused_step_name,omitempty"`
	PauseKind        string          `json:"pause_kind,omitempty"`
	StepRequirements json.RawMessage `json:"step_requirements,omitempty"`
	StepResults      json.RawMessage `json:"step_results,omitempty"`
	StepExecutorRuns json.RawMessage `json:"step_executor_runs,omitempty"`
	Content          any             `json:"content,omitempty"`
	Metadata         map[string]any  `json:"metadata,omitempty"`
}

// WorkflowCancelled reports a cancelled workflow.
type WorkflowCancelled struct {
	EventBase
	Reason  string `json:"reason,omitempty"`
	Content any    `json:"content,omitempty"`
}

// WorkflowError reports a failed workflow.
type WorkflowError struct {
	EventBase
	Error          string         `json:"error,omitempty"`
	ErrorType      string         `json:"error_type,omitempty"`
	ErrorID        string         `json:"error_id,omitempty"`
	AdditionalData map[string]any `json:"additional_data,omitempty"`
}

// WorkflowAgentStarted opens a workflow agent's turn, before it decides
// whether to run the workflow or answer from history.
type WorkflowAgentStarted struct{ EventBase }

// WorkflowAgentCompleted closes a workflow agent's turn with its answer.
type WorkflowAgentCompleted struct {
	EventBase
	Content any `json:"content,omitempty"`
}

// StepStarted opens a step.
type StepStarted struct {
	EventBase
}

// StepCompleted closes a step.
type StepCompleted struct {
	EventBase
	Content      any             `json:"content,omitempty"`
	ContentType  string          `json:"content_type,omitempty"`
	StepResponse json.RawMessage `json:"step_response,omitempty"`
}

// StepPaused reports a step waiting for a human.
type StepPaused struct {
	EventBase
	RequiresConfirmation bool            `json:"requires_confirmation"`
	ConfirmationMessage  string          `json:"confirmation_message,omitempty"`
	RequiresUserInput    bool            `json:"requires_user_input"`
	UserInputMessage     string          `json:"user_input_message,omitempty"`
	UserInputSchema      json.RawMessage `json:"user_input_schema,omitempty"`
}

// StepContinued reports a paused step resuming.
type StepContinued struct{ EventBase }

// StepExecutorPaused reports an agent or team inside a step pausing.
type StepExecutorPaused struct {
	EventBase
	ExecutorID           string          `json:"executor_id,omitempty"`
	ExecutorName         string          `json:"executor_name,omitempty"`
	ExecutorRunID        string          `json:"executor_run_id,omitempty"`
	ExecutorType         string          `json:"executor_type,omitempty"`
	ExecutorRequirements json.RawMessage `json:"executor_requirements,omitempty"`
}

// StepExecutorContinued reports the paused executor resuming.
type StepExecutorContinued struct {
	EventBase
	ExecutorID    string `json:"executor_id,omitempty"`
	ExecutorName  string `json:"executor_name,omitempty"`
	ExecutorRunID string `json:"executor_run_id,omitempty"`
	ExecutorType  string `json:"executor_type,omitempty"`
}

// StepOutputReview asks a human to review a step's output.
type StepOutputReview struct {
	EventBase
	OutputReviewMessage  string          `json:"output_review_message,omitempty"`
	RequiresOutputReview bool            `json:"requires_output_review"`
	StepOutput           json.RawMessage `json:"step_output,omitempty"`
}

// StepError reports a failed step.
type StepError struct {
	EventBase
	Error string `json:"error,omitempty"`
}

// LoopExecutionStarted opens a loop.
type LoopExecutionStarted struct {
	EventBase
	MaxIterations int `json:"max_iterations"`
}

// LoopIterationStarted opens an iteration.
type LoopIterationStarted struct {
	EventBase
	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`
}

// LoopIterationCompleted closes an iteration.
type LoopIterationCompleted struct {
	EventBase
	Iteration        int             `json:"iteration"`
	MaxIterations    int             `json:"max_iterations"`
	IterationResults json.RawMessage `json:"iteration_results,omitempty"`
	ShouldContinue   bool            `json:"should_continue"`
}

// LoopExecutionCompleted closes a loop.
type LoopExecutionCompleted struct {
	EventBase
	TotalIterations int             `json:"total_iterations"`
	AllResults      json.RawMessage `json:"all_results,omitempty"`
}

// ParallelExecutionStarted opens a parallel block.
type ParallelExecutionStarted struct {
	EventBase
	ParallelStepCount int `json:"parallel_step_count"`
}

// ParallelExecutionCompleted closes a parallel block.
type ParallelExecutionCompleted struct {
	EventBase
	ParallelStepCount int             `json:"parallel_step_count"`
	StepResults       json.RawMessage `json:"step_results,omitempty"`
}

// ConditionExecutionStarted opens a condition.
type ConditionExecutionStarted struct {
	EventBase
	ConditionResult *bool `json:"condition_result,omitempty"`
}

// ConditionExecutionCompleted closes a condition.
type ConditionExecutionCompleted struct {
	EventBase
	ConditionResult *bool           `json:"condition_result,omitempty"`
	ExecutedSteps   int             `json:"executed_steps"`
	Branch          string          `json:"branch,omitempty"`
	StepResults     json.RawMessage `json:"step_results,omitempty"`
}

// RouterExecutionStarted opens a router.
type RouterExecutionStarted struct {
	EventBase
	SelectedSteps []string `json:"selected_steps,omitempty"`
}

// RouterExecutionCompleted closes a router.
type RouterExecutionCompleted struct {
	EventBase
	SelectedSteps []string        `json:"selected_steps,omitempty"`
	ExecutedSteps int             `json:"executed_steps"`
	StepResults   json.RawMessage `json:"step_results,omitempty"`
}

// RouterPaused asks a human to choose the route.
type RouterPaused struct {
	EventBase
	AvailableChoices        []string `json:"available_choices,omitempty"`
	UserInputMessage        string   `json:"user_input_message,omitempty"`
	AllowMultipleSelections bool     `json:"allow_multiple_selections"`
}

// StepsExecutionStarted opens a Steps group.
type StepsExecutionStarted struct {
	EventBase
	StepsCount int `json:"steps_count"`
}

// StepsExecutionCompleted closes a Steps group.
type StepsExecutionCompleted struct {
	EventBase
	StepsCount    int             `json:"steps_count"`
	ExecutedSteps int             `json:"executed_steps"`
	StepResults   json.RawMessage `json:"step_results,omitempty"`
}

// StepOutputEvent carries a function step's output (event "StepOutput").
type StepOutputEvent struct {
	EventBase
	StepOutput json.RawMessage `json:"step_output,omitempty"`
}

// Kind is "WorkflowStarted".
func (e *WorkflowStarted) Kind() string { return "WorkflowStarted" }

// Kind is "WorkflowCompleted".
func (e *WorkflowCompleted) Kind() string { return "WorkflowCompleted" }

// Kind is "WorkflowPaused".
func (e *WorkflowPaused) Kind() string { return "WorkflowPaused" }

// Kind is "WorkflowCancelled".
func (e *WorkflowCancelled) Kind() string { return "WorkflowCancelled" }

// Kind is "WorkflowError".
func (e *WorkflowError) Kind() string { return "WorkflowError" }

// Kind is "WorkflowAgentStarted".
func (e *WorkflowAgentStarted) Kind() string { return "WorkflowAgentStarted" }

// Kind is "WorkflowAgentCompleted".
func (e *WorkflowAgentCompleted) Kind() string { return "WorkflowAgentCompleted" }

// Kind is "StepStarted".
func (e *StepStarted) Kind() string { return "StepStarted" }

// Kind is "StepCompleted".
func (e *StepCompleted) Kind() string { return "StepCompleted" }

// Kind is "StepPaused".
func (e *StepPaused) Kind() string { return "StepPaused" }

// Kind is "StepContinued".
func (e *StepContinued) Kind() string { return "StepContinued" }

// Kind is "StepExecutorPaused".
func (e *StepExecutorPaused) Kind() string { return "StepExecutorPaused" }

// Kind is "StepExecutorContinued".
func (e *StepExecutorContinued) Kind() string { return "StepExecutorContinued" }

// Kind is "StepOutputReview".
func (e *StepOutputReview) Kind() string { return "StepOutputReview" }

// Kind is "StepError".
func (e *StepError) Kind() string { return "StepError" }

// Kind is "LoopExecutionStarted".
func (e *LoopExecutionStarted) Kind() string { return "LoopExecutionStarted" }

// Kind is "LoopIterationStarted".
func (e *LoopIterationStarted) Kind() string { return "LoopIterationStarted" }

// Kind is "LoopIterationCompleted".
func (e *LoopIterationCompleted) Kind() string { return "LoopIterationCompleted" }

// Kind is "LoopExecutionCompleted".
func (e *LoopExecutionCompleted) Kind() string { return "LoopExecutionCompleted" }

// Kind is "ParallelExecutionStarted".
func (e *ParallelExecutionStarted) Kind() string { return "ParallelExecutionStarted" }

// Kind is "ParallelExecutionCompleted".
func (e *ParallelExecutionCompleted) Kind() string { return "ParallelExecutionCompleted" }

// Kind is "ConditionExecutionStarted".
func (e *ConditionExecutionStarted) Kind() string { return "ConditionExecutionStarted" }

// Kind is "ConditionExecutionCompleted".
func (e *ConditionExecutionCompleted) Kind() string { return "ConditionExecutionCompleted" }

// Kind is "RouterExecutionStarted".
func (e *RouterExecutionStarted) Kind() string { return "RouterExecutionStarted" }

// Kind is "RouterExecutionCompleted".
func (e *RouterExecutionCompleted) Kind() string { return "RouterExecutionCompleted" }

// Kind is "RouterPaused".
func (e *RouterPaused) Kind() string { return "RouterPaused" }

// Kind is "StepsExecutionStarted".
func (e *StepsExecutionStarted) Kind() string { return "StepsExecutionStarted" }

// Kind is "StepsExecutionCompleted".
func (e *StepsExecutionCompleted) Kind() string { return "StepsExecutionCompleted" }

// Kind is "StepOutput".
func (e *StepOutputEvent) Kind() string { return "StepOutput" }
