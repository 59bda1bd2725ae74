package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// eventJSON returns the wire form of the first event of kind, failing
// when there is none.
func eventJSON(t *testing.T, evs []run.Event, kind string) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e.Kind() == kind {
			return jsonOf(t, e)
		}
	}
	t.Fatalf("no %s in %s", kind, kinds(evs))
	return nil
}

// names lists the step_name of each item of a step_results array.
func names(v any) string {
	var out []string
	list, _ := v.([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		out = append(out, fmt.Sprint(m["step_name"]))
	}
	return strings.Join(out, ",")
}

// The container events carry agno's field names (agentos-api.md §2.5).
func TestContainerEventFields(t *testing.T) {
	w := newWF(t, workflow.Config{Name: "containers", Steps: []workflow.Node{
		&workflow.Parallel{Name: "fan", Steps: []workflow.Node{&workflow.Step{Name: "p1", Func: fn("P1", nil)}, &workflow.Step{Name: "p2", Func: fn("P2", nil)}}},
		&workflow.Loop{Name: "again", MaxIterations: 2, Steps: []workflow.Node{&workflow.Step{Name: "it", Func: fn("it", nil)}}},
		&workflow.Router{Name: "pick", Choices: []workflow.Node{&workflow.Step{Name: "a", Func: fn("A", nil)}, &workflow.Step{Name: "b", Func: fn("B", nil)}},
			Selector: func(context.Context, *workflow.StepInput, []string) ([]string, error) { return []string{"b"}, nil }},
		&workflow.Steps{Name: "group", Steps: []workflow.Node{
			&workflow.Step{Name: "g1", Func: fn("g1", nil)},
			&workflow.Step{Name: "halt", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
				return &workflow.StepOutput{Content: "halted", Stop: true}, nil
			}},
			&workflow.Step{Name: "never", Func: fn("never", nil)},
		}},
	}})
	evs := collect(t, w.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("r")))

	ps := eventJSON(t, evs, "ParallelExecutionStarted")
	pc := eventJSON(t, evs, "ParallelExecutionCompleted")
	if ps["parallel_step_count"] != 2.0 || pc["parallel_step_count"] != 2.0 || names(pc["step_results"]) != "p1,p2" ||
		ps["step_name"] != "fan" || ps["step_index"] != 0.0 || ps["step_id"] != w.StepID(w.Config().Steps[0]) || ps["run_id"] != "r" {
		t.Fatalf("parallel events %v / %v", ps, pc)
	}
	if ls := eventJSON(t, evs, "LoopExecutionStarted"); ls["max_iterations"] != 2.0 || ls["step_name"] != "again" {
		t.Fatalf("LoopExecutionStarted %v", ls)
	}
	rs := eventJSON(t, evs, "RouterExecutionStarted")
	rc := eventJSON(t, evs, "RouterExecutionCompleted")
	if fmt.Sprint(rs["selected_steps"]) != "[b]" || fmt.Sprint(rc["selected_steps"]) != "[b]" || rc["executed_steps"] != 1.0 || names(rc["step_results"]) != "b" {
		t.Fatalf("router events %v / %v", rs, rc)
	}
	// The group stops at "halt": three steps, two executed.
	ss := eventJSON(t, evs, "StepsExecutionStarted")
	sc := eventJSON(t, evs, "StepsExecutionCompleted")
	if ss["steps_count"] != 3.0 || sc["steps_count"] != 3.0 || sc["executed_steps"] != 2.0 || names(sc["step_results"]) != "g1,halt" || ss["step_index"] != 3.0 {
		t.Fatalf("steps events %v / %v", ss, sc)
	}
}

