package tracestore

import (
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// GET /traces reads its page from an index in its order: all traces and
// a scoped user's. (A time window is the planner's call: Postgres sorts
// a window it expects to be small.)
func TestTracesReadAnIndexInOrder(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		if err := db.Migrate(t.Context(), Migrations(db)); err != nil {
			t.Fatal(err)
		}
		for name, q := range map[string]Query{
			"newest":   {Limit: 20},
			"a user's": {UserID: "u", Limit: 20, Page: 2},
		} {
			_, list, args, _, err := q.traceQueries()
			if err != nil {
				t.Fatal(err)
			}
			limit, offset := q.page()
			sqldbtest.ReadsInOrder(t, db, name, list, append(args, limit, offset)...)
		}
		sqldbtest.ReadsInOrder(t, db, "session stats", sessionPage, 20, 20)
	})
}
