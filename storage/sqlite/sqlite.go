// Package sqlite is the embedded storage backend: one SQLite file (pure Go,
// modernc.org/sqlite), WAL mode, versioned migrations applied at Open.
//
// Writes go through a single connection whose transactions start with
// BEGIN IMMEDIATE, so writers in this process queue instead of failing with
// SQLITE_BUSY, and writers in other processes wait up to BusyTimeout.
// Reads use a separate pool and never block the writer.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agno-go/agno/internal/privatefile"
	"io"
	"log/slog"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/callgroup"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

// Config configures Open. The zero value opens "agno.db" in the working
// directory.
type Config struct {
	// Path of the database file, created (with its parent directory) on
	// first start. Default "agno.db". ":memory:" keeps the database in this
	// process only.
	Path string
	// BusyTimeout is how long a statement waits for a lock held by another
	// process. Default 5s.
	BusyTimeout time.Duration
	// Synchronous is SQLite's synchronous setting: OFF, NORMAL, FULL or
	// EXTRA. Default NORMAL, which in WAL mode survives a process crash but
	// may lose the last commits on power loss; FULL syncs every commit.
	Synchronous string
	// MaxReadConns bounds concurrent readers. Default 4.
	MaxReadConns int
	// UpdateAttempts bounds UpdateSession's read-modify-write retries
	// before it gives up with storage.ErrConflict. Default 64.
	UpdateAttempts int
	// CallTimeout bounds every call of the store but PutBlob (reading a
	// large file may take longer); a write waits at most this plus
	// BusyTimeout for a lock another process holds. Default 15s;
	// negative: no deadline but the caller's.
	CallTimeout time.Duration
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// DefaultPath is the database file used when Config.Path is empty.
const DefaultPath = "agno.db"

// Store is the SQLite storage.Store.
type Store struct {
	w, r     *sql.DB
	d        *sqlstore.Dialect
	sql      sqlstore.RunSQL
	st       statements
	attempts int
	closed   atomic.Bool

	// group commits the writes made at once together (see commit).
	group     *callgroup.Queue[*pendingWrite]
	lastGroup atomic.Int32
	// applied counts migrations Open ran (tests read it).
	applied int

	writes, commits, checkpoints atomic.Int64
	// restarts counts RESTART checkpoints that started the WAL over.
	restarts atomic.Int64
	busy     time.Duration
	ckpt     *checkpointer
	// restart asks the writer for a RESTART checkpoint after its group.
	restart atomic.Bool
	// eventStmts are the multi-row event INSERTs, by eventRowSizes.
	eventStmts []*sql.Stmt
	path       string
	timeout    time.Duration
	// unwritable is the last write's failure to reach the file (a
	// read-only or full filesystem) until a commit succeeds: Ping
	// reports it.
	unwritable atomic.Pointer[error]
}

// Stats counts the store's work since Open.
type Stats struct {
	// Writes are write transactions as callers see them (one per
	// storage call that writes, however many rows it touches).
	Writes int64
	// Commits are transactions committed to the file: a group commit
	// carries several Writes.
	Commits int64
	// Checkpoints are WAL checkpoints run in the background.
	Checkpoints int64
	// Restarts are checkpoints that started the WAL over from its
	// beginning (what keeps its file bounded under load).
	Restarts int64
}

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{Writes: s.writes.Load(), Commits: s.commits.Load(), Checkpoints: s.checkpoints.Load(), Restarts: s.restarts.Load()}
}

var _ storage.Store = (*Store)(nil)

// lowerFunc is the SQL name of Go's strings.ToLower; SQLite's lower()
// folds ASCII only.
const lowerFunc = "agno_lower"

var registerOnce = sync.OnceValue(func() error {
	return sqlitedrv.RegisterDeterministicScalarFunction(lowerFunc, 1,
		func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case string:
				return strings.ToLower(v), nil
			case []byte:
				return strings.ToLower(string(v)), nil
			case nil:
				return nil, nil
			default:
				return v, nil
			}
		})
})

var dialect = sqlstore.Dialect{
	Sessions:  "agno_sessions",
	Runs:      "agno_runs",
	Events:    "agno_run_events",
	Memories:  "agno_memories",
	Instances: "agno_instances",
	Arg:       func(n int) string { return "?" + strconv.Itoa(n) },
	Contains: func(h, n string) string {
		return "instr(" + lowerFunc + "(" + h + "), " + lowerFunc + "(" + n + ")) > 0"
	},
	HasTopic: func(a string) string {
		return "EXISTS (SELECT 1 FROM json_each(topics) WHERE json_each.value = " + a + ")"
	},
	IndexedBy:     func(index string) string { return " INDEXED BY agno_runs_" + index },
	SessionCounts: "agno_session_counts",
	MemoryCounts:  "agno_memory_counts",
	MemoryUsers:   "agno_memory_users",
}

