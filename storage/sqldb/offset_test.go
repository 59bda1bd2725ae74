package sqldb_test

import (
	"context"
	"math"
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// Offset never wraps: a page whose (page-1)*limit overflows saturates at
// the largest int, which both backends take as OFFSET and answer no rows
// for (a wrapped offset read the first page, or was a negative OFFSET
// Postgres refuses).
func TestOffsetSaturates(t *testing.T) {
	for _, c := range []struct{ page, limit, want int }{
		{0, 20, 0}, {1, 20, 0}, {3, 20, 40}, {2, 0, 0},
		{math.MaxInt, 20, math.MaxInt},
		{1<<62 + 1, 20, math.MaxInt}, // wrapped to 0
		{math.MaxInt/20 + 1, 20, math.MaxInt / 20 * 20},
		{math.MaxInt/20 + 2, 20, math.MaxInt},
	} {
		if got := sqldb.Offset(c.page, c.limit); got != c.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", c.page, c.limit, got, c.want)
		}
	}
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if _, err := db.Exec(ctx, `CREATE TABLE {t:agno_pages} (id INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO {t:agno_pages} (id) VALUES (1), (2)`); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(ctx, `SELECT id FROM {t:agno_pages} ORDER BY id LIMIT ? OFFSET ?`, 20, sqldb.Offset(math.MaxInt, 20))
		if err != nil {
			t.Fatal(err)
		}
		ids, err := sqldb.Collect(rows, func(r sqldb.Row) (int, error) { var id int; return id, r.Scan(&id) })
		if err != nil || len(ids) != 0 {
			t.Fatalf("far page: %v %v", ids, err)
		}
	})
}
