package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

func fullSession(id string) *storage.Session {
	return &storage.Session{
		SessionID:    id,
		SessionType:  storage.SessionAgent,
		AgentID:      "agent-1",
		UserID:       "user-1",
		SessionName:  "First chat",
		SessionState: map[string]any{"cart": []any{"apple"}, "step": "start"},
		Metadata:     map[string]any{"source": "test"},
		Summary:      &storage.Summary{Summary: "talked about fruit", Topics: []string{"fruit"}, UpdatedAt: "2025-01-02T03:04:05Z"},
		Metrics:      &run.Metrics{InputTokens: 10, OutputTokens: 5, TotalTokens: 15, Duration: 1.5},
		Data:         map[string]any{"name": "Assistant", "model": map[string]any{"id": "gpt-x"}},
	}
}

// sessionContent is what a session holds apart from bookkeeping.
func sessionContent(s *storage.Session) map[string]any {
	return map[string]any{
		"session_id": s.SessionID, "session_type": s.SessionType, "agent_id": s.AgentID, "team_id": s.TeamID,
		"workflow_id": s.WorkflowID, "user_id": s.UserID, "session_name": s.SessionName,
		"session_state": s.SessionState, "metadata": s.Metadata, "summary": s.Summary, "metrics": s.Metrics,
		"data": s.Data,
	}
}

