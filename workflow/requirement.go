package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agno-go/agno/run"
)

// InputField is one value a human supplies for a step (agno's workflow
// UserInputField). FieldType is str, int, float, bool, list or dict.
type InputField struct {
	Name          string `json:"name" toml:"name"`
	FieldType     string `json:"field_type" toml:"field_type"`
	Description   string `json:"description,omitempty" toml:"description"`
	Value         any    `json:"value,omitempty" toml:"-"` // the human's answer
	Required      *bool  `json:"required,omitempty" toml:"required"`
	AllowedValues []any  `json:"allowed_values,omitempty" toml:"allowed_values"`
}

func (f InputField) required() bool { return f.Required == nil || *f.Required }

// StepRequirement is what a paused step waits for (agno's
// StepRequirement). Resolve it with Confirm, Reject, SetUserInput, Select,
// Edit or by answering ExecutorRequirements, then continue the run.
type StepRequirement struct {
	StepID    string `json:"step_id"`
	StepName  string `json:"step_name,omitempty"`
	StepIndex *int   `json:"step_index,omitempty"`
	StepType  string `json:"step_type,omitempty"`

	RequiresConfirmation bool     `json:"requires_confirmation"`
	ConfirmationMessage  string   `json:"confirmation_message,omitempty"`
	Confirmed            *bool    `json:"confirmed"`
	OnReject             OnReject `json:"on_reject,omitempty"`

	RequiresUserInput bool           `json:"requires_user_input"`
	UserInputMessage  string         `json:"user_input_message,omitempty"`
	UserInputSchema   []InputField   `json:"user_input_schema,omitempty"`
	UserInput         map[string]any `json:"user_input,omitempty"`

	RequiresRouteSelection  bool     `json:"requires_route_selection"`
	AvailableChoices        []string `json:"available_choices,omitempty"`
	AllowMultipleSelections bool     `json:"allow_multiple_selections"`
	SelectedChoices         []string `json:"selected_choices,omitempty"`

	RequiresOutputReview bool        `json:"requires_output_review"`
	OutputReviewMessage  string      `json:"output_review_message,omitempty"`
	StepOutput           *StepOutput `json:"step_output,omitempty"`
	IsPostExecution      bool        `json:"is_post_execution"`
	RejectionFeedback    string      `json:"rejection_feedback,omitempty"`
	EditedOutput         any         `json:"edited_output,omitempty"`
	RetryCount           int         `json:"retry_count"`
	MaxRetries           int         `json:"max_retries"`
	TimeoutAt            *int64      `json:"timeout_at,omitempty"`
	OnTimeout            OnTimeout   `json:"on_timeout,omitempty"`

	RequiresExecutorInput bool               `json:"requires_executor_input,omitempty"`
	ExecutorRequirements  []*run.Requirement `json:"executor_requirements,omitempty"`
	ExecutorID            string             `json:"executor_id,omitempty"`
	ExecutorName          string             `json:"executor_name,omitempty"`
	ExecutorRunID         string             `json:"executor_run_id,omitempty"`
	ExecutorType          string             `json:"executor_type,omitempty"`
	ExecutorSessionID     string             `json:"executor_session_id,omitempty"`
}

// Errors of resolving a requirement the wrong way.
var (
	ErrNotAsked = errors.New("workflow: the requirement does not ask for this")
	// ErrInvalidUserInput: user input that does not match the schema.
	ErrInvalidUserInput = errors.New("invalid user input")
)

// Kind names what the requirement waits for: confirmation, user_input,
// route_selection, output_review or executor.
func (r *StepRequirement) Kind() string {
	switch {
	case r.RequiresExecutorInput:
		return "executor"
	case r.RequiresRouteSelection:
		return "route_selection"
	case r.RequiresOutputReview:
		return "output_review"
	case r.RequiresUserInput:
		return "user_input"
	}
	return "confirmation"
}

// Resolved reports whether the requirement has its answer.
func (r *StepRequirement) Resolved() bool {
	switch {
	case r.RequiresExecutorInput:
		return len(run.Active(r.ExecutorRequirements)) == 0
	case r.RequiresRouteSelection:
		return len(r.SelectedChoices) > 0 || (r.Confirmed != nil && !*r.Confirmed)
	case r.RequiresOutputReview:
		return r.Confirmed != nil || r.EditedOutput != nil
	case r.RequiresUserInput:
		return r.UserInput != nil || (r.Confirmed != nil && !*r.Confirmed)
	}
	return r.Confirmed != nil
}

// Confirm approves the step (or its output, for a review).
func (r *StepRequirement) Confirm() {
	yes := true
	r.Confirmed = &yes
}

// Reject refuses the step; feedback reaches a retried step.
func (r *StepRequirement) Reject(feedback string) {
	no := false
	r.Confirmed = &no
	r.RejectionFeedback = feedback
}

