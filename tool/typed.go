package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// Option adjusts a Function built by New or NewRaw.
type Option func(*Function)

// RequiresConfirmation pauses the run for a human's approval before the
// call runs.
func RequiresConfirmation() Option { return func(f *Function) { f.RequiresConfirmation = true } }

// RequiresUserInput pauses the run for a human to fill in the named
// parameters (all of them, reviewed, when none are named).
func RequiresUserInput(fields ...string) Option {
	return func(f *Function) { f.RequiresUserInput = true; f.UserInputFields = fields }
}

// ExternalExecution pauses the run: the caller runs the tool and supplies
// its result.
func ExternalExecution() Option { return func(f *Function) { f.ExternalExecution = true } }

// StopAfterToolCall ends the model loop after the call; its result becomes
// the run's content.
func StopAfterToolCall() Option {
	return func(f *Function) { f.StopAfterToolCall = true; f.ShowResult = true }
}

// ShowResult makes the tool's output part of the run's content.
func ShowResult() Option { return func(f *Function) { f.ShowResult = true } }

// Instructions adds text to the agent's system message.
func Instructions(s string) Option {
	return func(f *Function) { f.Instructions = s; f.AddInstructions = true }
}

// Strict asks the provider to enforce the schema.
func Strict() Option { return func(f *Function) { f.Strict = true } }

// WithHooks wraps the tool in hooks, outermost first.
func WithHooks(h ...Hook) Option { return func(f *Function) { f.Hooks = append(f.Hooks, h...) } }

// New builds a tool from a typed Go function. Args must be a struct; its
// fields are the parameters (see ParametersSchema). The result is turned
// into text: a string as is, a Result as is, a fmt.Stringer by String,
// anything else as JSON. A type that cannot be expressed as JSON schema is
// an error here, at registration — never a parameter silently dropped.
func New[Args, R any](name, description string, fn func(ctx context.Context, args Args) (R, error), opts ...Option) (*Function, error) {
	params, err := ParametersSchema(name, reflect.TypeFor[Args]())
	if err != nil {
		return nil, err
	}
	decodeRaw := func(ctx context.Context, b []byte) (Result, error) {
		var args Args
		if len(b) > 0 {
			if err := json.Unmarshal(b, &args); err != nil {
				return Result{}, fmt.Errorf("invalid arguments for %s: %w", name, err)
			}
		}
		out, err := fn(ctx, args)
		if err != nil {
			return Result{}, err
		}
		return ToResult(out)
	}
	f := &Function{
		Name:        name,
		Description: description,
		Parameters:  params,
		Handler: func(ctx context.Context, raw map[string]any) (Result, error) {
			if len(raw) == 0 {
				return decodeRaw(ctx, nil)
			}
			b, err := json.Marshal(raw)
			if err != nil {
				return Result{}, err
			}
			return decodeRaw(ctx, b)
		},
		rawHandler: decodeRaw,
		entrypoint: reflect.ValueOf(fn).Pointer(),
	}
	for _, o := range opts {
		o(f)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// NewRaw builds a tool from a JSON schema and a handler (the shape MCP
// tools take). The schema is sent to the model unchanged.
func NewRaw(name, description string, parameters json.RawMessage, h Handler, opts ...Option) (*Function, error) {
	f := &Function{Name: name, Description: description, Parameters: parameters, Handler: h}
	for _, o := range opts {
		o(f)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Must panics on a construction error; for package-level tool variables.
func Must(f *Function, err error) *Function {
	if err != nil {
		panic(err)
	}
	return f
}

// ToResult turns a Go value into a tool result: nil is empty; a Result is
// itself; strings, []byte, fmt.Stringer and error are their text; anything
// else is JSON (without HTML escaping, so code and markup stay readable).
func ToResult(v any) (Result, error) {
	switch x := v.(type) {
	case nil:
		return Result{}, nil
	case Result:
		return x, nil
	case *Result:
		if x == nil {
			return Result{}, nil
		}
		return *x, nil
	case string:
		return Result{Content: x}, nil
	case []byte:
		return Result{Content: string(x)}, nil
	case fmt.Stringer:
		return Result{Content: x.String()}, nil
	case error:
		return Result{Content: x.Error()}, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		// A named string type is text, as str() of a str subclass is.
		return Result{Content: rv.String()}, nil
	}
	b, err := marshalNoEscape(v)
	if err != nil {
		return Result{}, fmt.Errorf("tool result: %w", err)
	}
	return Result{Content: string(b)}, nil
}
