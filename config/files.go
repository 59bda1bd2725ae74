package config

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// The declarative resource files of the registry sources directories: one
// TOML file per agent, team or workflow. Field names follow agno's and the
// Go Configs (agent.Config, team.Config, workflow.Config), so a
// file-defined resource and a code-defined one are the same thing.

// Kind is the kind of a declarative resource.
type Kind string

// Resource kinds.
const (
	KindAgent    Kind = "agent"
	KindTeam     Kind = "team"
	KindWorkflow Kind = "workflow"
)

// dirKinds maps a source directory's name to the kind of its files.
var dirKinds = map[string]Kind{"agents": KindAgent, "teams": KindTeam, "workflows": KindWorkflow}

// AgentFile is an agent file (agents/<id>.toml). Its keys are the toml
// tags of agent.Config: an option with a plain form decodes straight onto
// the embedded Config, so the file and Go share names and defaults. The
// fields below shadow the options whose file form names something else
// (a [models] key, tools, a knowledge base) or is written differently
// (seconds, a string or a list); they are resolved when the agent is built.
type AgentFile struct {
	agent.Config
	Kind string `toml:"kind"`

	// Model is a key of [models] in config.toml (default "default"), or
	// agno's "<provider>:<model id>" string ("openai:gpt-4o"): the
	// provider's defaults and key variable, no table needed. So are
	// the entries of FallbackModels.
	Model          string   `toml:"model"`
	FallbackModels []string `toml:"fallback_models"`
	// ReasoningModel is a [models] key or a "<provider>:<model id>"
	// string, as Model; ReasoningAgent an agent id ("agent:<id>" too).
	ReasoningModel string `toml:"reasoning_model"`
	ReasoningAgent string `toml:"reasoning_agent"`

	Instructions StringList `toml:"instructions"`
	// Timezone is an IANA name ("Europe/Paris").
	Timezone string `toml:"timezone_identifier"`

	// Tools: "mcp:<server>", a built-in toolkit (shell, file, daytona), a
	// Go function registered by name, or "agent:<id>" / "team:<id>".
	Tools []string `toml:"tools"`
	// ToolChoice is "none", "auto", "required" or a function name.
	ToolChoice string `toml:"tool_choice"`
	// ToolOptions set per-tool options by function name:
	// [tool_options.pay] approval = "required".
	ToolOptions map[string]ToolOptionsFile `toml:"tool_options"`

	// Knowledge is a [knowledge.<name>] of config.toml; the agent searches
	// it with the search_knowledge_base tool.
	Knowledge        string `toml:"knowledge"`
	KnowledgeFilters Value  `toml:"knowledge_filters"`

	SessionState Table `toml:"session_state"`
	Dependencies Table `toml:"dependencies"`
	Metadata     Table `toml:"metadata"`
	// OutputSchema is a JSON schema; its "title" names it.
	OutputSchema        Table   `toml:"output_schema"`
	DelayBetweenRetries Seconds `toml:"delay_between_retries"`

	// Resolved by checkAgent.
	tz     *time.Location
	choice *model.ToolChoice
}

// TeamFile is a team file (teams/<id>.toml): team.Config's toml tags, as
// AgentFile is agent.Config's.
type TeamFile struct {
	team.Config
	Kind string `toml:"kind"`

	// Model is a [models] key or a "<provider>:<model id>" string, as
	// an agent file's; so is ReasoningModel. ReasoningAgent is an agent
	// id, as an agent file's.
	Model          string `toml:"model"`
	ReasoningModel string `toml:"reasoning_model"`
	ReasoningAgent string `toml:"reasoning_agent"`
	// Members are agent or team ids; "agent:<id>" / "team:<id>" when an
	// agent and a team share an id.
	Members []string `toml:"members"`

	Instructions StringList                 `toml:"instructions"`
	Tools        []string                   `toml:"tools"`
	ToolOptions  map[string]ToolOptionsFile `toml:"tool_options"`

	// Knowledge is a [knowledge.<name>] of config.toml; the team leader
	// searches it.
	Knowledge        string `toml:"knowledge"`
	KnowledgeFilters Value  `toml:"knowledge_filters"`

	SessionState        Table   `toml:"session_state"`
	Dependencies        Table   `toml:"dependencies"`
	Metadata            Table   `toml:"metadata"`
	OutputSchema        Table   `toml:"output_schema"`
	DelayBetweenRetries Seconds `toml:"delay_between_retries"`
}

