package sqlite

import (
	"strings"
	"testing"

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
	} {
		q := tc.q
		query, args := st.d.ListRuns(q, "row_seq")
		rows, err := st.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		if !strings.Contains(text, "SEARCH agno_runs USING INDEX "+tc.index) {
			t.Errorf("%s: plan %q does not seek through %s", name, text, tc.index)
		}
	}
}
