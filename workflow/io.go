package workflow

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// StepOutput is what a step produced (agno's StepOutput).
type StepOutput struct {
	StepName     string        `json:"step_name,omitempty"`
	StepID       string        `json:"step_id,omitempty"`
	StepType     string        `json:"step_type,omitempty"`
	ExecutorType string        `json:"executor_type,omitempty"`
	ExecutorName string        `json:"executor_name,omitempty"`
	Content      any           `json:"content,omitempty"`
	StepRunID    string        `json:"step_run_id,omitempty"`
	Images       []model.Image `json:"images,omitempty"`
	Metrics      *run.Metrics  `json:"metrics,omitempty"`
	Success      bool          `json:"success"`
	Error        string        `json:"error,omitempty"`
	// Stop ends the workflow after this step.
	Stop  bool          `json:"stop"`
	Steps []*StepOutput `json:"steps,omitempty"`
}

// ContentString renders the content as text.
func (o *StepOutput) ContentString() string {
	if o == nil {
		return ""
	}
	return run.ContentText(o.Content)
}

// deepest returns the last leaf output (a container's content comes from
// its last nested step).
func (o *StepOutput) deepest() *StepOutput {
	for o != nil && len(o.Steps) > 0 && o.StepType != "Parallel" {
		o = o.Steps[len(o.Steps)-1]
	}
	return o
}

// StepInput is what a step receives (agno's StepInput).
type StepInput struct {
	// Input is the workflow input (a string, or the decoded JSON object of
	// a workflow with an input schema).
	Input any
	// PreviousStepContent is the content of the step before this one.
	PreviousStepContent any
	// PreviousStepOutputs are earlier outputs by step name.
	PreviousStepOutputs map[string]*StepOutput
	// AdditionalData carries run data; "user_input" holds values a human
	// gave this step.
	AdditionalData map[string]any
	Images         []model.Image
	Files          []model.File
	history        []HistoryRun
}

// HistoryRun is one earlier run of the workflow in the session.
type HistoryRun struct {
	Input   string
	Content string
}

// StepOutputByName searches earlier outputs, nested ones included.
func (in *StepInput) StepOutputByName(name string) *StepOutput {
	if o, ok := in.PreviousStepOutputs[name]; ok {
		return o
	}
	for _, o := range in.PreviousStepOutputs {
		if found := findNested(o, name); found != nil {
			return found
		}
	}
	return nil
}

func findNested(o *StepOutput, name string) *StepOutput {
	for _, c := range o.Steps {
		if c.StepName == name {
			return c
		}
		if f := findNested(c, name); f != nil {
			return f
		}
	}
	return nil
}

// StepContent returns a step's content by name (agno's get_step_content):
// a Parallel step gives a map of its branches' contents as text (a
// composite branch contributes its inner steps instead); another container
// gives its deepest content.
func (in *StepInput) StepContent(name string) any {
	o := in.StepOutputByName(name)
	if o == nil {
		return nil
	}
	if o.StepType == "Parallel" && len(o.Steps) > 0 {
		m := map[string]string{}
		for _, c := range o.Steps {
			if c.StepName == "" || isEmpty(c.Content) {
				continue
			}
			if len(c.Steps) == 0 {
				m[c.StepName] = run.ContentText(c.Content)
				continue
			}
			for _, n := range c.Steps {
				if n.StepName != "" && !isEmpty(n.Content) {
					m[n.StepName] = run.ContentText(n.Content)
				}
			}
		}
		if len(m) == 0 {
			return run.ContentText(o.Content)
		}
		return m
	}
	for len(o.Steps) > 0 {
		o = o.Steps[len(o.Steps)-1]
	}
	return o.Content
}

// isEmpty is Python's falsiness for content: None or "".
func isEmpty(v any) bool {
	s, ok := v.(string)
	return v == nil || (ok && s == "")
}

// InputString renders the workflow input as text.
func (in *StepInput) InputString() string { return run.ContentText(in.Input) }

// UserInput returns the values a human supplied for this step.
func (in *StepInput) UserInput() map[string]any {
	m, _ := in.AdditionalData["user_input"].(map[string]any)
	return m
}