// WorkflowFile is a workflow file (workflows/<id>.toml): workflow.Config's
// toml tags, as AgentFile is agent.Config's.
type WorkflowFile struct {
	workflow.Config
	Kind string `toml:"kind"`

	Steps []StepFile `toml:"steps"`
	// Agent makes the workflow conversational ([agent] with a model key).
	Agent *WorkflowAgentFile `toml:"agent"`

	// InputSchema is a JSON schema the input (a JSON object) must match.
	InputSchema  Table `toml:"input_schema"`
	SessionState Table `toml:"session_state"`
	Metadata     Table `toml:"metadata"`
	Dependencies Table `toml:"dependencies"`
}

// WorkflowAgentFile is a workflow's [agent]: workflow.WorkflowAgent with
// its model named by a [models] key or a "<provider>:<model id>" string.
type WorkflowAgentFile struct {
	workflow.WorkflowAgent
	Model string `toml:"model"`
}

// Step types.
const (
	StepTypeStep      = "step"
	StepTypeSteps     = "steps"
	StepTypeLoop      = "loop"
	StepTypeParallel  = "parallel"
	StepTypeCondition = "condition"
	StepTypeRouter    = "router"
)

// StepFile is one [[steps]] entry of a workflow file, of any type; the
// keys allowed depend on Type.
type StepFile struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Description string `toml:"description"`
	// Type is step (default), steps, loop, parallel, condition or router.
	Type string `toml:"type"`

	// A step runs exactly one of these.
	Agent    string `toml:"agent"`
	Team     string `toml:"team"`
	Function string `toml:"function"`
	Workflow string `toml:"workflow"`

	MaxRetries         *int   `toml:"max_retries"`
	SkipOnFailure      bool   `toml:"skip_on_failure"`
	OnError            string `toml:"on_error"`
	AddWorkflowHistory bool   `toml:"add_workflow_history"`
	NumHistoryRuns     int    `toml:"num_history_runs"`

	Steps     []StepFile `toml:"steps"`
	ElseSteps []StepFile `toml:"else_steps"`
	Choices   []StepFile `toml:"choices"`

	MaxIterations           int  `toml:"max_iterations"`
	EndCondition            Expr `toml:"end_condition"`
	Evaluator               Expr `toml:"evaluator"`
	Selector                Expr `toml:"selector"`
	AllowMultipleSelections bool `toml:"allow_multiple_selections"`

	RequiresConfirmation bool             `toml:"requires_confirmation"`
	ConfirmationMessage  string           `toml:"confirmation_message"`
	OnReject             string           `toml:"on_reject"`
	RequiresUserInput    bool             `toml:"requires_user_input"`
	UserInputMessage     string           `toml:"user_input_message"`
	UserInputSchema      []InputFieldFile `toml:"user_input_schema"`
	RequiresOutputReview bool             `toml:"requires_output_review"`
	OutputReviewMessage  string           `toml:"output_review_message"`
	TimeoutSeconds       Seconds          `toml:"timeout_seconds"`
	OnTimeout            string           `toml:"on_timeout"`
	// Approval is "required" (an admin resolves the step's pause through
	// /approvals) or "audit"; it needs a human pause on the step.
	Approval string `toml:"approval"`
}

// InputFieldFile is one value a human supplies (workflow.InputField).
type InputFieldFile struct {
	Name          string  `toml:"name"`
	FieldType     string  `toml:"field_type"`
	Description   string  `toml:"description"`
	Required      *bool   `toml:"required"`
	AllowedValues []Value `toml:"allowed_values"`
}

// stepKeys lists the keys each step type takes.
var stepKeys = func() map[string]map[string]bool {
	common := []string{"name", "id", "description", "type", "requires_confirmation", "confirmation_message", "on_reject", "timeout_seconds", "on_timeout", "approval"}
	add := func(extra ...string) map[string]bool {
		m := map[string]bool{}
		for _, k := range append(append([]string(nil), common...), extra...) {
			m[k] = true
		}
		return m
	}
	return map[string]map[string]bool{
		StepTypeStep: add("agent", "team", "function", "workflow", "max_retries", "skip_on_failure", "on_error",
			"add_workflow_history", "num_history_runs", "requires_user_input", "user_input_message", "user_input_schema",
			"requires_output_review", "output_review_message"),
		StepTypeSteps:     add("steps"),
		StepTypeParallel:  add("steps"),
		StepTypeLoop:      add("steps", "max_iterations", "end_condition"),
		StepTypeCondition: add("steps", "else_steps", "evaluator"),
		StepTypeRouter:    add("choices", "selector", "allow_multiple_selections", "requires_user_input", "user_input_message"),
	}
}()

