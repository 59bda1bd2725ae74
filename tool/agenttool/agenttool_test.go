package agenttool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/agenttool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type lookupArgs struct {
	Key string `json:"key"`
}

// parentAndSub builds a parent agent whose tool is a sub-agent that itself
// calls a tool.
func parentAndSub(t *testing.T, toParent *bool) (*agent.Agent, *modeltest.Fake) {
	t.Helper()
	lookup := tool.Must(tool.New("lookup", "Look up a key", func(_ context.Context, a lookupArgs) (string, error) {
		return "value-of-" + a.Key, nil
	}))
	subModel := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "sub says 42"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("s1", "lookup", `{"key":"answer"}`)}}
	})
	sub, err := agent.New(agent.Config{Name: "Researcher", Model: subModel, Tools: []tool.Provider{lookup}})
	if err != nil {
		t.Fatal(err)
	}
	asTool, err := agenttool.New(agenttool.Config{Executor: sub, StreamToParent: toParent})
	if err != nil {
		t.Fatal(err)
	}
	parentModel := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "parent done"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("p1", "ask_researcher", `{"task":"find the answer"}`)}}
	})
	parent, err := agent.New(agent.Config{Name: "Boss", Model: parentModel, Tools: []tool.Provider{asTool}})
	if err != nil {
		t.Fatal(err)
	}
	return parent, parentModel
}

func TestSubAgentEventsStreamLiveToParent(t *testing.T) {
	parent, parentModel := parentAndSub(t, nil)
	var evs []run.Event
	for ev, err := range parent.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("parent-run")) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	start, end := -1, -1
	for i, e := range evs {
		if tc, ok := e.(*run.ToolCallStarted); ok && tc.Tool.ToolName == "ask_researcher" {
			start = i
		}
		if tc, ok := e.(*run.ToolCallCompleted); ok && tc.Tool.ToolName == "ask_researcher" {
			end = i
		}
	}
	if start < 0 || end < start {
		t.Fatalf("parent tool events missing")
	}
	var inner []string
	for _, e := range evs[start+1 : end] {
		b := e.Base()
		if b.AgentID != "researcher" || b.ParentRunID != "parent-run" || b.RunID == "parent-run" {
			t.Fatalf("sub event %s with base %+v", e.Kind(), b)
		}
		inner = append(inner, e.Kind())
	}
	got := strings.Join(inner, " ")
	for _, want := range []string{"RunStarted", "ToolCallStarted", "ToolCallCompleted", "RunContent", "RunCompleted"} {
		if !strings.Contains(got, want) {
			t.Fatalf("sub-agent events between the parent's tool events: %s (missing %s)", got, want)
		}
	}
	var subTool *run.ToolCallCompleted
	for _, e := range evs[start+1 : end] {
		if tc, ok := e.(*run.ToolCallCompleted); ok {
			subTool = tc
		}
	}
	if subTool == nil || subTool.Tool.ResultText() != "value-of-answer" {
		t.Fatalf("sub-agent tool call not visible")
	}
	// The parent model got the sub-agent's final answer.
	last := parentModel.Requests()[1].Messages
	if tm := last[len(last)-1]; tm.Role != model.RoleTool || tm.Content != "sub says 42" {
		t.Fatalf("tool result for the parent %+v", tm)
	}
	if evs[end].(*run.ToolCallCompleted).Tool.ChildRunID == "" {
		t.Fatal("child_run_id not recorded")
	}
}

func TestSubAgentStreamingCanBeTurnedOff(t *testing.T) {
	off := false
	parent, _ := parentAndSub(t, &off)
	for ev, err := range parent.RunStream(context.Background(), "go", run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Base().AgentID == "researcher" {
			t.Fatalf("sub-agent event %s forwarded with sub_agent_to_parent=false", ev.Kind())
		}
	}
}

func TestSanitizeID(t *testing.T) {
	for in, want := range map[string]string{"MyThing": "mything", "My-Provider.2": "my_provider_2", "!!!": "context"} {
		if got := agenttool.SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
}
