package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func okHandler(context.Context, map[string]any) (tool.Result, error) { return tool.Text("ok"), nil }

func TestValidateHITLFlags(t *testing.T) {
	tests := []struct {
		name string
		f    tool.Function
		want string // "" = valid
	}{
		{"none", tool.Function{Name: "f", Handler: okHandler}, ""},
		{"confirmation", tool.Function{Name: "f", Handler: okHandler, RequiresConfirmation: true}, ""},
		{"external without handler", tool.Function{Name: "f", ExternalExecution: true}, ""},
		{"confirmation+input", tool.Function{Name: "f", Handler: okHandler, RequiresConfirmation: true, RequiresUserInput: true}, "only one of"},
		{"confirmation+external", tool.Function{Name: "f", Handler: okHandler, RequiresConfirmation: true, ExternalExecution: true}, "only one of"},
		{"input+external", tool.Function{Name: "f", Handler: okHandler, RequiresUserInput: true, ExternalExecution: true}, "only one of"},
		{"fields imply input", tool.Function{Name: "f", Handler: okHandler, RequiresConfirmation: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"a":{}}}`), UserInputFields: []string{"a"}}, "only one of"},
		{"no name", tool.Function{Handler: okHandler}, "needs a Name"},
		{"no handler", tool.Function{Name: "f"}, `tool "f": Handler is nil`},
		{"params not JSON", tool.Function{Name: "f", Handler: okHandler, Parameters: json.RawMessage(`{"type":`)}, `tool "f": Parameters: not valid JSON`},
		{"params trailing data", tool.Function{Name: "f", Handler: okHandler, Parameters: json.RawMessage(`{} {}`)}, "not valid JSON"},
		{"params array", tool.Function{Name: "f", Handler: okHandler, Parameters: json.RawMessage(`[1]`)}, "not a JSON object schema"},
		{"params null", tool.Function{Name: "f", Handler: okHandler, Parameters: json.RawMessage(`null`)}, "not a JSON object schema"},
		{"properties not object", tool.Function{Name: "f", Handler: okHandler, Parameters: json.RawMessage(`{"properties":[]}`)}, `"properties" is not a JSON object`},
		{"unknown user input field", tool.Function{Name: "f", Handler: okHandler,
			Parameters: json.RawMessage(`{"type":"object","properties":{"a":{},"b":{}}}`), UserInputFields: []string{"c"}},
			`tool "f": user input field "c" is not a parameter (parameters: a, b)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			err := f.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestValidateDefaultsAndIdempotence(t *testing.T) {
	f := &tool.Function{Name: "f", Handler: okHandler, StopAfterToolCall: true}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if string(f.Parameters) != `{"type":"object","properties":{},"required":[]}` {
		t.Errorf("Parameters = %s, want agno's default", f.Parameters)
	}
	if !f.ShowResult {
		t.Error("StopAfterToolCall must imply ShowResult")
	}
	before := string(f.Parameters)
	if err := f.Validate(); err != nil || string(f.Parameters) != before {
		t.Errorf("second Validate changed the function: %v %s", err, f.Parameters)
	}
	d := f.Definition()
	if d.Name != "f" || string(d.Parameters) != before {
		t.Errorf("Definition = %+v", d)
	}
}

func TestUserInputSchema(t *testing.T) {
	params := `{"type":"object","properties":{
		"to":{"type":"string","description":"recipient"},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"urgent":{"type":"boolean"},
		"cc":{"type":"array","items":{"type":"string"}},
		"meta":{"type":"object"},
		"maybe":{"type":["null","integer"]},
		"either":{"anyOf":[{"type":"null"},{"type":"number"}]},
		"mode":{"$ref":"#/$defs/Mode"},
		"free":{}
	},"required":["to","count","ratio","free"],"$defs":{"Mode":{"type":"boolean","description":"from the def"}}}`
	f, err := tool.NewRaw("send", "", json.RawMessage(params), okHandler, tool.RequiresUserInput("count", "to"))
	if err != nil {
		t.Fatal(err)
	}
	if !f.RequiresUserInput {
		t.Fatal("RequiresUserInput not set")
	}
	// The model no longer sees the human's fields; order and the rest of
	// the schema are kept.
	want := `{"type":"object","properties":{"ratio":{"type":"number"},"urgent":{"type":"boolean"},"cc":{"type":"array","items":{"type":"string"}},"meta":{"type":"object"},"maybe":{"type":["null","integer"]},"either":{"anyOf":[{"type":"null"},{"type":"number"}]},"mode":{"$ref":"#/$defs/Mode"},"free":{}},"required":["ratio","free"],"$defs":{"Mode":{"type":"boolean","description":"from the def"}}}`
	if string(f.Parameters) != want {
		t.Errorf("Parameters:\n got  %s\n want %s", f.Parameters, want)
	}
	got := f.UserInputSchema(map[string]any{"ratio": 0.5, "to": "ann@example.com"})
	wantFields := []run.UserInputField{
		{Name: "to", FieldType: "str", Description: "recipient", Value: "ann@example.com"},
		{Name: "count", FieldType: "int"},
		{Name: "ratio", FieldType: "float", Value: 0.5},
		{Name: "urgent", FieldType: "bool"},
		{Name: "cc", FieldType: "list"},
		{Name: "meta", FieldType: "dict"},
		{Name: "maybe", FieldType: "int"},
		{Name: "either", FieldType: "float"},
		{Name: "mode", FieldType: "bool", Description: "from the def"},
		{Name: "free", FieldType: "str"},
	}
	if diff := cmp.Diff(wantFields, got); diff != "" {
		t.Errorf("UserInputSchema (-want +got):\n%s", diff)
	}
	// Each call gets a fresh copy.
	got[0].Value = "changed"
	if again := f.UserInputSchema(nil); again[0].Value != nil {
		t.Errorf("UserInputSchema shares state between calls: %+v", again[0])
	}
	// A tool without user input has none.
	if s := tool.Must(tool.NewRaw("plain", "", nil, okHandler)).UserInputSchema(nil); s != nil {
		t.Errorf("plain tool UserInputSchema = %+v", s)
	}
}

func TestUserInputAllFieldsReviewed(t *testing.T) {
	type args struct {
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
	f, err := tool.New("email", "", func(_ context.Context, a args) (string, error) { return a.Subject, nil }, tool.RequiresUserInput())
	if err != nil {
		t.Fatal(err)
	}
	// With no fields named, the human reviews everything and the model
	// still sees every parameter.
	if want := `{"type":"object","properties":{"subject":{"type":"string"},"body":{"type":"string"}},"required":["subject","body"]}`; string(f.Parameters) != want {
		t.Errorf("Parameters = %s", f.Parameters)
	}
	if got := f.UserInputSchema(nil); len(got) != 2 || got[0].Name != "subject" || got[1].Name != "body" {
		t.Errorf("UserInputSchema = %+v", got)
	}
}

func TestTypedUserInputFieldHidden(t *testing.T) {
	type args struct {
		To   string `json:"to" description:"recipient"`
		Body string `json:"body"`
	}
	f, err := tool.New("mail", "", func(_ context.Context, a args) (string, error) { return a.To, nil }, tool.RequiresUserInput("to"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"object","properties":{"body":{"type":"string"}},"required":["body"]}`; string(f.Parameters) != want {
		t.Errorf("Parameters = %s", f.Parameters)
	}
}

func TestOptions(t *testing.T) {
	f := tool.Must(tool.NewRaw("o", "d", nil, okHandler, tool.StopAfterToolCall(), tool.Instructions("say hi"), tool.Strict()))
	if !f.StopAfterToolCall || !f.ShowResult || f.Instructions != "say hi" || !f.AddInstructions || !f.Strict || !f.Definition().Strict {
		t.Errorf("options not applied: %+v", f)
	}
	f = tool.Must(tool.NewRaw("o", "", nil, nil, tool.ExternalExecution()))
	if !f.ExternalExecution {
		t.Error("ExternalExecution not set")
	}
	f = tool.Must(tool.NewRaw("o", "", nil, okHandler, tool.RequiresConfirmation(), tool.ShowResult()))
	if !f.RequiresConfirmation || !f.ShowResult {
		t.Error("RequiresConfirmation/ShowResult not set")
	}
	defer func() {
		if recover() == nil {
			t.Error("Must did not panic on an error")
		}
	}()
	tool.Must(tool.NewRaw("", "", nil, okHandler))
}

func TestHooksOrderAndArguments(t *testing.T) {
	var trace []string
	hook := func(name string) tool.Hook {
		return func(ctx context.Context, call *tool.Call, args map[string]any, next tool.Handler) (tool.Result, error) {
			trace = append(trace, name+">")
			args["seen"] = fmt.Sprint(args["seen"], name)
			res, err := next(ctx, args)
			res.Content += "<" + name
			trace = append(trace, "<"+name)
			return res, err
		}
	}
	var handlerArgs map[string]any
	f := tool.Must(tool.NewRaw("t", "", nil, func(_ context.Context, args map[string]any) (tool.Result, error) {
		trace = append(trace, "tool")
		handlerArgs = args
		return tool.Text("r"), nil
	}, tool.WithHooks(hook("f1"), hook("f2"))))

	res, err := f.Invoke(context.Background(), &tool.Call{Function: f, ToolCallID: "c1"}, map[string]any{"seen": ""}, hook("agent1"), hook("agent2"))
	if err != nil {
		t.Fatal(err)
	}
	// The agent's hooks wrap the function's; the first listed is outermost.
	wantTrace := []string{"agent1>", "agent2>", "f1>", "f2>", "tool", "<f2", "<f1", "<agent2", "<agent1"}
	if diff := cmp.Diff(wantTrace, trace); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if handlerArgs["seen"] != "agent1agent2f1f2" {
		t.Errorf("handler args = %v, hooks' changes lost", handlerArgs)
	}
	if res.Content != "r<f2<f1<agent2<agent1" {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestHookCanShortCircuitAndSeesCall(t *testing.T) {
	called := false
	f := tool.Must(tool.NewRaw("guarded", "", nil, func(context.Context, map[string]any) (tool.Result, error) {
		called = true
		return tool.Text("ran"), nil
	}))
	deny := func(_ context.Context, call *tool.Call, _ map[string]any, _ tool.Handler) (tool.Result, error) {
		return tool.Text("denied " + call.Function.Name + " " + call.ToolCallID), nil
	}
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f, ToolCallID: "c9"}, nil, deny)
	if err != nil || called || res.Content != "denied guarded c9" {
		t.Fatalf("res, err, called = %+v, %v, %v", res, err, called)
	}
}

var errBoom = errors.New("boom")

func TestPanicsBecomePanicError(t *testing.T) {
	f := tool.Must(tool.NewRaw("crash", "", nil, func(context.Context, map[string]any) (tool.Result, error) {
		panic("index out of range")
	}))
	_, err := f.Invoke(context.Background(), nil, nil)
	var pe *tool.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *tool.PanicError", err)
	}
	if pe.Where != "tool crash" || pe.Value != "index out of range" || !strings.Contains(string(pe.Stack), "tool_test") {
		t.Errorf("PanicError = %q %v, stack:\n%s", pe.Where, pe.Value, pe.Stack)
	}
	// The text names the tool, never the panic value (it reaches clients).
	if err.Error() != "internal error in tool crash (details are in the server log)" {
		t.Errorf("Error() = %q", err)
	}

	// A panic in a hook is caught too, and an error value unwraps.
	g := tool.Must(tool.NewRaw("ok", "", nil, okHandler))
	_, err = g.Invoke(context.Background(), nil, nil, func(context.Context, *tool.Call, map[string]any, tool.Handler) (tool.Result, error) {
		panic(fmt.Errorf("wrapped: %w", errBoom))
	})
	if !errors.As(err, &pe) || !errors.Is(err, errBoom) {
		t.Errorf("err = %v, want a PanicError unwrapping to errBoom", err)
	}

	// A tool's ordinary error passes through unchanged.
	h := tool.Must(tool.NewRaw("fails", "", nil, func(context.Context, map[string]any) (tool.Result, error) {
		return tool.Result{}, io.ErrUnexpectedEOF
	}))
	if _, err := h.Invoke(context.Background(), nil, nil); err != io.ErrUnexpectedEOF {
		t.Errorf("err = %v, want the handler's own error", err)
	}
}

func TestInvokeWithoutHandler(t *testing.T) {
	f := tool.Must(tool.NewRaw("ext", "", nil, nil, tool.ExternalExecution()))
	if _, err := f.Invoke(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), `tool "ext" has no handler`) {
		t.Fatalf("err = %v", err)
	}
}

type stringer struct{}

func (stringer) String() string { return "from String()" }

type name string

func TestToResult(t *testing.T) {
	img := tool.Result{Content: "c", ChildRunID: "r1", Stop: true}
	tests := []struct {
		name string
		in   any
		want tool.Result
	}{
		{"nil", nil, tool.Result{}},
		{"result", img, img},
		{"result pointer", &img, img},
		{"nil result pointer", (*tool.Result)(nil), tool.Result{}},
		{"string", "  text\n", tool.Text("  text\n")},
		{"named string", name("ann"), tool.Text("ann")},
		{"bytes", []byte("raw"), tool.Text("raw")},
		{"stringer", stringer{}, tool.Text("from String()")},
		{"error", errBoom, tool.Text("boom")},
		{"int", 42, tool.Text("42")},
		{"float", 1.5, tool.Text("1.5")},
		{"bool", true, tool.Text("true")},
		{"map", map[string]any{"b": 1, "a": "<x>&"}, tool.Text(`{"a":"<x>&","b":1}`)},
		{"slice", []int{1, 2}, tool.Text("[1,2]")},
		{"struct", struct {
			N int `json:"n"`
		}{3}, tool.Text(`{"n":3}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tool.ToResult(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := tool.ToResult(make(chan int)); err == nil || !strings.Contains(err.Error(), "tool result") {
		t.Errorf("unencodable result: err = %v", err)
	}
}

func TestRunContextIsInjectedNotInSchema(t *testing.T) {
	type args struct {
		Key string `json:"key"`
	}
	f := tool.Must(tool.New("remember", "", func(ctx context.Context, a args) (string, error) {
		rc := run.FromContext(ctx)
		if rc == nil {
			return "", errors.New("no run context")
		}
		rc.SetStateValue(a.Key, rc.UserID)
		return rc.RunID + "/" + rc.SessionID, nil
	}))
	if want := `{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`; string(f.Parameters) != want {
		t.Errorf("Parameters = %s", f.Parameters)
	}
	rc := run.NewContext(nil)
	rc.RunID, rc.SessionID, rc.UserID = "run-1", "sess-1", "user-1"
	res, err := f.Invoke(run.WithContext(context.Background(), rc), nil, map[string]any{"key": "who"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "run-1/sess-1" {
		t.Errorf("Content = %q", res.Content)
	}
	if v, _ := rc.StateValue("who"); v != "user-1" {
		t.Errorf("session state who = %v", v)
	}
}
