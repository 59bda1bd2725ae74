package run

import (
	"errors"
	"time"
)

// PauseType names what a requirement waits for.
type PauseType string

// Pause types, as agno names them.
const (
	PauseConfirmation      PauseType = "confirmation"
	PauseUserInput         PauseType = "user_input"
	PauseUserFeedback      PauseType = "user_feedback"
	PauseExternalExecution PauseType = "external_execution"
)

// ErrNotRequired is returned when a requirement is resolved in a way it
// does not ask for (confirming a user-input pause, say).
var ErrNotRequired = errors.New("run: the requirement does not ask for this")

// Requirement is what a paused run needs before it can continue (agno's
// RunRequirement). Resolve it with Confirm, Reject, ProvideUserInput or
// SetExternalResult, then continue the run.
type Requirement struct {
	ID string `json:"id"`
	// CreatedAt is ISO 8601 UTC, as Python's isoformat writes it.
	CreatedAt string `json:"created_at,omitempty"`

	// The answers, nil until given; the resolving methods set them.
	Confirmation            *bool   `json:"confirmation,omitempty"`
	ConfirmationNote        *string `json:"confirmation_note,omitempty"`
	ExternalExecutionResult *string `json:"external_execution_result,omitempty"`

	// Set when the pause comes from a team member.
	MemberAgentID   string `json:"member_agent_id,omitempty"`
	MemberAgentName string `json:"member_agent_name,omitempty"`
	MemberRunID     string `json:"member_run_id,omitempty"`

	// ToolExecution is the paused call; the schemas start as its own.
	ToolExecution      *ToolExecution     `json:"tool_execution,omitempty"`
	UserInputSchema    []UserInputField   `json:"user_input_schema,omitempty"`
	UserFeedbackSchema []FeedbackQuestion `json:"user_feedback_schema,omitempty"`
}

// isoTime renders a time as Python's datetime.isoformat() does for UTC.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000+00:00")
}

// NewRequirement builds the requirement of a paused tool call.
func NewRequirement(t *ToolExecution) *Requirement {
	return &Requirement{
		ID:                 NewID(),
		CreatedAt:          isoTime(time.Now()),
		ToolExecution:      t,
		UserInputSchema:    t.UserInputSchema,
		UserFeedbackSchema: t.UserFeedbackSchema,
	}
}

// NeedsConfirmation reports an unanswered confirmation.
func (r *Requirement) NeedsConfirmation() bool {
	if r.Confirmation != nil || r.ToolExecution == nil || r.ToolExecution.Confirmed != nil {
		return false
	}
	return r.ToolExecution.RequiresConfirmation
}

// NeedsUserInput reports missing user input.
func (r *Requirement) NeedsUserInput() bool {
	t := r.ToolExecution
	if t == nil || (t.Answered != nil && *t.Answered) {
		return false
	}
	if t.RequiresUserInput {
		return true
	}
	for _, f := range r.UserInputSchema {
		if f.Value == nil {
			return true
		}
	}
	return false
}

// NeedsUserFeedback reports unanswered feedback questions.
func (r *Requirement) NeedsUserFeedback() bool {
	t := r.ToolExecution
	if t == nil || (t.Answered != nil && *t.Answered) {
		return false
	}
	for _, q := range r.UserFeedbackSchema {
		if q.SelectedOptions == nil {
			return true
		}
	}
	return false
}

// NeedsExternalExecution reports a missing external result.
func (r *Requirement) NeedsExternalExecution() bool {
	if r.ToolExecution == nil || r.ExternalExecutionResult != nil {
		return false
	}
	return r.ToolExecution.ExternalExecutionRequired
}

// Resolved reports whether nothing is left to answer.
func (r *Requirement) Resolved() bool {
	return !r.NeedsConfirmation() && !r.NeedsUserInput() && !r.NeedsUserFeedback() && !r.NeedsExternalExecution()
}

// PauseType is the kind of answer the requirement waits for; the most
// specific kind wins, as in agno.
func (r *Requirement) PauseType() PauseType {
	t := r.ToolExecution
	switch {
	case t == nil:
		return PauseConfirmation
	case len(t.UserFeedbackSchema) > 0:
		return PauseUserFeedback
	case t.ExternalExecutionRequired:
		return PauseExternalExecution
	case t.RequiresUserInput:
		return PauseUserInput
	}
	return PauseConfirmation
}

// Confirm approves the paused call.
func (r *Requirement) Confirm() error {
	if !r.NeedsConfirmation() {
		return ErrNotRequired
	}
	yes := true
	r.Confirmation = &yes
	r.ToolExecution.Confirmed = &yes
	return nil
}

// Reject refuses the paused call; note is shown to the model.
func (r *Requirement) Reject(note string) error {
	if !r.NeedsConfirmation() {
		return ErrNotRequired
	}
	no := false
	r.Confirmation = &no
	r.ToolExecution.Confirmed = &no
	if note != "" {
		r.ConfirmationNote = &note
		r.ToolExecution.ConfirmationNote = &note
	}
	return nil
}

// ProvideUserInput fills user-input fields by name; the requirement is
// answered once every field has a value.
func (r *Requirement) ProvideUserInput(values map[string]any) error {
	if !r.NeedsUserInput() {
		return ErrNotRequired
	}
	fill := func(fields []UserInputField) {
		for i := range fields {
			if v, ok := values[fields[i].Name]; ok {
				fields[i].Value = v
			}
		}
	}
	fill(r.UserInputSchema)
	if r.ToolExecution != nil && !sameFields(r.ToolExecution.UserInputSchema, r.UserInputSchema) {
		fill(r.ToolExecution.UserInputSchema)
	}
	for _, f := range r.UserInputSchema {
		if f.Value == nil {
			return nil
		}
	}
	yes := true
	r.ToolExecution.Answered = &yes
	return nil
}

func sameFields(a, b []UserInputField) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// ProvideUserFeedback records selected option labels per question.
func (r *Requirement) ProvideUserFeedback(selections map[string][]string) error {
	if !r.NeedsUserFeedback() {
		return ErrNotRequired
	}
	apply := func(qs []FeedbackQuestion) {
		for i := range qs {
			sel, ok := selections[qs[i].Question]
			if !ok {
				continue
			}
			qs[i].SelectedOptions = sel
			for j := range qs[i].Options {
				qs[i].Options[j].Selected = contains(sel, qs[i].Options[j].Label)
			}
		}
	}
	apply(r.UserFeedbackSchema)
	if r.ToolExecution != nil && len(r.ToolExecution.UserFeedbackSchema) > 0 &&
		&r.ToolExecution.UserFeedbackSchema[0] != &r.UserFeedbackSchema[0] {
		apply(r.ToolExecution.UserFeedbackSchema)
	}
	for _, q := range r.UserFeedbackSchema {
		if q.SelectedOptions == nil {
			return nil
		}
	}
	yes := true
	r.ToolExecution.Answered = &yes
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SetExternalResult supplies the result of an externally executed call.
func (r *Requirement) SetExternalResult(result string) error {
	if !r.NeedsExternalExecution() {
		return ErrNotRequired
	}
	r.ExternalExecutionResult = &result
	r.ToolExecution.SetResult(result)
	return nil
}

// Active returns the unresolved requirements.
func Active(reqs []*Requirement) []*Requirement {
	var out []*Requirement
	for _, r := range reqs {
		if !r.Resolved() {
			out = append(out, r)
		}
	}
	return out
}
