package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

// A run's start and end are the hot writes: each goes to the server in
// as few round trips as its logic allows (one for the start, two for the
// end), instead of one per statement.

// startRunBatch is StartRun of a new run: the session made if missing
// and read, and the run inserted, in one batch — one implicit
// transaction, which a taken run id aborts whole.
func (s *Store) startRunBatch(ctx context.Context, ns *storage.Session, row sqlstore.SessionRow, r *storage.Run) (*storage.Session, error) {
	now := run.Now()
	b := &pgx.Batch{}
	if ns != nil {
		b.Queue(s.q.ensureSession, ensureArgs(ns, row)...)
		b.Queue(s.q.getSession, ns.SessionID)
	}
	b.Queue(s.q.insertRun, insertArgs(r, cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now), nil)...)
	br := s.pool.SendBatch(ctx, b)
	var stored *storage.Session
	err := func() error {
		if ns != nil {
			if _, err := br.Exec(); err != nil {
				return err
			}
			var err error
			if stored, err = sqlstore.ScanSession(br.QueryRow()); err != nil {
				return err
			}
		}
		_, err := br.Exec()
		return err
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "agno_runs":
		return nil, fmt.Errorf("postgres: start run: run %q exists: %w", r.RunID, storage.ErrConflict)
	case err != nil:
		return nil, s.fail(fmt.Errorf("postgres: start run %q: %w", r.RunID, err))
	}
	return stored, nil
}

// saveRunBatch is SaveRun without member runs: the run row, its events
// and the session lock in one round trip, then the session change and
// the commit in a second.
func (s *Store) saveRunBatch(ctx context.Context, runID string, w storage.RunWrite, ns *storage.Session, nsRow sqlstore.SessionRow) (err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left inside the transaction is not reused: the pool
	// closes connections it gets back outside the idle state.
	defer c.Release()
	defer func() {
		if err != nil && c.Conn().PgConn().TxStatus() != 'I' {
			_, _ = c.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	events, inline := splitEvents(w)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	owned := w.Run == nil && w.Owner != ""
	switch {
	case w.Create:
		if ns != nil {
			b.Queue(s.q.ensureSession, ensureArgs(ns, nsRow)...)
		}
		now := run.Now()
		b.Queue(s.q.insertRun, insertArgs(w.Run, cmp.Or(w.Run.CreatedAt, now), now, inline)...)
	case w.Run != nil && inline != nil:
		b.Queue(s.sql.UpdateRunInline, append(sqlstore.RunArgs(w.Run), inline)...)
	case w.Run != nil:
		b.Queue(s.sql.UpdateRun, sqlstore.RunArgs(w.Run)...)
	case owned:
		b.Queue(s.sql.Owned, runID, w.Owner)
	}
	if len(events) > 0 {
		b.Queue(s.sql.InlineCount, runID)
	}
	for _, e := range events {
		b.Queue(s.q.insertEvent, runID, e.Seq, string(e.Data))
	}
	if w.Session != nil {
		b.Queue(s.sql.Session, w.SessionID)
	}
	br := c.SendBatch(ctx, b)
	var cur *storage.Session
	err = func() error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if w.Create {
			if ns != nil {
				if _, err := br.Exec(); err != nil {
					return err
				}
			}
			if _, err := br.Exec(); err != nil {
				return err
			}
		} else if w.Run != nil {
			tag, err := br.Exec()
			if err != nil {
				return err
			}
			if tag.RowsAffected() != 1 {
				return errNotWritten
			}
		} else if owned {
			var one int
			if err := br.QueryRow().Scan(&one); errors.Is(err, pgx.ErrNoRows) {
				return notOwned(runID, w.Owner)
			} else if err != nil {
				return err
			}
		}
		if len(events) > 0 {
			var n int64
			if err := br.QueryRow().Scan(&n); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if err := sqlstore.SeqTaken(runID, sqlstore.FirstSeq(events), n); err != nil {
				return err
			}
		}
		for range events {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if w.Session != nil {
			var err error
			cur, err = sqlstore.ScanSession(br.QueryRow())
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("session %q: %w", w.SessionID, storage.ErrNotFound)
			}
			return err
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	b = &pgx.Batch{}
	if cur != nil {
		old := cur.Version
		next, row, err := sqlstore.ApplyUpdate(cur, w.Session)
		if err != nil {
			return err
		}
		b.Queue(s.q.updateSession,
			w.SessionID, string(next.SessionType), next.AgentID, next.TeamID, next.WorkflowID, next.UserID, next.SessionName,
			row.State, row.Metadata, row.Summary, row.Metrics, row.Data, next.CreatedAt, next.UpdatedAt, next.Version, old)
	}
	b.Queue("COMMIT")
	return c.SendBatch(ctx, b).Close()
}

// createWithSession is SaveRun of a run that ends in its first write
// and made its session: session (already changed) and run inserted in a
// create group (group.go). A session that exists by now, or a group that
// failed, has the write made alone, as saveRunBatch makes it (which also
// names a taken run id).
func (s *Store) createWithSession(ctx context.Context, runID string, w storage.RunWrite, ns *storage.Session, nsRow sqlstore.SessionRow) error {
	events, inline := splitEvents(w)
	if len(events) > 0 {
		return s.saveRunBatch(ctx, runID, w, ns, nsRow)
	}
	next, row, err := sqlstore.NewChanged(ns, nsRow, w.Session)
	if err != nil {
		return err
	}
	now := run.Now()
	if err := s.insertCreated(&pendingCreate{ctx: ctx, sess: next, row: row, run: w.Run,
		created: cmp.Or(w.Run.CreatedAt, now), updated: now, events: inline}); err == nil {
		return nil
	}
	return s.saveRunBatch(ctx, runID, w, ns, nsRow)
}

// ensureArgs are the arguments of ensureSession for new session ns.
func ensureArgs(ns *storage.Session, row sqlstore.SessionRow) []any {
	return []any{ns.SessionID, string(ns.SessionType), ns.AgentID, ns.TeamID,
		ns.WorkflowID, ns.UserID, ns.SessionName, row.State, row.Metadata, row.Summary, row.Metrics, row.Data,
		ns.CreatedAt, ns.UpdatedAt, ns.Version}
}

// insertArgs are the arguments of insertRun for r with its inline events.
func insertArgs(r *storage.Run, created, updated int64, events any) []any {
	return []any{r.RunID, r.SessionID, r.ParentRunID, string(r.SessionType), r.ComponentID,
		r.UserID, string(r.Status), created, updated, sqlstore.RunData(r), r.Owner, r.Listed, events}
}

// splitEvents parts w's events into those stored as rows and the inline
// array of a run write that carries the run's first events.
func splitEvents(w storage.RunWrite) (rows []storage.Event, inline any) {
	if w.Run != nil {
		if inline = sqlstore.InlineEvents(w.Events); inline != nil {
			return nil, inline
		}
	}
	return w.Events, nil
}

// notOwned refuses events of a run that is no longer owner's in flight.
func notOwned(runID, owner string) error {
	return fmt.Errorf("events of run %q: %w: it is not in flight under %s", runID, storage.ErrConflict, owner)
}

// checkOwned locks the run in tx while it is in flight under owner.
func (s *Store) checkOwned(ctx context.Context, tx pgx.Tx, runID, owner string) error {
	var one int
	err := tx.QueryRow(ctx, s.sql.Owned, runID, owner).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return notOwned(runID, owner)
	}
	return err
}
