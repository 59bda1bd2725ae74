package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// pruner is the store as a storage.Pruner; a store without the
// capability skips the retention cases.
func pruner(t *testing.T, st storage.Store) storage.Pruner {
	t.Helper()
	p, ok := st.(storage.Pruner)
	if !ok {
		t.Skipf("%T does not implement storage.Pruner: retention is off for it", st)
	}
	return p
}

func testRetention(t *testing.T, open Opener) {
	day := int64(24 * 60 * 60)
	now := time.Now().Unix()
	old := now - 10*day
	week := storage.RetentionPolicy{MaxAge: 7 * 24 * time.Hour}

	session := func(t *testing.T, st storage.Store, id string, updated int64) {
		t.Helper()
		_, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: id, SessionType: storage.SessionAgent, AgentID: "a",
			CreatedAt: updated, UpdatedAt: updated})
		must(t, err)
	}
	runAt := func(t *testing.T, st storage.Store, id, sess, parent string, status run.Status, at int64, events int) {
		t.Helper()
		must(t, st.CreateRun(t.Context(), &storage.Run{RunID: id, SessionID: sess, ParentRunID: parent, SessionType: storage.SessionAgent,
			ComponentID: "a", Status: status, CreatedAt: at, UpdatedAt: at, Data: json.RawMessage(`{"run_id":"` + id + `"}`)}))
		for i := range events {
			_, err := st.AppendEvents(t.Context(), id, json.RawMessage(fmt.Sprintf(`{"event":"RunContent","i":%d}`, i)))
			must(t, err)
		}
	}
	exists := func(t *testing.T, st storage.Store, what string, err error, want bool) {
		t.Helper()
		switch {
		case err == nil && !want:
			t.Errorf("%s survived the prune", what)
		case errors.Is(err, storage.ErrNotFound) && want:
			t.Errorf("%s was pruned", what)
		case err != nil && !errors.Is(err, storage.ErrNotFound):
			t.Errorf("%s: %v", what, err)
		}
	}
	haveRun := func(t *testing.T, st storage.Store, id string, want bool) {
		t.Helper()
		_, err := st.GetRun(t.Context(), id)
		exists(t, st, "run "+id, err, want)
		evs, err := st.ListEvents(t.Context(), id, -1)
		must(t, err)
		if !want && len(evs) > 0 {
			t.Errorf("run %s was pruned but %d of its events remain", id, len(evs))
		}
	}
	haveSession := func(t *testing.T, st storage.Store, id string, want bool) {
		t.Helper()
		_, err := st.GetSession(t.Context(), id)
		exists(t, st, "session "+id, err, want)
	}

	t.Run("MaxAge", func(t *testing.T) {
		st := newStore(t, open)
		p := pruner(t, st)
		ctx := t.Context()
		// An idle session of finished runs goes whole: runs, member runs,
		// events, files.
		session(t, st, "s-idle", old)
		runAt(t, st, "r-idle", "s-idle", "", run.StatusCompleted, old, 3)
		runAt(t, st, "r-idle-member", "s-idle", "r-idle", run.StatusCompleted, old, 2)
		_, err := st.PutBlob(ctx, "s-idle", "b-idle", strings.NewReader("file"))
		must(t, err)
		session(t, st, "s-empty", old)
		// Idle sessions with a run in flight, or paused, stay with it.
		session(t, st, "s-running", old)
		runAt(t, st, "r-running", "s-running", "", run.StatusRunning, old, 1)
		session(t, st, "s-paused", old)
		runAt(t, st, "r-paused", "s-paused", "", run.StatusPaused, old, 1)
		session(t, st, "s-pending", old)
		runAt(t, st, "r-pending", "s-pending", "", run.StatusPending, old, 0)
		// An idle session with a recent run stays; its old run goes.
		session(t, st, "s-recent-run", old)
		runAt(t, st, "r-recent", "s-recent-run", "", run.StatusCompleted, now, 1)
		runAt(t, st, "r-stale", "s-recent-run", "", run.StatusError, old, 2)
		// A live session loses its old finished runs, not the tree with a
		// member still running, nor its recent run.
		session(t, st, "s-live", now)
		runAt(t, st, "r-cancelled", "s-live", "", run.StatusCancelled, old, 1)
		runAt(t, st, "r-team", "s-live", "", run.StatusCompleted, old, 1)
		runAt(t, st, "r-member", "s-live", "r-team", run.StatusRunning, old, 1)
		runAt(t, st, "r-live", "s-live", "", run.StatusCompleted, now, 1)

		got, err := p.Prune(ctx, week)
		must(t, err)
		want := storage.PruneResult{Sessions: 2, Runs: 4, Events: 3 + 2 + 2 + 1}
		if got != want {
			t.Errorf("Prune = %+v, want %+v", got, want)
		}
		for id, keep := range map[string]bool{"s-idle": false, "s-empty": false, "s-running": true, "s-paused": true, "s-pending": true,
			"s-recent-run": true, "s-live": true} {
			haveSession(t, st, id, keep)
		}
		for id, keep := range map[string]bool{"r-idle": false, "r-idle-member": false, "r-running": true, "r-paused": true, "r-pending": true,
			"r-recent": true, "r-stale": false, "r-cancelled": false, "r-team": true, "r-member": true, "r-live": true} {
			haveRun(t, st, id, keep)
		}
		if _, err := st.GetBlob(ctx, "s-idle", "b-idle"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("the pruned session's file: %v, want ErrNotFound", err)
		}
		if evs, err := st.ListEvents(ctx, "r-member", -1); err != nil || len(evs) != 1 {
			t.Errorf("the running member's events: %d %v", len(evs), err)
		}
		// Nothing more to do: a second prune deletes nothing.
		if again, err := p.Prune(ctx, week); err != nil || !again.Zero() {
			t.Errorf("second Prune = %+v %v, want nothing", again, err)
		}
		// Once the member ends, its tree goes.
		m, err := st.GetRun(ctx, "r-member")
		must(t, err)
		m.Status = run.StatusCompleted
		m.UpdatedAt = old
		must(t, st.UpdateRun(ctx, m))
		got, err = p.Prune(ctx, week)
		must(t, err)
		haveRun(t, st, "r-team", false)
		haveRun(t, st, "r-member", false)
		if got.Runs < 2 {
			t.Errorf("Prune after the member ended = %+v, want the team run and its member", got)
		}
	})

	t.Run("MaxRuns", func(t *testing.T) {
		st := newStore(t, open)
		p := pruner(t, st)
		ctx := t.Context()
		session(t, st, "s", now)
		session(t, st, "s2", now)
		// Created in one second: insertion order breaks the tie.
		runAt(t, st, "t1", "s", "", run.StatusCompleted, now, 2)
		runAt(t, st, "t1-member", "s", "t1", run.StatusCompleted, now, 1)
		runAt(t, st, "t2", "s2", "", run.StatusRunning, now, 1)
		runAt(t, st, "t3", "s2", "", run.StatusError, now, 1)
		runAt(t, st, "t4", "s", "", run.StatusCompleted, now, 0)
		runAt(t, st, "t5", "s", "", run.StatusCompleted, now, 1)
		got, err := p.Prune(ctx, storage.RetentionPolicy{MaxRuns: 2})
		must(t, err)
		if want := (storage.PruneResult{Runs: 3, Events: 4}); got != want {
			t.Errorf("Prune = %+v, want %+v", got, want)
		}
		for id, keep := range map[string]bool{"t1": false, "t1-member": false, "t2": true, "t3": false, "t4": true, "t5": true} {
			haveRun(t, st, id, keep)
		}
		haveSession(t, st, "s", true)
		haveSession(t, st, "s2", true)
		// Under the count, nothing goes.
		if again, err := p.Prune(ctx, storage.RetentionPolicy{MaxRuns: 10}); err != nil || !again.Zero() {
			t.Errorf("Prune under the count = %+v %v", again, err)
		}
		// Newer runs push older ones out, across sessions.
		runAt(t, st, "t6", "s2", "", run.StatusCompleted, now+1, 0)
		got, err = p.Prune(ctx, storage.RetentionPolicy{MaxRuns: 2})
		must(t, err)
		if got.Runs != 1 {
			t.Errorf("Prune after a new run = %+v, want t4 gone", got)
		}
		for id, keep := range map[string]bool{"t2": true, "t4": false, "t5": true, "t6": true} {
			haveRun(t, st, id, keep)
		}
	})

	// More run trees than one batch deletes, the oldest of them held by a
	// member in flight: every finished one goes, the held ones stay.
	t.Run("Backlog", func(t *testing.T) {
		st := newStore(t, open)
		p := pruner(t, st)
		ctx := t.Context()
		session(t, st, "s", now)
		const held, free = 210, 15
		for i := range held {
			id := fmt.Sprintf("held-%03d", i)
			runAt(t, st, id, "s", "", run.StatusCompleted, old+int64(i), 0)
			runAt(t, st, id+"-member", "s", id, run.StatusPaused, old+int64(i), 0)
		}
		for i := range free {
			runAt(t, st, fmt.Sprintf("free-%03d", i), "s", "", run.StatusCompleted, old+held+int64(i), 1)
		}
		got, err := p.Prune(ctx, week)
		must(t, err)
		if want := (storage.PruneResult{Runs: free, Events: free}); got != want {
			t.Errorf("Prune = %+v, want %+v", got, want)
		}
		left, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s"})
		must(t, err)
		if len(left) != 2*held {
			t.Errorf("%d runs left, want the %d held trees", len(left), held)
		}
	})

	t.Run("Policy", func(t *testing.T) {
		st := newStore(t, open)
		p := pruner(t, st)
		session(t, st, "s", old)
		if got, err := p.Prune(t.Context(), storage.RetentionPolicy{}); err != nil || !got.Zero() {
			t.Errorf("the zero policy: %+v %v, want nothing deleted", got, err)
		}
		haveSession(t, st, "s", true)
		if _, err := p.Prune(t.Context(), storage.RetentionPolicy{MaxRuns: -1}); err == nil {
			t.Error("a negative MaxRuns was accepted")
		}
		if _, err := p.Prune(t.Context(), storage.RetentionPolicy{MaxAge: -time.Hour}); err == nil {
			t.Error("a negative MaxAge was accepted")
		}
		haveSession(t, st, "s", true)
		must(t, st.Close())
		if _, err := p.Prune(t.Context(), week); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Prune after Close: %v, want ErrClosed", err)
		}
	})
}
