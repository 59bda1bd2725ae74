package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/internal/testlog"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// signal.NotifyContext starts the runtime's signal loop once; it is
	// not ours to stop.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("os/signal.signal_recv"), goleak.IgnoreTopFunction("os/signal.loop"),
		// With a Cleanup goleak no longer exits by itself: pass its verdict on.
		goleak.Cleanup(func(code int) { removeBuiltAgno(); os.Exit(code) }))
}

// console is a real HITL server over a memory store with the workflows
// the tests answer.
type console struct {
	t      *testing.T
	socket string
	store  *memory.Store
	srv    *hitl.Server
}

func newConsole(t *testing.T, flows ...*workflow.Workflow) *console {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "hitlcli") // short: socket paths are limited to ~107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &console{t: t, socket: filepath.Join(dir, "hitl.sock")}
	srv, err := hitl.NewServer(hitl.Config{SocketPath: c.socket, Workflows: flows, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, w := range flows {
		w.SetNotifier(srv)
	}
	c.srv = srv
	return c
}

// agno runs the command line with args against the console's socket.
func (c *console) agno(args ...string) (stdout, stderr string, err error) {
	return c.agnoCtx(context.Background(), nil, args...)
}

func (c *console) agnoCtx(ctx context.Context, stdin io.Reader, args ...string) (string, string, error) {
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if stdin != nil {
		cmd.SetIn(stdin)
	}
	cmd.SetArgs(append([]string{"hitl", "--socket", c.socket}, args...))
	err := cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func newFlow(t *testing.T, cfg workflow.Config) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func confirmFlow(t *testing.T, store *memory.Store, processed *atomic.Int32) *workflow.Workflow {
	return newFlow(t, workflow.Config{Name: "workflow-hitl-step-confirmation", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "data"}, nil
		}},
		&workflow.Step{Name: "process_sensitive_data", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			processed.Add(1)
			return &workflow.StepOutput{Content: fmt.Sprintf("processed %v", in.PreviousStepContent)}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Process sensitive data now?"}},
	}})
}

func pause(t *testing.T, w *workflow.Workflow, runID string) {
	t.Helper()
	out, err := w.Run(context.Background(), "go", run.WithRunID(runID), run.WithSessionID("s-"+runID))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run %s: %v", runID, err)
	}
}

func storedRun(t *testing.T, w *workflow.Workflow, runID string) *workflow.RunOutput {
	t.Helper()
	out, err := w.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHITLApproveAndList(t *testing.T) {
	store := memory.New()
	var processed atomic.Int32
	w := confirmFlow(t, store, &processed)
	c := newConsole(t, w)
	pause(t, w, "r1")

	out, _, err := c.agno("list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var listed []map[string]any
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("list --json %q: %v", out, err)
	}
	if len(listed) != 1 || listed[0]["run_id"] != "r1" || listed[0]["workflow_id"] != w.ID() || listed[0]["paused_step_name"] != "process_sensitive_data" || listed[0]["pause_kind"] != "step" {
		t.Fatalf("listed %v", listed)
	}
	out, _, err = c.agno("list")
	if err != nil || !strings.Contains(out, "r1") || !strings.Contains(out, "Process sensitive data now?") || !strings.Contains(out, "confirmation") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, _, err = c.agno("show", "r1")
	if err != nil || !strings.Contains(out, "Step:       process_sensitive_data") || !strings.Contains(out, "agno hitl approve r1") {
		t.Fatalf("show: %v\n%s", err, out)
	}

	_, _, err = c.agno("approve", "r1", "--step", "fetch_data")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `does not wait at step "fetch_data" (it waits at "process_sensitive_data")`) {
		t.Fatalf("approve --step of another step: %v", err)
	}
	out, _, err = c.agno("approve", "r1", "--step", "process_sensitive_data")
	if err != nil {
		t.Fatalf("approve: %v (exit %d)", err, exitCode(err))
	}
	if !strings.Contains(out, "Run r1 continued") || !strings.Contains(out, "Run r1 COMPLETED: processed data") {
		t.Fatalf("approve output:\n%s", out)
	}
	if st := storedRun(t, w, "r1").Status; st != run.StatusCompleted || processed.Load() != 1 {
		t.Fatalf("stored %s processed %d", st, processed.Load())
	}
	out, _, err = c.agno("list", "--json")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list after: %v %q", err, out)
	}
	// Answering again: the run is no longer waiting.
	_, _, err = c.agno("approve", "r1")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "run r1 is not waiting for a human") {
		t.Fatalf("second approve: %v", err)
	}
}

