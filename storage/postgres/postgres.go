// Package postgres is the PostgreSQL storage backend (pgx/v5, pgxpool):
// typed tables in one schema (default "ai"), versioned migrations applied
// at Open under an advisory lock so replicas starting together migrate
// once.
package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/callgroup"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

// Config configures Open.
type Config struct {
	// DSN is a PostgreSQL URL or key=value string, e.g.
	// "postgres://user:pass@host:5432/db?sslmode=disable". Required unless
	// Pool is set.
	DSN string
	// Pool, when set, is used instead of opening one from DSN; Close then
	// leaves it open for its owner.
	Pool *pgxpool.Pool
	// Schema holds the tables; created if missing. Default "ai".
	Schema string
	// MaxConns bounds the pool opened from DSN. Default the DSN's
	// pool_max_conns, else DefaultMaxConns (pgxpool's own default, the
	// number of CPUs, queues concurrent runs behind a few connections).
	MaxConns int32
	// UpdateAttempts bounds UpdateSession's read-modify-write retries
	// before it gives up with storage.ErrConflict. Default 64.
	UpdateAttempts int
	// CallTimeout bounds every call of the store (a frozen database
	// fails it with storage.ErrUnavailable instead of holding it).
	// Default DefaultCallTimeout (15s); negative: no deadline but the
	// caller's.
	CallTimeout time.Duration
	// ConnectTimeout bounds one connection attempt of a pool opened from
	// DSN. Default the DSN's connect_timeout, else 5s.
	ConnectTimeout time.Duration
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// DefaultCallTimeout is Config.CallTimeout's default.
const DefaultCallTimeout = dbguard.DefaultCallTimeout

// DefaultMaxConns is the pool size when neither Config nor the DSN sets
// one.
const DefaultMaxConns = 16

// DefaultSchema is the schema used when Config.Schema is empty (agno's).
const DefaultSchema = "ai"

// Store is the PostgreSQL storage.Store.
type Store struct {
	pool     *pgxpool.Pool
	ownsPool bool
	schema   string
	d        *sqlstore.Dialect
	q        queries
	sql      sqlstore.RunSQL
	attempts int
	closed   chan struct{}
	// applied counts migrations Open ran (tests read it).
	applied int
	// timeout bounds each call; guard spaces connection attempts out
	// while the database is down (nil for a pool the caller passed).
	timeout time.Duration
	guard   *dbguard.Breaker
	// creates groups the writes of runs that made their session (group.go).
	creates *callgroup.Queue[*pendingCreate]
}

var _ storage.Store = (*Store)(nil)

// queries are the statements whose text depends on the schema.
type queries struct {
	getSession, ensureSession, updateSession    string
	createRun, insertRun, getRun, deleteEvents  string
	createGroup                                 string
	deleteRuns                                  string
	putBlob, getBlob, deleteBlobs               string
	deleteSessions, appendEvents, nextSeq       string
	insertEvent                                 string
	listEvents, upsertMemory, getMemory         string
	deleteMemories, memoryTopics, memoryTopicsU string
}

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// Open connects, creates the schema if missing and applies pending
// migrations.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, migrations)
}

