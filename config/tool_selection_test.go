package config_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/tool"
)

func functionNames(t *testing.T, p tool.Provider) []string {
	t.Helper()
	fns, err := p.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fns {
		names = append(names, f.Name)
	}
	return names
}

// include_tools and exclude_tools are taken by every toolkit's table
// (agno's Toolkit arguments), applied once by the host to what the
// toolkit built, and a name the toolkit lacks fails the resources
// naming it with the name and the toolkit's functions.
func TestToolkitIncludeExcludeTools(t *testing.T) {
	buildWith := func(t *testing.T, table string) *config.Resources {
		srv := fakeModel(t)
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"config.toml": "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"fake-model\"\n[storage]\ndriver = \"memory\"\n" +
				"[toolkits.file]\n" + table + "\n[toolkits.greeter_test]\ninclude_tools = [\"greet\"]\n",
			"agents/files.toml": "name = \"Files\"\ntools = [\"file\", \"greeter_test\"]\n",
		})
		_, res := build(t, dir, registryFunctions(), config.Existing{})
		return res
	}
	if !registerGreeter {
		t.Fatal("not registered")
	}

	res := buildWith(t, `include_tools = ["read_file", "list_files"]`)
	if got := strings.Join(functionNames(t, res.Toolkits["file"]), ","); got != "read_file,list_files" {
		t.Errorf("include_tools: functions %s", got)
	}
	// A program's toolkit takes the keys too, with no field of its own.
	if got := strings.Join(functionNames(t, res.Toolkits["greeter_test"]), ","); got != "greet" {
		t.Errorf("greeter_test: functions %s", got)
	}
	if len(res.Report.Failures) > 0 || len(res.Agents) != 1 {
		t.Fatalf("agents %d, failures %v", len(res.Agents), res.Report.Failures)
	}
	fns, err := res.Agents[0].Config().Tools[0].Functions(context.Background())
	if err != nil || len(fns) != 2 {
		t.Errorf("the agent's file toolkit: %d functions, %v", len(fns), err)
	}

	res = buildWith(t, `exclude_tools = ["save_file"]`)
	if got := strings.Join(functionNames(t, res.Toolkits["file"]), ","); strings.Contains(got, "save_file") || !strings.Contains(got, "read_file") {
		t.Errorf("exclude_tools: functions %s", got)
	}

	// An empty include_tools keeps none, as agno's include_tools=[].
	res = buildWith(t, `include_tools = []`)
	if got := functionNames(t, res.Toolkits["file"]); len(got) != 0 {
		t.Errorf("include_tools = []: functions %v", got)
	}

	res = buildWith(t, `include_tools = ["read_file", "read_files"]`+"\n"+`exclude_tools = ["delete_everything"]`)
	if res.Toolkits["file"] != nil {
		t.Error("a toolkit with an unknown include_tools name was built")
	}
	if len(res.Report.Failures) != 1 {
		t.Fatalf("failures %v", res.Report.Failures)
	}
	msg := res.Report.Failures[0].Err.Error()
	for _, want := range []string{"[toolkits.file] include_tools/exclude_tools", "read_files", "available: save_file, read_file, list_files, search_files"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}

	errs := configErrors(t, parse(t, "[toolkits.file]\ninclude_tool = [\"read_file\"]\nexclude_tools = [\"\"]\n"))
	if e := findError(t, errs, `unknown key "toolkits.file.include_tool"`, `did you mean "toolkits.file.include_tools"?`); e.Line != 2 {
		t.Errorf("line %d: %v", e.Line, e)
	}
	if e := findError(t, errs, "toolkits.file.exclude_tools[0] is empty"); e.Key != "toolkits.file.exclude_tools[0]" {
		t.Errorf("key %q: %v", e.Key, e)
	}
	findError(t, configErrors(t, parse(t, "[toolkits.shell]\ninclude_tools = \"run_shell_command\"\n")), "toolkits.shell.include_tools", "type")
}

// A toolkit nobody names is not built (its constructor's warnings stay
// silent); one an agent names is built once, when the agent loads.
func TestToolkitsBuiltWhenNamed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml":   "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n[storage]\ndriver = \"memory\"\n",
		"agents/a.toml": "tools = [\"calculator\"]\n",
	})
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if len(res.Agents) != 1 {
		t.Fatalf("agents: %s", res.Report)
	}
	if _, ok := res.Toolkits["calculator"]; !ok {
		t.Fatal("the named toolkit was not built")
	}
	for _, unused := range []string{"tavily", "giphy", "dalle", "exa"} {
		if _, ok := res.Toolkits[unused]; ok {
			t.Errorf("%s was built though nothing names it", unused)
		}
	}
}