func TestHITLRejectNote(t *testing.T) {
	store := memory.New()
	var processed atomic.Int32
	w := confirmFlow(t, store, &processed)
	c := newConsole(t, w)
	pause(t, w, "r1")
	out, _, err := c.agno("reject", "r1", "--note", "not today", "--json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"event":"continued"`) || !strings.Contains(lines[1], `"event":"run_finished"`) || !strings.Contains(lines[1], `"status":"COMPLETED"`) {
		t.Fatalf("reject --json:\n%s", out)
	}
	stored := storedRun(t, w, "r1")
	req := stored.StepRequirements[0]
	if processed.Load() != 0 || req.Confirmed == nil || *req.Confirmed || req.RejectionFeedback != "not today" {
		t.Fatalf("processed %d requirement %+v", processed.Load(), req)
	}
}

type payArgs struct {
	Amount int `json:"amount"`
}

// An agent's tool call paused inside a step: reject --note refuses it and
// the model sees the note.
func TestHITLRejectExecutorToolCall(t *testing.T) {
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":5}`)}},
		modeltest.Response{Content: "ok, not paying"},
	)
	cashier, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}})
	if err != nil {
		t.Fatal(err)
	}
	w := newFlow(t, workflow.Config{Name: "pay-flow", Store: memory.New(), Steps: []workflow.Node{&workflow.Step{Name: "pay", Agent: cashier}}})
	c := newConsole(t, w)
	pause(t, w, "r")
	out, _, err := c.agno("show", "r")
	if err != nil || !strings.Contains(out, `pay({"amount":5}) — waits for confirmation`) {
		t.Fatalf("show: %v\n%s", err, out)
	}
	out, _, err = c.agno("reject", "r", "--note", "budget frozen")
	if err != nil || !strings.Contains(out, "Run r COMPLETED: ok, not paying") {
		t.Fatalf("reject: %v\n%s", err, out)
	}
	last := m.Requests()[len(m.Requests())-1]
	var toolMsg string
	for _, msg := range last.Messages {
		if msg.Role == model.RoleTool {
			toolMsg = msg.Content
		}
	}
	if paid.Load() != 0 || toolMsg != "budget frozen" {
		t.Fatalf("paid %d, tool message %q", paid.Load(), toolMsg)
	}
}

func TestHITLInputSet(t *testing.T) {
	var gotMu sync.Mutex
	var got map[string]any
	w := newFlow(t, workflow.Config{Name: "ui", Store: memory.New(), Steps: []workflow.Node{
		&workflow.Step{Name: "Ask", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			gotMu.Lock()
			got = in.UserInput()
			gotMu.Unlock()
			return &workflow.StepOutput{Content: "thanks"}, nil
		}, HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputMessage: "Details?", UserInputSchema: []workflow.InputField{
			{Name: "tone", FieldType: "str", AllowedValues: []any{"formal", "casual"}},
			{Name: "age", FieldType: "int"},
			{Name: "subscribe", FieldType: "bool"},
			{Name: "tags", FieldType: "list"},
		}}},
	}})
	c := newConsole(t, w)
	pause(t, w, "r")

	// Usage: a --set without "=".
	_, _, err := c.agno("input", "r", "--set", "tone")
	if exitCode(err) != 2 {
		t.Fatalf("bad --set: %v (exit %d)", err, exitCode(err))
	}
	// Typed by the schema; the error names the field.
	_, _, err = c.agno("input", "r", "--set", "tone=formal", "--set", "age=thirty", "--set", "subscribe=yes", "--set", "tags=a")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `field "age" expects an int, got "thirty"`) {
		t.Fatalf("bad age: %v", err)
	}
	// The workflow's own validator: allowed values, required fields.
	_, _, err = c.agno("input", "r", "--set", "tone=rude", "--set", "age=30", "--set", "subscribe=yes", "--set", "tags=a")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "Field 'tone' must be one of ['formal', 'casual']") {
		t.Fatalf("bad tone: %v", err)
	}
	_, _, err = c.agno("input", "r", "--set", "tone=formal")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "Field 'age' is required") {
		t.Fatalf("missing age: %v", err)
	}
	if st := storedRun(t, w, "r").Status; st != run.StatusPaused {
		t.Fatalf("status after refusals %s", st)
	}
	out, _, err := c.agno("input", "r", "--set", "tone=formal", "--set", "age=30", "--set", "subscribe=yes", "--set", "tags=a,b")
	if err != nil || !strings.Contains(out, "Run r COMPLETED: thanks") {
		t.Fatalf("input: %v\n%s", err, out)
	}
	gotMu.Lock()
	b, _ := json.Marshal(got)
	gotMu.Unlock()
	if string(b) != `{"age":30,"subscribe":true,"tags":["a","b"],"tone":"formal"}` {
		t.Fatalf("step got %s", b)
	}
}

