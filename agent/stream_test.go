package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

func TestStreamWithoutEventsYieldsOnlyContent(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), text("one two three"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{echoTool(t)}})
	evs := collect(t, a.RunStream(context.Background(), "go"))
	if got := kinds(evs); got != "RunContent RunContent RunContent" {
		t.Fatalf("events %q", got)
	}
	var sb strings.Builder
	for _, e := range evs {
		sb.WriteString(e.(*run.RunContent).Content.(string))
	}
	if sb.String() != "one two three" {
		t.Fatalf("content %q", sb.String())
	}
}

func TestStreamWithEvents(t *testing.T) {
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "echo", `{"text":"a"}`)), text("done now"))
	a := newAgent(t, agent.Config{Name: "Main Agent", Model: fake, Tools: []tool.Provider{echoTool(t)}})
	evs := collect(t, a.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithSessionID("s1")))
	want := "RunStarted ModelRequestStarted ModelRequestCompleted ToolCallStarted ToolCallCompleted " +
		"ModelRequestStarted RunContent RunContent ModelRequestCompleted RunContentCompleted RunCompleted"
	if got := kinds(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	runID := evs[0].Base().RunID
	for _, e := range evs {
		b := e.Base()
		if b.RunID != runID || b.SessionID != "s1" || b.AgentID != "main-agent" || b.AgentName != "Main Agent" || b.Event != e.Kind() || b.CreatedAt == 0 {
			t.Fatalf("event base %+v", b)
		}
	}
	// JSON field names as agno's (SSE example in agentos-api.md §2.1).
	raw, _ := json.Marshal(evs[6])
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"created_at", "event", "agent_id", "agent_name", "run_id", "session_id", "content", "content_type", "nested_depth", "workflow_agent"} {
		if _, ok := m[k]; !ok {
			t.Errorf("RunContent JSON lacks %q: %s", k, raw)
		}
	}
	tc := evs[4].(*run.ToolCallCompleted)
	// agno's content says what ran and for how long; the result is in the tool.
	if tc.Tool.ToolName != "echo" || tc.Tool.ResultText() != "echo:a" || !strings.HasPrefix(fmt.Sprint(tc.Content), "echo(text=a) completed in ") {
		t.Fatalf("tool completed %q %+v", tc.Content, tc.Tool)
	}
	done := evs[len(evs)-1].(*run.RunCompleted)
	if done.Content != "done now" || done.Metrics == nil {
		t.Fatalf("completed %+v", done)
	}
	// The decoder reads every event back to its type.
	for _, e := range evs {
		b, _ := json.Marshal(e)
		back, err := run.DecodeEvent(b)
		if err != nil || back.Kind() != e.Kind() {
			t.Fatalf("decode %s: %v", b, err)
		}
	}
}

// blocker is a tool that waits until its context ends.
func blocker(started chan<- string) *tool.Function {
	return tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		started <- run.FromContext(ctx).RunID
		<-ctx.Done()
		return "", ctx.Err()
	}))
}

func TestBreakingOutOfStreamCancelsRun(t *testing.T) {
	store := memory.New()
	fake := modeltest.New(modeltest.Response{Content: "a b c d e f g h"})
	a := newAgent(t, agent.Config{Model: fake, Store: store})
	n := 0
	for range a.RunStream(context.Background(), "go", run.WithRunID("r-break"), run.WithSessionID("s")) {
		n++
		if n == 2 {
			break
		}
	}
	rec, err := store.GetRun(context.Background(), "r-break")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != run.StatusCancelled {
		t.Fatalf("stored status %s", rec.Status)
	}
}

