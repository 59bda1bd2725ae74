package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

func outputJSON(t *testing.T, out *run.Output) map[string]json.RawMessage {
	t.Helper()
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func checkKeys(t *testing.T, name string, m map[string]json.RawMessage, present, absent []string) {
	t.Helper()
	for _, k := range present {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: RunOutput JSON lacks %q", name, k)
		}
	}
	for _, k := range absent {
		if v, ok := m[k]; ok {
			t.Errorf("%s: RunOutput JSON has %q = %s; agno omits it (None)", name, k, v)
		}
	}
}

// The keys of agno's RunOutput.to_dict(): None fields are left out, empty
// lists and dicts are kept. A non-stream run copies the model's (empty)
// tool list, and cleanup_and_store always sets session_state.
func TestRunOutputJSONOptionalKeys(t *testing.T) {
	t.Run("bare", func(t *testing.T) {
		a := newAgent(t, agent.Config{Model: modeltest.New(text("ok"))})
		out, _ := a.Run(context.Background(), "hi")
		m := outputJSON(t, out)
		checkKeys(t, "bare", m, []string{"run_id", "agent_id", "session_id", "content", "content_type", "model", "model_provider",
			"messages", "metrics", "status", "created_at", "input", "tools", "session_state"},
			[]string{"parent_run_id", "user_id", "reasoning_content", "requirements", "events", "metadata", "agent_name"})
		if string(m["tools"]) != "[]" || string(m["session_state"]) != "{}" {
			t.Errorf("tools %s session_state %s", m["tools"], m["session_state"])
		}
	})

	t.Run("stream without tools", func(t *testing.T) {
		// agno's stream path never copies an empty tool list.
		a := newAgent(t, agent.Config{Model: modeltest.New(text("ok"))})
		out, _ := a.Execute(context.Background(), &run.Request{Input: "hi", Stream: true}, nil)
		checkKeys(t, "stream", outputJSON(t, out), []string{"session_state"}, []string{"tools"})
	})

	t.Run("full", func(t *testing.T) {
		fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), modeltest.Response{Content: "done", Reasoning: "thinking"})
		a := newAgent(t, agent.Config{Name: "Main Agent", Model: fake, Tools: []tool.Provider{echoTool(t)}, StoreEvents: true})
		out, _ := a.Execute(context.Background(), &run.Request{
			Input: "hi", Stream: true, StreamEvents: true, UserID: "u1", ParentRunID: "p1",
			Metadata: map[string]any{"tag": "x"}, SessionState: map[string]any{"k": "v"},
		}, nil)
		m := outputJSON(t, out)
		checkKeys(t, "full", m, []string{"agent_name", "parent_run_id", "user_id", "reasoning_content", "tools", "events", "session_state", "metadata"},
			[]string{"requirements"})
		var got struct {
			ParentRunID      string           `json:"parent_run_id"`
			UserID           string           `json:"user_id"`
			ReasoningContent string           `json:"reasoning_content"`
			Tools            []map[string]any `json:"tools"`
			Events           []map[string]any `json:"events"`
			SessionState     map[string]any   `json:"session_state"`
			Metadata         map[string]any   `json:"metadata"`
		}
		b, _ := json.Marshal(out)
		_ = json.Unmarshal(b, &got)
		if got.ParentRunID != "p1" || got.UserID != "u1" || got.ReasoningContent != "thinking" || len(got.Tools) != 1 ||
			got.Tools[0]["tool_name"] != "echo" || len(got.Events) == 0 || got.Events[0]["event"] != "RunStarted" ||
			got.SessionState["k"] != "v" || got.Metadata["tag"] != "x" {
			t.Errorf("values: %s", b)
		}
	})

	t.Run("paused", func(t *testing.T) {
		fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)))
		a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t, tool.RequiresConfirmation())}})
		out, _ := a.Run(context.Background(), "hi")
		m := outputJSON(t, out)
		checkKeys(t, "paused", m, []string{"requirements", "tools"}, nil)
		if out.Status != run.StatusPaused {
			t.Fatalf("status %s", out.Status)
		}
	})
}

// show_result without stop_after_tool_call: the tool's output becomes
// content (and a RunContent in a stream) and the model loop goes on; the
// model's answer is appended, as agno's `model_response.content +=`.
func TestShowResultWithoutStop(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), text("and more"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t, tool.ShowResult())}})
	out, _ := a.Run(context.Background(), "go")
	if out.Status != run.StatusCompleted || out.Content != "echo:aand more" || fake.Calls() != 2 {
		t.Fatalf("status %s content %q model calls %d", out.Status, out.Content, fake.Calls())
	}
	if msgs := toolMessages(fake.Requests()[1]); len(msgs) != 1 || msgs[0].Content != "echo:a" {
		t.Fatalf("tool messages %+v", msgs)
	}

	fake = modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), text("and more"))
	a = newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t, tool.ShowResult())}})
	evs := collect(t, a.RunStream(context.Background(), "go"))
	var content []string
	for _, e := range evs {
		content = append(content, e.(*run.RunContent).Content.(string))
	}
	if len(content) != 3 || content[0] != "echo:a" || content[1]+content[2] != "and more" || fake.Calls() != 2 {
		t.Fatalf("stream content %q (model calls %d)", content, fake.Calls())
	}
}

// A per-run JSON schema asks that run for structured output (the strict
// json_schema form is checked over the wire in agentos).
func TestWithOutputSchemaPerRun(t *testing.T) {
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.ResponseFormat != nil {
			return modeltest.Response{Content: `{"city":"Paris"}`}
		}
		return modeltest.Response{Content: "plain"}
	})
	a := newAgent(t, agent.Config{Model: fake})
	out, err := a.Run(context.Background(), "where?", run.WithOutputSchema(json.RawMessage(`{"title":"Place!","type":"object","properties":{"city":{"type":"string"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := out.Content.(map[string]any); c["city"] != "Paris" || out.ContentType != "dict" {
		t.Fatalf("content %#v (%s)", out.Content, out.ContentType)
	}
	// The fake has no native structured outputs: JSON mode, and the
	// schema's fields are spelled out in the system message.
	req := fake.Requests()[0]
	if rf := req.ResponseFormat; rf == nil || rf.Type != "json_object" || !strings.Contains(req.Messages[0].Content, `"city"`) {
		t.Fatalf("response format %+v, system message %q", rf, req.Messages[0].Content)
	}
	out, _ = a.Run(context.Background(), "again")
	if out.Content != "plain" {
		t.Fatalf("the next run kept the schema: %v", out.Content)
	}
	out, _ = a.Run(context.Background(), "bad", run.WithOutputSchema(json.RawMessage(`[1]`)))
	if out.Status != run.StatusError || !strings.Contains(out.ContentString(), "output_schema must be a JSON object") {
		t.Fatalf("bad schema: %s %v", out.Status, out.Content)
	}
}