// Edit replaces a reviewed step's output.
func (r *StepRequirement) Edit(output any) error {
	if !r.RequiresOutputReview {
		return ErrNotAsked
	}
	r.EditedOutput = output
	r.Confirm()
	return nil
}

// SetUserInput records the human's values after checking them against
// the schema.
func (r *StepRequirement) SetUserInput(values map[string]any) error {
	if !r.RequiresUserInput || r.RequiresRouteSelection {
		return ErrNotAsked
	}
	if err := r.validateUserInput(values); err != nil {
		return err
	}
	r.UserInput = values
	r.Confirm()
	return nil
}

// Select picks the router's route(s) by name.
func (r *StepRequirement) Select(names ...string) error {
	if !r.RequiresRouteSelection {
		return ErrNotAsked
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: select at least one of %s", ErrInvalidUserInput, strings.Join(r.AvailableChoices, ", "))
	}
	if len(names) > 1 && !r.AllowMultipleSelections {
		return fmt.Errorf("%w: step %q takes one route, got %d", ErrInvalidUserInput, r.StepName, len(names))
	}
	for _, n := range names {
		if !slices.Contains(r.AvailableChoices, n) {
			return fmt.Errorf("%w: %q is not a route of step %q (choices: %s)", ErrInvalidUserInput, n, r.StepName, strings.Join(r.AvailableChoices, ", "))
		}
	}
	r.SelectedChoices = names
	r.Confirm()
	return nil
}

// validateUserInput checks values against the schema with agno's texts:
// "Invalid user_input for step '<name>': User input validation failed:\n  - …".
func (r *StepRequirement) validateUserInput(values map[string]any) error {
	var problems []string
	for _, f := range r.UserInputSchema {
		v, ok := values[f.Name]
		if !ok || v == nil {
			if f.required() {
				problems = append(problems, fmt.Sprintf("Field '%s' is required", f.Name))
			}
			continue
		}
		if got := pythonType(v); !typeMatches(f.FieldType, v) {
			problems = append(problems, fmt.Sprintf("Field '%s' expected %s, got %s", f.Name, f.FieldType, got))
			continue
		}
		if len(f.AllowedValues) > 0 && !allowed(f.AllowedValues, v) {
			problems = append(problems, fmt.Sprintf("Field '%s' must be one of %s", f.Name, pyListRepr(f.AllowedValues)))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: Invalid user_input for step '%s': User input validation failed:\n  - %s", ErrInvalidUserInput, r.StepName, strings.Join(problems, "\n  - "))
}

// pythonType names a JSON value's type as Python does.
func pythonType(v any) string {
	switch x := v.(type) {
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case float64, float32:
		return "float"
	case int, int64, int32:
		return "int"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case nil:
		return "NoneType"
	}
	return fmt.Sprintf("%T", v)
}

func typeMatches(want string, v any) bool {
	got := pythonType(v)
	switch want {
	case "", "any":
		return true
	case "float":
		return got == "float" || got == "int"
	}
	return got == want
}

func allowed(list []any, v any) bool {
	for _, a := range list {
		if fmt.Sprint(a) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

func pyListRepr(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		if s, ok := v.(string); ok {
			parts[i] = "'" + s + "'"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ParseStepRequirements decodes the step_requirements a client sends
// back (AgentOS form field, WebSocket and Unix-socket messages), checking
// user input against the schema (agno's StepRequirement.from_dict).
func ParseStepRequirements(b []byte) ([]*StepRequirement, error) {
	var reqs []*StepRequirement
	if err := run.DecodeJSON(b, &reqs); err != nil {
		return nil, fmt.Errorf("invalid step_requirements: %w", err)
	}
	for i, r := range reqs {
		if r == nil {
			return nil, fmt.Errorf("invalid step_requirements: step_requirements[%d] is null; send the step requirements of the paused run, answered", i)
		}
		if r.StepID == "" {
			return nil, fmt.Errorf("invalid step_requirements: step_requirements[%d] has no step_id; copy it from the paused run", i)
		}
		if r.UserInput != nil && len(r.UserInputSchema) > 0 {
			if err := r.validateUserInput(r.UserInput); err != nil {
				return nil, err
			}
		}
	}
	return reqs, nil
}

// ErrorRequirement is a step that failed with on_error "pause": the human
// decides whether to retry or skip it.
type ErrorRequirement struct {
	StepID    string `json:"step_id"`
	StepName  string `json:"step_name,omitempty"`
	StepIndex *int   `json:"step_index,omitempty"`
	// Error is the failure's text; ErrorType its Go type.
	Error      string `json:"error_message"`
	ErrorType  string `json:"error_type,omitempty"`
	RetryCount int    `json:"retry_count"`
	// Decision is "retry" or "skip".
	Decision string `json:"decision,omitempty"`
}
