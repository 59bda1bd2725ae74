package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// flaky fails its first n calls.
func flaky(n int32, calls *atomic.Int32) workflow.StepFunc {
	return func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
		if c := calls.Add(1); c <= n {
			return nil, fmt.Errorf("boom %d", c)
		}
		return &workflow.StepOutput{Content: "fixed"}, nil
	}
}

func TestOnErrorPauseRetryThenSucceed(t *testing.T) {
	store := memory.New()
	var calls, after atomic.Int32
	zero := 0
	w := newWF(t, workflow.Config{Name: "on-error", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "first", Func: fn("first", nil)},
		&workflow.Step{Name: "fragile", Func: flaky(2, &calls), OnError: workflow.ErrorPause, MaxRetries: &zero},
		&workflow.Step{Name: "after", Func: fn("after", &after)},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go", run.WithRunID("r"), run.WithSessionID("s")))
	if !strings.HasSuffix(kinds(evs), "StepError WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	wp := jsonOf(t, evs[len(evs)-1])
	if wp["paused_step_index"] != 1.0 || wp["paused_step_name"] != "fragile" || wp["pause_kind"] != "error" {
		t.Fatalf("WorkflowPaused %v", wp)
	}
	stored, err := w.GetRun(context.Background(), "r")
	if err != nil || stored.Status != run.StatusPaused || len(stored.StepRequirements) != 0 || len(stored.StepResults) != 1 {
		t.Fatalf("stored: %v %+v", err, stored)
	}
	ers := jsonOf(t, stored)["error_requirements"].([]any)
	er := ers[0].(map[string]any)
	if len(ers) != 1 || er["error_message"] != "boom 1" || er["error_type"] == "" || er["retry_count"] != 0.0 || er["step_name"] != "fragile" || er["step_id"] != w.StepID(w.Config().Steps[1]) {
		t.Fatalf("error_requirements %v", ers)
	}
	// No decision: a typed error, the run stays paused.
	if _, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r"}); !errors.Is(err, run.ErrUnresolved) {
		t.Fatalf("continue without a decision: %v", err)
	}
	retry := []*workflow.StepRequirement{{StepID: w.StepID(w.Config().Steps[1]), Confirmed: ptr(true)}}
	again, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: retry})
	if err != nil || again.Status != run.StatusPaused || calls.Load() != 2 {
		t.Fatalf("first retry: %v %s calls %d", err, again.Status, calls.Load())
	}
	// The new failure replaces the old one and counts the retry.
	if len(again.ErrorRequirements) != 1 || again.ErrorRequirements[0].Error != "boom 2" || again.ErrorRequirements[0].RetryCount != 1 {
		t.Fatalf("after the first retry: %+v", again.ErrorRequirements)
	}
	done, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: retry})
	if err != nil || done.Status != run.StatusCompleted || calls.Load() != 3 || after.Load() != 1 || done.Content != "after(fixed)" || len(done.ErrorRequirements) != 0 {
		t.Fatalf("second retry: %v %+v calls %d", err, done, calls.Load())
	}
}

func TestOnErrorPauseSkip(t *testing.T) {
	var calls, after atomic.Int32
	zero := 0
	w := newWF(t, workflow.Config{Name: "on-error-skip", Steps: []workflow.Node{
		&workflow.Step{Name: "fragile", Func: flaky(5, &calls), OnError: workflow.ErrorPause, MaxRetries: &zero},
		&workflow.Step{Name: "after", Func: fn("after", &after)},
	}})
	out, err := w.Run(context.Background(), "go")
	if err != nil || out.PauseKind != "error" {
		t.Fatalf("run: %v %+v", err, out)
	}
	done, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{{StepID: w.StepID(w.Config().Steps[0]), Confirmed: ptr(false)}}})
	if err != nil || done.Status != run.StatusCompleted || calls.Load() != 1 || after.Load() != 1 {
		t.Fatalf("skip: %v %+v calls %d after %d", err, done, calls.Load(), after.Load())
	}
}

func ptr[T any](v T) *T { return &v }

// A Condition's rejection takes its else branch by default (agno's
// on_reject "else"), without evaluating it.
func TestConditionRejectRunsElseBranch(t *testing.T) {
	var evaluated, yes, no atomic.Int32
	w := newWF(t, workflow.Config{Name: "cond", Steps: []workflow.Node{
		&workflow.Condition{Name: "gate", Evaluator: func(context.Context, *workflow.StepInput) (bool, error) { evaluated.Add(1); return true, nil },
			Steps:       []workflow.Node{&workflow.Step{Name: "yes", Func: fn("yes", &yes)}},
			ElseSteps:   []workflow.Node{&workflow.Step{Name: "no", Func: fn("no", &no)}},
			HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Take the fast path?"}},
	}})
	out, err := w.Run(context.Background(), "go")
	if err != nil || !out.Paused() || out.ActiveRequirement().OnReject != workflow.RejectElse || out.ActiveRequirement().StepType != "Condition" {
		t.Fatalf("run: %v %+v", err, out.ActiveRequirement())
	}
	out.ActiveRequirement().Reject("slow please")
	evs := collect(t, w.ContinueStream(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: out.StepRequirements, StreamEvents: true}))
	cc := eventJSON(t, evs, "ConditionExecutionCompleted")
	if cc["branch"] != "else" || cc["condition_result"] != false || names(cc["step_results"]) != "no" {
		t.Fatalf("ConditionExecutionCompleted %v", cc)
	}
	done := evs[len(evs)-1].(*run.WorkflowCompleted)
	if done.Content != "no(<nil>)" || yes.Load() != 0 || no.Load() != 1 || evaluated.Load() != 0 {
		t.Fatalf("content %v yes %d no %d evaluated %d", done.Content, yes.Load(), no.Load(), evaluated.Load())
	}
}