// statements are prepared once at Open: parsing SQL is a good part of a
// short SQLite write.
type statements struct {
	ensureSession, updateSession, updateSessionDoc, createRun, updateRun, updateRunInline, inlineCount, nextSeq, insertEvent, upsertMemory, putBlob *sql.Stmt // on the writer
	takePending, claim, heartbeat, txSession                                                                                                        *sql.Stmt
	getSession, getRun, listEvents, getMemory, getBlob                                                                                              *sql.Stmt // on the readers
}

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst   **sql.Stmt
		db    *sql.DB
		query string
	}{
		{&s.st.ensureSession, s.w, `INSERT INTO agno_sessions (` + sqlstore.SessionColumns + `)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
			ON CONFLICT (session_id) DO NOTHING`},
		{&s.st.updateSession, s.w, `UPDATE agno_sessions SET session_type = ?2, agent_id = ?3, team_id = ?4,
			workflow_id = ?5, user_id = ?6, session_name = ?7, session_state = ?8, metadata = ?9, summary = ?10,
			metrics = ?11, data = ?12, created_at = ?13, updated_at = ?14, version = ?15
			WHERE session_id = ?1 AND version = ?16`},
		// The same with the indexed columns kept (a run's end, most
		// updates): SQLite rewrites the entry of every index whose column
		// is SET, changed or not, so this touches the updated_at index only.
		{&s.st.updateSessionDoc, s.w, `UPDATE agno_sessions SET session_name = ?7, session_state = ?8, metadata = ?9,
			summary = ?10, metrics = ?11, data = ?12, updated_at = ?14, version = ?15
			WHERE session_id = ?1 AND version = ?16`},
		{&s.st.createRun, s.w, `INSERT INTO agno_runs (run_id, row_seq, session_id, parent_run_id, session_type,
				component_id, user_id, status, created_at, updated_at, data, owner, listed, version, events)
			VALUES (?1, (SELECT COALESCE(MAX(row_seq), 0) + 1 FROM agno_runs), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1, ?13)
			ON CONFLICT (run_id) DO NOTHING`},
		{&s.st.updateRun, s.w, s.sql.UpdateRun},
		{&s.st.updateRunInline, s.w, s.sql.UpdateRunInline},
		{&s.st.inlineCount, s.w, s.sql.InlineCount},
		{&s.st.takePending, s.w, s.sql.TakePending},
		{&s.st.claim, s.w, s.sql.Claim},
		{&s.st.heartbeat, s.w, s.sql.Heartbeat},
		{&s.st.txSession, s.w, s.sql.Session},
		{&s.st.putBlob, s.w, `INSERT INTO agno_blobs (blob_id, seq, session_id, data) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (blob_id, seq) DO NOTHING`},
		{&s.st.getBlob, s.r, `SELECT data FROM agno_blobs WHERE blob_id = ?1 AND session_id = ?2 ORDER BY seq`},
		{&s.st.nextSeq, s.w, `SELECT max(COALESCE((SELECT MAX(seq) + 1 FROM agno_run_events WHERE run_id = ?1), 0),
			COALESCE((SELECT json_array_length(events) FROM agno_runs WHERE run_id = ?1), 0))`},
		{&s.st.insertEvent, s.w, `INSERT INTO agno_run_events (run_id, seq, data) VALUES (?1, ?2, ?3)`},
		{&s.st.upsertMemory, s.w, `INSERT INTO agno_memories (` + sqlstore.MemoryColumns + `)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
			ON CONFLICT (memory_id) DO UPDATE SET memory = excluded.memory, topics = excluded.topics,
				user_id = excluded.user_id, agent_id = excluded.agent_id, team_id = excluded.team_id,
				input = excluded.input, feedback = excluded.feedback, updated_at = excluded.updated_at`},
		{&s.st.getSession, s.r, `SELECT ` + sqlstore.SessionColumns + ` FROM agno_sessions WHERE session_id = ?1`},
		{&s.st.getRun, s.r, `SELECT ` + sqlstore.RunColumns + ` FROM agno_runs WHERE run_id = ?1`},
		{&s.st.listEvents, s.r, dialect.ListEventsSQL()},
		{&s.st.getMemory, s.r, `SELECT ` + sqlstore.MemoryColumns + ` FROM agno_memories WHERE memory_id = ?1`},
	} {
		st, err := p.db.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("sqlite: prepare: %w", err)
		}
		*p.dst = st
	}
	for _, n := range eventRowSizes {
		st, err := s.w.PrepareContext(ctx, eventInsertSQL(n))
		if err != nil {
			return fmt.Errorf("sqlite: prepare: %w", err)
		}
		s.eventStmts = append(s.eventStmts, st)
	}
	return nil
}

// Open opens (creating if needed) the database and applies pending
// migrations.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, migrations)
}

