package tool_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
)

type pingOptions struct {
	Reply string `toml:"reply"`
	Path  string `toml:"path"`
}

func TestToolkitRegistry(t *testing.T) {
	tool.RegisterToolkit(tool.ToolkitSpec[pingOptions]{
		Name:     "ping_registry",
		Defaults: func(tool.ToolkitEnv) pingOptions { return pingOptions{Reply: "pong"} },
		Check: func(env tool.ToolkitEnv, o *pingOptions, defined func(string) bool) error {
			o.Path = tool.ResolvePath(env.Dir, o.Path)
			var errs []error
			if o.Reply == "" {
				errs = append(errs, tool.OptionErrorf("reply", "reply = \"\": say something"))
			}
			if defined("path") && o.Path == "" {
				errs = append(errs, tool.OptionErrorf("path", "path = \"\": give a path"))
			}
			return errors.Join(errs...)
		},
		New: func(_ tool.ToolkitEnv, o *pingOptions) (tool.Provider, error) {
			fn, err := tool.New("ping", "answers", func(context.Context, struct{}) (string, error) { return o.Reply, nil })
			if err != nil {
				return nil, err
			}
			return tool.NewToolkit(tool.ToolkitConfig{Name: "ping_registry", Functions: []*tool.Function{fn}})
		},
	})
	if !slices.Contains(tool.ToolkitNames(), "ping_registry") {
		t.Fatal(tool.ToolkitNames())
	}
	tk, _ := tool.LookupToolkit("ping_registry")
	env := tool.ToolkitEnv{Dir: "/base"}

	opts := tk.DefaultOptions(env).(*pingOptions)
	opts.Path = "rel"
	if err := tk.Check(env, opts, nil); err != nil || opts.Path != "/base/rel" {
		t.Fatalf("check %v %+v", err, opts)
	}
	opts.Reply, opts.Path = "", ""
	probs := tool.OptionErrors(tk.Check(env, opts, func(k string) bool { return k == "path" }))
	if len(probs) != 2 || probs[0].Key != "reply" || probs[1].Key != "path" {
		t.Fatalf("problems %+v", probs)
	}
	if got := tool.OptionErrors(errors.New("plain")); len(got) != 1 || got[0].Key != "" {
		t.Errorf("a plain error is the table's: %+v", got)
	}

	// nil options are the defaults.
	p, err := tk.New(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	out, err := fns[0].Handler(context.Background(), map[string]any{})
	if err != nil || out.Content != "pong" {
		t.Errorf("call %+v %v", out, err)
	}
	if _, err := tk.New(env, &struct{}{}); err == nil {
		t.Error("options of another type are refused")
	}

	for name, bad := range map[string]func(){
		"taken":      func() { tool.RegisterToolkit(tool.ToolkitSpec[pingOptions]{Name: "ping_registry", New: newNil}) },
		"upper case": func() { tool.RegisterToolkit(tool.ToolkitSpec[pingOptions]{Name: "Ping", New: newNil}) },
		"no New":     func() { tool.RegisterToolkit(tool.ToolkitSpec[pingOptions]{Name: "ping_x"}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			bad()
		}()
	}
}

func newNil(tool.ToolkitEnv, *pingOptions) (tool.Provider, error) { return nil, nil }

func TestCheckEnvName(t *testing.T) {
	if tool.CheckEnvName("api_key_env", "MY_KEY") != nil {
		t.Error("a good name refused")
	}
	err := tool.CheckEnvName("api_key_env", "sk-123")
	probs := tool.OptionErrors(err)
	if len(probs) != 1 || probs[0].Key != "api_key_env" {
		t.Errorf("%v", err)
	}
}

// ToolSelection is agno's include_tools/exclude_tools for every toolkit:
// it selects from what New built, keeps the instructions, leaves the
// built toolkit alone and names unknown functions.
func TestToolSelection(t *testing.T) {
	mk := func(name string) *tool.Function {
		f, err := tool.New(name, name+" it", func(context.Context, struct{}) (string, error) { return name, nil })
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tk, err := tool.NewToolkit(tool.ToolkitConfig{Name: "pair", Functions: []*tool.Function{mk("a"), mk("b"), mk("c")}, Instructions: "use them", AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	names := func(p tool.Provider) string {
		fns, err := p.Functions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fns {
			out = append(out, f.Name)
		}
		return strings.Join(out, ",")
	}
	if p, err := (tool.ToolSelection{}).Apply(tk); err != nil || p != tool.Provider(tk) {
		t.Errorf("the zero selection: %v %v", p, err)
	}
	p, err := tool.ToolSelection{IncludeTools: []string{"c", "a"}, ExcludeTools: []string{"a"}}.Apply(tk)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(p); got != "c" {
		t.Errorf("selected %s", got)
	}
	if sel := p.(*tool.Toolkit); sel.Name() != "pair" || sel.Instructions() != "use them" {
		t.Errorf("selected toolkit %q %q", sel.Name(), sel.Instructions())
	}
	if got := names(tk); got != "a,b,c" {
		t.Errorf("the built toolkit changed: %s", got)
	}
	p, err = tool.ToolSelection{IncludeTools: []string{}}.Apply(tk)
	if err != nil || names(p) != "" {
		t.Errorf("include_tools = []: %v %v", p, err)
	}
	_, err = tool.ToolSelection{ExcludeTools: []string{"b", "zz", "yy"}}.Apply(tk)
	if err == nil || !strings.Contains(err.Error(), `toolkit "pair": excluded tool(s) not present in the toolkit: zz, yy (available: a, b, c)`) {
		t.Errorf("unknown names: %v", err)
	}
	_, err = tool.ToolSelection{IncludeTools: []string{"a"}}.Apply(mk("solo"))
	if err == nil || !strings.Contains(err.Error(), "*tool.Function") {
		t.Errorf("a provider that is not a toolkit: %v", err)
	}
}

// A toolkit's options may not declare the keys every toolkit takes.
func TestRegisterToolkitRefusesSelectionKeys(t *testing.T) {
	type opts struct {
		Exclude []string `toml:"exclude_tools"`
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), `toolkit "selection_keys_test" options declare "exclude_tools": remove the field`) {
			t.Errorf("recovered %v", r)
		}
		if _, ok := tool.LookupToolkit("selection_keys_test"); ok {
			t.Error("registered")
		}
	}()
	tool.RegisterToolkit(tool.ToolkitSpec[opts]{Name: "selection_keys_test", New: func(tool.ToolkitEnv, *opts) (tool.Provider, error) { return nil, nil }})
}
