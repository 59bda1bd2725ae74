package runs

import (
	"testing"

	"github.com/agno-go/agno/run"
)

// A follower follows one generation of a run: the stream of a paused
// run ends at the pause, and the continuation's events go only to the
// continuation's followers (a socket client once got them twice).
func TestStreamGenerations(t *testing.T) {
	ss := newStreams()
	s, first := ss.open("r", 0, false)
	add := func(name string) {
		_, next, _, _ := s.snapshot()
		s.add(Event{Index: next, Name: name}, false)
	}
	for range 3 {
		add("StepStarted")
	}
	s.finish(first, run.StatusPaused)
	cont, second := ss.open("r", 3, true) // the run is continued
	if cont != s || second == first {
		t.Fatal("a continued run reopens its stream in a new generation")
	}
	// The paused run's writer finishes late, after the continuation began:
	// the continuation's stream goes on.
	s.finish(first, run.StatusPaused)
	if _, _, done, _ := s.since(second, -1); done {
		t.Fatal("a late finish of the paused generation ended the continuation")
	}
	add("StepCompleted")
	add("WorkflowCompleted")

	evs, next, done, _ := s.since(first, 0)
	if len(evs) != 2 || next != 2 || !done {
		t.Fatalf("old generation after index 0: %d events, next %d, done %v; want its 2 remaining events and done", len(evs), next, done)
	}
	evs, next, done, _ = s.since(second, 2)
	if len(evs) != 2 || evs[1].Name != "WorkflowCompleted" || next != 4 || done {
		t.Fatalf("new generation after index 2: %d events, next %d, done %v", len(evs), next, done)
	}
	s.finish(second, run.StatusCompleted)
	if _, _, done, _ := s.since(second, 4); !done {
		t.Fatal("the continuation's follower does not see the end")
	}
	// A stream reopened after events were stored elsewhere starts at them.
	other, _ := ss.open("r2", 7, false)
	if _, next, _, _ := other.snapshot(); next != 7 {
		t.Fatalf("stream of a run with 7 stored events starts at %d", next)
	}
}
