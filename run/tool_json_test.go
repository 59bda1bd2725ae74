package run_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// A tool execution is written with every field of agno's to_dict() and
// read back unchanged, so stored runs written before and after decode.
func TestToolExecutionJSONRoundTrip(t *testing.T) {
	yes := true
	note := "ok"
	for _, te := range []run.ToolExecution{
		{ToolCallID: "c1", ToolName: "get_time", CreatedAt: 1},
		{ToolCallID: "c2", ToolName: "send", ToolArgs: map[string]any{"to": "a"}, CreatedAt: 2, RequiresConfirmation: true,
			Confirmed: &yes, ConfirmationNote: &note, Metrics: &run.ToolMetrics{Duration: 0.5}, ApprovalID: "ap1",
			UserInputSchema: []run.UserInputField{{Name: "x", FieldType: "str"}}},
	} {
		b, err := json.Marshal(te)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if len(m) != 20 {
			t.Errorf("%s: %d keys, want agno's 20: %s", te.ToolCallID, len(m), b)
		}
		var back run.ToolExecution
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if te.ToolArgs == nil {
			te.ToolArgs = map[string]any{} // sent as {}, as agno sends it
		}
		if !reflect.DeepEqual(back, te) {
			t.Errorf("round trip:\n got %+v\nwant %+v", back, te)
		}
	}
	// An old row without the null fields still decodes.
	var old run.ToolExecution
	if err := json.Unmarshal([]byte(`{"tool_call_id":"c","tool_name":"t","result":"r","stop_after_tool_call":false,"created_at":3}`), &old); err != nil || old.ResultText() != "r" {
		t.Fatalf("old row: %v %+v", err, old)
	}
}

// Messages keep agno's always-present booleans and drop None.
func TestMessageJSON(t *testing.T) {
	b, err := run.EncodeJSON(model.Message{Role: model.RoleTool, ToolCallID: "c1", ToolName: "t", Content: "<ok>", CreatedAt: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"tool","content":"<ok>","tool_call_id":"c1","tool_name":"t","stop_after_tool_call":false,"from_history":false,"created_at":5,"tool_call_error":false}`
	if string(b) != want {
		t.Errorf("tool message\n got %s\nwant %s", b, want)
	}
	b, _ = run.EncodeJSON(model.Message{Role: model.RoleUser, Content: "hi", CreatedAt: 5})
	want = `{"role":"user","content":"hi","stop_after_tool_call":false,"from_history":false,"created_at":5}`
	if string(b) != want {
		t.Errorf("user message\n got %s\nwant %s", b, want)
	}
	var back model.Message
	if err := json.Unmarshal([]byte(want), &back); err != nil || back.Content != "hi" {
		t.Fatalf("decode: %v %+v", err, back)
	}
}

// RunCompleted carries session_state {} for a run without state.
func TestRunCompletedSessionState(t *testing.T) {
	b, err := json.Marshal(&run.RunCompleted{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if st, ok := m["session_state"].(map[string]any); !ok || len(st) != 0 {
		t.Errorf("session_state = %#v in %s", m["session_state"], b)
	}
}
