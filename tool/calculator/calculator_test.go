package calculator_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/calculator"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance checks CalculatorTools against agno v2.6.13's
// tools/calculator.py: eight functions, always all registered.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "calculator",
		Name:    "calculator",
		Functions: []tooltest.Function{
			{Name: "add", Args: []string{"a", "b"}},
			{Name: "subtract", Args: []string{"a", "b"}},
			{Name: "multiply", Args: []string{"a", "b"}},
			{Name: "divide", Args: []string{"a", "b"}},
			{Name: "exponentiate", Args: []string{"a", "b"}},
			{Name: "factorial", Args: []string{"n"}},
			{Name: "is_prime", Args: []string{"n"}},
			{Name: "square_root", Args: []string{"n"}},
		},
		Setup: func(*testing.T, *tool.ToolkitEnv) string { return "max_result_bytes = 1000" },
		Failures: map[string][]tooltest.Call{
			// agno's add, subtract, multiply and is_prime cannot fail: the
			// nearest is a float overflow, which json.dumps writes as Infinity.
			"add":          {{Args: `{"a": 1e308, "b": 1e308}`, Want: `"result": Infinity`}},
			"subtract":     {{Args: `{"a": -1e308, "b": 1e308}`, Want: `"result": -Infinity`}},
			"multiply":     {{Args: `{"a": 1e308, "b": 10}`, Want: `"result": Infinity`}},
			"divide":       {{Args: `{"a": 1, "b": 0}`, Want: `{"operation": "division", "error": "Division by zero is undefined"}`}},
			"exponentiate": {{Args: `{"a": 10, "b": 400}`, Want: "math range error"}, {Args: `{"a": -8, "b": 0.5}`, Want: "math domain error"}},
			"factorial":    {{Args: `{"n": -1}`, Want: `{"operation": "factorial", "error": "Factorial of a negative number is undefined"}`}},
			"is_prime":     {{Args: `{"n": -7}`, Want: `{"operation": "prime_check", "result": false}`}},
			"square_root":  {{Args: `{"n": -4}`, Want: `{"operation": "square_root", "error": "Square root of a negative number is undefined"}`}},
		},
		Oversized: &tooltest.Oversized{
			Function: "factorial", Option: "max_result_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"n": 1000}`, Want: "max_result_bytes"},
		},
		BadOptions: []tooltest.BadOption{{Table: "max_result_bytes = -1", Key: "max_result_bytes"}},
	})
}

// TestResults pins each function's text to what agno's json.dumps writes
// (Python 3: floats in repr, so 1 + 2 is 3.0).
func TestResults(t *testing.T) {
	tk, err := calculator.New(calculator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	byName := map[string]*tool.Function{}
	for _, f := range fns {
		byName[f.Name] = f
	}
	for _, c := range []struct{ fn, args, want string }{
		{"add", `{"a": 1, "b": 2}`, `{"operation": "addition", "result": 3.0}`},
		{"add", `{"a": 0.1, "b": 0.2}`, `{"operation": "addition", "result": 0.30000000000000004}`},
		{"subtract", `{"a": 5, "b": 7.5}`, `{"operation": "subtraction", "result": -2.5}`},
		{"multiply", `{"a": 1e200, "b": 1e10}`, `{"operation": "multiplication", "result": 1e+210}`},
		{"divide", `{"a": 1, "b": 3}`, `{"operation": "division", "result": 0.3333333333333333}`},
		{"divide", `{"a": 10, "b": 4}`, `{"operation": "division", "result": 2.5}`},
		{"exponentiate", `{"a": 2, "b": 10}`, `{"operation": "exponentiation", "result": 1024.0}`},
		{"exponentiate", `{"a": 2, "b": -1}`, `{"operation": "exponentiation", "result": 0.5}`},
		{"factorial", `{"n": 0}`, `{"operation": "factorial", "result": 1}`},
		{"factorial", `{"n": 25}`, `{"operation": "factorial", "result": 15511210043330985984000000}`},
		{"is_prime", `{"n": 1}`, `{"operation": "prime_check", "result": false}`},
		{"is_prime", `{"n": 2}`, `{"operation": "prime_check", "result": true}`},
		{"is_prime", `{"n": 91}`, `{"operation": "prime_check", "result": false}`},
		{"is_prime", `{"n": 2147483647}`, `{"operation": "prime_check", "result": true}`},
		{"square_root", `{"n": 2}`, `{"operation": "square_root", "result": 1.4142135623730951}`},
		{"square_root", `{"n": 16}`, `{"operation": "square_root", "result": 4.0}`},
	} {
		f := byName[c.fn]
		args := f.DecodeArguments(c.args)
		if args.Error != "" {
			t.Fatalf("%s(%s): %s", c.fn, c.args, args.Error)
		}
		res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args)
		if err != nil {
			t.Errorf("%s(%s): %v", c.fn, c.args, err)
			continue
		}
		if res.Content != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.fn, c.args, res.Content, c.want)
		}
	}
}
