// Package sqldb is the SQL database the AgentOS control plane keeps its
// tables in (approvals, schedules, traces, metrics, evals, components):
// the SQLite file or the Postgres schema of the run store, reached
// through database/sql so that each feature writes its SQL once.
//
// Queries use ? placeholders and {t:name} for a table name; Rebind turns
// them into the database's through its Dialect ($n and schema-qualified
// on Postgres). What else differs between databases (types, locking,
// triggers, errors) is asked of the Dialect too, never of which database
// it is.
package sqldb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/rowcount"
	"github.com/agno-go/agno/storage/sqldb/dialect"
)

// Dialect is how SQL is written for the database a DB is on
// (dialect.SQLite, dialect.Postgres); chosen when the DB is opened.
type Dialect = dialect.Dialect

// Kind names the database, for messages and logs: it is the Dialect's
// Name. Behaviour goes through the Dialect, never through Kind.
type Kind string

const (
	SQLite   Kind = "sqlite"
	Postgres Kind = "postgres"
)

// DB is a control-plane database. It is safe for concurrent use.
type DB struct {
	SQL *sql.DB
	// Kind reports which database this is (Dialect().Name()).
	Kind   Kind
	Schema string // the tables' schema ("" where the database has none)
	// ID is the database's id in AgentOS (db_id), when it has one.
	ID string

	dialect Dialect
	timeout time.Duration
	stmts   stmtCache
}

// New makes a DB of an open database/sql handle whose SQL is written in
// dl, its tables in schema ("" for the database's default); the DB owns
// db and closes it on Close. OpenSQLite and OpenPostgres use it; a
// program adding a database opens its handle and calls it with its own
// Dialect.
func New(db *sql.DB, dl Dialect, schema string, opts ...Options) *DB {
	o := options(opts)
	return &DB{SQL: db, Kind: Kind(dl.Name()), Schema: schema, dialect: dl, timeout: o.CallTimeout}
}

// Dialect returns how SQL is written for this database.
func (d *DB) Dialect() Dialect { return d.dialect }

// stmtCache keeps SQLite's write statements prepared: preparing one
// compiles the table's triggers into it, which costs more than running
// it. Bounded; a statement past the bound runs unprepared.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

const maxCachedStmts = 256

// cached is q's statement when it is prepared.
func (c *stmtCache) cached(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// get returns q (rebound) prepared, or nil when it cannot be. It takes a
// connection of db to prepare on: never call it holding one (a
// transaction), or the pool can run dry. The lock is held only around
// the map: a writer holding SQLite's write lock looks statements up, so
// nothing waiting on a connection (a prepare, a close) may hold it.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, q string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[q]
	full := len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if ok {
		return st
	}
	if full {
		return nil
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil // the unprepared run reports it
	}
	kept := c.keep(q, st)
	if kept != st {
		// Closed outside the lock: closing waits for the connection it was
		// prepared on, which a writer may hold while waiting for the lock.
		st.Close()
	}
	return kept
}

// keep stores st as q's statement and returns it, unless one is there
// already (returned instead) or the cache is closed or full (nil).
func (c *stmtCache) keep(q string, st *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if had, ok := c.m[q]; ok {
		return had
	}
	if c.closed || len(c.m) >= maxCachedStmts {
		return nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	m := c.m
	c.m, c.closed = nil, true
	c.mu.Unlock()
	for _, st := range m {
		st.Close()
	}
}

// Options bound what one DB may cost the database it uses.
type Options struct {
	// CallTimeout bounds every statement and transaction (Migrate
	// excepted): a frozen database fails it with storage.ErrUnavailable
	// instead of holding it. Default 15s; negative: the caller's only.
	CallTimeout time.Duration
	// ConnectTimeout bounds one Postgres connection attempt. Default the
	// DSN's connect_timeout, else 5s.
	ConnectTimeout time.Duration
	// MaxConns bounds open Postgres connections. Default 8.
	MaxConns int
}

func options(opts []Options) Options {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = dbguard.DefaultCallTimeout
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 8
	}
	return o
}

// ErrConflict is returned for a write refused by a unique key.
var ErrConflict = errors.New("sqldb: conflict")

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// OpenSQLite opens the SQLite file at path; "" or ":memory:" is a private
// in-memory database that lives until Close.
func OpenSQLite(ctx context.Context, path string, opts ...Options) (*DB, error) {
	o := options(opts)
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqldb: path %q: give a plain file path (no \"file:\" URI, no '?')", path)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "cache_size(-512)") // as the run store's (storage/sqlite)
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	dsn := path + "?" + q.Encode()
	memory := path == "" || path == ":memory:"
	if memory {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		dsn = "file:agno-control-" + hex.EncodeToString(b) + "?mode=memory&cache=shared&" + q.Encode()
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqldb: open %s: %w", path, err)
	}
	if memory {
		// A shared in-memory database lives while a connection is open.
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		db.SetMaxIdleConns(4)
	}
	// One writer at a time is SQLite's rule; readers share the rest.
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: open %s: %w", path, err)
	}
	return New(db, dialect.SQLite, "", o), nil
}

