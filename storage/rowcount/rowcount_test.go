package rowcount_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agno-go/agno/storage/rowcount"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

var spec = rowcount.Spec{Scopes: [][]string{{}, {"owner"}, {"done"}, {"owner", "done"}, {"tag"}}}

func names(db *sqldb.DB) rowcount.Names {
	return rowcount.Names{Postgres: db.Kind == sqldb.Postgres, Table: "{t:items}", Counts: "{t:item_counts}",
		Func: "{t:items_count}", Trigger: "items_counted"}
}

// count reads one filter's count through Lookup, failing when no scope
// serves it.
func count(t *testing.T, db *sqldb.DB, eq ...rowcount.Eq) int64 {
	t.Helper()
	q, args, ok := spec.Lookup(db.Kind == sqldb.Postgres, "{t:item_counts}", eq)
	if !ok {
		t.Fatalf("no scope for %v", eq)
	}
	var n int64
	if err := db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// check compares every scope's count with counting the rows, for every
// value the rows hold and one they do not.
func check(t *testing.T, db *sqldb.DB, when string) {
	t.Helper()
	ctx := context.Background()
	var want int64
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:items}`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := count(t, db); got != want {
		t.Errorf("%s: all: %d, rows %d", when, got, want)
	}
	for _, owner := range []string{"a", "b", "a:b", "ab", "ü", "none"} {
		for _, done := range []bool{false, true} {
			var byOwner, byDone, both int64
			_ = db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:items} WHERE owner = ?`, owner).Scan(&byOwner)
			_ = db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:items} WHERE done = ?`, done).Scan(&byDone)
			_ = db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:items} WHERE owner = ? AND done = ?`, owner, done).Scan(&both)
			if got := count(t, db, rowcount.Eq{Col: "owner", Val: owner}); got != byOwner {
				t.Errorf("%s: owner %q: %d, rows %d", when, owner, got, byOwner)
			}
			if got := count(t, db, rowcount.Eq{Col: "done", Val: done}); got != byDone {
				t.Errorf("%s: done %v: %d, rows %d", when, done, got, byDone)
			}
			// The columns in the other order than the scope's.
			if got := count(t, db, rowcount.Eq{Col: "done", Val: done}, rowcount.Eq{Col: "owner", Val: owner}); got != both {
				t.Errorf("%s: owner %q done %v: %d, rows %d", when, owner, done, got, both)
			}
		}
	}
	for tag := range 4 {
		var want int64
		_ = db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:items} WHERE tag = ?`, tag).Scan(&want)
		if got := count(t, db, rowcount.Eq{Col: "tag", Val: tag}); got != want {
			t.Errorf("%s: tag %d: %d, rows %d", when, tag, got, want)
		}
	}
}

func TestCountsFollowTheRows(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		table := sqldb.Migration{Table: "items", Version: 1, Stmts: []string{
			`CREATE TABLE {t:items} (id TEXT PRIMARY KEY, owner TEXT, done BOOLEAN NOT NULL, tag BIGINT)`,
		}}
		if err := db.Migrate(ctx, []sqldb.Migration{table}); err != nil {
			t.Fatal(err)
		}
		// Rows from before the counts: the backfill counts them.
		for i := range 30 {
			if _, err := db.Exec(ctx, `INSERT INTO {t:items} (id, owner, done, tag) VALUES (?, ?, ?, ?)`,
				fmt.Sprint("old", i), []string{"a", "b", "a:b"}[i%3], i%2 == 0, i%4); err != nil {
				t.Fatal(err)
			}
		}
		counts := sqldb.Migration{Table: "item_counts", Version: 1, Stmts: spec.Statements(names(db))}
		if err := db.Migrate(ctx, []sqldb.Migration{table, counts}); err != nil {
			t.Fatal(err)
		}
		check(t, db, "backfill")

		owners := []any{"a", "b", "a:b", "ab", "ü", nil, ""}
		r := rand.New(rand.NewPCG(1, 2))
		for step := range 200 {
			id := fmt.Sprint("id", r.IntN(60))
			owner, done, tag := owners[r.IntN(len(owners))], r.IntN(2) == 0, r.IntN(4)
			var err error
			switch r.IntN(6) {
			case 0, 1:
				_, err = db.Exec(ctx, `INSERT INTO {t:items} (id, owner, done, tag) VALUES (?, ?, ?, ?)
					ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, done = excluded.done`, id, owner, done, tag)
			case 2:
				_, err = db.Exec(ctx, `UPDATE {t:items} SET owner = ?, tag = ? WHERE id = ?`, owner, tag, id)
			case 3:
				_, err = db.Exec(ctx, `UPDATE {t:items} SET done = ? WHERE owner = ?`, done, owner)
			case 4:
				_, err = db.Exec(ctx, `DELETE FROM {t:items} WHERE id = ?`, id)
			case 5:
				err = db.InTx(ctx, func(tx *sqldb.Tx) error {
					for i := range 5 {
						if _, err := tx.Exec(ctx, `INSERT INTO {t:items} (id, owner, done, tag) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
							fmt.Sprint("bulk", step, i), owner, done, i%4); err != nil {
							return err
						}
					}
					_, err := tx.Exec(ctx, `DELETE FROM {t:items} WHERE tag = ? AND owner = ?`, tag, "b")
					return err
				})
			}
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if step%20 == 19 {
				check(t, db, fmt.Sprint("step ", step))
			}
		}
		if _, err := db.Exec(ctx, `DELETE FROM {t:items}`); err != nil {
			t.Fatal(err)
		}
		check(t, db, "all deleted")
		// Deleted values count nothing (on Postgres, a shard may hold
		// what another took away).
		var left int64
		if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT scope FROM {t:item_counts} GROUP BY scope HAVING SUM(n) <> 0) g`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Errorf("%d scopes count rows after every row was deleted", left)
		}
	})
}

func TestLookupServesOnlyItsScopes(t *testing.T) {
	for _, eq := range [][]rowcount.Eq{
		{{Col: "other", Val: "x"}},                           // no such scope
		{{Col: "owner", Val: "a"}, {Col: "tag", Val: 1}},     // no scope with both
		{{Col: "owner", Val: ""}},                            // '' and NULL share a key
		{{Col: "owner", Val: 1.5}},                           // a type CAST would write otherwise
		{{Col: "owner", Val: "a"}, {Col: "owner", Val: "b"}}, // one column twice
	} {
		if q, _, ok := spec.Lookup(false, "c", eq); ok {
			t.Errorf("%v: served by %s", eq, q)
		}
	}
}
