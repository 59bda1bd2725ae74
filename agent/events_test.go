package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

func failingTool() *tool.Function {
	return tool.Must(tool.New("fail", "errors", func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") }))
}

// ToolCallError is a stream_events event (agno yields it inside `if
// stream_events`, right after ToolCallCompleted); the failure still
// reaches the model as an error tool message.
func TestToolCallErrorOnlyWithStreamEvents(t *testing.T) {
	t.Run("stream_events off", func(t *testing.T) {
		fake := modeltest.New(calls(modeltest.ToolCall("c1", "fail", `{}`)), text("recovered"))
		a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{failingTool()}})
		evs := collect(t, a.RunStream(context.Background(), "go"))
		if got := kinds(evs); got != "RunContent" {
			t.Fatalf("events %q", got)
		}
		if msgs := toolMessages(fake.Requests()[1]); len(msgs) != 1 || !msgs[0].ToolCallError || msgs[0].Content != "disk full" {
			t.Fatalf("tool messages %+v", msgs)
		}
	})
	t.Run("stream_events on", func(t *testing.T) {
		fake := modeltest.New(calls(modeltest.ToolCall("c1", "fail", `{}`)), text("recovered"))
		a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{failingTool()}})
		evs := collect(t, a.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
		want := "RunStarted ModelRequestStarted ModelRequestCompleted ToolCallStarted ToolCallCompleted ToolCallError " +
			"ModelRequestStarted RunContent ModelRequestCompleted RunContentCompleted RunCompleted"
		if got := kinds(evs); got != want {
			t.Fatalf("events\n got %s\nwant %s", got, want)
		}
		te := evs[5].(*run.ToolCallError)
		if te.Error != "disk full" || te.Tool == nil || te.Tool.ToolName != "fail" || !te.Tool.ToolCallError {
			t.Fatalf("ToolCallError %+v tool %+v", te, te.Tool)
		}
	})
}

// A cancelled stream ends RunCancelled then RunCompleted, with or without
// stream_events (agno's _build_cancel_terminal_events); RunCompleted
// carries the run's content, which is the reason.
func TestCancelStreamEndsCancelledThenCompleted(t *testing.T) {
	for _, events := range []bool{false, true} {
		store := memory.New()
		started := make(chan string, 1)
		fake := modeltest.New(calls(modeltest.ToolCall("c1", "block", `{}`)))
		a := newAgent(t, agent.Config{Model: fake, Store: store, StoreEvents: true, Tools: []tool.Provider{blocker(started)}})
		go func() { _, _ = a.Cancel(context.Background(), <-started) }()
		var evs []run.Event
		for ev, err := range a.RunStream(context.Background(), "go", run.WithRunID("r-c"), run.WithStreamEvents(events),
			run.WithSessionState(map[string]any{"k": "v"})) {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
			// Terminal events come once the run is stored.
			if ev.Kind() == "RunCompleted" {
				rec, err := store.GetRun(context.Background(), "r-c")
				if err != nil || rec.Status != run.StatusCancelled {
					t.Fatalf("stored when RunCompleted arrived: %+v %v", rec, err)
				}
			}
		}
		n := len(evs)
		if n < 2 || evs[n-2].Kind() != "RunCancelled" || evs[n-1].Kind() != "RunCompleted" {
			t.Fatalf("stream_events=%v: events %s", events, kinds(evs))
		}
		cancelled, completed := evs[n-2].(*run.RunCancelled), evs[n-1].(*run.RunCompleted)
		if cancelled.Reason != "Run r-c was cancelled" || completed.Content != cancelled.Reason ||
			completed.ContentType != "str" || completed.Metrics == nil || completed.SessionState["k"] != "v" {
			t.Fatalf("cancelled %+v completed %+v", cancelled, completed)
		}
		if !events && n != 2 {
			t.Fatalf("without stream_events only the terminal pair: %s", kinds(evs))
		}
		// Both are kept in the run's stored events, in order.
		stored, err := store.ListEvents(context.Background(), "r-c", -1)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, se := range stored {
			var e struct {
				Event string `json:"event"`
			}
			_ = json.Unmarshal(se.Data, &e)
			names = append(names, e.Event)
		}
		if got := strings.Join(names, " "); !strings.HasSuffix(got, "RunCancelled RunCompleted") {
			t.Fatalf("stored events %s", got)
		}
	}
}