func open(ctx context.Context, cfg Config, ms []migration) (*Store, error) {
	if err := registerOnce(); err != nil {
		return nil, fmt.Errorf("sqlite: register %s: %w", lowerFunc, err)
	}
	path := cfg.Path
	if path == "" {
		path = DefaultPath
	}
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: Config.Path %q: give a plain file path (no \"file:\" URI, no '?')", path)
	}
	busy := cfg.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	syncMode := strings.ToUpper(cfg.Synchronous)
	switch syncMode {
	case "":
		syncMode = "NORMAL"
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return nil, fmt.Errorf("sqlite: Config.Synchronous %q: use OFF, NORMAL, FULL or EXTRA", cfg.Synchronous)
	}
	readers := cfg.MaxReadConns
	if readers <= 0 {
		readers = 4
	}
	attempts := cfg.UpdateAttempts
	if attempts <= 0 {
		attempts = 64
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	inMemory := path == ":memory:"
	if !inMemory {
		if err := createPrivate(path, log); err != nil {
			return nil, err
		}
	}

	common := url.Values{}
	common.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	common.Add("_pragma", "foreign_keys(1)")
	// 512 KiB of page cache per connection, not SQLite's 2 MiB: AgentOS
	// holds about nine connections, the OS page cache keeps the file's hot
	// pages anyway, and at c=32 this is 10 MB less peak memory at the
	// same throughput (BENCHMARKS.md §14).
	common.Add("_pragma", "cache_size(-512)")
	// No checkpoint on commit: the writer would pay for copying the WAL
	// into the database; a background connection does it (checkpoint.go).
	wq := url.Values{"_pragma": append([]string{"journal_mode(WAL)", "synchronous(" + syncMode + ")", "wal_autocheckpoint(0)"}, common["_pragma"]...)}
	wq.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One write connection: writers queue in database/sql instead of
	// meeting SQLITE_BUSY. It never expires, which also keeps ":memory:".
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	timeout := cfg.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	s := &Store{w: w, r: w, d: &dialect, sql: dialect.RunSQL(""), attempts: attempts, path: path, busy: busy, timeout: timeout}
	s.group = s.newGroup()

	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n, err := runMigrations(ctx, tx, ms)
		s.applied = n
		return err
	})
	if err != nil {
		w.Close()
		return nil, err
	}
	if s.applied > 0 {
		log.Info("sqlite: schema migrated", "path", path, "migrations", s.applied)
	}
	// Planner statistics for the queries no index hint pins (SQLite's
	// advice for long-lived connections); analysis_limit keeps it to
	// milliseconds on a large file.
	if _, err := w.ExecContext(ctx, "PRAGMA analysis_limit = 400; PRAGMA optimize = 0x10002"); err != nil {
		log.Warn("sqlite: PRAGMA optimize failed; queries may plan without statistics", "path", path, "error", err)
	}
	if !inMemory {
		rq := url.Values{"_pragma": append([]string{"query_only(1)"}, common["_pragma"]...)}
		r, err := sql.Open("sqlite", path+"?"+rq.Encode())
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
		}
		r.SetMaxOpenConns(readers)
		r.SetMaxIdleConns(readers)
		if err := r.PingContext(ctx); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
		}
		s.r = r
		ck, err := startCheckpointer(path, common, s, log)
		if err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
		s.ckpt = ck
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// createPrivate makes the database file private to this user before
// SQLite opens it, and warns when an existing one is not.
func createPrivate(path string, log *slog.Logger) error {
	open, mode, err := privatefile.Create(path)
	if err != nil {
		return fmt.Errorf("sqlite: Config.Path %s: %w", path, err)
	}
	if open {
		log.Warn("sqlite: the database file is readable by other users; it holds conversations (chmod 600 it)", "path", path, "mode", mode.String())
	}
	return nil
}

// Close implements storage.Store. It waits for running statements.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	for _, st := range []*sql.Stmt{s.st.ensureSession, s.st.updateSession, s.st.updateSessionDoc, s.st.createRun, s.st.updateRun, s.st.updateRunInline, s.st.inlineCount, s.st.nextSeq, s.st.insertEvent,
		s.st.upsertMemory, s.st.putBlob, s.st.getSession, s.st.getRun, s.st.listEvents, s.st.getMemory, s.st.getBlob,
		s.st.takePending, s.st.claim, s.st.heartbeat, s.st.txSession} {
		if st != nil {
			st.Close()
		}
	}
	for _, st := range s.eventStmts {
		st.Close()
	}
	var errR, errC error
	if s.ckpt != nil {
		errC = s.ckpt.close()
	}
	if s.r != s.w {
		errR = s.r.Close()
	}
	return errors.Join(errC, errR, s.w.Close())
}

func (s *Store) check() error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	return nil
}

// fail maps an error after Close to ErrClosed, and explains a deadline
// passed or a file that cannot be written.
func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	if s.closed.Load() && !errors.Is(err, storage.ErrClosed) {
		return fmt.Errorf("%w (%v)", storage.ErrClosed, err)
	}
	if u := s.unwritableError(err); u != nil {
		s.unwritable.Store(&u)
		return u
	}
	return dbguard.Explain(err, s.timeout)
}

