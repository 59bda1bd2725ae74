package config_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// goOnly are the options a file cannot give, and why. Every other
// exported field of agent.Config, team.Config, workflow.Config and
// workflow.WorkflowAgent must have a file name that reaches it.
var goOnly = map[string]string{
	"InstructionsFunc":      "a Go function",
	"SystemMessageFunc":     "a Go function",
	"ToolHooks":             "Go functions",
	"PreHooks":              "Go functions",
	"PostHooks":             "Go functions",
	"Fallbacks":             "per-failure lists of model values; files use fallback_models",
	"AdditionalInput":       "model messages with media, built in Go",
	"Store":                 "AgentOS gives every file-defined resource its store",
	"Logger":                "AgentOS gives every file-defined resource its logger",
	"Canceller":             "the run engine's, attached by AgentOS",
	"MemoryManager":         "New makes it from the model and store (enable_user_memories)",
	"SessionSummaryManager": "New makes it from the model (enable_session_summaries)",
	"Notifier":              "the HITL socket's, attached by AgentOS",
}

// optionFields lists a Config's exported fields with their toml names.
func optionFields(t *testing.T, typ reflect.Type) map[string]reflect.StructField {
	t.Helper()
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("toml")
		switch {
		case !ok:
			t.Errorf("%s.%s has no toml tag: give it its agno name (toml:\"snake_case\") or, if only Go can set it, toml:\"-\" and an entry in goOnly", typ, f.Name)
		case tag == "-":
			if goOnly[f.Name] == "" {
				t.Errorf("%s.%s is toml:\"-\" but nothing says why a file cannot set it: give it a file name or add it to goOnly", typ, f.Name)
			}
		default:
			out[tag] = f
		}
	}
	return out
}

// sample is a TOML value for an option and a check of what it became.
type sample struct {
	toml  string
	check func(res *config.Resources, v reflect.Value) bool
}

// plainSample gives a non-default value by the field's Go type.
func plainSample(f reflect.StructField) (sample, bool) {
	equal := func(want any) func(*config.Resources, reflect.Value) bool {
		return func(_ *config.Resources, v reflect.Value) bool { return reflect.DeepEqual(v.Interface(), want) }
	}
	switch f.Type {
	case reflect.TypeFor[time.Duration]():
		return sample{"1.5", equal(1500 * time.Millisecond)}, true
	case reflect.TypeFor[*bool]():
		no := false
		return sample{"false", equal(&no)}, true
	case reflect.TypeFor[map[string]any]():
		return sample{`{ k = "v" }`, equal(map[string]any{"k": "v"})}, true
	case reflect.TypeFor[[]string]():
		return sample{`["a", "b"]`, equal([]string{"a", "b"})}, true
	}
	switch f.Type.Kind() {
	case reflect.String:
		s := "sample-" + strings.ToLower(f.Name)
		return sample{fmt.Sprintf("%q", s), func(_ *config.Resources, v reflect.Value) bool { return v.String() == s }}, true
	case reflect.Bool:
		return sample{"true", func(_ *config.Resources, v reflect.Value) bool { return v.Bool() }}, true
	case reflect.Int:
		return sample{"2", func(_ *config.Resources, v reflect.Value) bool { return v.Int() == 2 }}, true
	}
	return sample{}, false
}

func isModel(name string) func(*config.Resources, reflect.Value) bool {
	return func(res *config.Resources, v reflect.Value) bool { return v.Interface() == res.Models[name] }
}

func notEmpty(_ *config.Resources, v reflect.Value) bool {
	return !v.IsZero() && (v.Kind() != reflect.Slice || v.Len() > 0)
}

