package config_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// invoke calls one function of a built toolkit inside a run of user ann.
func invoke(t *testing.T, p tool.Provider, name string, args map[string]any) string {
	t.Helper()
	fns, err := p.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if f.Name == name {
			rc := run.NewContext(nil)
			rc.UserID, rc.SessionID = "ann", "s1"
			res, err := f.Invoke(run.WithContext(context.Background(), rc), &tool.Call{Function: f}, args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return res.Content
		}
	}
	t.Fatalf("no function %s", name)
	return ""
}

// knowledge_tools, memory_tools and workflow_tools act on what the config
// built: the knowledge base their knowledge key names, the store, the
// workflow their workflow key names (here the program's own).
func TestResourceToolkits(t *testing.T) {
	srv := fakeModel(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"fake-model\"\n" +
			"[knowledge.handbook]\n" +
			"[toolkits.knowledge_tools]\nknowledge = \"handbook\"\n" +
			"[toolkits.workflow_tools]\nworkflow = \"echo\"\n",
		"agents/helper.toml": "name = \"Helper\"\ntools = [\"knowledge_tools\", \"memory_tools\", \"workflow_tools\"]\n",
	})
	echo, err := workflow.New(workflow.Config{ID: "echo", Name: "echo", Steps: []workflow.Node{&workflow.Step{Name: "say",
		Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "echo: " + in.InputString()}, nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, res := build(t, dir, registryFunctions(), config.Existing{Workflows: []*workflow.Workflow{echo}})
	if len(res.Agents) != 1 || len(res.Agents[0].Config().Tools) != 3 {
		t.Fatalf("report:\n%s", res.Report)
	}

	if _, err := res.Knowledge["handbook"].Insert(context.Background(), knowledge.Input{Name: "leave", TextContent: "Annual leave is 25 days."}); err != nil {
		t.Fatal(err)
	}
	if got := invoke(t, res.Toolkits["knowledge_tools"], "search_knowledge", map[string]any{"query": "annual leave"}); !strings.Contains(got, "Annual leave is 25 days.") {
		t.Errorf("search_knowledge: %s", got)
	}

	var added struct {
		Success bool `json:"success"`
	}
	if err := json.Unmarshal([]byte(invoke(t, res.Toolkits["memory_tools"], "add_memory", map[string]any{"memory": "Ann likes tea"})), &added); err != nil || !added.Success {
		t.Fatalf("add_memory: %v", err)
	}
	if mems, _, err := res.Store.ListMemories(context.Background(), storage.MemoryQuery{UserID: "ann"}); err != nil || len(mems) != 1 || mems[0].Memory != "Ann likes tea" {
		t.Errorf("ann's memories in the config's store: %v %v", mems, err)
	}

	var out struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(invoke(t, res.Toolkits["workflow_tools"], "run_workflow", map[string]any{"input": map[string]any{"input_data": "hi"}})), &out); err != nil || out.Content != "echo: hi" {
		t.Errorf("run_workflow: %+v %v", out, err)
	}
}

// A knowledge or workflow key naming nothing: the toolkit is not built,
// and an agent naming it fails with the key and the fix.
func TestResourceToolkitsNameNothing(t *testing.T) {
	srv := fakeModel(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"fake-model\"\n" +
			"[knowledge.handbook]\n" +
			"[toolkits.knowledge_tools]\nknowledge = \"wiki\"\n",
		"agents/k.toml": "name = \"K\"\ntools = [\"knowledge_tools\"]\n",
		"agents/w.toml": "name = \"W\"\ntools = [\"workflow_tools\"]\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	if len(res.Agents) != 0 || len(res.Report.Failures) != 2 {
		t.Fatalf("report:\n%s", res.Report)
	}
	msgs := res.Report.Failures[0].Err.Error() + "\n" + res.Report.Failures[1].Err.Error()
	for _, want := range []string{
		`knowledge = "wiki": there is no [knowledge.wiki] table: name one of the knowledge bases (handbook) or add the table`,
		`workflow is not set: workflow_tools runs one workflow; set workflow = "<workflow id>" in [toolkits.workflow_tools]`,
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("failures %s\nwant %q", msgs, want)
		}
	}
}
