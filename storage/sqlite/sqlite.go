// Package sqlite is the embedded storage backend: one SQLite file (pure Go,
// modernc.org/sqlite), WAL mode, versioned migrations applied at Open.
// Its queries are the shared SQL implementation (storage/internal/sqlstore)
// in SQLite's dialect; this package is how SQLite runs them.
//
// Writes go through a single connection whose transactions start with
// BEGIN IMMEDIATE, so writers in this process queue instead of failing with
// SQLITE_BUSY, and writers in other processes wait up to BusyTimeout; the
// writes made at once are committed together (group commit). Reads use a
// separate pool and never block the writer. Statements run often are
// prepared once at Open.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
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

	"github.com/agno-go/agno/internal/privatefile"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/callgroup"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/internal/sqlstore"
	"github.com/agno-go/agno/storage/sqldb/dialect"
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

// core is the shared implementation Store embeds (an alias, so the
// field is unexported).
type core = sqlstore.Store

// Store is the SQLite storage.Store.
type Store struct {
	*core
	w, r   *sql.DB
	d      *sqlstore.Dialect
	st     statements
	closed atomic.Bool

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
	path    string
	timeout time.Duration
	log     *slog.Logger
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

var (
	_ storage.Store    = (*Store)(nil)
	_ storage.Migrator = (*Store)(nil)
)

// lowerFunc is the SQL name of Go's strings.ToLower (the dialect's
// Contains calls it); SQLite's lower() folds ASCII only.
const lowerFunc = dialect.LowerFunc

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

// statements are the store's statements prepared once at Open: parsing
// SQL is a good part of a short SQLite write. Those the writer runs are
// prepared on the write connection and used inside its transactions, the
// others on the readers.
type statements struct {
	writes, reads map[string]*sql.Stmt
	// createRun is sqlstore.CreateRunSQL's (tests write with it).
	createRun *sql.Stmt
}

func (s *Store) prepare(ctx context.Context) error {
	writes, reads := sqlstore.Statements(s.core)
	s.st = statements{writes: map[string]*sql.Stmt{}, reads: map[string]*sql.Stmt{}}
	for _, p := range []struct {
		db    *sql.DB
		m     map[string]*sql.Stmt
		texts []string
	}{{s.w, s.st.writes, writes}, {s.r, s.st.reads, reads}} {
		for _, q := range p.texts {
			if p.m[q] != nil {
				continue
			}
			st, err := p.db.PrepareContext(ctx, q)
			if err != nil {
				return fmt.Errorf("sqlite: prepare: %w", err)
			}
			p.m[q] = st
		}
	}
	s.st.createRun = s.st.writes[sqlstore.CreateRunSQL(s.core)]
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
	d := sqlstore.NewDialect(dialect.SQLite, "")
	d.RowSeq = "(SELECT COALESCE(MAX(row_seq), 0) + 1 FROM " + d.Runs + ")"
	s := &Store{w: w, r: w, d: d, path: path, busy: busy, timeout: timeout, log: log}
	s.core = sqlstore.New(backend{s}, d, sqlstore.Options{Name: "sqlite", CallTimeout: timeout, UpdateAttempts: cfg.UpdateAttempts})
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
	for _, m := range []map[string]*sql.Stmt{s.st.writes, s.st.reads} {
		for _, st := range m {
			st.Close()
		}
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

// Migrate implements storage.Migrator: pending migrations, in a write
// transaction (Open applied them already; another process sharing the
// file with a newer build may have added some since).
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	var n int
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		n, err = runMigrations(ctx, tx, migrations)
		return err
	})
	if err == nil && n > 0 {
		s.log.Info("sqlite: schema migrated", "path", s.path, "migrations", n)
	}
	return err
}

// backend runs the shared implementation's statements on SQLite.
type backend struct{ s *Store }

// writer is tx as the shared implementation runs statements in it, with
// the statements prepared on the write connection.
func (s *Store) writer(ctx context.Context, tx *sql.Tx) sqlstore.Tx {
	return sqlstore.Immediate(ctx, sqlstore.SQL(tx, func(ctx context.Context, q string) *sql.Stmt {
		if st := s.st.writes[q]; st != nil {
			return tx.StmtContext(ctx, st)
		}
		return nil
	}))
}

func (b backend) Write(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return b.s.write(ctx, func(ctx context.Context, tx *sql.Tx) error { return sqlstore.Run(b.s.writer(ctx, tx), fn) })
}

// Steps commits each step by itself, so a large blob never holds the
// writer long; the steps are not bounded by the call timeout (reading a
// large file may take longer).
func (b backend) Steps(ctx context.Context, fn func(step func(func(sqlstore.Tx) error) error) error) error {
	return fn(func(step func(sqlstore.Tx) error) error { return b.Write(ctx, step) })
}

func (b backend) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return b.s.read(ctx, func(tx *sql.Tx) error { return sqlstore.Run(sqlstore.Immediate(ctx, sqlstore.SQL(tx, nil)), fn) })
}

func (b backend) Conn() sqlstore.Execer {
	return sqlstore.SQL(b.s.r, func(_ context.Context, q string) *sql.Stmt { return b.s.st.reads[q] })
}

func (b backend) Fail(err error) error { return b.s.fail(err) }
func (b backend) Closed() bool         { return b.s.closed.Load() }