// special are the options whose file form names something else or must
// be one of a set of values.
var special = map[string]sample{
	"model": {`"other"`, isModel("other")},
	"fallback_models": {`["other"]`, func(res *config.Resources, v reflect.Value) bool {
		return v.Len() == 1 && isModel("other")(res, v.Index(0))
	}},
	"instructions": {`"one"`, func(_ *config.Resources, v reflect.Value) bool {
		return reflect.DeepEqual(v.Interface(), []string{"one"})
	}},
	"tools": {`["lookup"]`, func(_ *config.Resources, v reflect.Value) bool { return v.Len() == 1 }},
	"tool_choice": {`"required"`, func(_ *config.Resources, v reflect.Value) bool {
		return v.Interface().(*model.ToolChoice).Mode == "required"
	}},
	"timezone_identifier": {`"Europe/Paris"`, func(_ *config.Resources, v reflect.Value) bool {
		return v.Interface().(*time.Location).String() == "Europe/Paris"
	}},
	"system_message_role": {`"user"`, func(_ *config.Resources, v reflect.Value) bool { return v.String() == "user" }},
	"knowledge": {`"docs"`, func(res *config.Resources, v reflect.Value) bool {
		return v.Interface() == agent.Knowledge(res.Knowledge["docs"])
	}},
	"knowledge_filters": {`{ user_id = "u" }`, notEmpty},
	"output_schema":     {`{ type = "object", properties = { a = { type = "string" } } }`, notEmpty},
	"reasoning_model":   {`"other"`, isModel("other")},
	"reasoning_agent":   {`"minimal"`, func(_ *config.Resources, v reflect.Value) bool { return !v.IsNil() }},
	"members":           {`["minimal", "other-agent"]`, func(_ *config.Resources, v reflect.Value) bool { return v.Len() == 2 }},
	"mode":              {`"route"`, func(_ *config.Resources, v reflect.Value) bool { return v.String() == "route" }},
	"steps":             {`[{ name = "s", agent = "minimal" }, { name = "t", agent = "minimal" }]`, func(_ *config.Resources, v reflect.Value) bool { return v.Len() == 2 }},
	"input_schema":      {`{ type = "object", properties = { topic = { type = "string" } } }`, notEmpty},
	"agent": {`{ model = "other", instructions = "route", add_workflow_history = false, num_history_runs = 2 }`, func(res *config.Resources, v reflect.Value) bool {
		wa := v.Interface().(*workflow.WorkflowAgent)
		return wa.Model == res.Models["other"] && wa.Instructions == "route" && wa.AddWorkflowHistory != nil && !*wa.AddWorkflowHistory && wa.NumHistoryRuns == 2
	}},
}

// needs are keys an option needs beside it to be valid.
var needs = map[string]string{
	"knowledge_filters":                 `knowledge = "docs"`,
	"search_knowledge":                  `knowledge = "docs"`,
	"add_search_knowledge_instructions": `knowledge = "docs"`,
	"enable_agentic_knowledge_filters":  `knowledge = "docs"`,
	"add_knowledge_to_context":          `knowledge = "docs"`,
}

const optionsConfig = baseConfig + `
[knowledge.docs]
description = "d"
`