func testSessions(t *testing.T, open Opener) {
	t.Run("EnsureCreatesOnce", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		in := fullSession("s1")
		before := time.Now().Unix()
		got, created, err := st.EnsureSession(ctx, in)
		after := time.Now().Unix()
		must(t, err)
		if !created {
			t.Fatal("first EnsureSession: created = false")
		}
		if got.CreatedAt < before || got.CreatedAt > after {
			t.Errorf("created_at %d not within [%d, %d]", got.CreatedAt, before, after)
		}
		if got.UpdatedAt != got.CreatedAt {
			t.Errorf("updated_at %d, want created_at %d", got.UpdatedAt, got.CreatedAt)
		}
		if got.Version != 1 {
			t.Errorf("version %d, want 1", got.Version)
		}
		sameJSON(t, "returned session", sessionContent(got), sessionContent(fullSession("s1")))

		// The store keeps its own copy.
		in.SessionState["step"] = "changed by caller"
		stored, err := st.GetSession(ctx, "s1")
		must(t, err)
		sameJSON(t, "stored session", sessionContent(stored), sessionContent(fullSession("s1")))
		if stored.CreatedAt != got.CreatedAt || stored.Version != 1 {
			t.Errorf("stored created_at/version = %d/%d, want %d/1", stored.CreatedAt, stored.Version, got.CreatedAt)
		}

		again, created, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s1", SessionType: storage.SessionTeam, SessionName: "Other"})
		must(t, err)
		if created {
			t.Error("second EnsureSession: created = true")
		}
		sameJSON(t, "second EnsureSession returns the stored session", sessionContent(again), sessionContent(fullSession("s1")))
	})

	t.Run("EnsureKeepsGivenTimes", func(t *testing.T) {
		st := newStore(t, open)
		got, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: "s", SessionType: storage.SessionWorkflow,
			WorkflowID: "wf", CreatedAt: 1000, UpdatedAt: 2000})
		must(t, err)
		stored, err := st.GetSession(t.Context(), "s")
		must(t, err)
		for _, s := range []*storage.Session{got, stored} {
			if s.CreatedAt != 1000 || s.UpdatedAt != 2000 {
				t.Errorf("created_at/updated_at = %d/%d, want 1000/2000", s.CreatedAt, s.UpdatedAt)
			}
		}
	})

	t.Run("EnsureNeedsID", func(t *testing.T) {
		st := newStore(t, open)
		if _, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionType: storage.SessionAgent}); err == nil {
			t.Error("EnsureSession without session_id: no error")
		}
	})

	t.Run("GetNotFound", func(t *testing.T) {
		st := newStore(t, open)
		_, err := st.GetSession(t.Context(), "missing")
		wantErr(t, "GetSession(missing)", err, storage.ErrNotFound)
	})

	t.Run("Update", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		first, _, err := st.EnsureSession(ctx, fullSession("s1"))
		must(t, err)
		up, err := st.UpdateSession(ctx, "s1", func(s *storage.Session) error {
			s.SessionState["step"] = "paid"
			s.SessionName = "Renamed"
			s.Summary = &storage.Summary{Summary: "new summary"}
			return nil
		})
		must(t, err)
		if up.Version != first.Version+1 {
			t.Errorf("version %d, want %d", up.Version, first.Version+1)
		}
		if up.UpdatedAt < first.UpdatedAt {
			t.Errorf("updated_at went back: %d < %d", up.UpdatedAt, first.UpdatedAt)
		}
		want := fullSession("s1")
		want.SessionState["step"] = "paid"
		want.SessionName = "Renamed"
		want.Summary = &storage.Summary{Summary: "new summary"}
		sameJSON(t, "returned session", sessionContent(up), sessionContent(want))
		stored, err := st.GetSession(ctx, "s1")
		must(t, err)
		sameJSON(t, "stored session", sessionContent(stored), sessionContent(want))
		if stored.Version != up.Version || stored.CreatedAt != first.CreatedAt {
			t.Errorf("stored version/created_at = %d/%d, want %d/%d", stored.Version, stored.CreatedAt, up.Version, first.CreatedAt)
		}

		up2, err := st.UpdateSession(ctx, "s1", func(s *storage.Session) error { s.SessionState["n"] = 1; return nil })
		must(t, err)
		if up2.Version != up.Version+1 {
			t.Errorf("version after second update %d, want %d", up2.Version, up.Version+1)
		}
	})

	t.Run("UpdateErrorLeavesStateIntact", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		_, _, err := st.EnsureSession(ctx, fullSession("s1"))
		must(t, err)
		before, err := st.GetSession(ctx, "s1")
		must(t, err)
		boom := errors.New("boom")
		_, err = st.UpdateSession(ctx, "s1", func(s *storage.Session) error {
			s.SessionState["step"] = "half-done"
			s.SessionName = "half"
			return boom
		})
		wantErr(t, "UpdateSession with failing fn", err, boom)
		after, err := st.GetSession(ctx, "s1")
		must(t, err)
		sameJSON(t, "session after failed update", sessionContent(after), sessionContent(before))
		if after.Version != before.Version || after.UpdatedAt != before.UpdatedAt {
			t.Errorf("version/updated_at changed by a failed update: %d/%d -> %d/%d",
				before.Version, before.UpdatedAt, after.Version, after.UpdatedAt)
		}
	})

	t.Run("UpdateNotFound", func(t *testing.T) {
		st := newStore(t, open)
		called := false
		_, err := st.UpdateSession(t.Context(), "missing", func(*storage.Session) error { called = true; return nil })
		wantErr(t, "UpdateSession(missing)", err, storage.ErrNotFound)
		if called {
			t.Error("fn called for a missing session")
		}
	})

	t.Run("UpdateKeepsID", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		_, _, err := st.EnsureSession(ctx, fullSession("s1"))
		must(t, err)
		_, err = st.UpdateSession(ctx, "s1", func(s *storage.Session) error { s.SessionID = "hijack"; return nil })
		must(t, err)
		if _, err := st.GetSession(ctx, "hijack"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("fn changing session_id created another session (err %v)", err)
		}
		if _, err := st.GetSession(ctx, "s1"); err != nil {
			t.Errorf("session gone after fn changed its id: %v", err)
		}
	})
}