func isBusy(err error) bool {
	var e *sqlitedrv.Error
	if errors.As(err, &e) {
		c := e.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

// isConstraint reports a constraint violation (an event seq taken).
func isConstraint(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// writeFunc is one write: it runs inside a transaction and must use ctx
// for its statements (in a group commit it is not the caller's, whose
// cancellation would interrupt the whole transaction).
type writeFunc func(ctx context.Context, tx *sql.Tx) error

// write runs fn in a BEGIN IMMEDIATE transaction on the write connection,
// retrying a few times if another process kept the lock past BusyTimeout.
func (s *Store) write(ctx context.Context, fn writeFunc) error {
	s.writes.Add(1)
	const busyRetries = 5
	for attempt := 0; ; attempt++ {
		err := s.commit(ctx, fn)
		if err == nil || !isBusy(err) || attempt >= busyRetries {
			return s.fail(err)
		}
		if err := sqlstore.Backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// pendingWrite is a write waiting for a group commit.
type pendingWrite struct {
	ctx context.Context
	fn  writeFunc
	err error
}

// maxGroup bounds the writes one commit carries.
const maxGroup = 128

// newGroup is the group commit: writes that arrive while a commit is
// running wait, then one of them commits them all in one transaction. A
// commit is most of the cost of a small SQLite write, so under
// concurrency this multiplies write throughput; alone, a write commits
// by itself at once.
func (s *Store) newGroup() *callgroup.Queue[*pendingWrite] {
	return &callgroup.Queue[*pendingWrite]{Max: maxGroup, Gather: func() {
		// After a group, its writers are coming back with their next
		// writes: let them join rather than commit alone.
		if s.lastGroup.Load() > 1 {
			runtime.Gosched()
		}
	}}
}

// commit runs fn in a group commit.
func (s *Store) commit(ctx context.Context, fn writeFunc) error {
	w := &pendingWrite{ctx: ctx, fn: fn}
	s.group.Do(w, func(group []*pendingWrite) {
		s.lastGroup.Store(int32(len(group)))
		s.commitGroup(group)
		if s.restart.Swap(false) {
			s.restartWAL()
		}
	})
	return w.err
}

func (s *Store) commitGroup(group []*pendingWrite) {
	live := group[:0:0]
	for _, w := range group {
		if w.err = w.ctx.Err(); w.err == nil {
			live = append(live, w)
		}
	}
	if len(live) > 1 && s.commitTogether(live) {
		return
	}
	for _, w := range live {
		w.err = s.commitOne(w.ctx, w.fn)
	}
}

// commitTogether runs the writes in one transaction. If any of them
// fails it rolls everything back and reports false, and the writes are
// committed one by one instead, so a failing write takes no other down.
func (s *Store) commitTogether(group []*pendingWrite) bool {
	bg := context.Background()
	tx, err := s.w.BeginTx(bg, nil)
	if err != nil {
		for _, w := range group {
			w.err = err
		}
		return true
	}
	for _, w := range group {
		if err := w.fn(context.WithoutCancel(w.ctx), tx); err != nil {
			_ = tx.Rollback()
			return false
		}
	}
	err = tx.Commit()
	s.committed(err)
	for _, w := range group {
		w.err = err
	}
	return true
}

// restartWAL checkpoints on the write connection between two groups:
// no frame is added meanwhile, so the checkpoint catches up, and RESTART
// then waits for the readers still inside the WAL so the next write
// starts it over. Readers come and go all the time under load: a
// PASSIVE checkpoint alone never finds a moment without one, and the WAL
// grew without end (88 MB in 8 s at 32 clients). The wait is bounded by
// restartWait, not BusyTimeout: a long reader costs one try, not a stall.
func (s *Store) restartWAL() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(restartWait.Milliseconds(), 10)); err != nil {
		return
	}
	defer func() {
		_, _ = conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(s.busy.Milliseconds(), 10))
	}()
	var busy, frames, done int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &frames, &done); err == nil {
		s.checkpoints.Add(1)
		if busy == 0 {
			s.restarts.Add(1)
		}
	}
}

// restartWait bounds how long the writer waits for readers to leave the
// WAL before it starts it over.
const restartWait = 50 * time.Millisecond

func (s *Store) committed(err error) {
	if err == nil {
		s.commits.Add(1)
		s.unwritable.Store(nil)
		if s.ckpt != nil {
			s.ckpt.poke()
		}
	}
}

func (s *Store) commitOne(ctx context.Context, fn writeFunc) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(ctx, tx); err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	s.committed(err)
	return err
}

// read runs fn in a read transaction so its queries see one snapshot.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := s.check(); err != nil {
		return err
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.fail(err)
	}
	defer tx.Rollback()
	return s.fail(fn(tx))
}

