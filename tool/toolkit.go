package tool

import (
	"context"
	"fmt"
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

	RequiresConfirmation []string
	ExternalExecution    []string
	StopAfterToolCall    []string
	ShowResult           []string
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
// sharing it.
func NewToolkit(cfg ToolkitConfig) (*Toolkit, error) {
	name := cfg.Name
	if name == "" {
		name = "toolkit"
	}
	known := map[string]bool{}
	for _, f := range cfg.Functions {
		known[f.Name] = true
	}
	check := func(list []string, what string) error {
		var missing []string
		for _, n := range list {
			if !known[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("toolkit %q: %s tool(s) not present in the toolkit: %s", name, what, strings.Join(missing, ", "))
		}
		return nil
	}
	if err := check(cfg.Include, "included"); err != nil {
		return nil, err
	}
	if err := check(cfg.Exclude, "excluded"); err != nil {
		return nil, err
	}
	for _, l := range [][]string{cfg.RequiresConfirmation, cfg.ExternalExecution, cfg.StopAfterToolCall, cfg.ShowResult} {
		if err := check(l, "flagged"); err != nil {
			return nil, err
		}
	}
	tk := &Toolkit{name: name, instructions: cfg.Instructions, addInstr: cfg.AddInstructions}
	seen := map[string]bool{}
	for _, f := range cfg.Functions {
		if cfg.Include != nil && !slices.Contains(cfg.Include, f.Name) {
			continue
		}
		if slices.Contains(cfg.Exclude, f.Name) || seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		c := *f
		c.prepared = false
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
