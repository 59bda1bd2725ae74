// Package tool turns Go functions, raw JSON-schema handlers and toolkits
// into the tools a model can call, with agno's schema rules, argument
// decoding and human-in-the-loop flags.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/agno-go/agno/internal/safe"
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
	// Files are documents the tool produced (agno's ToolResult.files):
	// file_generation's JSON, CSV, PDF, text and HTML files.
	Files []model.File
	// Requirements are unresolved human-in-the-loop requirements of a run
	// the tool started (a team member that paused). They pause the caller.
	Requirements []*run.Requirement
	// ChildRunID is the id of a run the tool started.
	ChildRunID string
	// ChildRuns are outputs of nested runs the tool started (team
	// members): the enclosing run stores them with its id as parent.
	ChildRuns []*run.Output
	// Stop ends the model loop after this batch (agno's StopAgentRun).
	Stop bool
}

// Approval types of Function.ApprovalType.
const (
	ApprovalRequired = "required"
	ApprovalAudit    = "audit"
)

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
	UserInputFields []string
	// Interaction makes the tool a question to the user whose form or
	// questions the model writes (agno's get_user_input and ask_user). It
	// implies RequiresUserInput; the model sees every parameter.
	Interaction             *Interaction
	ExternalExecution       bool
	ExternalExecutionSilent bool
	StopAfterToolCall       bool
	ShowResult              bool
	// ApprovalType is agno's @approval: "required" records a pending
	// approval when the call pauses, resolved by an admin before the run
	// goes on (a tool without another human flag then needs
	// confirmation); "audit" records the human's answer afterwards and
	// needs one of the human flags. "" is none.
	ApprovalType string

	Handler Handler
	Hooks   []Hook

	// rawHandler decodes the arguments JSON straight into a typed tool's
	// Args, skipping the map round trip.
	rawHandler func(ctx context.Context, raw []byte) (Result, error)
	// entrypoint is the code address of the Go function New wrapped.
	entrypoint uintptr

	// Derived by Validate: the user-input fields, the parameters whose
	// schema admits a string, the schema as written before Validate hid
	// the user-input fields from it, and that schema parsed for
	// CheckArguments.
	userInputSchema  []run.UserInputField
	stringParams     map[string]bool
	sourceParameters json.RawMessage
	argsSchema       *object
	prepared         bool

	// shared is f as a one-function set and its definition, built once
	// and handed to every agent holding f (see Prepared).
	shared *sharedSet
}

// sharedSet holds one-element slices (len == cap, so an append copies).
type sharedSet struct {
	fns  []*Function
	defs []model.ToolDefinition
}

// Entrypoint identifies the Go function behind the tool: the function
// given to New, else the Handler. Two tools with one entrypoint run the
// same code; 0 means neither is set.
func (f *Function) Entrypoint() uintptr {
	if f.entrypoint != 0 {
		return f.entrypoint
	}
	if f.Handler == nil {
		return 0
	}
	return reflect.ValueOf(f.Handler).Pointer()
}

// validateMu serialises Validate, the only writer of a Function after
// construction.
var validateMu sync.Mutex

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

// Prepared validates f (see Validate) and returns it as a one-function
// tool set with its model definition. Both are built once and shared by
// every agent that holds f: callers must not modify them.
func (f *Function) Prepared() ([]*Function, []model.ToolDefinition, error) {
	validateMu.Lock()
	defer validateMu.Unlock()
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	if sh := f.shared; sh != nil && sh.fns[0] == f && sameDefinition(sh.defs[0], f) {
		return sh.fns, sh.defs, nil
	}
	// First use, a copy of another function (same shared set), or fields
	// changed since: build afresh.
	sh := &sharedSet{fns: []*Function{f}, defs: []model.ToolDefinition{f.Definition()}}
	f.shared = sh
	return sh.fns, sh.defs, nil
}

// sameDefinition reports whether d still describes f (Parameters by
// identity: a changed schema is a new slice).
func sameDefinition(d model.ToolDefinition, f *Function) bool {
	return d.Name == f.Name && d.Description == f.Description && d.Strict == f.Strict &&
		len(d.Parameters) == len(f.Parameters) && (len(d.Parameters) == 0 || &d.Parameters[0] == &f.Parameters[0])
}

// defaultParameters is agno's schema of a function without parameters.
const defaultParameters = `{"type":"object","properties":{},"required":[]}`