// --- sessions ---

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
	n := sqlstore.NewSession(sess)
	row, err := sqlstore.EncodeSession(n)
	if err != nil {
		return nil, false, err
	}
	for range 3 {
		var inserted int64
		err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := tx.StmtContext(ctx, s.st.ensureSession).ExecContext(ctx,
				n.SessionID, string(n.SessionType), n.AgentID, n.TeamID, n.WorkflowID, n.UserID, n.SessionName,
				row.State, row.Metadata, row.Summary, row.Metrics, row.Data, n.CreatedAt, n.UpdatedAt, n.Version)
			if err != nil {
				return err
			}
			inserted, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("sqlite: ensure session %q: %w", n.SessionID, err)
		}
		if inserted == 1 {
			out, err := sqlstore.Normalize(n, row)
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
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	out, err := sqlstore.ScanSession(s.st.getSession.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: get session %q: %w", id, err))
	}
	return out, nil
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
		next, row, err := sqlstore.ApplyUpdate(cur, fn)
		if err != nil {
			return nil, err
		}
		var n int64
		err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := s.updateSessionIn(ctx, tx, keys, next, row, old)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("sqlite: update session %q: %w", id, err)
		}
		if n == 1 {
			return sqlstore.Normalize(next, row)
		}
		if err := sqlstore.Backoff(ctx, attempt); err != nil {
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
func (s *Store) updateSessionIn(ctx context.Context, tx *sql.Tx, keys sessionKeys, next *storage.Session, row sqlstore.SessionRow, old int64) (sql.Result, error) {
	stmt := s.st.updateSession
	if keysOf(next) == keys {
		stmt = s.st.updateSessionDoc
	}
	return tx.StmtContext(ctx, stmt).ExecContext(ctx,
		next.SessionID, string(next.SessionType), next.AgentID, next.TeamID, next.WorkflowID, next.UserID, next.SessionName,
		row.State, row.Metadata, row.Summary, row.Metrics, row.Data, next.CreatedAt, next.UpdatedAt, next.Version, old)
}

// ListSessions implements storage.Store.
func (s *Store) ListSessions(ctx context.Context, q storage.SessionQuery) ([]*storage.Session, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	count, list, args := s.d.ListSessions(q)
	var out []*storage.Session
	var total int
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, list, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			x, err := sqlstore.ScanSession(rows)
			if err != nil {
				return err
			}
			out = append(out, x)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	return out, total, nil
}

// inList renders "?1, ?2, …" for n arguments starting at first.
func inList(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?" + strconv.Itoa(first+i))
	}
	return b.String()
}

// chunks splits ids to stay far below SQLite's bound-variable limit.
func chunks(ids []string) [][]string {
	const size = 500
	var out [][]string
	for len(ids) > size {
		out = append(out, ids[:size])
		ids = ids[size:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

func anys(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// DeleteSessions implements storage.Store; sessions, runs and events go in
// one transaction.
func (s *Store) DeleteSessions(ctx context.Context, ids ...string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, c := range chunks(ids) {
			in, args := inList(1, len(c)), anys(c)
			for _, stmt := range []string{
				`DELETE FROM agno_run_events WHERE run_id IN (SELECT run_id FROM agno_runs WHERE session_id IN (` + in + `))`,
				`DELETE FROM agno_blobs WHERE session_id IN (` + in + `)`,
				`DELETE FROM agno_runs WHERE session_id IN (` + in + `)`,
				`DELETE FROM agno_sessions WHERE session_id IN (` + in + `)`,
			} {
				if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete sessions: %w", err)
	}
	return nil
}

// --- runs ---

// CreateRun implements storage.Store.
func (s *Store) CreateRun(ctx context.Context, r *storage.Run) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	now := run.Now()
	created, updated := cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now)
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.createIn(ctx, tx, r, created, updated, nil)
	})
	if err != nil {
		return fmt.Errorf("sqlite: create run %q: %w", r.RunID, err)
	}
	return nil
}

// createIn inserts a run in a write transaction, with its inline events
// (sqlstore.InlineEvents, nil for none); ErrConflict when its id is taken.
func (s *Store) createIn(ctx context.Context, tx *sql.Tx, r *storage.Run, created, updated int64, events any) error {
	res, err := tx.StmtContext(ctx, s.st.createRun).ExecContext(ctx, r.RunID, r.SessionID, r.ParentRunID, string(r.SessionType), r.ComponentID, r.UserID, string(r.Status),
		created, updated, sqlstore.RunData(r), r.Owner, r.Listed, events)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmp.Or(err, fmt.Errorf("run %q exists: %w", r.RunID, storage.ErrConflict))
	}
	return nil
}

// errNotWritten marks an in-place run write that changed no row; the
// caller finds out why outside the transaction.
var errNotWritten = errors.New("sqlite: run row not written")

// execRun runs one of the in-place run statements in a transaction;
// extra are arguments after RunArgs.
func execRun(ctx context.Context, tx *sql.Tx, stmt *sql.Stmt, r *storage.Run, extra ...any) error {
	res, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, append(sqlstore.RunArgs(r), extra...)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return cmp.Or(err, errNotWritten)
	}
	return nil
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

// UpdateRun implements storage.Store.
func (s *Store) UpdateRun(ctx context.Context, r *storage.Run) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := storage.ValidateRun(r); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error { return execRun(ctx, tx, s.st.updateRun, r) })
	if errors.Is(err, errNotWritten) {
		return s.whyNotWritten(ctx, r, false)
	}
	if err != nil {
		return fmt.Errorf("sqlite: update run %q: %w", r.RunID, err)
	}
	return nil
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
	ns, row, err := sqlstore.NewSessionRow(sess)
	if err != nil {
		return nil, err
	}
	now := run.Now()
	var stored *storage.Session
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if ns != nil {
			var err error
			if stored, err = s.ensureIn(ctx, tx, ns, row); err != nil {
				return err
			}
		}
		if pending {
			return execRun(ctx, tx, s.st.takePending, r)
		}
		return s.createIn(ctx, tx, r, cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now), nil)
	})
	if errors.Is(err, errNotWritten) {
		return nil, s.whyNotWritten(ctx, r, true)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: start run %q: %w", r.RunID, err)
	}
	return stored, nil
}

