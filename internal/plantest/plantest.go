// Package plantest reads query plans for tests that keep hot queries on
// their indexes, on SQLite and on Postgres.
package plantest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/storage/sqldb/dialect"
)

// SQL is a database/sql handle, connection or transaction.
type SQL interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SQLite is SQLite's EXPLAIN QUERY PLAN of q, one detail a line.
func SQLite(t testing.TB, db SQL, q string, args ...any) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// PGX is one pgx connection (a pool's settings would not stay on it).
type PGX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Postgres is EXPLAIN of q with sequential scans priced out: the shape a
// planner without statistics (a small or never-analyzed table) still has
// in front of it.
func Postgres(t testing.TB, conn PGX, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan")
	rows, err := conn.Query(ctx, "EXPLAIN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// InOrder reports whether a plan reads an index in the query's order: it
// uses an index and sorts nothing, so a page's cost does not grow with
// the table.
func InOrder(plan string, postgres bool) bool { return of(postgres).ReadsInOrder(plan) }

func of(postgres bool) dialect.Dialect {
	if postgres {
		return dialect.Postgres
	}
	return dialect.SQLite
}

// ReadsInOrder fails the test when plan is not InOrder.
func ReadsInOrder(t testing.TB, name, plan string, postgres bool) {
	t.Helper()
	ReadsInOrderOn(t, of(postgres), name, plan)
}

// ReadsInOrderOn fails the test when plan, as d's database explains it,
// does not read an index in the query's order (d.ReadsInOrder).
func ReadsInOrderOn(t testing.TB, d dialect.Dialect, name, plan string) {
	t.Helper()
	if !d.ReadsInOrder(plan) {
		t.Errorf("%s: plan\n%s\nsorts outside an index", name, plan)
		return
	}
	t.Logf("%s: %s", name, strings.ReplaceAll(plan, "\n", "; "))
}
