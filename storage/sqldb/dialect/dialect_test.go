package dialect_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/storage/sqldb/dialect"
)

// sqliteErr is modernc.org/sqlite's error as the dialect reads it.
type sqliteErr int

func (e sqliteErr) Error() string { return fmt.Sprintf("constraint failed (%d)", int(e)) }
func (e sqliteErr) Code() int     { return int(e) }

func TestRendering(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{dialect.SQLite.Placeholder(3), "?3"},
		{dialect.Postgres.Placeholder(3), "$3"},
		{dialect.SQLite.Table("ai", "agno_runs"), `"agno_runs"`},
		{dialect.Postgres.Table("ai", "agno_runs"), `"ai"."agno_runs"`},
		{dialect.Postgres.Table("", `we"ird`), `"we""ird"`},
		{dialect.SQLite.IndexedBy("agno_runs", "session_idx"), " INDEXED BY agno_runs_session_idx"},
		{dialect.Postgres.IndexedBy("agno_runs", "session_idx"), ""},
		{dialect.SQLite.InsertIgnore("t", "a, b", "?1, ?2", "a"), "INSERT INTO t (a, b) VALUES (?1, ?2) ON CONFLICT (a) DO NOTHING"},
		{dialect.Postgres.Upsert("t", "a, b, c", "$1, $2, $3", "a", []string{"b", "c"}),
			"INSERT INTO t (a, b, c) VALUES ($1, $2, $3) ON CONFLICT (a) DO UPDATE SET b = excluded.b, c = excluded.c"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if dialect.SQLite.Triggers() != dialect.RowTriggers || dialect.Postgres.Triggers() != dialect.StatementTriggers {
		t.Error("trigger forms")
	}
	if stmt, _ := dialect.SQLite.MigrationLock("k"); stmt != "" {
		t.Errorf("SQLite migration lock %q: its write lock is the lock", stmt)
	}
}

func TestUniqueViolation(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("insert: %w", err) }
	if msg, ok := dialect.Postgres.UniqueViolation(wrap(&pgconn.PgError{Code: "23505", Message: "duplicate key"})); !ok || msg != "duplicate key" {
		t.Errorf("postgres 23505: %q %v", msg, ok)
	}
	if _, ok := dialect.Postgres.UniqueViolation(wrap(&pgconn.PgError{Code: "23503"})); ok {
		t.Error("postgres: a foreign key violation is not a unique one")
	}
	for _, code := range []int{1555, 2067} {
		if _, ok := dialect.SQLite.UniqueViolation(wrap(sqliteErr(code))); !ok {
			t.Errorf("sqlite %d is a unique violation", code)
		}
	}
	if _, ok := dialect.SQLite.UniqueViolation(wrap(sqliteErr(1299))); ok { // NOT NULL
		t.Error("sqlite: a NOT NULL violation is not a unique one")
	}
	if _, ok := dialect.SQLite.UniqueViolation(errors.New("x")); ok {
		t.Error("a plain error")
	}
}
