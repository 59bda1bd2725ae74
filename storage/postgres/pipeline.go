package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/storage/internal/sqlstore"
)

// backend runs the shared implementation's statements on Postgres.
type backend struct{ s *Store }

var (
	_ sqlstore.CreateGrouper = backend{}
	_ sqlstore.EventAppender = backend{}
)

// Write pipelines the write's statements: what is queued goes to the
// server in one batch, a round trip for each Flush and one for the
// commit. A write that never flushes is one batch, its own (implicit)
// transaction; one that does is BEGIN … COMMIT on one connection. A run's
// start is one round trip, its end two, whatever their statements.
func (b backend) Write(ctx context.Context, fn func(sqlstore.Tx) error) (err error) {
	c, err := b.s.pool.Acquire(ctx)
	if err != nil {
		return b.s.fail(err)
	}
	// A connection left inside the transaction is not reused: the pool
	// closes connections it gets back outside the idle state.
	defer c.Release()
	defer func() {
		if err != nil && c.Conn().PgConn().TxStatus() != 'I' {
			_, _ = c.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	t := &pipeTx{ctx: ctx, conn: c.Conn()}
	return b.s.fail(t.run(fn))
}

// Steps runs the steps in one transaction, each statement under the
// call's deadline (a large blob may take longer as a whole).
func (b backend) Steps(ctx context.Context, fn func(step func(func(sqlstore.Tx) error) error) error) error {
	s := b.s
	step := func(f func(context.Context) error) error {
		ctx, cancel := s.bound(ctx)
		defer cancel()
		return f(ctx)
	}
	var tx pgx.Tx
	err := step(func(ctx context.Context) (err error) { tx, err = s.pool.Begin(ctx); return err })
	if err == nil {
		err = fn(func(f func(sqlstore.Tx) error) error {
			return step(func(ctx context.Context) error { return sqlstore.Run(sqlstore.Immediate(ctx, execer{tx}), f) })
		})
		if err == nil {
			err = step(tx.Commit)
		} else {
			_ = step(tx.Rollback)
		}
	}
	return s.fail(err)
}

// Read runs fn in a read-only repeatable-read transaction, so a count
// and its page see one snapshot.
func (b backend) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return b.s.fail(pgx.BeginTxFunc(ctx, b.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return sqlstore.Run(sqlstore.Immediate(ctx, execer{tx}), fn) }))
}

func (b backend) Conn() sqlstore.Execer { return execer{b.s.pool} }
func (b backend) Fail(err error) error  { return b.s.fail(err) }
func (b backend) Closed() bool          { return b.s.isClosed() }

// CreateGroup implements sqlstore.CreateGrouper (group.go).
func (b backend) CreateGroup(ctx context.Context, c sqlstore.NewRun) error {
	return b.s.insertCreated(&pendingCreate{ctx: ctx, NewRun: c})
}

// AppendEvents implements sqlstore.EventAppender: the next seq is read
// in the statement inserting the events, one round trip.
func (b backend) AppendEvents(ctx context.Context, runID string, events []string) (int64, error) {
	var first int64
	err := b.s.pool.QueryRow(ctx, b.s.appendEvents, runID, events).Scan(&first)
	return first, b.s.fail(err)
}

// appendEventsSQL inserts the events of array argument 2 after nextSeq
// (of run_id argument 1) and returns the first seq.
func appendEventsSQL(events, nextSeq string) string {
	return `WITH ins AS (
			INSERT INTO ` + events + ` (run_id, seq, data)
			SELECT $1, n.next + t.ord - 1, t.d
			FROM (` + nextSeq + `) n (next), unnest($2::json[]) WITH ORDINALITY AS t(d, ord)
			RETURNING seq)
		SELECT MIN(seq) FROM ins`
}

// pgxConn is a pool, a connection or a transaction.
type pgxConn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// execer runs single statements on c.
type execer struct{ c pgxConn }

func (e execer) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := e.c.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (e execer) QueryRow(ctx context.Context, q string, args ...any) sqlstore.Scanner {
	return e.c.QueryRow(ctx, q, args...)
}

