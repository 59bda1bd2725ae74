package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/dbguard"
)

// Backend is what one database gives Store: how its transactions run.
// Its methods return errors already explained (Fail), but for Conn's.
type Backend interface {
	// Write runs fn in one write transaction, committed when fn returns
	// nil (see Tx). fn may run more than once (a group commit that failed
	// is replayed write by write) and starts from nothing each time.
	Write(ctx context.Context, fn func(Tx) error) error
	// Steps is one write made of steps (the chunks of a blob): each step
	// may commit by itself (so a large write never holds SQLite's writer
	// long) or all of them together.
	Steps(ctx context.Context, fn func(step func(func(Tx) error) error) error) error
	// Read runs fn in a read-only transaction whose queries see one
	// snapshot.
	Read(ctx context.Context, fn func(Tx) error) error
	// Conn runs single reads outside any transaction.
	Conn() Execer
	// Fail explains an error of the database: storage.ErrClosed after
	// Close, storage.ErrUnavailable for an outage, and so on.
	Fail(err error) error
	// Closed reports whether the store was closed.
	Closed() bool
}

// NewRun is the first write of a run that made its session: the session
// as inserted (already changed) and the run with its inline events.
type NewRun struct {
	Session          *storage.Session
	Row              SessionRow
	Run              *storage.Run
	Created, Updated int64
	Events           any // InlineEvents
}

// CreateGrouper is a Backend that inserts such writes made at the same
// time together (Postgres: one statement for all their sessions and
// runs). CreateGroup returns nil when it inserted c; any error (the
// session exists by now, the group failed) has the write made alone.
type CreateGrouper interface {
	CreateGroup(ctx context.Context, c NewRun) error
}

// EventAppender is a Backend that appends a run's events (JSON texts) in
// one statement that reads their first seq itself (Postgres: an array
// parameter), returning it. An appender that lost a seq to another fails
// with a unique violation, and the store retries.
type EventAppender interface {
	AppendEvents(ctx context.Context, runID string, events []string) (first int64, err error)
}

// Options configure a Store.
type Options struct {
	// Name prefixes error messages ("sqlite", "postgres").
	Name string
	// CallTimeout bounds every call (negative: the caller's deadline only).
	CallTimeout time.Duration
	// UpdateAttempts bounds UpdateSession's read-modify-write retries
	// before it gives up with storage.ErrConflict. Default 64.
	UpdateAttempts int
}

// Store is storage.Store but Close (with storage.InstanceReleaser and
// storage.Pruner) on a Backend: every query, and the logic around it,
// written once for every SQL database. A backend embeds it and adds what
// is its own (opening, Close, Ping, Migrate).
type Store struct {
	b        Backend
	d        *Dialect
	name     string
	timeout  time.Duration
	attempts int
	sql      RunSQL
	q        queries
}

var (
	_ storage.InstanceReleaser = (*Store)(nil)
	_ storage.Pruner           = (*Store)(nil)
)

// New returns the store of b, whose tables d names.
func New(b Backend, d *Dialect, o Options) *Store {
	if o.UpdateAttempts <= 0 {
		o.UpdateAttempts = 64
	}
	return &Store{b: b, d: d, name: o.Name, timeout: o.CallTimeout, attempts: o.UpdateAttempts,
		sql: d.RunSQL(d.SQL.ForUpdate()), q: d.queries()}
}

// Statements are the store's fixed statements, for a backend that
// prepares them (PreparesStatements): those written in write
// transactions, and the reads run outside them.
func Statements(s *Store) (writes, reads []string) {
	writes = []string{s.q.ensureSession, s.q.updateSession, s.q.updateSessionDoc, s.q.createRun, s.q.insertRun,
		s.sql.UpdateRun, s.sql.UpdateRunInline, s.sql.InlineCount, s.sql.TakePending, s.sql.Claim, s.sql.Heartbeat, s.sql.Session,
		s.q.putBlob, s.q.nextSeq, s.q.upsertMemory}
	writes = append(writes, s.q.insertEvents...)
	reads = []string{s.q.getSession, s.q.getRun, s.q.listEvents, s.q.getMemory, s.q.getBlob}
	return writes, reads
}

// NextSeqSQL is the query of a run's next event seq (run_id), after its
// inline events and the events table's.
func NextSeqSQL(s *Store) string { return s.q.nextSeq }

// CreateRunSQL is the INSERT of a new run (run_id, session_id,
// parent_run_id, session_type, component_id, user_id, status,
// created_at, updated_at, data, owner, listed, events) that changes no
// row when the id is taken.
func CreateRunSQL(s *Store) string { return s.q.createRun }

// queries are the fixed statements other than RunSQL's.
type queries struct {
	ensureSession, getSession, updateSession, updateSessionDoc string
	createRun, insertRun, getRun                               string
	nextSeq, listEvents                                        string
	// insertEvents are the INSERTs of eventRowSizes events.
	insertEvents                                    []string
	putBlob, getBlob                                string
	upsertMemory, getMemory, memoryTopics, byUserID string
}

