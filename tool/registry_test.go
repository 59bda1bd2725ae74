package tool_test

import (
	"context"
	"errors"
	"slices"
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
