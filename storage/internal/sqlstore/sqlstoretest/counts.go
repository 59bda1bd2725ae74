// Package sqlstoretest checks what the SQL stores share beyond the
// storage.Store conformance suite.
package sqlstoretest

import (
	"context"
	"fmt"
	"reflect"
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
			slow, _, _ := plain.ListSessions(q)
			sameCount(t, query, when, q, "agno_session_counts", count, slow, args)
		}
	}
	check("kept by the triggers")
	if _, n, err := st.ListSessions(ctx, storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "o9"}); err != nil || n != 1 {
		t.Errorf("the session moved to o9 counts %d there (%v)", n, err)
	}
	backfill()
	check("backfilled")
}

// sameCount compares a total_count read from the counts table with
// counting the rows.
func sameCount(t *testing.T, query CountQuerier, when string, q any, table, count, slow string, args []any) {
	t.Helper()
	if !strings.Contains(count, table) {
		t.Fatalf("%+v: total_count is not read from %s: %s", q, table, count)
	}
	cached, err := query(t.Context(), count, args...)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := query(t.Context(), slow, args...)
	if err != nil {
		t.Fatal(err)
	}
	if cached != rows {
		t.Errorf("%s: %+v: counts say %d, rows %d", when, q, cached, rows)
	}
}

// MemoryCountsMatchTheRows is SessionCountsMatchTheRows for memories:
// inserts, upserts that move a memory to another user, agent or team,
// deletes, ids with ':' in them (no two pairs may share a scope), then
// backfill.
func MemoryCountsMatchTheRows(t *testing.T, st storage.Store, d *sqlstore.Dialect, query CountQuerier, backfill func()) {
	t.Helper()
	ctx := t.Context()
	put := func(id, user, agent, team string) {
		t.Helper()
		if err := st.UpsertMemory(ctx, &storage.Memory{MemoryID: id, Memory: "m " + id, UserID: user, AgentID: agent, TeamID: team}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		put(fmt.Sprintf("m%02d", i), fmt.Sprintf("u%d", i%3), fmt.Sprintf("a%d", i%2), map[bool]string{true: "t1"}[i%5 == 0])
	}
	put("x1", "a:b", "c", "")
	put("x2", "a", "b:c", "")
	put("m00", "u9", "a9", "t9") // moved
	put("m01", "u1", "a1", "")   // rewritten, same owners
	if err := st.DeleteMemories(ctx, "m02", "m03", "nope"); err != nil {
		t.Fatal(err)
	}
	plain := *d
	plain.MemoryCounts = ""
	check := func(when string) {
		t.Helper()
		for _, q := range []storage.MemoryQuery{
			{}, {UserID: "u1"}, {AgentID: "a0"}, {TeamID: "t1"}, {UserID: "u0", AgentID: "a0"}, {UserID: "u0", TeamID: "t1"},
			{UserID: "u9", AgentID: "a9"}, {UserID: "a:b", AgentID: "c"}, {UserID: "a", AgentID: "b:c"}, {UserID: "a:b"}, {UserID: "none"},
		} {
			count, _, args := d.ListMemories(q)
			slow, _, _ := plain.ListMemories(q)
			sameCount(t, query, when, q, "agno_memory_counts", count, slow, args)
		}
	}
	check("kept by the triggers")
	if _, n, err := st.ListMemories(ctx, storage.MemoryQuery{UserID: "a", AgentID: "b:c"}); err != nil || n != 1 {
		t.Errorf("user a with agent b:c counts %d (%v), want 1", n, err)
	}
	backfill()
	check("backfilled")
}

// MemoryUsersBackfill checks that the memory users table's backfill (run
// by backfill after emptying the table) gives the stats the triggers kept.
func MemoryUsersBackfill(t *testing.T, st storage.Store, backfill func()) {
	t.Helper()
	ctx := t.Context()
	for i := range 20 {
		m := &storage.Memory{MemoryID: fmt.Sprintf("m%02d", i), Memory: "m", UserID: fmt.Sprintf("u%d", i%3), UpdatedAt: int64(10 + i), CreatedAt: 1}
		if i%7 == 0 {
			m.UserID = ""
		}
		if err := st.UpsertMemory(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	kept, n, err := st.MemoryStats(ctx, "", 0, 0)
	if err != nil || n != 3 {
		t.Fatalf("stats kept by the triggers: %+v, %d, %v", kept, n, err)
	}
	backfill()
	filled, n, err := st.MemoryStats(ctx, "", 0, 0)
	if err != nil || n != 3 || !reflect.DeepEqual(filled, kept) {
		t.Errorf("backfilled: %+v (%d, %v), kept by the triggers: %+v", filled, n, err, kept)
	}
}