// Validate checks the function and derives what decoding needs. It is
// called by the constructors and by agents for hand-built functions. With
// UserInputFields it hides those fields from the model-facing Parameters
// (keeping the author's property order); calling it again on a copy
// starts from the original schema.
func (f *Function) Validate() error {
	// Functions are shared between agents that may be built concurrently.
	validateMu.Lock()
	defer validateMu.Unlock()
	return f.validate()
}

// validate is Validate under validateMu.
func (f *Function) validate() error {
	// Checked even on a prepared function: the approval may be set after
	// New validated it.
	switch f.ApprovalType {
	case "":
	case ApprovalRequired:
		if !f.RequiresConfirmation && !f.RequiresUserInput && len(f.UserInputFields) == 0 && !f.ExternalExecution {
			f.RequiresConfirmation = true
		}
	case ApprovalAudit:
		if !f.RequiresConfirmation && !f.RequiresUserInput && len(f.UserInputFields) == 0 && !f.ExternalExecution {
			return fmt.Errorf("tool %q: ApprovalType \"audit\" records a human's answer: set RequiresConfirmation, RequiresUserInput or ExternalExecution too", f.Name)
		}
	default:
		return fmt.Errorf("tool %q: ApprovalType %q is not an approval type: use %q or %q", f.Name, f.ApprovalType, ApprovalRequired, ApprovalAudit)
	}
	if f.prepared {
		return nil
	}
	if f.Name == "" {
		return errors.New("tool: a function needs a Name")
	}
	if f.Handler == nil && !f.ExternalExecution {
		return fmt.Errorf("tool %q: Handler is nil (set Handler, or ExternalExecution for a tool run outside the agent)", f.Name)
	}
	if len(f.UserInputFields) > 0 || f.Interaction != nil {
		f.RequiresUserInput = true
	}
	if f.Interaction != nil && (len(f.UserInputFields) > 0 || f.Interaction.Ask == nil || f.Interaction.Answer == nil) {
		return fmt.Errorf("tool %q: an Interaction needs Ask and Answer, and builds the form from the arguments: leave UserInputFields empty", f.Name)
	}
	n := 0
	for _, b := range []bool{f.RequiresConfirmation, f.RequiresUserInput, f.ExternalExecution} {
		if b {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("tool %q: only one of RequiresConfirmation, RequiresUserInput (or UserInputFields) and ExternalExecution may be set", f.Name)
	}
	source := f.Parameters
	if f.sourceParameters != nil {
		source = f.sourceParameters
	}
	if len(bytes.TrimSpace(source)) == 0 {
		source = json.RawMessage(defaultParameters)
	}
	root, props, err := parseParameters(source)
	if err != nil {
		return fmt.Errorf("tool %q: Parameters: %w", f.Name, err)
	}
	f.stringParams = stringParams(root, props)
	f.userInputSchema = nil
	f.argsSchema = root
	params := source
	if f.RequiresUserInput && f.Interaction == nil {
		// deriveUserInput edits root; the call is checked against the
		// whole schema, human-filled fields included.
		f.argsSchema, _, _ = parseParameters(source)
		hidden, err := f.deriveUserInput(root, props)
		if err != nil {
			return err
		}
		if hidden != nil {
			params = hidden
			f.sourceParameters = source
		}
	}
	f.Parameters = params
	if f.StopAfterToolCall {
		f.ShowResult = true
	}
	f.prepared = true
	return nil
}

// parseParameters decodes a parameters schema, which must be a JSON
// object whose "properties", when present, is an object.
func parseParameters(raw json.RawMessage) (root, props *object, err error) {
	v, err := decodeOrdered(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("not valid JSON: %w", err)
	}
	root, ok := asObject(v)
	if !ok {
		return nil, nil, errors.New(`not a JSON object schema (want {"type":"object","properties":{…}})`)
	}
	p, present := root.get("properties")
	props, ok = asObject(p)
	if present && !ok {
		return nil, nil, errors.New(`"properties" is not a JSON object`)
	}
	if props == nil {
		props = newObject()
	}
	return root, props, nil
}

// stringParams lists the parameters whose schema admits a string.
func stringParams(root, props *object) map[string]bool {
	refs := schemaRefs{root: root}
	out := map[string]bool{}
	for _, name := range props.keys {
		if p, ok := asObject(props.vals[name]); ok && refs.declaresString(p, 0) {
			out[name] = true
		}
	}
	return out
}

// deriveUserInput builds the user-input schema from every parameter and
// returns the model-facing schema without the human-filled fields (nil
// when no field is hidden).
func (f *Function) deriveUserInput(root, props *object) (json.RawMessage, error) {
	for _, name := range f.UserInputFields {
		if _, ok := props.get(name); !ok {
			return nil, fmt.Errorf("tool %q: user input field %q is not a parameter (parameters: %s)", f.Name, name, strings.Join(props.keys, ", "))
		}
	}
	refs := schemaRefs{root: root}
	for _, name := range props.keys {
		p, _ := asObject(props.vals[name])
		if p == nil {
			p = newObject()
		}
		field := run.UserInputField{Name: name, FieldType: refs.pythonTypeName(p)}
		if d, ok := refs.resolve(p, 0).vals["description"].(string); ok {
			field.Description = d
		}
		if d, ok := p.vals["description"].(string); ok {
			field.Description = d
		}
		f.userInputSchema = append(f.userInputSchema, field)
	}
	if len(f.UserInputFields) == 0 {
		return nil, nil
	}
	hidden := map[string]bool{}
	for _, n := range f.UserInputFields {
		hidden[n] = true
		props.delete(n)
	}
	if req, ok := root.vals["required"].([]any); ok {
		kept := []any{}
		for _, r := range req {
			if s, _ := r.(string); !hidden[s] {
				kept = append(kept, r)
			}
		}
		root.set("required", kept)
	}
	b, err := root.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", f.Name, err)
	}
	return b, nil
}

