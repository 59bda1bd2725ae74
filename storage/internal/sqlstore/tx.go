package sqlstore

import (
	"context"
	"database/sql"
)

// Tx is a transaction as the shared store writes it: statements are
// queued with what to do with their results, and a Backend runs each as
// it is queued (SQLite, one writer in-process) or sends the queued ones
// together (Postgres pipelines them, saving round trips).
//
// A callback's error ends the transaction, rolled back. Callbacks run in
// order; a statement a callback queues runs after the statements already
// queued. Flush sends what is queued and runs its callbacks: a write
// flushes where a later statement depends on a result, and before the
// commit wherever a callback may refuse the write (a run not written, a
// taken seq). What a write leaves queued goes with its commit — in one
// batch with it when the write never flushed, when the callbacks run
// after the commit and may only read, or refuse a write that changed
// nothing (a statement that matched no row); a callback there must not
// queue statements.
type Tx interface {
	// Exec queues a statement; check, when not nil, gets the number of
	// rows it changed.
	Exec(query string, args []any, check func(n int64) error)
	// QueryRow queues a query of at most one row; scan gets it (Scan
	// returns sql.ErrNoRows for none). A scan that does not call Scan
	// may save the query.
	QueryRow(query string, args []any, scan func(Scanner) error)
	// Query queues a query; each gets its rows in turn.
	Query(query string, args []any, each func(Scanner) error)
	// Flush runs the statements queued so far and their callbacks, and
	// returns the transaction's first error.
	Flush() error
}

// Execer runs single statements at once: a connection, a pool or a
// transaction of a driver.
type Execer interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	Query(ctx context.Context, query string, args []any, each func(Scanner) error) error
}

// Run runs fn on tx and returns the first error, Flush's included.
func Run(tx Tx, fn func(Tx) error) error {
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Flush()
}

// Immediate is a Tx that runs each statement on e as it is queued (and a
// QueryRow only when its row is scanned). After an error it runs nothing
// more.
func Immediate(ctx context.Context, e Execer) Tx { return &immediate{ctx: ctx, e: e} }

type immediate struct {
	ctx context.Context
	e   Execer
	err error
}

// fail keeps the first error: a callback's nested statements may have
// failed before it returns.
func (t *immediate) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

func (t *immediate) Exec(q string, args []any, check func(int64) error) {
	if t.err != nil {
		return
	}
	n, err := t.e.Exec(t.ctx, q, args...)
	if err == nil && check != nil {
		err = check(n)
	}
	t.fail(err)
}

func (t *immediate) QueryRow(q string, args []any, scan func(Scanner) error) {
	if t.err == nil {
		t.fail(scan(lazyRow{t, q, args}))
	}
}

func (t *immediate) Query(q string, args []any, each func(Scanner) error) {
	if t.err == nil {
		t.fail(t.e.Query(t.ctx, q, args, each))
	}
}

func (t *immediate) Flush() error { return t.err }

// lazyRow runs its query when it is scanned.
type lazyRow struct {
	t    *immediate
	q    string
	args []any
}

func (r lazyRow) Scan(dest ...any) error {
	return r.t.e.QueryRow(r.t.ctx, r.q, r.args...).Scan(dest...)
}

// SQLHandle is a database/sql handle, connection or transaction.
type SQLHandle interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SQL is an Execer on a database/sql handle. prepared, when not nil,
// returns a query's statement prepared for h, or nil to run the text.
func SQL(h SQLHandle, prepared func(ctx context.Context, query string) *sql.Stmt) Execer {
	return sqlExecer{h, prepared}
}

type sqlExecer struct {
	h        SQLHandle
	prepared func(context.Context, string) *sql.Stmt
}

// on is the statement prepared for q, or else h: a handle to run q on.
func (e sqlExecer) on(ctx context.Context, q string) SQLHandle {
	if e.prepared != nil {
		if st := e.prepared(ctx, q); st != nil {
			return stmtHandle{st}
		}
	}
	return e.h
}

func (e sqlExecer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := e.on(ctx, q).ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e sqlExecer) QueryRow(ctx context.Context, q string, args ...any) Scanner {
	return e.on(ctx, q).QueryRowContext(ctx, q, args...)
}

func (e sqlExecer) Query(ctx context.Context, q string, args []any, each func(Scanner) error) error {
	rows, err := e.on(ctx, q).QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// stmtHandle is a prepared statement as a handle: it runs itself, whatever
// query it is given (the one it was prepared from).
type stmtHandle struct{ st *sql.Stmt }

func (h stmtHandle) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return h.st.ExecContext(ctx, args...)
}

func (h stmtHandle) QueryRowContext(ctx context.Context, _ string, args ...any) *sql.Row {
	return h.st.QueryRowContext(ctx, args...)
}

func (h stmtHandle) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return h.st.QueryContext(ctx, args...)
}
