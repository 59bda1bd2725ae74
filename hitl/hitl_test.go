package hitl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// sockDir returns a short directory: Unix socket paths are limited to
// ~107 bytes and t.TempDir() paths can be longer.
func sockDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "hitl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func step(content string, count *atomic.Int32) workflow.StepFunc {
	return func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
		if count != nil {
			count.Add(1)
		}
		return &workflow.StepOutput{Content: content + "(" + fmt.Sprint(in.PreviousStepContent) + ")"}, nil
	}
}

// confirmFlow is agno's step_confirmation cookbook: fetch, then a step a
// human must confirm.
func confirmFlow(t *testing.T, store storage.Store, processed *atomic.Int32) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(workflow.Config{Name: "workflow-hitl-step-confirmation", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: step("data", nil)},
		&workflow.Step{Name: "process_sensitive_data", Func: step("processed", processed),
			HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Process sensitive data now?"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func startServer(t *testing.T, cfg hitl.Config) *hitl.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	s, err := hitl.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func dial(t *testing.T, path string) *hitl.Client {
	t.Helper()
	c, err := hitl.Dial(ctxT(t), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// nextPause skips announcements until a waiting_for_human.
func nextPause(t *testing.T, c *hitl.Client) *hitl.Pause {
	t.Helper()
	for {
		a, err := c.Next(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if a.Pause != nil {
			return a.Pause
		}
	}
}

func storedStatus(t *testing.T, store storage.Store, runID string) run.Status {
	t.Helper()
	rec, err := store.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Status
}

// The users' check (seed scenario 2) from the library: a confirmation
// step pauses, the socket announces it, a client confirms, the workflow
// completes.
func TestConfirmationOverSocket(t *testing.T) {
	store := memory.New()
	var processed atomic.Int32
	w := confirmFlow(t, store, &processed)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)

	c := dial(t, path)
	if len(c.Initial()) != 0 {
		t.Fatalf("pending before any run: %d", len(c.Initial()))
	}
	out, err := w.Run(context.Background(), "Q3 users", run.WithSessionID("s1"), run.WithRunID("r1"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run: %v status %s", err, out.Status)
	}
	p := nextPause(t, c)
	if p.RunID != "r1" || p.WorkflowID != w.ID() || p.SessionID != "s1" || p.PausedStepName != "process_sensitive_data" || p.PauseKind != "step" {
		t.Fatalf("announcement %+v", p)
	}
	req := p.StepRequirements[len(p.StepRequirements)-1]
	if !req.RequiresConfirmation || req.ConfirmationMessage != "Process sensitive data now?" || req.Confirmed != nil || req.StepID != w.StepID(w.Config().Steps[1]) {
		t.Fatalf("requirement %+v", req)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctxT(t), "r1")
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != run.StatusCompleted || f.Content != "processed(data(<nil>))" || processed.Load() != 1 {
		t.Fatalf("finished %+v processed %d", f, processed.Load())
	}
	if st := storedStatus(t, store, "r1"); st != run.StatusCompleted {
		t.Fatalf("stored status %s", st)
	}
	if left, err := c.Pending(ctxT(t)); err != nil || len(left) != 0 {
		t.Fatalf("pending after completion: %v %v", left, err)
	}
}

type payArgs struct {
	Amount int `json:"amount"`
}

// An agent inside a step calls a tool that needs confirmation: the
// workflow pauses with pause_kind executor; approve confirms every tool
// call.
// payFlow is a workflow whose one step runs an agent that pays 5 with a
// tool needing confirmation; paid counts what was paid.
func payFlow(t *testing.T, store storage.Store) (w *workflow.Workflow, paid *atomic.Int32) {
	t.Helper()
	paid = &atomic.Int32{}
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":5}`)}},
		modeltest.Response{Content: "paid 5 as asked"},
	)
	cashier, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}})
	if err != nil {
		t.Fatal(err)
	}
	w, err = workflow.New(workflow.Config{Name: "pay-flow", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "pay", Agent: cashier},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w, paid
}

func TestAgentStepConfirmationOverSocket(t *testing.T) {
	store := memory.New()
	w, paid := payFlow(t, store)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	c := dial(t, path)

	out, err := w.Run(context.Background(), "pay 5", run.WithRunID("r"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run: %v %s", err, out.Status)
	}
	p := nextPause(t, c)
	req := p.StepRequirements[len(p.StepRequirements)-1]
	if p.PauseKind != "executor" || !req.RequiresExecutorInput || len(req.ExecutorRequirements) != 1 || req.ExecutorRequirements[0].ToolExecution.ToolName != "pay" {
		t.Fatalf("pause %s requirement %+v", p.PauseKind, req)
	}
	if _, err := p.Input("", map[string]string{"x": "1"}); !errors.Is(err, hitl.ErrWrongAnswer) {
		t.Fatalf("input on a confirmation: %v", err)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if c := answers[0].ExecutorRequirements[0].Confirmation; c == nil || !*c {
		t.Fatalf("confirmation not set: %+v", answers[0].ExecutorRequirements[0])
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctxT(t), "r")
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != run.StatusCompleted || f.Content != "paid 5 as asked" || paid.Load() != 5 {
		t.Fatalf("finished %+v paid %d", f, paid.Load())
	}
	if st := storedStatus(t, store, "r"); st != run.StatusCompleted {
		t.Fatalf("stored status %s", st)
	}
}

// After a restart (new Workflow and Server values over the same SQLite
// file) the paused run is listed from storage and continues.
func TestRestartListsPendingFromStorage(t *testing.T) {
	dir := sockDir(t)
	dbPath := filepath.Join(dir, "agno.db")
	path := filepath.Join(dir, "hitl.sock")
	ctx := ctxT(t)

	func() { // the first process
		store, err := sqlite.Open(ctx, sqlite.Config{Path: dbPath})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		w := confirmFlow(t, store, nil)
		srv, err := hitl.NewServer(hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(ctx); err != nil {
			t.Fatal(err)
		}
		w.SetNotifier(srv)
		if out, err := w.Run(ctx, "Q3 users", run.WithSessionID("s1"), run.WithRunID("r1")); err != nil || out.Status != run.StatusPaused {
			t.Fatalf("run: %v", err)
		}
		if len(srv.Pending()) != 1 {
			t.Fatalf("pending %d", len(srv.Pending()))
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("socket file left after Close: %v", err)
		}
	}()

	store, err := sqlite.Open(ctx, sqlite.Config{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var processed atomic.Int32
	w := confirmFlow(t, store, &processed)
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Store: store})
	w.SetNotifier(srv)
	c := dial(t, path)
	if len(c.Initial()) != 1 || c.Initial()[0].RunID != "r1" || c.Initial()[0].PausedStepName != "process_sensitive_data" {
		t.Fatalf("pending after restart: %+v", c.Initial())
	}
	answers, err := c.Initial()[0].Approve("process_sensitive_data")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctx, c.Initial()[0], answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctx, "r1")
	if err != nil || f.Status != run.StatusCompleted || f.Content != "processed(data(<nil>))" || processed.Load() != 1 {
		t.Fatalf("finished %+v %v", f, err)
	}
	if st := storedStatus(t, store, "r1"); st != run.StatusCompleted {
		t.Fatalf("stored status %s", st)
	}
}

func TestSocketFileSafety(t *testing.T) {
	dir := sockDir(t)
	w := confirmFlow(t, memory.New(), nil)

	t.Run("mode 0600", func(t *testing.T) {
		path := filepath.Join(dir, "mode.sock")
		startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", fi.Mode())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".hitl*")); len(left) != 0 {
			t.Fatalf("temporary files left: %v", left)
		}
	})

	t.Run("stale socket replaced", func(t *testing.T) {
		path := filepath.Join(dir, "stale.sock")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close() // a dead server's file: nothing answers
		if _, err := os.Lstat(path); err != nil {
			t.Fatal("stale file missing")
		}
		startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
		dial(t, path) // the new server answers there
	})

	t.Run("live socket not stolen", func(t *testing.T) {
		path := filepath.Join(dir, "live.sock")
		startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
		second, err := hitl.NewServer(hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		err = second.Start(ctxT(t))
		if !errors.Is(err, hitl.ErrSocketInUse) || !strings.Contains(err.Error(), "another process is serving") {
			t.Fatalf("second server: %v", err)
		}
		if err := second.Close(); err != nil {
			t.Fatal(err)
		}
		dial(t, path) // the first one still serves
	})

	t.Run("not a socket", func(t *testing.T) {
		path := filepath.Join(dir, "file.sock")
		if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := hitl.NewServer(hitl.Config{SocketPath: path, Logger: quiet})
		if err := s.Start(ctxT(t)); !errors.Is(err, hitl.ErrSocketPath) || !strings.Contains(err.Error(), "not a socket") {
			t.Fatalf("start over a file: %v", err)
		}
		s.Close()
		if b, _ := os.ReadFile(path); string(b) != "keep me" {
			t.Fatal("the file was touched")
		}
	})

	t.Run("path too long", func(t *testing.T) {
		_, err := hitl.NewServer(hitl.Config{SocketPath: "/tmp/" + strings.Repeat("x", 120)})
		if !errors.Is(err, hitl.ErrSocketPath) {
			t.Fatalf("long path: %v", err)
		}
	})
}

// gatedFlow pauses before a step that blocks until release is closed.
func gatedFlow(t *testing.T, store storage.Store, release chan struct{}) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(workflow.Config{Name: "gated", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "gate", Func: func(ctx context.Context, _ *workflow.StepInput) (*workflow.StepOutput, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &workflow.StepOutput{Content: "through"}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
		&workflow.Step{Name: "second_look", Func: step("looked", nil), HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Two clients answer the same pause: exactly one continues, the other is
// told the run is not paused.
func TestTwoClientsRace(t *testing.T) {
	store := memory.New()
	release := make(chan struct{})
	w := gatedFlow(t, store, release)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	if _, err := w.Run(context.Background(), "go", run.WithRunID("r")); err != nil {
		t.Fatal(err)
	}
	a, b := dial(t, path), dial(t, path)
	p := a.Initial()[0]
	answers, _ := p.Approve("")
	errs := make(chan error, 2)
	var start sync.WaitGroup
	start.Add(1)
	for _, c := range []*hitl.Client{a, b} {
		go func() {
			start.Wait()
			errs <- c.Answer(ctxT(t), p, answers)
		}()
	}
	start.Done()
	first, second := <-errs, <-errs
	close(release)
	wins, losses := 0, 0
	for _, err := range []error{first, second} {
		var se *hitl.ServerError
		switch {
		case err == nil:
			wins++
		case errors.As(err, &se) && se.Message == "Run is not paused (status=RUNNING)":
			losses++
		default:
			t.Fatalf("unexpected answer %v", err)
		}
	}
	if wins != 1 || losses != 1 {
		t.Fatalf("wins %d losses %d", wins, losses)
	}
	f, err := a.Wait(ctxT(t), "r")
	if err != nil || f.Status != run.StatusPaused { // the second step asks again
		t.Fatalf("finished %+v %v", f, err)
	}
}

// rawConn speaks the protocol by hand.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func rawDial(t *testing.T, path string) *rawConn {
	t.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReaderSize(nc, 1<<16)}
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := r.nc.Write([]byte(line + "\n")); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawConn) recv() map[string]any {
	r.t.Helper()
	_ = r.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := r.br.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		r.t.Fatalf("line %q: %v", line, err)
	}
	return m
}

// greeting reads the pending listing sent on connect.
func (r *rawConn) greeting() []map[string]any {
	r.t.Helper()
	var pauses []map[string]any
	for {
		m := r.recv()
		if m["event"] == "pending" {
			if int(m["count"].(float64)) != len(pauses) {
				r.t.Fatalf("count %v for %d pauses", m["count"], len(pauses))
			}
			return pauses
		}
		if m["event"] != "waiting_for_human" {
			r.t.Fatalf("greeting line %v", m)
		}
		pauses = append(pauses, m)
	}
}

func (r *rawConn) expectError(line, want string) {
	r.t.Helper()
	r.send(line)
	m := r.recv()
	if m["event"] != "error" || m["error"] != want {
		r.t.Fatalf("%s → %v, want error %q", line, m, want)
	}
}

func TestProtocol(t *testing.T) {
	store := memory.New()
	w := confirmFlow(t, store, nil)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	if _, err := w.Run(context.Background(), "x", run.WithSessionID("s1"), run.WithRunID("r1")); err != nil {
		t.Fatal(err)
	}
	done, _ := w.Run(context.Background(), "y", run.WithRunID("r2"))
	done.ActiveRequirement().Confirm()
	if _, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r2", StepRequirements: done.StepRequirements}); err != nil {
		t.Fatal(err)
	}

	r := rawDial(t, path)
	g := r.greeting()
	if len(g) != 1 || g[0]["run_id"] != "r1" || g[0]["workflow_id"] != w.ID() || g[0]["session_id"] != "s1" || g[0]["paused_step_name"] != "process_sensitive_data" || g[0]["pause_kind"] != "step" {
		t.Fatalf("greeting %v", g)
	}
	if reqs, ok := g[0]["step_requirements"].([]any); !ok || len(reqs) != 1 {
		t.Fatalf("step_requirements %v", g[0]["step_requirements"])
	}
	r.send(`{"action":"ping"}`)
	if m := r.recv(); m["event"] != "pong" {
		t.Fatalf("ping → %v", m)
	}
	r.send(`{"action":"list"}`)
	if len(r.greeting()) != 1 {
		t.Fatal("list")
	}
	r.expectError(`{"action":"dance"}`, "Unknown action: dance")
	r.expectError(`{"run_id":"r1"}`, "Unknown action: None")
	r.expectError(`{"action":"continue-workflow"}`, "workflow_id is required")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`"}`, "run_id is required")
	r.expectError(`{"action":"continue-workflow","workflow_id":"nope","run_id":"r1"}`, "Workflow nope not found")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`","run_id":"zzz"}`, "Run zzz not found")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`","run_id":"r1","session_id":"other"}`, "Run r1 not found")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`","run_id":"r2"}`, "Run is not paused (status=COMPLETED)")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`","run_id":"r1","step_requirements":{"a":1}}`,
		"Invalid step_requirements: json: cannot unmarshal object into Go value of type []*workflow.StepRequirement")
	r.expectError(`{"action":"continue-workflow","workflow_id":"`+w.ID()+`","run_id":"r1","step_requirements":[{"confirmed":true}]}`,
		"Invalid step_requirements: step_requirements[0] has no step_id; copy it from the paused run")
	// No answer for the step: refused, and the run stays paused.
	stepID := w.StepID(w.Config().Steps[1])
	r.send(`{"action":"continue-workflow","workflow_id":"` + w.ID() + `","run_id":"r1","step_requirements":[{"step_id":"` + stepID + `"}]}`)
	if m := r.recv(); m["event"] != "error" || !strings.HasPrefix(m["error"].(string), "Invalid step_requirements: ") || !strings.Contains(m["error"].(string), "waits for confirmation") {
		t.Fatalf("unanswered → %v", m)
	}
	if st := storedStatus(t, store, "r1"); st != run.StatusPaused {
		t.Fatalf("refused continue left status %s", st)
	}

	// Malformed lines get an error naming the problem; the connection
	// stays open.
	r.send(`{"action":`)
	if m := r.recv(); m["event"] != "error" || !strings.HasPrefix(m["error"].(string), "Invalid JSON: ") {
		t.Fatalf("malformed → %v", m)
	}
	r.expectError(`[1,2]`, `Invalid message: expected a JSON object such as {"action":"ping"}`)
	r.expectError(`{"action":7}`, `Invalid message: field "action" must be a string, not a JSON number`)
	r.send(`{"action":"ping"}`)
	if m := r.recv(); m["event"] != "pong" {
		t.Fatalf("after errors → %v", m)
	}

	// The real answer: continued, then run_finished.
	r.send(`{"action":"continue-workflow","workflow_id":"` + w.ID() + `","run_id":"r1","session_id":"s1","step_requirements":[{"step_id":"` + stepID + `","confirmed":true}]}`)
	if m := r.recv(); m["event"] != "continued" || m["run_id"] != "r1" {
		t.Fatalf("continue → %v", m)
	}
	if m := r.recv(); m["event"] != "run_finished" || m["run_id"] != "r1" || m["status"] != "COMPLETED" || m["content"] != "processed(data(<nil>))" {
		t.Fatalf("finish → %v", m)
	}

	// A line over 1 MiB: error, then the server closes the connection.
	big := `{"action":"ping","pad":"` + strings.Repeat("x", hitl.MaxLineBytes) + `"}`
	go func() { _, _ = r.nc.Write([]byte(big + "\n")) }()
	if m := r.recv(); m["event"] != "error" || !strings.Contains(m["error"].(string), "too long") {
		t.Fatalf("long line → %v", m)
	}
	_ = r.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.br.ReadByte(); err == nil {
		t.Fatal("connection still open after a too long line")
	}
}

