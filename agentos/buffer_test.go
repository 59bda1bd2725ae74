package agentos

import (
	"testing"

	"github.com/agno-go/agno/run"
)

// A subscriber follows one generation of a run: the stream of a paused
// run ends at the pause, and the continuation's events go only to the
// continuation's subscribers (a socket client once got them twice).
func TestBufferGenerations(t *testing.T) {
	bs := newBuffers()
	rb, first := bs.start("r")
	for range 3 {
		rb.add(&run.StepStarted{})
	}
	old := rb.generation()
	if old != first {
		t.Fatalf("start gave generation %d, buffer is at %d", first, old)
	}
	cont, second := bs.start("r") // the run is continued
	if cont != rb || second == old || cont.generation() != second {
		t.Fatal("a continued run reopens its buffer in a new generation")
	}
	// The paused run's writer finishes late, after the continuation began:
	// the continuation's stream goes on.
	rb.finish(first, run.StatusPaused)
	if _, _, done, _ := rb.sinceIn(second, -1); done {
		t.Fatal("a late finish of the paused generation ended the continuation")
	}
	rb.add(&run.StepCompleted{})
	rb.add(&run.WorkflowCompleted{})

	evs, next, done, _ := rb.sinceIn(old, 0)
	if len(evs) != 2 || next != 2 || !done {
		t.Fatalf("old generation after index 0: %d events, next %d, done %v; want its 2 remaining events and done", len(evs), next, done)
	}
	evs, next, done, _ = rb.sinceIn(cont.generation(), 2)
	if len(evs) != 2 || evs[1].name != "WorkflowCompleted" || next != 4 || done {
		t.Fatalf("new generation after index 2: %d events, next %d, done %v", len(evs), next, done)
	}
	rb.finish(second, run.StatusCompleted)
	if _, _, done, _ := rb.sinceIn(cont.generation(), 4); !done {
		t.Fatal("the continuation's subscriber does not see the end")
	}
	// since (resume snapshots) still sees the whole run.
	if all, _, _, _, _ := rb.since(-1); len(all) != 5 {
		t.Fatalf("since(-1) = %d events, want 5", len(all))
	}
}
