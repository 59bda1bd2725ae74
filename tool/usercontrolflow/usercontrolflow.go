// Package usercontrolflow is agno's UserControlFlowTools: get_user_input,
// with which the model pauses the run and asks the user for the fields it
// names, as a form. The run's requirement carries those fields (agno's
// user_input_schema), so AgentOS clients and the Slack cards render the
// form; continuing the run with the answers hands the model agno's
// "User inputs retrieved: [...]".
package usercontrolflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "user_control_flow_tools".
const ToolkitName = "user_control_flow"

// Config configures the toolkit; New's callers set the enable flag
// (Options does, on by default as in agno).
type Config struct {
	EnableGetUserInput, All bool
	// Instructions replace agno's; "" uses DefaultInstructions.
	Instructions    string
	AddInstructions bool
}

const getUserInputDescription = "Use this tool to get user input for the given fields. Provide all the fields that you require the user to fill in, as if they were filling in a form."

// The schema agno builds from `user_input_fields: list[dict]` and the
// docstring's Args entry (docstring_parser keeps the type in brackets).
const getUserInputParameters = `{"type":"object","properties":{"user_input_fields":{"type":"array","items":{"type":"object","additionalProperties":true},` +
	`"description":"(list[dict[str, str]]) A list of dictionaries, each containing the following keys:\n- field_name: The name of the field to get input for.\n- field_type: The type of the field to get input for. Only valid python types are supported (e.g. str, int, float, bool, list, dict, etc.).\n- field_description: A description of the field to get input for."}},` +
	`"required":["user_input_fields"]}`

// New builds agno's UserControlFlowTools.
func New(cfg Config) (*tool.Toolkit, error) {
	instructions := cfg.Instructions
	if instructions == "" {
		instructions = DefaultInstructions
	}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableGetUserInput)(newGetUserInput())
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "user_control_flow_tools", Functions: list, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

func newGetUserInput() (*tool.Function, error) {
	f := &tool.Function{
		Name:        "get_user_input",
		Description: getUserInputDescription,
		Parameters:  []byte(getUserInputParameters),
		Interaction: &tool.Interaction{Ask: ask, Answer: answer},
		Handler:     received,
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// pythonTypes are the field types agno understands; any other becomes
// str, as agno's type_mapping falls back.
var pythonTypes = map[string]bool{"str": true, "int": true, "float": true, "bool": true, "list": true, "dict": true}

// Form is the form of a get_user_input call: one field per entry of
// user_input_fields, with agno's field_name, field_type (mapped to a
// Python type name) and field_description.
func Form(args map[string]any) []run.UserInputField {
	entries, _ := args["user_input_fields"].([]any)
	out := make([]run.UserInputField, 0, len(entries))
	for _, e := range entries {
		m, _ := e.(map[string]any)
		f := run.UserInputField{Name: text(m["field_name"]), FieldType: "str", Description: text(m["field_description"])}
		if t, ok := m["field_type"].(string); ok && pythonTypes[t] {
			f.FieldType = t
		}
		out = append(out, f)
	}
	return out
}

// text is a model-written value as a string: strings as they are, other
// scalars as JSON writes them, nothing as "".
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// errNoRun refuses a call outside a run: get_user_input asks the user of
// a run.
var errNoRun = errors.New("get_user_input has no run: it pauses an agent run for the user's answers")

// received runs a call with an empty form: agno does not pause for one,
// the call runs and says so.
func received(ctx context.Context, _ map[string]any) (tool.Result, error) {
	if run.FromContext(ctx) == nil {
		return tool.Result{}, errNoRun
	}
	return tool.Text("User input received"), nil
}

// ask is the form of a get_user_input call.
func ask(args map[string]any) ([]run.UserInputField, []run.FeedbackQuestion) { return Form(args), nil }

// fieldAnswer is one entry of agno's answer list, its keys in agno's order.
type fieldAnswer struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// answer is what the model gets once the user filled in the form: the
// answers in the order it asked for them, as agno's
// handle_get_user_input_tool_update writes them.
func answer(call *run.ToolExecution) (string, error) {
	answers := make([]fieldAnswer, len(call.UserInputSchema))
	for i, f := range call.UserInputSchema {
		answers[i] = fieldAnswer{Name: f.Name, Value: f.Value}
	}
	s, err := pyjson.Dumps(answers)
	if err != nil {
		return "", fmt.Errorf("get_user_input: the answers cannot be written as JSON: %w", err)
	}
	return "User inputs retrieved: " + s, nil
}