// ensureIn creates session ns unless it exists and returns it as stored.
func (s *Store) ensureIn(ctx context.Context, tx *sql.Tx, ns *storage.Session, row sqlstore.SessionRow) (*storage.Session, error) {
	created, err := s.insertSessionIn(ctx, tx, ns, row)
	if err != nil {
		return nil, err
	}
	if created { // the one given: no read back
		return sqlstore.Normalize(ns, row)
	}
	return sqlstore.ScanSession(tx.StmtContext(ctx, s.st.txSession).QueryRowContext(ctx, ns.SessionID))
}

// insertSessionIn inserts ns unless its id exists; true when it did.
func (s *Store) insertSessionIn(ctx context.Context, tx *sql.Tx, ns *storage.Session, row sqlstore.SessionRow) (bool, error) {
	res, err := tx.StmtContext(ctx, s.st.ensureSession).ExecContext(ctx, ns.SessionID, string(ns.SessionType), ns.AgentID, ns.TeamID,
		ns.WorkflowID, ns.UserID, ns.SessionName, row.State, row.Metadata, row.Summary, row.Metrics, row.Data,
		ns.CreatedAt, ns.UpdatedAt, ns.Version)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SaveRun implements storage.Store: row, events, member runs and the
// session change in one transaction (the session read inside it, where
// no other writer can come between).
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
	var nsRow sqlstore.SessionRow
	if w.Create {
		if ns, nsRow, err = sqlstore.NewSessionRow(w.StartSession); err != nil {
			return err
		}
	}
	// A new session the write also changes is inserted changed, once.
	changesNew := ns != nil && w.Session != nil && w.SessionID == ns.SessionID
	// A run's first events go in its row; later ones are rows of their own.
	events := w.Events
	var inline any
	if w.Run != nil {
		if inline = sqlstore.InlineEvents(events); inline != nil {
			events = nil
		}
	}
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		switch {
		case w.Create:
			if ns != nil && !changesNew {
				if _, err := s.insertSessionIn(ctx, tx, ns, nsRow); err != nil {
					return err
				}
			}
			now := run.Now()
			if err := s.createIn(ctx, tx, w.Run, cmp.Or(w.Run.CreatedAt, now), now, inline); err != nil {
				return err
			}
		case w.Run != nil && inline != nil:
			if err := execRun(ctx, tx, s.st.updateRunInline, w.Run, inline); err != nil {
				return err
			}
		case w.Run != nil:
			if err := execRun(ctx, tx, s.st.updateRun, w.Run); err != nil {
				return err
			}
		case w.Owner != "":
			var one int
			err := tx.QueryRowContext(ctx, s.sql.Owned, runID, w.Owner).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("events of run %q: %w: it is not in flight under %s", runID, storage.ErrConflict, w.Owner)
			}
			if err != nil {
				return err
			}
		}
		if len(events) > 0 {
			if err := s.checkSeqs(ctx, tx, runID, events); err != nil {
				return err
			}
			if err := s.insertEvents(ctx, tx, runID, events); err != nil {
				return err
			}
		}
		for _, c := range w.Children {
			now := run.Now()
			err := s.createIn(ctx, tx, c, cmp.Or(c.CreatedAt, now), now, nil)
			if errors.Is(err, storage.ErrConflict) {
				err = execRun(ctx, tx, s.st.updateRun, c)
			}
			if err != nil {
				return fmt.Errorf("member run %q: %w", c.RunID, err)
			}
		}
		if w.Session == nil {
			return nil
		}
		if changesNew && w.SessionNew { // most likely new: inserted, unless it exists by now
			if inserted, err := s.insertChangedIn(ctx, tx, ns, nsRow, w.Session); inserted || err != nil {
				return err
			}
		}
		cur, err := sqlstore.ScanSession(tx.StmtContext(ctx, s.st.txSession).QueryRowContext(ctx, w.SessionID))
		if errors.Is(err, sql.ErrNoRows) && changesNew {
			_, err := s.insertChangedIn(ctx, tx, ns, nsRow, w.Session)
			return err
		}
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %q: %w", w.SessionID, storage.ErrNotFound)
		}
		if err != nil {
			return err
		}
		old, keys := cur.Version, keysOf(cur)
		next, row, err := sqlstore.ApplyUpdate(cur, w.Session)
		if err != nil {
			return err
		}
		_, err = s.updateSessionIn(ctx, tx, keys, next, row, old)
		return err
	})
	if errors.Is(err, errNotWritten) && w.Run != nil {
		return s.whyNotWritten(ctx, w.Run, false)
	}
	if err != nil {
		if isConstraint(err) {
			err = fmt.Errorf("%w (%v)", storage.ErrConflict, err)
		}
		return fmt.Errorf("sqlite: save run %q: %w", runID, err)
	}
	return nil
}

