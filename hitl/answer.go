package hitl

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// ErrWrongAnswer: the answer does not fit what the run waits for (approve
// a route choice, input on a confirmation, an unknown field…).
var ErrWrongAnswer = errors.New("hitl: wrong answer for this pause")

// Requirement returns what the run waits for: the unanswered requirement
// of step (a step name or step_id), or the active one when step is "".
// A failed step (pause_kind error) is given as a confirmation: approve
// retries it, reject skips it.
// An agent's or team's pause is given as one executor requirement (named
// after the agent or team) holding its open requirements, so it is
// answered as a workflow step's paused agent is.
func (p *Pause) Requirement(step string) (*workflow.StepRequirement, error) {
	if p.Kind() != kindWorkflow {
		return p.executorRequirement(step)
	}
	if p.PauseKind == "error" && len(p.ErrorRequirements) > 0 {
		er := p.ErrorRequirements[len(p.ErrorRequirements)-1]
		if step != "" && step != er.StepName && step != er.StepID {
			return nil, fmt.Errorf("%w: run %s waits at step %q, not %q", ErrWrongAnswer, p.RunID, er.StepName, step)
		}
		return &workflow.StepRequirement{StepID: er.StepID, StepName: er.StepName, StepIndex: er.StepIndex,
			RequiresConfirmation: true, ConfirmationMessage: fmt.Sprintf("Step failed: %s. Approve retries it, reject skips it.", er.Error)}, nil
	}
	if len(p.StepRequirements) == 0 {
		return nil, fmt.Errorf("%w: run %s lists no step requirement", ErrWrongAnswer, p.RunID)
	}
	if step == "" {
		return copyRequirement(p.StepRequirements[len(p.StepRequirements)-1])
	}
	var waiting []string
	for i := len(p.StepRequirements) - 1; i >= 0; i-- {
		r := p.StepRequirements[i]
		if r.Resolved() {
			continue
		}
		if r.StepName == step || r.StepID == step {
			return copyRequirement(r)
		}
		waiting = append(waiting, fmt.Sprintf("%q", r.StepName))
	}
	return nil, fmt.Errorf("%w: run %s does not wait at step %q (it waits at %s)", ErrWrongAnswer, p.RunID, step, strings.Join(waiting, ", "))
}

func (p *Pause) executorRequirement(step string) (*workflow.StepRequirement, error) {
	id, name := p.ComponentID(), p.ComponentName()
	if step != "" && step != id && step != name {
		return nil, fmt.Errorf("%w: run %s is a paused %s (%s), not a workflow step %q; leave --step out", ErrWrongAnswer, p.RunID, p.Kind(), id, step)
	}
	var reqs []*run.Requirement
	if err := clone(run.Active(p.Requirements), &reqs); err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%w: run %s lists no open requirement", ErrWrongAnswer, p.RunID)
	}
	return &workflow.StepRequirement{StepID: id, StepName: name, RequiresExecutorInput: true, ExecutorRequirements: reqs,
		ExecutorID: id, ExecutorName: name, ExecutorRunID: p.RunID, ExecutorType: p.Kind(), ExecutorSessionID: p.SessionID}, nil
}

func copyRequirement(r *workflow.StepRequirement) (*workflow.StepRequirement, error) {
	var c *workflow.StepRequirement
	if err := clone(r, &c); err != nil {
		return nil, err
	}
	return c, nil
}

// Approve answers yes: confirms the step (or its output), or confirms
// every tool call of a paused agent or team in the step.
func (p *Pause) Approve(step string) ([]*workflow.StepRequirement, error) {
	r, err := p.Requirement(step)
	if err != nil {
		return nil, err
	}
	switch r.Kind() {
	case "executor":
		if err := confirmExecutor(r, true, ""); err != nil {
			return nil, err
		}
	case "route_selection":
		return nil, fmt.Errorf("%w: step %q waits for a route choice (choices: %s); answer with select", ErrWrongAnswer, r.StepName, strings.Join(r.AvailableChoices, ", "))
	case "user_input":
		return nil, fmt.Errorf("%w: step %q waits for user input (fields: %s); answer with input", ErrWrongAnswer, r.StepName, fieldList(r.UserInputSchema))
	default:
		r.Confirm()
	}
	return []*workflow.StepRequirement{r}, nil
}

// Reject answers no, with note as feedback: the step follows its
// on_reject, a reviewed output is retried or dropped, a paused agent's
// tool calls are refused with note shown to the model.
func (p *Pause) Reject(step, note string) ([]*workflow.StepRequirement, error) {
	r, err := p.Requirement(step)
	if err != nil {
		return nil, err
	}
	if r.Kind() == "executor" {
		if err := confirmExecutor(r, false, note); err != nil {
			return nil, err
		}
	} else {
		r.Reject(note)
	}
	return []*workflow.StepRequirement{r}, nil
}

// confirmExecutor sets confirmation on every tool call the executor
// waits for.
func confirmExecutor(r *workflow.StepRequirement, yes bool, note string) error {
	if len(r.ExecutorRequirements) == 0 {
		return fmt.Errorf("%w: step %q lists no executor requirement", ErrWrongAnswer, r.StepName)
	}
	for _, er := range r.ExecutorRequirements {
		if er.Resolved() {
			continue
		}
		if t := er.PauseType(); t != run.PauseConfirmation {
			return fmt.Errorf("%w: tool call %s of step %q waits for %s, not a confirmation", ErrWrongAnswer, toolName(er), r.StepName, t)
		}
		v := yes
		er.Confirmation = &v
		if er.ToolExecution != nil {
			er.ToolExecution.Confirmed = &v
		}
		if !yes && note != "" {
			n := note
			er.ConfirmationNote = &n
			if er.ToolExecution != nil {
				er.ToolExecution.ConfirmationNote = &n
			}
		}
	}
	return nil
}

