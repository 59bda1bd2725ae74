package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

func ensure(t *testing.T, st storage.Store, id string) {
	t.Helper()
	_, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: id, SessionType: storage.SessionAgent, AgentID: "agent-1"})
	must(t, err)
}

func sameRun(t *testing.T, what string, got, want *storage.Run) {
	t.Helper()
	if got.RunID != want.RunID || got.SessionID != want.SessionID || got.ParentRunID != want.ParentRunID ||
		got.SessionType != want.SessionType || got.ComponentID != want.ComponentID || got.UserID != want.UserID ||
		got.Status != want.Status || got.CreatedAt != want.CreatedAt || got.UpdatedAt != want.UpdatedAt {
		t.Errorf("%s:\n got %+v\nwant %+v", what, *got, *want)
	}
	// Data is stored as given, byte for byte.
	if !bytes.Equal(got.Data, want.Data) {
		t.Errorf("%s: data\n got %s\nwant %s", what, got.Data, want.Data)
	}
}

func testRuns(t *testing.T, open Opener) {
	t.Run("CreateGet", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "s1")
		r := &storage.Run{RunID: "r1", SessionID: "s1", ParentRunID: "p0", SessionType: storage.SessionTeam,
			ComponentID: "team-1", UserID: "u1", Status: run.StatusRunning, CreatedAt: 100, UpdatedAt: 150,
			Data: json.RawMessage(`{"run_id": "r1", "z": 1, "a": [1, 2.50, {"b": null}], "content": "hi"}`)}
		must(t, st.CreateRun(ctx, r))
		got, err := st.GetRun(ctx, "r1")
		must(t, err)
		sameRun(t, "GetRun", got, r)

		// The store keeps its own copy of Data.
		orig := bytes.Clone(r.Data)
		r.Data[2] = 'X'
		got, err = st.GetRun(ctx, "r1")
		must(t, err)
		if !bytes.Equal(got.Data, orig) {
			t.Errorf("stored data changed with the caller's slice: %s", got.Data)
		}
	})

	t.Run("Defaults", func(t *testing.T) {
		st := newStore(t, open)
		before := time.Now().Unix()
		must(t, st.CreateRun(t.Context(), &storage.Run{RunID: "r1", SessionID: "s1", Status: run.StatusPending}))
		after := time.Now().Unix()
		got, err := st.GetRun(t.Context(), "r1")
		must(t, err)
		if got.CreatedAt < before || got.CreatedAt > after || got.UpdatedAt < before || got.UpdatedAt > after {
			t.Errorf("created_at/updated_at %d/%d not within [%d, %d]", got.CreatedAt, got.UpdatedAt, before, after)
		}
		if len(got.Data) != 0 {
			t.Errorf("data = %s, want none", got.Data)
		}
	})

	t.Run("UpdateKeepsCreatedAtAndOrder", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "s1")
		must(t, st.CreateRun(ctx, &storage.Run{RunID: "r1", SessionID: "s1", ComponentID: "agent-1", Status: run.StatusRunning,
			CreatedAt: 100, UpdatedAt: 100, Data: json.RawMessage(`{"v":1}`)}))
		must(t, st.CreateRun(ctx, &storage.Run{RunID: "r2", SessionID: "s1", ComponentID: "agent-1", Status: run.StatusRunning,
			CreatedAt: 100, UpdatedAt: 100, Data: json.RawMessage(`{"v":2}`)}))
		upd := &storage.Run{RunID: "r1", SessionID: "s1", ComponentID: "agent-1", UserID: "u2", Status: run.StatusCompleted,
			CreatedAt: 999, UpdatedAt: 200, Data: json.RawMessage(`{"v":3,"content":"done"}`)}
		must(t, st.UpdateRun(ctx, upd))
		got, err := st.GetRun(ctx, "r1")
		must(t, err)
		want := *upd
		want.CreatedAt = 100
		sameRun(t, "run after update", got, &want)
		runs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s1"})
		must(t, err)
		sameIDs(t, "order after update", runIDs(runs), []string{"r1", "r2"})
	})

	t.Run("CreateNeverReplaces", func(t *testing.T) {
		// A client-chosen run id that exists must not move the run to the
		// caller's session, rewrite it or mix its events with another's.
		st := newStore(t, open)
		ctx := t.Context()
		first := &storage.Run{RunID: "r1", SessionID: "s1", SessionType: storage.SessionWorkflow, ComponentID: "wf",
			UserID: "alice", Status: run.StatusPaused, CreatedAt: 100, UpdatedAt: 100, Data: json.RawMessage(`{"pause":1}`)}
		must(t, st.CreateRun(ctx, first))
		_, err := st.AppendEvents(ctx, "r1", json.RawMessage(`{"event":"WorkflowPaused"}`))
		must(t, err)
		err = st.CreateRun(ctx, &storage.Run{RunID: "r1", SessionID: "s2", SessionType: storage.SessionAgent, ComponentID: "a",
			UserID: "mallory", Status: run.StatusRunning, Data: json.RawMessage(`{}`)})
		wantErr(t, "CreateRun of an existing id", err, storage.ErrConflict)
		got, err := st.GetRun(ctx, "r1")
		must(t, err)
		sameRun(t, "run after a refused create", got, first)
		if runs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s2"}); err != nil || len(runs) != 0 {
			t.Errorf("session s2 got runs %v (%v)", runIDs(runs), err)
		}
	})

	t.Run("UpdateCannotMove", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		orig := &storage.Run{RunID: "r1", SessionID: "s1", SessionType: storage.SessionAgent, ComponentID: "a",
			Status: run.StatusRunning, CreatedAt: 100, UpdatedAt: 100, Data: json.RawMessage(`{"v":1}`)}
		must(t, st.CreateRun(ctx, orig))
		for name, moved := range map[string]storage.Run{
			"session":   {SessionID: "s2", SessionType: storage.SessionAgent, ComponentID: "a"},
			"component": {SessionID: "s1", SessionType: storage.SessionAgent, ComponentID: "b"},
			"type":      {SessionID: "s1", SessionType: storage.SessionTeam, ComponentID: "a"},
			"parent":    {SessionID: "s1", SessionType: storage.SessionAgent, ComponentID: "a", ParentRunID: "p"},
		} {
			moved.RunID, moved.Status, moved.Data = "r1", run.StatusCompleted, json.RawMessage(`{"v":2}`)
			wantErr(t, "UpdateRun changing the "+name, st.UpdateRun(ctx, &moved), storage.ErrConflict)
		}
		got, err := st.GetRun(ctx, "r1")
		must(t, err)
		sameRun(t, "run after refused updates", got, orig)
		wantErr(t, "UpdateRun of a missing run", st.UpdateRun(ctx, &storage.Run{RunID: "nope", SessionID: "s1"}), storage.ErrNotFound)
	})

	t.Run("NotFound", func(t *testing.T) {
		st := newStore(t, open)
		_, err := st.GetRun(t.Context(), "missing")
		wantErr(t, "GetRun(missing)", err, storage.ErrNotFound)
	})

	t.Run("NeedsID", func(t *testing.T) {
		st := newStore(t, open)
		if err := st.CreateRun(t.Context(), &storage.Run{SessionID: "s1"}); err == nil {
			t.Error("CreateRun without run_id: no error")
		}
		if err := st.CreateRun(t.Context(), &storage.Run{RunID: "r1"}); err == nil {
			t.Error("CreateRun without session_id: no error")
		}
	})

	t.Run("InvalidDataRejected", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "s1")
		good := &storage.Run{RunID: "r1", SessionID: "s1", Status: run.StatusRunning, CreatedAt: 100, UpdatedAt: 100,
			Data: json.RawMessage(`{"ok":true}`)}
		must(t, st.CreateRun(ctx, good))
		bad := *good
		bad.Status = run.StatusCompleted
		bad.UpdatedAt = 200
		bad.Data = json.RawMessage(`{"broken":`)
		if err := st.UpdateRun(ctx, &bad); err == nil {
			t.Fatal("UpdateRun with invalid JSON data: no error")
		}
		got, err := st.GetRun(ctx, "r1")
		must(t, err)
		sameRun(t, "run after rejected write", got, good)
		if err := st.CreateRun(ctx, &storage.Run{RunID: "r2", SessionID: "s1", Data: json.RawMessage(`nope`)}); err == nil {
			t.Error("CreateRun with invalid JSON: no error")
		}
		if _, err := st.GetRun(ctx, "r2"); err == nil {
			t.Error("a run with invalid JSON data was stored")
		}
	})

	t.Run("NoSessionRowNeeded", func(t *testing.T) {
		// Runs are rows of their own; writing one never depends on the
		// session row being there first.
		st := newStore(t, open)
		must(t, st.CreateRun(t.Context(), &storage.Run{RunID: "r1", SessionID: "not-yet", Status: run.StatusRunning}))
		runs, err := st.ListRuns(t.Context(), storage.RunQuery{SessionID: "not-yet"})
		must(t, err)
		sameIDs(t, "runs of a session without a row", runIDs(runs), []string{"r1"})
	})
}

