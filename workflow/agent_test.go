package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// wire returns a real OpenAI client talking to a fake OpenAI-compatible
// server that answers with fn.
func wire(t *testing.T, fn modeltest.Responder) model.Model {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "fake-model", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func lastMsg(req *model.Request) model.Message { return req.Messages[len(req.Messages)-1] }

func systemMsg(req *model.Request) string {
	for _, m := range req.Messages {
		if m.Role == model.RoleSystem {
			return m.Content
		}
	}
	return ""
}

// jsonOf is an event (or anything) as the wire sees it.
func jsonOf(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// orchestrator plays the workflow agent's model: with nothing in the
// history it runs the workflow with a refined query and reports the
// result; with history it answers from it.
type orchestrator struct {
	mu      sync.Mutex
	systems []string
	tools   [][]model.ToolDefinition
}

func (o *orchestrator) respond(req *model.Request) modeltest.Response {
	o.mu.Lock()
	o.systems = append(o.systems, systemMsg(req))
	o.tools = append(o.tools, req.Tools)
	o.mu.Unlock()
	last := lastMsg(req)
	switch {
	case last.Role == model.RoleTool:
		return modeltest.Response{Content: "Here is your story: " + last.Content}
	case strings.Contains(systemMsg(req), "<workflow_history_context>"):
		return modeltest.Response{Content: "From history: the story was about " + last.Content}
	}
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "run_workflow", `{"query":"a story about cats"}`)}}
}

func (o *orchestrator) system(i int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.systems[i]
}

func storyFlow(t *testing.T, store storage.Store, m model.Model, steps *atomic.Int32, got *[]string) *workflow.Workflow {
	var mu sync.Mutex
	return newWF(t, workflow.Config{Name: "Story Flow", Description: "Writes short stories", Store: store,
		Agent: &workflow.WorkflowAgent{Model: m},
		Steps: []workflow.Node{&workflow.Step{Name: "write", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			steps.Add(1)
			mu.Lock()
			*got = append(*got, in.InputString())
			mu.Unlock()
			return &workflow.StepOutput{Content: "Once upon a time: " + in.InputString()}, nil
		}}}})
}

