// Package sqldbtest opens the control-plane databases tests run on: a
// real SQLite file and a real Postgres schema (AGNO_TEST_POSTGRES_DSN,
// a fresh schema per test).
package sqldbtest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/plantest"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
)

// Each runs fn once on SQLite and once on Postgres, as subtests.
func Each(t *testing.T, fn func(t *testing.T, db *sqldb.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// SQLite opens a new SQLite file under the test's directory.
func SQLite(t testing.TB) *sqldb.DB {
	t.Helper()
	db, err := sqldb.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "control.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Postgres opens a fresh schema of the test database.
func Postgres(t testing.TB) *sqldb.DB {
	t.Helper()
	dsn := pgtest.DSN(t)
	db, err := sqldb.OpenPostgres(context.Background(), dsn, pgtest.Schema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	// Registered after Schema's cleanup, so it runs first: the pool is
	// closed before the schema is dropped.
	t.Cleanup(func() { db.Close() })
	return db
}

// Plan returns the plan of q (written with ? and {t:name}) as the
// database's Dialect explains it: SQLite's EXPLAIN QUERY PLAN details, or
// Postgres' EXPLAIN with sequential scans priced out, the shape a planner
// without statistics still has in front of it.
func Plan(t testing.TB, db *sqldb.DB, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	explain, set, reset := db.Dialect().Explain(db.Rebind(q))
	for _, stmt := range set {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, stmt := range reset {
			_, _ = conn.ExecContext(ctx, stmt)
		}
	}()
	rows, err := conn.QueryContext(ctx, explain, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		cells := make([]any, len(cols))
		var detail string
		for i := range cells {
			cells[i] = new(any)
		}
		cells[len(cells)-1] = &detail // the plan text is the last column on both
		if err := rows.Scan(cells...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// ReadsInOrder fails the test when q's plan sorts or reads no index: a
// page must come from an index in the query's order, so its cost does
// not grow with the table.
func ReadsInOrder(t testing.TB, db *sqldb.DB, name, q string, args ...any) {
	t.Helper()
	plantest.ReadsInOrderOn(t, db.Dialect(), name, Plan(t, db, q, args...))
}