// recorder is an agent step that keeps every message it receives.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) agent(t *testing.T) *agent.Agent {
	a, err := agent.New(agent.Config{Name: "Writer", Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.msgs = append(r.msgs, lastMsg(req).Content)
		return modeltest.Response{Content: fmt.Sprintf("answer %d", len(r.msgs))}
	})})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (r *recorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msgs[len(r.msgs)-1]
}

// History reaches an agent step as agno writes it: the
// <workflow_history_context> block, then the step's input.
func TestWorkflowHistoryReachesAgentSteps(t *testing.T) {
	store := memory.New()
	rec := &recorder{}
	var seen []string
	w := newWF(t, workflow.Config{Name: "chat", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "write", Agent: rec.agent(t), AddWorkflowHistory: true},
		&workflow.Step{Name: "peek", AddWorkflowHistory: true, NumHistoryRuns: 1, Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			seen = append(seen, in.HistoryContext(1))
			return &workflow.StepOutput{Content: in.PreviousStepContent}, nil
		}},
	}})
	for _, msg := range []string{"first", "second"} {
		if _, err := w.Run(context.Background(), msg, run.WithSessionID("s")); err != nil {
			t.Fatal(err)
		}
	}
	if got := rec.msgs[0]; got != "first" {
		t.Fatalf("first run message %q", got)
	}
	want := "<workflow_history_context>\n[Workflow Run-1]\nUser input: first\nWorkflow output: answer 1\n\n</workflow_history_context>\nsecond"
	if got := rec.last(); got != want {
		t.Fatalf("second run message:\n%q\nwant\n%q", got, want)
	}
	if seen[0] != "" || seen[1] != strings.TrimSuffix(want, "second") {
		t.Fatalf("function step history %q", seen)
	}
	// Another session has no history.
	if _, err := w.Run(context.Background(), "elsewhere", run.WithSessionID("other")); err != nil || rec.last() != "elsewhere" {
		t.Fatalf("other session: %v %q", err, rec.last())
	}
}

// The workflow-level switch reaches every agent step, bounded by the
// workflow's num_history_runs unless the step asks for more.
func TestWorkflowHistoryLimits(t *testing.T) {
	store := memory.New()
	short, long := &recorder{}, &recorder{}
	w := newWF(t, workflow.Config{Name: "limits", Store: store, AddWorkflowHistoryToSteps: true, NumHistoryRuns: 1, Steps: []workflow.Node{
		&workflow.Step{Name: "short", Agent: short.agent(t)},
		&workflow.Step{Name: "long", Agent: long.agent(t), NumHistoryRuns: 4},
	}})
	for i := 1; i <= 4; i++ {
		if _, err := w.Run(context.Background(), fmt.Sprintf("msg %d", i), run.WithSessionID("s")); err != nil {
			t.Fatal(err)
		}
	}
	if got := short.last(); !strings.HasPrefix(got, "<workflow_history_context>\n[Workflow Run-1]\nUser input: msg 3\n") || strings.Contains(got, "Run-2") {
		t.Fatalf("short step message:\n%s", got)
	}
	got := long.last()
	if !strings.Contains(got, "[Workflow Run-3]\nUser input: msg 3\n") || !strings.Contains(got, "[Workflow Run-1]\nUser input: msg 1\n") || strings.Contains(got, "Run-4") {
		t.Fatalf("long step message:\n%s", got)
	}
}

// Human values and a rejected output reach an agent step in agno's words.
func TestUserInputAndFeedbackInTheAgentMessage(t *testing.T) {
	rec := &recorder{}
	w := newWF(t, workflow.Config{Name: "ask", Steps: []workflow.Node{
		&workflow.Step{Name: "write", Agent: rec.agent(t), HumanReview: workflow.HumanReview{
			RequiresUserInput: true, UserInputSchema: []workflow.InputField{{Name: "tone", FieldType: "str"}, {Name: "short", FieldType: "bool"}},
			RequiresOutputReview: true, OnReject: workflow.RejectRetry}},
	}})
	out, _ := w.Run(context.Background(), "a poem")
	if err := out.ActiveRequirement().SetUserInput(map[string]any{"tone": "warm", "short": true}); err != nil {
		t.Fatal(err)
	}
	out, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: out.StepRequirements})
	if err != nil || !out.ActiveRequirement().RequiresOutputReview {
		t.Fatalf("continue: %v %+v", err, out.ActiveRequirement())
	}
	if got := rec.last(); got != "a poem\n\nUser preferences:\n- short: True\n- tone: warm" {
		t.Fatalf("message with user input %q", got)
	}
	out.ActiveRequirement().Reject("more rhymes")
	if _, err := w.Continue(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: out.StepRequirements}); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(); got != "a poem\n\nYour previous output:\nanswer 1\n\nFeedback from reviewer:\nmore rhymes" {
		t.Fatalf("retry message %q", got)
	}
}