// OpenPostgres connects to dsn; the tables live in schema (default "ai").
// While the database is down, connection attempts are spaced out (one
// per backoff, up to 5s apart) and the others fail at once.
func OpenPostgres(ctx context.Context, dsn, schema string, opts ...Options) (*DB, error) {
	o := options(opts)
	if schema == "" {
		schema = "ai"
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("sqldb: schema %q: use letters, digits and _ (not starting with a digit), at most 63", schema)
	}
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqldb: postgres DSN: %w", err)
	}
	dbguard.SetConnectTimeout(cc, o.ConnectTimeout)
	db := sql.OpenDB(dbguard.Connector{Connector: stdlib.GetConnector(*cc), B: dbguard.NewBreaker("sqldb: postgres")})
	db.SetMaxOpenConns(o.MaxConns)
	db.SetMaxIdleConns(min(4, o.MaxConns))
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: postgres: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: create schema %s: %w", schema, err)
	}
	return New(db, dialect.Postgres, schema, o), nil
}

// Close closes the database.
func (d *DB) Close() error {
	d.stmts.close()
	return d.SQL.Close()
}

// prepared is q (rebound) prepared when the database gains from it
// (SQLite; pgx keeps its own statement cache per connection).
func (d *DB) prepared(ctx context.Context, q string) *sql.Stmt {
	if !d.dialect.PreparesStatements() {
		return nil
	}
	return d.stmts.get(ctx, d.SQL, q)
}

var tableRef = regexp.MustCompile(`\{t:([a-z_][a-z0-9_]*)\}`)

// Table returns a table's name as queries must write it.
func (d *DB) Table(name string) string { return d.dialect.Table(d.Schema, name) }

