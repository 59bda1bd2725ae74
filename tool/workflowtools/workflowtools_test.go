package workflowtools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
	"github.com/agno-go/agno/tool/workflowtools"
	"github.com/agno-go/agno/workflow"
)

// report is a real two-step workflow: an agent on the fake model drafts,
// a Go step shouts the draft and notes the topic it was given in the
// session state.
func report(t *testing.T) *workflow.Workflow {
	t.Helper()
	writer, err := agent.New(agent.Config{Name: "Writer", Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: "draft about " + req.Messages[len(req.Messages)-1].Content}
	})})
	if err != nil {
		t.Fatal(err)
	}
	shout := func(ctx context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
		if rc := run.FromContext(ctx); rc != nil && in.AdditionalData != nil {
			rc.SetStateValue("topic", in.AdditionalData["topic"])
		}
		return &workflow.StepOutput{Content: strings.ToUpper(fmt.Sprint(in.PreviousStepContent))}, nil
	}
	w, err := workflow.New(workflow.Config{ID: "report", Name: "report", Store: memory.New(), Steps: []workflow.Node{
		&workflow.Step{Name: "draft", Agent: writer},
		&workflow.Step{Name: "shout", Func: shout},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// resolver finds the workflows by id, as a config does.
func resolver(ws ...*workflow.Workflow) func(kind, name string) (any, error) {
	return func(kind, name string) (any, error) {
		for _, w := range ws {
			if kind == tool.ResourceWorkflow && w.ID() == name {
				return w, nil
			}
		}
		return nil, fmt.Errorf("no workflow with id %q", name)
	}
}

// TestConformance runs the toolkit suite on [toolkits.workflow_tools]
// against agno v2.6.13's WorkflowTools (tools/workflow.py) with all its
// functions (agno enables only run_workflow by default).
func TestConformance(t *testing.T) {
	const noRun = "has no run"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "workflow_tools",
		Name:    "workflow_tools",
		Functions: []tooltest.Function{
			{Name: "think", Args: []string{"thought"}},
			{Name: "run_workflow", Args: []string{"input"}},
			{Name: "analyze", Args: []string{"analysis"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.Resolve = resolver(report(t))
			return "workflow = \"report\"\nall = true"
		},
		// Outside a run there is no session to run the workflow in and
		// no session state for the notes.
		Failures: map[string][]tooltest.Call{
			"think":        {{Args: `{"thought": "x"}`, Want: noRun}},
			"run_workflow": {{Args: `{"input": {"input_data": "Q3"}}`, Want: noRun}},
			"analyze":      {{Args: `{"analysis": "x"}`, Want: noRun}},
		},
		Unbounded: "run_workflow returns the workflow's output, which the configured workflow bounds",
		// agno's async_mode picks coroutines; Go tool calls need none.
		BadOptions: []tooltest.BadOption{
			{Table: "async_mode = true", Key: "async_mode"},
		},
	})
}

// An agent runs the workflow through run_workflow with additional data:
// the model sees the workflow's output as agno's JSON, the workflow ran
// in the agent's session for its user, its state change and its result
// are in the agent's session state.
func TestRunWorkflow(t *testing.T) {
	tk, err := workflowtools.New(workflowtools.Config{Workflow: func() (workflowtools.Runner, error) { return report(t), nil }, All: true, AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c1", "think", `{"thought":"Run the report on Q3."}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c2", "run_workflow", `{"input":{"input_data":"Q3","additional_data":{"topic":"sales"}}}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c3", "analyze", `{"analysis":"The report is complete."}`)}},
		modeltest.Response{Content: "DRAFT ABOUT Q3"},
	)
	a, err := agent.New(agent.Config{Name: "Boss", Model: fake, Tools: []tool.Provider{tk}, Store: memory.New()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "Report on Q3", run.WithUserID("ann"), run.WithSessionID("s1"))
	if err != nil || out.Content != "DRAFT ABOUT Q3" {
		t.Fatalf("%v %v", err, out)
	}
	var results []string
	for _, m := range out.Messages {
		if m.Role == model.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 {
		t.Fatalf("tool results %q", results)
	}
	var wo map[string]any
	if err := json.Unmarshal([]byte(results[1]), &wo); err != nil {
		t.Fatalf("run_workflow answered %q: %v", results[1], err)
	}
	if wo["content"] != "DRAFT ABOUT Q3" || wo["status"] != "COMPLETED" || wo["workflow_id"] != "report" || wo["user_id"] != "ann" || wo["session_id"] != "s1" {
		t.Errorf("workflow output %s", results[1])
	}
	if !strings.HasPrefix(results[1], "{\n  \"run_id\": ") {
		t.Errorf("not json.dumps(indent=2): %.80q", results[1])
	}
	if results[2] != "Workflow Analysis:\n                - The report is complete." {
		t.Errorf("analyze answered %q", results[2])
	}
	st := out.SessionState
	if st["topic"] != "sales" {
		t.Errorf("the workflow's state change is not back: %v", st)
	}
	if wr, _ := st["workflow_results"].([]any); len(wr) != 1 || wr[0].(map[string]any)["content"] != "DRAFT ABOUT Q3" {
		t.Errorf("workflow_results %v", st["workflow_results"])
	}
	if th, _ := st["workflow_thoughts"].([]any); len(th) != 1 {
		t.Errorf("workflow_thoughts %v", st["workflow_thoughts"])
	}
	if !strings.HasPrefix(tk.Instructions(), "You have access to the Think, Run Workflow, and Analyze tools") {
		t.Errorf("instructions %q", tk.Instructions())
	}
}

// A workflow that cannot be found or fails is told to the model, as agno
// catches the exception.
func TestRunWorkflowFails(t *testing.T) {
	tk, _ := tool.LookupToolkit("workflow_tools")
	opts := tk.DefaultOptions(tool.ToolkitEnv{}).(*workflowtools.Options)
	opts.Workflow = "missing"
	p, err := tk.New(tool.ToolkitEnv{Resolve: resolver()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	if len(fns) != 1 || fns[0].Name != "run_workflow" {
		t.Fatalf("agno's default is run_workflow only: %v", fns)
	}
	ctx := run.WithContext(context.Background(), run.NewContext(nil))
	res, err := fns[0].Invoke(ctx, &tool.Call{Function: fns[0]}, map[string]any{"input": map[string]any{"input_data": "x"}})
	if err != nil || res.Content != `Error running workflow: workflow "missing": no workflow with id "missing"` {
		t.Errorf("%q %v", res.Content, err)
	}

	failing, err := workflow.New(workflow.Config{ID: "broken", Name: "broken", Steps: []workflow.Node{
		&workflow.Step{Name: "boom", OnError: workflow.ErrorFail, MaxRetries: new(int), Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return nil, errors.New("step exploded")
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	opts.Workflow = "broken"
	p, _ = tk.New(tool.ToolkitEnv{Resolve: resolver(failing)}, opts)
	fns, _ = p.Functions(context.Background())
	res, err = fns[0].Invoke(ctx, &tool.Call{Function: fns[0]}, map[string]any{"input": map[string]any{"input_data": "x"}})
	if err != nil || !strings.HasPrefix(res.Content, "Error running workflow: ") || !strings.Contains(res.Content, "step exploded") {
		t.Errorf("%q %v", res.Content, err)
	}
}

// Built through the registry, a missing workflow key or resolver is an
// error naming the workflow key.
func TestWorkflowOption(t *testing.T) {
	tk, _ := tool.LookupToolkit("workflow_tools")
	_, err := tk.New(tool.ToolkitEnv{Resolve: resolver()}, nil)
	if oe := tool.OptionErrors(err); len(oe) != 1 || oe[0].Key != "workflow" || !strings.Contains(oe[0].Msg, `workflow = "<workflow id>"`) {
		t.Errorf("no workflow: %v", err)
	}
	opts := tk.DefaultOptions(tool.ToolkitEnv{}).(*workflowtools.Options)
	opts.Workflow = "report"
	_, err = tk.New(tool.ToolkitEnv{}, opts)
	if oe := tool.OptionErrors(err); len(oe) != 1 || oe[0].Key != "workflow" || !strings.Contains(oe[0].Msg, "ToolkitEnv.Resolve is nil") {
		t.Errorf("no resolver: %v", err)
	}
}
