// Package tool turns Go functions, raw JSON-schema handlers and toolkits
// into the tools a model can call, with agno's schema rules, argument
// decoding and human-in-the-loop flags.
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// Handler runs a tool with decoded arguments. The run context, when there
// is one, is reached with run.FromContext(ctx).
type Handler func(ctx context.Context, args map[string]any) (Result, error)

// Result is what a tool returns.
type Result struct {
	// Content is the text handed back to the model.
	Content string
	Images  []model.Image
	// Requirements are unresolved human-in-the-loop requirements of a run
	// the tool started (a team member that paused). They pause the caller.
	Requirements []*run.Requirement
	// ChildRunID is the id of a run the tool started.
	ChildRunID string
	// Stop ends the model loop after this batch (agno's StopAgentRun).
	Stop bool
}

// Text is a Result with only content.
func Text(s string) Result { return Result{Content: s} }

// Hook wraps a tool call; it must call next to run the tool (possibly with
// changed arguments). Hooks listed first run outermost.
type Hook func(ctx context.Context, call *Call, args map[string]any, next Handler) (Result, error)

// Call identifies one tool invocation to hooks.
type Call struct {
	Function   *Function
	ToolCallID string
}

// Function is one callable tool (agno's Function). Build it with New (from
// a typed Go function), NewRaw (a JSON schema and a handler) or by hand;
// do not modify it once an agent holds it.
type Function struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments object, sent to the
	// model unchanged.
	Parameters json.RawMessage
	Strict     bool
	// Instructions are added to the system message when AddInstructions.
	Instructions    string
	AddInstructions bool

	RequiresConfirmation bool
	RequiresUserInput    bool
	// UserInputFields are the parameters a human fills in; they are hidden
	// from the model. Empty with RequiresUserInput: the human reviews all.
	UserInputFields         []string
	ExternalExecution       bool
	ExternalExecutionSilent bool
	StopAfterToolCall       bool
	ShowResult              bool

	Handler Handler
	Hooks   []Hook

	// userInputSchema and paramKinds are derived from Parameters by
	// prepare.
	userInputSchema []run.UserInputField
	stringParams    map[string]bool
	prepared        bool
}

// Provider supplies functions to an agent: a *Function, a *Toolkit, or a
// connection-backed set such as an MCP server.
type Provider interface {
	Functions(ctx context.Context) ([]*Function, error)
}

// Connector is a Provider that holds a connection (an MCP session). The
// agent connects it before first use; Close releases it.
type Connector interface {
	Provider
	Connect(ctx context.Context) error
	Close() error
}

// Functions makes a single Function a Provider.
func (f *Function) Functions(context.Context) ([]*Function, error) { return []*Function{f}, nil }

// Definition is what the model sees.
func (f *Function) Definition() model.ToolDefinition {
	return model.ToolDefinition{Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict}
}

// Validate checks the function and derives what decoding needs. It is
// called by the constructors and by agents for hand-built functions.
func (f *Function) Validate() error {
	if f.prepared {
		return nil
	}
	if f.Name == "" {
		return errors.New("tool: a function needs a Name")
	}
	if f.Handler == nil && !f.ExternalExecution {
		return fmt.Errorf("tool %q: Handler is nil (set Handler, or ExternalExecution for a tool run outside the agent)", f.Name)
	}
	n := 0
	for _, b := range []bool{f.RequiresConfirmation, f.RequiresUserInput, f.ExternalExecution} {
		if b {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("tool %q: only one of RequiresConfirmation, RequiresUserInput and ExternalExecution may be set", f.Name)
	}
	if len(f.Parameters) == 0 {
		f.Parameters = json.RawMessage(`{"type":"object","properties":{},"required":[]}`)
	}
	var schema map[string]any
	if err := run.DecodeJSON(f.Parameters, &schema); err != nil {
		return fmt.Errorf("tool %q: Parameters is not a JSON object schema: %w", f.Name, err)
	}
	props, _ := schema["properties"].(map[string]any)
	f.stringParams = map[string]bool{}
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok && declaresString(ps) {
			f.stringParams[name] = true
		}
	}
	if len(f.UserInputFields) > 0 {
		f.RequiresUserInput = true
	}
	if f.RequiresUserInput {
		if err := f.deriveUserInput(schema, props); err != nil {
			return err
		}
	}
	if f.StopAfterToolCall {
		f.ShowResult = true
	}
	f.prepared = true
	return nil
}

// deriveUserInput builds the user-input schema from every parameter and
// hides the human-filled fields from the model.
func (f *Function) deriveUserInput(schema, props map[string]any) error {
	for _, name := range f.UserInputFields {
		if _, ok := props[name]; !ok {
			return fmt.Errorf("tool %q: user input field %q is not a parameter", f.Name, name)
		}
	}
	for _, name := range orderedKeys(f.Parameters, "properties") {
		p, _ := props[name].(map[string]any)
		field := run.UserInputField{Name: name, FieldType: pythonTypeName(p)}
		if d, ok := p["description"].(string); ok {
			field.Description = d
		}
		f.userInputSchema = append(f.userInputSchema, field)
	}
	if len(f.UserInputFields) == 0 {
		return nil
	}
	hidden := map[string]bool{}
	for _, n := range f.UserInputFields {
		hidden[n] = true
		delete(props, n)
	}
	if req, ok := schema["required"].([]any); ok {
		kept := []any{}
		for _, r := range req {
			if s, _ := r.(string); !hidden[s] {
				kept = append(kept, r)
			}
		}
		schema["required"] = kept
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("tool %q: %w", f.Name, err)
	}
	f.Parameters = b
	return nil
}

// UserInputSchema returns a fresh copy of the user-input fields of a
// RequiresUserInput tool, pre-filled from the model's arguments.
func (f *Function) UserInputSchema(args map[string]any) []run.UserInputField {
	if len(f.userInputSchema) == 0 {
		return nil
	}
	out := make([]run.UserInputField, len(f.userInputSchema))
	copy(out, f.userInputSchema)
	for i := range out {
		if v, ok := args[out[i].Name]; ok {
			out[i].Value = v
		}
	}
	return out
}

// Invoke runs the tool through its hooks, then the extra hooks (an agent's
// tool_hooks, outermost first). A panic in the tool becomes an error.
func (f *Function) Invoke(ctx context.Context, call *Call, args map[string]any, extra ...Hook) (res Result, err error) {
	if f.Handler == nil {
		return Result{}, fmt.Errorf("tool %q has no handler", f.Name)
	}
	h := f.Handler
	hooks := append(append([]Hook(nil), extra...), f.Hooks...)
	for i := len(hooks) - 1; i >= 0; i-- {
		h = wrap(hooks[i], call, h)
	}
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Tool: f.Name, Value: p, Stack: debug.Stack()}
		}
	}()
	return h(ctx, args)
}

func wrap(hook Hook, call *Call, next Handler) Handler {
	return func(ctx context.Context, args map[string]any) (Result, error) {
		return hook(ctx, call, args, next)
	}
}

// PanicError is a tool that panicked.
type PanicError struct {
	Tool  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("tool %s panicked: %v", e.Tool, e.Value) }