func TestCancelByRunID(t *testing.T) {
	started := make(chan string, 1)
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "block", `{}`)), text("never"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{blocker(started)}})
	done := make(chan *run.Output)
	go func() {
		out, _ := a.Run(context.Background(), "go", run.WithRunID("r-cancel"))
		done <- out
	}()
	id := <-started
	if ok, err := a.Cancel(context.Background(), id); !ok || err != nil {
		t.Fatalf("cancel reached=%v err=%v", ok, err)
	}
	out := <-done
	if out.Status != run.StatusCancelled || !strings.Contains(out.ContentString(), "cancelled") {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	if fake.Calls() != 1 {
		t.Fatalf("model called %d times after cancel", fake.Calls())
	}
}

func TestCancelStreamEmitsCancelled(t *testing.T) {
	started := make(chan string, 1)
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "block", `{}`)))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{blocker(started)}})
	go func() { _, _ = a.Cancel(context.Background(), <-started) }()
	evs := collect(t, a.RunStream(context.Background(), "go"))
	// agno closes a cancelled stream with RunCancelled then RunCompleted.
	if got := kinds(evs); got != "RunCancelled RunCompleted" {
		t.Fatalf("events %s", got)
	}
}

func TestCancelBeforeStart(t *testing.T) {
	fake := modeltest.New(text("never"))
	a := newAgent(t, agent.Config{Model: fake})
	if ok, _ := a.Cancel(context.Background(), "r-early"); ok {
		t.Fatal("nothing was running")
	}
	out, _ := a.Run(context.Background(), "go", run.WithRunID("r-early"))
	if out.Status != run.StatusCancelled || fake.Calls() != 0 {
		t.Fatalf("status %s calls %d", out.Status, fake.Calls())
	}
}

func TestPersistenceHistoryAndState(t *testing.T) {
	store := memory.New()
	fake := modeltest.New(text("first answer"), text("second answer"), text("third"))
	setter := tool.Must(tool.New("remember", "r", func(ctx context.Context, a echoArgs) (string, error) {
		run.FromContext(ctx).SetStateValue("fact", a.Text)
		return "ok", nil
	}))
	_ = setter
	a := newAgent(t, agent.Config{Model: fake, Store: store, AddHistoryToContext: true, SessionState: map[string]any{"visits": 0}})
	ctx := context.Background()
	if _, err := a.Run(ctx, "q1", run.WithSessionID("s")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, "q2", run.WithSessionID("s"), run.WithSessionState(map[string]any{"visits": 2})); err != nil {
		t.Fatal(err)
	}
	// Run 2 saw run 1 as history.
	msgs := fake.Requests()[1].Messages
	if len(msgs) != 3 || msgs[0].Content != "q1" || !msgs[0].FromHistory || msgs[1].Content != "first answer" || msgs[2].Content != "q2" {
		t.Fatalf("history: %+v", msgs)
	}
	sess, err := store.GetSession(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if sess.SessionType != storage.SessionAgent || sess.AgentID != a.ID() || sess.SessionState["visits"] != 2 {
		t.Fatalf("session %+v", sess)
	}
	runs, _ := store.ListRuns(ctx, storage.RunQuery{SessionID: "s"})
	if len(runs) != 2 || runs[0].Status != run.StatusCompleted {
		t.Fatalf("runs %+v", runs)
	}
	// Stored runs hold only their own messages (no history copies).
	var second run.Output
	_ = json.Unmarshal(runs[1].Data, &second)
	if len(second.Messages) != 2 || second.Messages[0].Content != "q2" {
		t.Fatalf("stored messages %+v", second.Messages)
	}
}

func TestHistorySkipsFailedAndPausedRuns(t *testing.T) {
	store := memory.New()
	fake := modeltest.New(modeltest.Response{Err: fmt.Errorf("boom")}, text("ok"), text("final"))
	a := newAgent(t, agent.Config{Model: fake, Store: store, AddHistoryToContext: true})
	ctx := context.Background()
	_, _ = a.Run(ctx, "fails", run.WithSessionID("s"))
	_, _ = a.Run(ctx, "works", run.WithSessionID("s"))
	_, _ = a.Run(ctx, "now", run.WithSessionID("s"))
	msgs := fake.Requests()[2].Messages
	if len(msgs) != 3 || msgs[0].Content != "works" {
		t.Fatalf("history must skip the ERROR run: %+v", msgs)
	}
}

func TestStoreEvents(t *testing.T) {
	store := memory.New()
	fake := modeltest.New(text("a b"))
	a := newAgent(t, agent.Config{Model: fake, Store: store, StoreEvents: true})
	out := collect(t, a.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("r1")))
	_ = out
	evs, err := store.ListEvents(context.Background(), "r1", -1)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, e := range evs {
		ev, err := run.DecodeEvent(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, ev.Kind())
	}
	// RunContent is skipped from storage by default (events_to_skip).
	if strings.Contains(strings.Join(ks, " "), "RunContent ") || ks[0] != "RunStarted" || ks[len(ks)-1] != "RunCompleted" {
		t.Fatalf("stored events %v", ks)
	}
}

