// Package sqlitevec is the embedded vector store: a knowledge base's
// chunks in tables of an SQLite file — by default agno.db, the file
// AgentOS keeps its sessions in — with FTS5 for BM25 keyword search,
// sqlite-vec's distance functions for vector search, and hybrid search by
// reciprocal rank fusion of the two. It is pure Go (modernc.org/sqlite and
// its bundled sqlite-vec) and needs no service.
//
// A Store owns three tables named after Config.Table (T): T holds the
// records (id, name, content, metadata, content id and hash, usage), T_fts
// is a contentless FTS5 index of their content, and T_vectors holds their
// embeddings as float32 blobs. Triggers keep the index and the vectors in
// step with T. Vector search scans T_vectors with vec_distance_cosine or
// vec_distance_l2 (exact, not approximate), joining T only when there are
// metadata filters; inner product comes from the l2 distance and the
// stored squared norms. (sqlite-vec's vec0 tables answer unfiltered k-NN
// queries about twice as fast, but fix one dimension per table, cannot
// take these metadata filters and have no inner product.) Filters run inside the query: the parts SQLite's JSON
// functions express exactly are SQL, and whatever is left (CONTAINS,
// STARTSWITH, list values) is filter.Match, called from SQL as a function,
// so LIMIT always counts matching records only.
//
// Schema changes are versioned migrations, recorded per table in
// agno_knowledge_schema_versions and applied by Open and Create.
package sqlitevec

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/agno-go/agno/internal/privatefile"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
	// sqlite-vec: the vec_* functions on every connection.
	_ "modernc.org/sqlite/vec"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Name is the store's default name (agno names a VectorDb after its
// class).
const Name = "SqliteVec"

// Defaults.
const (
	// DefaultPath is the file AgentOS keeps its sessions in.
	DefaultPath = "agno.db"
	// DefaultTable is the records table when Config.Table is empty.
	DefaultTable = "agno_knowledge_vectors"
)

// Config configures Open.
type Config struct {
	// ID defaults to vectordb.DefaultID(Name).
	ID string
	// Name defaults to "SqliteVec".
	Name        string
	Description string
	// Path of the SQLite file, created (mode 0600, with its directory) if
	// missing. Default "agno.db". ":memory:" keeps everything in this
	// process, on one connection.
	Path string
	// Table names the records table; the store also owns Table+"_fts"
	// and Table+"_vectors". It must start with "agno_knowledge_" and
	// hold only lower-case letters, digits and _ (at most 48 characters).
	// Default "agno_knowledge_vectors". Stores with different tables share
	// a file independently.
	Table string
	// Embedder embeds documents and queries; required unless SearchType
	// is keyword.
	Embedder embedder.Embedder
	// SearchType is the default search type; zero means vector, as agno's
	// PgVector.
	SearchType vectordb.SearchType
	// Distance is the vector metric; zero means cosine.
	Distance vectordb.Distance
	// SimilarityThreshold, when set, drops vector and hybrid results whose
	// similarity_score is below it. It must be within [0, 1].
	SimilarityThreshold *float64
	// RRFK is the hybrid fusion constant; zero means vectordb.DefaultRRFK.
	RRFK int
	// BusyTimeout is how long a statement waits for a lock another
	// connection holds (AgentOS writes sessions to the same file).
	// Default 5s.
	BusyTimeout time.Duration
	// MaxReadConns bounds concurrent searches. Default 4.
	MaxReadConns int
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// Store is the SQLite vector store. It is safe for concurrent use.
type Store struct {
	cfg  Config
	info vectordb.Info
	log  *slog.Logger
	// w is the one write connection (BEGIN IMMEDIATE); r the read pool,
	// which is w itself for ":memory:".
	w, r *sql.DB
	t    tables
	path string
}

var _ vectordb.DB = (*Store)(nil)

// tables holds the quoted names of the store's tables.
type tables struct {
	name                string // unquoted records table name
	main, fts, vec, idx string // quoted; idx is the unquoted index-name prefix
}

var tableName = regexp.MustCompile(`^agno_knowledge_[a-z0-9_]{1,33}$`)

func newTables(name string) tables {
	q := func(s string) string { return `"` + s + `"` }
	return tables{name: name, main: q(name), fts: q(name + "_fts"), vec: q(name + "_vectors"), idx: name}
}

// matchFunc is the SQL function that runs filter.Match (see filter.go).
const matchFunc = "agno_knowledge_match"

// Open opens (creating if needed) the SQLite file, and brings the store's
// tables, if they exist, to the current schema version. Call Create (a
// Knowledge does) to make the tables.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := registerMatch(); err != nil {
		return nil, fmt.Errorf("sqlitevec: register %s: %w", matchFunc, err)
	}
	cfg.Name = cmp.Or(cfg.Name, Name)
	cfg.ID = cmp.Or(cfg.ID, vectordb.DefaultID(cfg.Name))
	cfg.SearchType = cmp.Or(cfg.SearchType, vectordb.SearchVector)
	cfg.Distance = cmp.Or(cfg.Distance, vectordb.Cosine)
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	if _, err := vectordb.ParseSearchType(string(cfg.SearchType)); err != nil {
		return nil, err
	}
	switch cfg.Distance {
	case vectordb.Cosine, vectordb.L2, vectordb.MaxInnerProduct:
	default:
		return nil, fmt.Errorf("%w: distance %q: use cosine, l2 or max_inner_product", vectordb.ErrInvalidConfig, cfg.Distance)
	}
	if err := vectordb.ValidateThreshold(cfg.SimilarityThreshold); err != nil {
		return nil, err
	}
	if cfg.Embedder == nil && cfg.SearchType != vectordb.SearchKeyword {
		return nil, fmt.Errorf("%w: %s search needs an embedder: set Embedder, or SearchType keyword", vectordb.ErrInvalidConfig, cfg.SearchType)
	}
	if !tableName.MatchString(cfg.Table) {
		return nil, fmt.Errorf("%w: Table %q: use agno_knowledge_ followed by lower-case letters, digits or _ (at most 48 characters in all)", vectordb.ErrInvalidConfig, cfg.Table)
	}
	path := cmp.Or(cfg.Path, DefaultPath)
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("%w: Path %q: give a plain file path (no \"file:\" URI, no '?')", vectordb.ErrInvalidConfig, path)
	}
	busy := cfg.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
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
	busyPragma := "busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")"
	wq := url.Values{"_pragma": {"journal_mode(WAL)", "synchronous(NORMAL)", busyPragma}}
	wq.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlitevec: open %s: %w", path, err)
	}
	// One write connection: writers queue in database/sql rather than
	// meeting SQLITE_BUSY from each other. It never expires, which also
	// keeps ":memory:" alive.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{
		cfg:  cfg,
		info: vectordb.Info{ID: cfg.ID, Name: cfg.Name, Description: cfg.Description},
		log:  log,
		w:    w,
		r:    w,
		t:    newTables(cfg.Table),
		path: path,
	}
	if err := s.write(ctx, func(tx *sql.Tx) error { return s.migrate(ctx, tx, false) }); err != nil {
		w.Close()
		return nil, err
	}
	if !inMemory {
		// Vector search scans every vector; reading them through a
		// mapping of the file (up to 1 GiB, address space only) rather
		// than the page cache makes it a third faster at 100k chunks.
		rq := url.Values{"_pragma": {"query_only(1)", busyPragma, "mmap_size(1073741824)"}}
		r, err := sql.Open("sqlite", path+"?"+rq.Encode())
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("sqlitevec: open %s for reading: %w", path, err)
		}
		r.SetMaxOpenConns(readers)
		r.SetMaxIdleConns(readers)
		if err := r.PingContext(ctx); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("sqlitevec: open %s for reading: %w", path, err)
		}
		s.r = r
	}
	return s, nil
}

