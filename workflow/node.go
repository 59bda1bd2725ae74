package workflow

import (
	"context"
	"time"

	"github.com/agno-go/agno/run"
)

// Node is one element of a workflow's steps: *Step, *Steps, *Loop,
// *Parallel, *Condition or *Router.
type Node interface {
	nodeName() string
	nodeType() string
	human() *HumanReview
}

// OnReject says what a rejected step does.
type OnReject string

// Rejection outcomes.
const (
	RejectSkip   OnReject = "skip"
	RejectCancel OnReject = "cancel"
	RejectElse   OnReject = "else" // Condition: take the else branch
	RejectRetry  OnReject = "retry"
)

// OnError says what a step that still fails after its retries does.
type OnError string

// Failure outcomes.
const (
	ErrorSkip  OnError = "skip"
	ErrorFail  OnError = "fail"
	ErrorPause OnError = "pause"
)

// OnTimeout says what an unanswered pause does once its timeout passed.
type OnTimeout string

// Timeout outcomes.
const (
	TimeoutCancel  OnTimeout = "cancel"
	TimeoutSkip    OnTimeout = "skip"
	TimeoutApprove OnTimeout = "approve"
)

// HumanReview configures human-in-the-loop on a node (agno's HumanReview
// and the flat HITL fields).
type HumanReview struct {
	// RequiresConfirmation pauses before the node runs.
	RequiresConfirmation bool   `toml:"requires_confirmation"`
	ConfirmationMessage  string `toml:"confirmation_message"`
	// RequiresUserInput pauses before a Step runs to collect values; on a
	// Router it lets the human choose the route.
	RequiresUserInput bool         `toml:"requires_user_input"`
	UserInputMessage  string       `toml:"user_input_message"`
	UserInputSchema   []InputField `toml:"user_input_schema"`
	// RequiresOutputReview pauses after a Step ran so a human can accept,
	// reject or edit its output; OutputReviewIf decides per output.
	RequiresOutputReview bool                   `toml:"requires_output_review"`
	OutputReviewIf       func(*StepOutput) bool `toml:"-"`
	OutputReviewMessage  string                 `toml:"output_review_message"`
	OnReject             OnReject               `toml:"on_reject"`
	// Timeout bounds how long a pause may wait; OnTimeout decides then.
	Timeout   time.Duration `toml:"timeout_seconds"`
	OnTimeout OnTimeout     `toml:"on_timeout"`
	// Approval marks the node's pause for agno's approvals: "required"
	// (AgentOS records a pending approval an admin resolves) or "audit"
	// (the answer is recorded). It needs one of the pauses above.
	Approval string `toml:"approval"`
}

func (h *HumanReview) onReject(def OnReject) OnReject {
	if h == nil || h.OnReject == "" {
		return def
	}
	return h.OnReject
}

// StepFunc is a Go function step. The run context (session state) is
// reached with run.FromContext(ctx).
type StepFunc func(ctx context.Context, in *StepInput) (*StepOutput, error)

// Step runs one executor: an agent or team (Agent), a Go function (Func),
// or a nested workflow (Workflow) — exactly one of them.
type Step struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Description string `toml:"description"`

	Agent    run.Executor `toml:"agent"`
	Func     StepFunc     `toml:"function"`
	Workflow *Workflow    `toml:"workflow"`

	// MaxRetries bounds attempts after a failure (default 3); also bounds
	// rejected-output retries.
	MaxRetries    *int    `toml:"max_retries"`
	SkipOnFailure bool    `toml:"skip_on_failure"`
	OnError       OnError `toml:"on_error"` // default skip
	// AddWorkflowHistory gives the executor earlier runs of the workflow.
	AddWorkflowHistory bool `toml:"add_workflow_history"`
	NumHistoryRuns     int  `toml:"num_history_runs"`

	HumanReview
}

// Steps runs nodes in sequence as one step.
type Steps struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Description string `toml:"description"`
	Steps       []Node `toml:"steps"`
	HumanReview
}

