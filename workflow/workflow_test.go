package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fn(content string, count *atomic.Int32) workflow.StepFunc {
	return func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
		if count != nil {
			count.Add(1)
		}
		return &workflow.StepOutput{Content: content + "(" + fmt.Sprint(in.PreviousStepContent) + ")"}, nil
	}
}

func newWF(t *testing.T, cfg workflow.Config) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func collect(t *testing.T, seq func(func(run.Event, error) bool)) []run.Event {
	t.Helper()
	var evs []run.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func kinds(evs []run.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Kind())
	}
	return strings.Join(ks, " ")
}

func echoAgent(t *testing.T, name string) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{Name: name, Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: name + " saw: " + req.Messages[len(req.Messages)-1].Content}
	})})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSequentialStepsAndEvents(t *testing.T) {
	writer := echoAgent(t, "Writer")
	w := newWF(t, workflow.Config{Name: "Blog Flow", Steps: []workflow.Node{
		&workflow.Step{Name: "research", Func: fn("facts", nil)},
		&workflow.Step{Name: "write", Agent: writer},
	}})
	evs := collect(t, w.RunStream(context.Background(), "topic", run.WithStreamEvents(true), run.WithRunID("wf-run")))
	out, err := w.Run(context.Background(), "topic")
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted || out.Content != "Writer saw: facts(<nil>)" || len(out.StepResults) != 2 {
		t.Fatalf("status %s content %q results %d", out.Status, out.Content, len(out.StepResults))
	}
	k := kinds(evs)
	if !strings.HasPrefix(k, "WorkflowStarted StepStarted StepOutput StepCompleted StepStarted") || !strings.HasSuffix(k, "StepCompleted WorkflowCompleted") {
		t.Fatalf("events: %s", k)
	}
	for _, e := range evs {
		b := e.Base()
		if b.AgentID == "writer" {
			if b.WorkflowID != "blog-flow" || b.WorkflowRunID != "wf-run" || b.StepName != "write" || b.StepIndex == nil || *b.StepIndex != 1 || b.StepID != w.StepID(w.Config().Steps[1]) {
				t.Fatalf("executor event %s not tagged: %+v", e.Kind(), b)
			}
		}
	}
	done := evs[len(evs)-1].(*run.WorkflowCompleted)
	if done.Content != "Writer saw: facts(<nil>)" {
		t.Fatalf("completed content %v", done.Content)
	}
}

func TestStepIDsAreStable(t *testing.T) {
	mk := func() *workflow.Workflow {
		return newWF(t, workflow.Config{Name: "f", Steps: []workflow.Node{&workflow.Step{Name: "a", Func: fn("a", nil)}}})
	}
	a, b := mk(), mk()
	if a.StepID(a.Config().Steps[0]) != b.StepID(b.Config().Steps[0]) || len(a.StepID(a.Config().Steps[0])) != 36 {
		t.Fatal("step ids differ between two builds of the same workflow")
	}
}

func TestSharedSessionStatePersists(t *testing.T) {
	store := memory.New()
	w := newWF(t, workflow.Config{Name: "state", Store: store, SessionState: map[string]any{"n": 1}, Steps: []workflow.Node{
		&workflow.Step{Name: "inc", Func: func(ctx context.Context, _ *workflow.StepInput) (*workflow.StepOutput, error) {
			rc := run.FromContext(ctx)
			rc.State(func(s map[string]any) { s["n"] = fmt.Sprint(s["n"]) + "+1" })
			return &workflow.StepOutput{Content: "ok"}, nil
		}},
	}})
	if _, err := w.Run(context.Background(), "x", run.WithSessionID("s")); err != nil {
		t.Fatal(err)
	}
	sess, _ := store.GetSession(context.Background(), "s")
	if sess.SessionState["n"] != "1+1" || sess.SessionType != "workflow" || sess.WorkflowID != "state" {
		t.Fatalf("session %+v", sess)
	}
}

