package run

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/reasoning"
)

// Input is what a run was asked: agno's RunInput.
type Input struct {
	// Content is the raw input: a string, a list of messages, or a
	// structured value.
	Content any           `json:"input_content,omitempty"`
	Images  []model.Image `json:"images,omitempty"`
	Files   []model.File  `json:"files,omitempty"`
}

// Output is the result of an agent or team run; its JSON is agno's
// RunOutput.to_dict() (agent) or TeamRunOutput.to_dict() (team: TeamID and
// TeamName set, MemberResponses possibly filled).
type Output struct {
	RunID          string `json:"run_id"`
	AgentID        string `json:"agent_id,omitempty"`
	AgentName      string `json:"agent_name,omitempty"`
	TeamID         string `json:"team_id,omitempty"`
	TeamName       string `json:"team_name,omitempty"`
	SessionID      string `json:"session_id,omitempty"`
	ParentRunID    string `json:"parent_run_id,omitempty"`
	WorkflowID     string `json:"workflow_id,omitempty"`
	WorkflowStepID string `json:"workflow_step_id,omitempty"`
	UserID         string `json:"user_id,omitempty"`

	Input            *Input `json:"input,omitempty"`
	Content          any    `json:"content,omitempty"`
	ContentType      string `json:"content_type"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ReasoningSteps and ReasoningMessages are what reasoning produced:
	// its steps, and the reasoning model's messages.
	ReasoningSteps    reasoning.Steps  `json:"reasoning_steps,omitempty"`
	ReasoningMessages []model.Message  `json:"reasoning_messages,omitempty"`
	Model             string           `json:"model,omitempty"`
	ModelProvider     string           `json:"model_provider,omitempty"`
	Messages          []model.Message  `json:"messages,omitempty"`
	Metrics           *Metrics         `json:"metrics,omitempty"`
	AdditionalInput   []model.Message  `json:"additional_input,omitempty"`
	Tools             []*ToolExecution `json:"tools,omitzero"` // nil omitted, [] kept, as agno's None vs []
	Images            []model.Image    `json:"images,omitempty"`
	// Files are the files the run's tools produced (agno's
	// RunOutput.files), e.g. file_generation's.
	Files           []model.File    `json:"files,omitempty"`
	References      json.RawMessage `json:"references,omitempty"`
	Metadata        map[string]any  `json:"metadata,omitempty"`
	SessionState    map[string]any  `json:"session_state,omitzero"`
	CreatedAt       int64           `json:"created_at"`
	Events          []Event         `json:"events,omitempty"`
	Status          Status          `json:"status"`
	Requirements    []*Requirement  `json:"requirements,omitempty"`
	MemberResponses []*Output       `json:"member_responses,omitempty"`

	// Stored is the output as its end was stored, encoded without Events:
	// the HTTP layer adds the events to it rather than encode the run a
	// second time. Nil when the stored document is not the output (not
	// stored, a failed write, member responses left out of storage).
	Stored json.RawMessage `json:"-"`
	// StoredEvents are Events as stored, one per event (nil where one was
	// not): Encode joins them rather than encode the events again.
	StoredEvents []json.RawMessage `json:"-"`
}

// Encode is the output's JSON: Stored with the events added when it has
// it, else the output encoded.
func (o *Output) Encode() ([]byte, error) {
	doc := o.Stored
	if len(doc) < 2 || doc[len(doc)-1] != '}' {
		return EncodeJSON(o)
	}
	if len(o.Events) == 0 {
		return doc, nil
	}
	evs, err := o.encodeEvents()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(doc)+len(evs)+12)
	out = append(out, doc[:len(doc)-1]...)
	if len(doc) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"events":`...)
	out = append(out, evs...)
	return append(out, '}'), nil
}

// encodeEvents is the JSON array of Events, from StoredEvents when each
// event has its stored JSON.
func (o *Output) encodeEvents() ([]byte, error) {
	if len(o.StoredEvents) != len(o.Events) || slices.ContainsFunc(o.StoredEvents, func(e json.RawMessage) bool { return e == nil }) {
		return EncodeJSON(o.Events)
	}
	n := 2
	for _, e := range o.StoredEvents {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range o.StoredEvents {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']'), nil
}

// ContentString returns the content as text (see ContentText).
func (o *Output) ContentString() string { return ContentText(o.Content) }

// ContentText renders run or step content as text: "" for nil, a string
// as is, anything else as JSON.
func ContentText(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprint(c)
	}
	return string(b)
}

// ActiveRequirements returns the unresolved requirements.
func (o *Output) ActiveRequirements() []*Requirement { return Active(o.Requirements) }

// Paused reports status PAUSED.
func (o *Output) Paused() bool { return o.Status == StatusPaused }

// IsTeam reports a team run.
func (o *Output) IsTeam() bool { return o.TeamID != "" }

// UnmarshalJSON decodes events into their concrete types.
func (o *Output) UnmarshalJSON(b []byte) error {
	type plain Output
	var aux struct {
		*plain
		Events []json.RawMessage `json:"events,omitempty"`
	}
	aux.plain = (*plain)(o)
	if err := decodeJSON(b, &aux); err != nil {
		return err
	}
	o.Events = nil
	for _, raw := range aux.Events {
		e, err := DecodeEvent(raw)
		if err != nil {
			return err
		}
		o.Events = append(o.Events, e)
	}
	return nil
}

// Clone returns a deep copy through JSON.
func (o *Output) Clone() *Output {
	b, err := json.Marshal(o)
	if err != nil {
		return nil
	}
	var c Output
	if err := json.Unmarshal(b, &c); err != nil {
		return nil
	}
	return &c
}
