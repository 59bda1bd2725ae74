// Package postgres is the PostgreSQL storage backend (pgx/v5, pgxpool):
// typed tables in one schema (default "ai"), versioned migrations applied
// at Open under an advisory lock so replicas starting together migrate
// once. Its queries are the shared SQL implementation
// (storage/internal/sqlstore) in Postgres's dialect; this package is how
// Postgres runs them: a write's statements are pipelined (sent together,
// a round trip for what depends on a result), and the first writes of
// runs that made their sessions, made at the same time, are inserted
// together (group.go).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/callgroup"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/internal/sqlstore"
	"github.com/agno-go/agno/storage/sqldb/dialect"
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

// core is the shared implementation Store embeds (an alias, so the
// field is unexported).
type core = sqlstore.Store

// Store is the PostgreSQL storage.Store.
type Store struct {
	*core
	pool     *pgxpool.Pool
	ownsPool bool
	schema   string
	d        *sqlstore.Dialect
	closed   chan struct{}
	// applied counts migrations Open ran (tests read it).
	applied int
	// timeout bounds each call; guard spaces connection attempts out
	// while the database is down (nil for a pool the caller passed).
	timeout time.Duration
	guard   *dbguard.Breaker
	// creates groups the writes of runs that made their session, inserted
	// by createGroup (group.go).
	creates     *callgroup.Queue[*pendingCreate]
	createGroup string
	// appendEvents is AppendEvents' statement (pipeline.go).
	appendEvents string
	log          *slog.Logger
}

var (
	_ storage.Store    = (*Store)(nil)
	_ storage.Migrator = (*Store)(nil)
	_ Shared           = (*Store)(nil)
)

// Shared is a store whose Postgres database other features share: its
// pool, and the schema its tables are in. Knowledge contents and vectors,
// the run engine's signals (LISTEN/NOTIFY) and job queues use it; ask a
// storage.Store for it with a type assertion to this interface.
type Shared interface {
	Pool() *pgxpool.Pool
	Schema() string
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
	s := &Store{pool: pool, ownsPool: owns, schema: schema, closed: make(chan struct{}), timeout: timeout, guard: guard,
		creates: newCreates(), log: log}
	s.d = sqlstore.NewDialect(dialect.Postgres, schema)
	s.createGroup = createGroupSQL(s.d.Sessions, s.d.Runs)
	s.core = sqlstore.New(backend{s}, s.d, sqlstore.Options{Name: "postgres", CallTimeout: timeout, UpdateAttempts: cfg.UpdateAttempts})
	s.appendEvents = appendEventsSQL(s.d.Events, sqlstore.NextSeqSQL(s.core))
	n, err := s.migrate(ctx, ms)
	s.applied = n
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

// Pool is the connection pool, for features that share the database
// (LISTEN/NOTIFY, job queues): Shared.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Schema is the schema holding the tables: Shared.
func (s *Store) Schema() string { return s.schema }

// migrate applies the pending migrations of ms in one transaction and
// returns how many it applied.
func (s *Store) migrate(ctx context.Context, ms []migration) (n int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		n, err = runMigrations(ctx, tx, s.schema, ms)
		return err
	})
	return n, err
}

// Migrate implements storage.Migrator: pending migrations, under the
// advisory lock Open takes (another replica with a newer build may have
// added some since this one opened).
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	n, err := s.migrate(ctx, migrations)
	if n > 0 {
		s.log.Info("postgres: schema migrated", "schema", s.schema, "migrations", n)
	}
	return s.fail(err)
}

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