func TestLoopConditionRouterAndStop(t *testing.T) {
	var iters atomic.Int32
	w := newWF(t, workflow.Config{Name: "ctl", Steps: []workflow.Node{
		&workflow.Loop{Name: "refine", MaxIterations: 5, Steps: []workflow.Node{&workflow.Step{Name: "iter", Func: fn("it", &iters)}},
			EndCondition: func(outs []*workflow.StepOutput) bool { return iters.Load() == 2 }},
		&workflow.Condition{Name: "check", Evaluator: func(context.Context, *workflow.StepInput) (bool, error) { return false, nil },
			Steps: []workflow.Node{&workflow.Step{Name: "yes", Func: fn("yes", nil)}}, ElseSteps: []workflow.Node{&workflow.Step{Name: "no", Func: fn("no", nil)}}},
		&workflow.Router{Name: "pick", Choices: []workflow.Node{&workflow.Step{Name: "a", Func: fn("A", nil)}, &workflow.Step{Name: "b", Func: fn("B", nil)}},
			Selector: func(_ context.Context, in *workflow.StepInput, choices []string) ([]string, error) {
				return []string{"b"}, nil
			}},
		&workflow.Step{Name: "halt", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "stopped", Stop: true}, nil
		}},
		&workflow.Step{Name: "never", Func: fn("never", nil)},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
	iters.Store(0)
	out, err := w.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if iters.Load() != 2 || len(out.StepResults) != 4 || out.Content != "stopped" {
		t.Fatalf("iterations %d results %d content %v", iters.Load(), len(out.StepResults), out.Content)
	}
	if got := out.StepResults[1].Steps[0].StepName; got != "no" {
		t.Fatalf("condition branch %s", got)
	}
	if got := out.StepResults[2].Steps[0].Content; got != "B(no(it(it(<nil>))))" {
		t.Fatalf("router result %v", got)
	}
	k := kinds(evs)
	for _, want := range []string{"LoopExecutionStarted LoopIterationStarted", "LoopIterationCompleted LoopExecutionCompleted", "ConditionExecutionStarted", "ConditionExecutionCompleted", "RouterExecutionStarted", "RouterExecutionCompleted"} {
		if !strings.Contains(k, want) {
			t.Fatalf("missing %q in %s", want, k)
		}
	}
}

func TestParallelRunsConcurrently(t *testing.T) {
	var arrived atomic.Int32
	all := make(chan struct{})
	barrier := func(name string) workflow.StepFunc {
		return func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			if arrived.Add(1) == 3 {
				close(all)
			}
			select {
			case <-all:
				return &workflow.StepOutput{Content: name}, nil
			case <-time.After(5 * time.Second):
				return nil, errors.New("branches did not run concurrently")
			}
		}
	}
	w := newWF(t, workflow.Config{Name: "par", Steps: []workflow.Node{
		&workflow.Parallel{Name: "fan", Steps: []workflow.Node{
			&workflow.Step{Name: "x", Func: barrier("X")}, &workflow.Step{Name: "y", Func: barrier("Y")}, &workflow.Step{Name: "z", Func: barrier("Z")},
		}},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
	done := evs[len(evs)-1].(*run.WorkflowCompleted)
	want := "## Parallel Execution Results\n\n### ✅ x\n\nX\n\n### ✅ y\n\nY\n\n### ✅ z\n\nZ"
	if done.Content != want {
		t.Fatalf("content %q", done.Content)
	}
	if strings.Count(kinds(evs), "StepOutput") != 3 {
		t.Fatalf("branch events: %s", kinds(evs))
	}
}

func TestOnErrorSkipAndFail(t *testing.T) {
	var calls atomic.Int32
	boom := func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
		calls.Add(1)
		return nil, errors.New("boom")
	}
	w := newWF(t, workflow.Config{Name: "err", Steps: []workflow.Node{&workflow.Step{Name: "bad", Func: boom}, &workflow.Step{Name: "after", Func: fn("after", nil)}}})
	out, err := w.Run(context.Background(), "go")
	if err != nil || calls.Load() != 4 || out.StepResults[0].Content != "Step skipped due to error: boom" || out.StepResults[0].Success {
		t.Fatalf("skip: err %v calls %d result %+v", err, calls.Load(), out.StepResults[0])
	}
	zero := 0
	w = newWF(t, workflow.Config{Name: "err2", Steps: []workflow.Node{&workflow.Step{Name: "bad", Func: boom, OnError: workflow.ErrorFail, MaxRetries: &zero}}})
	out, err = w.Run(context.Background(), "go")
	if !errors.Is(err, workflow.ErrRunFailed) || out.Status != run.StatusError || !strings.Contains(out.ContentString(), "boom") {
		t.Fatalf("fail: err %v status %s", err, out.Status)
	}
}

func TestConfirmationPauseContinueAfterRestart(t *testing.T) {
	store := memory.New()
	var fetched, processed atomic.Int32
	build := func() *workflow.Workflow {
		return newWF(t, workflow.Config{Name: "workflow-hitl-step-confirmation", Store: store, Steps: []workflow.Node{
			&workflow.Step{Name: "fetch_data", Func: fn("data", &fetched)},
			&workflow.Step{Name: "process_sensitive_data", Func: fn("processed", &processed),
				HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Process sensitive data now?"}},
		}})
	}
	w := build()
	evs := collect(t, w.RunStream(context.Background(), "Q3 users", run.WithSessionID("s1"), run.WithRunID("r1")))
	k := kinds(evs)
	if !strings.HasSuffix(k, "StepPaused WorkflowPaused") {
		t.Fatalf("events %s", k)
	}
	sp := evs[len(evs)-2].(*run.StepPaused)
	if sp.StepName != "process_sensitive_data" || *sp.StepIndex != 1 || !sp.RequiresConfirmation || sp.ConfirmationMessage != "Process sensitive data now?" {
		t.Fatalf("StepPaused %+v", sp)
	}
	wp := evs[len(evs)-1].(*run.WorkflowPaused)
	var reqs []*workflow.StepRequirement
	if err := json.Unmarshal(wp.StepRequirements, &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("step_requirements %s", wp.StepRequirements)
	}
	if wp.Status != run.StatusPaused || wp.PauseKind != "step" || *wp.PausedStepIndex != 1 || reqs[0].Confirmed != nil || reqs[0].OnReject != "skip" {
		t.Fatalf("WorkflowPaused %+v", wp)
	}
	stored, _ := store.GetRun(context.Background(), "r1")
	if stored.Status != run.StatusPaused {
		t.Fatalf("stored status %s", stored.Status)
	}
	// A fresh workflow value (as after a restart) continues by run id.
	w2 := build()
	reqs[0].Confirm()
	evs = collect(t, w2.ContinueStream(context.Background(), workflow.ContinueRequest{RunID: "r1", SessionID: "s1", StepRequirements: reqs, StreamEvents: true}))
	out := evs[len(evs)-1].(*run.WorkflowCompleted)
	if out.Content != "processed(data(<nil>))" || fetched.Load() != 1 || processed.Load() != 1 {
		t.Fatalf("content %v fetched %d processed %d (%s)", out.Content, fetched.Load(), processed.Load(), kinds(evs))
	}
	if evs[0].Kind() != "StepContinued" {
		t.Fatalf("continue starts with %s", evs[0].Kind())
	}
	// Not paused any more: a typed error.
	if _, err := w2.Continue(context.Background(), workflow.ContinueRequest{RunID: "r1", StepRequirements: reqs}); !errors.Is(err, run.ErrNotPaused) {
		t.Fatalf("second continue: %v", err)
	}
}

func TestRejectionOutcomes(t *testing.T) {
	for _, tc := range []struct {
		onReject workflow.OnReject
		status   run.Status
	}{{workflow.RejectSkip, run.StatusCompleted}, {workflow.RejectCancel, run.StatusCancelled}} {
		var ran atomic.Int32
		w := newWF(t, workflow.Config{Name: "rej", Steps: []workflow.Node{
			&workflow.Step{Name: "danger", Func: fn("x", &ran), HumanReview: workflow.HumanReview{RequiresConfirmation: true, OnReject: tc.onReject}},
		}})
		out, _ := w.Run(context.Background(), "go")
		out.ActiveRequirement().Reject("no")
		done, _ := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: out.StepRequirements})
		if done.Status != tc.status || ran.Load() != 0 {
			t.Fatalf("%s: status %s ran %d", tc.onReject, done.Status, ran.Load())
		}
	}
}

func TestUserInputValidation(t *testing.T) { // A8 case 2
	_, err := workflow.ParseStepRequirements([]byte(`[{"step_id":"s","step_name":"Ask","user_input_schema":[{"name":"age","field_type":"int"}],"user_input":{"age":"x"}}]`))
	if err == nil || !strings.Contains(err.Error(), "Field 'age' expected int, got str") ||
		!strings.Contains(err.Error(), "Invalid user_input for step 'Ask': User input validation failed:\n  - Field 'age' expected int, got str") {
		t.Fatalf("err %v", err)
	}
	var got map[string]any
	w := newWF(t, workflow.Config{Name: "ui", Steps: []workflow.Node{
		&workflow.Step{Name: "Ask", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			got = in.UserInput()
			return &workflow.StepOutput{Content: "ok"}, nil
		}, HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputMessage: "Details?",
			UserInputSchema: []workflow.InputField{{Name: "tone", FieldType: "str"}, {Name: "age", FieldType: "int"}}}},
	}})
	out, _ := w.Run(context.Background(), "go")
	req := out.ActiveRequirement()
	if req.Kind() != "user_input" {
		t.Fatalf("kind %s", req.Kind())
	}
	bad := *req
	bad.UserInput = map[string]any{"tone": "formal", "age": "x"}
	if _, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{&bad}}); !errors.Is(err, workflow.ErrInvalidUserInput) {
		t.Fatalf("invalid input accepted: %v", err)
	}
	if err := req.SetUserInput(map[string]any{"tone": "formal", "age": json.Number("30")}); err != nil {
		t.Fatal(err)
	}
	done, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil || done.Status != run.StatusCompleted || got["tone"] != "formal" {
		t.Fatalf("err %v status %s got %v", err, done.Status, got)
	}
}

