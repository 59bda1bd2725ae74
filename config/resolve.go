package config

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"cel.dev/cel-go/cel"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/agenttool"
	"github.com/agno-go/agno/workflow"
)

// toolRef is one parsed entry of a tools list.
type toolRef struct {
	key    string
	kind   string // "mcp", "builtin", "function", "agent", "team"
	name   string
	source string
}

// checkModel validates a model key and returns it ("default" when unset).
// Keys are those of the built models (for a reload, Build's).
func (l *loader) checkModel(p *problems, key, name string) string {
	keys := sortedKeys(l.res.Models)
	if name == "" {
		if _, ok := l.res.Models["default"]; ok {
			return "default"
		}
		p.at("", "no model: set model = \"<key>\" to a key of [models] in %s (keys: %s), or define [models.default] there", l.cfg.Path, listOr(keys, "none defined"))
		return ""
	}
	if _, ok := l.res.Models[name]; ok {
		return name
	}
	if isModelString(name) {
		// agno's "<provider>:<id>", e.g. "google:gemini-2.5-flash".
		if _, err := providerOf(name); err != nil {
			p.at(key, "%s = %q: %v", key, name, err)
		}
		return name
	}
	p.at(key, "%s = %q is not a key of [models] in %s: use one of %s, add [models.%s] there, or name a provider's model as \"<provider>:<model id>\" (e.g. \"openai:gpt-4o\")", key, name, l.cfg.Path,
		listOr(quoteAll(keys), "(none defined)"), quoteKey(name))
	return name
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// checkTools parses a tools list and records agent/team references.
func (l *loader) checkTools(p *problems, f *resFile, tools []string) []toolRef {
	var out []toolRef
	seen := map[string]bool{}
	for i, t := range tools {
		key := fmt.Sprintf("tools[%d]", i)
		if seen[t] {
			p.at(key, "tools lists %q twice: remove one", t)
			continue
		}
		seen[t] = true
		prefix, name, hasPrefix := strings.Cut(t, ":")
		switch {
		case hasPrefix && prefix == "mcp":
			_, ok := l.res.MCP[name]
			_, unusable := l.res.mcpErr[name]
			if !ok && !unusable {
				servers := append(sortedKeys(l.res.MCP), sortedKeys(l.res.mcpErr)...)
				slices.Sort(servers)
				p.at(key, "tools: %q names no MCP server: add [mcp.servers.%s] to %s, or use one of %s", t, quoteKey(name), l.cfg.Path,
					listOr(quoteAll(prefixed("mcp:", servers)), "(no servers defined)"))
				continue
			}
			out = append(out, toolRef{key: key, kind: "mcp", name: name, source: t})
		case hasPrefix && (prefix == "agent" || prefix == "team"):
			if name == "" {
				p.at(key, "tools: %q has no id: write %s:<id>", t, prefix)
				continue
			}
			f.refs = append(f.refs, &ref{key: key, source: t, kind: Kind(prefix), id: name})
			out = append(out, toolRef{key: key, kind: prefix, name: name, source: t})
		case hasPrefix:
			p.at(key, "tools: %q: the prefix %q is unknown; use mcp:<server>, agent:<id> or team:<id>", t, prefix)
		case isToolkit(t):
			out = append(out, toolRef{key: key, kind: "builtin", name: t, source: t})
		case l.fn.Tools[t] != nil:
			out = append(out, toolRef{key: key, kind: "function", name: t, source: t})
		default:
			p.at(key, "tools: %q is not a tool: use mcp:<server>, a built-in toolkit (%s), agent:<id>, team:<id>, or a Go function registered in config.Functions.Tools (registered: %s)",
				t, strings.Join(tool.ToolkitNames(), ", "), listOr(sortedKeys(l.fn.Tools), "none"))
		}
	}
	return out
}

func prefixed(prefix string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

func checkNonNegative(p *problems, key string, v int, fix string) {
	if v < 0 {
		p.at(key, "%s = %d: %s", key, v, fix)
	}
}

func checkSchema(p *problems, key string, t Table) {
	if t == nil {
		return
	}
	if _, ok := t["type"]; !ok {
		if _, ok := t["properties"]; !ok {
			p.at(key, "%s is not a JSON schema: give at least type = \"object\" and a [%s.properties] table", key, key)
		}
	}
}

func (l *loader) checkAgent(p *problems, f *resFile) {
	a := f.agent
	a.Model = l.checkModel(p, "model", a.Model)
	for i, m := range a.FallbackModels {
		l.checkModel(p, fmt.Sprintf("fallback_models[%d]", i), m)
	}
	l.checkTools(p, f, a.Tools)
	l.checkToolOptions(p, a.ToolOptions, a.Tools)
	l.checkKnowledge(p, a.knowledge())
	l.checkReasoning(p, f, &a.ReasoningModel, a.ReasoningAgent, a.ReasoningMinSteps, a.ReasoningMaxSteps)
	checkNonNegative(p, "tool_call_limit", a.ToolCallLimit, "use 0 for no limit or a positive number")
	checkNonNegative(p, "num_history_runs", a.NumHistoryRuns, "use a positive number of runs")
	checkNonNegative(p, "num_history_messages", a.NumHistoryMessages, "use a positive number of messages")
	checkNonNegative(p, "retries", a.Retries, "use 0 (no retries) or more")
	if a.NumHistoryRuns > 0 && a.NumHistoryMessages > 0 {
		p.at("num_history_messages", "set num_history_runs or num_history_messages, not both")
	}
	if a.DelayBetweenRetries < 0 {
		p.at("delay_between_retries", "delay_between_retries = %v: use a positive number of seconds", float64(a.DelayBetweenRetries))
	}
	checkSchema(p, "output_schema", a.OutputSchema)
	if a.Timezone != "" {
		var err error
		if a.tz, err = time.LoadLocation(a.Timezone); err != nil {
			p.at("timezone_identifier", "timezone_identifier = %q is not a time zone: use an IANA name such as \"Europe/Paris\" or \"UTC\"", a.Timezone)
		}
	}
	switch c := a.ToolChoice; {
	case c == "":
	case slices.Contains(toolChoiceModes, c):
		a.choice = &model.ToolChoice{Mode: c}
	default:
		a.choice = &model.ToolChoice{Function: c}
		if _, found, dynamic := l.toolFunction(a.Tools, c); !found && !dynamic {
			p.at("tool_choice", "tool_choice = %q: use %s, or the name of one of the agent's tools", c, oneOf(toolChoiceModes))
		}
	}
}

var toolChoiceModes = []string{"none", "auto", "required"}

// checkReasoning checks an agent's or team's reasoning keys:
// reasoning_model names a model as model does, reasoning_agent an agent
// (a reference, so a component naming one needs the writer's rights to
// it), and the step bounds are ordered.
func (l *loader) checkReasoning(p *problems, f *resFile, modelName *string, agentID string, minSteps, maxSteps int) {
	if *modelName != "" {
		*modelName = l.checkModel(p, "reasoning_model", *modelName)
	}
	if agentID != "" {
		id, ok := strings.CutPrefix(agentID, "agent:")
		if !ok && strings.Contains(agentID, ":") || id == "" {
			p.at("reasoning_agent", "reasoning_agent = %q: use an agent id, or agent:<id>", agentID)
		} else {
			f.refs = append(f.refs, &ref{key: "reasoning_agent", source: agentID, kind: KindAgent, id: id})
		}
	}
	checkNonNegative(p, "reasoning_min_steps", minSteps, "use a positive number (default 1)")
	checkNonNegative(p, "reasoning_max_steps", maxSteps, "use a positive number (default 10)")
	if minSteps > 0 && maxSteps > 0 && minSteps > maxSteps {
		p.at("reasoning_min_steps", "reasoning_min_steps = %d is above reasoning_max_steps = %d: lower it or raise reasoning_max_steps", minSteps, maxSteps)
	}
}

// reasoning resolves the reasoning model and agent a file names.
func (l *loader) reasoning(f *resFile, modelName string) (model.Model, run.Executor, error) {
	var m model.Model
	if modelName != "" {
		var err error
		if m, err = l.res.model(modelName); err != nil {
			return nil, nil, fileErr(f, "reasoning_model", err)
		}
	}
	r := f.refAt("reasoning_agent")
	if r == nil {
		return m, nil, nil
	}
	exec, ok := r.target().(run.Executor)
	if !ok {
		return nil, nil, fileErr(f, "reasoning_agent", fmt.Errorf("reasoning_agent = %q is not built", r.source))
	}
	return m, exec, nil
}

func (l *loader) checkTeam(p *problems, f *resFile) {
	t := f.team
	t.Model = l.checkModel(p, "model", t.Model)
	if t.Mode != "" && !team.Mode(t.Mode).Valid() {
		p.at("mode", "mode = %q: use \"coordinate\" (the default), \"route\", \"broadcast\" or \"tasks\"", t.Mode)
	}
	if len(t.Members) == 0 {
		p.at("", "the team has no members: add members = [\"<agent or team id>\", ...]")
	}
	seen := map[string]bool{}
	for i, m := range t.Members {
		key := fmt.Sprintf("members[%d]", i)
		kind, id := Kind(""), m
		if pre, rest, ok := strings.Cut(m, ":"); ok {
			if pre != "agent" && pre != "team" {
				p.at(key, "members: %q: use an id, or agent:<id> / team:<id>", m)
				continue
			}
			kind, id = Kind(pre), rest
		}
		if id == "" {
			p.at(key, "members has an empty id")
			continue
		}
		if seen[m] {
			p.at(key, "members lists %q twice: remove one", m)
			continue
		}
		seen[m] = true
		f.refs = append(f.refs, &ref{key: key, source: m, kind: kind, id: id})
	}
	l.checkTools(p, f, t.Tools)
	l.checkToolOptions(p, t.ToolOptions, t.Tools)
	l.checkKnowledge(p, t.knowledge())
	l.checkReasoning(p, f, &t.ReasoningModel, t.ReasoningAgent, t.ReasoningMinSteps, t.ReasoningMaxSteps)
	checkNonNegative(p, "max_iterations", t.MaxIterations, "use a positive number (default 10)")
	checkNonNegative(p, "tool_call_limit", t.ToolCallLimit, "use 0 for no limit or a positive number")
	checkNonNegative(p, "num_history_runs", t.NumHistoryRuns, "use a positive number of runs")
	checkNonNegative(p, "num_team_history_runs", t.NumTeamHistoryRuns, "use a positive number of runs")
	checkNonNegative(p, "retries", t.Retries, "use 0 (no retries) or more")
	checkSchema(p, "output_schema", t.OutputSchema)
}

func (l *loader) checkWorkflow(p *problems, f *resFile) {
	w := f.workflow
	if len(w.Steps) == 0 {
		p.at("", "the workflow has no steps: add at least one [[steps]] with a name and an agent, team, function or workflow")
	}
	checkNonNegative(p, "num_history_runs", w.NumHistoryRuns, "use a positive number of runs")
	checkSchema(p, "input_schema", w.InputSchema)
	if w.Agent != nil {
		w.Agent.Model = l.checkModel(p, "agent.model", w.Agent.Model)
		checkNonNegative(p, "agent.num_history_runs", w.Agent.NumHistoryRuns, "use a positive number of runs")
	}
	l.checkSteps(p, f, w.Steps, "steps", "", false)
}

var (
	onErrors   = []string{string(workflow.ErrorSkip), string(workflow.ErrorFail), string(workflow.ErrorPause)}
	onTimeouts = []string{string(workflow.TimeoutCancel), string(workflow.TimeoutSkip), string(workflow.TimeoutApprove)}
	fieldTypes = []string{"str", "int", "float", "bool", "list", "dict"}
	stepTypes  = []string{StepTypeStep, StepTypeSteps, StepTypeLoop, StepTypeParallel, StepTypeCondition, StepTypeRouter}
)

func oneOf(list []string) string {
	return strings.Join(quoteAll(list), ", ")
}

// checkSteps validates a list of steps at key ("steps",
// "steps[2].else_steps"); parallel names the enclosing Parallel, which
// cannot pause for a human.
func (l *loader) checkSteps(p *problems, f *resFile, steps []StepFile, key, parallel string, router bool) {
	names := map[string]int{}
	for i := range steps {
		s := &steps[i]
		sk := fmt.Sprintf("%s[%d]", key, i)
		label := fmt.Sprintf("%s (%q)", sk, s.Name)
		if s.Name == "" {
			p.at(sk, "%s has no name: every step needs one (it keys previous_step_outputs)", sk)
			label = sk
		} else if j, dup := names[s.Name]; dup && router {
			p.at(sk+".name", "%s: two choices are named %q (also %s[%d]); a router picks choices by name, so give them distinct names", label, s.Name, key, j)
		}
		names[s.Name] = i
		typ := s.Type
		if typ == "" {
			typ = StepTypeStep
		}
		allowed, ok := stepKeys[typ]
		if !ok {
			p.at(sk+".type", "%s: type = %q: use one of %s", label, s.Type, oneOf(stepTypes))
			continue
		}
		for _, k := range f.idx.childKeys(sk) {
			if allowed[k] {
				continue
			}
			var takers []string
			for _, t := range stepTypes {
				if stepKeys[t][k] {
					takers = append(takers, t)
				}
			}
			if len(takers) > 0 && s.Type == "" && typ == StepTypeStep {
				p.at(sk+"."+k, "%s: %s is for %s steps: set type = %q (the type defaults to \"step\")", label, k, strings.Join(takers, "/"), takers[0])
			} else if len(takers) > 0 {
				p.at(sk+"."+k, "%s: %s is not for %s steps (it is for %s steps): remove it", label, k, typ, strings.Join(takers, "/"))
			}
		}
		checkStepApproval(p, s, sk, label)
		human := s.RequiresConfirmation || s.RequiresUserInput || s.RequiresOutputReview || s.Approval != ""
		if human && parallel != "" {
			p.at(sk, "%s asks for a human inside the parallel step %s, which cannot pause: move it before or after the parallel step", label, parallel)
		}
		if s.OnReject != "" {
			allowedReject := []string{string(workflow.RejectSkip), string(workflow.RejectCancel), string(workflow.RejectRetry)}
			if typ == StepTypeCondition {
				allowedReject = append(allowedReject, string(workflow.RejectElse))
			}
			if !slices.Contains(allowedReject, s.OnReject) {
				p.at(sk+".on_reject", "%s: on_reject = %q: use one of %s", label, s.OnReject, oneOf(allowedReject))
			}
		}
		if s.OnTimeout != "" && !slices.Contains(onTimeouts, s.OnTimeout) {
			p.at(sk+".on_timeout", "%s: on_timeout = %q: use one of %s", label, s.OnTimeout, oneOf(onTimeouts))
		}
		if s.TimeoutSeconds < 0 {
			p.at(sk+".timeout_seconds", "%s: timeout_seconds = %v: use a positive number of seconds", label, float64(s.TimeoutSeconds))
		}
		switch typ {
		case StepTypeStep:
			l.checkStep(p, f, s, sk, label)
		case StepTypeSteps, StepTypeParallel, StepTypeLoop:
			if len(s.Steps) == 0 {
				p.at(sk, "%s: a %s step needs steps: add [[%s.steps]] entries", label, typ, plainKey(sk))
			}
			inner := parallel
			if typ == StepTypeParallel {
				inner = label
			}
			l.checkSteps(p, f, s.Steps, sk+".steps", inner, false)
			if typ == StepTypeLoop {
				checkNonNegative(p, sk+".max_iterations", s.MaxIterations, "use a positive number (default 3)")
				if s.EndCondition != "" {
					l.compile(p, f, celEndCondition, sk+".end_condition", label, string(s.EndCondition))
				}
			}
		case StepTypeCondition:
			if s.Evaluator == "" {
				p.at(sk, "%s: a condition needs an evaluator: a CEL expression such as evaluator = 'input.contains(\"urgent\")', or the name of a function in config.Functions.Conditions", label)
			} else {
				l.compile(p, f, celCondition, sk+".evaluator", label, string(s.Evaluator))
			}
			if len(s.Steps) == 0 {
				p.at(sk, "%s: a condition needs steps to run when it holds: add [[%s.steps]] entries", label, plainKey(sk))
			}
			l.checkSteps(p, f, s.Steps, sk+".steps", parallel, false)
			l.checkSteps(p, f, s.ElseSteps, sk+".else_steps", parallel, false)
		case StepTypeRouter:
			if s.Selector == "" && !s.RequiresUserInput {
				p.at(sk, "%s: a router needs a selector (a CEL expression giving a choice name, or a function in config.Functions.Selectors) or requires_user_input = true to let a human choose", label)
			} else if s.Selector != "" {
				l.compile(p, f, celSelector, sk+".selector", label, string(s.Selector))
			}
			if len(s.Choices) == 0 {
				p.at(sk, "%s: a router needs choices: add [[%s.choices]] entries", label, plainKey(sk))
			}
			l.checkSteps(p, f, s.Choices, sk+".choices", parallel, true)
		}
	}
}

// plainKey drops array indices, as a TOML header writes the path.
func plainKey(k string) string { return indexRE.ReplaceAllString(k, "") }

var indexRE = regexp.MustCompile(`\[\d+\]`)

func (l *loader) checkStep(p *problems, f *resFile, s *StepFile, sk, label string) {
	var set []string
	for _, e := range []struct{ k, v string }{{"agent", s.Agent}, {"team", s.Team}, {"function", s.Function}, {"workflow", s.Workflow}} {
		if e.v != "" {
			set = append(set, e.k)
		}
	}
	switch len(set) {
	case 0:
		p.at(sk, "%s runs nothing: set one of agent, team, function or workflow (or type = \"steps\", \"loop\", \"parallel\", \"condition\", \"router\" for a group)", label)
	case 1:
	default:
		p.at(sk+"."+set[1], "%s sets %s: a step runs exactly one of agent, team, function or workflow", label, strings.Join(set, " and "))
	}
	switch {
	case s.Agent != "":
		f.refs = append(f.refs, &ref{key: sk + ".agent", source: s.Agent, kind: KindAgent, id: s.Agent})
	case s.Team != "":
		f.refs = append(f.refs, &ref{key: sk + ".team", source: s.Team, kind: KindTeam, id: s.Team})
	case s.Workflow != "":
		f.refs = append(f.refs, &ref{key: sk + ".workflow", source: s.Workflow, kind: KindWorkflow, id: s.Workflow})
	case s.Function != "":
		if l.fn.Steps[s.Function] == nil {
			p.at(sk+".function", "%s: function = %q is not registered: add it to config.Functions.Steps (registered: %s)", label, s.Function, listOr(sortedKeys(l.fn.Steps), "none"))
		}
	}
	if s.OnError != "" && !slices.Contains(onErrors, s.OnError) {
		p.at(sk+".on_error", "%s: on_error = %q: use one of %s", label, s.OnError, oneOf(onErrors))
	}
	if s.MaxRetries != nil && *s.MaxRetries < 0 {
		p.at(sk+".max_retries", "%s: max_retries = %d: use 0 (no retries) or more (default 3)", label, *s.MaxRetries)
	}
	checkNonNegative(p, sk+".num_history_runs", s.NumHistoryRuns, "use a positive number of runs")
	if len(s.UserInputSchema) > 0 && !s.RequiresUserInput {
		p.at(sk+".user_input_schema", "%s: user_input_schema is set but requires_user_input is not: add requires_user_input = true", label)
	}
	fields := map[string]bool{}
	for i, in := range s.UserInputSchema {
		fk := fmt.Sprintf("%s.user_input_schema[%d]", sk, i)
		if in.Name == "" {
			p.at(fk, "%s: user_input_schema[%d] has no name", label, i)
		} else if fields[in.Name] {
			p.at(fk+".name", "%s: user_input_schema has two fields named %q", label, in.Name)
		}
		fields[in.Name] = true
		if in.FieldType == "" {
			p.at(fk, "%s: user_input_schema field %q has no field_type: use one of %s", label, in.Name, oneOf(fieldTypes))
		} else if !slices.Contains(fieldTypes, in.FieldType) {
			p.at(fk+".field_type", "%s: user_input_schema field %q: field_type = %q: use one of %s", label, in.Name, in.FieldType, oneOf(fieldTypes))
		}
	}
}

// compile resolves a condition, selector or end condition: a registered
// function by plain name, else a CEL expression compiled now.
func (l *loader) compile(p *problems, f *resFile, use celUse, key, label, src string) {
	if isFunctionName(use, src) {
		var ok bool
		var table string
		switch use {
		case celCondition:
			_, ok = l.fn.Conditions[src]
			table = "Conditions"
			if ok {
				f.compiled[key] = l.fn.Conditions[src]
			}
		case celSelector:
			_, ok = l.fn.Selectors[src]
			table = "Selectors"
			if ok {
				f.compiled[key] = l.fn.Selectors[src]
			}
		case celEndCondition:
			_, ok = l.fn.EndConditions[src]
			table = "EndConditions"
			if ok {
				f.compiled[key] = l.fn.EndConditions[src]
			}
		}
		if !ok {
			var names []string
			switch use {
			case celCondition:
				names = sortedKeys(l.fn.Conditions)
			case celSelector:
				names = sortedKeys(l.fn.Selectors)
			case celEndCondition:
				names = sortedKeys(l.fn.EndConditions)
			}
			p.at(key, "%s: %s = %q names no registered function: add it to config.Functions.%s (registered: %s), or write a CEL expression",
				label, use, src, table, listOr(names, "none"))
		}
		return
	}
	prg, err := compileCEL(use, src)
	if err != nil {
		p.at(key, "%s: %s = %q: %v", label, use, src, indentText(err.Error()))
		return
	}
	f.compiled[key] = celProgram{prg: prg, src: src}
}

type celProgram struct {
	prg cel.Program
	src string
}

func indentText(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// construct builds the live object of a file whose references are built.
func (l *loader) construct(f *resFile) (any, error) {
	switch f.kind {
	case KindAgent:
		return l.constructAgent(f)
	case KindTeam:
		return l.constructTeam(f)
	case KindWorkflow:
		return l.constructWorkflow(f)
	}
	return nil, fmt.Errorf("%s: unknown kind", f.path)
}

// fileErr attaches a build error to the file (and to a key's line).
func fileErr(f *resFile, key string, err error) error {
	p := &problems{file: f.path, idx: f.idx}
	p.at(key, "%v", err)
	return p.err()
}

func (l *loader) tools(f *resFile, list []string) ([]tool.Provider, error) {
	p := &problems{file: f.path, idx: f.idx}
	refs := l.checkTools(p, &resFile{}, list) // parsed again; references already resolved below
	var out []tool.Provider
	for _, t := range refs {
		switch t.kind {
		case "mcp":
			if err := l.res.mcpErr[t.name]; err != nil {
				return nil, fileErr(f, t.key, fmt.Errorf("tools: %q: %w", t.source, err))
			}
			out = append(out, l.res.MCP[t.name])
		case "builtin":
			tk, err := l.res.toolkit(t.name)
			if err != nil {
				return nil, fileErr(f, t.key, fmt.Errorf("tools: %q: %w", t.source, err))
			}
			out = append(out, tk)
		case "function":
			out = append(out, l.fn.Tools[t.name])
		case "agent", "team":
			r := f.refAt(t.key)
			var exec run.Executor
			ok := false
			if r != nil {
				exec, ok = r.target().(run.Executor)
			}
			if !ok {
				return nil, fileErr(f, t.key, fmt.Errorf("tools: %q is not built", t.source))
			}
			toParent := l.cfg.Settings.Runtime.EventStreaming.SubAgentToParent
			fn, err := agenttool.New(agenttool.Config{Executor: exec, StreamToParent: &toParent})
			if err != nil {
				return nil, fileErr(f, t.key, err)
			}
			out = append(out, fn)
		}
	}
	return out, nil
}

func (f *resFile) refAt(key string) *ref {
	for _, r := range f.refs {
		if r.key == key {
			return r
		}
	}
	return nil
}

var schemaNameRE = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// outputSchema turns an output_schema table into a structured-output
// schema named by its title (else the resource id).
func outputSchema(t Table, id string) (*agent.OutputSchema, error) {
	if t == nil {
		return nil, nil
	}
	name, _ := t["title"].(string)
	if name == "" {
		name = id
	}
	name = strings.Trim(schemaNameRE.ReplaceAllString(name, "_"), "_")
	if name == "" {
		name = "output"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	raw, err := t.JSON()
	if err != nil {
		return nil, err
	}
	return agent.OutputSchemaFromJSON(name, raw)
}

func (l *loader) constructAgent(f *resFile) (any, error) {
	a := f.agent
	tools, err := l.tools(f, a.Tools)
	if err != nil {
		return nil, err
	}
	tools = withToolOptions(tools, a.ToolOptions)
	schema, err := outputSchema(a.OutputSchema, f.id)
	if err != nil {
		return nil, fileErr(f, "output_schema", err)
	}
	var fallbacks []model.Model
	for i, name := range a.FallbackModels {
		m, err := l.res.model(name)
		if err != nil {
			return nil, fileErr(f, fmt.Sprintf("fallback_models[%d]", i), err)
		}
		fallbacks = append(fallbacks, m)
	}
	primary, err := l.res.model(a.Model)
	if err != nil {
		return nil, fileErr(f, "model", err)
	}
	reasoningModel, reasoningAgent, err := l.reasoning(f, a.ReasoningModel)
	if err != nil {
		return nil, err
	}
	kb, kf := l.knowledgeSettings(a.knowledge())
	cfg := a.Config // every option with a plain form, as decoded
	cfg.ID, cfg.Model, cfg.FallbackModels = f.id, primary, fallbacks
	cfg.ReasoningModel, cfg.ReasoningAgent = reasoningModel, reasoningAgent
	cfg.Instructions, cfg.Timezone, cfg.Tools, cfg.ToolChoice = a.Instructions, a.tz, tools, a.choice
	cfg.Knowledge, cfg.KnowledgeFilters = kb, kf
	cfg.SessionState, cfg.Dependencies, cfg.Metadata = a.SessionState, a.Dependencies, a.Metadata
	cfg.OutputSchema, cfg.DelayBetweenRetries = schema, a.DelayBetweenRetries.Duration()
	cfg.Store, cfg.Logger = l.res.Store, l.cfg.Logger
	out, err := agent.New(cfg)
	if err != nil {
		return nil, fileErr(f, "", err)
	}
	return out, nil
}

func (l *loader) constructTeam(f *resFile) (any, error) {
	t := f.team
	tools, err := l.tools(f, t.Tools)
	if err != nil {
		return nil, err
	}
	tools = withToolOptions(tools, t.ToolOptions)
	var members []run.Executor
	for _, r := range f.refs {
		if !strings.HasPrefix(r.key, "members[") {
			continue
		}
		exec, ok := r.target().(run.Executor)
		if !ok {
			return nil, fileErr(f, r.key, fmt.Errorf("%s = %q is not built", r.key, r.source))
		}
		members = append(members, exec)
	}
	schema, err := outputSchema(t.OutputSchema, f.id)
	if err != nil {
		return nil, fileErr(f, "output_schema", err)
	}
	leader, err := l.res.model(t.Model)
	if err != nil {
		return nil, fileErr(f, "model", err)
	}
	reasoningModel, reasoningAgent, err := l.reasoning(f, t.ReasoningModel)
	if err != nil {
		return nil, err
	}
	kb, kf := l.knowledgeSettings(t.knowledge())
	cfg := t.Config // every option with a plain form, as decoded
	cfg.ID, cfg.Model, cfg.Members = f.id, leader, members
	cfg.ReasoningModel, cfg.ReasoningAgent = reasoningModel, reasoningAgent
	cfg.Instructions, cfg.Tools = t.Instructions, tools
	cfg.Knowledge, cfg.KnowledgeFilters = kb, kf
	cfg.SessionState, cfg.Dependencies, cfg.Metadata = t.SessionState, t.Dependencies, t.Metadata
	cfg.OutputSchema, cfg.DelayBetweenRetries = schema, t.DelayBetweenRetries.Duration()
	cfg.Store, cfg.Logger = l.res.Store, l.cfg.Logger
	out, err := team.New(cfg)
	if err != nil {
		return nil, fileErr(f, "", err)
	}
	return out, nil
}

func (l *loader) constructWorkflow(f *resFile) (any, error) {
	w := f.workflow
	steps, err := l.nodes(f, w.Steps, "steps")
	if err != nil {
		return nil, err
	}
	schema, err := w.InputSchema.JSON()
	if err != nil {
		return nil, fileErr(f, "input_schema", err)
	}
	cfg := w.Config // every option with a plain form, as decoded
	cfg.ID, cfg.Steps, cfg.InputSchema = f.id, steps, schema
	cfg.SessionState, cfg.Metadata, cfg.Dependencies = w.SessionState, w.Metadata, w.Dependencies
	if w.Agent != nil {
		wa := w.Agent.WorkflowAgent
		if wa.Model, err = l.res.model(w.Agent.Model); err != nil {
			return nil, fileErr(f, "agent.model", err)
		}
		cfg.Agent = &wa
	}
	cfg.Store, cfg.Logger = l.res.Store, l.cfg.Logger
	out, err := workflow.New(cfg)
	if err != nil {
		return nil, fileErr(f, "", err)
	}
	return out, nil
}

func (l *loader) nodes(f *resFile, steps []StepFile, key string) ([]workflow.Node, error) {
	var out []workflow.Node
	for i := range steps {
		n, err := l.node(f, &steps[i], fmt.Sprintf("%s[%d]", key, i))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func human(s *StepFile) workflow.HumanReview {
	h := workflow.HumanReview{
		RequiresConfirmation: s.RequiresConfirmation, ConfirmationMessage: s.ConfirmationMessage,
		RequiresUserInput: s.RequiresUserInput, UserInputMessage: s.UserInputMessage,
		RequiresOutputReview: s.RequiresOutputReview, OutputReviewMessage: s.OutputReviewMessage,
		OnReject: workflow.OnReject(s.OnReject), Timeout: s.TimeoutSeconds.Duration(), OnTimeout: workflow.OnTimeout(s.OnTimeout),
		Approval: s.Approval,
	}
	if s.Approval == tool.ApprovalRequired && !h.RequiresConfirmation && !h.RequiresUserInput && !h.RequiresOutputReview {
		h.RequiresConfirmation = true // as a tool's: required implies a confirmation
	}
	for _, in := range s.UserInputSchema {
		field := workflow.InputField{Name: in.Name, FieldType: in.FieldType, Description: in.Description, Required: in.Required}
		for _, v := range in.AllowedValues {
			field.AllowedValues = append(field.AllowedValues, v.V)
		}
		h.UserInputSchema = append(h.UserInputSchema, field)
	}
	return h
}

func (l *loader) node(f *resFile, s *StepFile, key string) (workflow.Node, error) {
	var err error
	switch s.Type {
	case "", StepTypeStep:
		st := &workflow.Step{Name: s.Name, ID: s.ID, Description: s.Description, MaxRetries: s.MaxRetries,
			SkipOnFailure: s.SkipOnFailure, OnError: workflow.OnError(s.OnError),
			AddWorkflowHistory: s.AddWorkflowHistory, NumHistoryRuns: s.NumHistoryRuns, HumanReview: human(s)}
		switch {
		case s.Function != "":
			st.Func = l.fn.Steps[s.Function]
		default:
			var r *ref
			for _, k := range []string{".agent", ".team", ".workflow"} {
				if r = f.refAt(key + k); r != nil {
					break
				}
			}
			if r == nil {
				return nil, fileErr(f, key, fmt.Errorf("%s: the step's executor is not resolved", key))
			}
			switch t := r.target().(type) {
			case *workflow.Workflow:
				st.Workflow = t
			case run.Executor:
				st.Agent = t
			default:
				return nil, fileErr(f, r.key, fmt.Errorf("%s = %q is not built", r.key, r.source))
			}
		}
		return st, nil
	case StepTypeSteps:
		st := &workflow.Steps{Name: s.Name, ID: s.ID, Description: s.Description, HumanReview: human(s)}
		st.Steps, err = l.nodes(f, s.Steps, key+".steps")
		return st, err
	case StepTypeParallel:
		st := &workflow.Parallel{Name: s.Name, ID: s.ID, Description: s.Description, HumanReview: human(s)}
		st.Steps, err = l.nodes(f, s.Steps, key+".steps")
		return st, err
	case StepTypeLoop:
		st := &workflow.Loop{Name: s.Name, ID: s.ID, Description: s.Description, MaxIterations: s.MaxIterations, HumanReview: human(s)}
		if st.Steps, err = l.nodes(f, s.Steps, key+".steps"); err != nil {
			return nil, err
		}
		switch c := f.compiled[key+".end_condition"].(type) {
		case celProgram:
			st.EndConditionAt = celEndConditionFunc(c.prg, c.src)
		case func([]*workflow.StepOutput) bool:
			st.EndCondition = c
		}
		return st, nil
	case StepTypeCondition:
		st := &workflow.Condition{Name: s.Name, ID: s.ID, Description: s.Description, HumanReview: human(s)}
		if st.Steps, err = l.nodes(f, s.Steps, key+".steps"); err != nil {
			return nil, err
		}
		if st.ElseSteps, err = l.nodes(f, s.ElseSteps, key+".else_steps"); err != nil {
			return nil, err
		}
		switch c := f.compiled[key+".evaluator"].(type) {
		case celProgram:
			st.Evaluator = celConditionFunc(c.prg, c.src)
		case func(context.Context, *workflow.StepInput) (bool, error):
			st.Evaluator = c
		}
		return st, nil
	case StepTypeRouter:
		st := &workflow.Router{Name: s.Name, ID: s.ID, Description: s.Description, AllowMultipleSelections: s.AllowMultipleSelections, HumanReview: human(s)}
		if st.Choices, err = l.nodes(f, s.Choices, key+".choices"); err != nil {
			return nil, err
		}
		switch c := f.compiled[key+".selector"].(type) {
		case celProgram:
			st.Selector = celSelectorFunc(c.prg, c.src)
		case func(context.Context, *workflow.StepInput, []string) ([]string, error):
			st.Selector = c
		}
		return st, nil
	}
	return nil, fileErr(f, key+".type", fmt.Errorf("unknown step type %q", s.Type))
}