// UserInputSchema returns a fresh copy of the user-input fields of a
// RequiresUserInput tool, pre-filled from the model's arguments (an
// Interaction's form for one).
func (f *Function) UserInputSchema(args map[string]any) []run.UserInputField {
	if f.Interaction != nil {
		fields, _ := f.Interaction.Ask(args)
		return fields
	}
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

// InvokeArgs runs the tool with decoded arguments, checked as Invoke
// checks them; when nothing wraps the call and the arguments are exactly
// their JSON text, a typed tool decodes that text directly (or their
// converted form, when the check converted any).
func (f *Function) InvokeArgs(ctx context.Context, call *Call, args Arguments, extra ...Hook) (res Result, err error) {
	if f.rawHandler == nil || !args.Exact || len(f.Hooks)+len(extra) > 0 {
		return f.Invoke(ctx, call, args.Values, extra...)
	}
	defer func() {
		if p := recover(); p != nil {
			err = safe.FromPanic(nil, "tool "+f.Name, p)
		}
	}()
	raw := []byte(args.Normalized)
	vals, changed, err := f.checkArguments(args.Values)
	if err != nil {
		return Result{}, err
	}
	if changed {
		if raw, err = marshalNoEscape(vals); err != nil {
			return Result{}, err
		}
	}
	return f.rawHandler(ctx, raw)
}

// Invoke runs the tool through its hooks, then the extra hooks (an agent's
// tool_hooks, outermost first). Inside them the arguments are checked
// (CheckArguments): a mismatch is a *ValidationError, the text agno hands
// the model, and the handler does not run. A panic in the tool becomes an
// error.
func (f *Function) Invoke(ctx context.Context, call *Call, args map[string]any, extra ...Hook) (res Result, err error) {
	if f.Handler == nil {
		return Result{}, fmt.Errorf("tool %q has no handler", f.Name)
	}
	h := f.checked(f.Handler)
	hooks := append(append([]Hook(nil), extra...), f.Hooks...)
	for i := len(hooks) - 1; i >= 0; i-- {
		h = wrap(hooks[i], call, h)
	}
	defer func() {
		if p := recover(); p != nil {
			err = safe.FromPanic(nil, "tool "+f.Name, p)
		}
	}()
	return h(ctx, args)
}

func wrap(hook Hook, call *Call, next Handler) Handler {
	return func(ctx context.Context, args map[string]any) (Result, error) {
		return hook(ctx, call, args, next)
	}
}

// PanicError is a tool (or tool hook) that panicked: its value and stack
// are logged, its text names the tool only. An agent ends the run ERROR.
type PanicError = safe.PanicError

// Interaction is a tool whose call is a question to the user (agno's
// get_user_input and ask_user): the run pauses with the form or the
// questions Ask builds from the model's arguments, and once the user has
// answered, the model gets what Answer writes from the answered call;
// the function's Handler does not run then. When Ask builds nothing, the
// call does not pause and the Handler runs, as agno's does.
type Interaction struct {
	Ask    func(args map[string]any) (fields []run.UserInputField, questions []run.FeedbackQuestion)
	Answer func(call *run.ToolExecution) (string, error)
}
