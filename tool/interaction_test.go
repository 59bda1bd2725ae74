package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// An Interaction: the form comes from the model's arguments, the call
// pauses for user input and the model keeps every parameter.
func TestInteraction(t *testing.T) {
	params := `{"type":"object","properties":{"fields":{"type":"array","items":{"type":"string"}}},"required":["fields"]}`
	ask := func(args map[string]any) ([]run.UserInputField, []run.FeedbackQuestion) {
		var out []run.UserInputField
		list, _ := args["fields"].([]any)
		for _, v := range list {
			out = append(out, run.UserInputField{Name: v.(string), FieldType: "str"})
		}
		return out, nil
	}
	answer := func(*run.ToolExecution) (string, error) { return "answered", nil }
	handler := func(_ context.Context, _ map[string]any) (tool.Result, error) { return tool.Text(""), nil }
	f := &tool.Function{Name: "ask", Parameters: []byte(params), Interaction: &tool.Interaction{Ask: ask, Answer: answer}, Handler: handler}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if !f.RequiresUserInput || string(f.Parameters) != params {
		t.Fatalf("RequiresUserInput %v, Parameters %s", f.RequiresUserInput, f.Parameters)
	}
	got := f.UserInputSchema(map[string]any{"fields": []any{"a", "b"}})
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" || got[0].Value != nil {
		t.Fatalf("UserInputSchema = %+v", got)
	}
	for _, bad := range []*tool.Function{
		{Name: "ask", Parameters: []byte(params), Interaction: &tool.Interaction{Ask: ask, Answer: answer}, UserInputFields: []string{"fields"}, Handler: handler},
		{Name: "ask", Parameters: []byte(params), Interaction: &tool.Interaction{Ask: ask}, Handler: handler},
	} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "Interaction needs Ask and Answer") {
			t.Fatalf("bad interaction accepted: %v", err)
		}
	}
}
