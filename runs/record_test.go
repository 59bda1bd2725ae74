package runs_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/run"
)

// A run that is not resumable writes the events it records with its end
// (a full batch at once), never on a timer: nobody follows it from
// storage, and under load every extra write queues in SQLite's single
// writer. A simple run is two writes, its start and its end.
func TestRecordedEventsGoWithTheEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		ctx := context.Background()
		st := d.open(t)
		e := started(t, engine(t, st, "replica-a"))
		fg := begin(t, e, "r-fg", false)
		fg.events(2) // fewer than BatchEvents (3)
		// A resumable run's timed batch, queued after them, is stored:
		// had the recorded events a timer, theirs would have fired too.
		clock := begin(t, e, "r-clock", true)
		clock.events(1)
		storedEvents(t, st, "r-clock", 1)
		if evs, err := st.ListEvents(ctx, "r-fg", -1); err != nil || len(evs) != 0 {
			t.Fatalf("%d recorded events stored before the run's end (%v)", len(evs), err)
		}
		fg.events(1) // a full batch is written at once
		storedEvents(t, st, "r-fg", 3)
		fg.events(1)
		fg.mustEnd(run.StatusCompleted)
		evs, err := st.ListEvents(ctx, "r-fg", -1)
		if err != nil || len(evs) != 5 {
			t.Fatalf("%d events stored at the end, want 5 (%v)", len(evs), err)
		}
		for i, ev := range evs {
			if ev.Seq != int64(i) {
				t.Fatalf("stored event %d has index %d", i, ev.Seq)
			}
		}
		clock.mustEnd(run.StatusCompleted)
		drain(t, e)
	})
}
