package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// UserInputFrom: the form comes from the model's arguments, the call
// pauses for user input and the model keeps every parameter.
func TestUserInputFrom(t *testing.T) {
	params := `{"type":"object","properties":{"fields":{"type":"array","items":{"type":"string"}}},"required":["fields"]}`
	from := func(args map[string]any) []run.UserInputField {
		var out []run.UserInputField
		list, _ := args["fields"].([]any)
		for _, v := range list {
			out = append(out, run.UserInputField{Name: v.(string), FieldType: "str"})
		}
		return out
	}
	f := &tool.Function{Name: "ask", Parameters: []byte(params), UserInputFrom: from, Handler: func(_ context.Context, _ map[string]any) (tool.Result, error) { return tool.Text(""), nil }}
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

	both := &tool.Function{Name: "ask", Parameters: []byte(params), UserInputFrom: from, UserInputFields: []string{"fields"}, Handler: f.Handler}
	if err := both.Validate(); err == nil || !strings.Contains(err.Error(), "leave UserInputFields empty") {
		t.Fatalf("UserInputFrom with UserInputFields: %v", err)
	}
}
