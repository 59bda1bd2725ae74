// Package calculator is agno's CalculatorTools: add, subtract, multiply,
// divide, exponentiate, factorial, is_prime and square_root, each
// answering with the JSON text agno's json.dumps writes (floats in
// Python's repr, so 1 + 2 is 3.0).
//
//	[toolkits.calculator]
//	exclude_tools = ["factorial"]
//
//	# an agent: tools = ["calculator"]
package calculator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools, and agno's toolkit name.
const ToolkitName = "calculator"

// DefaultMaxResultBytes bounds a factorial's digits when Options leave it 0.
const DefaultMaxResultBytes = 64 << 10

// Options are the keys of [toolkits.calculator]. agno's CalculatorTools
// takes only Toolkit's own arguments; max_result_bytes is ours: Python
// computes any factorial, which a model could use to stall the process.
type Options struct {
	MaxResultBytes int `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "arithmetic, powers, factorials, primality and square roots (agno's CalculatorTools)",
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			if o.MaxResultBytes < 0 {
				return tool.OptionErrorf("max_result_bytes", "max_result_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxResultBytes, DefaultMaxResultBytes)
			}
			return nil
		},
		New: func(_ tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{MaxResultBytes: o.MaxResultBytes})
		},
	})
}

// Config configures New.
type Config struct {
	// Include and Exclude are agno's include_tools and exclude_tools.
	Include, Exclude []string
	// MaxResultBytes is the longest factorial answered (0: the default).
	MaxResultBytes int
}

// The descriptions are agno's: its docstrings give "a (float): First
// number.", which its parser turns into "(float) First number.".
type pair struct {
	A float64 `json:"a" description:"(float) First number."`
	B float64 `json:"b" description:"(float) Second number."`
}

type divArgs struct {
	A float64 `json:"a" description:"(float) Numerator."`
	B float64 `json:"b" description:"(float) Denominator."`
}

type powArgs struct {
	A float64 `json:"a" description:"(float) Base."`
	B float64 `json:"b" description:"(float) Exponent."`
}

type factorialArgs struct {
	N int64 `json:"n" description:"(int) Number to calculate the factorial of."`
}

type primeArgs struct {
	N int64 `json:"n" description:"(int) Number to check if prime."`
}

type sqrtArgs struct {
	N float64 `json:"n" description:"(float) Number to calculate the square root of."`
}

// New builds agno's CalculatorTools.
func New(cfg Config) (*tool.Toolkit, error) {
	max := cfg.MaxResultBytes
	if max == 0 {
		max = DefaultMaxResultBytes
	}
	var fns []*tool.Function
	var errs []error
	add := func(f *tool.Function, err error) { fns = append(fns, f); errs = append(errs, err) }
	add(tool.New("add", "Add two numbers and return the result.", func(_ context.Context, p pair) (string, error) {
		return result("addition", p.A+p.B)
	}))
	add(tool.New("subtract", "Subtract second number from first and return the result.", func(_ context.Context, p pair) (string, error) {
		return result("subtraction", p.A-p.B)
	}))
	add(tool.New("multiply", "Multiply two numbers and return the result.", func(_ context.Context, p pair) (string, error) {
		return result("multiplication", p.A*p.B)
	}))
	add(tool.New("divide", "Divide first number by second and return the result.", func(_ context.Context, p divArgs) (string, error) {
		if p.B == 0 {
			return `{"operation": "division", "error": "Division by zero is undefined"}`, nil
		}
		return result("division", p.A/p.B)
	}))
	add(tool.New("exponentiate", "Raise first number to the power of the second number and return the result.", func(_ context.Context, p powArgs) (string, error) {
		r, err := pow(p.A, p.B)
		if err != nil {
			return "", err
		}
		return result("exponentiation", r)
	}))
	add(tool.New("factorial", "Calculate the factorial of a number and return the result.", func(_ context.Context, p factorialArgs) (string, error) {
		return factorial(p.N, max)
	}))
	add(tool.New("is_prime", "Check if a number is prime and return the result.", func(_ context.Context, p primeArgs) (string, error) {
		// Exact below 2^64 (Baillie-PSW), as agno's trial division is.
		prime := p.N > 1 && big.NewInt(p.N).ProbablyPrime(0)
		return fmt.Sprintf(`{"operation": "prime_check", "result": %t}`, prime), nil
	}))
	add(tool.New("square_root", "Calculate the square root of a number and return the result.", func(_ context.Context, p sqrtArgs) (string, error) {
		if p.N < 0 {
			return `{"operation": "square_root", "error": "Square root of a negative number is undefined"}`, nil
		}
		return result("square_root", math.Sqrt(p.N))
	}))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Include: cfg.Include, Exclude: cfg.Exclude})
}

// result is json.dumps({"operation": op, "result": r}) with r a float.
func result(op string, r float64) (string, error) {
	s, err := pyjson.FloatRepr(r)
	if err != nil {
		return "", err
	}
	return `{"operation": "` + op + `", "result": ` + s + `}`, nil
}

// pow is Python's math.pow: its errors where Go's answers NaN or ±Inf.
func pow(a, b float64) (float64, error) {
	r := math.Pow(a, b)
	switch {
	case math.IsNaN(r) && !math.IsNaN(a) && !math.IsNaN(b):
		return 0, errors.New("math domain error")
	case math.IsInf(r, 0) && a == 0:
		return 0, errors.New("math domain error") // 0 ** negative
	case math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0):
		return 0, errors.New("math range error")
	}
	return r, nil
}

func factorial(n int64, maxBytes int) (string, error) {
	if n < 0 {
		return `{"operation": "factorial", "error": "Factorial of a negative number is undefined"}`, nil
	}
	// log10(n!) from lgamma, before computing anything.
	lg, _ := math.Lgamma(float64(n) + 1)
	if digits := lg/math.Ln10 + 1; digits > float64(maxBytes) {
		return "", fmt.Errorf("the factorial of %d has about %.0f digits, more than max_result_bytes = %d of [toolkits.calculator] allows", n, digits, maxBytes)
	}
	r := new(big.Int).MulRange(1, n)
	return `{"operation": "factorial", "result": ` + r.String() + `}`, nil
}
