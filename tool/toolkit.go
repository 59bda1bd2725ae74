package tool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// ToolkitConfig configures a Toolkit: its functions, which of them are
// registered, and per-name flags (agno's Toolkit lists).
type ToolkitConfig struct {
	Name            string
	Functions       []*Function
	Instructions    string
	AddInstructions bool
	// Include registers only these names; Exclude drops names. Unknown
	// names are errors.
	Include []string
	Exclude []string

	// Per-name flags, OR-ed with the functions' own; StopAfterToolCall
	// implies ShowResult. Unknown names are errors.
	RequiresConfirmation []string
	ExternalExecution    []string
	StopAfterToolCall    []string
	ShowResult           []string

	// Logger receives the duplicate-name warning; nil is slog.Default().
	Logger *slog.Logger
}

// Toolkit is a named set of functions.
type Toolkit struct {
	name         string
	instructions string
	addInstr     bool
	functions    []*Function
}

// NewToolkit validates the configuration and returns the toolkit. Each
// function is copied, so flags set here never leak into another toolkit
// sharing it. A nil Include registers every function; an empty non-nil
// Include registers none (agno's include_tools=[]). When two functions
// share a name the first wins and the second is logged and dropped.
func NewToolkit(cfg ToolkitConfig) (*Toolkit, error) {
	name := cfg.Name
	if name == "" {
		name = "toolkit"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var available []string
	known := map[string]bool{}
	for i, f := range cfg.Functions {
		if f == nil {
			return nil, fmt.Errorf("toolkit %q: Functions[%d] is nil", name, i)
		}
		if !known[f.Name] {
			available = append(available, f.Name)
		}
		known[f.Name] = true
	}
	for _, l := range []struct {
		names []string
		what  string
	}{
		{cfg.Include, "included"},
		{cfg.Exclude, "excluded"},
		{cfg.RequiresConfirmation, "requires-confirmation"},
		{cfg.ExternalExecution, "external-execution"},
		{cfg.StopAfterToolCall, "stop-after-tool-call"},
		{cfg.ShowResult, "show-result"},
	} {
		var missing []string
		for _, n := range l.names {
			if !known[n] && !slices.Contains(missing, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("toolkit %q: %s tool(s) not present in the toolkit: %s (available: %s)",
				name, l.what, strings.Join(missing, ", "), strings.Join(available, ", "))
		}
	}
	tk := &Toolkit{name: name, instructions: cfg.Instructions, addInstr: cfg.AddInstructions}
	seen := map[string]bool{}
	for _, f := range cfg.Functions {
		if cfg.Include != nil && !slices.Contains(cfg.Include, f.Name) {
			continue
		}
		if slices.Contains(cfg.Exclude, f.Name) {
			continue
		}
		if seen[f.Name] {
			log.Warn("tool: duplicate function name in toolkit; keeping the first", "toolkit", name, "function", f.Name)
			continue
		}
		seen[f.Name] = true
		c := *f
		c.prepared = false
		c.Hooks = slices.Clone(f.Hooks)
		c.UserInputFields = slices.Clone(f.UserInputFields)
		c.RequiresConfirmation = c.RequiresConfirmation || slices.Contains(cfg.RequiresConfirmation, f.Name)
		c.ExternalExecution = c.ExternalExecution || slices.Contains(cfg.ExternalExecution, f.Name)
		c.StopAfterToolCall = c.StopAfterToolCall || slices.Contains(cfg.StopAfterToolCall, f.Name)
		c.ShowResult = c.ShowResult || c.StopAfterToolCall || slices.Contains(cfg.ShowResult, f.Name)
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("toolkit %q: %w", name, err)
		}
		tk.functions = append(tk.functions, &c)
	}
	return tk, nil
}

// Name is the toolkit's name.
func (t *Toolkit) Name() string { return t.name }

// Instructions returns the toolkit instructions when they are to be added
// to the system message.
func (t *Toolkit) Instructions() string {
	if !t.addInstr {
		return ""
	}
	return t.instructions
}

// Functions implements Provider.
func (t *Toolkit) Functions(context.Context) ([]*Function, error) { return t.functions, nil }

// Select is the toolkit with only the functions include lets through
// (nil: all) less those in exclude, as NewToolkit's Include and Exclude:
// a name the toolkit lacks is an error listing the names it has. The
// toolkit itself is unchanged.
func (t *Toolkit) Select(include, exclude []string) (*Toolkit, error) {
	return NewToolkit(ToolkitConfig{
		Name: t.name, Functions: t.functions, Instructions: t.instructions, AddInstructions: t.addInstr,
		Include: include, Exclude: exclude,
	})
}

// Enabled gathers a toolkit's functions by their enable_* flags, in the
// order they are added; All takes every one. Use it as
// e.If(cfg.EnableThink)(tool.New("think", …)).
type Enabled struct {
	All  bool
	fns  []*Function
	errs []error
}

// If adds the function the constructor returned when on (or All).
func (e *Enabled) If(on bool) func(*Function, error) {
	return func(f *Function, err error) {
		if on || e.All {
			e.fns = append(e.fns, f)
			e.errs = append(e.errs, err)
		}
	}
}

// Functions are the functions added, or the constructors' errors.
func (e *Enabled) Functions() ([]*Function, error) {
	if err := errors.Join(e.errs...); err != nil {
		return nil, err
	}
	return e.fns, nil
}