func TestRouterHumanSelection(t *testing.T) {
	w := newWF(t, workflow.Config{Name: "route", Steps: []workflow.Node{
		&workflow.Router{Name: "pick", Choices: []workflow.Node{&workflow.Step{Name: "route_a", Func: fn("A", nil)}, &workflow.Step{Name: "route_b", Func: fn("B", nil)}},
			HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputMessage: "Which route?"}},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go"))
	if !strings.HasSuffix(kinds(evs), "RouterPaused WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	var reqs []*workflow.StepRequirement
	_ = json.Unmarshal(evs[len(evs)-1].(*run.WorkflowPaused).StepRequirements, &reqs)
	if !reqs[0].RequiresRouteSelection || strings.Join(reqs[0].AvailableChoices, ",") != "route_a,route_b" {
		t.Fatalf("requirement %+v", reqs[0])
	}
	if err := reqs[0].Select("route_c"); err == nil {
		t.Fatal("unknown route accepted")
	}
	// Without a store the run to continue is the returned output; the
	// answer names the step by id only.
	paused, err := w.Run(context.Background(), "go")
	if err != nil || !paused.Paused() {
		t.Fatalf("run: %v %v", err, paused.Status)
	}
	done, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: paused, StepRequirements: []*workflow.StepRequirement{{StepID: reqs[0].StepID, SelectedChoices: []string{"route_a"}}}})
	if err != nil || done.Content != "A(<nil>)" {
		t.Fatalf("err %v content %v", err, done.Content)
	}
}

func TestOutputReview(t *testing.T) {
	var runs atomic.Int32
	draft := func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
		n := runs.Add(1)
		return &workflow.StepOutput{Content: fmt.Sprintf("draft %d", n)}, nil
	}
	w := newWF(t, workflow.Config{Name: "review", Steps: []workflow.Node{
		&workflow.Step{Name: "draft", Func: draft, HumanReview: workflow.HumanReview{RequiresOutputReview: true, OutputReviewMessage: "OK?", OnReject: workflow.RejectRetry}},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go"))
	if !strings.HasSuffix(kinds(evs), "StepOutputReview WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	out, _ := w.Run(context.Background(), "go")
	req := out.ActiveRequirement()
	if !req.IsPostExecution || req.StepOutput.Content != "draft 2" {
		t.Fatalf("review requirement %+v", req)
	}
	req.Reject("too short")
	again, _ := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{req}})
	if again.Status != run.StatusPaused || again.ActiveRequirement().StepOutput.Content != "draft 3" || again.ActiveRequirement().RetryCount != 1 {
		t.Fatalf("retry: status %s req %+v", again.Status, again.ActiveRequirement())
	}
	r2 := again.ActiveRequirement()
	_ = r2.Edit("final text")
	done, _ := w.Continue(context.Background(), workflow.ContinueRequest{Output: again, StepRequirements: []*workflow.StepRequirement{r2}})
	if done.Content != "final text" || runs.Load() != 3 {
		t.Fatalf("edited content %v runs %d", done.Content, runs.Load())
	}
}

type payArgs struct {
	Amount int `json:"amount"`
}

func TestExecutorPauseOnlyUnresolvedRequirements(t *testing.T) { // A8 case 1 in flow form
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "pay", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	calls := 0
	var mu sync.Mutex
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		mu.Lock()
		defer mu.Unlock()
		calls++
		switch calls {
		case 1:
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":1}`)}}
		case 2:
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c2", "pay", `{"amount":2}`)}}
		}
		return modeltest.Response{Content: "all paid"}
	})
	cashier, _ := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}})
	store := memory.New()
	w := newWF(t, workflow.Config{Name: "pay-flow", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "pay", Agent: cashier}}})
	evs := collect(t, w.RunStream(context.Background(), "pay", run.WithRunID("r")))
	if !strings.HasSuffix(kinds(evs), "StepExecutorPaused WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	out, _ := w.GetRun(context.Background(), "r")
	req := out.ActiveRequirement()
	if out.PauseKind != "executor" || !req.RequiresExecutorInput || req.ExecutorType != "agent" || req.ExecutorID != "cashier" || len(req.ExecutorRequirements) != 1 {
		t.Fatalf("pause %s requirement %+v", out.PauseKind, req)
	}
	first := req.ExecutorRequirements[0].ID
	_ = req.ExecutorRequirements[0].Confirm()
	again, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil || again.Status != run.StatusPaused {
		t.Fatalf("second pause: %v %s", err, again.Status)
	}
	r2 := again.ActiveRequirement()
	if len(r2.ExecutorRequirements) != 1 || r2.ExecutorRequirements[0].ID == first || paid.Load() != 1 {
		t.Fatalf("executor requirements after re-pause: %+v (paid %d)", r2.ExecutorRequirements, paid.Load())
	}
	_ = r2.ExecutorRequirements[0].Confirm()
	done, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{r2}})
	if err != nil || done.Content != "all paid" || paid.Load() != 3 {
		t.Fatalf("err %v content %v paid %d", err, done.Content, paid.Load())
	}
}

