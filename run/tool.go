package run

// ToolExecution is one tool call of a run, as agno records it.
type ToolExecution struct {
	ToolCallID    string         `json:"tool_call_id,omitempty"`
	ToolName      string         `json:"tool_name,omitempty"`
	ToolArgs      map[string]any `json:"tool_args,omitempty"`
	ToolCallError bool           `json:"tool_call_error,omitempty"`
	Result        *string        `json:"result,omitempty"`
	Metrics       *ToolMetrics   `json:"metrics,omitempty"`
	// ChildRunID is the run a tool started (a member or sub-agent run).
	ChildRunID string `json:"child_run_id,omitempty"`
	// StopAfterToolCall ends the model loop after this call; its result
	// becomes the content.
	StopAfterToolCall bool  `json:"stop_after_tool_call"`
	CreatedAt         int64 `json:"created_at"`

	// The human-in-the-loop flags are copied from the tool's definition;
	// the pointers are the human's answers, nil until given.
	RequiresConfirmation bool    `json:"requires_confirmation,omitempty"`
	Confirmed            *bool   `json:"confirmed,omitempty"`
	ConfirmationNote     *string `json:"confirmation_note,omitempty"`

	RequiresUserInput  bool               `json:"requires_user_input,omitempty"`
	UserInputSchema    []UserInputField   `json:"user_input_schema,omitempty"`
	UserFeedbackSchema []FeedbackQuestion `json:"user_feedback_schema,omitempty"`
	Answered           *bool              `json:"answered,omitempty"`

	ExternalExecutionRequired bool `json:"external_execution_required,omitempty"`
	// ExternalExecutionSilent asks front ends not to announce the pause
	// (agno's external_execution_silent; AG-UI frontend tools set it).
	ExternalExecutionSilent bool `json:"external_execution_silent,omitempty"`

	// ApprovalType is the tool's approval kind ("required", "audit"; see
	// tool.Function.ApprovalType) and ApprovalID the approval recorded
	// for this call.
	ApprovalType string `json:"approval_type,omitempty"`
	ApprovalID   string `json:"approval_id,omitempty"`
}

// MarshalJSON writes every field agno's ToolExecution.to_dict() sends
// (dataclasses.asdict: unset Optional fields are null, not absent):
// optional flags that are off are null, tool_args is at least {}, and
// tool_call_error is a boolean once the call has a result.
func (t ToolExecution) MarshalJSON() ([]byte, error) {
	flag := func(b bool) *bool {
		if !b {
			return nil
		}
		return &b
	}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	args := t.ToolArgs
	if args == nil {
		args = map[string]any{}
	}
	callErr := flag(t.ToolCallError)
	if t.Result != nil && callErr == nil {
		f := false
		callErr = &f
	}
	var inputSchema, feedbackSchema any
	if t.UserInputSchema != nil {
		inputSchema = t.UserInputSchema
	}
	if t.UserFeedbackSchema != nil {
		feedbackSchema = t.UserFeedbackSchema
	}
	return EncodeJSON(struct {
		ToolCallID                *string        `json:"tool_call_id"`
		ToolName                  *string        `json:"tool_name"`
		ToolArgs                  map[string]any `json:"tool_args"`
		ToolCallError             *bool          `json:"tool_call_error"`
		Result                    *string        `json:"result"`
		Metrics                   *ToolMetrics   `json:"metrics"`
		ChildRunID                *string        `json:"child_run_id"`
		StopAfterToolCall         bool           `json:"stop_after_tool_call"`
		CreatedAt                 int64          `json:"created_at"`
		RequiresConfirmation      *bool          `json:"requires_confirmation"`
		Confirmed                 *bool          `json:"confirmed"`
		ConfirmationNote          *string        `json:"confirmation_note"`
		RequiresUserInput         *bool          `json:"requires_user_input"`
		UserInputSchema           any            `json:"user_input_schema"`
		UserFeedbackSchema        any            `json:"user_feedback_schema"`
		Answered                  *bool          `json:"answered"`
		ExternalExecutionRequired *bool          `json:"external_execution_required"`
		ExternalExecutionSilent   *bool          `json:"external_execution_silent"`
		ApprovalType              *string        `json:"approval_type"`
		ApprovalID                *string        `json:"approval_id"`
	}{
		str(t.ToolCallID), str(t.ToolName), args, callErr, t.Result, t.Metrics, str(t.ChildRunID),
		t.StopAfterToolCall, t.CreatedAt, flag(t.RequiresConfirmation), t.Confirmed, t.ConfirmationNote,
		flag(t.RequiresUserInput), inputSchema, feedbackSchema, t.Answered,
		flag(t.ExternalExecutionRequired), flag(t.ExternalExecutionSilent), str(t.ApprovalType), str(t.ApprovalID),
	})
}