func TestWorkflowAgentRunsTheWorkflowThenAnswersFromHistory(t *testing.T) {
	store := memory.New()
	orch := &orchestrator{}
	var steps atomic.Int32
	var inputs []string
	w := storyFlow(t, store, wire(t, orch.respond), &steps, &inputs)

	// Turn 1, streamed: the agent calls run_workflow.
	evs := collect(t, w.RunStream(context.Background(), "Tell me a story about cats", run.WithSessionID("s"), run.WithRunID("turn-1")))
	k := kinds(evs)
	if !strings.HasPrefix(k, "WorkflowAgentStarted WorkflowStarted") || !strings.HasSuffix(k, "WorkflowCompleted WorkflowAgentCompleted") {
		t.Fatalf("turn 1 events: %s", k)
	}
	if strings.Contains(k, "RunContent") || strings.Contains(k, "ToolCall") || strings.Contains(k, "RunCompleted") {
		t.Fatalf("agent events other than its content leaked into the workflow stream: %s", k)
	}
	if steps.Load() != 1 || inputs[0] != "a story about cats" {
		t.Fatalf("steps ran %d times with %q; want once with the agent's query", steps.Load(), inputs)
	}
	done := evs[len(evs)-1].(*run.WorkflowAgentCompleted)
	if done.Content != "Here is your story: Once upon a time: a story about cats" || done.RunID == "" || done.RunID == "turn-1" {
		t.Fatalf("WorkflowAgentCompleted %+v", done)
	}
	if m := jsonOf(t, done); m["event"] != "WorkflowAgentCompleted" || m["workflow_id"] != "story-flow" || m["content"] != done.Content {
		t.Fatalf("WorkflowAgentCompleted JSON %v", m)
	}
	if wc := evs[len(evs)-2].(*run.WorkflowCompleted); wc.RunID != "turn-1" || wc.Content != "Once upon a time: a story about cats" {
		t.Fatalf("inner WorkflowCompleted %+v", wc)
	}
	sys := orch.system(0)
	if !strings.Contains(sys, "You are a workflow orchestration agent.") ||
		!strings.Contains(sys, "Workflow Description: Writes short stories\n\nNo previous workflow runs in this session.") {
		t.Fatalf("turn 1 system message:\n%s", sys)
	}
	if tl := orch.tools[0]; len(tl) != 1 || tl[0].Name != "run_workflow" || !strings.Contains(string(tl[0].Parameters), `"query"`) {
		t.Fatalf("agent tools %+v", tl)
	}
	stored, err := w.GetRun(context.Background(), "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status != run.StatusCompleted || stored.Input != "Tell me a story about cats" || stored.WorkflowAgentRun == nil ||
		stored.WorkflowAgentRun.ContentString() != done.Content || stored.WorkflowAgentRun.ParentRunID != "turn-1" {
		t.Fatalf("stored run: status %s input %v agent run %+v", stored.Status, stored.Input, stored.WorkflowAgentRun)
	}

	// Turn 2, not streamed: the history answers, the steps do not run.
	out, err := w.Run(context.Background(), "cats", run.WithSessionID("s"), run.WithRunID("turn-2"))
	if err != nil {
		t.Fatal(err)
	}
	if steps.Load() != 1 || out.RunID != "turn-2" || out.Status != run.StatusCompleted || out.Content != "From history: the story was about cats" ||
		out.WorkflowAgentRun == nil || len(out.StepResults) != 0 {
		t.Fatalf("turn 2: steps %d, %+v", steps.Load(), out)
	}
	want := "<workflow_history_context>\n[Workflow Run-1]\nUser input: Tell me a story about cats\nWorkflow output: Once upon a time: a story about cats\n\n</workflow_history_context>"
	if sys := orch.system(2); !strings.Contains(sys, "Workflow Description: Writes short stories\n\n"+want) {
		t.Fatalf("turn 2 system message:\n%s", sys)
	}
	if stored, err := w.GetRun(context.Background(), "turn-2"); err != nil || stored.Content != out.Content {
		t.Fatalf("direct answer not stored: %v", err)
	}

	// Turn 3, streamed direct answer: the agent's content is marked and a
	// WorkflowCompleted says it was a direct response.
	evs = collect(t, w.RunStream(context.Background(), "cats again", run.WithSessionID("s"), run.WithRunID("turn-3")))
	k = kinds(evs)
	if !strings.HasPrefix(k, "WorkflowAgentStarted RunContent") || !strings.HasSuffix(k, "RunContent WorkflowAgentCompleted WorkflowCompleted") || strings.Contains(k, "WorkflowStarted") {
		t.Fatalf("turn 3 events: %s", k)
	}
	var text strings.Builder
	for _, e := range evs {
		if c, ok := e.(*run.RunContent); ok {
			if m := jsonOf(t, c); m["workflow_agent"] != true {
				t.Fatalf("agent content not marked: %v", m)
			}
			text.WriteString(run.ContentText(c.Content))
		}
	}
	wc := jsonOf(t, evs[len(evs)-1])
	if text.String() != "From history: the story was about cats again" || wc["run_id"] != "turn-3" ||
		wc["metadata"].(map[string]any)["agent_direct_response"] != true || wc["content"] != text.String() {
		t.Fatalf("turn 3: text %q completed %v", text.String(), wc)
	}
	if steps.Load() != 1 {
		t.Fatalf("steps ran on a direct answer")
	}
}

// Not streamed, the executed run is the answer: its content is the
// workflow's, the agent's words are on workflow_agent_run.
func TestWorkflowAgentNonStreamReturnsTheExecutedRun(t *testing.T) {
	orch := &orchestrator{}
	var steps atomic.Int32
	var inputs []string
	w := storyFlow(t, nil, wire(t, orch.respond), &steps, &inputs)
	out, err := w.Run(context.Background(), "story please", run.WithRunID("r"))
	if err != nil {
		t.Fatal(err)
	}
	if out.RunID != "r" || out.Content != "Once upon a time: a story about cats" || out.Input != "story please" || len(out.StepResults) != 1 ||
		out.WorkflowAgentRun.ContentString() != "Here is your story: Once upon a time: a story about cats" {
		t.Fatalf("run %+v agent %+v", out, out.WorkflowAgentRun)
	}
}

func TestWorkflowAgentModelFailureFailsTheRun(t *testing.T) {
	m := wire(t, func(*model.Request) modeltest.Response {
		return modeltest.Response{Status: 400, ErrorMessage: "bad request"}
	})
	w := newWF(t, workflow.Config{Name: "f", Agent: &workflow.WorkflowAgent{Model: m, Instructions: "Be brief."},
		Steps: []workflow.Node{&workflow.Step{Name: "s", Func: fn("x", nil)}}})
	evs := collect(t, w.RunStream(context.Background(), "hi"))
	if k := kinds(evs); k != "WorkflowAgentStarted WorkflowError" {
		t.Fatalf("events %s", k)
	}
	out, err := w.Run(context.Background(), "hi")
	if !errors.Is(err, workflow.ErrRunFailed) || out.Status != run.StatusError || !strings.Contains(out.ContentString(), "bad request") {
		t.Fatalf("err %v out %+v", err, out)
	}
	if _, err := workflow.New(workflow.Config{Name: "g", Agent: &workflow.WorkflowAgent{}, Steps: []workflow.Node{&workflow.Step{Name: "s", Func: fn("x", nil)}}}); err == nil {
		t.Fatal("a workflow agent without a model was accepted")
	}
}

// Own instructions keep the workflow context, appended when they do not
// place it.
func TestWorkflowAgentInstructions(t *testing.T) {
	for _, tc := range []struct{ instr, want string }{
		{"Only talk about cats.", "Only talk about cats.\n\nNo previous workflow runs in this session."},
		{"Context first: {workflow_context}. Then cats.", "Context first: No previous workflow runs in this session.. Then cats."},
	} {
		var sys string
		m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			sys = systemMsg(req)
			return modeltest.Response{Content: "ok"}
		})
		no := false
		w := newWF(t, workflow.Config{Name: "f", Agent: &workflow.WorkflowAgent{Model: m, Instructions: tc.instr}, Steps: []workflow.Node{&workflow.Step{Name: "s", Func: fn("x", nil)}}})
		if _, err := w.Run(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sys, tc.want) {
			t.Fatalf("system message:\n%s\nwant it to contain %q", sys, tc.want)
		}
		w = newWF(t, workflow.Config{Name: "f", Agent: &workflow.WorkflowAgent{Model: m, Instructions: tc.instr, AddWorkflowHistory: &no}, Steps: []workflow.Node{&workflow.Step{Name: "s", Func: fn("x", nil)}}})
		if _, err := w.Run(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sys, "No workflow history available.") {
			t.Fatalf("without history:\n%s", sys)
		}
	}
}
