package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/plantest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// The engine's and the HITL socket's queries over all runs seek the few
// runs they want through an index; a walk of every run (SQLite's choice
// without statistics, to spare a sort) costs more with every run stored.
func TestQueriesOverAllRunsUseAnIndex(t *testing.T) {
	st := openTemp(t)
	for name, tc := range map[string]struct {
		q     storage.RunQuery
		index string
	}{
		"recovery":        {storage.RunQuery{Status: []run.Status{run.StatusRunning, run.StatusPending}}, "agno_runs_status_owner_idx"},
		"cancel requests": {storage.RunQuery{Owner: "host:7777", CancelRequested: true, Status: []run.Status{run.StatusPending, run.StatusRunning}}, "agno_runs_status_owner_idx"},
		"paused runs":     {storage.RunQuery{Status: []run.Status{run.StatusPaused}, TopLevel: true}, "agno_runs_status_owner_idx"},
		"recent changes":  {storage.RunQuery{UpdatedAfter: 1}, "agno_runs_updated_idx"},
		"others' changes": {storage.RunQuery{UpdatedAfter: 1, ExcludeOwner: "host:7777", WithoutData: true}, "agno_runs_updated_idx"},
	} {
		query, args := st.d.ListRuns(tc.q, "row_seq")
		text := plantest.SQLite(t, st.r, query, args...)
		if !strings.Contains(text, "SEARCH agno_runs USING INDEX "+tc.index) {
			t.Errorf("%s: plan %q does not seek through %s", name, text, tc.index)
		}
	}
}

// The queries of one session's or one run's rows read only that
// session's or run's range of an index, whatever the statistics say: here
// after ANALYZE of a store whose top-level runs are all in other sessions
// (the statistics that made SQLite walk every top-level run to spare a
// sort), and the page sorts of the session listings come from the index.
func TestQueriesOfOneSessionOrRunUseTheirIndex(t *testing.T) {
	st := openTemp(t)
	ctx := t.Context()
	for i := range 300 {
		id := fmt.Sprintf("s%03d", i)
		sess := &storage.Session{SessionID: id, SessionType: storage.SessionAgent, AgentID: "a", CreatedAt: int64(i), UpdatedAt: int64(i)}
		r := &storage.Run{RunID: "r" + id, SessionID: id, SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusCompleted, CreatedAt: int64(i), UpdatedAt: int64(i), Data: []byte(`{}`)}
		if _, err := st.StartRun(ctx, sess, r, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.w.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		q     storage.RunQuery
		index string
	}{
		"history":      {storage.RunQuery{SessionID: "s001", TopLevel: true, Newest: true, Limit: 10}, "agno_runs_session_idx (session_id=? AND parent_run_id=?)"},
		"session runs": {storage.RunQuery{SessionID: "s001"}, "agno_runs_session_idx (session_id=?)"},
		"sessions":     {storage.RunQuery{SessionIDs: []string{"s001", "s002"}, TopLevel: true}, "agno_runs_session_idx (session_id=? AND parent_run_id=?)"},
		"member runs":  {storage.RunQuery{ParentRunID: "rs001"}, "agno_runs_parent_idx (parent_run_id=?)"},
		"a component":  {storage.RunQuery{ComponentID: "a", Newest: true, Limit: 20}, "agno_runs_component_idx (component_id=?)"},
	} {
		query, args := st.d.ListRuns(tc.q, "row_seq")
		text := plantest.SQLite(t, st.r, query, args...)
		if !strings.Contains(text, "SEARCH agno_runs USING INDEX "+tc.index) {
			t.Errorf("%s: plan %q does not seek through %s", name, text, tc.index)
		}
	}
	for name, tc := range map[string]struct {
		q     storage.SessionQuery
		index string // the (partial) index it must seek, if one
	}{
		"all, newest":       {storage.SessionQuery{SortOrder: storage.Desc, Limit: 20, Page: 1}, ""},
		"by update":         {storage.SessionQuery{SortBy: "updated_at", SortOrder: storage.Desc, Limit: 20, Page: 1}, ""},
		"an agent's (agno)": {storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "a", SortOrder: storage.Desc, Limit: 20, Page: 1}, "agno_sessions_agent_idx"},
		"a team's":          {storage.SessionQuery{SessionType: storage.SessionTeam, ComponentID: "t", Limit: 20, Page: 1}, "agno_sessions_team_idx"},
		"a user's":          {storage.SessionQuery{UserID: "u", SortOrder: storage.Desc, Limit: 20, Page: 1}, "agno_sessions_user_idx"},
		"of a type":         {storage.SessionQuery{SessionType: storage.SessionWorkflow, Limit: 20, Page: 1}, ""},
	} {
		_, list, args := st.d.ListSessions(tc.q)
		text := plantest.SQLite(t, st.r, list, args...)
		plantest.ReadsInOrder(t, name, text, false)
		if tc.index != "" && !strings.Contains(text, "SEARCH agno_sessions USING INDEX "+tc.index+" (") {
			t.Errorf("%s: plan %q does not seek through %s", name, text, tc.index)
		}
	}
}

// The memory listings read their page from an index in their order: all
// memories by update or creation (either way) and a user's, an agent's or
// a team's by update.
func TestMemoryListingsUseTheirIndex(t *testing.T) {
	st := openTemp(t)
	for name, q := range map[string]storage.MemoryQuery{
		"newest":      {SortOrder: storage.Desc, Limit: 20, Page: 1},
		"oldest":      {SortBy: "created_at", SortOrder: storage.Asc, Limit: 20, Page: 2},
		"by creation": {SortBy: "created_at", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"a user's":    {UserID: "u", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"an agent's":  {AgentID: "a", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"a team's":    {TeamID: "t", SortOrder: storage.Asc, Limit: 20, Page: 1},
	} {
		_, list, args := st.d.ListMemories(q)
		plantest.ReadsInOrder(t, name, plantest.SQLite(t, st.r, list, args...), false)
	}
}
