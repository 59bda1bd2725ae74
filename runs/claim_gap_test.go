package runs_test

import (
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
)

// A continuation can claim a paused run between the pausing writer's
// Finish (PAUSED stored) and its Close (terminal event still being
// delivered). The pausing writer's Close ends the pause's stream, not
// the continuation's: a follower of the pause gets the pause's events
// only, and one of the continuation gets every event to its end.
func TestContinuationClaimedBeforeThePauseCloses(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *db) {
		const id = "r-gap"
		e := started(t, engine(t, d.open(t), "replica-a"))
		first := begin(t, e, id, true)
		first.events(2)
		paused := &run.RunPaused{EventBase: run.EventBase{AgentID: component}}
		if err := first.h.Finish(first.ctx, runs.Finish{Status: run.StatusPaused, Doc: doc(id, run.StatusPaused), Terminal: []run.Event{paused}}); err != nil {
			t.Fatal(err)
		}
		_, ofThePause := follow(t, e, id, -1)
		// The pausing writer delivers its terminal event and closes while
		// the continuation claims (in either order).
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			time.Sleep(10 * time.Millisecond)
			first.emit(paused)
			first.h.Close()
			first.unregister()
		}()
		second, err := claim(t, e, id, true)
		if err != nil {
			t.Fatal(err)
		}
		<-closed
		_, ofTheContinuation := follow(t, e, id, 2)
		second.n = 3
		second.events(2)
		second.mustEnd(run.StatusCompleted) // 3..5
		exactly(t, "follower of the pause", result(t, ofThePause).all(), id, -1, 2)
		exactly(t, "follower of the continuation", result(t, ofTheContinuation).all(), id, 2, 5)
	})
}
