package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
)

func rawTool(t *testing.T, name, description string, opts ...tool.Option) *tool.Function {
	t.Helper()
	f, err := tool.NewRaw(name, description, json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x","y"]}`),
		func(context.Context, map[string]any) (tool.Result, error) { return tool.Text(name), nil }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func names(t *testing.T, tk *tool.Toolkit) []string {
	t.Helper()
	fns, err := tk.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fns {
		out = append(out, f.Name)
	}
	return out
}

func TestToolkitUnknownNames(t *testing.T) {
	fns := func() []*tool.Function { return []*tool.Function{rawTool(t, "a", ""), rawTool(t, "b", "")} }
	tests := []struct {
		name string
		cfg  tool.ToolkitConfig
		want string
	}{
		{"include", tool.ToolkitConfig{Name: "kit", Include: []string{"a", "nope", "nada"}},
			`toolkit "kit": included tool(s) not present in the toolkit: nope, nada (available: a, b)`},
		{"exclude", tool.ToolkitConfig{Name: "kit", Exclude: []string{"zzz"}},
			`toolkit "kit": excluded tool(s) not present in the toolkit: zzz (available: a, b)`},
		{"confirmation", tool.ToolkitConfig{RequiresConfirmation: []string{"c"}},
			`toolkit "toolkit": requires-confirmation tool(s) not present in the toolkit: c (available: a, b)`},
		{"external", tool.ToolkitConfig{ExternalExecution: []string{"c"}},
			`external-execution tool(s) not present in the toolkit: c`},
		{"stop after", tool.ToolkitConfig{StopAfterToolCall: []string{"c"}},
			`stop-after-tool-call tool(s) not present in the toolkit: c`},
		{"show result", tool.ToolkitConfig{ShowResult: []string{"c", "c"}},
			`show-result tool(s) not present in the toolkit: c (available`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Functions = fns()
			_, err := tool.NewToolkit(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := tool.NewToolkit(tool.ToolkitConfig{Functions: []*tool.Function{nil}}); err == nil || !strings.Contains(err.Error(), "Functions[0] is nil") {
		t.Fatalf("nil function: err = %v", err)
	}
}

func TestToolkitIncludeExclude(t *testing.T) {
	fns := func() []*tool.Function {
		return []*tool.Function{rawTool(t, "a", ""), rawTool(t, "b", ""), rawTool(t, "c", "")}
	}
	tests := []struct {
		name             string
		include, exclude []string
		want             string
	}{
		{"all", nil, nil, "a,b,c"},
		{"include", []string{"c", "a"}, nil, "a,c"},
		{"exclude", nil, []string{"b"}, "a,c"},
		{"both", []string{"a", "b"}, []string{"b"}, "a"},
		{"empty include registers none", []string{}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := tool.NewToolkit(tool.ToolkitConfig{Functions: fns(), Include: tt.include, Exclude: tt.exclude})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names(t, tk), ","); got != tt.want {
				t.Errorf("functions = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolkitFlagsAreCopies(t *testing.T) {
	a := rawTool(t, "a", "")
	b := rawTool(t, "b", "", tool.ShowResult())
	c := rawTool(t, "c", "")
	d := rawTool(t, "d", "")
	tk, err := tool.NewToolkit(tool.ToolkitConfig{
		Name:                 "kit",
		Functions:            []*tool.Function{a, b, c, d},
		RequiresConfirmation: []string{"a"},
		ExternalExecution:    []string{"b"},
		StopAfterToolCall:    []string{"c"},
		ShowResult:           []string{"d"},
	})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	got := map[string]*tool.Function{}
	for _, f := range fns {
		got[f.Name] = f
	}
	if !got["a"].RequiresConfirmation || got["a"].ExternalExecution || got["a"].ShowResult {
		t.Errorf("a = %+v, want only RequiresConfirmation", got["a"])
	}
	if !got["b"].ExternalExecution || !got["b"].ShowResult {
		t.Errorf("b = %+v, want ExternalExecution and its own ShowResult", got["b"])
	}
	if !got["c"].StopAfterToolCall || !got["c"].ShowResult {
		t.Errorf("c = %+v, want StopAfterToolCall implying ShowResult", got["c"])
	}
	if !got["d"].ShowResult || got["d"].StopAfterToolCall {
		t.Errorf("d = %+v, want only ShowResult", got["d"])
	}
	// Nothing leaked into the originals, and a second toolkit sharing
	// them sees clean functions.
	for _, f := range []*tool.Function{a, c, d} {
		if f.RequiresConfirmation || f.ExternalExecution || f.StopAfterToolCall || f.ShowResult {
			t.Errorf("original %s was modified: %+v", f.Name, f)
		}
	}
	if b.ExternalExecution {
		t.Errorf("original b was modified")
	}
	other, err := tool.NewToolkit(tool.ToolkitConfig{Functions: []*tool.Function{a}})
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := other.Functions(context.Background())
	if fa[0].RequiresConfirmation || fa[0] == a || fa[0] == got["a"] {
		t.Errorf("second toolkit got a shared or flagged function: %+v", fa[0])
	}
}

func TestToolkitDuplicateNamesFirstWins(t *testing.T) {
	var logs bytes.Buffer
	tk, err := tool.NewToolkit(tool.ToolkitConfig{
		Name:      "kit",
		Functions: []*tool.Function{rawTool(t, "a", "first"), rawTool(t, "b", ""), rawTool(t, "a", "second")},
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 2 || fns[0].Name != "a" || fns[0].Description != "first" || fns[1].Name != "b" {
		t.Fatalf("functions = %v, want a(first), b", names(t, tk))
	}
	if !strings.Contains(logs.String(), "duplicate function name") || !strings.Contains(logs.String(), "function=a") {
		t.Errorf("no duplicate warning logged: %q", logs.String())
	}
}

func TestToolkitKeepsUserInputTools(t *testing.T) {
	// A function whose Validate already hid its user-input fields must
	// survive being copied and validated again by a toolkit.
	f := rawTool(t, "send", "", tool.RequiresUserInput("y"))
	tk, err := tool.NewToolkit(tool.ToolkitConfig{Functions: []*tool.Function{f}, ShowResult: []string{"send"}})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	c := fns[0]
	if want := `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`; string(c.Parameters) != want {
		t.Errorf("Parameters = %s, want %s", c.Parameters, want)
	}
	if got := c.UserInputSchema(nil); len(got) != 2 {
		t.Errorf("UserInputSchema = %+v, want x and y once each", got)
	}
	// A toolkit flag that conflicts with the function's own is refused.
	_, err = tool.NewToolkit(tool.ToolkitConfig{Name: "kit", Functions: []*tool.Function{f}, RequiresConfirmation: []string{"send"}})
	if err == nil || !strings.Contains(err.Error(), `toolkit "kit": tool "send": only one of`) {
		t.Fatalf("err = %v, want the HITL conflict", err)
	}
}

func TestToolkitInstructions(t *testing.T) {
	tk, err := tool.NewToolkit(tool.ToolkitConfig{Name: "kit", Instructions: "use me"})
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name() != "kit" || tk.Instructions() != "" {
		t.Errorf("Name, Instructions = %q, %q; want kit and no instructions unless AddInstructions", tk.Name(), tk.Instructions())
	}
	tk, _ = tool.NewToolkit(tool.ToolkitConfig{Instructions: "use me", AddInstructions: true})
	if tk.Name() != "toolkit" || tk.Instructions() != "use me" {
		t.Errorf("Name, Instructions = %q, %q", tk.Name(), tk.Instructions())
	}
}