func TestNestedPauseInsideLoopInsideCondition(t *testing.T) {
	var before, inner, after atomic.Int32
	store := memory.New()
	build := func() *workflow.Workflow {
		return newWF(t, workflow.Config{Name: "nested", Store: store, SessionState: map[string]any{}, Steps: []workflow.Node{
			&workflow.Step{Name: "first", Func: fn("first", &before)},
			&workflow.Condition{Name: "cond", Evaluator: func(context.Context, *workflow.StepInput) (bool, error) { return true, nil }, Steps: []workflow.Node{
				&workflow.Loop{Name: "loop", MaxIterations: 2, Steps: []workflow.Node{
					&workflow.Step{Name: "work", Func: fn("work", &inner)},
					&workflow.Step{Name: "approve", Func: func(ctx context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
						run.FromContext(ctx).SetStateValue("approved", fmt.Sprint(in.PreviousStepContent))
						return &workflow.StepOutput{Content: "approved"}, nil
					}, HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
				}},
			}},
			&workflow.Step{Name: "last", Func: fn("last", &after)},
		}})
	}
	out, _ := build().Run(context.Background(), "go", run.WithSessionID("s"), run.WithRunID("r"))
	for i := 0; out.Status == run.StatusPaused; i++ {
		if i > 3 {
			t.Fatal("too many pauses")
		}
		req := out.ActiveRequirement()
		if req.StepName != "approve" || *out.PausedStepIndex != 1 {
			t.Fatalf("paused at %s / %v", req.StepName, out.PausedStepIndex)
		}
		req.Confirm()
		var err error
		out, err = build().Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if out.Status != run.StatusCompleted || before.Load() != 1 || inner.Load() != 2 || after.Load() != 1 {
		t.Fatalf("status %s first %d work %d last %d", out.Status, before.Load(), inner.Load(), after.Load())
	}
	if len(out.StepRequirements) != 2 {
		t.Fatalf("requirements %d", len(out.StepRequirements))
	}
	// State written after a resume persists (agno #8901).
	sess, _ := store.GetSession(context.Background(), "s")
	if sess.SessionState["approved"] == nil {
		t.Fatalf("session state %v", sess.SessionState)
	}
}

func TestTwoContinuesOnlyOneWins(t *testing.T) {
	store := memory.New()
	release := make(chan struct{})
	w := newWF(t, workflow.Config{Name: "race", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "gate", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			<-release
			return &workflow.StepOutput{Content: "done"}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
	}})
	out, _ := w.Run(context.Background(), "go", run.WithRunID("r"))
	req := out.ActiveRequirement()
	req.Confirm()
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
			results <- err
		}()
	}
	first := <-results // the loser answers at once; the winner waits at the gate
	close(release)
	second := <-results
	errs := []error{first, second}
	wins, losses := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, run.ErrNotPaused):
			losses++
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	if wins != 1 || losses != 1 {
		t.Fatalf("wins %d losses %d", wins, losses)
	}
}