func open(ctx context.Context, cfg Config, ms []migration) (*Store, error) {
	schema := cfg.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("postgres: Config.Schema %q: use letters, digits and _ (not starting with a digit), at most 63", schema)
	}
	attempts := cfg.UpdateAttempts
	if attempts <= 0 {
		attempts = 64
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	timeout := cfg.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	var guard *dbguard.Breaker
	pool, owns := cfg.Pool, false
	if pool == nil {
		if cfg.DSN == "" {
			return nil, errors.New("postgres: Config.DSN is empty: set it (postgres://user:pass@host:5432/db) or pass Config.Pool")
		}
		pc, err := pgxpool.ParseConfig(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("postgres: Config.DSN: %w", err)
		}
		switch {
		case cfg.MaxConns > 0:
			pc.MaxConns = cfg.MaxConns
		case !strings.Contains(cfg.DSN, "pool_max_conns"):
			pc.MaxConns = max(pc.MaxConns, DefaultMaxConns)
		}
		// An outage: one connection attempt per backoff, not one per
		// request, each bounded by the connect timeout.
		guard = dbguard.NewBreaker("postgres")
		pc.BeforeConnect = guard.Guard(pc.ConnConfig, cfg.ConnectTimeout)
		pc.AfterConnect = func(context.Context, *pgx.Conn) error { guard.OK(); return nil }
		if pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
			return nil, fmt.Errorf("postgres: connect: %w", err)
		}
		owns = true
	}
	s := &Store{pool: pool, ownsPool: owns, schema: schema, attempts: attempts, closed: make(chan struct{}), timeout: timeout, guard: guard,
		creates: newCreates()}
	s.d, s.q = build(schema)
	s.sql = s.d.RunSQL(" FOR UPDATE")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		n, err := runMigrations(ctx, tx, schema, ms)
		s.applied = n
		return err
	})
	if err != nil {
		if owns {
			pool.Close()
		}
		return nil, err
	}
	if s.applied > 0 {
		log.Info("postgres: schema migrated", "schema", schema, "migrations", s.applied)
	}
	return s, nil
}

