package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

type emailArgs struct {
	To      string `json:"to"`
	Subject string `json:"subject,omitempty"`
}

// hitlTools returns a confirmation tool that counts its executions and a
// plain tool.
func hitlTools(t *testing.T, sent *atomic.Int32) (*tool.Function, *tool.Function) {
	send := tool.Must(tool.New("send_email", "Send an email", func(_ context.Context, a emailArgs) (string, error) {
		sent.Add(1)
		return "sent to " + a.To, nil
	}, tool.RequiresConfirmation()))
	return send, echoTool(t)
}

func TestConfirmationPauseThenConfirm(t *testing.T) {
	var sent atomic.Int32
	send, echo := hitlTools(t, &sent)
	store := memory.New()
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "send_email", `{"to":"alice@example.com","subject":"hi"}`), modeltest.ToolCall("c2", "echo", `{"text":"x"}`)),
		text("The email has been sent."),
	)
	cfg := agent.Config{Name: "Mailer", Model: fake, Tools: []tool.Provider{send, echo}, Store: store}
	a := newAgent(t, cfg)
	out, err := a.Run(context.Background(), "email alice", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusPaused || out.Content != "I have tools to execute, but I need confirmation." {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	if sent.Load() != 0 {
		t.Fatal("a tool that requires confirmation ran before confirmation")
	}
	// The other call of the same turn did run.
	if out.Tools[1].ResultText() != "echo:x" || out.Tools[0].Result != nil {
		t.Fatalf("tools: %+v / %+v", out.Tools[0], out.Tools[1])
	}
	reqs := out.ActiveRequirements()
	if len(reqs) != 1 || reqs[0].PauseType() != run.PauseConfirmation || reqs[0].ToolExecution.ToolArgs["to"] != "alice@example.com" {
		t.Fatalf("requirements: %+v", reqs)
	}

	// A fresh agent value on the same store continues by run id.
	a2 := newAgent(t, cfg)
	if err := reqs[0].Confirm(); err != nil {
		t.Fatal(err)
	}
	done, err := a2.Continue(context.Background(), run.ContinueRequest{RunID: out.RunID, SessionID: "s1", Requirements: reqs})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != run.StatusCompleted || done.Content != "The email has been sent." || sent.Load() != 1 {
		t.Fatalf("status %s content %q sent %d", done.Status, done.Content, sent.Load())
	}
	last := fake.Requests()[len(fake.Requests())-1]
	msgs := toolMessages(last)
	if len(msgs) != 2 || msgs[1].Content != "sent to alice@example.com" {
		t.Fatalf("tool messages after continue: %+v", msgs)
	}
	// Continuing again is misuse with a typed error.
	_, err = a2.Continue(context.Background(), run.ContinueRequest{RunID: out.RunID})
	if !errors.Is(err, run.ErrNotPaused) {
		t.Fatalf("second continue: %v", err)
	}
}

func TestRejectWithNote(t *testing.T) {
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"bob"}`)), text("OK, not sent."))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{send}})
	out, _ := a.Run(context.Background(), "email bob")
	req := out.ActiveRequirements()[0]
	if err := req.Reject("wrong recipient"); err != nil {
		t.Fatal(err)
	}
	done, err := a.Continue(context.Background(), run.ContinueRequest{Output: out, Requirements: []*run.Requirement{req}})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 0 || done.Status != run.StatusCompleted {
		t.Fatalf("sent %d status %s", sent.Load(), done.Status)
	}
	msg := toolMessages(fake.Requests()[1])[0]
	if msg.Content != "wrong recipient" || !msg.ToolCallError {
		t.Fatalf("rejected tool message %+v", msg)
	}
	// Without a note agno's text is used.
	fake2 := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"bob"}`)), text("ok"))
	a = newAgent(t, agent.Config{Model: fake2, Tools: []tool.Provider{send}})
	out, _ = a.Run(context.Background(), "email bob")
	_ = out.ActiveRequirements()[0].Reject("")
	_, _ = a.Continue(context.Background(), run.ContinueRequest{Output: out, Requirements: out.Requirements})
	if got := toolMessages(fake2.Requests()[1])[0].Content; got != "Function call was rejected by the user" {
		t.Fatalf("got %q", got)
	}
}