// Rebind renders a query written with ? placeholders and {t:name} table
// references for the database. A ? inside a quoted string is left alone.
func (d *DB) Rebind(q string) string {
	q = tableRef.ReplaceAllStringFunc(q, func(m string) string { return d.Table(m[3 : len(m)-1]) })
	if !strings.ContainsRune(q, '?') {
		return q
	}
	var b strings.Builder
	n := 0
	quoted := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteString(d.dialect.Placeholder(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// JSON is the column type for JSON documents.
func (d *DB) JSON() string { return d.dialect.JSON() }

// Querier is what DB and Tx share.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Exec runs a statement written with ? and {t:name}.
func (d *DB) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	ctx, cancel := dbguard.Bound(ctx, d.timeout)
	defer cancel()
	q = d.Rebind(q)
	if st := d.prepared(ctx, q); st != nil {
		res, err := st.ExecContext(ctx, args...)
		return res, d.wrap(err)
	}
	res, err := d.SQL.ExecContext(ctx, q, args...)
	return res, d.wrap(err)
}

// Query runs a query written with ? and {t:name}.
func (d *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := d.SQL.QueryContext(d.rowsContext(ctx), d.Rebind(q), args...)
	return rows, d.wrap(err)
}

// QueryRow runs a one-row query written with ? and {t:name}.
func (d *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return d.SQL.QueryRowContext(d.rowsContext(ctx), d.Rebind(q), args...)
}

// Ping checks the database answers, within the call deadline.
func (d *DB) Ping(ctx context.Context) error {
	ctx, cancel := dbguard.Bound(ctx, d.timeout)
	defer cancel()
	return d.wrap(d.SQL.PingContext(ctx))
}

// rowsContext is ctx with the call deadline for rows the caller reads
// after the call returns: the deadline cannot be cancelled when they are
// closed (database/sql has no hook), so its timer runs out by itself —
// and cuts rows still open then, which is the deadline.
func (d *DB) rowsContext(ctx context.Context) context.Context {
	ctx, cancel := dbguard.Bound(ctx, d.timeout)
	context.AfterFunc(ctx, cancel)
	return ctx
}

// Tx is a transaction whose statements are rebound like DB's.
type Tx struct {
	tx *sql.Tx
	d  *DB
	// unprepared are the statements run that the cache lacked.
	unprepared []string
}

func (t *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	q = t.d.Rebind(q)
	if t.d.dialect.PreparesStatements() {
		if st := t.d.stmts.cached(q); st != nil {
			// Prepared once per connection, the transaction's included.
			res, err := t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
			return res, t.d.wrap(err)
		}
		t.unprepared = append(t.unprepared, q) // prepared once the transaction ends
	}
	res, err := t.tx.ExecContext(ctx, q, args...)
	return res, t.d.wrap(err)
}

func (t *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := t.tx.QueryContext(ctx, t.d.Rebind(q), args...)
	return rows, t.d.wrap(err)
}

func (t *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.d.Rebind(q), args...)
}

// InTx runs fn in a write transaction, committed when fn returns nil;
// the transaction has the call deadline.
func (d *DB) InTx(ctx context.Context, fn func(*Tx) error) error {
	ctx, cancel := dbguard.Bound(ctx, d.timeout)
	defer cancel()
	return d.inTx(ctx, fn)
}

func (d *DB) inTx(ctx context.Context, fn func(*Tx) error) error {
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	t := &Tx{tx: tx, d: d}
	if err := fn(t); err != nil {
		_ = tx.Rollback()
		return err
	}
	err = d.wrap(tx.Commit())
	for _, q := range t.unprepared {
		d.stmts.get(ctx, d.SQL, q)
	}
	return err
}

// wrap marks unique-key violations as ErrConflict, and an outage as
// storage.ErrUnavailable.
func (d *DB) wrap(err error) error {
	if err == nil {
		return nil
	}
	err = dbguard.Explain(err, d.timeout)
	if msg, ok := d.dialect.UniqueViolation(err); ok {
		return fmt.Errorf("%w: %s", ErrConflict, msg)
	}
	return err
}

// Migration is one schema version of one table: statements written with
// {t:name} references, applied in order.
type Migration = migrate.Migration

// Migrate brings the tables of ms to their versions, recorded in
// agno_schema_versions (the run store's), in one transaction; replicas
// starting together migrate once (the Dialect's MigrationLock: an
// advisory lock on Postgres, SQLite's write lock). A table recorded at a
// version newer than ms knows is an error.
func (d *DB) Migrate(ctx context.Context, ms []Migration) error {
	// Not under the call deadline: a migration of a large table may take
	// longer.
	return d.inTx(ctx, func(tx *Tx) error {
		if lock, args := d.dialect.MigrationLock("agno-control:" + d.Schema); lock != "" {
			if _, err := tx.tx.ExecContext(ctx, lock, args...); err != nil {
				return fmt.Errorf("sqldb: lock for migrations: %w", err)
			}
		}
		plan := migrate.Plan{Name: "sqldb", Versions: d.Table("agno_schema_versions"), IntType: d.dialect.BigInt(), Expand: d.Rebind}
		_, err := migrate.Run(ctx, migrate.SQL(tx.tx), plan, ms)
		return err
	})
}

// Versions returns the recorded schema version of every table.
func (d *DB) Versions(ctx context.Context) (map[string]int64, error) {
	rows, err := d.Query(ctx, `SELECT table_name, version FROM {t:agno_schema_versions}`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, rows.Err()
}

// Offset is the OFFSET of the 1-based page of limit rows (a page below 1
// is the first), saturating at math.MaxInt instead of wrapping: a page
// past any data reads no rows, never the first page.
func Offset(page, limit int) int {
	if page <= 1 || limit <= 0 {
		return 0
	}
	if page-1 > math.MaxInt/limit {
		return math.MaxInt
	}
	return (page - 1) * limit
}

// Row is one result row: *sql.Row and *sql.Rows both fit.
type Row interface{ Scan(dest ...any) error }

// Collect reads every row of rows with scan, then closes rows; no rows
// is an empty, non-nil slice.
func Collect[T any](rows *sql.Rows, scan func(Row) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// statementTriggers reports whether the database keeps row counts by
// statement triggers (rowcount's sharded Postgres form).
func (d *DB) statementTriggers() bool { return d.dialect.Triggers() == dialect.StatementTriggers }

// Counts is the migration that keeps spec's row counts of table in
// table+"_counts" (see rowcount), read by Count.
func (d *DB) Counts(table string, spec rowcount.Spec) Migration {
	counts := table + "_counts"
	return Migration{Table: counts, Version: 1, Stmts: spec.Statements(rowcount.Names{
		Postgres: d.statementTriggers(),
		Table:    "{t:" + table + "}", Counts: "{t:" + counts + "}",
		Func: "{t:" + table + "_count}", Trigger: table + "_counted",
	})}
}

// Count returns how many rows of table the equality filters eq select,
// from the counts Counts keeps when spec has their scope, else by running
// fallback (a COUNT written with ? and {t:name}) with args.
func (d *DB) Count(ctx context.Context, table string, spec rowcount.Spec, eq []rowcount.Eq, fallback string, args ...any) (int, error) {
	if q, a, ok := spec.Lookup(d.statementTriggers(), "{t:"+table+"_counts}", eq); ok {
		fallback, args = q, a
	}
	var n int
	err := d.QueryRow(ctx, fallback, args...).Scan(&n)
	return n, d.wrap(err)
}