// Loop repeats its steps until EndCondition holds, a step stops the
// workflow, or MaxIterations (default 3) is reached.
type Loop struct {
	Name          string                           `toml:"name"`
	ID            string                           `toml:"id"`
	Description   string                           `toml:"description"`
	Steps         []Node                           `toml:"steps"`
	MaxIterations int                              `toml:"max_iterations"`
	EndCondition  func(outputs []*StepOutput) bool `toml:"end_condition"`
	// EndConditionAt, when set, is used instead of EndCondition and also
	// gets the iteration (from 1) and the maximum; an error fails the
	// loop (and the run).
	EndConditionAt func(outputs []*StepOutput, iteration, maxIterations int) (bool, error) `toml:"end_condition"`
	HumanReview
}

// Parallel runs its steps at the same time; each sees the same input.
type Parallel struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Description string `toml:"description"`
	Steps       []Node `toml:"steps"`
	HumanReview
}

// Condition runs Steps when Evaluator is true, else ElseSteps.
type Condition struct {
	Name        string                                                 `toml:"name"`
	ID          string                                                 `toml:"id"`
	Description string                                                 `toml:"description"`
	Evaluator   func(ctx context.Context, in *StepInput) (bool, error) `toml:"evaluator"`
	Steps       []Node                                                 `toml:"steps"`
	ElseSteps   []Node                                                 `toml:"else_steps"`
	HumanReview
}

// Router runs the choices a Selector names — or a human picks them when
// RequiresUserInput is set.
type Router struct {
	Name        string                                                                       `toml:"name"`
	ID          string                                                                       `toml:"id"`
	Description string                                                                       `toml:"description"`
	Choices     []Node                                                                       `toml:"choices"`
	Selector    func(ctx context.Context, in *StepInput, choices []string) ([]string, error) `toml:"selector"`
	// AllowMultipleSelections lets the human pick several choices.
	AllowMultipleSelections bool `toml:"allow_multiple_selections"`
	HumanReview
}

func (s *Step) nodeName() string      { return s.Name }
func (s *Steps) nodeName() string     { return s.Name }
func (s *Loop) nodeName() string      { return s.Name }
func (s *Parallel) nodeName() string  { return s.Name }
func (s *Condition) nodeName() string { return s.Name }
func (s *Router) nodeName() string    { return s.Name }

func (s *Step) nodeType() string {
	switch {
	case s.Func != nil:
		return "Function"
	case s.Workflow != nil:
		return "Workflow"
	}
	return "Step"
}
func (s *Steps) nodeType() string     { return "Steps" }
func (s *Loop) nodeType() string      { return "Loop" }
func (s *Parallel) nodeType() string  { return "Parallel" }
func (s *Condition) nodeType() string { return "Condition" }
func (s *Router) nodeType() string    { return "Router" }

func (s *Step) human() *HumanReview      { return &s.HumanReview }
func (s *Steps) human() *HumanReview     { return &s.HumanReview }
func (s *Loop) human() *HumanReview      { return &s.HumanReview }
func (s *Parallel) human() *HumanReview  { return &s.HumanReview }
func (s *Condition) human() *HumanReview { return &s.HumanReview }
func (s *Router) human() *HumanReview    { return &s.HumanReview }

func nodeID(n Node) string {
	switch x := n.(type) {
	case *Step:
		return x.ID
	case *Steps:
		return x.ID
	case *Loop:
		return x.ID
	case *Parallel:
		return x.ID
	case *Condition:
		return x.ID
	case *Router:
		return x.ID
	}
	return ""
}

func children(n Node) [][]Node {
	switch x := n.(type) {
	case *Steps:
		return [][]Node{x.Steps}
	case *Loop:
		return [][]Node{x.Steps}
	case *Parallel:
		return [][]Node{x.Steps}
	case *Condition:
		return [][]Node{x.Steps, x.ElseSteps}
	case *Router:
		return [][]Node{x.Choices}
	}
	return nil
}
