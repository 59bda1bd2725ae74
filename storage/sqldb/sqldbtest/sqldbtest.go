// Package sqldbtest opens the control-plane databases tests run on: a
// real SQLite file and a real Postgres schema (AGNO_TEST_POSTGRES_DSN,
// a fresh schema per test).
package sqldbtest

import (
	"context"
	"path/filepath"
	"testing"

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