func testListRuns(t *testing.T, open Opener) {
	t.Run("Filters", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "S1")
		ensure(t, st, "S2")
		put := func(id, session, component, parent string, status run.Status, created int64) {
			must(t, st.CreateRun(ctx, &storage.Run{RunID: id, SessionID: session, ComponentID: component, ParentRunID: parent,
				SessionType: storage.SessionAgent, Status: status, CreatedAt: created, UpdatedAt: created,
				Data: json.RawMessage(fmt.Sprintf(`{"run_id":%q}`, id))}))
		}
		put("r1", "S1", "a1", "", run.StatusCompleted, 100)
		put("r2", "S1", "a1", "", run.StatusError, 200)
		put("r3", "S1", "m1", "r2", run.StatusCompleted, 200)
		put("r4", "S1", "a2", "", run.StatusRunning, 300)
		put("r5", "S2", "a1", "", run.StatusCompleted, 150)
		cases := []struct {
			name string
			q    storage.RunQuery
			want []string
		}{
			{"all, oldest first", storage.RunQuery{}, []string{"r1", "r5", "r2", "r3", "r4"}},
			{"session", storage.RunQuery{SessionID: "S1"}, []string{"r1", "r2", "r3", "r4"}},
			{"session newest first", storage.RunQuery{SessionID: "S1", Newest: true}, []string{"r4", "r3", "r2", "r1"}},
			{"component", storage.RunQuery{ComponentID: "a1"}, []string{"r1", "r5", "r2"}},
			{"status", storage.RunQuery{Status: []run.Status{run.StatusError, run.StatusRunning}}, []string{"r2", "r4"}},
			{"top level", storage.RunQuery{SessionID: "S1", TopLevel: true}, []string{"r1", "r2", "r4"}},
			{"parent", storage.RunQuery{ParentRunID: "r2"}, []string{"r3"}},
			{"created window inclusive", storage.RunQuery{CreatedAfter: 150, CreatedBefore: 200}, []string{"r5", "r2", "r3"}},
			{"created after", storage.RunQuery{SessionID: "S1", CreatedAfter: 201}, []string{"r4"}},
			{"created before", storage.RunQuery{CreatedBefore: 100}, []string{"r1"}},
			{"sessions", storage.RunQuery{SessionIDs: []string{"S2", "S1"}}, []string{"r1", "r5", "r2", "r3", "r4"}},
			{"one of sessions", storage.RunQuery{SessionIDs: []string{"S2", "nope"}}, []string{"r5"}},
			{"sessions and created after", storage.RunQuery{SessionIDs: []string{"S1"}, CreatedAfter: 200}, []string{"r2", "r3", "r4"}},
			{"sessions and status", storage.RunQuery{SessionIDs: []string{"S1", "S2"}, Status: []run.Status{run.StatusCompleted}}, []string{"r1", "r5", "r3"}},
			{"sessions none stored", storage.RunQuery{SessionIDs: []string{"nope"}}, nil},
			{"limit newest", storage.RunQuery{SessionID: "S1", Newest: true, Limit: 2}, []string{"r4", "r3"}},
			{"limit oldest", storage.RunQuery{Limit: 1}, []string{"r1"}},
			{"no match", storage.RunQuery{SessionID: "S1", ComponentID: "m1", TopLevel: true}, nil},
		}
		for _, c := range cases {
			got, err := st.ListRuns(ctx, c.q)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			sameIDs(t, c.name, runIDs(got), c.want)
		}
		// A poll of other instances' changes: by update, one owner left
		// out, without documents.
		for _, o := range []struct{ id, owner string }{{"o1", "i1"}, {"o2", "i2"}} {
			must(t, st.CreateRun(ctx, &storage.Run{RunID: o.id, SessionID: "S2", ComponentID: "a1", SessionType: storage.SessionAgent,
				Status: run.StatusRunning, Owner: o.owner, CreatedAt: 400, UpdatedAt: 400, Data: json.RawMessage(`{"big":"doc"}`)}))
		}
		for _, c := range []struct {
			name string
			q    storage.RunQuery
			want []string
		}{
			{"others' changes", storage.RunQuery{UpdatedAfter: 400, ExcludeOwner: "i1", WithoutData: true}, []string{"o2"}},
			{"changes but i2's", storage.RunQuery{UpdatedAfter: 300, ExcludeOwner: "i2"}, []string{"r4", "o1"}},
		} {
			got, err := st.ListRuns(ctx, c.q)
			must(t, err)
			sameIDs(t, c.name, runIDs(got), c.want)
			for _, r := range got {
				if c.q.WithoutData != (r.Data == nil) || r.SessionID == "" || r.Status == "" || r.UpdatedAt == 0 {
					t.Errorf("%s: %+v (without data: %v)", c.name, r, c.q.WithoutData)
				}
			}
		}
		got, err := st.ListRuns(ctx, storage.RunQuery{ParentRunID: "r2"})
		must(t, err)
		if len(got) == 1 {
			sameRun(t, "listed run", got[0], &storage.Run{RunID: "r3", SessionID: "S1", ComponentID: "m1", ParentRunID: "r2",
				SessionType: storage.SessionAgent, Status: run.StatusCompleted, CreatedAt: 200, UpdatedAt: 200,
				Data: json.RawMessage(`{"run_id":"r3"}`)})
		}
	})

	t.Run("SameSecondInInsertionOrder", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		ensure(t, st, "s1")
		// Ids in an order unrelated to insertion, all created in one second.
		var inserted []string
		for _, n := range rand.Perm(20) {
			id := fmt.Sprintf("run-%02d", n)
			inserted = append(inserted, id)
			must(t, st.CreateRun(ctx, &storage.Run{RunID: id, SessionID: "s1", Status: run.StatusCompleted, CreatedAt: 1000}))
		}
		got, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s1"})
		must(t, err)
		sameIDs(t, "oldest first", runIDs(got), inserted)
		newest, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s1", Newest: true})
		must(t, err)
		reversed := make([]string, len(inserted))
		for i, id := range inserted {
			reversed[len(inserted)-1-i] = id
		}
		sameIDs(t, "newest first", runIDs(newest), reversed)
	})
}

