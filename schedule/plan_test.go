package schedule

import (
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// GET /schedules (all, an owner's) and a schedule's runs read their page
// from an index in the listing's order.
func TestListsReadAnIndexInOrder(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		newStore(t, db)
		owner := "u"
		for name, o := range map[string]ListOptions{
			"all":        {},
			"an owner's": {CreatedBy: &owner},
		} {
			_, list, args, _ := o.queries()
			sqldbtest.ReadsInOrder(t, db, name, list, append(args, 100, 0)...)
		}
		sqldbtest.ReadsInOrder(t, db, "a schedule's runs", listRuns, "s", 100, 0)
	})
}