// eventRowSizes are the row counts of the multi-row event INSERTs: a
// run's end carries several events, and one statement costs much less
// than one per event.
var eventRowSizes = []int{32, 16, 8, 4, 2, 1}

// args renders the placeholders from first to last, comma separated.
func (d *Dialect) args(first, last int) string {
	var b strings.Builder
	for i := first; i <= last; i++ {
		if i > first {
			b.WriteString(", ")
		}
		b.WriteString(d.Arg(i))
	}
	return b.String()
}

func (d *Dialect) queries() queries {
	a := d.Arg
	rowSeqCol, rowSeqVal := "", ""
	if d.RowSeq != "" {
		rowSeqCol, rowSeqVal = "row_seq, ", d.RowSeq+", "
	}
	runCols := "run_id, " + rowSeqCol + "session_id, parent_run_id, session_type, component_id, user_id, status, created_at, updated_at, data, owner, listed, version, events"
	runVals := a(1) + ", " + rowSeqVal + d.args(2, 12) + ", 1, " + a(13)
	each, value := d.SQL.JSONArrayText("m.topics")
	q := queries{
		ensureSession: d.SQL.InsertIgnore(d.Sessions, SessionColumns, d.args(1, 15), "session_id"),
		getSession:    "SELECT " + SessionColumns + " FROM " + d.Sessions + " WHERE session_id = " + a(1),
		updateSession: "UPDATE " + d.Sessions + " SET session_type = " + a(2) + ", agent_id = " + a(3) + ", team_id = " + a(4) +
			", workflow_id = " + a(5) + ", user_id = " + a(6) + ", session_name = " + a(7) + ", session_state = " + a(8) + ", metadata = " + a(9) +
			", summary = " + a(10) + ", metrics = " + a(11) + ", data = " + a(12) + ", created_at = " + a(13) + ", updated_at = " + a(14) +
			", version = " + a(15) + " WHERE session_id = " + a(1) + " AND version = " + a(16),
		// The same with the indexed columns kept (a run's end, most
		// updates): SQLite rewrites the entry of every index whose column
		// is SET, changed or not, so this touches the updated_at index only.
		updateSessionDoc: "UPDATE " + d.Sessions + " SET session_name = " + a(2) + ", session_state = " + a(3) + ", metadata = " + a(4) +
			", summary = " + a(5) + ", metrics = " + a(6) + ", data = " + a(7) + ", updated_at = " + a(8) + ", version = " + a(9) +
			" WHERE session_id = " + a(1) + " AND version = " + a(10),
		createRun: d.SQL.InsertIgnore(d.Runs, runCols, runVals, "run_id"),
		// insertRun fails on a taken id, rolling back its transaction.
		insertRun: "INSERT INTO " + d.Runs + " (" + runCols + ") VALUES (" + runVals + ")",
		getRun:    "SELECT " + RunColumns + " FROM " + d.Runs + " WHERE run_id = " + a(1),
		// After the events table's and the inline ones.
		nextSeq: "SELECT " + d.SQL.Greatest("COALESCE((SELECT MAX(seq) + 1 FROM "+d.Events+" WHERE run_id = "+a(1)+"), 0)",
			"COALESCE((SELECT "+d.SQL.JSONArrayLength("events")+" FROM "+d.Runs+" WHERE run_id = "+a(1)+"), 0)"),
		listEvents: d.ListEventsSQL(),
		putBlob:    d.SQL.InsertIgnore(d.Blobs, "blob_id, seq, session_id, data", d.args(1, 4), "blob_id, seq"),
		getBlob:    "SELECT data FROM " + d.Blobs + " WHERE blob_id = " + a(1) + " AND session_id = " + a(2) + " ORDER BY seq",
		upsertMemory: d.SQL.Upsert(d.Memories, MemoryColumns, d.args(1, 10), "memory_id",
			[]string{"memory", "topics", "user_id", "agent_id", "team_id", "input", "feedback", "updated_at"}),
		getMemory:    "SELECT " + MemoryColumns + " FROM " + d.Memories + " WHERE memory_id = " + a(1),
		memoryTopics: "SELECT DISTINCT " + value + d.SQL.Collate() + " FROM " + d.Memories + " m, " + each + " WHERE m.topics IS NOT NULL",
		byUserID:     " AND m.user_id = " + a(1),
	}
	for _, n := range eventRowSizes {
		rows := make([]string, n)
		for i := range rows {
			rows[i] = "(" + d.args(3*i+1, 3*i+3) + ")"
		}
		q.insertEvents = append(q.insertEvents, "INSERT INTO "+d.Events+" (run_id, seq, data) VALUES "+strings.Join(rows, ", "))
	}
	return q
}

func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return dbguard.Bound(ctx, s.timeout)
}

func (s *Store) check() error {
	if s.b.Closed() {
		return storage.ErrClosed
	}
	return nil
}

