package config_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// baseConfig is a config.toml whose model is never called.
const baseConfig = `
[models.default]
provider = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "m"

[models.other]
provider = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "m2"

[storage]
driver = "memory"

[mcp.servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
`

// tree writes config.toml and files into a temporary directory and builds.
func tree(t *testing.T, files map[string]string) (*config.Resources, string) {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["config.toml"]; !ok {
		files["config.toml"] = baseConfig
	}
	writeFiles(t, dir, files)
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	return res, dir
}

func failure(t *testing.T, res *config.Resources, file string) config.Failure {
	t.Helper()
	for _, f := range res.Report.Failures {
		if filepath.Base(f.File) == file {
			return f
		}
	}
	t.Fatalf("no failure for %s; report:\n%s", file, res.Report)
	return config.Failure{}
}

func TestUnknownKeysInResourceFiles(t *testing.T) {
	res, dir := tree(t, map[string]string{
		"agents/ok.toml":  "name = \"OK\"\n",
		"agents/bad.toml": "name = \"Bad\"\ninstructions = \"x\"\ntool = [\"lookup\"]\n",
		"workflows/flow.toml": `name = "flow"

[[steps]]
name = "first"
agent = "ok"

[[steps]]
name = "second"
agnet = "ok"

[[steps]]
name = "group"
type = "steps"
  [[steps.steps]]
  name = "inner"
  function = "trim"
  retries = 2
  [[steps.steps]]
  name = "inner2"
  function = "trim"
  user_input_schema = [{ name = "a", field_type = "str", kind = "x" }]
  requires_user_input = true
`,
	})
	if res.Report.Counts.Agents != 1 || res.Report.Counts.Workflows != 0 {
		t.Fatalf("counts %+v\n%s", res.Report.Counts, res.Report)
	}
	f := failure(t, res, "bad.toml")
	if f.Kind != config.KindAgent || f.ID != "bad" {
		t.Errorf("failure %+v", f)
	}
	errs := configErrors(t, f.Err)
	e := findError(t, errs, `unknown key "tool"`, `did you mean "tools"?`)
	if e.Line != 3 || e.File != filepath.Join(dir, "agents", "bad.toml") {
		t.Errorf("%v: line %d file %s", e, e.Line, e.File)
	}

	errs = configErrors(t, failure(t, res, "flow.toml").Err)
	for _, c := range []struct {
		line  int
		parts []string
	}{
		{9, []string{`unknown key "steps[1].agnet"`, `did you mean "steps[1].agent"?`}},
		{17, []string{`unknown key "steps[2].steps[0].retries"`}},
		{21, []string{`unknown key "steps[2].steps[1].user_input_schema[0].kind"`}},
	} {
		if e := findError(t, errs, c.parts...); e.Line != c.line {
			t.Errorf("%v: line %d, want %d", e, e.Line, c.line)
		}
	}
	// Once the unknown key is out, step "second" still has no executor:
	// both problems are reported in one go.
	findError(t, errs, `steps[1] ("second") runs nothing`)
}