func TestHundredConcurrentRunsDoNotMix(t *testing.T) {
	store := memory.New()
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return text("final:" + last.Content)
		}
		return calls(modeltest.ToolCall("c-"+last.Content, "tag", fmt.Sprintf(`{"text":%q}`, last.Content)))
	})
	tag := tool.Must(tool.New("tag", "t", func(ctx context.Context, a echoArgs) (string, error) {
		rc := run.FromContext(ctx)
		rc.SetStateValue("mine", a.Text)
		v, _ := rc.StateValue("owner")
		time.Sleep(time.Millisecond)
		return fmt.Sprintf("%s|%v", a.Text, v), nil
	}))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{tag}, Store: store})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := fmt.Sprintf("req-%d", i)
			out, err := a.Run(context.Background(), in, run.WithSessionID(fmt.Sprintf("s-%d", i)), run.WithSessionState(map[string]any{"owner": i}))
			if err != nil {
				errs <- err
				return
			}
			want := fmt.Sprintf("final:%s|%d", in, i)
			if out.Content != want || out.SessionState["mine"] != in || out.SessionState["owner"] != i {
				errs <- fmt.Errorf("run %d: content %q state %v", i, out.Content, out.SessionState)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentRunsInOneSessionKeepBothStateUpdates(t *testing.T) {
	store := memory.New()
	set := tool.Must(tool.New("set", "s", func(ctx context.Context, a echoArgs) (string, error) {
		run.FromContext(ctx).SetStateValue(a.Text, true)
		return "ok", nil
	}))
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return text("done")
		}
		return calls(modeltest.ToolCall("c", "set", fmt.Sprintf(`{"text":%q}`, last.Content)))
	})
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{set}, Store: store})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = a.Run(context.Background(), fmt.Sprintf("k%d", i), run.WithSessionID("shared"))
		}()
	}
	wg.Wait()
	sess, _ := store.GetSession(context.Background(), "shared")
	for i := range 20 {
		if sess.SessionState[fmt.Sprintf("k%d", i)] != true {
			t.Fatalf("lost state update k%d: %v", i, sess.SessionState)
		}
	}
	runs, _ := store.ListRuns(context.Background(), storage.RunQuery{SessionID: "shared"})
	if len(runs) != 20 {
		t.Fatalf("%d runs stored, want 20", len(runs))
	}
}

func TestRequestStoreEventsPersistsEvents(t *testing.T) {
	store := memory.New()
	a := newAgent(t, agent.Config{Model: modeltest.New(text("a b")), Store: store})
	req := &run.Request{Input: "go", RunID: "r-req", StoreEvents: true, Stream: true, StreamEvents: true}
	if _, err := a.Execute(context.Background(), req, func(run.Event) bool { return true }); err != nil {
		t.Fatal(err)
	}
	evs, _ := store.ListEvents(context.Background(), "r-req", -1)
	if len(evs) == 0 {
		t.Fatal("request-level store_events stored nothing")
	}
}
