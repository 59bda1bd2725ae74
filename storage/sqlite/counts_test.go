package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/storage"
)

// The session counts the triggers keep give the same total_count as
// counting the rows, after creates, an owner change and deletes, and the
// migration's backfill counts a store that had sessions before it.
func TestSessionCountsMatchTheRows(t *testing.T) {
	st := openTemp(t)
	ctx := t.Context()
	types := []storage.SessionType{storage.SessionAgent, storage.SessionTeam, storage.SessionWorkflow}
	for i := range 60 {
		typ := types[i%3]
		s := &storage.Session{SessionID: fmt.Sprintf("s%02d", i), SessionType: typ, UserID: "u"}
		owner := fmt.Sprintf("o%d", i%4)
		switch typ {
		case storage.SessionTeam:
			s.TeamID = owner
		case storage.SessionWorkflow:
			s.WorkflowID = owner
		default:
			s.AgentID = owner
		}
		if _, _, err := st.EnsureSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.UpdateSession(ctx, "s00", func(s *storage.Session) error { s.AgentID = "o9"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSessions(ctx, "s01", "s02", "s03", "nope"); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, q := range []storage.SessionQuery{
			{}, {SessionType: storage.SessionAgent}, {SessionType: storage.SessionTeam, ComponentID: "o1"},
			{SessionType: storage.SessionAgent, ComponentID: "o9"}, {SessionType: storage.SessionAgent, ComponentID: "o0"},
			{ComponentID: "o2"}, {SessionType: storage.SessionWorkflow, ComponentID: "none"},
		} {
			count, _, args := st.d.ListSessions(q)
			if !strings.Contains(count, "agno_session_counts") {
				t.Fatalf("%+v: total_count is not read from the counts: %s", q, count)
			}
			var cached, rows int
			if err := st.r.QueryRowContext(ctx, count, args...).Scan(&cached); err != nil {
				t.Fatal(err)
			}
			plain := *st.d
			plain.SessionCounts = ""
			slow, _, args := plain.ListSessions(q)
			if err := st.r.QueryRowContext(ctx, slow, args...).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if cached != rows {
				t.Errorf("%s: %+v: counts say %d, rows %d", when, q, cached, rows)
			}
		}
	}
	check("kept by the triggers")
	if _, n, err := st.ListSessions(ctx, storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "o9"}); err != nil || n != 1 {
		t.Errorf("the session moved to o9 counts %d there (%v)", n, err)
	}

	// The backfill, on the same rows.
	if _, err := st.w.ExecContext(ctx, "DELETE FROM agno_session_counts"); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		if m.table == "agno_session_counts" {
			if _, err := st.w.ExecContext(ctx, m.stmts[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("backfilled")
}