// failf explains an error of a read outside Backend's transactions.
func (s *Store) failf(err error, format string, args ...any) error {
	return s.b.Fail(fmt.Errorf("%s: %s: %w", s.name, fmt.Sprintf(format, args...), err))
}

// get reads the row of what id is outside a transaction, scanned by
// scan: storage.ErrNotFound when there is none.
func get[T any](ctx context.Context, s *Store, what, query, id string, scan func(Scanner) (T, error)) (T, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var zero T
	if err := s.check(); err != nil {
		return zero, err
	}
	v, err := scan(s.b.Conn().QueryRow(ctx, query, id))
	if errors.Is(err, sql.ErrNoRows) {
		return zero, fmt.Errorf("%s %q: %w", what, id, storage.ErrNotFound)
	}
	if err != nil {
		return zero, s.failf(err, "get %s %q", what, id)
	}
	return v, nil
}

// readAll runs one query outside a transaction.
func (s *Store) readAll(ctx context.Context, what, query string, args []any, each func(Scanner) error) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return err
	}
	if err := s.b.Conn().Query(ctx, query, args, each); err != nil {
		return s.failf(err, "%s", what)
	}
	return nil
}

// page reads a count and a page of rows, scanned by scan, in one
// snapshot; out is empty (none: nil) when no row is read.
func page[T any](ctx context.Context, s *Store, what, count, list string, args []any, none []T, scan func(Scanner) (T, error)) ([]T, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, 0, err
	}
	var total int
	out := none
	err := s.b.Read(ctx, func(tx Tx) error {
		tx.QueryRow(count, args, func(sc Scanner) error { return sc.Scan(&total) })
		tx.Query(list, args, collect(&out, scan))
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", s.name, what, err)
	}
	return out, total, nil
}

// list reads the rows of one query outside a transaction, scanned by
// scan; out is empty (none: nil) when no row is read.
func list[T any](ctx context.Context, s *Store, what, query string, args []any, none []T, scan func(Scanner) (T, error)) ([]T, error) {
	out := none
	if err := s.readAll(ctx, what, query, args, collect(&out, scan)); err != nil {
		return nil, err
	}
	return out, nil
}

// collect appends each row scan reads to out.
func collect[T any](out *[]T, scan func(Scanner) (T, error)) func(Scanner) error {
	return func(sc Scanner) error {
		v, err := scan(sc)
		*out = append(*out, v)
		return err
	}
}

// --- sessions ---

// ensureArgs are the arguments of ensureSession for new session ns.
func ensureArgs(ns *storage.Session, row SessionRow) []any {
	return []any{ns.SessionID, string(ns.SessionType), ns.AgentID, ns.TeamID, ns.WorkflowID, ns.UserID, ns.SessionName,
		row.State, row.Metadata, row.Summary, row.Metrics, row.Data, ns.CreatedAt, ns.UpdatedAt, ns.Version}
}

// EnsureSession implements storage.Store.
func (s *Store) EnsureSession(ctx context.Context, sess *storage.Session) (*storage.Session, bool, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if sess.SessionID == "" {
		return nil, false, fmt.Errorf("storage: session_id is empty: set Session.SessionID")
	}
	if err := s.check(); err != nil {
		return nil, false, err
	}
	n := NewSession(sess)
	row, err := EncodeSession(n)
	if err != nil {
		return nil, false, err
	}
	for range 3 {
		var inserted int64
		err := s.b.Write(ctx, func(tx Tx) error {
			tx.Exec(s.q.ensureSession, ensureArgs(n, row), func(k int64) error { inserted = k; return nil })
			return nil
		})
		if err != nil {
			return nil, false, fmt.Errorf("%s: ensure session %q: %w", s.name, n.SessionID, err)
		}
		if inserted == 1 {
			out, err := Normalize(n, row)
			return out, true, err
		}
		cur, err := s.GetSession(ctx, n.SessionID)
		if errors.Is(err, storage.ErrNotFound) {
			continue // deleted between the insert and the read
		}
		return cur, false, err
	}
	return nil, false, fmt.Errorf("session %q: created and deleted concurrently: %w", n.SessionID, storage.ErrConflict)
}

// GetSession implements storage.Store.
func (s *Store) GetSession(ctx context.Context, id string) (*storage.Session, error) {
	return get(ctx, s, "session", s.q.getSession, id, ScanSession)
}