func build(schema string) (*sqlstore.Dialect, queries) {
	t := func(name string) string { return pgx.Identifier{schema, name}.Sanitize() }
	d := &sqlstore.Dialect{
		Sessions:      t("agno_sessions"),
		Runs:          t("agno_runs"),
		Events:        t("agno_run_events"),
		Memories:      t("agno_memories"),
		Instances:     t("agno_instances"),
		SessionCounts: t("agno_session_counts"),
		MemoryCounts:  t("agno_memory_counts"),
		MemoryUsers:   t("agno_memory_users"),
		Arg:           func(n int) string { return "$" + strconv.Itoa(n) },
		Contains:      func(h, n string) string { return "strpos(lower(" + h + "), lower(" + n + "::text)) > 0" },
		Collate:       ` COLLATE "C"`,
		HasTopic:      func(a string) string { return "topics @> jsonb_build_array(" + a + "::text)" },
	}
	// After the events table's and the inline ones.
	nextSeq := `SELECT GREATEST(COALESCE(MAX(seq), -1) + 1, COALESCE((SELECT json_array_length(events) FROM ` + d.Runs +
		` WHERE run_id = $1), 0)) AS next FROM ` + d.Events + ` WHERE run_id = $1`
	q := queries{
		getSession: `SELECT ` + sqlstore.SessionColumns + ` FROM ` + d.Sessions + ` WHERE session_id = $1`,
		ensureSession: `INSERT INTO ` + d.Sessions + ` (` + sqlstore.SessionColumns + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (session_id) DO NOTHING`,
		updateSession: `UPDATE ` + d.Sessions + ` SET session_type = $2, agent_id = $3, team_id = $4,
			workflow_id = $5, user_id = $6, session_name = $7, session_state = $8, metadata = $9, summary = $10,
			metrics = $11, data = $12, created_at = $13, updated_at = $14, version = $15
			WHERE session_id = $1 AND version = $16`,
		createRun: `INSERT INTO ` + d.Runs + ` (run_id, session_id, parent_run_id, session_type, component_id, user_id,
				status, created_at, updated_at, data, owner, listed, version, events)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1, $13)
			ON CONFLICT (run_id) DO NOTHING`,
		// insertRun fails on a taken id (aborting the batch it is in).
		insertRun: `INSERT INTO ` + d.Runs + ` (run_id, session_id, parent_run_id, session_type, component_id, user_id,
				status, created_at, updated_at, data, owner, listed, version, events)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1, $13)`,
		createGroup: createGroupSQL(d.Sessions, d.Runs),
		putBlob: `INSERT INTO ` + t("agno_blobs") + ` (blob_id, seq, session_id, data) VALUES ($1, $2, $3, $4)
			ON CONFLICT (blob_id, seq) DO NOTHING`,
		getBlob:        `SELECT data FROM ` + t("agno_blobs") + ` WHERE blob_id = $1 AND session_id = $2 ORDER BY seq`,
		deleteBlobs:    `DELETE FROM ` + t("agno_blobs") + ` WHERE session_id = ANY($1)`,
		getRun:         `SELECT ` + sqlstore.RunColumns + ` FROM ` + d.Runs + ` WHERE run_id = $1`,
		deleteEvents:   `DELETE FROM ` + d.Events + ` WHERE run_id IN (SELECT run_id FROM ` + d.Runs + ` WHERE session_id = ANY($1))`,
		deleteRuns:     `DELETE FROM ` + d.Runs + ` WHERE session_id = ANY($1)`,
		deleteSessions: `DELETE FROM ` + d.Sessions + ` WHERE session_id = ANY($1)`,
		// The next seq is read in the same statement; a concurrent
		// appender that took it makes this one fail on the primary key,
		// and AppendEvents retries.
		appendEvents: `WITH ins AS (
				INSERT INTO ` + d.Events + ` (run_id, seq, data)
				SELECT $1, n.next + t.ord - 1, t.d
				FROM (` + nextSeq + `) n,
					unnest($2::json[]) WITH ORDINALITY AS t(d, ord)
				RETURNING seq)
			SELECT MIN(seq) FROM ins`,
		nextSeq:     nextSeq,
		insertEvent: `INSERT INTO ` + d.Events + ` (run_id, seq, data) VALUES ($1, $2, $3)`,
		listEvents:  d.ListEventsSQL(),
		upsertMemory: `INSERT INTO ` + d.Memories + ` (` + sqlstore.MemoryColumns + `)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (memory_id) DO UPDATE SET memory = excluded.memory, topics = excluded.topics,
				user_id = excluded.user_id, agent_id = excluded.agent_id, team_id = excluded.team_id,
				input = excluded.input, feedback = excluded.feedback, updated_at = excluded.updated_at`,
		getMemory:      `SELECT ` + sqlstore.MemoryColumns + ` FROM ` + d.Memories + ` WHERE memory_id = $1`,
		deleteMemories: `DELETE FROM ` + d.Memories + ` WHERE memory_id = ANY($1)`,
		memoryTopics: `SELECT DISTINCT t COLLATE "C" FROM ` + d.Memories + `, jsonb_array_elements_text(topics) AS t
			WHERE topics IS NOT NULL ORDER BY 1`,
		memoryTopicsU: `SELECT DISTINCT t COLLATE "C" FROM ` + d.Memories + `, jsonb_array_elements_text(topics) AS t
			WHERE topics IS NOT NULL AND user_id = $1 ORDER BY 1`,
	}
	return d, q
}

// Shared is a store whose Postgres database other features share: its
// pool, and the schema its tables are in. Knowledge contents and vectors
// and the run engine's signals (LISTEN/NOTIFY) use it; ask a
// storage.Store for it with a type assertion to this interface.
type Shared interface {
	Pool() *pgxpool.Pool
	Schema() string
}

var (
	_ Shared           = (*Store)(nil)
	_ storage.Migrator = (*Store)(nil)
)

// Migrate implements storage.Migrator: the pending migrations, applied
// as Open applies them (under its advisory lock), on this store's pool; a
// replica with a newer build may have added some since this one opened.
func (s *Store) Migrate(ctx context.Context) error {
	o, err := Open(ctx, Config{Pool: s.pool, Schema: s.schema})
	if err != nil {
		return err
	}
	return o.Close() // the pool is the store's
}

// Pool is the connection pool, for features that share the database
// (LISTEN/NOTIFY, job queues).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema is the schema holding the tables.
func (s *Store) Schema() string { return s.schema }

// Close implements storage.Store. It waits for queries in flight.
func (s *Store) Close() error {
	select {
	case <-s.closed:
		return nil
	default:
	}
	close(s.closed)
	if s.ownsPool {
		s.pool.Close()
	}
	return nil
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func (s *Store) check() error {
	if s.isClosed() {
		return storage.ErrClosed
	}
	return nil
}

// fail maps an error after Close to ErrClosed, counts a failed
// connection attempt, and marks an outage storage.ErrUnavailable.
func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	if s.isClosed() && !errors.Is(err, storage.ErrClosed) {
		return fmt.Errorf("%w (%v)", storage.ErrClosed, err)
	}
	if s.guard != nil {
		s.guard.Observe(err)
	}
	return dbguard.Explain(err, s.timeout)
}

// bound gives one call of the store its deadline.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return dbguard.Bound(ctx, s.timeout)
}

// Ping implements storage.Pinger: one round trip on a pooled
// connection (failing at once while connection attempts are held back).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		return s.fail(fmt.Errorf("postgres: ping: %w", err))
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// read runs fn in a read-only repeatable-read transaction, so a count and
// its page see one snapshot.
func (s *Store) read(ctx context.Context, fn func(pgx.Tx) error) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.fail(pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn))
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
		tag, err := s.pool.Exec(ctx, s.q.ensureSession,
			n.SessionID, string(n.SessionType), n.AgentID, n.TeamID, n.WorkflowID, n.UserID, n.SessionName,
			row.State, row.Metadata, row.Summary, row.Metrics, row.Data, n.CreatedAt, n.UpdatedAt, n.Version)
		if err != nil {
			return nil, false, s.fail(fmt.Errorf("postgres: ensure session %q: %w", n.SessionID, err))
		}
		if tag.RowsAffected() == 1 {
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
	out, err := sqlstore.ScanSession(s.pool.QueryRow(ctx, s.q.getSession, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("session %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: get session %q: %w", id, err))
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
		old := cur.Version
		next, row, err := sqlstore.ApplyUpdate(cur, fn)
		if err != nil {
			return nil, err
		}
		tag, err := s.pool.Exec(ctx, s.q.updateSession,
			id, string(next.SessionType), next.AgentID, next.TeamID, next.WorkflowID, next.UserID, next.SessionName,
			row.State, row.Metadata, row.Summary, row.Metrics, row.Data, next.CreatedAt, next.UpdatedAt, next.Version, old)
		if err != nil {
			return nil, s.fail(fmt.Errorf("postgres: update session %q: %w", id, err))
		}
		if tag.RowsAffected() == 1 {
			return sqlstore.Normalize(next, row)
		}
		if err := sqlstore.Backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("session %q: update lost to concurrent writers %d times: %w", id, s.attempts, storage.ErrConflict)
}

// ListSessions implements storage.Store.
func (s *Store) ListSessions(ctx context.Context, q storage.SessionQuery) ([]*storage.Session, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	count, list, args := s.d.ListSessions(q)
	var out []*storage.Session
	var total int
	err := s.read(ctx, func(tx pgx.Tx) error {
		out, total = nil, 0
		if err := tx.QueryRow(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, list, args...)
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
		return nil, 0, fmt.Errorf("postgres: list sessions: %w", err)
	}
	return out, total, nil
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
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(s.q.deleteEvents, ids)
		b.Queue(s.q.deleteBlobs, ids)
		b.Queue(s.q.deleteRuns, ids)
		b.Queue(s.q.deleteSessions, ids)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return s.fail(fmt.Errorf("postgres: delete sessions: %w", err))
	}
	return nil
}

// --- runs ---

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// createIn inserts a run with its inline events (sqlstore.InlineEvents,
// nil for none); ErrConflict when its id is taken.
func (s *Store) createIn(ctx context.Context, db execer, r *storage.Run, events any) error {
	now := run.Now()
	tag, err := db.Exec(ctx, s.q.createRun, r.RunID, r.SessionID, r.ParentRunID, string(r.SessionType), r.ComponentID,
		r.UserID, string(r.Status), cmp.Or(r.CreatedAt, now), cmp.Or(r.UpdatedAt, now), sqlstore.RunData(r), r.Owner, r.Listed, events)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("run %q exists: %w", r.RunID, storage.ErrConflict)
	}
	return nil
}

// errNotWritten marks an in-place run write that changed no row.
var errNotWritten = errors.New("postgres: run row not written")

// execRun runs one of the in-place run statements; extra are arguments
// after RunArgs.
func execRun(ctx context.Context, db execer, stmt string, r *storage.Run, extra ...any) error {
	tag, err := db.Exec(ctx, stmt, append(sqlstore.RunArgs(r), extra...)...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return errNotWritten
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
	if err := s.createIn(ctx, s.pool, r, nil); err != nil {
		if errors.Is(err, storage.ErrConflict) {
			return fmt.Errorf("postgres: create run: %w", err)
		}
		return s.fail(fmt.Errorf("postgres: create run %q: %w", r.RunID, err))
	}
	return nil
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
	err := execRun(ctx, s.pool, s.sql.UpdateRun, r)
	if errors.Is(err, errNotWritten) {
		return s.whyNotWritten(ctx, r, false)
	}
	if err != nil {
		return s.fail(fmt.Errorf("postgres: update run %q: %w", r.RunID, err))
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
	if !pending {
		return s.startRunBatch(ctx, ns, row, r)
	}
	var stored *storage.Session
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		stored = nil
		if ns != nil {
			if _, err := tx.Exec(ctx, s.q.ensureSession, ensureArgs(ns, row)...); err != nil {
				return err
			}
			var err error
			if stored, err = sqlstore.ScanSession(tx.QueryRow(ctx, s.q.getSession, ns.SessionID)); err != nil {
				return err
			}
		}
		if pending {
			return execRun(ctx, tx, s.sql.TakePending, r)
		}
		return s.createIn(ctx, tx, r, nil)
	})
	switch {
	case errors.Is(err, errNotWritten):
		return nil, s.whyNotWritten(ctx, r, true)
	case errors.Is(err, storage.ErrConflict):
		return nil, fmt.Errorf("postgres: start run: %w", err)
	case err != nil:
		return nil, s.fail(fmt.Errorf("postgres: start run %q: %w", r.RunID, err))
	}
	return stored, nil
}

// SaveRun implements storage.Store: row, events, member runs and the
// session change in one transaction; the session row is locked while it
// changes.
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
	switch {
	case w.Create && w.SessionNew && ns != nil && w.Session != nil && w.SessionID == ns.SessionID && w.Run.SessionID == ns.SessionID &&
		len(w.Children) == 0:
		err = s.createWithSession(ctx, runID, w, ns, nsRow)
	case len(w.Children) == 0:
		err = s.saveRunBatch(ctx, runID, w, ns, nsRow)
	default:
		err = s.saveRunTx(ctx, runID, w, ns, nsRow)
	}
	if errors.Is(err, errNotWritten) && w.Run != nil {
		return s.whyNotWritten(ctx, w.Run, false)
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" { // unique violation: an event seq taken
			return fmt.Errorf("postgres: save run %q: %w (%v)", runID, storage.ErrConflict, err)
		}
		return s.fail(fmt.Errorf("postgres: save run %q: %w", runID, err))
	}
	return nil
}

// saveRunTx is SaveRun statement by statement (member runs are created
// or updated depending on what exists).
func (s *Store) saveRunTx(ctx context.Context, runID string, w storage.RunWrite, ns *storage.Session, nsRow sqlstore.SessionRow) error {
	events, inline := splitEvents(w)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		switch {
		case w.Create:
			if ns != nil {
				if _, err := tx.Exec(ctx, s.q.ensureSession, ensureArgs(ns, nsRow)...); err != nil {
					return err
				}
			}
			if err := s.createIn(ctx, tx, w.Run, inline); err != nil {
				return err
			}
		case w.Run != nil && inline != nil:
			if err := execRun(ctx, tx, s.sql.UpdateRunInline, w.Run, inline); err != nil {
				return err
			}
		case w.Run != nil:
			if err := execRun(ctx, tx, s.sql.UpdateRun, w.Run); err != nil {
				return err
			}
		case w.Owner != "":
			if err := s.checkOwned(ctx, tx, runID, w.Owner); err != nil {
				return err
			}
		}
		if len(events) > 0 {
			var n int64
			if err := tx.QueryRow(ctx, s.sql.InlineCount, runID).Scan(&n); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if err := sqlstore.SeqTaken(runID, sqlstore.FirstSeq(events), n); err != nil {
				return err
			}
			b := &pgx.Batch{}
			for _, e := range events {
				b.Queue(s.q.insertEvent, runID, e.Seq, string(e.Data))
			}
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
		}
		for _, c := range w.Children {
			err := s.createIn(ctx, tx, c, nil)
			if errors.Is(err, storage.ErrConflict) {
				err = execRun(ctx, tx, s.sql.UpdateRun, c)
			}
			if err != nil {
				return fmt.Errorf("member run %q: %w", c.RunID, err)
			}
		}
		if w.Session == nil {
			return nil
		}
		cur, err := sqlstore.ScanSession(tx.QueryRow(ctx, s.sql.Session, w.SessionID))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("session %q: %w", w.SessionID, storage.ErrNotFound)
		}
		if err != nil {
			return err
		}
		old := cur.Version
		next, row, err := sqlstore.ApplyUpdate(cur, w.Session)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, s.q.updateSession,
			w.SessionID, string(next.SessionType), next.AgentID, next.TeamID, next.WorkflowID, next.UserID, next.SessionName,
			row.State, row.Metadata, row.Summary, row.Metrics, row.Data, next.CreatedAt, next.UpdatedAt, next.Version, old)
		return err
	})
}

// ClaimRun implements storage.Store.
func (s *Store) ClaimRun(ctx context.Context, c storage.Claim) (*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, err := sqlstore.ScanRun(s.pool.QueryRow(ctx, s.sql.Claim, sqlstore.ClaimArgs(c)...))
	if errors.Is(err, pgx.ErrNoRows) {
		stored, err := s.GetRun(ctx, c.RunID)
		if err != nil {
			return nil, err
		}
		return nil, storage.CheckClaim(stored, c)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: claim run %q: %w", c.RunID, err))
	}
	return r, nil
}

// RequestCancel implements storage.Store.
func (s *Store) RequestCancel(ctx context.Context, runID string) (*storage.Run, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	r, err := sqlstore.ScanRun(s.pool.QueryRow(ctx, s.sql.RequestCancel, runID, run.Now()))
	if errors.Is(err, pgx.ErrNoRows) { // not in flight: there is nothing to cancel
		return s.GetRun(ctx, runID)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: cancel run %q: %w", runID, err))
	}
	return r, nil
}

// Heartbeat implements storage.Store.
func (s *Store) Heartbeat(ctx context.Context, instanceID string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if instanceID == "" {
		return errors.New("postgres: Heartbeat needs an instance id")
	}
	if err := s.check(); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, s.sql.Heartbeat, instanceID, run.Now()); err != nil {
		return s.fail(fmt.Errorf("postgres: heartbeat: %w", err))
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
	if _, err := s.pool.Exec(ctx, s.sql.ReleaseInstance, instanceID); err != nil {
		return s.fail(fmt.Errorf("postgres: release instance: %w", err))
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
	rows, err := s.pool.Query(ctx, s.sql.Instances)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: instances: %w", err))
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

// PutBlob implements storage.Store: the chunks go in one transaction.
func (s *Store) PutBlob(ctx context.Context, sessionID, blobID string, r io.Reader) (int64, error) {
	if sessionID == "" || blobID == "" {
		return 0, errors.New("postgres: PutBlob needs a session id and a blob id")
	}
	if err := s.check(); err != nil {
		return 0, err
	}
	// A blob may be large: each statement has the call's deadline, not
	// the whole upload.
	step := func(fn func(context.Context) error) error {
		ctx, cancel := s.bound(ctx)
		defer cancel()
		return fn(ctx)
	}
	var size int64
	var tx pgx.Tx
	err := step(func(ctx context.Context) (err error) { tx, err = s.pool.Begin(ctx); return err })
	if err == nil {
		err = sqlstore.Chunks(r, func(seq int64, chunk []byte) error {
			size += int64(len(chunk))
			return step(func(ctx context.Context) error {
				tag, err := tx.Exec(ctx, s.q.putBlob, blobID, seq, sessionID, chunk)
				if err == nil && tag.RowsAffected() == 0 {
					err = fmt.Errorf("blob %q exists: %w", blobID, storage.ErrConflict)
				}
				return err
			})
		})
		if err == nil {
			err = step(tx.Commit)
		} else {
			_ = step(tx.Rollback)
		}
	}
	if err != nil {
		return 0, s.fail(fmt.Errorf("postgres: put blob %q: %w", blobID, err))
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
	rows, err := s.pool.Query(ctx, s.q.getBlob, blobID, sessionID)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: get blob %q: %w", blobID, err))
	}
	defer rows.Close()
	data, err := sqlstore.JoinChunks(rows, sessionID, blobID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, s.fail(fmt.Errorf("postgres: get blob %q: %w", blobID, err))
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
	r, err := sqlstore.ScanRun(s.pool.QueryRow(ctx, s.q.getRun, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("run %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: get run %q: %w", id, err))
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
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: list runs: %w", err))
	}
	defer rows.Close()
	var out []*storage.Run
	for rows.Next() {
		r, err := sqlstore.ScanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("postgres: list runs: %w", err))
	}
	return out, nil
}

// AppendEvents implements storage.Store.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...json.RawMessage) (int64, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return 0, err
	}
	if err := sqlstore.ValidateEvents(runID, events); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		var next int64
		if err := s.pool.QueryRow(ctx, s.q.nextSeq, runID).Scan(&next); err != nil {
			return 0, s.fail(fmt.Errorf("postgres: append events to run %q: %w", runID, err))
		}
		return next, nil
	}
	data := make([]string, len(events))
	for i, e := range events {
		data[i] = string(e)
	}
	const attempts = 100
	for attempt := range attempts {
		var first int64
		err := s.pool.QueryRow(ctx, s.q.appendEvents, runID, data).Scan(&first)
		if err == nil {
			return first, nil
		}
		if !isUniqueViolation(err) {
			return 0, s.fail(fmt.Errorf("postgres: append events to run %q: %w", runID, err))
		}
		if err := sqlstore.Backoff(ctx, attempt); err != nil {
			return 0, err
		}
	}
	return 0, fmt.Errorf("run %q: appending events lost to concurrent appenders %d times: %w", runID, attempts, storage.ErrConflict)
}

// ListEvents implements storage.Store.
func (s *Store) ListEvents(ctx context.Context, runID string, after int64) ([]storage.Event, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, s.q.listEvents, runID, after)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: list events of run %q: %w", runID, err))
	}
	defer rows.Close()
	out, err := sqlstore.ScanEvents(rows, runID, after)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: list events of run %q: %w", runID, err))
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
	if _, err := s.pool.Exec(ctx, s.q.upsertMemory, m.MemoryID, m.Memory, topics, m.UserID, m.AgentID, m.TeamID,
		m.Input, m.Feedback, created, updated); err != nil {
		return s.fail(fmt.Errorf("postgres: upsert memory %q: %w", m.MemoryID, err))
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
	m, err := sqlstore.ScanMemory(s.pool.QueryRow(ctx, s.q.getMemory, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("memory %q: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: get memory %q: %w", id, err))
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
	err := s.read(ctx, func(tx pgx.Tx) error {
		out, total = nil, 0
		if err := tx.QueryRow(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, list, args...)
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
		return nil, 0, fmt.Errorf("postgres: list memories: %w", err)
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
	if _, err := s.pool.Exec(ctx, s.q.deleteMemories, ids); err != nil {
		return s.fail(fmt.Errorf("postgres: delete memories: %w", err))
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
	query, args := s.q.memoryTopics, []any(nil)
	if userID != "" {
		query, args = s.q.memoryTopicsU, []any{userID}
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: memory topics: %w", err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.fail(fmt.Errorf("postgres: memory topics: %w", err))
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// MemoryStats implements storage.Store.
func (s *Store) MemoryStats(ctx context.Context, userID string, limit, page int) ([]storage.UserMemoryStats, int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	count, list, args := s.d.MemoryStats(userID, limit, page)
	var out []storage.UserMemoryStats
	var total int
	err := s.read(ctx, func(tx pgx.Tx) error {
		out, total = []storage.UserMemoryStats{}, 0
		if err := tx.QueryRow(ctx, count, args...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, list, args...)
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
		return nil, 0, fmt.Errorf("postgres: memory stats: %w", err)
	}
	return out, total, nil
}