func toolName(r *run.Requirement) string {
	if r.ToolExecution != nil && r.ToolExecution.ToolName != "" {
		return r.ToolExecution.ToolName
	}
	return r.ID
}

// Select answers a router that lets a human choose its route(s).
func (p *Pause) Select(step string, routes ...string) ([]*workflow.StepRequirement, error) {
	r, err := p.Requirement(step)
	if err != nil {
		return nil, err
	}
	if r.Kind() != "route_selection" {
		return nil, fmt.Errorf("%w: step %q waits for %s, not a route choice", ErrWrongAnswer, r.StepName, r.Kind())
	}
	if err := r.Select(routes...); err != nil {
		return nil, err
	}
	return []*workflow.StepRequirement{r}, nil
}

// Input answers a step that asks for values. Each value is given as
// text and typed by the field's field_type (str, int, float, bool, list:
// a JSON array or comma-separated, dict: a JSON object), then checked
// with the workflow's own validator. A paused agent's user-input tool
// calls are filled the same way.
func (p *Pause) Input(step string, values map[string]string) ([]*workflow.StepRequirement, error) {
	r, err := p.Requirement(step)
	if err != nil {
		return nil, err
	}
	switch r.Kind() {
	case "user_input":
		typed := map[string]any{}
		known := map[string]string{}
		for _, f := range r.UserInputSchema {
			known[f.Name] = f.FieldType
		}
		for name, raw := range values {
			ft, ok := known[name]
			if !ok {
				return nil, fmt.Errorf("%w: step %q has no field %q (fields: %s)", ErrWrongAnswer, r.StepName, name, fieldList(r.UserInputSchema))
			}
			v, err := ParseValue(name, ft, raw)
			if err != nil {
				return nil, err
			}
			typed[name] = v
		}
		if err := r.SetUserInput(typed); err != nil {
			return nil, err
		}
	case "executor":
		if err := inputExecutor(r, values); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: step %q waits for %s, not user input", ErrWrongAnswer, r.StepName, r.Kind())
	}
	return []*workflow.StepRequirement{r}, nil
}

func inputExecutor(r *workflow.StepRequirement, values map[string]string) error {
	used := map[string]bool{}
	asked := false
	for _, er := range r.ExecutorRequirements {
		if !er.NeedsUserInput() {
			continue
		}
		asked = true
		typed := map[string]any{}
		for _, f := range er.UserInputSchema {
			raw, ok := values[f.Name]
			if !ok {
				if f.Value == nil {
					return fmt.Errorf("%w: tool call %s of step %q needs field %q; add --set %s=…", ErrWrongAnswer, toolName(er), r.StepName, f.Name, f.Name)
				}
				continue
			}
			v, err := ParseValue(f.Name, f.FieldType, raw)
			if err != nil {
				return err
			}
			typed[f.Name] = v
			used[f.Name] = true
		}
		if err := er.ProvideUserInput(typed); err != nil {
			return fmt.Errorf("tool call %s of step %q: %w", toolName(er), r.StepName, err)
		}
	}
	if !asked {
		return fmt.Errorf("%w: the tool calls of step %q wait for a confirmation, not user input; answer with approve or reject", ErrWrongAnswer, r.StepName)
	}
	for name := range values {
		if !used[name] {
			return fmt.Errorf("%w: no tool call of step %q asks for field %q", ErrWrongAnswer, r.StepName, name)
		}
	}
	return nil
}

func fieldList(fields []workflow.InputField) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		t := f.FieldType
		if t == "" {
			t = "str"
		}
		parts = append(parts, f.Name+" ("+t+")")
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// ParseValue types a value given as text by a field_type. Errors name the
// field.
func ParseValue(field, fieldType, raw string) (any, error) {
	bad := func(want, hint string) error {
		return fmt.Errorf("%w: field %q expects %s, got %q%s", ErrWrongAnswer, field, want, raw, hint)
	}
	switch fieldType {
	case "", "str", "any":
		return raw, nil
	case "int":
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return nil, bad("an int", "")
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, bad("a float", "")
		}
		return f, nil
	case "bool":
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true", "t", "yes", "y", "1":
			return true, nil
		case "false", "f", "no", "n", "0":
			return false, nil
		}
		return nil, bad("a bool", " (true or false)")
	case "list":
		s := strings.TrimSpace(raw)
		if strings.HasPrefix(s, "[") {
			var v []any
			if err := run.DecodeJSON([]byte(s), &v); err != nil {
				return nil, bad("a list", ` (a JSON array such as ["a","b"], or a,b)`)
			}
			return v, nil
		}
		list := []any{}
		if s != "" {
			for _, part := range strings.Split(s, ",") {
				list = append(list, strings.TrimSpace(part))
			}
		}
		return list, nil
	case "dict":
		var v map[string]any
		if err := run.DecodeJSON([]byte(raw), &v); err != nil || v == nil {
			return nil, bad("a dict", ` (a JSON object such as {"k":"v"})`)
		}
		return v, nil
	}
	return raw, nil
}