// History returns up to n earlier runs of the workflow in this session
// (all loaded ones when n <= 0). They are loaded, from the Store, for runs
// where a step or the workflow adds workflow history.
func (in *StepInput) History(n int) []HistoryRun {
	if n <= 0 || n >= len(in.history) {
		return in.history
	}
	return in.history[len(in.history)-n:]
}

// HistoryContext is History(n) formatted as agno's
// get_workflow_history_context, the text agent and team steps receive
// before their input; "" without history.
func (in *StepInput) HistoryContext(n int) string { return historyText(in.History(n)) }

// historyText renders workflow history as agno does: the block ends with a
// newline and the step's message follows it directly.
func historyText(h []HistoryRun) string {
	if len(h) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<workflow_history_context>\n")
	for i, r := range h {
		fmt.Fprintf(&b, "[Workflow Run-%d]\n", i+1)
		if r.Input != "" {
			b.WriteString("User input: " + r.Input + "\n")
		}
		if r.Content != "" {
			b.WriteString("Workflow output: " + r.Content + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("</workflow_history_context>\n")
	return b.String()
}

// Metrics are a workflow run's figures (agno's WorkflowMetrics): one
// entry per agent or team step, by step name.
type Metrics struct {
	Steps    map[string]*StepMetrics `json:"steps,omitempty"`
	Duration float64                 `json:"duration,omitempty"`
}

// StepMetrics are one executor step's figures (agno's StepMetrics).
type StepMetrics struct {
	StepName     string       `json:"step_name"`
	ExecutorType string       `json:"executor_type"`
	ExecutorName string       `json:"executor_name"`
	Metrics      *run.Metrics `json:"metrics"`
}

// UnmarshalJSON also reads runs stored before steps had agno's shape,
// when each step was its run metrics alone: those come back with
// executor "unknown", as agno fills a missing executor.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var raw struct {
		Steps    map[string]json.RawMessage `json:"steps"`
		Duration float64                    `json:"duration"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Metrics{Duration: raw.Duration}
	for name, data := range raw.Steps {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(data, &keys); err != nil {
			return fmt.Errorf("workflow metrics: step %q: %w", name, err)
		}
		if keys == nil {
			continue
		}
		st := &StepMetrics{}
		if _, agnoShape := keys["executor_type"]; agnoShape {
			if err := json.Unmarshal(data, st); err != nil {
				return fmt.Errorf("workflow metrics: step %q: %w", name, err)
			}
		} else {
			st = &StepMetrics{StepName: name, ExecutorType: "unknown", ExecutorName: "unknown", Metrics: &run.Metrics{}}
			if err := json.Unmarshal(data, st.Metrics); err != nil {
				return fmt.Errorf("workflow metrics: step %q: %w", name, err)
			}
		}
		if m.Steps == nil {
			m.Steps = map[string]*StepMetrics{}
		}
		m.Steps[name] = st
	}
	return nil
}

// UpgradeStoredMetrics rewrites doc's "metrics" (a stored workflow run
// decoded as JSON) in agno's WorkflowMetrics shape, naming each old
// step's executor from the run's step results where they say it.
func UpgradeStoredMetrics(doc map[string]any) {
	raw, ok := doc["metrics"].(map[string]any)
	if !ok || !oldSteps(raw["steps"]) {
		return
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return
	}
	var m Metrics
	if json.Unmarshal(b, &m) != nil {
		return
	}
	executors := map[string][2]string{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			name, _ := v["step_name"].(string)
			typ, _ := v["executor_type"].(string)
			exec, _ := v["executor_name"].(string)
			if name != "" && typ != "" {
				executors[name] = [2]string{typ, exec}
			}
			walk(v["steps"])
		}
	}
	walk(doc["step_results"])
	for name, st := range m.Steps {
		if e, ok := executors[name]; ok && st.ExecutorType == "unknown" {
			st.ExecutorType, st.ExecutorName = e[0], e[1]
		}
	}
	b, err = json.Marshal(m)
	if err != nil {
		return
	}
	var out map[string]any
	if json.Unmarshal(b, &out) == nil {
		if d, had := raw["duration"]; had {
			out["duration"] = d
		}
		doc["metrics"] = out
	}
}

// oldSteps reports whether a stored steps map has a step in the shape
// before agno's StepMetrics.
func oldSteps(steps any) bool {
	m, _ := steps.(map[string]any)
	for _, st := range m {
		if st, ok := st.(map[string]any); ok {
			if _, ok := st["executor_type"]; !ok {
				return true
			}
		}
	}
	return false
}

// RunOutput is a workflow run (agno's WorkflowRunOutput).
type RunOutput struct {
	RunID          string `json:"run_id"`
	WorkflowID     string `json:"workflow_id,omitempty"`
	WorkflowName   string `json:"workflow_name,omitempty"`
	SessionID      string `json:"session_id,omitempty"`
	UserID         string `json:"user_id,omitempty"`
	ParentRunID    string `json:"parent_run_id,omitempty"`
	WorkflowStepID string `json:"workflow_step_id,omitempty"`

	Input             any                 `json:"input,omitempty"`
	Content           any                 `json:"content,omitempty"`
	ContentType       string              `json:"content_type,omitempty"`
	StepResults       []*StepOutput       `json:"step_results,omitempty"`
	StepExecutorRuns  []*run.Output       `json:"step_executor_runs,omitempty"`
	Events            []run.Event         `json:"events,omitempty"`
	Metrics           *Metrics            `json:"metrics,omitempty"`
	Metadata          map[string]any      `json:"metadata,omitempty"`
	SessionState      map[string]any      `json:"session_state,omitempty"`
	Status            run.Status          `json:"status"`
	StepRequirements  []*StepRequirement  `json:"step_requirements,omitempty"`
	ErrorRequirements []*ErrorRequirement `json:"error_requirements,omitempty"`
	PausedStepIndex   *int                `json:"paused_step_index,omitempty"`
	PausedStepName    string              `json:"paused_step_name,omitempty"`
	PauseKind         string              `json:"pause_kind,omitempty"`
	CreatedAt         int64               `json:"created_at"`
	// WorkflowAgentRun is the workflow agent's run when one answered or
	// decided to run the workflow.
	WorkflowAgentRun *run.Output `json:"workflow_agent_run,omitempty"`

	// Resume is where a paused run continues (not part of agno's shape).
	Resume *resumeState `json:"resume_state,omitempty"`
}

// ContentString renders the content as text.
func (o *RunOutput) ContentString() string { return run.ContentText(o.Content) }

// Paused reports status PAUSED.
func (o *RunOutput) Paused() bool { return o.Status == run.StatusPaused }

// ActiveRequirement is the requirement the run waits for (the last one).
func (o *RunOutput) ActiveRequirement() *StepRequirement {
	if len(o.StepRequirements) == 0 {
		return nil
	}
	return o.StepRequirements[len(o.StepRequirements)-1]
}

// UnmarshalJSON decodes events into their concrete types.
func (o *RunOutput) UnmarshalJSON(b []byte) error {
	type plain RunOutput
	var aux struct {
		*plain
		Events []json.RawMessage `json:"events,omitempty"`
	}
	aux.plain = (*plain)(o)
	if err := run.DecodeJSON(b, &aux); err != nil {
		return err
	}
	o.Events = nil
	for _, raw := range aux.Events {
		e, err := run.DecodeEvent(raw)
		if err != nil {
			return err
		}
		o.Events = append(o.Events, e)
	}
	return nil
}

// resumeState records what a paused run already did, by node address, so
// continuing replays finished work instead of redoing it.
type resumeState struct {
	// Address of the paused node, and of the top-level step holding it.
	Address  string `json:"address"`
	TopIndex int    `json:"top_index"`
	// Done are outputs of finished nodes; Decisions are condition results,
	// router selections and loop ends taken so far.
	Done      map[string]*StepOutput     `json:"done,omitempty"`
	Decisions map[string]json.RawMessage `json:"decisions,omitempty"`
	// Loop state: the outputs a loop collected before the pause.
	LoopOutputs map[string][]*StepOutput `json:"loop_outputs,omitempty"`
}
