package eval

import (
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// GET /eval-runs reads its page from an index in its order: the default,
// created_at and updated_at both ways, a user's runs.
func TestListReadsAnIndexInOrder(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		if err := db.Migrate(t.Context(), Migrations(db)); err != nil {
			t.Fatal(err)
		}
		user := "u"
		for name, q := range map[string]Query{
			"newest":          {Limit: 20, Page: 1},
			"oldest":          {SortBy: "created_at", SortOrder: "asc", Limit: 20, Page: 2},
			"by update":       {SortBy: "updated_at", Limit: 20, Page: 1},
			"by update, asc":  {SortBy: "updated_at", SortOrder: "asc", Limit: 20, Page: 1},
			"a user's newest": {CreatedBy: &user, Limit: 20, Page: 1},
		} {
			_, list, args, paging, _, err := q.queries()
			if err != nil {
				t.Fatal(err)
			}
			sqldbtest.ReadsInOrder(t, db, name, list, append(args, paging...)...)
		}
	})
}