func TestCrossReferenceErrorsNameTheFileAndFix(t *testing.T) {
	res, dir := tree(t, map[string]string{
		"agents/a.toml":        "model = \"gpt5\"\n",
		"agents/b.toml":        "model = \"other\"\nfallback_models = [\"nope\"]\n",
		"agents/c.toml":        "tools = [\"team:loop-a\"]\n",
		"agents/d.toml":        "tools = [\"mcp:nothere\", \"nosuchtool\"]\n",
		"agents/good.toml":     "name = \"Good\"\n",
		"teams/t.toml":         "members = [\"good\", \"ghost\"]\n",
		"teams/loop-a.toml":    "members = [\"loop-b\"]\n",
		"teams/loop-b.toml":    "members = [\"loop-a\"]\n",
		"teams/via-tool.toml":  "members = [\"c\"]\n",
		"teams/needs-bad.toml": "members = [\"a\"]\n",
		"workflows/w.toml":     "[[steps]]\nname = \"s\"\nworkflow = \"w\"\n",
		"workflows/x.toml":     "[[steps]]\nname = \"s\"\nfunction = \"missing_fn\"\n",
	})
	agentsDir := filepath.Join(dir, "agents")
	checks := []struct {
		file  string
		line  int
		parts []string
	}{
		{"a.toml", 1, []string{`model = "gpt5" is not a key of [models]`, `use one of "default", "other", add [models.gpt5] there, or name a provider's model as "<provider>:<model id>"`}},
		{"b.toml", 2, []string{`fallback_models[0] = "nope" is not a key of [models]`}},
		{"d.toml", 1, []string{`"mcp:nothere" names no MCP server`, "add [mcp.servers.nothere]", `"mcp:everything"`}},
		{"d.toml", 1, []string{`"nosuchtool" is not a tool`, "registered in config.Functions.Tools (registered: lookup)"}},
		{"t.toml", 1, []string{`members[1] = "ghost"`, "no agent or team has this id", "agents: c, good", "add a file ghost.toml"}},
		{"loop-a.toml", 1, []string{"reference cycle", `team "loop-a"`, `team "loop-b"`, "remove one of these references"}},
		{"loop-b.toml", 1, []string{"reference cycle"}},
		{"c.toml", 1, []string{"loop-a", "failed to load"}},
		{"via-tool.toml", 1, []string{`members[0] = "c"`, `agent "c"`, "failed to load", "fix that file first"}},
		{"needs-bad.toml", 1, []string{`agent "a"`, filepath.Join(agentsDir, "a.toml"), "failed to load"}},
		{"w.toml", 3, []string{"reference cycle", `workflow "w"`}},
		{"x.toml", 3, []string{`function = "missing_fn" is not registered`, "config.Functions.Steps", "normalize"}},
	}
	for _, c := range checks {
		f := failure(t, res, c.file)
		e := findError(t, configErrors(t, f.Err), c.parts...)
		if e.Line != c.line || filepath.Base(e.File) != c.file {
			t.Errorf("%s: %v (line %d, want %d)", c.file, e, e.Line, c.line)
		}
	}
	if res.Report.Counts.Agents != 1 || res.Report.Counts.Teams != 0 {
		t.Errorf("only good.toml should load: %+v\n%s", res.Report.Counts, res.Report)
	}
	// Every failure is in the start-up log with its reason.
	s := res.Report.String()
	for _, c := range checks {
		if !strings.Contains(s, filepath.Base(c.file)) {
			t.Errorf("report lacks %s:\n%s", c.file, s)
		}
	}
}

func TestBrokenFileIsSkippedAndReported(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/fine.toml":       "name = \"Fine\"\ninstructions = [\"ok\"]\n",
		"agents/broken.toml":     "name = \"Broken\ninstructions = [\n",
		"agents/notes.md":        "not loaded",
		"agents/.swap.toml":      "garbage",
		"teams/wrongkind.toml":   "kind = \"agent\"\nname = \"x\"\n",
		"teams/typo.toml":        "members = \"fine\"\n",
		"workflows/unknown.toml": "kind = \"pipeline\"\n",
	})
	if res.Report.Counts.Agents != 1 {
		t.Fatalf("fine.toml should load:\n%s", res.Report)
	}
	if e := configErrors(t, failure(t, res, "broken.toml").Err)[0]; e.Line != 1 {
		t.Errorf("syntax error line: %v", e)
	}
	findError(t, configErrors(t, failure(t, res, "wrongkind.toml").Err), `kind = "agent", but the file is in teams/`)
	findError(t, configErrors(t, failure(t, res, "typo.toml").Err), `key "members"`, "type string")
	findError(t, configErrors(t, failure(t, res, "unknown.toml").Err), `kind = "pipeline"`, `"agent", "team" or "workflow"`)
	if len(res.Report.Failures) != 4 {
		t.Errorf("failures: %s", res.Report)
	}
	s := res.Report.String()
	for _, want := range []string{"ignored, not .toml: notes.md", "loaded 1 agents, 0 teams, 0 workflows from files; 4 files failed", "skipped"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, ".swap.toml") {
		t.Errorf("hidden files are not scanned:\n%s", s)
	}
}

