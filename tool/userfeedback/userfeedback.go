// Package userfeedback is agno's UserFeedbackTools: ask_user, with which
// the model pauses the run to put structured questions with predefined
// options to the user. The run's requirement carries the questions
// (agno's user_feedback_schema), so AgentOS clients and the Slack cards
// render them; continuing the run with the selected options hands the
// model agno's "User feedback received: [...]".
package userfeedback

import (
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "user_feedback_tools".
const ToolkitName = "user_feedback"

// Config configures the toolkit.
type Config struct {
	// Instructions replace agno's; "" uses DefaultInstructions.
	Instructions    string
	AddInstructions bool
}

const askUserDescription = "Present structured questions with predefined options to the user."

// askUserParameters is the schema agno gives the model for
// ask_user(questions: List[AskUserQuestion]): pydantic's schema of its
// question model inlined, and the docstring's argument text.
const askUserParameters = `{"type": "object", "properties": {"questions": {"type": "array", "items": {"description": "A structured question with predefined options.", "properties": {"question": {"description": "The question to ask the user. Must end with a question mark.", "title": "Question", "type": "string"}, "header": {"description": "Short label for the question (max 12 chars), e.g. 'Destination'.", "title": "Header", "type": "string"}, "options": {"description": "2-4 options for the user to choose from.", "items": {"description": "An option the user can select.", "properties": {"label": {"description": "Short display text for this option (1-5 words).", "title": "Label", "type": "string"}, "description": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Explanation of what this option means.", "title": "Description"}}, "required": ["label"], "title": "AskUserOption", "type": "object"}, "title": "Options", "type": "array"}, "multi_select": {"default": false, "description": "If true, the user can select multiple options.", "title": "Multi Select", "type": "boolean"}}, "required": ["question", "header", "options"], "title": "AskUserQuestion", "type": "object"}, "description": "A list of questions to present to the user, each with a header, question text, and options."}}, "required": ["questions"]}`

// New builds agno's UserFeedbackTools.
func New(cfg Config) (*tool.Toolkit, error) {
	instructions := cfg.Instructions
	if instructions == "" {
		instructions = DefaultInstructions
	}
	f := &tool.Function{
		Name:        "ask_user",
		Description: askUserDescription,
		Parameters:  []byte(askUserParameters),
		Interaction: &tool.Interaction{Ask: Questions, Answer: answer},
		Handler:     received,
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "user_feedback_tools", Functions: []*tool.Function{f}, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

// errNoRun refuses a call outside a run: ask_user asks the user of a run.
var errNoRun = errors.New("ask_user has no run: it pauses an agent run for the user's choices")

// received runs a call without questions: agno does not pause for one,
// the call runs and says so.
func received(ctx context.Context, _ map[string]any) (tool.Result, error) {
	if run.FromContext(ctx) == nil {
		return tool.Result{}, errNoRun
	}
	return tool.Text("User feedback received"), nil
}

// Questions are the questions of an ask_user call, as agno reads them
// from the model's arguments (missing keys empty, multi_select false).
func Questions(args map[string]any) ([]run.UserInputField, []run.FeedbackQuestion) {
	list, _ := args["questions"].([]any)
	out := make([]run.FeedbackQuestion, 0, len(list))
	for _, item := range list {
		q, _ := item.(map[string]any)
		fq := run.FeedbackQuestion{Question: str(q["question"]), Header: str(q["header"])}
		fq.MultiSelect, _ = q["multi_select"].(bool)
		opts, _ := q["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			fq.Options = append(fq.Options, run.FeedbackOption{Label: str(om["label"]), Description: str(om["description"])})
		}
		out = append(out, fq)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return nil, out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// choice is one entry of agno's answer list, its keys in agno's order.
type choice struct {
	Question string   `json:"question"`
	Selected []string `json:"selected"`
}

// answer is what the model gets once the user chose: each question with
// its selected labels, as agno's handle_ask_user_tool_update writes them.
func answer(call *run.ToolExecution) (string, error) {
	out := make([]choice, len(call.UserFeedbackSchema))
	for i, q := range call.UserFeedbackSchema {
		out[i] = choice{Question: q.Question, Selected: q.SelectedOptions}
		if out[i].Selected == nil {
			out[i].Selected = []string{}
		}
	}
	s, err := pyjson.Dumps(out)
	if err != nil {
		return "", fmt.Errorf("ask_user: the choices cannot be written as JSON: %w", err)
	}
	return "User feedback received: " + s, nil
}