// Close closes the store's connections. It waits for running statements.
func (s *Store) Close() error {
	var errR error
	if s.r != s.w {
		errR = s.r.Close()
	}
	return errors.Join(errR, s.w.Close())
}

// Table is the records table's name.
func (s *Store) Table() string { return s.t.name }

// Info implements vectordb.DB.
func (s *Store) Info() vectordb.Info { return s.info }

// UpsertAvailable implements vectordb.DB.
func (s *Store) UpsertAvailable() bool { return true }

// SupportedSearchTypes implements vectordb.DB. Without an embedder only
// keyword search is available.
func (s *Store) SupportedSearchTypes() []vectordb.SearchType {
	if s.cfg.Embedder == nil {
		return []vectordb.SearchType{vectordb.SearchKeyword}
	}
	return []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid}
}

// Create implements vectordb.DB: it makes the tables, or brings them to
// the current schema version.
func (s *Store) Create(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error { return s.migrate(ctx, tx, true) })
}

// Exists implements vectordb.DB.
func (s *Store) Exists(ctx context.Context) (bool, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1`, s.t.name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlitevec: exists: %w", err)
	}
	return n > 0, nil
}

// Drop implements vectordb.DB: it drops the tables and forgets their
// schema version.
func (s *Store) Drop(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, stmt := range []string{
			`DROP TABLE IF EXISTS ` + s.t.main,
			`DROP TABLE IF EXISTS ` + s.t.fts,
			`DROP TABLE IF EXISTS ` + s.t.vec,
			`DELETE FROM ` + versionsTable + ` WHERE table_name = ?1`,
		} {
			if _, err := tx.ExecContext(ctx, stmt, s.t.name); err != nil {
				return fmt.Errorf("sqlitevec: drop %s: %w", s.t.name, err)
			}
		}
		return nil
	})
}

// busyRetries is how many times write starts over when another
// connection kept the lock past BusyTimeout.
const busyRetries = 5

// write runs fn in a write transaction (BEGIN IMMEDIATE), again from the
// start if the lock stayed busy past BusyTimeout.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt >= busyRetries {
			return err
		}
		s.log.Warn("sqlitevec: the database stayed locked past busy_timeout; retrying", "path", s.path, "attempt", attempt+1)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitevec: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitevec: commit: %w", err)
	}
	return nil
}

// read runs fn in a read transaction, so the queries of one search see
// one snapshot.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlitevec: begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// noTable reports an error about the store's tables not existing.
func noTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table")
}

// isBusy reports SQLITE_BUSY or SQLITE_LOCKED, extended codes included.
func isBusy(err error) bool {
	var e *sqlitedrv.Error
	if errors.As(err, &e) {
		c := e.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

func isUnique(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && (e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// writeErr wraps an error of a write, naming ErrNotExist when the tables
// are missing.
func (s *Store) writeErr(op string, err error) error {
	if noTable(err) {
		return fmt.Errorf("%w: %s: table %s: call Create first", vectordb.ErrNotExist, op, s.t.name)
	}
	return fmt.Errorf("sqlitevec: %s: %w", op, err)
}

// createPrivate makes the database file private to this user before
// SQLite opens it, and warns when an existing one is not.
func createPrivate(path string, log *slog.Logger) error {
	open, mode, err := privatefile.Create(path)
	if err != nil {
		return fmt.Errorf("sqlitevec: Path %s: %w", path, err)
	}
	if open {
		log.Warn("sqlitevec: the database file is readable by other users (chmod 600 it)", "path", path, "mode", mode.String())
	}
	return nil
}