func TestStepValidationAndCEL(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/a.toml": "name = \"A\"\n",
		"workflows/w.toml": `
[[steps]]
name = "cond"
type = "condition"
evaluator = 'input.contains('
  [[steps.steps]]
  name = "x"
  agent = "a"

[[steps]]
name = "cond2"
type = "condition"
evaluator = 'input.size()'
  [[steps.steps]]
  name = "y"
  agent = "a"

[[steps]]
name = "nofn"
type = "condition"
evaluator = "not_registered"
  [[steps.steps]]
  name = "z"
  agent = "a"

[[steps]]
name = "loop"
type = "loop"
end_condition = "current_iteration"
  [[steps.steps]]
  name = "l"
  agent = "a"

[[steps]]
name = "misplaced"
agent = "a"
max_iterations = 2

[[steps]]
name = "both"
agent = "a"
function = "trim"
on_error = "explode"
on_reject = "else"

[[steps]]
name = "r"
type = "router"
selector = "1 + 2"
  [[steps.choices]]
  name = "same"
  agent = "a"
  [[steps.choices]]
  name = "same"
  agent = "a"

[[steps]]
name = "par"
type = "parallel"
  [[steps.steps]]
  name = "ask"
  agent = "a"
  requires_confirmation = true

[[steps]]
name = "schema"
agent = "a"
requires_user_input = true
user_input_schema = [{ name = "n", field_type = "number" }]

[[steps]]
agent = "a"

[[steps]]
name = "weird"
type = "switch"
`,
	})
	errs := configErrors(t, failure(t, res, "w.toml").Err)
	for _, c := range []struct {
		line  int
		parts []string
	}{
		{5, []string{`steps[0] ("cond"): evaluator = "input.contains(": CEL:`, "Syntax error"}},
		{13, []string{`steps[1] ("cond2"): evaluator`, "gives a int; a evaluator must give a bool"}},
		{21, []string{`evaluator = "not_registered" names no registered function`, "config.Functions.Conditions (registered: is_long)"}},
		{29, []string{`end_condition = "current_iteration"`, "gives a int"}},
		{37, []string{`steps[4] ("misplaced"): max_iterations is for loop steps: set type = "loop"`}},
		{42, []string{`steps[5] ("both") sets agent and function`}},
		{43, []string{`on_error = "explode"`, `"skip", "fail", "pause"`}},
		{44, []string{`on_reject = "else"`, `"skip", "cancel", "retry"`}},
		{49, []string{"selector", "gives a int", "choice name"}},
		{54, []string{`two choices are named "same"`}},
		{60, []string{`asks for a human inside the parallel step steps[7] ("par")`}},
		{69, []string{`field_type = "number"`, `"str", "int"`}},
		{71, []string{"steps[9] has no name"}},
		{76, []string{`type = "switch"`, `"loop"`}},
	} {
		if e := findError(t, errs, c.parts...); e.Line != c.line {
			t.Errorf("%v: line %d, want %d", e, e.Line, c.line)
		}
	}
}