// Every option of the Go Configs has a file name that reaches it: a file
// setting just that key builds an agent, team or workflow whose Config
// holds the value. A field added in Go without a file name, or with a
// name the file does not decode onto it, fails here.
func TestEveryConfigOptionHasAFileName(t *testing.T) {
	kinds := []struct {
		dir, base string
		typ       reflect.Type
		skip      map[string]bool // set by the file machinery itself
	}{
		{"agents", ``, reflect.TypeFor[agent.Config](), map[string]bool{"id": true}},
		{"teams", `members = ["minimal"]`, reflect.TypeFor[team.Config](), map[string]bool{"id": true}},
		{"workflows", `steps = [{ name = "s", agent = "minimal" }]`, reflect.TypeFor[workflow.Config](), map[string]bool{"id": true}},
	}
	files := map[string]string{
		"config.toml":             optionsConfig,
		"agents/minimal.toml":     ``,
		"agents/other-agent.toml": ``,
	}
	want := map[string]func(res *config.Resources) (reflect.Value, sample){}
	for _, k := range kinds {
		fields := optionFields(t, k.typ)
		names := make([]string, 0, len(fields))
		for n := range fields {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, key := range names {
			f := fields[key]
			if k.skip[key] {
				continue
			}
			s, ok := special[key]
			if !ok {
				if s, ok = plainSample(f); !ok {
					t.Errorf("%s.%s (%s): no sample for its type; add one to special", k.typ, f.Name, f.Type)
					continue
				}
			}
			id := "k-" + strings.ReplaceAll(key, "_", "-")
			body := fmt.Sprintf("%s = %s\n", key, s.toml)
			if k.base != "" && !strings.HasPrefix(k.base, key+" ") {
				body += k.base + "\n"
			}
			if n := needs[key]; n != "" {
				body += n + "\n"
			}
			files[k.dir+"/"+id+".toml"] = body
			dir, name := k.dir, f.Name
			want[dir+"/"+key] = func(res *config.Resources) (reflect.Value, sample) {
				return configField(t, res, dir, id, name), s
			}
		}
	}
	for key := range optionFields(t, reflect.TypeFor[workflow.WorkflowAgent]()) {
		if !strings.Contains(special["agent"].toml, key+" = ") {
			t.Errorf("workflow.WorkflowAgent option %q is not in the [agent] sample", key)
		}
	}
	res, _ := tree(t, files)
	if len(res.Report.Failures) > 0 {
		t.Fatalf("files failed:\n%s", res.Report)
	}
	for what, get := range want {
		v, s := get(res)
		if !v.IsValid() {
			t.Errorf("%s: not built", what)
			continue
		}
		if !s.check(res, v) {
			t.Errorf("%s = %s in a file gave %#v in the Go Config", what, s.toml, v.Interface())
		}
	}
}

// configField finds a built resource by id and returns one field of its
// Config.
func configField(t *testing.T, res *config.Resources, dir, id, field string) reflect.Value {
	t.Helper()
	var cfg any
	switch dir {
	case "agents":
		for _, a := range res.Agents {
			if a.ID() == id {
				cfg = a.Config()
			}
		}
	case "teams":
		for _, tm := range res.Teams {
			if tm.ID() == id {
				cfg = tm.Config()
			}
		}
	case "workflows":
		for _, w := range res.Workflows {
			if w.ID() == id {
				cfg = w.Config()
			}
		}
	}
	if cfg == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(cfg).FieldByName(field)
}

// A file that leaves an option out gets Go's default for it: the agent,
// team and workflow built from the smallest files have the Configs that
// New gives for the same Go values.
func TestFileDefaultsAreGoDefaults(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/minimal.toml":    ``,
		"teams/minimal-t.toml":   `members = ["minimal"]`,
		"workflows/minimal.toml": `steps = [{ name = "s", agent = "minimal" }]`,
	})
	if len(res.Agents) != 1 || len(res.Teams) != 1 || len(res.Workflows) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	fromFile := res.Agents[0]
	fromGo, err := agent.New(agent.Config{ID: "minimal", Model: res.Models["default"], Store: res.Store})
	if err != nil {
		t.Fatal(err)
	}
	sameDefaults(t, fromFile.Config(), fromGo.Config(), "Logger")

	tm, err := team.New(team.Config{ID: "minimal-t", Model: res.Models["default"], Members: []run.Executor{fromFile}, Store: res.Store})
	if err != nil {
		t.Fatal(err)
	}
	sameDefaults(t, res.Teams[0].Config(), tm.Config(), "Logger")

	w, err := workflow.New(workflow.Config{ID: "minimal", Store: res.Store,
		Steps: []workflow.Node{&workflow.Step{Name: "s", Agent: fromFile}}})
	if err != nil {
		t.Fatal(err)
	}
	sameDefaults(t, res.Workflows[0].Config(), w.Config(), "Logger", "Steps")
	if n := len(res.Workflows[0].Config().Steps); n != 1 {
		t.Errorf("workflow steps %d", n)
	}
}

// sameDefaults compares two Configs field by field; an empty slice or map
// is the same default as nil.
func sameDefaults(t *testing.T, file, goCfg any, except ...string) {
	t.Helper()
	fv, gv := reflect.ValueOf(file), reflect.ValueOf(goCfg)
	for i := range fv.NumField() {
		name := fv.Type().Field(i).Name
		if contains(except, name) {
			continue
		}
		a, b := fv.Field(i), gv.Field(i)
		if empty(a) && empty(b) {
			continue
		}
		if a.Kind() == reflect.Func {
			t.Errorf("%s.%s: a file set a function", fv.Type(), name)
			continue
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("%s.%s: a file's default is %#v, Go's is %#v", fv.Type(), name, a.Interface(), b.Interface())
		}
	}
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Every node type keeps its description (a file's loop, parallel, steps,
// condition and router descriptions once were read and dropped).
func TestStepDescriptionsReachTheNodes(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/a.toml": ``,
		"workflows/w.toml": `
[[steps]]
name = "all"
type = "steps"
description = "d-steps"
steps = [{ name = "s", agent = "a" }]
[[steps]]
name = "loop"
type = "loop"
description = "d-loop"
end_condition = "true"
steps = [{ name = "s2", agent = "a" }]
[[steps]]
name = "par"
type = "parallel"
description = "d-parallel"
steps = [{ name = "s3", agent = "a" }]
[[steps]]
name = "cond"
type = "condition"
description = "d-condition"
evaluator = "true"
steps = [{ name = "s4", agent = "a" }]
[[steps]]
name = "route"
type = "router"
description = "d-router"
selector = "'s5'"
choices = [{ name = "s5", agent = "a" }]
`,
	})
	if len(res.Workflows) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	var got []string
	for _, n := range res.Workflows[0].Config().Steps {
		got = append(got, reflect.ValueOf(n).Elem().FieldByName("Description").String())
	}
	if want := []string{"d-steps", "d-loop", "d-parallel", "d-condition", "d-router"}; !reflect.DeepEqual(got, want) {
		t.Errorf("descriptions %q, want %q", got, want)
	}
}
