// Package sqlstoretest checks what the SQL stores share beyond the
// storage.Store conformance suite.
package sqlstoretest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

// CountQuerier runs a one-value query on the store's database.
type CountQuerier func(ctx context.Context, query string, args ...any) (int64, error)

// SessionCountsMatchTheRows checks that the session counts the triggers
// keep give the same total_count as counting the rows, after creates, an
// owner change and deletes, and after backfill (which must empty the
// counts and run the migration's backfill on the same rows).
func SessionCountsMatchTheRows(t *testing.T, st storage.Store, d *sqlstore.Dialect, query CountQuerier, backfill func()) {
	t.Helper()
	ctx := t.Context()
	types := []storage.SessionType{storage.SessionAgent, storage.SessionTeam, storage.SessionWorkflow}
	for i := range 60 {
		typ := types[i%3]
		s := &storage.Session{SessionID: fmt.Sprintf("s%02d", i), SessionType: typ, UserID: "u"}
		s.SetComponentID(fmt.Sprintf("o%d", i%4))
		if _, _, err := st.EnsureSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.UpdateSession(ctx, "s00", func(s *storage.Session) error { s.AgentID = "o9"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSession(ctx, "s03", func(s *storage.Session) error { s.SessionName = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteSessions(ctx, "s01", "s02", "s04", "nope"); err != nil {
		t.Fatal(err)
	}
	plain := *d
	plain.SessionCounts = ""
	check := func(when string) {
		t.Helper()
		for _, q := range []storage.SessionQuery{
			{}, {SessionType: storage.SessionAgent}, {SessionType: storage.SessionTeam, ComponentID: "o1"},
			{SessionType: storage.SessionAgent, ComponentID: "o9"}, {SessionType: storage.SessionAgent, ComponentID: "o0"},
			{ComponentID: "o2"}, {SessionType: storage.SessionWorkflow, ComponentID: "none"},
		} {
			count, _, args := d.ListSessions(q)
			if !strings.Contains(count, "agno_session_counts") {
				t.Fatalf("%+v: total_count is not read from the counts: %s", q, count)
			}
			cached, err := query(ctx, count, args...)
			if err != nil {
				t.Fatal(err)
			}
			slow, _, args := plain.ListSessions(q)
			rows, err := query(ctx, slow, args...)
			if err != nil {
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
	backfill()
	check("backfilled")
}