// Paused reports whether the call waits for a human or an outside result.
func (t *ToolExecution) Paused() bool {
	return t.RequiresConfirmation || t.RequiresUserInput || t.ExternalExecutionRequired
}

// ResultText returns the result or "".
func (t *ToolExecution) ResultText() string {
	if t.Result == nil {
		return ""
	}
	return *t.Result
}

// SetResult stores a result.
func (t *ToolExecution) SetResult(s string) { t.Result = &s }

// Clone returns a copy that later changes to t do not reach (events keep
// the state of the call at the time they were emitted).
func (t *ToolExecution) Clone() *ToolExecution {
	if t == nil {
		return nil
	}
	c := *t
	c.ToolArgs = CloneMap(t.ToolArgs)
	c.Result = clonePtr(t.Result)
	c.Confirmed = clonePtr(t.Confirmed)
	c.ConfirmationNote = clonePtr(t.ConfirmationNote)
	c.Answered = clonePtr(t.Answered)
	if t.Metrics != nil {
		m := *t.Metrics
		c.Metrics = &m
	}
	c.UserInputSchema = append([]UserInputField(nil), t.UserInputSchema...)
	if t.UserFeedbackSchema != nil {
		c.UserFeedbackSchema = make([]FeedbackQuestion, len(t.UserFeedbackSchema))
		for i, q := range t.UserFeedbackSchema {
			q.Options = append([]FeedbackOption(nil), q.Options...)
			q.SelectedOptions = append([]string(nil), q.SelectedOptions...)
			c.UserFeedbackSchema[i] = q
		}
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// UserInputField is one value a human supplies for a paused tool call.
// FieldType is the Python type name agno uses: str, int, float, bool, list,
// dict.
type UserInputField struct {
	Name        string `json:"name"`
	FieldType   string `json:"field_type"`
	Description string `json:"description,omitempty"`
	// Value is nil until the human answers.
	Value any `json:"value"`
}

// MarshalJSON is agno's UserInputField.to_dict: every key, a missing
// description as null (agno's clients read the key).
func (f UserInputField) MarshalJSON() ([]byte, error) {
	return EncodeJSON(struct {
		Name        string  `json:"name"`
		FieldType   string  `json:"field_type"`
		Description *string `json:"description"`
		Value       any     `json:"value"`
	}{f.Name, f.FieldType, nonEmpty(f.Description), f.Value})
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FeedbackQuestion is one question of a user-feedback pause (agno's
// ask_user tool).
type FeedbackQuestion struct {
	Question    string           `json:"question"`
	Header      string           `json:"header,omitempty"`
	Options     []FeedbackOption `json:"options,omitempty"`
	MultiSelect bool             `json:"multi_select,omitempty"`
	// SelectedOptions are the labels chosen; nil until answered.
	SelectedOptions []string `json:"selected_options,omitempty"`
}

// MarshalJSON is agno's UserFeedbackQuestion.to_dict: header and
// selected_options null when unset, multi_select always, options when
// there are any.
func (q FeedbackQuestion) MarshalJSON() ([]byte, error) {
	return EncodeJSON(struct {
		Question        string           `json:"question"`
		Header          *string          `json:"header"`
		MultiSelect     bool             `json:"multi_select"`
		SelectedOptions []string         `json:"selected_options"`
		Options         []FeedbackOption `json:"options,omitempty"`
	}{q.Question, nonEmpty(q.Header), q.MultiSelect, q.SelectedOptions, q.Options})
}

// FeedbackOption is one answer option of a FeedbackQuestion.
type FeedbackOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Selected    bool   `json:"selected,omitempty"`
}

// MarshalJSON is agno's UserFeedbackOption.to_dict: a missing
// description as null, selected always.
func (o FeedbackOption) MarshalJSON() ([]byte, error) {
	return EncodeJSON(struct {
		Label       string  `json:"label"`
		Description *string `json:"description"`
		Selected    bool    `json:"selected"`
	}{o.Label, nonEmpty(o.Description), o.Selected})
}
