package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// The console without a subcommand reads its answers from a pipe as it
// would from a terminal (issue 7: usable scriptably through stdin), and
// echoes them so the transcript shows what was answered.
func TestHITLInteractiveFromPipe(t *testing.T) {
	var processed atomic.Int32
	store := memory.New()
	w := confirmFlow(t, store, &processed)
	ask := newFlow(t, workflow.Config{Name: "ask", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "details", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "age " + run.ContentText(in.UserInput()["age"])}, nil
		}, HumanReview: workflow.HumanReview{RequiresUserInput: true, UserInputSchema: []workflow.InputField{{Name: "age", FieldType: "int"}}}},
	}})
	c := newConsole(t, w, ask)
	pause(t, w, "r1")
	pause(t, ask, "r2")
	// Approve r1; give r2 a wrong value, then a right one; end of input.
	out, _, err := c.agnoCtx(context.Background(), strings.NewReader("a\ni\nold\ni\n42\n"))
	if err != nil {
		t.Fatalf("piped console: %v\n%s", err, out)
	}
	for _, want := range []string{
		"2 run(s) waiting",
		"[a]pprove, [r]eject, [s]kip, [q]uit? a\n",
		"Run r1 COMPLETED",
		"age (int) [required]: old\n",
		`field "age" expects an int, got "old"`,
		"age (int) [required]: 42\n",
		"Run r2 COMPLETED: age 42",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, out)
		}
	}
	if processed.Load() != 1 {
		t.Fatalf("processed %d", processed.Load())
	}
	// Nothing waiting and nothing to read: the console ends cleanly.
	out, _, err = c.agnoCtx(context.Background(), strings.NewReader(""))
	if err != nil || !strings.Contains(out, "0 run(s) waiting") {
		t.Fatalf("empty input: %v\n%s", err, out)
	}
}
