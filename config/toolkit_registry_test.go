package config_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/tool"
)

// greeterOptions are the options of a toolkit a program registers.
type greeterOptions struct {
	Greeting string `toml:"greeting"`
	Times    int    `toml:"times"`
	Dir      string `toml:"dir"`
}

var registerGreeter = func() bool {
	tool.RegisterToolkit(tool.ToolkitSpec[greeterOptions]{
		Name: "greeter_test", Summary: "greets",
		Defaults: func(tool.ToolkitEnv) greeterOptions { return greeterOptions{Greeting: "hello", Times: 1} },
		Check: func(env tool.ToolkitEnv, o *greeterOptions, defined func(string) bool) error {
			o.Dir = tool.ResolvePath(env.Dir, o.Dir)
			if o.Times <= 0 || (defined("times") && o.Times > 3) {
				return tool.OptionErrorf("times", "times = %d: use 1 to 3", o.Times)
			}
			return nil
		},
		New: func(_ tool.ToolkitEnv, o *greeterOptions) (tool.Provider, error) {
			greet, err := tool.New("greet", "greets", func(context.Context, struct{}) (string, error) { return o.Greeting, nil })
			if err != nil {
				return nil, err
			}
			return tool.NewToolkit(tool.ToolkitConfig{Name: "greeter_test", Functions: []*tool.Function{greet}})
		},
	})
	return true
}()

// A program's toolkit is named in tools and configured from its own
// table like a built-in: defaults, strict keys, its own checks at their
// lines, relative paths against the config file.
func TestProgramRegisteredToolkit(t *testing.T) {
	if !registerGreeter {
		t.Fatal("not registered")
	}
	c, err := config.Parse("/etc/agno/config.toml", []byte("[toolkits.greeter_test]\ngreeting = \"hi\"\ndir = \"greet\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := c.Toolkits["greeter_test"].(*greeterOptions)
	if o.Greeting != "hi" || o.Times != 1 || o.Dir != "/etc/agno/greet" {
		t.Errorf("options %+v", o)
	}

	errs := configErrors(t, parse(t, "[toolkits.greeter_test]\ngreting = \"x\"\ntimes = 9\n"))
	if e := findError(t, errs, `unknown key "toolkits.greeter_test.greting"`, `did you mean "toolkits.greeter_test.greeting"?`); e.Line != 2 {
		t.Errorf("line %d: %v", e.Line, e)
	}
	if e := findError(t, errs, "toolkits.greeter_test.times = 9: use 1 to 3"); e.Line != 3 || e.Key != "toolkits.greeter_test.times" {
		t.Errorf("line %d key %q: %v", e.Line, e.Key, e)
	}
	errs = configErrors(t, parse(t, "[toolkits.greeter_test]\ntimes = \"two\"\n"))
	findError(t, errs, "toolkits.greeter_test.times", "type")

	// Built, it serves its function to an agent naming it.
	srv := fakeModel(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml":       "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"fake-model\"\n[storage]\ndriver = \"memory\"\n[toolkits.greeter_test]\ngreeting = \"hey\"\n",
		"agents/greet.toml": "name = \"Greet\"\ntools = [\"greeter_test\"]\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	fns, err := res.Toolkits["greeter_test"].Functions(context.Background())
	if err != nil || len(fns) != 1 || fns[0].Name != "greet" {
		t.Fatalf("functions %v %v", fns, err)
	}
	if !slices.Contains(res.Agents[0].Config().Tools, res.Toolkits["greeter_test"]) {
		t.Errorf("agent tools %v", res.Agents[0].Config().Tools)
	}
	// Go code cannot register a function under a toolkit's name.
	_, err = c.Build(context.Background(), config.Functions{Tools: map[string]tool.Provider{"greeter_test": res.Toolkits["greeter_test"]}}, config.Existing{})
	if err == nil || !strings.Contains(err.Error(), "the name of a built-in toolkit") {
		t.Errorf("a function named like a toolkit: %v", err)
	}
}