func TestLegacyToolsContinue(t *testing.T) {
	// The AgentOS form sends back ToolExecution dicts with confirmed set.
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"eve"}`)), text("done"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{send}, Store: memory.New()})
	out, _ := a.Run(context.Background(), "go")
	var tools []*run.ToolExecution
	b, _ := json.Marshal(out.Tools)
	_ = json.Unmarshal(b, &tools)
	yes := true
	tools[0].Confirmed = &yes
	done, err := a.Continue(context.Background(), run.ContinueRequest{RunID: out.RunID, Tools: tools})
	if err != nil || done.Status != run.StatusCompleted || sent.Load() != 1 {
		t.Fatalf("err %v status %s sent %d", err, done.Status, sent.Load())
	}
}

func TestUnresolvedContinueKeepsRunPaused(t *testing.T) {
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	store := memory.New()
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"x"}`)))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{send}, Store: store})
	out, _ := a.Run(context.Background(), "go")
	_, err := a.Continue(context.Background(), run.ContinueRequest{RunID: out.RunID})
	if !errors.Is(err, run.ErrUnresolved) || !strings.Contains(err.Error(), "(confirmation)") {
		t.Fatalf("err %v", err)
	}
	rec, _ := store.GetRun(context.Background(), out.RunID)
	if rec.Status != run.StatusPaused {
		t.Fatalf("stored status %s", rec.Status)
	}
}

type createArgs struct {
	Title    string `json:"title"`
	Priority int    `json:"priority"`
}

func TestUserInputPause(t *testing.T) {
	var gotPriority atomic.Int64
	create := tool.Must(tool.New("create_ticket", "Create a ticket", func(_ context.Context, a createArgs) (string, error) {
		gotPriority.Store(int64(a.Priority))
		return "created " + a.Title, nil
	}, tool.RequiresUserInput("priority")))
	if strings.Contains(string(create.Parameters), "priority") {
		t.Fatalf("user-input field visible to the model: %s", create.Parameters)
	}
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "create_ticket", `{"title":"Bug"}`)), text("Ticket created."))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{create}})
	out, _ := a.Run(context.Background(), "file a bug")
	if out.Status != run.StatusPaused || out.Content != "I have tools to execute, but I need user input." {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	req := out.ActiveRequirements()[0]
	if req.PauseType() != run.PauseUserInput || len(req.UserInputSchema) != 2 {
		t.Fatalf("requirement %+v", req)
	}
	if err := req.ProvideUserInput(map[string]any{"priority": 2}); err != nil {
		t.Fatal(err)
	}
	done, err := a.Continue(context.Background(), run.ContinueRequest{Output: out, Requirements: []*run.Requirement{req}})
	if err != nil || done.Status != run.StatusCompleted || gotPriority.Load() != 2 {
		t.Fatalf("err %v status %s priority %d", err, done.Status, gotPriority.Load())
	}
}

func TestExternalExecutionPause(t *testing.T) {
	ext := tool.Must(tool.New("run_query", "Run SQL elsewhere", func(context.Context, echoArgs) (string, error) {
		return "", errors.New("must not run here")
	}, tool.ExternalExecution()))
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "run_query", `{"text":"select 1"}`)), text("The answer is 1."))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{ext}})
	out, _ := a.Run(context.Background(), "q")
	if out.Content != "I have tools to execute, but it needs external execution." {
		t.Fatalf("content %q", out.Content)
	}
	req := out.ActiveRequirements()[0]
	if err := req.SetExternalResult("1"); err != nil {
		t.Fatal(err)
	}
	done, _ := a.Continue(context.Background(), run.ContinueRequest{Output: out, Requirements: []*run.Requirement{req}})
	if done.Content != "The answer is 1." || toolMessages(fake.Requests()[1])[0].Content != "1" {
		t.Fatalf("content %q", done.Content)
	}
}