// UpdateSession implements storage.Store with optimistic versioning: the
// write applies only if the version read is still current.
func (s *Store) UpdateSession(ctx context.Context, id string, fn func(*storage.Session) error) (*storage.Session, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	for attempt := range s.attempts {
		cur, err := s.GetSession(ctx, id)
		if err != nil {
			return nil, err
		}
		old, keys := cur.Version, keysOf(cur)
		next, row, err := ApplyUpdate(cur, fn)
		if err != nil {
			return nil, err
		}
		var n int64
		err = s.b.Write(ctx, func(tx Tx) error {
			s.updateSessionIn(tx, keys, next, row, old, func(k int64) error { n = k; return nil })
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: update session %q: %w", s.name, id, err)
		}
		if n == 1 {
			return Normalize(next, row)
		}
		if err := Backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("session %q: update lost to concurrent writers %d times: %w", id, s.attempts, storage.ErrConflict)
}

// sessionKeys are a session's indexed columns other than updated_at.
type sessionKeys struct {
	typ                         storage.SessionType
	agent, team, workflow, user string
	created                     int64
}

func keysOf(s *storage.Session) sessionKeys {
	return sessionKeys{s.SessionType, s.AgentID, s.TeamID, s.WorkflowID, s.UserID, s.CreatedAt}
}

// updateSessionIn writes next over the row at version old, whose indexed
// columns were keys: only its documents when those are kept.
func (s *Store) updateSessionIn(tx Tx, keys sessionKeys, next *storage.Session, row SessionRow, old int64, check func(int64) error) {
	if keysOf(next) == keys {
		tx.Exec(s.q.updateSessionDoc, []any{next.SessionID, next.SessionName, row.State, row.Metadata, row.Summary, row.Metrics, row.Data,
			next.UpdatedAt, next.Version, old}, check)
		return
	}
	tx.Exec(s.q.updateSession, []any{next.SessionID, string(next.SessionType), next.AgentID, next.TeamID, next.WorkflowID, next.UserID,
		next.SessionName, row.State, row.Metadata, row.Summary, row.Metrics, row.Data, next.CreatedAt, next.UpdatedAt, next.Version, old}, check)
}

// ListSessions implements storage.Store.
func (s *Store) ListSessions(ctx context.Context, q storage.SessionQuery) ([]*storage.Session, int, error) {
	count, query, args := s.d.ListSessions(q)
	return page(ctx, s, "list sessions", count, query, args, nil, ScanSession)
}

// idChunks splits ids into IN lists of at most inChunk arguments.
func (d *Dialect) idChunks(ids []string, each func(in string, args []any)) {
	for _, c := range chunked(ids) {
		b := d.NewBuilder()
		each(in(b, c), b.Args)
	}
}

// DeleteSessions implements storage.Store; sessions, runs, events and
// blobs go in one transaction.
func (s *Store) DeleteSessions(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return s.check()
	}
	return s.write(ctx, "delete sessions", func(tx Tx) {
		s.d.idChunks(ids, func(in string, args []any) {
			for _, stmt := range []string{
				"DELETE FROM " + s.d.Events + " WHERE run_id IN (SELECT run_id FROM " + s.d.Runs + " WHERE session_id IN " + in + ")",
				"DELETE FROM " + s.d.Blobs + " WHERE session_id IN " + in,
				"DELETE FROM " + s.d.Runs + " WHERE session_id IN " + in,
				"DELETE FROM " + s.d.Sessions + " WHERE session_id IN " + in,
			} {
				tx.Exec(stmt, args, nil)
			}
		})
	})
}

// --- runs ---

// errNotWritten marks an in-place run write that changed no row; the
// caller finds out why outside the transaction.
var errNotWritten = errors.New("sqlstore: run row not written")

// createArgs are the arguments of createRun and insertRun.
func createArgs(r *storage.Run, created, updated int64, events any) []any {
	return []any{r.RunID, r.SessionID, r.ParentRunID, string(r.SessionType), r.ComponentID, r.UserID, string(r.Status),
		created, updated, RunData(r), r.Owner, r.Listed, events}
}

// createIn queues the insert of a run with its inline events
// (InlineEvents, nil for none); ErrConflict when its id is taken.
func (s *Store) createIn(tx Tx, r *storage.Run, created, updated int64, events any) {
	tx.Exec(s.q.createRun, createArgs(r, created, updated, events), func(n int64) error {
		if n == 0 {
			return fmt.Errorf("run %q exists: %w", r.RunID, storage.ErrConflict)
		}
		return nil
	})
}

// execRun queues one of the in-place run statements; extra are arguments
// after RunArgs. errNotWritten when it changed no row.
func execRun(tx Tx, stmt string, r *storage.Run, extra ...any) {
	tx.Exec(stmt, append(RunArgs(r), extra...), func(n int64) error {
		if n != 1 {
			return errNotWritten
		}
		return nil
	})
}

// whyNotWritten explains an in-place write of r that changed no row.
func (s *Store) whyNotWritten(ctx context.Context, r *storage.Run, pending bool) error {
	stored, err := s.GetRun(ctx, r.RunID)
	if err != nil {
		return err
	}
	if err := storage.SameRunPlace(stored, r); err != nil {
		return err
	}
	if pending && stored.Status != run.StatusPending {
		return fmt.Errorf("run %q is %s, not PENDING: %w", r.RunID, stored.Status, storage.ErrConflict)
	}
	if err := storage.CheckOwner(stored, r); err != nil {
		return err
	}
	return fmt.Errorf("run %q changed while it was written: %w", r.RunID, storage.ErrConflict)
}

// CreateRun implements storage.Store.
func (s *Store) CreateRun(ctx context.Context, r *storage.Run) error {
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	now := run.Now()
	created, updated := cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now)
	return s.write(ctx, fmt.Sprintf("create run %q", r.RunID), func(tx Tx) { s.createIn(tx, r, created, updated, nil) })
}

