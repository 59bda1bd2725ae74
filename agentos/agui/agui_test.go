package agui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/run"
)

func TestDecode(t *testing.T) {
	in, err := Decode([]byte(`{"thread_id":"t","run_id":"r","state":{"a":1},"messages":[{"id":"1","role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}],"tools":[],"context":[],"forwarded_props":{"user_id":"u"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.ThreadID != "t" || in.RunID != "r" || in.UserID() != "u" || in.SessionState()["a"] != 1.0 || UserInput(in.Messages) != "hi\nthere" {
		t.Fatalf("%+v", in)
	}
	var fe *FieldError
	_, err = Decode([]byte(`{"threadId":"t","runId":"r","state":null,"messages":[],"tools":[],"forwardedProps":null}`))
	if !errors.As(err, &fe) || strings.Join(fe.Loc, ".") != "body.context" || fe.Type != "missing" {
		t.Fatalf("missing context: %v", err)
	}
	_, err = Decode([]byte(`{"threadId":"t","runId":"r","state":null,"messages":[{"id":"1","role":"tool","content":"x"}],"tools":[],"context":[],"forwardedProps":null}`))
	if !errors.As(err, &fe) || strings.Join(fe.Loc, ".") != "body.messages.0.toolCallId" {
		t.Fatalf("tool message without toolCallId: %v", err)
	}
	if in, _ := Decode([]byte(`{"threadId":"t","runId":"r","state":[1],"messages":[],"tools":[],"context":[],"forwardedProps":"x"}`)); in.SessionState() != nil || in.UserID() != "" {
		t.Fatal("a non-object state or forwardedProps is ignored, as agno does")
	}
}

func TestToolResults(t *testing.T) {
	msg := func(role, id, content string) Message {
		c, _ := json.Marshal(content)
		return Message{Role: role, ToolCallID: id, Content: c}
	}
	// Only the trailing tool messages count, the first result of a call wins.
	got := ToolResults([]Message{msg("tool", "old", "x"), msg("user", "", "hi"), msg("tool", "a", "1"), msg("tool", "b", "2"), msg("tool", "a", "3")})
	if len(got) != 2 || got[0] != (ToolResult{ToolCallID: "a", Content: "1"}) || got[1].ToolCallID != "b" {
		t.Fatalf("%+v", got)
	}
	if ToolResults([]Message{msg("tool", "a", "1"), msg("user", "", "hi")}) != nil {
		t.Fatal("a tool message before the last user message is history")
	}
}

func TestArgsAsPythonDumps(t *testing.T) {
	if got := argsJSON(map[string]any{"a": "x, y: z", "b": []any{1.0, map[string]any{"c": true}}}); got != `{"a": "x, y: z", "b": [1, {"c": true}]}` {
		t.Fatal(got)
	}
	if argsJSON(nil) != "null" {
		t.Fatal("json.dumps(None)")
	}
}

func TestMapperPauseAndState(t *testing.T) {
	m := &Mapper{ThreadID: "t", RunID: "r", State: map[string]any{}}
	res := "done"
	m.Map(&run.ToolCallStarted{Tool: &run.ToolExecution{ToolCallID: "c1", ToolName: "backend", ToolArgs: map[string]any{}}})
	m.Map(&run.ToolCallCompleted{Tool: &run.ToolExecution{ToolCallID: "c1", ToolName: "backend", Result: &res}})
	m.Map(&run.RunPaused{Tools: []*run.ToolExecution{{ToolCallID: "c2", ToolName: "front", ExternalExecutionRequired: true}}})
	var types []string
	for _, e := range m.Finish() {
		types = append(types, string(e.Type))
	}
	if strings.Join(types, " ") != "TEXT_MESSAGE_START TEXT_MESSAGE_END TOOL_CALL_START TOOL_CALL_ARGS TOOL_CALL_END STATE_SNAPSHOT RUN_FINISHED" {
		t.Fatal(types)
	}
	b, _ := json.Marshal(Snapshot(map[string]any{}))
	if string(b) != `{"type":"STATE_SNAPSHOT","snapshot":{}}` {
		t.Fatal(string(b))
	}
	b, _ = Encode(Started("t", "r"))
	if string(b) != "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" {
		t.Fatalf("%q", b)
	}
}
