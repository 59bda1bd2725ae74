package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// testClaim checks ClaimRun: a compare-and-set on the run status, owner
// and version that exactly one of many concurrent claimers wins.
func testClaim(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := context.Background()
	if _, err := st.ClaimRun(ctx, storage.Claim{RunID: "missing", From: run.StatusPaused, To: run.StatusRunning, Version: -1}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("claim of a missing run: %v", err)
	}
	r := &storage.Run{RunID: "r-claim", SessionID: "s-claim", SessionType: storage.SessionWorkflow, ComponentID: "wf",
		Status: run.StatusPaused, Data: []byte(`{"run_id":"r-claim","status":"PAUSED"}`)}
	must(t, st.CreateRun(ctx, r))
	paused, err := st.GetRun(ctx, "r-claim")
	must(t, err)
	if _, err := st.ClaimRun(ctx, storage.Claim{RunID: "r-claim", From: run.StatusPaused, To: run.StatusRunning, Version: paused.Version + 7}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("claim of another version: %v", err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.ClaimRun(ctx, storage.Claim{RunID: "r-claim", From: run.StatusPaused, To: run.StatusRunning,
				Owner: "replica-" + string(rune('a'+i)), Version: paused.Version, Listed: true})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, storage.ErrConflict):
			t.Fatalf("losing claim: %v, want ErrConflict", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d claims won, want exactly 1", wins)
	}
	got, err := st.GetRun(ctx, "r-claim")
	if err != nil || got.Status != run.StatusRunning || got.Owner == "" || !got.Listed || got.Version <= paused.Version {
		t.Fatalf("after claim: %+v %v", got, err)
	}
	// Only the owner writes an in-flight run.
	upd := *got
	upd.Owner, upd.Data = "intruder", json.RawMessage(`{"x":1}`)
	wantErr(t, "UpdateRun by another instance", st.UpdateRun(ctx, &upd), storage.ErrConflict)
	wantErr(t, "SaveRun by another instance", st.SaveRun(ctx, storage.RunWrite{Run: &upd}), storage.ErrConflict)
	// Recovery takes it from a dead owner, and that owner's writes fail.
	dead := got.Owner
	if _, err := st.ClaimRun(ctx, storage.Claim{RunID: "r-claim", From: run.StatusRunning, To: run.StatusError, ExpectOwner: "someone-else", Version: -1}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("claim expecting another owner: %v", err)
	}
	if _, err := st.RequestCancel(ctx, "r-claim"); err != nil {
		t.Fatal(err)
	}
	// Its owner's events are written while it owns the run in flight.
	if err := st.SaveRun(ctx, storage.RunWrite{RunID: "r-claim", Owner: dead, Events: []storage.Event{{Seq: 0, Data: json.RawMessage(`{"event":"RunContent"}`)}}}); err != nil {
		t.Fatalf("events by the owner: %v", err)
	}
	wantErr(t, "events by another instance", st.SaveRun(ctx, storage.RunWrite{RunID: "r-claim", Owner: "intruder",
		Events: []storage.Event{{Seq: 1, Data: json.RawMessage(`{"event":"RunContent"}`)}}}), storage.ErrConflict)
	failed, err := st.ClaimRun(ctx, storage.Claim{RunID: "r-claim", From: run.StatusRunning, To: run.StatusError, ExpectOwner: dead, Version: -1,
		Data: json.RawMessage(`{"status":"ERROR","content":"lost"}`)})
	if err != nil || failed.Status != run.StatusError || failed.Owner != "" || string(failed.Data) != `{"status":"ERROR","content":"lost"}` || failed.CancelRequested {
		t.Fatalf("recovery claim (status, document and cancel flag in one write): %+v %v", failed, err)
	}
	// The dead owner's late write does not undo the recovery.
	late := *got
	late.Status = run.StatusCompleted
	wantErr(t, "the late write of a recovered run's old owner", st.UpdateRun(ctx, &late), storage.ErrConflict)
	wantErr(t, "the late SaveRun of a recovered run's old owner", st.SaveRun(ctx, storage.RunWrite{Run: &late}), storage.ErrConflict)
	wantErr(t, "the late events of a recovered run's old owner", st.SaveRun(ctx, storage.RunWrite{RunID: "r-claim", Owner: dead,
		Events: []storage.Event{{Seq: 1, Data: json.RawMessage(`{"event":"RunContent"}`)}}}), storage.ErrConflict)
	if evs, err := st.ListEvents(ctx, "r-claim", -1); err != nil || len(evs) != 1 {
		t.Fatalf("events after the refused writes: %d %v", len(evs), err)
	}
	// A writer without an owner (a library engine) still writes it.
	free := *failed
	free.Data = json.RawMessage(`{"status":"ERROR","content":"noted"}`)
	if err := st.UpdateRun(ctx, &free); err != nil {
		t.Fatalf("an ownerless write of a settled run: %v", err)
	}
	if got, err := st.GetRun(ctx, "r-claim"); err != nil || got.Status != run.StatusError || string(got.Data) != `{"status":"ERROR","content":"noted"}` {
		t.Fatalf("after the writes: %+v %v", got, err)
	}
}

// testRunLifecycle checks StartRun, SaveRun, RequestCancel and the
// instance heartbeats.
func testRunLifecycle(t *testing.T, open Opener) {
	t.Run("StartEnsuresTheSessionAndRefusesATakenID", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		sess := &storage.Session{SessionID: "s1", SessionType: storage.SessionAgent, AgentID: "a", SessionState: map[string]any{"n": 1.0}}
		r := &storage.Run{RunID: "r1", SessionID: "s1", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusRunning, Owner: "i1"}
		stored, err := st.StartRun(ctx, sess, r, false)
		if err != nil || stored == nil || fmt.Sprint(stored.SessionState["n"]) != "1" {
			t.Fatalf("StartRun: %+v %v", stored, err)
		}
		// A taken id writes nothing, not even a new session.
		_, err = st.StartRun(ctx, &storage.Session{SessionID: "s2", SessionType: storage.SessionAgent}, &storage.Run{RunID: "r1", SessionID: "s2",
			SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusRunning}, false)
		wantErr(t, "StartRun of a taken id", err, storage.ErrConflict)
		if _, err := st.GetSession(ctx, "s2"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("a refused start created its session: %v", err)
		}
		// An existing session is kept as stored.
		stored, err = st.StartRun(ctx, &storage.Session{SessionID: "s1", SessionType: storage.SessionAgent, SessionState: map[string]any{"n": 9.0}},
			&storage.Run{RunID: "r2", SessionID: "s1", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusRunning}, false)
		if err != nil || fmt.Sprint(stored.SessionState["n"]) != "1" {
			t.Fatalf("StartRun in an existing session: %+v %v", stored, err)
		}
		got, err := st.GetRun(ctx, "r1")
		if err != nil || got.Owner != "i1" || got.Listed || got.Version != 1 {
			t.Fatalf("started run: %+v %v", got, err)
		}
	})

	t.Run("StartTakesOverAPendingRow", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		pending := &storage.Run{RunID: "r", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusPending, Owner: "i1", Listed: true}
		must(t, st.CreateRun(ctx, pending))
		running := *pending
		running.Status, running.Data = run.StatusRunning, json.RawMessage(`{"status":"RUNNING"}`)
		if _, err := st.StartRun(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent}, &running, true); err != nil {
			t.Fatal(err)
		}
		got, _ := st.GetRun(ctx, "r")
		if got.Status != run.StatusRunning || !got.Listed || got.Version != 2 {
			t.Fatalf("taken over: %+v", got)
		}
		_, err := st.StartRun(ctx, nil, &running, true)
		wantErr(t, "taking over a row that is not PENDING", err, storage.ErrConflict)
	})

	t.Run("SaveCommitsTogether", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		r := &storage.Run{RunID: "r", SessionID: "s", SessionType: storage.SessionTeam, ComponentID: "t", Status: run.StatusRunning, Owner: "i1"}
		_, err := st.StartRun(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionTeam, TeamID: "t"}, r, false)
		must(t, err)
		ev := func(seq int64, name string) storage.Event {
			return storage.Event{RunID: "r", Seq: seq, Data: json.RawMessage(`{"event":"` + name + `"}`)}
		}
		must(t, st.SaveRun(ctx, storage.RunWrite{RunID: "r", Events: []storage.Event{ev(0, "A"), ev(1, "B")}}))
		done := *r
		done.Status, done.Data = run.StatusCompleted, json.RawMessage(`{"content":"ok"}`)
		child := &storage.Run{RunID: "m1", SessionID: "s", ParentRunID: "r", SessionType: storage.SessionTeam, ComponentID: "member", Status: run.StatusCompleted}
		must(t, st.SaveRun(ctx, storage.RunWrite{Run: &done, Events: []storage.Event{ev(2, "C")}, Children: []*storage.Run{child},
			SessionID: "s", Session: func(s *storage.Session) error {
				s.SessionState = map[string]any{"k": "v"}
				return nil
			}}))
		got, _ := st.GetRun(ctx, "r")
		evs, _ := st.ListEvents(ctx, "r", -1)
		sess, _ := st.GetSession(ctx, "s")
		kids, _ := st.ListRuns(ctx, storage.RunQuery{ParentRunID: "r"})
		if got.Status != run.StatusCompleted || len(evs) != 3 || evs[2].Seq != 2 || sess.SessionState["k"] != "v" || len(kids) != 1 {
			t.Fatalf("after save: %+v, %d events, state %v, %d children", got, len(evs), sess.SessionState, len(kids))
		}
		// A member run saved again is updated, not duplicated.
		child.Status = run.StatusPaused
		must(t, st.SaveRun(ctx, storage.RunWrite{RunID: "r", Children: []*storage.Run{child}}))
		if kids, _ := st.ListRuns(ctx, storage.RunQuery{ParentRunID: "r"}); len(kids) != 1 || kids[0].Status != run.StatusPaused {
			t.Fatalf("member run saved twice: %+v", kids)
		}
		// A taken seq, a failing session change: nothing of the write lands.
		bad := storage.RunWrite{RunID: "r", Events: []storage.Event{ev(3, "D"), ev(1, "dup")}}
		if err := st.SaveRun(ctx, bad); err == nil {
			t.Fatal("SaveRun with a taken seq: no error")
		}
		boom := errors.New("boom")
		err = st.SaveRun(ctx, storage.RunWrite{RunID: "r", Events: []storage.Event{ev(3, "E")}, SessionID: "s", Session: func(*storage.Session) error { return boom }})
		if !errors.Is(err, boom) {
			t.Fatalf("failing session change: %v", err)
		}
		if evs, _ := st.ListEvents(ctx, "r", -1); len(evs) != 3 {
			t.Fatalf("a failed SaveRun stored events: %d", len(evs))
		}
	})

	for _, hint := range []bool{false, true} {
		// SessionNew is a hint: right or wrong, the outcome is the same.
		t.Run(fmt.Sprintf("SaveCreatesARunNotStarted/SessionNew=%v", hint), func(t *testing.T) {
			st := newStore(t, open)
			ctx := t.Context()
			ev := func(seq int64) storage.Event {
				return storage.Event{RunID: "r", Seq: seq, Data: json.RawMessage(fmt.Sprintf(`{"event":"E%d"}`, seq))}
			}
			start := &storage.Session{SessionID: "s", SessionType: storage.SessionAgent, AgentID: "a", SessionState: map[string]any{"n": 1.0},
				CreatedAt: 1700000000}
			done := &storage.Run{RunID: "r", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusCompleted,
				Owner: "i1", CreatedAt: 1700000001, Data: json.RawMessage(`{"content":"ok"}`)}
			setK := func(s *storage.Session) error {
				s.SessionState["k"] = "v"
				return nil
			}
			// A new session the write also changes: created once, changed.
			must(t, st.SaveRun(ctx, storage.RunWrite{Run: done, Create: true, SessionNew: hint, StartSession: start, Events: []storage.Event{ev(0), ev(1)},
				SessionID: "s", Session: setK}))
			got, err := st.GetRun(ctx, "r")
			if err != nil || got.Status != run.StatusCompleted || got.Owner != "i1" || got.CreatedAt != 1700000001 || got.Version != 1 {
				t.Fatalf("created run: %+v %v", got, err)
			}
			sess, err := st.GetSession(ctx, "s")
			if err != nil || sess.AgentID != "a" || sess.CreatedAt != 1700000000 || sess.UpdatedAt < sess.CreatedAt ||
				fmt.Sprint(sess.SessionState["n"]) != "1" || sess.SessionState["k"] != "v" {
				t.Fatalf("created session: %+v %v", sess, err)
			}
			if evs, _ := st.ListEvents(ctx, "r", -1); len(evs) != 2 || evs[1].Seq != 1 {
				t.Fatalf("events of a created run: %+v", evs)
			}
			// The session is updated as usual afterwards.
			if _, err := st.UpdateSession(ctx, "s", func(s *storage.Session) error { s.SessionName = "named"; return nil }); err != nil {
				t.Fatalf("update of a session created by SaveRun: %v", err)
			}
			// An existing session is kept as stored, then changed.
			second := *done
			second.RunID = "r2"
			must(t, st.SaveRun(ctx, storage.RunWrite{Run: &second, Create: true, SessionNew: hint,
				StartSession: &storage.Session{SessionID: "s", SessionType: storage.SessionAgent, SessionState: map[string]any{"n": 9.0}},
				SessionID:    "s", Session: func(s *storage.Session) error { s.SessionState["m"] = "w"; return nil }}))
			sess, _ = st.GetSession(ctx, "s")
			if fmt.Sprint(sess.SessionState["n"]) != "1" || sess.SessionState["m"] != "w" || sess.SessionName != "named" {
				t.Fatalf("existing session after a created run: %+v", sess)
			}
			// A session ensured without a change; no session at all.
			third := *done
			third.RunID, third.SessionID = "r3", "s3"
			member := &storage.Run{RunID: "m3", SessionID: "s3", ParentRunID: "r3", SessionType: storage.SessionAgent, ComponentID: "m", Status: run.StatusCompleted}
			must(t, st.SaveRun(ctx, storage.RunWrite{Run: &third, Create: true, SessionNew: hint, StartSession: &storage.Session{SessionID: "s3", SessionType: storage.SessionAgent},
				Children: []*storage.Run{member}}))
			if _, err := st.GetSession(ctx, "s3"); err != nil {
				t.Fatalf("session ensured by a created run: %v", err)
			}
			if kids, _ := st.ListRuns(ctx, storage.RunQuery{ParentRunID: "r3"}); len(kids) != 1 {
				t.Fatalf("member runs of a created run: %+v", kids)
			}
			fourth := *done
			fourth.RunID, fourth.SessionID = "r4", "none"
			must(t, st.SaveRun(ctx, storage.RunWrite{Run: &fourth, Create: true, SessionNew: hint}))
			if _, err := st.GetRun(ctx, "r4"); err != nil {
				t.Fatalf("run created without a session: %v", err)
			}
			// A taken id writes nothing: no session, no events, no change.
			taken := *done
			taken.SessionID, taken.Data = "s5", json.RawMessage(`{"content":"other"}`)
			err = st.SaveRun(ctx, storage.RunWrite{Run: &taken, Create: true, SessionNew: hint, StartSession: &storage.Session{SessionID: "s5", SessionType: storage.SessionAgent},
				Events: []storage.Event{ev(2)}, SessionID: "s5", Session: setK})
			wantErr(t, "SaveRun creating a taken id", err, storage.ErrConflict)
			if _, err := st.GetSession(ctx, "s5"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("a refused create made its session: %v", err)
			}
			err = st.SaveRun(ctx, storage.RunWrite{Run: &taken, Create: true, SessionNew: hint,
				StartSession: &storage.Session{SessionID: "s5", SessionType: storage.SessionAgent, SessionState: map[string]any{}},
				Events:       []storage.Event{ev(0), ev(1)}, SessionID: "s5", Session: setK})
			wantErr(t, "SaveRun creating a taken id with its first events", err, storage.ErrConflict)
			if _, err := st.GetSession(ctx, "s5"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("a refused create with its first events made its session: %v", err)
			}
			got, _ = st.GetRun(ctx, "r")
			if evs, _ := st.ListEvents(ctx, "r", -1); len(evs) != 2 || string(got.Data) != `{"content":"ok"}` || got.SessionID != "s" {
				t.Fatalf("a refused create changed the stored run: %+v, %d events", got, len(evs))
			}
			// A failing change writes nothing either.
			boom := errors.New("boom")
			sixth := *done
			sixth.RunID, sixth.SessionID = "r6", "s6"
			err = st.SaveRun(ctx, storage.RunWrite{Run: &sixth, Create: true, SessionNew: hint, StartSession: &storage.Session{SessionID: "s6", SessionType: storage.SessionAgent},
				SessionID: "s6", Session: func(*storage.Session) error { return boom }})
			if !errors.Is(err, boom) {
				t.Fatalf("failing change of a created run: %v", err)
			}
			if _, err := st.GetRun(ctx, "r6"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("a failed create stored its run: %v", err)
			}
			if _, err := st.GetSession(ctx, "s6"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("a failed create made its session: %v", err)
			}
		})
	}

	t.Run("FirstEventsThenLaterOnes", func(t *testing.T) {
		// The SQL stores keep a run's first events in its row and later
		// ones as rows: listings, seqs and deletes see one sequence.
		st := newStore(t, open)
		ctx := t.Context()
		ev := func(runID string, seq int64) storage.Event {
			return storage.Event{RunID: runID, Seq: seq, Data: json.RawMessage(fmt.Sprintf(`{"event":"E%d","n":[%d]}`, seq, seq))}
		}
		seqs := func(runID string, after int64) string {
			t.Helper()
			evs, err := st.ListEvents(ctx, runID, after)
			must(t, err)
			var out []string
			for _, e := range evs {
				if want := ev(runID, e.Seq); e.RunID != runID || string(e.Data) != string(want.Data) {
					t.Fatalf("event %d of %s: %+v, want %s", e.Seq, runID, e, want.Data)
				}
				out = append(out, fmt.Sprint(e.Seq))
			}
			return fmt.Sprint(out)
		}
		// Created paused with its first events, in one write.
		paused := &storage.Run{RunID: "r", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusPaused,
			Data: json.RawMessage(`{"content":"paused"}`)}
		must(t, st.SaveRun(ctx, storage.RunWrite{Run: paused, Create: true, StartSession: &storage.Session{SessionID: "s", SessionType: storage.SessionAgent, AgentID: "a"},
			Events: []storage.Event{ev("r", 0), ev("r", 1), ev("r", 2)}}))
		for after, want := range map[int64]string{-1: "[0 1 2]", 0: "[1 2]", 2: "[]", 7: "[]"} {
			if got := seqs("r", after); got != want {
				t.Fatalf("events of r after %d: %s, want %s", after, got, want)
			}
		}
		// Continued: a seq among the first is taken, later ones follow.
		claimed, err := st.ClaimRun(ctx, storage.Claim{RunID: "r", From: run.StatusPaused, To: run.StatusRunning, Owner: "i1", Version: -1})
		must(t, err)
		wantErr(t, "events-only write of a taken seq", st.SaveRun(ctx, storage.RunWrite{RunID: "r", Owner: "i1", Events: []storage.Event{ev("r", 1)}}), storage.ErrConflict)
		wantErr(t, "run write of a taken seq", st.SaveRun(ctx, storage.RunWrite{Run: claimed, Events: []storage.Event{ev("r", 2), ev("r", 3)}}), storage.ErrConflict)
		must(t, st.SaveRun(ctx, storage.RunWrite{RunID: "r", Owner: "i1", Events: []storage.Event{ev("r", 3), ev("r", 4)}}))
		done := *claimed
		done.Status = run.StatusCompleted
		must(t, st.SaveRun(ctx, storage.RunWrite{Run: &done, Events: []storage.Event{ev("r", 5)}}))
		for after, want := range map[int64]string{-1: "[0 1 2 3 4 5]", 1: "[2 3 4 5]", 3: "[4 5]", 5: "[]"} {
			if got := seqs("r", after); got != want {
				t.Fatalf("events of r after %d: %s, want %s", after, got, want)
			}
		}
		if first, err := st.AppendEvents(ctx, "r", ev("r", 6).Data); err != nil || first != 6 {
			t.Fatalf("AppendEvents after them: first %d, %v; want 6", first, err)
		}
		// Started, then ended with all its events in the end's write.
		r2 := &storage.Run{RunID: "r2", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusRunning, Owner: "i1"}
		_, err = st.StartRun(ctx, nil, r2, false)
		must(t, err)
		end := *r2
		end.Status = run.StatusCompleted
		must(t, st.SaveRun(ctx, storage.RunWrite{Run: &end, Events: []storage.Event{ev("r2", 0), ev("r2", 1), ev("r2", 2), ev("r2", 3)}}))
		if got := seqs("r2", -1); got != "[0 1 2 3]" {
			t.Fatalf("events of r2: %s", got)
		}
		if err := st.SaveRun(ctx, storage.RunWrite{Run: &end, Events: []storage.Event{ev("r2", 0)}}); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("first events written twice: %v, want ErrConflict", err)
		}
		if first, err := st.AppendEvents(ctx, "r2", ev("r2", 4).Data); err != nil || first != 4 {
			t.Fatalf("AppendEvents after the end's events: first %d, %v; want 4", first, err)
		}
		// Deleting the session deletes them all.
		must(t, st.DeleteSessions(ctx, "s"))
		for _, id := range []string{"r", "r2"} {
			if got := seqs(id, -1); got != "[]" {
				t.Errorf("events of %s after its session was deleted: %s", id, got)
			}
		}
	})

	t.Run("CancelFlag", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		must(t, st.CreateRun(ctx, &storage.Run{RunID: "live", SessionID: "s", ComponentID: "a", Status: run.StatusRunning, Owner: "i1"}))
		must(t, st.CreateRun(ctx, &storage.Run{RunID: "done", SessionID: "s", ComponentID: "a", Status: run.StatusCompleted}))
		r, err := st.RequestCancel(ctx, "live")
		if err != nil || !r.CancelRequested || r.Owner != "i1" {
			t.Fatalf("RequestCancel: %+v %v", r, err)
		}
		if r, err := st.RequestCancel(ctx, "done"); err != nil || r.CancelRequested {
			t.Fatalf("a settled run is not flagged: %+v %v", r, err)
		}
		_, err = st.RequestCancel(ctx, "nope")
		wantErr(t, "RequestCancel of a missing run", err, storage.ErrNotFound)
		flagged, err := st.ListRuns(ctx, storage.RunQuery{Owner: "i1", CancelRequested: true})
		if err != nil || len(flagged) != 1 || flagged[0].RunID != "live" {
			t.Fatalf("flagged runs: %v %v", runIDs(flagged), err)
		}
	})

	t.Run("SettledHidesForegroundRunsInFlight", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		for _, r := range []*storage.Run{
			{RunID: "fg", SessionID: "s", ComponentID: "a", Status: run.StatusRunning},
			{RunID: "bg", SessionID: "s", ComponentID: "a", Status: run.StatusRunning, Listed: true},
			{RunID: "pending", SessionID: "s", ComponentID: "a", Status: run.StatusPending, Listed: true},
			{RunID: "old", SessionID: "s", ComponentID: "a", Status: run.StatusCompleted},
		} {
			must(t, st.CreateRun(ctx, r))
		}
		got, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s", Settled: true})
		must(t, err)
		sameIDs(t, "settled listing", runIDs(got), []string{"bg", "pending", "old"})
	})

	t.Run("Heartbeats", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		must(t, st.Heartbeat(ctx, "i1"))
		must(t, st.Heartbeat(ctx, "i2"))
		must(t, st.Heartbeat(ctx, "i1"))
		got, err := st.Instances(ctx)
		if err != nil || len(got) != 2 || got["i1"] == 0 {
			t.Fatalf("instances %v %v", got, err)
		}
		// A released lease reads as long expired; a heartbeat renews it.
		if rel, ok := st.(storage.InstanceReleaser); ok {
			must(t, rel.ReleaseInstance(ctx, "i1"))
			if got, err := st.Instances(ctx); err != nil || got["i1"] != 0 || got["i2"] == 0 {
				t.Fatalf("after release: %v %v", got, err)
			}
			must(t, st.Heartbeat(ctx, "i1"))
			if got, _ := st.Instances(ctx); got["i1"] == 0 {
				t.Fatalf("renewed after release: %v", got)
			}
		}
	})
}