func TestPauseEventsAndRepause(t *testing.T) {
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	fake := modeltest.New(
		calls(modeltest.ToolCall("c1", "send_email", `{"to":"a"}`)),
		calls(modeltest.ToolCall("c2", "send_email", `{"to":"b"}`)),
		text("both sent"),
	)
	store := memory.New()
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{send}, Store: store})
	evs := collect(t, a.RunStream(context.Background(), "go", run.WithSessionID("s")))
	p, ok := evs[len(evs)-1].(*run.RunPaused)
	if !ok || len(p.Requirements) != 1 || len(p.Tools) != 1 || !p.Tools[0].RequiresConfirmation {
		t.Fatalf("events %s", kinds(evs))
	}
	_ = p.Requirements[0].Confirm()
	evs = collect(t, a.ContinueStream(context.Background(), run.ContinueRequest{RunID: p.RunID, Requirements: p.Requirements, StreamEvents: true}))
	if evs[0].Kind() != "RunContinued" || !strings.Contains(kinds(evs), "ToolCallStarted ToolCallCompleted") {
		t.Fatalf("continue events %s", kinds(evs))
	}
	p2, ok := evs[len(evs)-1].(*run.RunPaused)
	if !ok || len(p2.Requirements) != 1 || p2.Requirements[0].ToolExecution.ToolCallID != "c2" || sent.Load() != 1 {
		t.Fatalf("second pause: %s sent=%d", kinds(evs), sent.Load())
	}
	_ = p2.Requirements[0].Confirm()
	done, err := a.Continue(context.Background(), run.ContinueRequest{RunID: p.RunID, Requirements: p2.Requirements})
	if err != nil || done.Status != run.StatusCompleted || done.Content != "both sent" || sent.Load() != 2 {
		t.Fatalf("err %v status %s content %q sent %d", err, done.Status, done.Content, sent.Load())
	}
	// Requirements accumulate over the pauses, all resolved now.
	if len(done.Requirements) != 2 || len(done.ActiveRequirements()) != 0 {
		t.Fatalf("requirements %+v", done.Requirements)
	}
}

func TestConcurrentContinueRunsToolOnce(t *testing.T) {
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	store := memory.New()
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"x"}`)), text("done"))
	a := newAgent(t, agent.Config{Model: fake, Tools: []tool.Provider{send}, Store: store})
	out, _ := a.Run(context.Background(), "go")
	_ = out.ActiveRequirements()[0].Confirm()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := a.Continue(context.Background(), run.ContinueRequest{RunID: out.RunID, Requirements: out.Requirements})
			errs <- err
		}()
	}
	ok, notPaused := 0, 0
	for range 8 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, run.ErrNotPaused):
			notPaused++
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	if ok != 1 || notPaused != 7 || sent.Load() != 1 {
		t.Fatalf("ok %d notPaused %d sent %d", ok, notPaused, sent.Load())
	}
}

// A client acting on a terminal event (continuing on RunPaused, reading
// the session on RunCompleted) must find the run already stored.
func TestTerminalEventsArriveAfterTheRunIsStored(t *testing.T) {
	var sent atomic.Int32
	send, echo := hitlTools(t, &sent)
	store := memory.New()
	fake := modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"bob@example.com","subject":"hi"}`)), text("done"))
	a := newAgent(t, agent.Config{Name: "Mailer", Model: fake, Tools: []tool.Provider{send, echo}, Store: store})
	storedStatus := func(runID string) run.Status {
		r, err := store.GetRun(context.Background(), runID)
		if err != nil {
			t.Fatalf("run %s not stored when its terminal event arrived: %v", runID, err)
		}
		return r.Status
	}
	var runID string
	for ev, err := range a.RunStream(context.Background(), "email bob", run.WithSessionID("s1")) {
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := ev.(*run.RunPaused); ok {
			runID = p.RunID
			if got := storedStatus(runID); got != run.StatusPaused {
				t.Fatalf("stored status on RunPaused = %s, want PAUSED", got)
			}
		}
	}
	if runID == "" {
		t.Fatal("no RunPaused event")
	}
	stored, err := store.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	var paused run.Output
	if err := json.Unmarshal(stored.Data, &paused); err != nil {
		t.Fatal(err)
	}
	reqs := paused.ActiveRequirements()
	if len(reqs) != 1 || reqs[0].Confirm() != nil {
		t.Fatalf("stored requirements %+v", reqs)
	}
	completed := false
	for ev, err := range a.ContinueStream(context.Background(), run.ContinueRequest{RunID: runID, SessionID: "s1", Requirements: reqs, StreamEvents: true}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*run.RunCompleted); ok {
			completed = true
			if got := storedStatus(runID); got != run.StatusCompleted {
				t.Fatalf("stored status on RunCompleted = %s, want COMPLETED", got)
			}
		}
	}
	if !completed || sent.Load() != 1 {
		t.Fatalf("completed=%v sent=%d", completed, sent.Load())
	}
}