func TestInputSchema(t *testing.T) {
	w := newWF(t, workflow.Config{Name: "typed", InputSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`),
		Steps: []workflow.Node{&workflow.Step{Name: "s", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: in.Input.(map[string]any)["topic"]}, nil
		}}}})
	if _, err := w.Run(context.Background(), `{"nope":1}`); !errors.Is(err, workflow.ErrInvalidInput) {
		t.Fatalf("missing field accepted: %v", err)
	}
	out, err := w.Run(context.Background(), `{"topic":"go"}`)
	if err != nil || out.Content != "go" {
		t.Fatalf("err %v content %v", err, out.Content)
	}
}

func TestConfigValidation(t *testing.T) {
	cases := map[string]workflow.Config{
		"Steps is empty":                        {Name: "x"},
		"has no Name":                           {Name: "x", Steps: []workflow.Node{&workflow.Step{Func: fn("", nil)}}},
		"exactly one of Agent, Func or":         {Name: "x", Steps: []workflow.Node{&workflow.Step{Name: "s"}}},
		"needs a Selector or RequiresUserInput": {Name: "x", Steps: []workflow.Node{&workflow.Router{Name: "r", Choices: []workflow.Node{&workflow.Step{Name: "a", Func: fn("", nil)}}}}},
	}
	for want, cfg := range cases {
		if _, err := workflow.New(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
}

// A client continuing on WorkflowPaused, or reading on WorkflowCompleted,
// finds the run already stored with that status.
func TestTerminalEventsArriveAfterTheRunIsStored(t *testing.T) {
	store := memory.New()
	var fetched, processed atomic.Int32
	w := newWF(t, workflow.Config{Name: "confirm", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: fn("data", &fetched)},
		&workflow.Step{Name: "process", Func: fn("processed", &processed), HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
	}})
	storedStatus := func() run.Status {
		r, err := store.GetRun(context.Background(), "r1")
		if err != nil {
			t.Fatalf("run not stored when its terminal event arrived: %v", err)
		}
		return r.Status
	}
	var reqs []*workflow.StepRequirement
	for ev, err := range w.RunStream(context.Background(), "go", run.WithSessionID("s1"), run.WithRunID("r1")) {
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := ev.(*run.WorkflowPaused); ok {
			if got := storedStatus(); got != run.StatusPaused {
				t.Fatalf("stored status on WorkflowPaused = %s, want PAUSED", got)
			}
			if err := json.Unmarshal(p.StepRequirements, &reqs); err != nil || len(reqs) != 1 {
				t.Fatalf("step_requirements %s", p.StepRequirements)
			}
		}
	}
	reqs[0].Confirm()
	done := false
	for ev, err := range w.ContinueStream(context.Background(), workflow.ContinueRequest{RunID: "r1", SessionID: "s1", StepRequirements: reqs}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*run.WorkflowCompleted); ok {
			done = true
			if got := storedStatus(); got != run.StatusCompleted {
				t.Fatalf("stored status on WorkflowCompleted = %s, want COMPLETED", got)
			}
		}
	}
	if !done || processed.Load() != 1 {
		t.Fatalf("completed=%v processed=%d", done, processed.Load())
	}
}

func TestLoopEndConditionAtSeesTheIteration(t *testing.T) {
	var iters atomic.Int32
	var seen []int
	w := newWF(t, workflow.Config{Name: "count", Steps: []workflow.Node{
		&workflow.Loop{Name: "l", MaxIterations: 6, Steps: []workflow.Node{&workflow.Step{Name: "s", Func: fn("x", &iters)}},
			EndCondition: func([]*workflow.StepOutput) bool {
				t.Error("EndCondition used although EndConditionAt is set")
				return true
			},
			EndConditionAt: func(outs []*workflow.StepOutput, iteration, max int) (bool, error) {
				if len(outs) != 1 || max != 6 {
					t.Errorf("outputs %d, max %d", len(outs), max)
				}
				seen = append(seen, iteration)
				return iteration == 4, nil
			}},
	}})
	out, err := w.Run(context.Background(), "go")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	if iters.Load() != 4 || !slices.Equal(seen, []int{1, 2, 3, 4}) {
		t.Fatalf("iterations run %d, end condition saw %v", iters.Load(), seen)
	}
}

// The run's images and documents reach every step: a function step sees
// them on its input, an agent step's model gets them with its message.
func TestRunMediaReachesSteps(t *testing.T) {
	var got []*model.Request
	var mu sync.Mutex
	reader, err := agent.New(agent.Config{Name: "Reader", Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		return modeltest.Response{Content: "read"}
	})})
	if err != nil {
		t.Fatal(err)
	}
	var seenFiles int
	w := newWF(t, workflow.Config{Name: "media", Steps: []workflow.Node{
		&workflow.Step{Name: "count", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			seenFiles = len(in.Files) + len(in.Images)
			return &workflow.StepOutput{Content: "counted"}, nil
		}},
		&workflow.Step{Name: "read", Agent: reader},
	}})
	pdf := model.File{Filename: "a.pdf", MimeType: "application/pdf", Content: []byte("%PDF-1.4")}
	img := model.Image{MimeType: "image/png", Content: []byte("\x89PNG")}
	out, err := w.Run(context.Background(), "go", run.WithFiles(pdf), run.WithImages(img))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	if seenFiles != 2 || len(got) != 1 {
		t.Fatalf("function step saw %d media, model called %d times", seenFiles, len(got))
	}
	user := got[0].Messages[len(got[0].Messages)-1]
	if len(user.Files) != 1 || user.Files[0].Filename != "a.pdf" || len(user.Images) != 1 {
		t.Fatalf("agent step's user message %+v", user)
	}
}

// A nested workflow cannot pause (its parent would never continue it):
// one with a human step is refused at load, and one whose agent asks for
// a human at run time ends ERROR instead of being left paused.
func TestNestedWorkflowsCannotPause(t *testing.T) {
	for name, inner := range map[string]workflow.Node{
		"confirmation": &workflow.Step{Name: "ask", Func: fn("x", nil), HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
		"deep review": &workflow.Loop{Name: "l", Steps: []workflow.Node{
			&workflow.Step{Name: "ask", Func: fn("x", nil), HumanReview: workflow.HumanReview{RequiresOutputReview: true}}}},
		"on_error pause": &workflow.Step{Name: "ask", Func: fn("x", nil), OnError: workflow.ErrorPause},
	} {
		child := newWF(t, workflow.Config{Name: "child", Steps: []workflow.Node{inner}})
		_, err := workflow.New(workflow.Config{Name: "parent", Steps: []workflow.Node{&workflow.Step{Name: "sub", Workflow: child}}})
		if err == nil || !strings.Contains(err.Error(), `step "sub" runs workflow "child", whose step "ask" waits for a human`) {
			t.Errorf("%s: %v", name, err)
		}
	}

	pay := tool.Must(tool.New("pay", "pay", func(context.Context, struct{}) (string, error) { return "paid", nil }, tool.RequiresConfirmation()))
	cashier, err := agent.New(agent.Config{Name: "Cashier", Model: modeltest.New(modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{}`)}}),
		Tools: []tool.Provider{pay}})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	child := newWF(t, workflow.Config{Name: "child", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "pay", Agent: cashier}}})
	parent := newWF(t, workflow.Config{Name: "parent", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "sub", Workflow: child}}})
	out, _ := parent.Run(context.Background(), "go", run.WithSessionID("s"))
	if out.Status == run.StatusPaused {
		t.Fatalf("parent paused on its child's behalf")
	}
	paused, err := store.ListRuns(context.Background(), storage.RunQuery{Status: []run.Status{run.StatusPaused}})
	if err != nil || len(paused) != 0 {
		t.Fatalf("paused runs left behind: %d (%v)", len(paused), err)
	}
}
