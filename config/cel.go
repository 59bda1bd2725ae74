package config

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	celtypes "cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// CEL expressions in workflow files, with agno's variables
// (agno/workflow/cel.py):
//
//   - Condition evaluator, Router selector: input, previous_step_content,
//     previous_step_outputs (step name → content text), additional_data,
//     session_state; the selector also step_choices, and returns a choice
//     name or a list of them.
//   - Loop end condition: max_iterations, all_success, last_step_content,
//     step_outputs (this iteration's step name → content text).
//
// Expressions are compiled and type-checked when the file loads.
type celUse int

const (
	celCondition celUse = iota
	celSelector
	celEndCondition
)

func (u celUse) String() string {
	switch u {
	case celSelector:
		return "selector"
	case celEndCondition:
		return "end_condition"
	}
	return "evaluator"
}

var celEnvs [3]struct {
	once sync.Once
	env  *cel.Env
	err  error
}

func celEnv(use celUse) (*cel.Env, error) {
	e := &celEnvs[use]
	e.once.Do(func() {
		opts := []cel.EnvOption{
			cel.CrossTypeNumericComparisons(true),
			ext.Strings(),
			ext.Lists(),
		}
		stringMap := cel.MapType(cel.StringType, cel.StringType)
		dynMap := cel.MapType(cel.StringType, cel.DynType)
		switch use {
		case celCondition, celSelector:
			opts = append(opts,
				cel.Variable("input", cel.StringType),
				cel.Variable("previous_step_content", cel.StringType),
				cel.Variable("previous_step_outputs", stringMap),
				cel.Variable("additional_data", dynMap),
				cel.Variable("session_state", dynMap),
			)
			if use == celSelector {
				opts = append(opts, cel.Variable("step_choices", cel.ListType(cel.StringType)))
			}
		case celEndCondition:
			opts = append(opts,
				cel.Variable("current_iteration", cel.IntType),
				cel.Variable("max_iterations", cel.IntType),
				cel.Variable("all_success", cel.BoolType),
				cel.Variable("last_step_content", cel.StringType),
				cel.Variable("step_outputs", stringMap),
			)
		}
		e.env, e.err = cel.NewEnv(opts...)
	})
	return e.env, e.err
}

// celCostLimit bounds one evaluation, so an expression such as a huge
// comprehension cannot stall a workflow.
const celCostLimit = 1_000_000

// compileCEL compiles and type-checks an expression for its use.
func compileCEL(use celUse, src string) (cel.Program, error) {
	env, err := celEnv(use)
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("CEL: %s", strings.TrimSpace(iss.Err().Error()))
	}
	out := ast.OutputType()
	switch use {
	case celCondition, celEndCondition:
		if !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
			return nil, fmt.Errorf("CEL: the expression gives a %s; a %s must give a bool", out, use)
		}
	case celSelector:
		if !out.IsExactType(cel.StringType) && !out.IsExactType(cel.ListType(cel.StringType)) &&
			!out.IsExactType(cel.ListType(cel.DynType)) && !out.IsExactType(cel.DynType) {
			return nil, fmt.Errorf("CEL: the expression gives a %s; a selector must give a choice name (string) or a list of them", out)
		}
	}
	return env.Program(ast, cel.CostLimit(celCostLimit), cel.InterruptCheckFrequency(100))
}