func testEvents(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := t.Context()
	evs := []json.RawMessage{
		json.RawMessage(`{"event": "RunStarted", "run_id": "r1", "created_at": 1}`),
		json.RawMessage(`{"event":"RunContent","content":"héllo 🚀","n":12345678901234567890123}`),
		json.RawMessage(`{"event":"RunContent","content":"\u0000 and \u2028"}`),
	}
	first, err := st.AppendEvents(ctx, "r1", evs...)
	must(t, err)
	if first != 0 {
		t.Errorf("first seq of a new run = %d, want 0", first)
	}
	next, err := st.AppendEvents(ctx, "r1", json.RawMessage(`{"event":"RunCompleted"}`))
	must(t, err)
	if next != 3 {
		t.Errorf("first seq of second append = %d, want 3", next)
	}
	all := append(append([]json.RawMessage{}, evs...), json.RawMessage(`{"event":"RunCompleted"}`))
	got, err := st.ListEvents(ctx, "r1", -1)
	must(t, err)
	if len(got) != len(all) {
		t.Fatalf("ListEvents: %d events, want %d", len(got), len(all))
	}
	for i, e := range got {
		if e.RunID != "r1" || e.Seq != int64(i) || !bytes.Equal(e.Data, all[i]) {
			t.Errorf("event %d = {%s %d %s}, want {r1 %d %s}", i, e.RunID, e.Seq, e.Data, i, all[i])
		}
	}
	tail, err := st.ListEvents(ctx, "r1", 1)
	must(t, err)
	if len(tail) != 2 || tail[0].Seq != 2 || tail[1].Seq != 3 {
		t.Errorf("ListEvents after 1: %+v, want seq 2 and 3", tail)
	}
	none, err := st.ListEvents(ctx, "r1", 3)
	must(t, err)
	if len(none) != 0 {
		t.Errorf("ListEvents after the last: %d events", len(none))
	}

	n, err := st.AppendEvents(ctx, "r1")
	must(t, err)
	if n != 4 {
		t.Errorf("AppendEvents with no events = %d, want the next seq 4", n)
	}

	if _, err := st.AppendEvents(ctx, "r1", json.RawMessage(`{"ok":1}`), json.RawMessage(`{broken`)); err == nil {
		t.Error("AppendEvents with invalid JSON: no error")
	}
	if _, err := st.AppendEvents(ctx, "r1", json.RawMessage(``)); err == nil {
		t.Error("AppendEvents with an empty event: no error")
	}
	got, err = st.ListEvents(ctx, "r1", -1)
	must(t, err)
	if len(got) != 4 {
		t.Errorf("a rejected batch left %d events, want 4", len(got))
	}

	other, err := st.AppendEvents(ctx, "r2", json.RawMessage(`{"event":"RunStarted"}`))
	must(t, err)
	if other != 0 {
		t.Errorf("first seq of another run = %d, want 0", other)
	}
	unknown, err := st.ListEvents(ctx, "never-ran", -1)
	must(t, err)
	if len(unknown) != 0 {
		t.Errorf("events of an unknown run: %d", len(unknown))
	}
}
