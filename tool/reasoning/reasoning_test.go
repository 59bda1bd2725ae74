package reasoning_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/reasoning"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.reasoning] against
// agno v2.6.13's ReasoningTools (tools/reasoning.py) with its defaults.
func TestConformance(t *testing.T) {
	const noRun = "has no run"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "reasoning",
		Name:    "reasoning_tools",
		Functions: []tooltest.Function{
			{Name: "think", Args: []string{"title", "thought", "action", "confidence"}},
			{Name: "analyze", Args: []string{"title", "result", "analysis", "next_action", "confidence"}},
		},
		// Outside a run there is no session state to keep the steps in.
		Failures: map[string][]tooltest.Call{
			"think":   {{Args: `{"title": "t", "thought": "x"}`, Want: noRun}},
			"analyze": {{Args: `{"title": "t", "result": "r", "analysis": "a"}`, Want: noRun}},
		},
		Unbounded: "it returns the run's own steps, which the model wrote",
		BadOptions: []tooltest.BadOption{
			{Table: "enable_thinking = true", Key: "enable_thinking"},
		},
	})
}

// A run that thinks, then analyzes, then answers: the steps are kept in
// the session state under reasoning_steps[<run id>] as agno's JSON, and
// each call answers with the steps so far, in agno's format.
func TestStepsInSessionState(t *testing.T) {
	tk, err := reasoning.New(reasoning.Config{EnableThink: true, EnableAnalyze: true})
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c1", "think", `{"title":"Plan","thought":"Add the numbers.","action":"compute"}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c2", "analyze", `{"title":"Check","result":"4","analysis":"2+2 is 4.","next_action":"final_answer","confidence":1.0}`)}},
		modeltest.Response{Content: "4"},
	)
	a, err := agent.New(agent.Config{Name: "R", Model: fake, Tools: []tool.Provider{tk}, Store: memory.New()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "2+2?", run.WithRunID("r1"))
	if err != nil || out.Content != "4" {
		t.Fatalf("%v %v", err, out)
	}
	steps := out.SessionState["reasoning_steps"].(map[string]any)["r1"].([]any)
	if len(steps) != 2 {
		t.Fatalf("steps %v", steps)
	}
	var first, second map[string]any
	json.Unmarshal([]byte(steps[0].(string)), &first)
	json.Unmarshal([]byte(steps[1].(string)), &second)
	if first["reasoning"] != "Add the numbers." || first["next_action"] != "continue" || first["confidence"] != 0.8 || first["result"] != nil {
		t.Errorf("think step %v", first)
	}
	if second["next_action"] != "final_answer" || second["result"] != "4" || second["action"] != nil {
		t.Errorf("analyze step %v", second)
	}
	if !strings.HasPrefix(steps[0].(string), `{"title":"Plan","action":"compute","result":null,"reasoning":"Add the numbers.","next_action":"continue","confidence":0.8}`) {
		t.Errorf("stored JSON %s", steps[0])
	}
	// pydantic writes a float: 1.0, not 1.
	if !strings.HasSuffix(steps[1].(string), `"confidence":1.0}`) {
		t.Errorf("stored JSON %s", steps[1])
	}
	// What the model saw after analyze: both steps, agno's format.
	var last string
	for _, m := range out.Messages {
		if m.Role == model.RoleTool {
			last = m.Content
		}
	}
	want := "Step 1:\nTitle: Plan\nReasoning: Add the numbers.\nAction: compute\nConfidence: 0.8\n\nStep 2:\nTitle: Check\nReasoning: 2+2 is 4.\nAction: None\nConfidence: 1.0"
	if last != want {
		t.Errorf("analyze answered %q, want %q", last, want)
	}
}

func TestInstructions(t *testing.T) {
	tk, _ := reasoning.New(reasoning.Config{EnableThink: true, AddFewShot: true, AddInstructions: true})
	got := tk.Instructions()
	if !strings.HasPrefix(got, "<reasoning_instructions>\nYou have access to the `think` and `analyze` tools") ||
		!strings.Contains(got, "**Example 1: Simple Fact Retrieval**") || !strings.HasSuffix(got, "\n</reasoning_instructions>\n") {
		t.Errorf("instructions %q", got)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 1 || fns[0].Name != "think" {
		t.Errorf("only think: %v", fns)
	}
}

// FormatNotes is agno's dedent(f"""...""").strip() byte for byte: the
// first note keeps the f-string's 16 spaces, blank-only lines are
// emptied, the ends stripped (the expectation printed by Python 3).
func TestFormatNotes(t *testing.T) {
	got := reasoning.FormatNotes("Thoughts", []string{"- a\n   \nb  ", "- c\t"})
	if want := "Thoughts:\n                - a\n\nb  \n- c"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
