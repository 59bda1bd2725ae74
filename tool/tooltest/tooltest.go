// Package tooltest is the conformance suite every built-in toolkit runs:
// the same checks of names, schemas, argument handling, failures, output
// bounds and options, made on the toolkit as a config builds it, through
// the registry (tool.LookupToolkit(name).New).
//
// A toolkit's contract is agno's: the toolkit, function and argument
// names, the descriptions and the instructions a model sees. A toolkit's
// test supplies a Harness saying what agno v2.6.13 has, and the suite
// fails on every difference the harness does not declare:
//
//	func TestConformance(t *testing.T) {
//		tooltest.Run(t, tooltest.Harness{
//			Toolkit:   "shell",
//			Name:      "shell_tools",
//			Functions: []tooltest.Function{{Name: "run_shell_command", Args: []string{"args", "tail"}}},
//			Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
//				return "max_output_bytes = 1000"
//			},
//			Failures: map[string][]tooltest.Call{
//				"run_shell_command": {{Args: `{"args": ["false"]}`, Want: "Error: "}},
//			},
//			...
//		})
//	}
//
// What the model sees of every schema and of the instructions is pinned
// by a golden file in the toolkit's testdata; after a deliberate change
// rewrite it with
//
//	AGNO_UPDATE_GOLDEN=1 go test ./tool/<toolkit> -run TestConformance
//
// and review the diff against agno.
package tooltest

import (
	"testing"
	"time"

	"github.com/agno-go/agno/tool"
)

// UpdateEnv is the variable that makes the suite rewrite golden files
// instead of comparing them (set it to 1).
const UpdateEnv = "AGNO_UPDATE_GOLDEN"

// CallTimeout bounds every tool call the suite makes.
const CallTimeout = 30 * time.Second

// TruncationAllowance is how far past its bound a result may go: room for
// the note a toolkit puts before cut output (shell's "[output truncated:
// the first N of M bytes were dropped (MaxOutputBytes is K)]\n" after
// "Error: ") or for the error that refuses oversized input.
const TruncationAllowance = 256

// Harness is what a toolkit supplies to run the suite.
type Harness struct {
	// Toolkit is the name the toolkit registered under with
	// tool.RegisterToolkit ("shell").
	Toolkit string
	// Name is agno's name of the built toolkit, its Toolkit(name=...)
	// ("shell_tools"); the provider must report it through Name().
	Name string
	// Functions are agno v2.6.13's functions of the toolkit built with
	// the options Setup returns, in agno's order, each with agno's
	// parameter names.
	Functions []Function
	// Deviations are the differences from Functions the toolkit has, each
	// with the reason: "fn" for a function one side lacks, "fn(arg)" for
	// a parameter of fn one side lacks. Every difference must be listed
	// here and every entry must be a difference, so the list stays true.
	Deviations map[string]string
	// Setup prepares one check: it may create files under env.Dir (a
	// fresh temporary directory, the base of relative paths), start fakes
	// (closed with t.Cleanup), set variables (t.Setenv) and change env
	// (an HTTPClient that reaches a fake). It returns the toolkit's
	// options as a config file writes them: the keys of
	// [toolkits.<name>], in TOML. nil builds the defaults. Checks run one
	// after another, never in parallel, so t.Setenv is allowed.
	Setup func(t *testing.T, env *tool.ToolkitEnv) string
	// Failures are, for every function of the built toolkit, calls whose
	// arguments are valid and that fail inside the tool, with a part of
	// the text the model then sees.
	Failures map[string][]Call
	// Oversized is a call whose output exceeds the toolkit's bound.
	Oversized *Oversized
	// Unbounded says why the toolkit has no output bound; it must be set
	// when Oversized is nil, and the size check is skipped with it.
	Unbounded string
	// BadOptions are option tables the toolkit's Check refuses, each with
	// the key the refusal must name.
	BadOptions []BadOption
	// Golden is the golden file's path, relative to the test's package;
	// "" is testdata/tooltest/<Toolkit>.golden.json.
	Golden string
}

// Function is one of agno's functions.
type Function struct {
	Name string
	// Args are agno's parameter names in signature order, without the
	// ones agno injects (self, agent, team, run_context, media).
	Args []string
}

// Call is one tool call and what the model must see.
type Call struct {
	// Args is the arguments object, as JSON text.
	Args string
	// Want is a substring of the result text the model sees (the
	// tool's content, or its error's text).
	Want string
}

// Oversized is a call producing more output than the toolkit passes on.
type Oversized struct {
	Function string
	Call     Call
	// Option is the key of the option that sets the bound; the table
	// Setup returns must set it to Limit.
	Option string
	// Limit is the bound in bytes: the result may be at most Limit +
	// TruncationAllowance bytes long.
	Limit int
}

// BadOption is an options table the toolkit must refuse.
type BadOption struct {
	// Table is TOML, the keys of [toolkits.<name>].
	Table string
	// Key is the option the refusal names (tool.OptionError.Key).
	Key string
}
