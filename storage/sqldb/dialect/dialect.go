// Package dialect is what differs between the SQL databases agno-go keeps
// its tables in: placeholders, names, types, the few clauses and
// functions that are spelled differently, locking, the form of triggers,
// and how a database reports a write refused by a unique key. Code that
// writes SQL once for every database (storage/sqldb and the features on
// it, the run stores' shared implementation) asks a Dialect instead of
// checking which database it is on.
//
// The package links no database driver (pgconn's error type aside, which
// every store links through storage/internal/dbguard): a store of one
// database links only its own.
package dialect

import (
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Dialect renders SQL for one database. Implementations are stateless
// values, safe for concurrent use.
type Dialect interface {
	// Name is the database's name, for messages and logs ("sqlite",
	// "postgres"); nothing should branch on it.
	Name() string

	// Table is a table (or index, function) name as statements write it:
	// quoted, and in schema where the database has schemas ("" for the
	// default).
	Table(schema, name string) string
	// Placeholder is the n-th (1-based) argument of a statement.
	Placeholder(n int) string

	// JSON is the column type of JSON documents a query may look into,
	// BigInt of 64-bit integers and Date of calendar dates.
	JSON() string
	BigInt() string
	Date() string

	// ForUpdate ends a SELECT of a write transaction to lock the rows it
	// reads until the commit ("" where write transactions are serial).
	ForUpdate() string
	// Collate follows a text column in ORDER BY to sort it bytewise, as Go
	// compares strings ("" where that is the default).
	Collate() string
	// IndexedBy follows table in FROM to pin a query to one of its
	// indexes ("" where the planner is left to choose).
	IndexedBy(table, index string) string

	// Greatest is the larger of two values.
	Greatest(a, b string) string
	// Contains is "haystack contains needle, ignoring case", folding case
	// as Go's strings.ToLower does (beyond ASCII too).
	Contains(haystack, needle string) string
	// JSONArrayHas is "the JSON array column holds the string arg".
	JSONArrayHas(array, arg string) string
	// JSONArrayLength is the number of elements of a JSON array column.
	JSONArrayLength(array string) string
	// JSONArrayText is a FROM item listing the strings of a JSON array
	// column, and the expression of one of them.
	JSONArrayText(array string) (from, value string)

	// InsertIgnore is the INSERT of values (a list of expressions) into
	// cols of table that inserts nothing, and fails not, where a row has
	// the same key (key: the unique columns, comma separated).
	InsertIgnore(table, cols, values, key string) string
	// Upsert is that INSERT updating, where a row has the same key, the
	// columns of update to the values it would have inserted.
	Upsert(table, cols, values, key string, update []string) string

	// MigrationLock is the statement that, run first in a migration's
	// transaction, keeps other processes from migrating key at the same
	// time, with its arguments ("" where a write transaction excludes
	// every other writer already).
	MigrationLock(key string) (stmt string, args []any)
	// Triggers is the form this database's triggers take.
	Triggers() Triggers

	// UniqueViolation reports whether err is a write refused by a unique
	// key (or primary key), with the database's message.
	UniqueViolation(err error) (msg string, ok bool)
	// PreparesStatements reports whether statements run often are worth
	// preparing once per connection (where the driver keeps no cache of
	// its own and preparing costs more than running).
	PreparesStatements() bool

	// Explain is the statement returning q's plan (its last column, one
	// row a line), with settings to run on the connection before it and
	// after.
	Explain(q string) (stmt string, set, reset []string)
	// ReadsInOrder reports whether a plan Explain returned reads an index
	// in the query's order and sorts nothing, so a page's cost does not
	// grow with the table.
	ReadsInOrder(plan string) bool
}

// Triggers is the form a database's triggers take, for the features that
// keep tables by triggers (row counts, rollups).
type Triggers int

const (
	// RowTriggers run a list of statements for each row (SQLite's
	// CREATE TRIGGER … BEGIN … END, with NEW and OLD).
	RowTriggers Triggers = iota
	// StatementTriggers run a function once per statement over its
	// transition tables (Postgres's PL/pgSQL with REFERENCING NEW TABLE).
	StatementTriggers
)

// onConflict is InsertIgnore and Upsert as SQLite and Postgres both write
// them.
type onConflict struct{}

func (onConflict) InsertIgnore(table, cols, values, key string) string {
	return "INSERT INTO " + table + " (" + cols + ") VALUES (" + values + ") ON CONFLICT (" + key + ") DO NOTHING"
}

func (onConflict) Upsert(table, cols, values, key string, update []string) string {
	set := make([]string, len(update))
	for i, c := range update {
		set[i] = c + " = excluded." + c
	}
	return "INSERT INTO " + table + " (" + cols + ") VALUES (" + values + ") ON CONFLICT (" + key + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// quote writes an identifier in double quotes, as both databases read it.
func quote(parts ...string) string {
	for i, p := range parts {
		parts[i] = `"` + strings.ReplaceAll(strings.ReplaceAll(p, "\x00", ""), `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}

// SQLite is the dialect of SQLite (modernc.org/sqlite). Its Contains
// calls LowerFunc, which storage/sqlite registers with the driver.
var SQLite Dialect = sqliteDialect{}

// LowerFunc is the SQL name of Go's strings.ToLower on SQLite, whose
// lower() folds ASCII only.
const LowerFunc = "agno_lower"

type sqliteDialect struct{ onConflict }

func (sqliteDialect) Name() string                    { return "sqlite" }
func (sqliteDialect) Table(_, name string) string     { return quote(name) }
func (sqliteDialect) Placeholder(n int) string        { return "?" + strconv.Itoa(n) }
func (sqliteDialect) JSON() string                    { return "TEXT" }
func (sqliteDialect) BigInt() string                  { return "INTEGER" }
func (sqliteDialect) Date() string                    { return "TEXT" } // 'YYYY-MM-DD', as SQLAlchemy stores a Date
func (sqliteDialect) ForUpdate() string               { return "" }
func (sqliteDialect) Collate() string                 { return "" }
func (sqliteDialect) Greatest(a, b string) string     { return "max(" + a + ", " + b + ")" }
func (sqliteDialect) JSONArrayLength(a string) string { return "json_array_length(" + a + ")" }
func (sqliteDialect) Triggers() Triggers              { return RowTriggers }
func (sqliteDialect) PreparesStatements() bool        { return true }

func (sqliteDialect) IndexedBy(table, index string) string {
	return " INDEXED BY " + table + "_" + index
}

func (sqliteDialect) Contains(h, n string) string {
	return "instr(" + LowerFunc + "(" + h + "), " + LowerFunc + "(" + n + ")) > 0"
}

func (sqliteDialect) JSONArrayHas(array, arg string) string {
	return "EXISTS (SELECT 1 FROM json_each(" + array + ") WHERE json_each.value = " + arg + ")"
}

func (sqliteDialect) JSONArrayText(array string) (from, value string) {
	return "json_each(" + array + ") j", "j.value"
}

func (sqliteDialect) MigrationLock(string) (string, []any) { return "", nil }

// sqliteCode is modernc.org/sqlite's *Error.
type sqliteCode interface{ Code() int }

// Extended result codes of a unique or primary key refusing a row.
const (
	sqliteConstraintPrimaryKey = 1555
	sqliteConstraintUnique     = 2067
)

func (sqliteDialect) UniqueViolation(err error) (string, bool) {
	var e interface {
		error
		sqliteCode
	}
	if errors.As(err, &e) && (e.Code() == sqliteConstraintPrimaryKey || e.Code() == sqliteConstraintUnique) {
		return e.Error(), true
	}
	return "", false
}

func (sqliteDialect) Explain(q string) (string, []string, []string) {
	return "EXPLAIN QUERY PLAN " + q, nil, nil
}

func (sqliteDialect) ReadsInOrder(plan string) bool {
	return (strings.Contains(plan, "USING INDEX") || strings.Contains(plan, "USING COVERING INDEX")) && !strings.Contains(plan, "TEMP B-TREE")
}

// Postgres is the dialect of PostgreSQL (pgx).
var Postgres Dialect = postgresDialect{}

type postgresDialect struct{ onConflict }

func (postgresDialect) Name() string                    { return "postgres" }
func (postgresDialect) Placeholder(n int) string        { return "$" + strconv.Itoa(n) }
func (postgresDialect) JSON() string                    { return "JSONB" }
func (postgresDialect) BigInt() string                  { return "BIGINT" }
func (postgresDialect) Date() string                    { return "DATE" }
func (postgresDialect) ForUpdate() string               { return " FOR UPDATE" }
func (postgresDialect) Collate() string                 { return ` COLLATE "C"` }
func (postgresDialect) IndexedBy(string, string) string { return "" }
func (postgresDialect) Greatest(a, b string) string     { return "GREATEST(" + a + ", " + b + ")" }
func (postgresDialect) JSONArrayLength(a string) string { return "json_array_length(" + a + ")" }
func (postgresDialect) Triggers() Triggers              { return StatementTriggers }
func (postgresDialect) PreparesStatements() bool        { return false } // pgx caches them per connection

func (postgresDialect) Table(schema, name string) string {
	if schema == "" {
		return quote(name)
	}
	return quote(schema, name)
}

func (postgresDialect) Contains(h, n string) string {
	return "strpos(lower(" + h + "), lower(" + n + "::text)) > 0"
}

func (postgresDialect) JSONArrayHas(array, arg string) string {
	return array + " @> jsonb_build_array(" + arg + "::text)"
}

func (postgresDialect) JSONArrayText(array string) (from, value string) {
	return "jsonb_array_elements_text(" + array + ") AS t", "t"
}

func (postgresDialect) MigrationLock(key string) (string, []any) {
	return "SELECT pg_advisory_xact_lock(hashtext($1))", []any{key}
}

func (postgresDialect) UniqueViolation(err error) (string, bool) {
	var e *pgconn.PgError
	if errors.As(err, &e) && e.Code == "23505" {
		return e.Message, true
	}
	return "", false
}

func (postgresDialect) Explain(q string) (string, []string, []string) {
	// Sequential scans priced out: the shape a planner without statistics
	// (a small or never-analyzed table) still has in front of it.
	return "EXPLAIN " + q, []string{"SET enable_seqscan = off"}, []string{"RESET enable_seqscan"}
}

func (postgresDialect) ReadsInOrder(plan string) bool {
	return strings.Contains(plan, "Index") && !strings.Contains(plan, "Sort")
}