func TestStepInputLookups(t *testing.T) {
	leaf := func(name string, content any) *workflow.StepOutput {
		return &workflow.StepOutput{StepName: name, StepType: "Step", Content: content, Success: true}
	}
	par := &workflow.StepOutput{StepName: "fan", StepType: "Parallel", Content: "## Parallel Execution Results", Steps: []*workflow.StepOutput{
		leaf("direct", "D"),
		{StepName: "cond", StepType: "Condition", Content: "C2", Steps: []*workflow.StepOutput{leaf("inner1", "C1"), leaf("inner2", 42)}},
		leaf("silent", ""),
	}}
	loop := &workflow.StepOutput{StepName: "loop", StepType: "Loop", Content: "L2", Steps: []*workflow.StepOutput{
		leaf("it", "L1"), {StepName: "nested", StepType: "Steps", Steps: []*workflow.StepOutput{leaf("deep", "L2")}},
	}}
	empty := &workflow.StepOutput{StepName: "quiet", StepType: "Parallel", Content: "nothing", Steps: []*workflow.StepOutput{leaf("hush", nil)}}
	in := &workflow.StepInput{PreviousStepOutputs: map[string]*workflow.StepOutput{"fan": par, "loop": loop, "plain": leaf("plain", map[string]any{"k": 1.0}), "quiet": empty}}

	if o := in.StepOutputByName("plain"); o == nil || o.StepName != "plain" {
		t.Fatalf("direct lookup %+v", o)
	}
	if o := in.StepOutputByName("inner2"); o == nil || o.Content != 42 {
		t.Fatalf("nested lookup %+v", o)
	}
	if o := in.StepOutputByName("deep"); o == nil || o.Content != "L2" {
		t.Fatalf("deep lookup %+v", o)
	}
	if in.StepOutputByName("missing") != nil || in.StepContent("missing") != nil {
		t.Fatal("a missing step was found")
	}
	// Parallel: branch contents as text, a composite branch contributes
	// its inner steps, empty branches are left out.
	if got := in.StepContent("fan"); !reflect.DeepEqual(got, map[string]string{"direct": "D", "inner1": "C1", "inner2": "42"}) {
		t.Fatalf("parallel content %#v", got)
	}
	if got := in.StepContent("quiet"); got != "nothing" {
		t.Fatalf("parallel without content %#v", got)
	}
	if got := in.StepContent("loop"); got != "L2" {
		t.Fatalf("container content %#v", got)
	}
	if got := in.StepContent("plain"); !reflect.DeepEqual(got, map[string]any{"k": 1.0}) {
		t.Fatalf("plain content %#v", got)
	}
	if got := in.StepContent("inner1"); got != "C1" {
		t.Fatalf("nested content %#v", got)
	}
}

// A reader that stops at the pause leaves the run paused, stored and
// continuable (agno #8910).
func TestStreamReaderStoppingAtThePause(t *testing.T) {
	for _, stopAt := range []string{"StepPaused", "WorkflowPaused"} {
		t.Run(stopAt, func(t *testing.T) {
			store := memory.New()
			var processed atomic.Int32
			w := newWF(t, workflow.Config{Name: "stop-" + strings.ToLower(stopAt), Store: store, Steps: []workflow.Node{
				&workflow.Step{Name: "fetch", Func: fn("data", nil)},
				&workflow.Step{Name: "process", Func: fn("processed", &processed), HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
			}})
			var seen []string
			for ev, err := range w.RunStream(context.Background(), "go", run.WithRunID("r"), run.WithSessionID("s"), run.WithStreamEvents(true)) {
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, ev.Kind())
				if ev.Kind() == stopAt {
					break
				}
			}
			if seen[len(seen)-1] != stopAt {
				t.Fatalf("stream %v", seen)
			}
			out, err := w.GetRun(context.Background(), "r")
			if err != nil || out.Status != run.StatusPaused || len(out.StepRequirements) != 1 || out.PausedStepName != "process" {
				t.Fatalf("stored: %v %+v", err, out)
			}
			req := out.ActiveRequirement()
			req.Confirm()
			done, err := w.Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
			if err != nil || done.Status != run.StatusCompleted || processed.Load() != 1 || done.Content != "processed(data(<nil>))" {
				t.Fatalf("continue: %v %+v", err, done)
			}
			b, _ := json.Marshal(done)
			if strings.Contains(string(b), `"CANCELLED"`) {
				t.Fatalf("run cancelled: %s", b)
			}
		})
	}
}
