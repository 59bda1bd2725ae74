package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

// A stored run's output is encoded once: its response is the document
// its end stored, with the events added, and says exactly what encoding
// the output again would say (a plain answer, a tool round, a pause).
func TestOutputEncodedOnce(t *testing.T) {
	send := tool.Must(tool.New("send_email", "Send an email <b>now</b>", func(_ context.Context, a emailArgs) (string, error) {
		return "sent to " + a.To + " & co", nil
	}, tool.RequiresConfirmation()))
	for _, c := range []struct {
		name    string
		replies []modeltest.Response
		input   string
	}{
		{"answer", []modeltest.Response{text("Hello <friend> & welcome")}, "hi"},
		{"tool round", []modeltest.Response{calls(modeltest.ToolCall("c1", "echo", `{"text":"x"}`)), text("done")}, "echo"},
		{"pause", []modeltest.Response{calls(modeltest.ToolCall("c1", "send_email", `{"to":"a@example.com"}`))}, "mail"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAgent(t, agent.Config{Model: modeltest.New(c.replies...), Tools: []tool.Provider{echoTool(t), send}, Store: memory.New()})
			out, err := a.Execute(context.Background(), &run.Request{Input: c.input, StoreEvents: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stored == nil {
				t.Fatal("the output of a stored run does not keep its stored document")
			}
			once, err := out.Encode()
			if err != nil {
				t.Fatal(err)
			}
			again, err := run.EncodeJSON(out)
			if err != nil {
				t.Fatal(err)
			}
			var a1, a2 any
			if err := json.Unmarshal(once, &a1); err != nil {
				t.Fatalf("%v: %s", err, once)
			}
			_ = json.Unmarshal(again, &a2)
			if d := cmp.Diff(a2, a1); d != "" {
				t.Errorf("the response made of the stored document differs from the output (-encoded again +once):\n%s", d)
			}
			if len(out.Events) == 0 {
				t.Error("no events in the output")
			}
		})
	}
	// Not stored: nothing to reuse, the output is encoded.
	a := newAgent(t, agent.Config{Model: modeltest.New(text("hi"))})
	out, err := a.Execute(context.Background(), &run.Request{Input: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stored != nil {
		t.Error("a run without storage has a stored document")
	}
}