func TestSourcesReport(t *testing.T) {
	t.Run("missing and empty", func(t *testing.T) {
		res, dir := tree(t, map[string]string{
			"config.toml":  baseConfig + "\n[agentos.registry]\nsources = [\"agents\", \"defs\", \"empty\"]\n",
			"empty/x.yaml": "not toml",
		})
		s := res.Report.String()
		for _, want := range []string{
			filepath.Join(dir, "agents") + " (agent files): missing; create it or fix [agentos.registry] sources in " + filepath.Join(dir, "config.toml"),
			filepath.Join(dir, "empty") + " (files with kind = ...): empty, no *.toml files (ignored, not .toml: x.yaml)",
			"no agents, teams or workflows came from files",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("report lacks %q:\n%s", want, s)
			}
		}
		if res.Report.Scanned[0].Exists || !res.Report.Scanned[2].Exists {
			t.Errorf("scanned %+v", res.Report.Scanned)
		}
	})
	// Sources the file never set are agno's defaults: one that is not
	// there is said at INFO, not warned; a model's missing key is warned
	// once (by Build, with its fields), not again by the report's log.
	t.Run("default sources", func(t *testing.T) {
		res, dir := tree(t, map[string]string{"config.toml": baseConfig, "agents/a.toml": "name = \"A\"\n"})
		var logs bytes.Buffer
		res.Report.Log(slog.New(slog.NewTextHandler(&logs, nil)))
		want := "level=INFO msg=\"registry: scanned " + filepath.Join(dir, "teams") + " (team files): not there (a default source; create it to add team files)\""
		if !strings.Contains(logs.String(), want) || strings.Contains(logs.String(), "level=WARN") {
			t.Errorf("report log:\n%s\nwant %s and no warning", logs.String(), want)
		}
	})
	t.Run("a file as a source", func(t *testing.T) {
		res, dir := tree(t, map[string]string{
			"config.toml": baseConfig + "\n[agentos.registry]\nsources = [\"agents.toml\"]\n",
			"agents.toml": "name = \"A\"\n",
		})
		if d := res.Report.Scanned[0]; d.Err == nil || !strings.Contains(res.Report.String(), filepath.Join(dir, "agents.toml")+" (files with kind = ...): unreadable") {
			t.Errorf("report:\n%s", res.Report)
		}
	})
	t.Run("auto-populate off", func(t *testing.T) {
		res, _ := tree(t, map[string]string{
			"config.toml":   baseConfig + "\n[agentos]\nregistry_auto_populate = false\n",
			"agents/a.toml": "name = \"A\"\n",
		})
		if len(res.Agents) != 0 || len(res.Report.Scanned) != 0 {
			t.Fatalf("sources were scanned: %+v", res.Report)
		}
		if s := res.Report.String(); !strings.Contains(s, "sources not scanned: registry_auto_populate = false") || !strings.Contains(s, "set it to true") {
			t.Errorf("report:\n%s", s)
		}
	})
	t.Run("refresh off", func(t *testing.T) {
		res, _ := tree(t, map[string]string{
			"config.toml":   baseConfig + "\n[agentos.registry]\nrefresh_on_start = false\n",
			"agents/a.toml": "name = \"A\"\n",
		})
		if len(res.Agents) != 0 || !strings.Contains(res.Report.String(), "refresh_on_start = false") {
			t.Errorf("report:\n%s", res.Report)
		}
	})
	t.Run("explicit kinds in a mixed directory", func(t *testing.T) {
		res, _ := tree(t, map[string]string{
			"config.toml":      baseConfig + "\n[agentos.registry]\nsources = [\"defs\"]\n",
			"defs/a.toml":      "kind = \"agent\"\nname = \"A\"\n",
			"defs/t.toml":      "kind = \"team\"\nmembers = [\"a\"]\n",
			"defs/nokind.toml": "name = \"?\"\n",
			"defs/custom.toml": "kind = \"agent\"\nid = \"custom-id\"\n",
			"defs/dup-id.toml": "kind = \"agent\"\nid = \"a\"\n",
			"defs/bad id.toml": "kind = \"agent\"\n",
		})
		if res.Report.Counts != (config.Counts{Agents: 2, Teams: 1}) {
			t.Errorf("counts %+v\n%s", res.Report.Counts, res.Report)
		}
		findError(t, configErrors(t, failure(t, res, "nokind.toml").Err), "cannot tell whether this is an agent", `kind = "agent"`)
		findError(t, configErrors(t, failure(t, res, "dup-id.toml").Err), `agent id "a" is already defined by`, "a.toml")
		findError(t, configErrors(t, failure(t, res, "bad id.toml").Err), `the id "bad id"`, "cannot be used in URLs")
		ids := map[string]bool{}
		for _, a := range res.Agents {
			ids[a.ID()] = true
		}
		if !ids["a"] || !ids["custom-id"] {
			t.Errorf("agent ids %v", ids)
		}
	})
}