// ToolOptionsFile is [tool_options.<function>] of an agent or team file.
type ToolOptionsFile struct {
	// Approval is "required" (an admin resolves the paused call through
	// /approvals; a tool with no other human flag then asks for
	// confirmation) or "audit" (the human's answer is recorded; the tool
	// needs requires_confirmation, user input or external execution).
	Approval string `toml:"approval"`
}

var approvalTypes = []string{tool.ApprovalRequired, tool.ApprovalAudit}

// checkToolOptions checks [tool_options]: known approval values, naming
// a tool the file uses.
func (l *loader) checkToolOptions(p *problems, opts map[string]ToolOptionsFile, tools []string) {
	for _, name := range sortedKeys(opts) {
		key := "tool_options." + name + ".approval"
		v := opts[name].Approval
		if v == "" {
			continue
		}
		if !slices.Contains(approvalTypes, v) {
			p.at(key, "%s = %q: use %s", key, v, oneOf(approvalTypes))
			continue
		}
		fn, found, dynamic := l.toolFunction(tools, name)
		switch {
		case fn != nil && v == tool.ApprovalAudit && !fn.RequiresConfirmation && !fn.RequiresUserInput && len(fn.UserInputFields) == 0 && !fn.ExternalExecution:
			p.at(key, "%s = \"audit\" records a human's answer, but tool %q asks none: register it with requires_confirmation, user input or external execution, or use \"required\"", key, name)
		case !found && !dynamic:
			p.at("tool_options."+name, "tool_options.%s names no tool of this file: its tools are %s", name, listOr(quoteAll(tools), "none"))
		}
	}
}

// toolFunction finds the function name among the file's tools: found
// when a registered function or toolkit has it; dynamic when a tool
// source (MCP, a connection-backed provider) lists its functions only
// once connected.
func (l *loader) toolFunction(tools []string, name string) (fn *tool.Function, found, dynamic bool) {
	for _, t := range tools {
		if strings.HasPrefix(t, "mcp:") || isToolkit(t) {
			dynamic = true
			continue
		}
		pv := l.fn.Tools[t]
		if pv == nil {
			continue
		}
		if _, ok := pv.(tool.Connector); ok {
			dynamic = true
			continue
		}
		fns, err := pv.Functions(context.Background())
		if err != nil {
			dynamic = true
			continue
		}
		for _, f := range fns {
			if f.Name == name {
				return f, true, dynamic
			}
		}
	}
	return nil, false, dynamic
}

// withToolOptions applies [tool_options] approvals to the file's tools.
func withToolOptions(list []tool.Provider, opts map[string]ToolOptionsFile) []tool.Provider {
	types := map[string]string{}
	for name, o := range opts {
		if o.Approval != "" {
			types[name] = o.Approval
		}
	}
	if len(types) == 0 {
		return list
	}
	out := make([]tool.Provider, len(list))
	for i, p := range list {
		a := approvalProvider{inner: p, types: types}
		if c, ok := p.(tool.Connector); ok {
			out[i] = approvalConnector{approvalProvider: a, c: c}
		} else {
			out[i] = a
		}
	}
	return out
}

// approvalProvider hands out copies of its functions with their approval
// type set.
type approvalProvider struct {
	inner tool.Provider
	types map[string]string
}

func (a approvalProvider) Functions(ctx context.Context) ([]*tool.Function, error) {
	fns, err := a.inner.Functions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*tool.Function, len(fns))
	for i, f := range fns {
		typ, ok := a.types[f.Name]
		if !ok || f.ApprovalType == typ {
			out[i] = f
			continue
		}
		c := *f
		c.ApprovalType = typ
		out[i] = &c
	}
	return out, nil
}

type approvalConnector struct {
	approvalProvider
	c tool.Connector
}

func (a approvalConnector) Connect(ctx context.Context) error { return a.c.Connect(ctx) }
func (a approvalConnector) Close() error                      { return a.c.Close() }

// checkStepApproval checks a step's approval: a known value, on a step
// that pauses for a human.
func checkStepApproval(p *problems, s *StepFile, sk, label string) {
	if s.Approval == "" {
		return
	}
	key := sk + ".approval"
	if !slices.Contains(approvalTypes, s.Approval) {
		p.at(key, "%s: approval = %q: use %s", label, s.Approval, oneOf(approvalTypes))
		return
	}
	if s.Approval == tool.ApprovalAudit && !s.RequiresConfirmation && !s.RequiresUserInput && !s.RequiresOutputReview {
		p.at(key, "%s: approval = \"audit\" records a human's answer, but the step asks none: set requires_confirmation = true (or requires_user_input / requires_output_review), or use \"required\"", label)
	}
}
