package workflow_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// upper is a Go function step: it upper-cases the previous step's content.
func upper(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
	return &workflow.StepOutput{Content: strings.ToUpper(fmt.Sprint(in.PreviousStepContent))}, nil
}

// Steps run in order, each seeing the previous one's output; a step is an
// agent, a team, a Go function or another workflow.
func ExampleNew() {
	writer, _ := agent.New(agent.Config{Name: "Writer", Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: "draft about " + req.Messages[len(req.Messages)-1].Content}
	})})
	w, err := workflow.New(workflow.Config{Name: "report", Steps: []workflow.Node{
		&workflow.Step{Name: "draft", Agent: writer},
		&workflow.Step{Name: "shout", Func: upper},
	}})
	if err != nil {
		panic(err)
	}
	out, err := w.Run(context.Background(), "Q3")
	if err != nil {
		panic(err)
	}
	for _, s := range out.StepResults {
		fmt.Printf("%s: %s\n", s.StepName, s.ContentString())
	}
	fmt.Println(out.Status, out.ContentString())
	// Output:
	// draft: draft about Q3
	// shout: DRAFT ABOUT Q3
	// COMPLETED DRAFT ABOUT Q3
}

// Parallel steps see the same input; the next step gets their outputs.
func ExampleParallel() {
	say := func(s string) workflow.StepFunc {
		return func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: s}, nil
		}
	}
	w, err := workflow.New(workflow.Config{Name: "fan-out", Steps: []workflow.Node{
		&workflow.Parallel{Name: "gather", Steps: []workflow.Node{
			&workflow.Step{Name: "news", Func: say("3 articles")},
			&workflow.Step{Name: "papers", Func: say("2 papers")},
		}},
		&workflow.Step{Name: "merge", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: fmt.Sprintf("%v and %v", in.StepContent("news"), in.StepContent("papers"))}, nil
		}},
	}})
	if err != nil {
		panic(err)
	}
	out, err := w.Run(context.Background(), "AI agents")
	if err != nil {
		panic(err)
	}
	fmt.Println(out.ContentString())
	// Output:
	// 3 articles and 2 papers
}

// A step with HumanReview pauses the run before it runs; the run is
// stored, so any process sharing the store continues it by run id.
func ExampleWorkflow_Continue() {
	ctx := context.Background()
	w, err := workflow.New(workflow.Config{Name: "review-flow", Store: memory.New(), Steps: []workflow.Node{
		&workflow.Step{Name: "draft", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "the report"}, nil
		}},
		&workflow.Step{Name: "publish", Func: upper,
			HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Publish the report?"}},
	}})
	if err != nil {
		panic(err)
	}
	out, err := w.Run(ctx, "Q3", run.WithSessionID("s1"))
	if err != nil {
		panic(err)
	}
	req := out.ActiveRequirement()
	fmt.Println(out.Status, out.PausedStepName, req.Kind(), req.ConfirmationMessage)

	req.Confirm()
	done, err := w.Continue(ctx, workflow.ContinueRequest{RunID: out.RunID, SessionID: "s1", StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil {
		panic(err)
	}
	fmt.Println(done.Status, done.ContentString())
	// Output:
	// PAUSED publish confirmation Publish the report?
	// COMPLETED THE REPORT
}