func TestReloadKeepsPreviousVersionsForDependents(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := copyTree(t, "registry", "{{BASE_URL}}", srv.URL)
	c, res := build(t, dir, registryFunctions(), config.Existing{})
	oldResearcher := agentByID(t, res, "researcher")

	// The researcher breaks, the writer changes.
	writeFiles(t, dir, map[string]string{
		"agents/researcher.toml": "name = \"Researcher\"\nnot_a_key = 1\n",
		"agents/writer.toml":     "name = \"Writer v2\"\ninstructions = \"v2 [writer]\"\ntools = [\"agent:researcher\"]\n",
	})
	src, rep := c.LoadSources(context.Background(), res, registryFunctions())
	var researcherErr error
	for _, f := range src.Files {
		if f.ID == "researcher" {
			researcherErr = f.Err
		}
	}
	if researcherErr == nil || !strings.Contains(researcherErr.Error(), `unknown key "not_a_key"`) {
		t.Fatalf("researcher result: %v", researcherErr)
	}
	if len(rep.Failures) != 1 || rep.Counts.Agents != 2 {
		t.Fatalf("reload report:\n%s", rep)
	}
	var writer2 = func() any {
		for _, a := range src.Agents {
			if a.ID() == "writer" {
				return a
			}
		}
		return nil
	}()
	if writer2 == nil {
		t.Fatal("writer did not reload")
	}
	// The teams that have the researcher as member are rebuilt on the
	// previous researcher.
	for _, tm := range src.Teams {
		if tm.ID() == "research-team" && tm.Members()[0] != run.Executor(oldResearcher) {
			t.Errorf("research-team member 0 is not the previous researcher")
		}
	}
	out, err := writer2.(interface {
		Run(context.Context, string, ...run.Option) (*run.Output, error)
	}).Run(context.Background(), "write")
	if err != nil || out.Content != "report: facts: value-of-agno" {
		t.Fatalf("reloaded writer run: %v %v", err, out.Content)
	}

	// After a reload, the versions being served are the fallback: the
	// writer breaks now, and the team is built on the served "Writer v2",
	// not on the startup writer.
	served := append(slices.Clone(src.Agents), oldResearcher)
	writeFiles(t, dir, map[string]string{"agents/writer.toml": "name = \"Writer v3\"\nmodel = \"nope\"\n"})
	src3, rep3 := c.LoadSources(context.Background(), res.WithCatalog(served, nil, nil), registryFunctions())
	found := false
	for _, tm := range src3.Teams {
		if tm.ID() == "research-team" {
			found = true
			if tm.Members()[1].Name() != "Writer v2" {
				t.Errorf("research-team member 1 is %q, want the served writer", tm.Members()[1].Name())
			}
		}
	}
	if !found {
		t.Fatalf("research-team did not load:\n%s", rep3)
	}

	var nilBase *config.Resources
	if _, rep := c.LoadSources(context.Background(), nilBase, config.Functions{}); len(rep.Failures) != 1 {
		t.Errorf("LoadSources(nil base): %+v", rep)
	}
}

func TestFunctionsAreValidated(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": strings.Replace(baseConfig, "[storage]\ndriver = \"memory\"\n", "", 1)})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	fn := registryFunctions()
	fn.Tools["shell"] = fn.Tools["lookup"]
	_, err = c.Build(context.Background(), fn, config.Existing{})
	if err == nil || !strings.Contains(err.Error(), `Functions.Tools has "shell", the name of a built-in toolkit`) {
		t.Fatalf("Build: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "agno.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Build opened the store: %v", err)
	}
}

