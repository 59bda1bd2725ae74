package plantest

import "testing"

// Plans as SQLite 3.5x and Postgres 15 print them.
func TestInOrder(t *testing.T) {
	for _, c := range []struct {
		plan     string
		postgres bool
		want     bool
	}{
		{"SEARCH agno_sessions USING INDEX agno_sessions_agent_idx (agent_id=? AND session_type=?)", false, true},
		{"SCAN agno_memories USING COVERING INDEX agno_memories_updated_idx", false, true},
		{"SCAN agno_sessions USING INDEX agno_sessions_created_idx\nUSE TEMP B-TREE FOR LAST TERM OF ORDER BY", false, false},
		{"SCAN agno_sessions", false, false},
		{"Limit  (cost=0.15..8.17 rows=1 width=40)\n  ->  Index Scan Backward using agno_sessions_created_idx on agno_sessions", true, true},
		{"Limit\n  ->  Incremental Sort\n        ->  Index Scan using agno_sessions_created_idx on agno_sessions", true, false},
		{"Seq Scan on agno_sessions", true, false},
	} {
		if got := InOrder(c.plan, c.postgres); got != c.want {
			t.Errorf("InOrder(%q, %v) = %v, want %v", c.plan, c.postgres, got, c.want)
		}
	}
}