// UpdateRun implements storage.Store.
func (s *Store) UpdateRun(ctx context.Context, r *storage.Run) error {
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	err := s.write(ctx, fmt.Sprintf("update run %q", r.RunID), func(tx Tx) { execRun(tx, s.sql.UpdateRun, r) })
	if errors.Is(err, errNotWritten) {
		return s.whyNotWritten(ctx, r, false)
	}
	return err
}

// StartRun implements storage.Store: the session and the run in one
// transaction.
func (s *Store) StartRun(ctx context.Context, sess *storage.Session, r *storage.Run, pending bool) (*storage.Session, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := storage.ValidateRun(r); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	ns, row, err := NewSessionRow(sess)
	if err != nil {
		return nil, err
	}
	now := run.Now()
	var stored *storage.Session
	err = s.b.Write(ctx, func(tx Tx) error {
		stored = nil
		if ns != nil {
			created := false
			tx.Exec(s.q.ensureSession, ensureArgs(ns, row), func(n int64) error { created = n == 1; return nil })
			tx.QueryRow(s.q.getSession, []any{ns.SessionID}, func(sc Scanner) (err error) {
				if created { // the one given: no read back
					stored, err = Normalize(ns, row)
				} else {
					stored, err = ScanSession(sc)
				}
				return err
			})
		}
		if !pending {
			// A taken id fails the insert, and with it the transaction.
			tx.Exec(s.q.insertRun, createArgs(r, cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now), nil), nil)
			return nil
		}
		execRun(tx, s.sql.TakePending, r)
		return tx.Flush() // a run not taken writes no session either
	})
	if errors.Is(err, errNotWritten) {
		return nil, s.whyNotWritten(ctx, r, true)
	}
	if _, ok := s.d.SQL.UniqueViolation(err); ok && !pending {
		return nil, fmt.Errorf("%s: start run: run %q exists: %w", s.name, r.RunID, storage.ErrConflict)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: start run %q: %w", s.name, r.RunID, err)
	}
	return stored, nil
}

// splitEvents parts w's events into those stored as rows and the inline
// array of a run write that carries the run's first events.
func splitEvents(w storage.RunWrite) (rows []storage.Event, inline any) {
	if w.Run != nil {
		if inline = InlineEvents(w.Events); inline != nil {
			return nil, inline
		}
	}
	return w.Events, nil
}

// SaveRun implements storage.Store: row, events, member runs and the
// session change in one transaction (the session read locked inside it,
// where no other writer can come between).
func (s *Store) SaveRun(ctx context.Context, w storage.RunWrite) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	runID, err := storage.ValidateWrite(w)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	var ns *storage.Session
	var nsRow SessionRow
	if w.Create {
		if ns, nsRow, err = NewSessionRow(w.StartSession); err != nil {
			return err
		}
	}
	// A new session the write also changes is inserted changed, once.
	changesNew := ns != nil && w.Session != nil && w.SessionID == ns.SessionID
	// A run's first events go in its row; later ones are rows of their own.
	events, inline := splitEvents(w)
	if g, ok := s.b.(CreateGrouper); ok && w.Create && w.SessionNew && changesNew && w.Run.SessionID == ns.SessionID &&
		len(w.Children) == 0 && len(events) == 0 {
		next, row, err := NewChanged(ns, nsRow, w.Session)
		if err != nil {
			return err
		}
		now := run.Now()
		if g.CreateGroup(ctx, NewRun{Session: next, Row: row, Run: w.Run, Created: cmp.Or(w.Run.CreatedAt, now), Updated: now, Events: inline}) == nil {
			return nil
		}
	}
	err = s.b.Write(ctx, func(tx Tx) error { return s.saveRun(tx, runID, w, ns, nsRow, changesNew, events, inline) })
	if errors.Is(err, errNotWritten) && w.Run != nil {
		return s.whyNotWritten(ctx, w.Run, false)
	}
	if err != nil {
		if _, ok := s.d.SQL.UniqueViolation(err); ok { // an event seq taken
			err = fmt.Errorf("%w (%v)", storage.ErrConflict, err)
		}
		return fmt.Errorf("%s: save run %q: %w", s.name, runID, err)
	}
	return nil
}