// A8 case 2 over the socket: user input that does not match the schema is
// refused with agno's text.
func TestUserInputValidationOverSocket(t *testing.T) {
	store := memory.New()
	var got map[string]any
	w, err := workflow.New(workflow.Config{Name: "ui", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "Ask", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			got = in.UserInput()
			return &workflow.StepOutput{Content: fmt.Sprintf("%v/%v", got["tone"], got["age"])}, nil
		}, HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputMessage: "Details?",
			UserInputSchema: []workflow.InputField{{Name: "tone", FieldType: "str"}, {Name: "age", FieldType: "int"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	if _, err := w.Run(context.Background(), "go", run.WithRunID("r")); err != nil {
		t.Fatal(err)
	}
	stepID := w.StepID(w.Config().Steps[0])
	r := rawDial(t, path)
	r.greeting()
	const want = "Invalid step_requirements: Invalid user_input for step 'Ask': User input validation failed:\n  - Field 'age' expected int, got str"
	// With the schema echoed back (agno's from_dict check)…
	r.expectError(`{"action":"continue-workflow","workflow_id":"ui","run_id":"r","step_requirements":[{"step_id":"`+stepID+`","step_name":"Ask","user_input_schema":[{"name":"tone","field_type":"str"},{"name":"age","field_type":"int"}],"user_input":{"tone":"formal","age":"x"}}]}`, want)
	// …and without it (checked against the stored schema).
	r.expectError(`{"action":"continue-workflow","workflow_id":"ui","run_id":"r","step_requirements":[{"step_id":"`+stepID+`","user_input":{"tone":"formal","age":"x"}}]}`, want)
	if st := storedStatus(t, store, "r"); st != run.StatusPaused {
		t.Fatalf("status after refusals %s", st)
	}

	c := dial(t, path)
	p := c.Initial()[0]
	if _, err := p.Input("", map[string]string{"tone": "formal", "age": "x"}); err == nil || !strings.Contains(err.Error(), `field "age" expects an int`) {
		t.Fatalf("typed input: %v", err)
	}
	if _, err := p.Input("", map[string]string{"tone": "formal"}); err == nil || !strings.Contains(err.Error(), "Field 'age' is required") {
		t.Fatalf("missing field: %v", err)
	}
	if _, err := p.Input("", map[string]string{"mood": "x"}); err == nil || !strings.Contains(err.Error(), `no field "mood"`) {
		t.Fatalf("unknown field: %v", err)
	}
	if _, err := p.Approve(""); !errors.Is(err, hitl.ErrWrongAnswer) {
		t.Fatalf("approve on user input: %v", err)
	}
	answers, err := p.Input("", map[string]string{"tone": "formal", "age": "30"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	if f, err := c.Wait(ctxT(t), "r"); err != nil || f.Status != run.StatusCompleted || f.Content != "formal/30" {
		t.Fatalf("finished %+v %v", f, err)
	}
}

// A client that disconnects right after continuing does not affect the
// run (agno #8910): it completes its step, pauses again, and another
// client continues it.
func TestClientDisconnectMidRun(t *testing.T) {
	store := memory.New()
	release := make(chan struct{})
	w := gatedFlow(t, store, release)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	if _, err := w.Run(context.Background(), "go", run.WithRunID("r")); err != nil {
		t.Fatal(err)
	}
	watcher := dial(t, path)
	a, err := hitl.Dial(ctxT(t), path)
	if err != nil {
		t.Fatal(err)
	}
	p := a.Initial()[0]
	answers, _ := p.Approve("")
	if err := a.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	a.Close() // gone while the step runs
	if st := storedStatus(t, store, "r"); st != run.StatusRunning {
		t.Fatalf("status while the step runs %s", st)
	}
	close(release)
	f, err := watcher.Wait(ctxT(t), "r")
	if err != nil || f.Status != run.StatusPaused {
		t.Fatalf("finished %+v %v", f, err)
	}
	b := dial(t, path)
	again, err := b.Find(ctxT(t), "r")
	if err != nil || again == nil || again.PausedStepName != "second_look" {
		t.Fatalf("re-pause %+v %v", again, err)
	}
	answers, _ = again.Approve("second_look")
	if err := b.Answer(ctxT(t), again, answers); err != nil {
		t.Fatal(err)
	}
	if f, err := b.Wait(ctxT(t), "r"); err != nil || f.Status != run.StatusCompleted || f.Content != "looked(through)" {
		t.Fatalf("finished %+v %v", f, err)
	}
}

// Without SetNotifier the server still lists stored pauses, and announces
// a re-pause of a run it continued.
func TestRePauseAnnouncedWithoutNotifier(t *testing.T) {
	store := memory.New()
	release := make(chan struct{})
	close(release)
	w := gatedFlow(t, store, release)
	if _, err := w.Run(context.Background(), "go", run.WithRunID("r")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	c := dial(t, path)
	if len(c.Initial()) != 1 {
		t.Fatalf("initial %d", len(c.Initial()))
	}
	answers, _ := c.Initial()[0].Approve("")
	if err := c.Answer(ctxT(t), c.Initial()[0], answers); err != nil {
		t.Fatal(err)
	}
	p := nextPause(t, c)
	if p.RunID != "r" || p.PausedStepName != "second_look" {
		t.Fatalf("re-pause %+v", p)
	}
	if f, err := c.Wait(ctxT(t), "r"); err != nil || f.Status != run.StatusPaused {
		t.Fatalf("finished %+v %v", f, err)
	}
}

// A workflow without a store continues from the announced run; a second
// answer is refused.
func TestStorelessWorkflow(t *testing.T) {
	w := confirmFlow(t, nil, nil)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	out, err := w.Run(context.Background(), "x", run.WithRunID("r"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatal(err)
	}
	out.ActiveRequirement().Confirm() // the caller's copy: the announcement must not change
	c := dial(t, path)
	p := c.Initial()[0]
	if p.StepRequirements[0].Confirmed != nil {
		t.Fatal("the announcement shares the caller's requirement")
	}
	answers, _ := p.Approve("")
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	if f, err := c.Wait(ctxT(t), "r"); err != nil || f.Status != run.StatusCompleted {
		t.Fatalf("finished %+v %v", f, err)
	}
	var se *hitl.ServerError
	if err := c.Answer(ctxT(t), p, answers); !errors.As(err, &se) || se.Message != "Run is not paused (status=COMPLETED)" {
		t.Fatalf("second answer: %v", err)
	}
}

// Close cancels a continuation still running, which is stored so.
func TestCloseCancelsRunningContinuation(t *testing.T) {
	store := memory.New()
	w := gatedFlow(t, store, make(chan struct{}))
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv, err := hitl.NewServer(hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(context.Background(), "go", run.WithRunID("r")); err != nil {
		t.Fatal(err)
	}
	c, err := hitl.Dial(ctxT(t), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answers, _ := c.Initial()[0].Approve("")
	if err := c.Answer(ctxT(t), c.Initial()[0], answers); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if st := storedStatus(t, store, "r"); st != run.StatusCancelled {
		t.Fatalf("status after Close %s", st)
	}
	if _, err := c.Next(ctxT(t)); !errors.Is(err, hitl.ErrClosed) {
		// the run_finished line may have made it first
		if _, err := c.Next(ctxT(t)); !errors.Is(err, hitl.ErrClosed) {
			t.Fatalf("client after server Close: %v", err)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		ft, raw string
		want    string
	}{
		{"str", " a b ", `" a b "`},
		{"int", "42", `42`},
		{"float", "1.5", `1.5`},
		{"bool", "yes", `true`},
		{"list", "a, b", `["a","b"]`},
		{"list", `[1,"x"]`, `[1,"x"]`},
		{"dict", `{"k":1}`, `{"k":1}`},
	} {
		v, err := hitl.ParseValue("f", tc.ft, tc.raw)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.ft, tc.raw, err)
		}
		b, _ := json.Marshal(v)
		if string(b) != tc.want {
			t.Fatalf("%s %q → %s, want %s", tc.ft, tc.raw, b, tc.want)
		}
	}
	for _, tc := range [][2]string{{"int", "1.5"}, {"float", "x"}, {"bool", "maybe"}, {"dict", "[1]"}, {"list", "[1"}} {
		if _, err := hitl.ParseValue("f", tc[0], tc[1]); err == nil || !strings.Contains(err.Error(), `field "f"`) {
			t.Fatalf("%v: %v", tc, err)
		}
	}
}

// Answers that do not fit the pause — null executor answers (which once
// killed the process), unknown step ids, two different answers — get an
// error line naming the field; the run stays paused and continues when
// answered right.
func TestMalformedAnswersLeaveTheRunPaused(t *testing.T) {
	store := memory.New()
	w, paid := payFlow(t, store)
	path := filepath.Join(sockDir(t), "hitl.sock")
	srv := startServer(t, hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}})
	w.SetNotifier(srv)
	out, err := w.Run(context.Background(), "pay 5", run.WithRunID("r"), run.WithSessionID("s"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run: %v %s", err, out.Status)
	}
	stepID := out.ActiveRequirement().StepID
	reqID := out.ActiveRequirement().ExecutorRequirements[0].ID
	rc := rawDial(t, path)
	rc.greeting()
	msg := func(reqs string) string {
		return `{"action":"continue-workflow","workflow_id":"pay-flow","run_id":"r","session_id":"s","step_requirements":` + reqs + `}`
	}
	for _, tc := range []struct{ reqs, want string }{
		{`[{"step_id":"` + stepID + `","executor_requirements":[null]}]`,
			"Invalid step_requirements: step_requirements[0].executor_requirements[0] is null: send the executor requirements of the paused step, answered"},
		{`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"nope","confirmation":true}]}]`,
			`Invalid step_requirements: step_requirements[0].executor_requirements[0].id "nope" is not a requirement of step "pay"`},
		{`[{"step_id":"elsewhere","confirmed":true}]`,
			`Invalid step_requirements: step_requirements[0].step_id "elsewhere" is not a step run r waited at; it waits at step "pay" (step_id ` + stepID + `)`},
		{`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]},{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":false}]}]`,
			`Invalid step_requirements: step_requirements[1] answers step "pay" (step_id ` + stepID + `) differently from step_requirements[0]: send one answer per step`},
		{`[null]`, "Invalid step_requirements: step_requirements[0] is null; send the step requirements of the paused run, answered"},
	} {
		rc.expectError(msg(tc.reqs), tc.want)
		if st := storedStatus(t, store, "r"); st != run.StatusPaused {
			t.Fatalf("after %s the run is %s, want PAUSED", tc.reqs, st)
		}
	}
	rc.send(msg(`[{"step_id":"` + stepID + `","executor_requirements":[{"id":"` + reqID + `","confirmation":true}]}]`))
	for {
		m := rc.recv()
		if m["event"] == "error" {
			t.Fatalf("valid answer: %v", m)
		}
		if m["event"] == "run_finished" {
			if m["status"] != "COMPLETED" || paid.Load() != 5 {
				t.Fatalf("finished %v paid %d", m, paid.Load())
			}
			break
		}
	}
}