// insertChangedIn inserts new session ns with change applied (one
// write where a start and an end would make two), unless its id exists:
// inserted says which.
func (s *Store) insertChangedIn(ctx context.Context, tx *sql.Tx, ns *storage.Session, row sqlstore.SessionRow, change func(*storage.Session) error) (inserted bool, err error) {
	next, nextRow, err := sqlstore.NewChanged(ns, row, change)
	if err != nil {
		return false, err
	}
	return s.insertSessionIn(ctx, tx, next, nextRow)
}

// checkSeqs refuses events numbered among those the run keeps inline
// (the events table's key catches the rest).
func (s *Store) checkSeqs(ctx context.Context, tx *sql.Tx, runID string, evs []storage.Event) error {
	var n int64
	err := tx.StmtContext(ctx, s.st.inlineCount).QueryRowContext(ctx, runID).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return sqlstore.SeqTaken(runID, sqlstore.FirstSeq(evs), n)
}

// eventRowSizes are the row counts of the prepared multi-row event
// INSERTs (prepared at Open: the one write connection is busy inside a
// transaction, where a statement would have to be prepared).
var eventRowSizes = []int{32, 16, 8, 4, 2}

// insertEvents stores events in multi-row INSERTs: a run's end carries
// several, and one statement costs much less than one per event.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, runID string, evs []storage.Event) error {
	for len(evs) > 0 {
		stmt, n := s.st.insertEvent, 1
		for i, size := range eventRowSizes {
			if len(evs) >= size {
				stmt, n = s.eventStmts[i], size
				break
			}
		}
		args := make([]any, 0, 3*n)
		for _, e := range evs[:n] {
			args = append(args, runID, e.Seq, string(e.Data))
		}
		if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

// eventInsertSQL is the INSERT of n events.
func eventInsertSQL(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO agno_run_events (run_id, seq, data) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(?%d, ?%d, ?%d)", 3*i+1, 3*i+2, 3*i+3)
	}
	return b.String()
}

// ClaimRun implements storage.Store.
func (s *Store) ClaimRun(ctx context.Context, c storage.Claim) (*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	var claimed *storage.Run
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		r, err := sqlstore.ScanRun(tx.StmtContext(ctx, s.st.claim).QueryRowContext(ctx, sqlstore.ClaimArgs(c)...))
		if errors.Is(err, sql.ErrNoRows) {
			return errNotWritten
		}
		claimed = r
		return err
	})
	if errors.Is(err, errNotWritten) {
		stored, err := s.GetRun(ctx, c.RunID)
		if err != nil {
			return nil, err
		}
		return nil, storage.CheckClaim(stored, c)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim run %q: %w", c.RunID, err)
	}
	return claimed, nil
}

// RequestCancel implements storage.Store.
func (s *Store) RequestCancel(ctx context.Context, runID string) (*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	var flagged *storage.Run
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		r, err := sqlstore.ScanRun(tx.QueryRowContext(ctx, s.sql.RequestCancel, runID, run.Now()))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		flagged = r
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: cancel run %q: %w", runID, err)
	}
	if flagged == nil { // not in flight: there is nothing to cancel
		return s.GetRun(ctx, runID)
	}
	return flagged, nil
}

// Heartbeat implements storage.Store.
func (s *Store) Heartbeat(ctx context.Context, instanceID string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if instanceID == "" {
		return errors.New("sqlite: Heartbeat needs an instance id")
	}
	if err := s.check(); err != nil {
		return err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.st.heartbeat).ExecContext(ctx, instanceID, run.Now())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: heartbeat: %w", err)
	}
	return nil
}

// ReleaseInstance implements storage.InstanceReleaser.
func (s *Store) ReleaseInstance(ctx context.Context, instanceID string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.sql.ReleaseInstance, instanceID)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: release instance: %w", err)
	}
	return nil
}

// Instances implements storage.Store.
func (s *Store) Instances(ctx context.Context) (map[string]int64, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, s.sql.Instances)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: instances: %w", err))
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		out[id] = at
	}
	return out, rows.Err()
}

// PutBlob implements storage.Store. Each chunk is its own write, so a
// large file never holds the writer long; the blob is referenced only
// once it is whole.
func (s *Store) PutBlob(ctx context.Context, sessionID, blobID string, r io.Reader) (int64, error) {
	if sessionID == "" || blobID == "" {
		return 0, errors.New("sqlite: PutBlob needs a session id and a blob id")
	}
	if err := s.check(); err != nil {
		return 0, err
	}
	var size int64
	err := sqlstore.Chunks(r, func(seq int64, chunk []byte) error {
		size += int64(len(chunk))
		return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := tx.StmtContext(ctx, s.st.putBlob).ExecContext(ctx, blobID, seq, sessionID, chunk)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return cmp.Or(err, fmt.Errorf("blob %q exists: %w", blobID, storage.ErrConflict))
			}
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: put blob %q: %w", blobID, err)
	}
	return size, nil
}