// saveRun is SaveRun's transaction: everything but the session change is
// queued and flushed together, so the refusals (a run not written, not
// owned, a seq taken) come before the commit; the change goes with it.
// The session's change function runs only after the rest succeeded.
func (s *Store) saveRun(tx Tx, runID string, w storage.RunWrite, ns *storage.Session, nsRow SessionRow, changesNew bool,
	events []storage.Event, inline any) error {
	switch {
	case w.Create:
		if ns != nil && !changesNew {
			tx.Exec(s.q.ensureSession, ensureArgs(ns, nsRow), nil)
		}
		now := run.Now()
		s.createIn(tx, w.Run, cmp.Or(w.Run.CreatedAt, now), now, inline)
	case w.Run != nil && inline != nil:
		execRun(tx, s.sql.UpdateRunInline, w.Run, inline)
	case w.Run != nil:
		execRun(tx, s.sql.UpdateRun, w.Run)
	case w.Owner != "":
		tx.QueryRow(s.sql.Owned, []any{runID, w.Owner}, func(sc Scanner) error {
			var one int
			err := sc.Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("events of run %q: %w: it is not in flight under %s", runID, storage.ErrConflict, w.Owner)
			}
			return err
		})
	}
	if len(events) > 0 {
		// Events numbered among those the run keeps inline are refused
		// (the events table's key catches the rest).
		tx.QueryRow(s.sql.InlineCount, []any{runID}, func(sc Scanner) error {
			var n int64
			if err := sc.Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return SeqTaken(runID, FirstSeq(events), n)
		})
		s.insertEvents(tx, runID, events)
	}
	for _, c := range w.Children {
		now := run.Now()
		tx.Exec(s.q.createRun, createArgs(c, cmp.Or(c.CreatedAt, now), now, nil), func(n int64) error {
			if n == 0 { // it exists: updated instead
				tx.Exec(s.sql.UpdateRun, RunArgs(c), func(n int64) error {
					if n != 1 {
						return fmt.Errorf("member run %q: %w", c.RunID, errNotWritten)
					}
					return nil
				})
			}
			return nil
		})
	}
	if w.Session == nil {
		return tx.Flush()
	}
	if !changesNew || !w.SessionNew {
		s.changeSession(tx, w, ns, nsRow, changesNew) // changed in the read's callback: once the rest went in
		return tx.Flush()
	}
	// Most likely new: inserted changed (one write where an insert and an
	// update would make two), unless it exists by now. The change runs
	// only once the rest went in.
	if err := tx.Flush(); err != nil {
		return err
	}
	next, nextRow, err := NewChanged(ns, nsRow, w.Session)
	if err != nil {
		return err
	}
	tx.Exec(s.q.ensureSession, ensureArgs(next, nextRow), func(n int64) error {
		if n == 0 {
			s.changeSession(tx, w, ns, nsRow, changesNew)
		}
		return nil
	})
	return nil
}

// changeSession queues the locked read of w's session and its change.
func (s *Store) changeSession(tx Tx, w storage.RunWrite, ns *storage.Session, nsRow SessionRow, changesNew bool) {
	tx.QueryRow(s.sql.Session, []any{w.SessionID}, func(sc Scanner) error {
		cur, err := ScanSession(sc)
		if errors.Is(err, sql.ErrNoRows) && changesNew {
			next, nextRow, err := NewChanged(ns, nsRow, w.Session)
			if err == nil {
				tx.Exec(s.q.ensureSession, ensureArgs(next, nextRow), nil)
			}
			return err
		}
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %q: %w", w.SessionID, storage.ErrNotFound)
		}
		if err != nil {
			return err
		}
		old, keys := cur.Version, keysOf(cur)
		next, row, err := ApplyUpdate(cur, w.Session)
		if err != nil {
			return err
		}
		s.updateSessionIn(tx, keys, next, row, old, nil) // the row is locked: it is at old
		return nil
	})
}

// insertEvents queues the inserts of evs, as few statements as
// eventRowSizes allow.
func (s *Store) insertEvents(tx Tx, runID string, evs []storage.Event) {
	for len(evs) > 0 {
		i := 0
		for eventRowSizes[i] > len(evs) {
			i++
		}
		n := eventRowSizes[i]
		args := make([]any, 0, 3*n)
		for _, e := range evs[:n] {
			args = append(args, runID, e.Seq, string(e.Data))
		}
		tx.Exec(s.q.insertEvents[i], args, nil)
		evs = evs[n:]
	}
}

