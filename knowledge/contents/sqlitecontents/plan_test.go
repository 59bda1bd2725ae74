package sqlitecontents

import (
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
)

// The content listings read their page from an index in their order:
// by creation or update, either way, of all rows or of a knowledge base.
func TestListUsesAnIndexInOrder(t *testing.T) {
	s := open(t, Config{})
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
		rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+list+" LIMIT 20 OFFSET 20", args...)
		if err != nil {
			t.Fatal(err)
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
		if text := strings.Join(plan, "; "); strings.Contains(text, "TEMP B-TREE") || !strings.Contains(text, "USING INDEX") {
			t.Errorf("%s: plan %q sorts outside an index", name, text)
		}
	}
}
