package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// These tests are meant to run under -race.
func testConcurrency(t *testing.T, open Opener) {
	t.Run("EnsureSessionCreatesExactlyOne", func(t *testing.T) {
		st := newStore(t, open)
		const n = 16
		var mu sync.Mutex
		created := 0
		names := map[string]bool{}
		parallel(n, func(i int) {
			s, ok, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: "shared", SessionType: storage.SessionAgent,
				SessionName: fmt.Sprintf("writer %d", i)})
			if err != nil {
				t.Errorf("writer %d: %v", i, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if ok {
				created++
			}
			names[s.SessionName] = true
		})
		if created != 1 {
			t.Errorf("%d writers report creating the session, want exactly 1", created)
		}
		if len(names) != 1 {
			t.Errorf("writers saw different stored sessions: %v", names)
		}
		all, total, err := st.ListSessions(t.Context(), storage.SessionQuery{})
		must(t, err)
		if total != 1 || len(all) != 1 {
			t.Errorf("%d sessions stored, want 1", total)
		}
	})

	t.Run("UpdateSessionLosesNothing", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent,
			SessionState: map[string]any{"base": true}})
		must(t, err)
		const writers, each = 16, 3
		parallel(writers, func(i int) {
			for j := range each {
				key := fmt.Sprintf("w%02d-%d", i, j)
				if _, err := st.UpdateSession(ctx, "s", func(s *storage.Session) error {
					if s.SessionState == nil {
						s.SessionState = map[string]any{}
					}
					s.SessionState[key] = i*100 + j
					return nil
				}); err != nil {
					t.Errorf("update %s: %v", key, err)
				}
			}
		})
		got, err := st.GetSession(ctx, "s")
		must(t, err)
		want := map[string]any{"base": true}
		for i := range writers {
			for j := range each {
				want[fmt.Sprintf("w%02d-%d", i, j)] = i*100 + j
			}
		}
		sameJSON(t, "state after concurrent updates", got.SessionState, want)
		if got.Version != 1+writers*each {
			t.Errorf("version %d, want %d", got.Version, 1+writers*each)
		}
	})

	t.Run("RunsInOneSessionLoseNothing", func(t *testing.T) {
		// Concurrent runs in one session each write their run row and
		// touch session state; no run and no state key may be lost
		// (agno issue #8805: the whole session blob rewritten per turn).
		st := newStore(t, open)
		ctx := t.Context()
		_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent, AgentID: "a"})
		must(t, err)
		const writers, each = 4, 25
		parallel(writers, func(i int) {
			for j := range each {
				id := fmt.Sprintf("w%d-run%02d", i, j)
				r := &storage.Run{RunID: id, SessionID: "s", ComponentID: "a", SessionType: storage.SessionAgent,
					Status: run.StatusRunning, Data: json.RawMessage(fmt.Sprintf(`{"run_id":%q}`, id))}
				if err := st.CreateRun(ctx, r); err != nil {
					t.Errorf("create %s: %v", id, err)
					continue
				}
				if _, err := st.AppendEvents(ctx, id, json.RawMessage(`{"event":"RunStarted"}`), json.RawMessage(`{"event":"RunCompleted"}`)); err != nil {
					t.Errorf("events of %s: %v", id, err)
				}
				r.Status = run.StatusCompleted
				if err := st.UpdateRun(ctx, r); err != nil {
					t.Errorf("complete %s: %v", id, err)
				}
				if _, err := st.UpdateSession(ctx, "s", func(s *storage.Session) error {
					if s.SessionState == nil {
						s.SessionState = map[string]any{}
					}
					s.SessionState[id] = "done"
					return nil
				}); err != nil {
					t.Errorf("state of %s: %v", id, err)
				}
			}
		})
		runs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s"})
		must(t, err)
		if len(runs) != writers*each {
			t.Errorf("%d runs stored, want %d", len(runs), writers*each)
		}
		seen := map[string]bool{}
		for _, r := range runs {
			if seen[r.RunID] {
				t.Errorf("run %s listed twice", r.RunID)
			}
			seen[r.RunID] = true
			if r.Status != run.StatusCompleted {
				t.Errorf("run %s status %s, want COMPLETED", r.RunID, r.Status)
			}
		}
		got, err := st.GetSession(ctx, "s")
		must(t, err)
		if len(got.SessionState) != writers*each {
			t.Errorf("session state has %d keys, want %d", len(got.SessionState), writers*each)
		}
		for i := range writers {
			// Each writer's runs are listed in the order it wrote them.
			var mine []string
			for _, r := range runs {
				if r.RunID[:2] == fmt.Sprintf("w%d", i) {
					mine = append(mine, r.RunID)
				}
			}
			for j := 1; j < len(mine); j++ {
				if mine[j-1] > mine[j] {
					t.Errorf("writer %d's runs out of order: %v", i, mine)
					break
				}
			}
		}
	})

	t.Run("RunsCreatingSessionsTogether", func(t *testing.T) {
		// Runs that end in their first write and make their session, at
		// once (the SQL stores send such writes together): each session
		// holds every change made to it, each run its events, and a taken
		// run id refuses only its own write.
		st := newStore(t, open)
		ctx := t.Context()
		must(t, st.CreateRun(ctx, &storage.Run{RunID: "taken", SessionID: "elsewhere", SessionType: storage.SessionAgent, ComponentID: "a",
			Status: run.StatusCompleted}))
		const n = 48
		errs := make([]error, n)
		parallel(n, func(i int) {
			sid := fmt.Sprintf("s%02d", i%40) // some sessions get two runs
			rid := fmt.Sprintf("r%02d", i)
			if i == 7 {
				rid = "taken"
			}
			evs := []storage.Event{{RunID: rid, Seq: 0, Data: json.RawMessage(`{"event":"RunStarted"}`)},
				{RunID: rid, Seq: 1, Data: json.RawMessage(fmt.Sprintf(`{"event":"RunCompleted","i":%d}`, i))}}
			errs[i] = st.SaveRun(ctx, storage.RunWrite{
				Run: &storage.Run{RunID: rid, SessionID: sid, SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusCompleted,
					Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))},
				Create:       true,
				SessionNew:   true, // a wrong hint for the second run of a session
				StartSession: &storage.Session{SessionID: sid, SessionType: storage.SessionAgent, AgentID: "a", SessionState: map[string]any{}},
				Events:       evs, SessionID: sid,
				Session: func(s *storage.Session) error {
					if s.SessionState == nil {
						s.SessionState = map[string]any{}
					}
					s.SessionState[fmt.Sprintf("run%02d", i)] = true
					return nil
				}})
		})
		for i, err := range errs {
			switch {
			case i == 7:
				wantErr(t, "the write of a taken run id", err, storage.ErrConflict)
			case err != nil:
				t.Errorf("write %d: %v", i, err)
			}
		}
		for i := range n {
			sid, rid := fmt.Sprintf("s%02d", i%40), fmt.Sprintf("r%02d", i)
			sess, err := st.GetSession(ctx, sid)
			if err != nil {
				t.Fatalf("session %s: %v", sid, err)
			}
			if _, ok := sess.SessionState[fmt.Sprintf("run%02d", i)]; ok == (i == 7) {
				t.Errorf("session %s after write %d: state %v", sid, i, sess.SessionState)
			}
			if i == 7 {
				continue
			}
			got, err := st.GetRun(ctx, rid)
			if err != nil || string(got.Data) != fmt.Sprintf(`{"i":%d}`, i) || got.SessionID != sid {
				t.Errorf("run %s: %+v, %v", rid, got, err)
			}
			evs, err := st.ListEvents(ctx, rid, -1)
			if err != nil || len(evs) != 2 || string(evs[1].Data) != fmt.Sprintf(`{"event":"RunCompleted","i":%d}`, i) {
				t.Errorf("events of %s: %+v, %v", rid, evs, err)
			}
		}
		if _, total, err := st.ListSessions(ctx, storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "a"}); err != nil || total != 40 {
			t.Errorf("agent sessions counted: %d, %v; want 40", total, err)
		}
	})

	t.Run("SessionReadsTogether", func(t *testing.T) {
		// Reads of sessions made at once, several of one id: each gets its
		// own session, or ErrNotFound, and a copy of its own to change.
		st := newStore(t, open)
		ctx := t.Context()
		for i := range 10 {
			_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: fmt.Sprintf("s%d", i), SessionType: storage.SessionAgent, AgentID: "a",
				SessionState: map[string]any{"i": float64(i), "nested": map[string]any{"k": "v"}}})
			must(t, err)
		}
		parallel(64, func(i int) {
			id := fmt.Sprintf("s%d", i%16) // s10…s15 are not stored; s0…s9 read several times
			sess, err := st.GetSession(ctx, id)
			if i%16 >= 10 {
				wantErr(t, "a session not stored", err, storage.ErrNotFound)
				return
			}
			if err != nil {
				t.Errorf("GetSession(%s): %v", id, err)
				return
			}
			if sess.SessionID != id || fmt.Sprint(sess.SessionState["i"]) != fmt.Sprint(i%16) {
				t.Errorf("GetSession(%s) = %+v", id, sess)
			}
			sess.SessionState["mine"] = i // each reader changes its own copy
			sess.SessionState["nested"].(map[string]any)["k"] = i
		})
		for i := range 10 {
			sess, err := st.GetSession(ctx, fmt.Sprintf("s%d", i))
			must(t, err)
			if _, ok := sess.SessionState["mine"]; ok || sess.SessionState["nested"].(map[string]any)["k"] != "v" {
				t.Errorf("a reader's change reached the store: %+v", sess.SessionState)
			}
		}
	})

	t.Run("AppendEventsContiguous", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		const writers, batches, size = 8, 10, 3
		type batch struct {
			first      int64
			writer, no int
		}
		var mu sync.Mutex
		var done []batch
		parallel(writers, func(w int) {
			for b := range batches {
				evs := make([]json.RawMessage, size)
				for i := range evs {
					evs[i] = json.RawMessage(fmt.Sprintf(`{"w":%d,"b":%d,"i":%d}`, w, b, i))
				}
				first, err := st.AppendEvents(ctx, "r", evs...)
				if err != nil {
					t.Errorf("writer %d batch %d: %v", w, b, err)
					continue
				}
				mu.Lock()
				done = append(done, batch{first, w, b})
				mu.Unlock()
			}
		})
		evs, err := st.ListEvents(ctx, "r", -1)
		must(t, err)
		if len(evs) != writers*batches*size {
			t.Fatalf("%d events stored, want %d", len(evs), writers*batches*size)
		}
		for i, e := range evs {
			if e.Seq != int64(i) {
				t.Fatalf("event %d has seq %d: seqs are not contiguous from 0", i, e.Seq)
			}
		}
		for _, b := range done {
			for i := range size {
				want := fmt.Sprintf(`{"w":%d,"b":%d,"i":%d}`, b.writer, b.no, i)
				if got := string(evs[b.first+int64(i)].Data); got != want {
					t.Errorf("seq %d = %s, want %s (a batch must be stored contiguously from its first seq)", b.first+int64(i), got, want)
				}
			}
		}
	})
}
