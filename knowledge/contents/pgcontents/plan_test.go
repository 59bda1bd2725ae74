package pgcontents

import (
	"testing"

	"github.com/agno-go/agno/internal/plantest"
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
		plantest.ReadsInOrder(t, name, plantest.Postgres(t, conn, list+" LIMIT 20 OFFSET 20", args...), true)
	}
}