func evalCEL(ctx context.Context, prg cel.Program, vars map[string]any) (celtypes.Val, error) {
	out, _, err := prg.ContextEval(ctx, vars)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// identifierRE is agno's test for "a function name, not an expression".
var identifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// celVariables lists the variables of a use, so that a bare variable
// name ("all_success") is an expression rather than a function name.
var celVariables = map[celUse][]string{
	celCondition:    {"input", "previous_step_content", "previous_step_outputs", "additional_data", "session_state"},
	celSelector:     {"input", "previous_step_content", "previous_step_outputs", "additional_data", "session_state", "step_choices"},
	celEndCondition: {"current_iteration", "max_iterations", "all_success", "last_step_content", "step_outputs"},
}

// isFunctionName reports whether an expression is to be looked up as a
// registered function: a plain identifier that is not a literal or a
// variable of the use.
func isFunctionName(use celUse, s string) bool {
	if !identifierRE.MatchString(s) || s == "true" || s == "false" {
		return false
	}
	for _, v := range celVariables[use] {
		if s == v {
			return false
		}
	}
	return true
}

func celConditionFunc(prg cel.Program, src string) func(context.Context, *workflow.StepInput) (bool, error) {
	return func(ctx context.Context, in *workflow.StepInput) (bool, error) {
		v, err := evalCEL(ctx, prg, stepInputVars(ctx, in))
		if err != nil {
			return false, fmt.Errorf("%w: CEL expression %q: %v", workflow.ErrExpression, src, err)
		}
		b, ok := v.Value().(bool)
		if !ok {
			return false, fmt.Errorf("%w: CEL expression %q gave %v (%s), not a bool", workflow.ErrExpression, src, v.Value(), v.Type().TypeName())
		}
		return b, nil
	}
}

func celSelectorFunc(prg cel.Program, src string) func(context.Context, *workflow.StepInput, []string) ([]string, error) {
	return func(ctx context.Context, in *workflow.StepInput, choices []string) ([]string, error) {
		vars := stepInputVars(ctx, in)
		vars["step_choices"] = choices
		v, err := evalCEL(ctx, prg, vars)
		if err != nil {
			return nil, fmt.Errorf("%w: CEL expression %q: %v", workflow.ErrExpression, src, err)
		}
		switch x := v.Value().(type) {
		case string:
			return []string{x}, nil
		}
		if lister, ok := v.(interface {
			ConvertToNative(reflect.Type) (any, error)
		}); ok && v.Type() == types.ListType {
			native, err := lister.ConvertToNative(reflect.TypeFor[[]string]())
			if err == nil {
				return native.([]string), nil
			}
		}
		return nil, fmt.Errorf("%w: CEL expression %q gave %v, not a choice name or a list of names (choices: %s)", workflow.ErrExpression, src, v.Value(), strings.Join(choices, ", "))
	}
}

func celEndConditionFunc(prg cel.Program, src string) func([]*workflow.StepOutput, int, int) (bool, error) {
	return func(outs []*workflow.StepOutput, iteration, maxIterations int) (bool, error) {
		vars := map[string]any{"current_iteration": int64(iteration), "max_iterations": int64(maxIterations)}
		allSuccess, last := true, ""
		byName := map[string]string{}
		for _, o := range outs {
			c := run.ContentText(o.Content)
			name := o.StepName
			if name == "" {
				name = fmt.Sprintf("step_%d", len(byName))
			}
			byName[name] = c
			last = c
			if !o.Success {
				allSuccess = false
			}
		}
		vars["all_success"], vars["last_step_content"], vars["step_outputs"] = allSuccess, last, byName
		v, err := evalCEL(context.Background(), prg, vars)
		if err != nil {
			return false, fmt.Errorf("%w: CEL expression %q: %v", workflow.ErrExpression, src, err)
		}
		b, ok := v.Value().(bool)
		if !ok {
			return false, fmt.Errorf("%w: CEL expression %q gave %v (%s), not a bool", workflow.ErrExpression, src, v.Value(), v.Type().TypeName())
		}
		return b, nil
	}
}

// stepInputVars are agno's condition and selector variables.
func stepInputVars(ctx context.Context, in *workflow.StepInput) map[string]any {
	outputs := map[string]string{}
	for name, o := range in.PreviousStepOutputs {
		outputs[name] = run.ContentText(o.Content)
	}
	state := map[string]any{}
	if rc := run.FromContext(ctx); rc != nil {
		state = celMap(rc.StateSnapshot())
	}
	return map[string]any{
		"input":                 in.InputString(),
		"previous_step_content": run.ContentText(in.PreviousStepContent),
		"previous_step_outputs": outputs,
		"additional_data":       celMap(in.AdditionalData),
		"session_state":         state,
	}
}

// celMap converts run data (session state, additional data) into values
// CEL's type adapter takes: JSON numbers become int64 when whole.
func celMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = celValue(v)
	}
	return out
}

func celValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x
	case float64:
		// Stored state comes back from JSON as floats; whole numbers are
		// ints, so session_state.count + 1 type-checks as people expect.
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return celValue(float64(x))
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return celValue(f)
	case map[string]any:
		return celMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = celValue(e)
		}
		return out
	case []string:
		return x
	case map[string]string:
		return x
	}
	// Anything else (structs, other numeric types) through its JSON form.
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var back any
	if err := run.DecodeJSON(b, &back); err != nil {
		return string(b)
	}
	return celValue(back)
}
