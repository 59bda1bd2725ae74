package memory

import (
	"fmt"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// A bounded store keeps about its bound of top-level runs, the newest,
// with their member runs and events; a paused run stays whatever its age.
func TestMaxRunsBoundsTheStore(t *testing.T) {
	st := New(MaxRuns(100))
	ctx := t.Context()
	start := func(id, parent string, created int64) {
		t.Helper()
		sess := &storage.Session{SessionID: "s", SessionType: storage.SessionAgent}
		r := &storage.Run{RunID: id, SessionID: "s", ParentRunID: parent, SessionType: storage.SessionAgent, Status: run.StatusRunning, CreatedAt: created, UpdatedAt: created, Data: []byte(`{}`)}
		if _, err := st.StartRun(ctx, sess, r, false); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendEvents(ctx, id, []byte(`{"event":"RunStarted"}`)); err != nil {
			t.Fatal(err)
		}
	}
	end := func(id, parent string, created int64, status run.Status) {
		t.Helper()
		r := &storage.Run{RunID: id, SessionID: "s", ParentRunID: parent, SessionType: storage.SessionAgent, Status: status, CreatedAt: created, UpdatedAt: created, Data: []byte(`{}`)}
		if err := st.SaveRun(ctx, storage.RunWrite{Run: r}); err != nil {
			t.Fatal(err)
		}
	}
	start("paused", "", 0)
	end("paused", "", 0, run.StatusPaused)
	for i := 1; i <= 1000; i++ {
		id := fmt.Sprintf("r%04d", i)
		start(id, "", int64(i))
		start(id+"-member", id, int64(i))
		end(id+"-member", id, int64(i), run.StatusCompleted)
		end(id, "", int64(i), run.StatusCompleted)
	}
	top, err := st.ListRuns(ctx, storage.RunQuery{TopLevel: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(top); n < 100 || n > 111 {
		t.Errorf("%d top-level runs kept, want about 100", n)
	}
	kept := map[string]bool{}
	for _, r := range top {
		kept[r.RunID] = true
	}
	if !kept["paused"] || !kept["r1000"] || kept["r0001"] {
		t.Errorf("kept %v: want the paused run and the newest, not the oldest", kept)
	}
	st.mu.RLock()
	runs, events := len(st.runs), len(st.events)
	st.mu.RUnlock()
	if runs != 2*len(top)-1 || events != runs {
		t.Errorf("%d runs and %d event lists for %d top-level runs: member runs or events were left behind", runs, events, len(top))
	}
}