func TestWorkflowCancelledFields(t *testing.T) {
	// A rejection with on_reject cancel.
	w := newWF(t, workflow.Config{Name: "rej", Steps: []workflow.Node{
		&workflow.Step{Name: "danger", Func: fn("x", nil), HumanReview: workflow.HumanReview{RequiresConfirmation: true, OnReject: workflow.RejectCancel}},
	}})
	out, _ := w.Run(context.Background(), "go")
	out.ActiveRequirement().Reject("no")
	evs := collect(t, w.ContinueStream(context.Background(), workflow.ContinueRequest{Output: out, StepRequirements: out.StepRequirements}))
	wc := eventJSON(t, evs, "WorkflowCancelled")
	if evs[len(evs)-1].Kind() != "WorkflowCancelled" || wc["reason"] != "Workflow cancelled: Step 'danger' was rejected" || wc["content"] != wc["reason"] {
		t.Fatalf("events %s; WorkflowCancelled %v", kinds(evs), wc)
	}

	// Cancel by run id while a step runs.
	started := make(chan struct{})
	w = newWF(t, workflow.Config{Name: "slow", Steps: []workflow.Node{
		&workflow.Step{Name: "wait", Func: func(ctx context.Context, _ *workflow.StepInput) (*workflow.StepOutput, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	}})
	done := make(chan []run.Event)
	go func() { done <- collect(t, w.RunStream(context.Background(), "go", run.WithRunID("slow-run"))) }()
	<-started
	if ok, err := w.Cancel(context.Background(), "slow-run"); !ok || err != nil {
		t.Fatalf("cancel: %v %v", ok, err)
	}
	evs = <-done
	wc = eventJSON(t, evs, "WorkflowCancelled")
	if wc["reason"] != "Workflow run slow-run was cancelled" || wc["content"] != wc["reason"] || wc["run_id"] != "slow-run" {
		t.Fatalf("WorkflowCancelled %v", wc)
	}
}

func TestWorkflowErrorAndStepErrorFields(t *testing.T) {
	zero := 0
	boom := func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
		return nil, errors.New("boom")
	}
	w := newWF(t, workflow.Config{Name: "fails", Steps: []workflow.Node{&workflow.Step{Name: "bad", Func: boom, OnError: workflow.ErrorFail, MaxRetries: &zero}}})
	evs := collect(t, w.RunStream(context.Background(), "go", run.WithStreamEvents(true)))
	we := eventJSON(t, evs, "WorkflowError")
	if !strings.Contains(fmt.Sprint(we["error"]), "boom") || we["error_type"] == nil || we["error_type"] == "" {
		t.Fatalf("WorkflowError %v", we)
	}
	// agno emits StepError only when on_error pause stops the run there;
	// a failing step that fails the run does not.
	if strings.Contains(kinds(evs), "StepError") {
		t.Fatalf("events %s", kinds(evs))
	}
	w = newWF(t, workflow.Config{Name: "pauses", Steps: []workflow.Node{&workflow.Step{Name: "bad", Func: boom, OnError: workflow.ErrorPause, MaxRetries: &zero}}})
	evs = collect(t, w.RunStream(context.Background(), "go")) // StepError is not gated by stream_events
	if !strings.HasSuffix(kinds(evs), "StepError WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	se := eventJSON(t, evs, "StepError")
	if se["error"] != "boom" || se["step_name"] != "bad" || se["step_id"] != w.StepID(w.Config().Steps[0]) || se["step_index"] != 0.0 {
		t.Fatalf("StepError %v", se)
	}
}

func TestStepExecutorContinuedFields(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	w := newWF(t, workflow.Config{Name: "pay-flow", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "pay", Agent: cashier(t, &paid)}}})
	out, err := w.Run(context.Background(), "pay", run.WithRunID("r"))
	if err != nil || !out.Paused() {
		t.Fatalf("run: %v %s", err, out.Status)
	}
	req := out.ActiveRequirement()
	for _, er := range req.ExecutorRequirements {
		_ = er.Confirm()
	}
	evs := collect(t, w.ContinueStream(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}, StreamEvents: true}))
	k := kinds(evs)
	if !strings.HasPrefix(k, "StepExecutorContinued RunContinued") {
		t.Fatalf("continue events %s", k)
	}
	ec := eventJSON(t, evs, "StepExecutorContinued")
	if ec["executor_id"] != "cashier" || ec["executor_name"] != "Cashier" || ec["executor_type"] != "agent" || ec["executor_run_id"] != req.ExecutorRunID ||
		ec["step_name"] != "pay" || ec["step_id"] != req.StepID {
		t.Fatalf("StepExecutorContinued %v", ec)
	}
	if !strings.HasSuffix(k, "StepCompleted WorkflowCompleted") || paid.Load() != 1 {
		t.Fatalf("continue events %s, paid %d", k, paid.Load())
	}
}