func (e execer) Query(ctx context.Context, q string, args []any, each func(sqlstore.Scanner) error) error {
	rows, err := e.c.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	return eachRow(rows, each)
}

// eachRow calls each for every row of rows, then closes them.
func eachRow(rows pgx.Rows, each func(sqlstore.Scanner) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// pipeTx is a sqlstore.Tx whose statements wait in a queue until a flush
// sends them in one batch.
type pipeTx struct {
	ctx   context.Context
	conn  *pgx.Conn
	queue []queued
	began bool
	err   error
}

// queued is a statement with what to do with its result: one of check,
// scan or each (or none).
type queued struct {
	query       string
	args        []any
	check       func(int64) error
	scan, each  func(sqlstore.Scanner) error
	isRow, rows bool
}

func (t *pipeTx) add(q queued) {
	if t.err == nil {
		t.queue = append(t.queue, q)
	}
}

func (t *pipeTx) Exec(q string, args []any, check func(int64) error) {
	t.add(queued{query: q, args: args, check: check})
}

func (t *pipeTx) QueryRow(q string, args []any, scan func(sqlstore.Scanner) error) {
	t.add(queued{query: q, args: args, scan: scan, isRow: true})
}

func (t *pipeTx) Query(q string, args []any, each func(sqlstore.Scanner) error) {
	t.add(queued{query: q, args: args, each: each, rows: true})
}

// Flush sends what is queued, in the transaction (BEGIN goes with the
// first flush).
func (t *pipeTx) Flush() error {
	if t.err != nil || len(t.queue) == 0 {
		return t.err
	}
	prefix := ""
	if !t.began {
		prefix, t.began = "BEGIN", true
	}
	t.err = t.send(prefix, "")
	return t.err
}

// errQueuedAfterCommit is a write that queued a statement in a callback of
// its only batch, which had committed by then: a mistake of the caller.
var errQueuedAfterCommit = errors.New("postgres: a statement was queued after its write committed (flush before)")

// run runs fn and commits.
func (t *pipeTx) run(fn func(sqlstore.Tx) error) error {
	if err := fn(t); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	if !t.began {
		if len(t.queue) == 0 {
			return nil
		}
		if err := t.send("", ""); err != nil {
			return err
		}
		if len(t.queue) > 0 {
			return errQueuedAfterCommit
		}
		return nil
	}
	// Callbacks may refuse the write: they run before the commit.
	for t.pending() {
		if err := t.Flush(); err != nil {
			return err
		}
	}
	return t.send("", "COMMIT")
}

// pending reports whether a queued statement has a callback.
func (t *pipeTx) pending() bool {
	for _, q := range t.queue {
		if q.check != nil || q.scan != nil || q.each != nil {
			return true
		}
	}
	return false
}

// send sends the queue between prefix and suffix (each "" for none) in
// one batch and runs the callbacks in order, stopping at the first
// error; statements the callbacks queue wait for the next send.
func (t *pipeTx) send(prefix, suffix string) error {
	items := t.queue
	t.queue = nil
	b := &pgx.Batch{}
	if prefix != "" {
		b.Queue(prefix)
	}
	for _, q := range items {
		b.Queue(q.query, q.args...)
	}
	if suffix != "" {
		b.Queue(suffix)
	}
	br := t.conn.SendBatch(t.ctx, b)
	err := func() error {
		if prefix != "" {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		for _, q := range items {
			if err := result(br, q); err != nil {
				return err
			}
		}
		if suffix != "" {
			_, err := br.Exec()
			return err
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// result reads q's result from br and runs its callback.
func result(br pgx.BatchResults, q queued) error {
	if !q.isRow && !q.rows {
		tag, err := br.Exec()
		if err == nil && q.check != nil {
			err = q.check(tag.RowsAffected())
		}
		return err
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	if q.rows {
		return eachRow(rows, q.each)
	}
	r := &oneRow{rows: rows}
	err = q.scan(r)
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	return err
}

// oneRow is the first row of rows, as pgx.Row reads it.
type oneRow struct{ rows pgx.Rows }

func (r *oneRow) Scan(dest ...any) error {
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	return r.rows.Scan(dest...)
}