// GetBlob implements storage.Store.
func (s *Store) GetBlob(ctx context.Context, sessionID, blobID string) ([]byte, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.st.getBlob.QueryContext(ctx, blobID, sessionID)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: get blob %q: %w", blobID, err))
	}
	defer rows.Close()
	data, err := sqlstore.JoinChunks(rows, sessionID, blobID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, s.fail(fmt.Errorf("sqlite: get blob %q: %w", blobID, err))
	}
	return data, err
}

// GetRun implements storage.Store.
func (s *Store) GetRun(ctx context.Context, id string) (*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, err := sqlstore.ScanRun(s.st.getRun.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: get run %q: %w", id, err))
	}
	return r, nil
}

// ListRuns implements storage.Store.
func (s *Store) ListRuns(ctx context.Context, q storage.RunQuery) ([]*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	query, args := s.d.ListRuns(q, "row_seq")
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: list runs: %w", err))
	}
	defer rows.Close()
	var out []*storage.Run
	for rows.Next() {
		r, err := sqlstore.ScanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: list runs: %w", err))
	}
	return out, nil
}

// AppendEvents implements storage.Store; seq numbers come from the last
// stored one inside the write transaction, so appenders never collide.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...json.RawMessage) (int64, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return 0, err
	}
	if err := sqlstore.ValidateEvents(runID, events); err != nil {
		return 0, err
	}
	var first int64
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := tx.StmtContext(ctx, s.st.nextSeq).QueryRowContext(ctx, runID).Scan(&first); err != nil {
			return err
		}
		evs := make([]storage.Event, len(events))
		for i, e := range events {
			evs[i] = storage.Event{Seq: first + int64(i), Data: e}
		}
		return s.insertEvents(ctx, tx, runID, evs)
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: append events to run %q: %w", runID, err)
	}
	return first, nil
}

// ListEvents implements storage.Store.
func (s *Store) ListEvents(ctx context.Context, runID string, after int64) ([]storage.Event, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.st.listEvents.QueryContext(ctx, runID, after)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: list events of run %q: %w", runID, err))
	}
	defer rows.Close()
	out, err := sqlstore.ScanEvents(rows, runID, after)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: list events of run %q: %w", runID, err))
	}
	return out, nil
}

// --- memories ---

// UpsertMemory implements storage.Store; an existing memory keeps its
// created_at.
func (s *Store) UpsertMemory(ctx context.Context, m *storage.Memory) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if m.MemoryID == "" {
		return fmt.Errorf("storage: memory_id is empty: set Memory.MemoryID")
	}
	if err := s.check(); err != nil {
		return err
	}
	topics, err := sqlstore.MemoryTopicsValue(m)
	if err != nil {
		return fmt.Errorf("storage: memory %q: topics: %w", m.MemoryID, err)
	}
	now := run.Now()
	created, updated := m.CreatedAt, m.UpdatedAt
	if created == 0 {
		created = now
	}
	if updated == 0 {
		updated = now
	}
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.st.upsertMemory).ExecContext(ctx, m.MemoryID, m.Memory, topics, m.UserID, m.AgentID, m.TeamID, m.Input, m.Feedback, created, updated)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: upsert memory %q: %w", m.MemoryID, err)
	}
	return nil
}

// GetMemory implements storage.Store.
func (s *Store) GetMemory(ctx context.Context, id string) (*storage.Memory, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	m, err := sqlstore.ScanMemory(s.st.getMemory.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("memory %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: get memory %q: %w", id, err))
	}
	return m, nil
}

// ListMemories implements storage.Store.
func (s *Store) ListMemories(ctx context.Context, q storage.MemoryQuery) ([]*storage.Memory, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	count, list, args := s.d.ListMemories(q)
	var out []*storage.Memory
	var total int
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, list, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := sqlstore.ScanMemory(rows)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: list memories: %w", err)
	}
	return out, total, nil
}

// DeleteMemories implements storage.Store.
func (s *Store) DeleteMemories(ctx context.Context, ids ...string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, c := range chunks(ids) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM agno_memories WHERE memory_id IN (`+inList(1, len(c))+`)`,
				anys(c)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete memories: %w", err)
	}
	return nil
}

// MemoryTopics implements storage.Store.
func (s *Store) MemoryTopics(ctx context.Context, userID string) ([]string, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	q := `SELECT DISTINCT j.value FROM agno_memories m, json_each(m.topics) j WHERE m.topics IS NOT NULL`
	var args []any
	if userID != "" {
		q += ` AND m.user_id = ?1`
		args = append(args, userID)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY 1`, args...)
	if err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: memory topics: %w", err))
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("sqlite: memory topics: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("sqlite: memory topics: %w", err))
	}
	return out, nil
}

// MemoryStats implements storage.Store.
func (s *Store) MemoryStats(ctx context.Context, userID string, limit, page int) ([]storage.UserMemoryStats, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	count, list, args := s.d.MemoryStats(userID, limit, page)
	out := []storage.UserMemoryStats{}
	var total int
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, list, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st storage.UserMemoryStats
			if err := rows.Scan(&st.UserID, &st.TotalMemories, &st.LastMemoryUpdatedAt); err != nil {
				return err
			}
			out = append(out, st)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: memory stats: %w", err)
	}
	return out, total, nil
}