func TestRegisteredSelectorsEndConditionsAndCELLists(t *testing.T) {
	fn := registryFunctions()
	fn.Selectors = map[string]func(context.Context, *workflow.StepInput, []string) ([]string, error){
		"last_choice": func(_ context.Context, _ *workflow.StepInput, choices []string) ([]string, error) {
			return choices[len(choices)-1:], nil
		},
	}
	fn.EndConditions = map[string]func([]*workflow.StepOutput) bool{
		"two_marks": func(outs []*workflow.StepOutput) bool {
			return strings.HasSuffix(outs[len(outs)-1].ContentString(), "!!")
		},
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": baseConfig,
		"workflows/w.toml": `
[[steps]]
name = "pick"
type = "router"
selector = "last_choice"
choices = [{ name = "a", function = "brief" }, { name = "b", function = "spell" }]

[[steps]]
name = "both"
type = "router"
selector = 'step_choices.filter(c, c != "skip")'
choices = [{ name = "x", function = "brief" }, { name = "skip", function = "trim" }, { name = "y", function = "spell" }]

[[steps]]
name = "flag"
type = "condition"
evaluator = 'additional_data.mode == "fast" && size(previous_step_outputs) == 2'
steps = [{ name = "fast", function = "escalate" }]

[[steps]]
name = "loop"
type = "loop"
end_condition = "two_marks"
steps = [{ name = "mark", function = "exclaim" }]

[[steps]]
name = "all-ok"
type = "loop"
max_iterations = 4
end_condition = 'all_success && step_outputs["mark2"].endsWith("!") && max_iterations == 4'
steps = [{ name = "mark2", function = "exclaim" }]

[[steps]]
name = "count"
type = "loop"
max_iterations = 5
end_condition = "current_iteration >= 3"
steps = [{ name = "mark3", function = "exclaim" }]
`,
	})
	_, res := build(t, dir, fn, config.Existing{})
	if len(res.Workflows) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	out, err := res.Workflows[0].Run(context.Background(), "go", run.WithAdditionalData(map[string]any{"mode": "fast"}))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %s %v", err, out.Status, out.Content)
	}
	got := map[string]*workflow.StepOutput{}
	for _, s := range out.StepResults {
		got[s.StepName] = s
	}
	names := func(o *workflow.StepOutput) []string {
		var n []string
		for _, s := range o.Steps {
			n = append(n, s.StepName)
		}
		return n
	}
	if n := names(got["pick"]); !slices.Equal(n, []string{"b"}) {
		t.Errorf("registered selector chose %v", n)
	}
	if n := names(got["both"]); !slices.Equal(n, []string{"x", "y"}) {
		t.Errorf("CEL list selector chose %v", n)
	}
	if n := names(got["flag"]); !slices.Equal(n, []string{"fast"}) {
		t.Errorf("CEL condition on additional_data: %v", n)
	}
	if n := names(got["loop"]); len(n) != 2 {
		t.Errorf("registered end condition: %d iterations", len(n))
	}
	if n := names(got["all-ok"]); len(n) != 1 {
		t.Errorf("CEL end condition: %d iterations", len(n))
	}
	if n := names(got["count"]); len(n) != 3 {
		t.Errorf("CEL end condition on current_iteration: %d iterations, want 3", len(n))
	}
}

func TestStepFieldsMapToTheGoConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml":   baseConfig,
		"agents/a.toml": "name = \"A\"\n",
		"workflows/w.toml": `
name = "W"
description = "d"
stream_executor_events = false
add_workflow_history_to_steps = true
num_history_runs = 5
metadata = { owner = "ops" }

[input_schema]
type = "object"
required = ["topic"]
properties = { topic = { type = "string" } }

[[steps]]
name = "review"
id = "review-step"
function = "trim"
max_retries = 1
skip_on_failure = true
on_error = "pause"
add_workflow_history = true
requires_output_review = true
output_review_message = "Check it"
on_reject = "retry"
timeout_seconds = 90
on_timeout = "approve"

[[steps]]
name = "pick"
type = "router"
requires_user_input = true
user_input_message = "Which?"
allow_multiple_selections = true
choices = [{ name = "a", agent = "a" }, { name = "b", function = "brief" }]
`,
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	if len(res.Workflows) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	w := res.Workflows[0]
	cfg := w.Config()
	if cfg.Description != "d" || cfg.StreamExecutorEvents == nil || *cfg.StreamExecutorEvents || !cfg.AddWorkflowHistoryToSteps ||
		cfg.NumHistoryRuns != 5 || cfg.Metadata["owner"] != "ops" || !strings.Contains(string(cfg.InputSchema), `"required":["topic"]`) {
		t.Errorf("workflow config %+v", cfg)
	}
	st := cfg.Steps[0].(*workflow.Step)
	h := st.HumanReview
	if st.ID != "review-step" || *st.MaxRetries != 1 || !st.SkipOnFailure || st.OnError != workflow.ErrorPause || !st.AddWorkflowHistory ||
		!h.RequiresOutputReview || h.OutputReviewMessage != "Check it" || h.OnReject != workflow.RejectRetry ||
		h.Timeout.Seconds() != 90 || h.OnTimeout != workflow.TimeoutApprove || st.Func == nil {
		t.Errorf("step %+v", st)
	}
	r := cfg.Steps[1].(*workflow.Router)
	if !r.RequiresUserInput || r.UserInputMessage != "Which?" || !r.AllowMultipleSelections || len(r.Choices) != 2 || r.Selector != nil {
		t.Errorf("router %+v", r)
	}
	if _, err := w.Run(context.Background(), `{"subject": "x"}`); !errors.Is(err, workflow.ErrInvalidInput) {
		t.Errorf("input schema not applied: %v", err)
	}
	out, err := w.Run(context.Background(), `{"topic": "x"}`)
	if err != nil || out.Status != run.StatusPaused || !out.ActiveRequirement().RequiresOutputReview {
		t.Errorf("output review: %v %s", err, out.Status)
	}
}

