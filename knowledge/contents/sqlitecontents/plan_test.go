package sqlitecontents

import (
	"testing"

	"github.com/agno-go/agno/internal/plantest"
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
		_, _, list, args, err := s.queries(opts)
		if err != nil {
			t.Fatal(err)
		}
		plantest.ReadsInOrder(t, name, plantest.SQLite(t, s.r, list+" LIMIT 20 OFFSET 20", args...), false)
	}
}
