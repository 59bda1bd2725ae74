package run_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/run"
)

func TestEventKindFollowsIdentity(t *testing.T) {
	agentEv := &run.RunContent{EventBase: run.EventBase{AgentID: "a"}}
	teamEv := &run.RunContent{EventBase: run.EventBase{TeamID: "t"}}
	if agentEv.Kind() != "RunContent" || teamEv.Kind() != "TeamRunContent" {
		t.Fatalf("kinds %s %s", agentEv.Kind(), teamEv.Kind())
	}
	run.Stamp(teamEv)
	b, _ := json.Marshal(teamEv)
	back, err := run.DecodeEvent(b)
	if err != nil || back.Kind() != "TeamRunContent" || back.Base().TeamID != "t" {
		t.Fatalf("round trip %s %v", b, err)
	}
	if _, err := run.DecodeEvent([]byte(`{"event":"Nope"}`)); err == nil {
		t.Fatal("unknown event decoded")
	}
}

func TestEventJSONOmitsEmptyFields(t *testing.T) {
	e := run.Stamp(&run.ToolCallStarted{EventBase: run.EventBase{AgentID: "a", RunID: "r"}, Tool: &run.ToolExecution{ToolName: "x"}})
	b, _ := json.Marshal(e)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"team_id", "parent_run_id", "workflow_id", "step_index", "event_index"} {
		if _, ok := m[k]; ok {
			t.Errorf("empty %s present: %s", k, b)
		}
	}
	if m["event"] != "ToolCallStarted" || m["nested_depth"] != 0.0 {
		t.Errorf("json %s", b)
	}
}

func TestCustomEventFlattensData(t *testing.T) {
	e := &run.CustomEvent{EventBase: run.EventBase{AgentID: "a"}, ToolCallID: "c1", Data: map[string]any{"progress": 0.5, "agent_id": "clash"}}
	run.Stamp(e)
	b, _ := json.Marshal(e)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if m["progress"] != 0.5 || m["agent_id"] != "a" || m["tool_call_id"] != "c1" {
		t.Fatalf("json %s", b)
	}
	back, _ := run.DecodeEvent(b)
	if ce := back.(*run.CustomEvent); ce.Data["progress"] == nil || ce.Data["agent_id"] != nil {
		t.Fatalf("decoded data %v", ce.Data)
	}
}

func pausedTool(kind string) *run.ToolExecution {
	t := &run.ToolExecution{ToolCallID: "c", ToolName: "x"}
	switch kind {
	case "confirm":
		t.RequiresConfirmation = true
	case "input":
		t.RequiresUserInput = true
		t.UserInputSchema = []run.UserInputField{{Name: "a", FieldType: "str"}, {Name: "b", FieldType: "int"}}
	case "external":
		t.ExternalExecutionRequired = true
	}
	return t
}

func TestRequirementResolution(t *testing.T) {
	r := run.NewRequirement(pausedTool("confirm"))
	if r.Resolved() || r.PauseType() != run.PauseConfirmation {
		t.Fatal("confirmation requirement resolved at birth")
	}
	if err := r.ProvideUserInput(map[string]any{"a": 1}); !errors.Is(err, run.ErrNotRequired) {
		t.Fatalf("user input on a confirmation: %v", err)
	}
	if err := r.Reject("no"); err != nil || !r.Resolved() || *r.ToolExecution.Confirmed || *r.ConfirmationNote != "no" {
		t.Fatalf("reject: %v %+v", err, r)
	}
	if err := r.Confirm(); !errors.Is(err, run.ErrNotRequired) {
		t.Fatal("confirming twice")
	}

	in := run.NewRequirement(pausedTool("input"))
	if in.PauseType() != run.PauseUserInput {
		t.Fatal(in.PauseType())
	}
	_ = in.ProvideUserInput(map[string]any{"a": "x"})
	if in.Resolved() {
		t.Fatal("resolved with a field missing")
	}
	_ = in.ProvideUserInput(map[string]any{"b": 2})
	if !in.Resolved() || in.ToolExecution.UserInputSchema[1].Value != 2 {
		t.Fatalf("input %+v", in.ToolExecution.UserInputSchema)
	}

	ext := run.NewRequirement(pausedTool("external"))
	if err := ext.SetExternalResult("42"); err != nil || !ext.Resolved() || ext.ToolExecution.ResultText() != "42" {
		t.Fatalf("external: %v", err)
	}
	if got := run.Active([]*run.Requirement{r, in, ext, run.NewRequirement(pausedTool("confirm"))}); len(got) != 1 {
		t.Fatalf("active %d", len(got))
	}
}

func TestRequirementJSONRoundTrip(t *testing.T) {
	r := run.NewRequirement(pausedTool("confirm"))
	r.MemberAgentID, r.MemberRunID = "m", "mr"
	b, _ := json.Marshal(r)
	var back run.Requirement
	if err := json.Unmarshal(b, &back); err != nil || back.ID != r.ID || back.MemberRunID != "mr" || !back.ToolExecution.RequiresConfirmation {
		t.Fatalf("round trip %s: %v", b, err)
	}
	if !strings.Contains(string(b), `"created_at":"`) || !strings.HasSuffix(r.CreatedAt, "+00:00") {
		t.Fatalf("created_at must be Python isoformat: %s", r.CreatedAt)
	}
}

func TestMergeAndClone(t *testing.T) {
	dst := map[string]any{"a": map[string]any{"x": 1, "y": 2}, "b": 1}
	run.MergeMaps(dst, map[string]any{"a": map[string]any{"y": 3}, "c": []any{1}})
	if dst["a"].(map[string]any)["x"] != 1 || dst["a"].(map[string]any)["y"] != 3 || dst["c"] == nil {
		t.Fatalf("merge %v", dst)
	}
	c := run.CloneMap(dst)
	c["a"].(map[string]any)["x"] = 9
	if dst["a"].(map[string]any)["x"] != 1 {
		t.Fatal("clone shares nested maps")
	}
	te := pausedTool("input")
	cl := te.Clone()
	cl.UserInputSchema[0].Value = "changed"
	if te.UserInputSchema[0].Value != nil {
		t.Fatal("tool execution clone shares its schema")
	}
}

func TestOutputJSONDecodesEvents(t *testing.T) {
	o := &run.Output{RunID: "r", Status: run.StatusCompleted, Events: []run.Event{run.Stamp(&run.RunStarted{EventBase: run.EventBase{AgentID: "a"}})}}
	b, _ := json.Marshal(o)
	var back run.Output
	if err := json.Unmarshal(b, &back); err != nil || len(back.Events) != 1 || back.Events[0].Kind() != "RunStarted" {
		t.Fatalf("%s %v", b, err)
	}
	if c := o.Clone(); c == o || c.RunID != "r" {
		t.Fatal("clone")
	}
}