func TestAgentAndTeamFieldsMapToTheGoConfig(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/full.toml": `
id = "full-agent"
name = "Full"
description = "desc"
role = "role"
model = "default"
fallback_models = ["other"]
instructions = "one"
additional_context = "ctx"
expected_output = "out"
markdown = true
add_name_to_context = true
add_datetime_to_context = true
tool_call_limit = 4
add_history_to_context = true
num_history_messages = 6
add_session_state_to_context = true
dependencies = { db = "x" }
retries = 2
delay_between_retries = 0.5
store_events = true
`,
		"teams/full.toml": `
name = "Full Team"
members = ["full-agent"]
respond_directly = true
determine_input_for_members = false
max_iterations = 7
stream_member_events = false
store_member_responses = true
add_member_tools_to_context = true
get_member_information_tool = true
tools = ["lookup"]
`,
	})
	if len(res.Agents) != 1 || len(res.Teams) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	a := res.Agents[0].Config()
	if a.ID != "full-agent" || a.Description != "desc" || a.Role != "role" || len(a.FallbackModels) != 1 || a.FallbackModels[0] != res.Models["other"] ||
		a.AdditionalContext != "ctx" || a.ExpectedOutput != "out" || !a.Markdown || !a.AddNameToContext || !a.AddDatetime ||
		a.ToolCallLimit != 4 || !a.AddHistoryToContext || a.NumHistoryMessages != 6 || !a.AddSessionStateToContext ||
		a.Dependencies["db"] != "x" || a.Retries != 2 || a.DelayBetweenRetries.Milliseconds() != 500 || !a.StoreEvents {
		t.Errorf("agent config %+v", a)
	}
	tm := res.Teams[0]
	c := tm.Config()
	if tm.ID() != "full" || tm.Name() != "Full Team" || tm.Mode() != "route" || c.DetermineInputForMembers == nil || *c.DetermineInputForMembers ||
		c.MaxIterations != 7 || c.StreamMemberEvents == nil || *c.StreamMemberEvents || !c.StoreMemberResponses ||
		!c.AddMemberToolsToContext || !c.GetMemberInformationTool || len(c.Tools) != 1 || c.Model != res.Models["default"] {
		t.Errorf("team config %+v", c)
	}
}

// A CEL expression that fails on a run's data — a missing key here —
// ends the run ERROR with a message naming the node and the expression,
// the same for a condition, a router and a loop's end condition (which
// once was logged and ignored, the loop going on).
func TestCELEvaluationErrorsFailTheRun(t *testing.T) {
	for name, step := range map[string]string{
		"condition": `type = "condition"
evaluator = 'previous_step_outputs["missing"] == "x"'
steps = [{ name = "s", function = "brief" }]`,
		"router": `type = "router"
selector = 'additional_data["missing"]'
choices = [{ name = "a", function = "brief" }]`,
		"loop": `type = "loop"
end_condition = 'step_outputs["missing"] == "done"'
steps = [{ name = "s", function = "brief" }]`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"config.toml": baseConfig, "workflows/w.toml": "[[steps]]\nname = \"n\"\n" + step + "\n"})
			_, res := build(t, dir, registryFunctions(), config.Existing{})
			if len(res.Workflows) != 1 {
				t.Fatalf("report:\n%s", res.Report)
			}
			out, err := res.Workflows[0].Run(context.Background(), "go")
			if !errors.Is(err, workflow.ErrExpression) || out.Status != run.StatusError {
				t.Fatalf("err %v, status %s", err, out.Status)
			}
			if c := out.ContentString(); !strings.Contains(c, `"n"`) || !strings.Contains(c, "CEL expression") || !strings.Contains(c, "missing") {
				t.Errorf("content %q", c)
			}
		})
	}
}