// ClaimRun implements storage.Store.
func (s *Store) ClaimRun(ctx context.Context, c storage.Claim) (*storage.Run, error) {
	var claimed *storage.Run
	err := s.write(ctx, fmt.Sprintf("claim run %q", c.RunID), func(tx Tx) {
		claimed = nil
		tx.QueryRow(s.sql.Claim, ClaimArgs(c), func(sc Scanner) (err error) {
			claimed, err = ScanRun(sc)
			if errors.Is(err, sql.ErrNoRows) {
				return errNotWritten
			}
			return err
		})
	})
	if errors.Is(err, errNotWritten) {
		stored, err := s.GetRun(ctx, c.RunID)
		if err != nil {
			return nil, err
		}
		return nil, storage.CheckClaim(stored, c)
	}
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// RequestCancel implements storage.Store.
func (s *Store) RequestCancel(ctx context.Context, runID string) (*storage.Run, error) {
	var flagged *storage.Run
	err := s.write(ctx, fmt.Sprintf("cancel run %q", runID), func(tx Tx) {
		flagged = nil
		tx.QueryRow(s.sql.RequestCancel, []any{runID, run.Now()}, func(sc Scanner) (err error) {
			flagged, err = ScanRun(sc)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	if flagged == nil { // not in flight: there is nothing to cancel
		return s.GetRun(ctx, runID)
	}
	return flagged, nil
}

// Heartbeat implements storage.Store.
func (s *Store) Heartbeat(ctx context.Context, instanceID string) error {
	if instanceID == "" {
		return fmt.Errorf("%s: Heartbeat needs an instance id", s.name)
	}
	return s.exec(ctx, "heartbeat", s.sql.Heartbeat, instanceID, run.Now())
}

// ReleaseInstance implements storage.InstanceReleaser.
func (s *Store) ReleaseInstance(ctx context.Context, instanceID string) error {
	return s.exec(ctx, "release instance", s.sql.ReleaseInstance, instanceID)
}

// exec writes one statement.
func (s *Store) exec(ctx context.Context, what, query string, args ...any) error {
	return s.write(ctx, what, func(tx Tx) { tx.Exec(query, args, nil) })
}

// write makes one write of the statements fn queues, under the call's
// deadline; its error says what failed.
func (s *Store) write(ctx context.Context, what string, fn func(Tx)) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return err
	}
	err := s.b.Write(ctx, func(tx Tx) error {
		fn(tx)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.name, what, err)
	}
	return nil
}

// Instances implements storage.Store.
func (s *Store) Instances(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.readAll(ctx, "instances", s.sql.Instances, nil, func(sc Scanner) error {
		var id string
		var at int64
		err := sc.Scan(&id, &at)
		out[id] = at
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PutBlob implements storage.Store. The chunks are steps of one write
// (Backend.Steps); the blob is referenced only once it is whole.
func (s *Store) PutBlob(ctx context.Context, sessionID, blobID string, r io.Reader) (int64, error) {
	if sessionID == "" || blobID == "" {
		return 0, fmt.Errorf("%s: PutBlob needs a session id and a blob id", s.name)
	}
	if err := s.check(); err != nil {
		return 0, err
	}
	var size int64
	err := s.b.Steps(ctx, func(step func(func(Tx) error) error) error {
		size = 0
		return Chunks(r, func(seq int64, chunk []byte) error {
			size += int64(len(chunk))
			return step(func(tx Tx) error {
				tx.Exec(s.q.putBlob, []any{blobID, seq, sessionID, chunk}, func(n int64) error {
					if n == 0 {
						return fmt.Errorf("blob %q exists: %w", blobID, storage.ErrConflict)
					}
					return nil
				})
				return nil
			})
		})
	})
	if err != nil {
		return 0, fmt.Errorf("%s: put blob %q: %w", s.name, blobID, err)
	}
	return size, nil
}

// GetBlob implements storage.Store.
func (s *Store) GetBlob(ctx context.Context, sessionID, blobID string) ([]byte, error) {
	var b blobChunks
	if err := s.readAll(ctx, fmt.Sprintf("get blob %q", blobID), s.q.getBlob, []any{blobID, sessionID}, b.add); err != nil {
		return nil, err
	}
	return b.join(sessionID, blobID)
}

// GetRun implements storage.Store.
func (s *Store) GetRun(ctx context.Context, id string) (*storage.Run, error) {
	return get(ctx, s, "run", s.q.getRun, id, ScanRun)
}

// ListRuns implements storage.Store.
func (s *Store) ListRuns(ctx context.Context, q storage.RunQuery) ([]*storage.Run, error) {
	query, args := s.d.ListRuns(q, seq)
	return list(ctx, s, "list runs", query, args, nil, ScanRun)
}

// AppendEvents implements storage.Store; seq numbers come from the last
// stored one inside the write transaction. Where appenders may run at
// once (another process), the one that lost a seq retries.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...json.RawMessage) (int64, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return 0, err
	}
	if err := ValidateEvents(runID, events); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		var next int64
		if err := s.b.Conn().QueryRow(ctx, s.q.nextSeq, runID).Scan(&next); err != nil {
			return 0, s.failf(err, "append events to run %q", runID)
		}
		return next, nil
	}
	const attempts = 100
	for attempt := range attempts {
		first, err := s.appendEvents(ctx, runID, events)
		if err == nil {
			return first, nil
		}
		if _, ok := s.d.SQL.UniqueViolation(err); !ok {
			return 0, fmt.Errorf("%s: append events to run %q: %w", s.name, runID, err)
		}
		if err := Backoff(ctx, attempt); err != nil {
			return 0, err
		}
	}
	return 0, fmt.Errorf("run %q: appending events lost to concurrent appenders %d times: %w", runID, attempts, storage.ErrConflict)
}

// appendEvents appends events once, seq numbers from the last stored one.
func (s *Store) appendEvents(ctx context.Context, runID string, events []json.RawMessage) (int64, error) {
	if a, ok := s.b.(EventAppender); ok {
		data := make([]string, len(events))
		for i, e := range events {
			data[i] = string(e)
		}
		return a.AppendEvents(ctx, runID, data)
	}
	var first int64
	err := s.b.Write(ctx, func(tx Tx) error {
		tx.QueryRow(s.q.nextSeq, []any{runID}, func(sc Scanner) error {
			if err := sc.Scan(&first); err != nil {
				return err
			}
			evs := make([]storage.Event, len(events))
			for i, e := range events {
				evs[i] = storage.Event{Seq: first + int64(i), Data: e}
			}
			s.insertEvents(tx, runID, evs)
			return nil
		})
		return tx.Flush()
	})
	return first, err
}

// ListEvents implements storage.Store.
func (s *Store) ListEvents(ctx context.Context, runID string, after int64) ([]storage.Event, error) {
	e := eventRows{runID: runID, after: after}
	if err := s.readAll(ctx, fmt.Sprintf("list events of run %q", runID), s.q.listEvents, []any{runID, after}, e.add); err != nil {
		return nil, err
	}
	return e.out, nil
}

// --- memories ---

// UpsertMemory implements storage.Store; an existing memory keeps its
// created_at.
func (s *Store) UpsertMemory(ctx context.Context, m *storage.Memory) error {
	if m.MemoryID == "" {
		return fmt.Errorf("storage: memory_id is empty: set Memory.MemoryID")
	}
	topics, err := MemoryTopicsValue(m)
	if err != nil {
		return fmt.Errorf("storage: memory %q: topics: %w", m.MemoryID, err)
	}
	now := run.Now()
	return s.exec(ctx, fmt.Sprintf("upsert memory %q", m.MemoryID), s.q.upsertMemory, m.MemoryID, m.Memory, topics, m.UserID, m.AgentID, m.TeamID,
		m.Input, m.Feedback, cmp.Or(m.CreatedAt, now), cmp.Or(m.UpdatedAt, now))
}

// GetMemory implements storage.Store.
func (s *Store) GetMemory(ctx context.Context, id string) (*storage.Memory, error) {
	return get(ctx, s, "memory", s.q.getMemory, id, ScanMemory)
}

// ListMemories implements storage.Store.
func (s *Store) ListMemories(ctx context.Context, q storage.MemoryQuery) ([]*storage.Memory, int, error) {
	count, query, args := s.d.ListMemories(q)
	return page(ctx, s, "list memories", count, query, args, nil, ScanMemory)
}

// DeleteMemories implements storage.Store.
func (s *Store) DeleteMemories(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return s.check()
	}
	return s.write(ctx, "delete memories", func(tx Tx) {
		s.d.idChunks(ids, func(in string, args []any) { tx.Exec("DELETE FROM "+s.d.Memories+" WHERE memory_id IN "+in, args, nil) })
	})
}

// MemoryTopics implements storage.Store.
func (s *Store) MemoryTopics(ctx context.Context, userID string) ([]string, error) {
	q, args := s.q.memoryTopics, []any(nil)
	if userID != "" {
		q, args = q+s.q.byUserID, []any{userID}
	}
	return list(ctx, s, "memory topics", q+" ORDER BY 1", args, []string{}, func(sc Scanner) (t string, err error) {
		err = sc.Scan(&t)
		return t, err
	})
}

// MemoryStats implements storage.Store.
func (s *Store) MemoryStats(ctx context.Context, userID string, limit, pageNo int) ([]storage.UserMemoryStats, int, error) {
	count, query, args := s.d.MemoryStats(userID, limit, pageNo)
	return page(ctx, s, "memory stats", count, query, args, []storage.UserMemoryStats{}, func(sc Scanner) (st storage.UserMemoryStats, err error) {
		err = sc.Scan(&st.UserID, &st.TotalMemories, &st.LastMemoryUpdatedAt)
		return st, err
	})
}

// --- retention ---

// Prune implements storage.Pruner, a write transaction per batch: runs
// and other writes go on between batches, and replicas pruning at once
// each delete what the other has not.
func (s *Store) Prune(ctx context.Context, p storage.RetentionPolicy) (storage.PruneResult, error) {
	if err := s.check(); err != nil {
		return storage.PruneResult{}, err
	}
	res, err := s.d.Prune(ctx, Pruning{Write: func(ctx context.Context, fn func(Tx) error) error {
		ctx, cancel := s.bound(ctx)
		defer cancel()
		return s.b.Write(ctx, fn)
	}}, p)
	if err != nil {
		return res, fmt.Errorf("%s: prune: %w", s.name, err)
	}
	return res, nil
}
