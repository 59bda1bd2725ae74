package approval

import (
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// GET /approvals reads its page from an index in the listing's order:
// all approvals, the pending queue, a scoped user's, a user's pending.
func TestListReadsAnIndexInOrder(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		if err := db.Migrate(t.Context(), Migrations(db)); err != nil {
			t.Fatal(err)
		}
		for name, f := range map[string]Filter{
			"all":               {Limit: 100, Page: 1},
			"pending":           {Status: StatusPending, Limit: 100, Page: 2},
			"a user's":          {UserID: "u", Limit: 100, Page: 1},
			"a user's, pending": {UserID: "u", Status: StatusPending, Limit: 100, Page: 1},
		} {
			_, list, args, _ := f.queries()
			sqldbtest.ReadsInOrder(t, db, name, list, args...)
		}
	})
}