func testListSessions(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := t.Context()
	sessions := []*storage.Session{
		{SessionID: "a1", SessionType: storage.SessionAgent, AgentID: "agent-1", UserID: "u1", SessionName: "Alpha Report", CreatedAt: 1000, UpdatedAt: 5000},
		{SessionID: "a2", SessionType: storage.SessionAgent, AgentID: "agent-1", UserID: "u2", SessionName: "beta notes", CreatedAt: 2000, UpdatedAt: 4000},
		{SessionID: "a3", SessionType: storage.SessionAgent, AgentID: "agent-2", UserID: "u1", SessionName: "Gamma ÜBER", CreatedAt: 3000, UpdatedAt: 3000},
		{SessionID: "t1", SessionType: storage.SessionTeam, TeamID: "team-1", UserID: "u1", SessionName: "alpha team", CreatedAt: 4000, UpdatedAt: 2000},
		// A team session whose agent_id is set still belongs to its team.
		{SessionID: "t2", SessionType: storage.SessionTeam, TeamID: "team-2", AgentID: "agent-1", UserID: "u3", SessionName: "Zulu", CreatedAt: 5000, UpdatedAt: 1000},
		{SessionID: "w1", SessionType: storage.SessionWorkflow, WorkflowID: "wf-1", UserID: "u2", SessionName: "zeta flow", CreatedAt: 6000, UpdatedAt: 6000},
	}
	for _, s := range sessions {
		_, _, err := st.EnsureSession(ctx, s)
		must(t, err)
	}
	cases := []struct {
		name  string
		q     storage.SessionQuery
		want  []string
		total int
	}{
		{"all, default newest created first", storage.SessionQuery{}, []string{"w1", "t2", "t1", "a3", "a2", "a1"}, 6},
		{"type agent", storage.SessionQuery{SessionType: storage.SessionAgent}, []string{"a3", "a2", "a1"}, 3},
		{"type team", storage.SessionQuery{SessionType: storage.SessionTeam}, []string{"t2", "t1"}, 2},
		{"component agent-1", storage.SessionQuery{ComponentID: "agent-1"}, []string{"a2", "a1"}, 2},
		{"component team-1", storage.SessionQuery{ComponentID: "team-1"}, []string{"t1"}, 1},
		{"component wf-1", storage.SessionQuery{ComponentID: "wf-1"}, []string{"w1"}, 1},
		{"user u1", storage.SessionQuery{UserID: "u1"}, []string{"t1", "a3", "a1"}, 3},
		{"name ALPHA ignores case", storage.SessionQuery{NameContains: "ALPHA"}, []string{"t1", "a1"}, 2},
		{"name über folds unicode", storage.SessionQuery{NameContains: "über"}, []string{"a3"}, 1},
		{"name with LIKE metacharacters", storage.SessionQuery{NameContains: "%"}, nil, 0},
		{"name no match", storage.SessionQuery{NameContains: "nothing"}, nil, 0},
		{"type team and user u1", storage.SessionQuery{SessionType: storage.SessionTeam, UserID: "u1"}, []string{"t1"}, 1},
		{"page 1 of 2 per page", storage.SessionQuery{Limit: 2, Page: 1}, []string{"w1", "t2"}, 6},
		{"page 0 means 1", storage.SessionQuery{Limit: 2}, []string{"w1", "t2"}, 6},
		{"page 3", storage.SessionQuery{Limit: 2, Page: 3}, []string{"a2", "a1"}, 6},
		{"page past the end", storage.SessionQuery{Limit: 2, Page: 4}, nil, 6},
		{"page with filter", storage.SessionQuery{UserID: "u1", Limit: 2, Page: 2}, []string{"a1"}, 3},
		{"created_at asc", storage.SessionQuery{SortBy: "created_at", SortOrder: storage.Asc}, []string{"a1", "a2", "a3", "t1", "t2", "w1"}, 6},
		{"updated_at desc", storage.SessionQuery{SortBy: "updated_at", SortOrder: storage.Desc}, []string{"w1", "a1", "a2", "a3", "t1", "t2"}, 6},
		{"updated_at asc", storage.SessionQuery{SortBy: "updated_at", SortOrder: storage.Asc}, []string{"t2", "t1", "a3", "a2", "a1", "w1"}, 6},
		// Byte order, as Go compares strings: upper case sorts first.
		{"session_name asc", storage.SessionQuery{SortBy: "session_name", SortOrder: storage.Asc}, []string{"a1", "a3", "t2", "t1", "a2", "w1"}, 6},
		{"session_name desc", storage.SessionQuery{SortBy: "session_name", SortOrder: storage.Desc}, []string{"w1", "a2", "t1", "t2", "a3", "a1"}, 6},
		{"unknown sort_by falls back to created_at", storage.SessionQuery{SortBy: "drop table", SortOrder: storage.Asc}, []string{"a1", "a2", "a3", "t1", "t2", "w1"}, 6},
		{"created window inclusive", storage.SessionQuery{CreatedAfter: 2000, CreatedBefore: 4000, SortOrder: storage.Asc}, []string{"a2", "a3", "t1"}, 3},
		{"created after", storage.SessionQuery{CreatedAfter: 4001}, []string{"w1", "t2"}, 2},
		{"created before, with type", storage.SessionQuery{SessionType: storage.SessionAgent, CreatedBefore: 2999}, []string{"a2", "a1"}, 2},
		{"created window, paged", storage.SessionQuery{CreatedAfter: 1000, CreatedBefore: 5000, SortOrder: storage.Asc, Limit: 2, Page: 2}, []string{"a3", "t1"}, 5},
		{"created window empty", storage.SessionQuery{CreatedAfter: 6001}, nil, 0},
	}
	for _, c := range cases {
		got, total, err := st.ListSessions(ctx, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		sameIDs(t, c.name, sessionIDs(got), c.want)
		if total != c.total {
			t.Errorf("%s: total %d, want %d", c.name, total, c.total)
		}
	}

	// Listed sessions carry their content.
	_, err := st.UpdateSession(ctx, "a1", func(s *storage.Session) error {
		s.SessionState = map[string]any{"k": "v"}
		return nil
	})
	must(t, err)
	got, _, err := st.ListSessions(ctx, storage.SessionQuery{UserID: "u1", NameContains: "report"})
	must(t, err)
	if len(got) != 1 {
		t.Fatalf("listed %d sessions, want 1", len(got))
	}
	sameJSON(t, "listed session state", got[0].SessionState, map[string]any{"k": "v"})
	if got[0].Version != 2 || got[0].UserID != "u1" || got[0].AgentID != "agent-1" {
		t.Errorf("listed session = %+v", got[0])
	}
}

func testListSessionsTies(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := t.Context()
	for _, id := range []string{"b", "c", "a"} {
		_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: id, SessionType: storage.SessionAgent, CreatedAt: 100, UpdatedAt: 100})
		must(t, err)
	}
	asc, _, err := st.ListSessions(ctx, storage.SessionQuery{SortOrder: storage.Asc})
	must(t, err)
	sameIDs(t, "equal created_at, asc: by session_id", sessionIDs(asc), []string{"a", "b", "c"})
	desc, _, err := st.ListSessions(ctx, storage.SessionQuery{SortOrder: storage.Desc})
	must(t, err)
	sameIDs(t, "equal created_at, desc: by session_id desc", sessionIDs(desc), []string{"c", "b", "a"})
	var paged []string
	for page := 1; page <= 3; page++ {
		got, _, err := st.ListSessions(ctx, storage.SessionQuery{Limit: 1, Page: page})
		must(t, err)
		paged = append(paged, sessionIDs(got)...)
	}
	sameIDs(t, "pages of equal created_at", paged, []string{"c", "b", "a"})
}