func TestHITLSelect(t *testing.T) {
	route := func(name string) *workflow.Step {
		return &workflow.Step{Name: name, Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "took " + name}, nil
		}}
	}
	w := newFlow(t, workflow.Config{Name: "route", Store: memory.New(), Steps: []workflow.Node{
		&workflow.Router{Name: "pick", Choices: []workflow.Node{route("route_a"), route("route_b")},
			HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputMessage: "Which route?"}},
	}})
	c := newConsole(t, w)
	pause(t, w, "r")
	_, _, err := c.agno("approve", "r")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "waits for a route choice (choices: route_a, route_b)") {
		t.Fatalf("approve a router: %v", err)
	}
	_, _, err = c.agno("select", "r", "route_c")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `"route_c" is not a route`) {
		t.Fatalf("unknown route: %v", err)
	}
	out, _, err := c.agno("select", "r", "route_b")
	if err != nil || !strings.Contains(out, "Run r COMPLETED: took route_b") {
		t.Fatalf("select: %v\n%s", err, out)
	}
}

func TestHITLUsageAndErrors(t *testing.T) {
	w := confirmFlow(t, memory.New(), new(atomic.Int32))
	c := newConsole(t, w)
	for _, args := range [][]string{{"approve"}, {"bogus"}, {"list", "extra"}, {"--nope"}, {"select", "r"}} {
		_, _, err := c.agno(args...)
		if exitCode(err) != 2 {
			t.Fatalf("%v: %v (exit %d)", args, err, exitCode(err))
		}
	}
	_, _, err := c.agno("approve", "missing")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "run missing is not waiting for a human") {
		t.Fatalf("unknown run: %v", err)
	}
	cmd := newRootCmd()
	cmd.SetOut(io.Discard)
	cmd.SetArgs([]string{"hitl", "--socket", filepath.Join(filepath.Dir(c.socket), "none.sock"), "list"})
	err = cmd.Execute()
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "is the workflow process running") {
		t.Fatalf("no server: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHITLWatch(t *testing.T) {
	store := memory.New()
	w := confirmFlow(t, store, new(atomic.Int32))
	c := newConsole(t, w)
	pause(t, w, "before")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out testlog.Buffer
	cmd := newRootCmd()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"hitl", "--socket", c.socket, "watch", "--json"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	waitFor(t, func() bool { return strings.Contains(out.String(), `"run_id":"before"`) })
	pause(t, w, "after")
	waitFor(t, func() bool { return strings.Contains(out.String(), `"run_id":"after"`) })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["event"] != "waiting_for_human" {
			t.Fatalf("watch line %q: %v", line, err)
		}
	}
}

func TestHITLInteractive(t *testing.T) {
	orig := isTerminal
	isTerminal = func(io.Reader) bool { return true }
	defer func() { isTerminal = orig }()
	var processed atomic.Int32
	w := confirmFlow(t, memory.New(), &processed)
	c := newConsole(t, w)
	pause(t, w, "r1")
	pause(t, w, "r2")
	// Approve the first, reject the second with a note, then end of input.
	out, _, err := c.agnoCtx(context.Background(), strings.NewReader("a\nr\nno thanks\n"))
	if err != nil {
		t.Fatalf("interactive: %v\n%s", err, out)
	}
	if !strings.Contains(out, "2 run(s) waiting") || !strings.Contains(out, "Run r1 COMPLETED") || !strings.Contains(out, "Run r2 COMPLETED") {
		t.Fatalf("interactive output:\n%s", out)
	}
	r2 := storedRun(t, w, "r2").StepRequirements[0]
	if processed.Load() != 1 || r2.RejectionFeedback != "no thanks" {
		t.Fatalf("processed %d r2 %+v", processed.Load(), r2)
	}
}

// Without --socket, agno hitl takes the socket from the config the
// server was started with, as agno agentos start resolves it.
func TestHITLSocketFromConfig(t *testing.T) {
	store := memory.New()
	var processed atomic.Int32
	w := confirmFlow(t, store, &processed)
	c := newConsole(t, w)
	pause(t, w, "r1")
	cfgPath := filepath.Join(filepath.Dir(c.socket), "config.toml")
	if err := os.WriteFile(cfgPath, []byte("[workflows.hitl]\nsocket_path = \"hitl.sock\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGNO_HITL_SOCKET", "")
	run := func(args ...string) (string, error) {
		cmd := newRootCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("hitl", "--config", cfgPath, "list", "--json")
	if err != nil || !strings.Contains(out, `"run_id":"r1"`) {
		t.Fatalf("hitl --config: %v %s", err, out)
	}
	// --socket still wins; a --config that is not there is a usage error.
	if _, err := run("hitl", "--config", cfgPath, "--socket", filepath.Join(filepath.Dir(c.socket), "none.sock"), "list"); err == nil {
		t.Error("--socket did not win over --config")
	}
	if _, err := run("hitl", "--config", filepath.Join(t.TempDir(), "nope.toml"), "list"); exitCode(err) != 2 {
		t.Errorf("a missing --config: %v (exit %d)", err, exitCode(err))
	}
}
