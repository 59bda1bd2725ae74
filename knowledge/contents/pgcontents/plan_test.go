package pgcontents

import (
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
)

// The content listings read their page from an index in their order: by
// creation or update, either way, of all rows or of a knowledge base.
// Sequential scans are priced out, the shape a planner without
// statistics still has in front of it.
func TestListUsesAnIndexInOrder(t *testing.T) {
	s := open(t, Config{})
	ctx := t.Context()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan")
	for name, opts := range map[string]contents.ListOptions{
		"newest":           {},
		"oldest":           {SortOrder: contents.SortAsc},
		"by update":        {SortBy: "updated_at"},
		"a base's, newest": {LinkedTo: "kb"},
		"a base's, oldest": {LinkedTo: "kb", SortOrder: contents.SortAsc},
		"a base's updates": {LinkedTo: "kb", SortBy: "updated_at"},
	} {
		_, list, args, err := s.queries(opts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, "EXPLAIN "+list+" LIMIT 20 OFFSET 20", args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, l)
		}
		rows.Close()
		if text := strings.Join(plan, "\n"); strings.Contains(text, "Sort") || !strings.Contains(text, "Index") {
			t.Errorf("%s: plan\n%s\nsorts outside an index", name, text)
		}
	}
}