func testDeleteSessions(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := t.Context()
	for _, sid := range []string{"s1", "s2", "s3"} {
		_, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: sid, SessionType: storage.SessionAgent, AgentID: "a"})
		must(t, err)
		for i := range 2 {
			rid := fmt.Sprintf("%s-r%d", sid, i)
			must(t, st.CreateRun(ctx, &storage.Run{RunID: rid, SessionID: sid, ComponentID: "a", Status: run.StatusCompleted,
				Data: []byte(`{"run_id":"` + rid + `"}`)}))
			_, err := st.AppendEvents(ctx, rid, []byte(`{"event":"RunStarted"}`), []byte(`{"event":"RunCompleted"}`))
			must(t, err)
		}
	}
	must(t, st.DeleteSessions(ctx, "s1", "s3", "never-existed"))
	must(t, st.DeleteSessions(ctx))
	for _, sid := range []string{"s1", "s3"} {
		if _, err := st.GetSession(ctx, sid); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("GetSession(%s) after delete: %v, want ErrNotFound", sid, err)
		}
		for i := range 2 {
			rid := fmt.Sprintf("%s-r%d", sid, i)
			if _, err := st.GetRun(ctx, rid); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("GetRun(%s) after deleting its session: %v, want ErrNotFound", rid, err)
			}
			evs, err := st.ListEvents(ctx, rid, -1)
			must(t, err)
			if len(evs) != 0 {
				t.Errorf("run %s kept %d events after its session was deleted", rid, len(evs))
			}
		}
		runs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: sid})
		must(t, err)
		if len(runs) != 0 {
			t.Errorf("ListRuns(%s) after delete: %d runs", sid, len(runs))
		}
	}
	if _, err := st.GetSession(ctx, "s2"); err != nil {
		t.Errorf("other session gone: %v", err)
	}
	runs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: "s2"})
	must(t, err)
	sameIDs(t, "other session's runs", runIDs(runs), []string{"s2-r0", "s2-r1"})
	evs, err := st.ListEvents(ctx, "s2-r1", -1)
	must(t, err)
	if len(evs) != 2 {
		t.Errorf("other session's run has %d events, want 2", len(evs))
	}
	all, total, err := st.ListSessions(ctx, storage.SessionQuery{})
	must(t, err)
	if total != 1 || len(all) != 1 {
		t.Errorf("after delete: %d sessions listed, total %d; want 1", len(all), total)
	}
}
