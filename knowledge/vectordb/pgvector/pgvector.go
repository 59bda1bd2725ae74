// Package pgvector is the PostgreSQL vector store (agno's PgVector): a
// knowledge base's chunks in one table of a schema (default "ai"), keyword
// search on a stored tsvector ranked by ts_rank_cd, vector search with the
// pgvector extension, and hybrid search by reciprocal rank fusion.
//
// Open looks for the "vector" extension and, when the store has an
// embedder and the extension is missing, tries CREATE EXTENSION. Without
// it the store still keeps embeddings (as real[]) and answers keyword
// search; vector and hybrid search fail with an error wrapping
// vectordb.ErrUnsupportedSearch that names the missing extension and how
// to install it.
//
// Metadata filters run in SQL where jsonb operators give exactly
// filter.Match's answer; the rest (CONTAINS, STARTSWITH, list values) is
// filter.Match over candidates the SQL part selects, fetched page by page
// in rank order until the limit is met, so LIMIT always counts matching
// records.
package pgvector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Name is the store's default name, agno's class name.
const Name = "PgVector"

// Defaults.
const (
	DefaultSchema   = "ai"
	DefaultTable    = "agno_knowledge_vectors"
	DefaultLanguage = "english"
)

// Index kinds for Config.Index.
const (
	// IndexHNSW builds an HNSW index on the embeddings, agno's default:
	// fast and approximate.
	IndexHNSW = "hnsw"
	// IndexNone builds none: every search compares every vector (exact).
	IndexNone = "none"
)

// Config configures Open.
type Config struct {
	// ID defaults to vectordb.DefaultID(Name).
	ID string
	// Name defaults to "PgVector".
	Name        string
	Description string
	// DSN is a PostgreSQL URL or key=value string. Required unless Pool
	// is set.
	DSN string
	// Pool, when set, is used instead of opening one from DSN; Close then
	// leaves it open for its owner.
	Pool *pgxpool.Pool
	// MaxConns bounds the pool opened from DSN. Default pgxpool's.
	MaxConns int32
	// Schema holds the table; created if missing. Default "ai".
	Schema string
	// Table must start with "agno_knowledge_" and hold only lower-case
	// letters, digits and _ (at most 48 characters). Default
	// "agno_knowledge_vectors".
	Table string
	// Embedder embeds documents and queries; required unless SearchType
	// is keyword.
	Embedder embedder.Embedder
	// SearchType is the default search type; zero means vector, as agno.
	SearchType vectordb.SearchType
	// Distance is the vector metric; zero means cosine.
	Distance vectordb.Distance
	// SimilarityThreshold, when set, drops vector and hybrid results whose
	// similarity_score is below it. It must be within [0, 1].
	SimilarityThreshold *float64
	// RRFK is the hybrid fusion constant; zero means vectordb.DefaultRRFK.
	RRFK int
	// Language is the text search configuration of keyword search
	// (agno's content_language). Default "english".
	Language string
	// Index is IndexHNSW (default) or IndexNone. HNSW is built only for
	// up to 2000 dimensions, pgvector's limit. With metadata filters,
	// HNSW search uses pgvector's iterative scans (0.8 and later); on
	// older pgvector a filtered search may return fewer than the limit.
	Index string
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// Store is the PostgreSQL vector store. It is safe for concurrent use.
type Store struct {
	cfg      Config
	info     vectordb.Info
	log      *slog.Logger
	pool     *pgxpool.Pool
	ownsPool bool
	schema   string
	// tbl is the quoted schema-qualified table, versions the versions
	// table's.
	tbl, versions string

	// ext is the quoted schema of the vector extension, "" when it is
	// missing; extErr says why.
	ext    string
	extErr error
	// iterative is set for pgvector 0.8 and later, whose HNSW scans can
	// go on past ef_search until enough rows pass the filters.
	iterative bool
	server    int // server major version

	mu sync.RWMutex
	// vector is set when the table stores pgvector vectors (or does not
	// exist yet and will); realArray when it exists with real[]
	// embeddings.
	vector, realArray bool
}

var _ vectordb.DB = (*Store)(nil)

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)
	tableName  = regexp.MustCompile(`^agno_knowledge_[a-z0-9_]{1,33}$`)
	language   = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
)

// Open connects, creates the schema if missing, detects pgvector (trying
// to create the extension when the store has an embedder), and brings an
// existing table to the current schema version. Call Create (a Knowledge
// does) to make the table.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg.Name = cmp.Or(cfg.Name, Name)
	cfg.ID = cmp.Or(cfg.ID, vectordb.DefaultID(cfg.Name))
	cfg.SearchType = cmp.Or(cfg.SearchType, vectordb.SearchVector)
	cfg.Distance = cmp.Or(cfg.Distance, vectordb.Cosine)
	cfg.Schema = cmp.Or(cfg.Schema, DefaultSchema)
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	cfg.Language = cmp.Or(cfg.Language, DefaultLanguage)
	cfg.Index = cmp.Or(cfg.Index, IndexHNSW)
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
	if !identifier.MatchString(cfg.Schema) {
		return nil, fmt.Errorf("%w: Schema %q: use letters, digits and _ (not starting with a digit), at most 63", vectordb.ErrInvalidConfig, cfg.Schema)
	}
	if !tableName.MatchString(cfg.Table) {
		return nil, fmt.Errorf("%w: Table %q: use agno_knowledge_ followed by lower-case letters, digits or _ (at most 48 characters in all)", vectordb.ErrInvalidConfig, cfg.Table)
	}
	if !language.MatchString(cfg.Language) {
		return nil, fmt.Errorf("%w: Language %q: name a text search configuration such as english or simple", vectordb.ErrInvalidConfig, cfg.Language)
	}
	if cfg.Index != IndexHNSW && cfg.Index != IndexNone {
		return nil, fmt.Errorf("%w: Index %q: use %q or %q", vectordb.ErrInvalidConfig, cfg.Index, IndexHNSW, IndexNone)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	pool, owns := cfg.Pool, false
	if pool == nil {
		if cfg.DSN == "" {
			return nil, fmt.Errorf("%w: DSN is empty: set it (postgres://user:pass@host:5432/db) or pass Pool", vectordb.ErrInvalidConfig)
		}
		pc, err := pgxpool.ParseConfig(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("%w: DSN: %v", vectordb.ErrInvalidConfig, err)
		}
		if cfg.MaxConns > 0 {
			pc.MaxConns = cfg.MaxConns
		}
		if pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
			return nil, fmt.Errorf("pgvector: connect: %w", err)
		}
		owns = true
	}
	s := &Store{
		cfg:      cfg,
		info:     vectordb.Info{ID: cfg.ID, Name: cfg.Name, Description: cfg.Description},
		log:      log,
		pool:     pool,
		ownsPool: owns,
		schema:   cfg.Schema,
		tbl:      pgx.Identifier{cfg.Schema, cfg.Table}.Sanitize(),
		versions: pgx.Identifier{cfg.Schema, versionsTable}.Sanitize(),
	}
	if err := s.open(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) open(ctx context.Context) error {
	var num string
	if err := s.pool.QueryRow(ctx, `SHOW server_version_num`).Scan(&num); err != nil {
		return fmt.Errorf("pgvector: connect: %w", err)
	}
	n, _ := strconv.Atoi(num)
	s.server = n / 10000
	if s.cfg.Embedder != nil {
		s.detectExtension(ctx)
	} else {
		s.extErr = errors.New("the store has no embedder")
	}
	// Concurrent CREATE SCHEMA IF NOT EXISTS can still collide; whoever
	// loses finds the schema made.
	if _, err := s.pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{s.schema}.Sanitize()); err != nil && !isCode(err, "23505", "42P06") {
		return fmt.Errorf("pgvector: create schema %s: %w", s.schema, err)
	}
	return s.migrate(ctx, false)
}

// detectExtension finds pgvector's schema, creating the extension if it
// is available on the server but not in this database.
func (s *Store) detectExtension(ctx context.Context) {
	var version string
	find := func() (string, error) {
		var ns string
		err := s.pool.QueryRow(ctx, `SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
			WHERE e.extname = 'vector'`).Scan(&ns, &version)
		return ns, err
	}
	ns, err := find()
	if errors.Is(err, pgx.ErrNoRows) {
		_, createErr := s.pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`)
		if ns, err = find(); errors.Is(err, pgx.ErrNoRows) {
			err = createErr
			if err == nil {
				err = errors.New("CREATE EXTENSION vector succeeded but the extension is not listed")
			}
		}
	}
	if err != nil {
		s.extErr = err
		s.log.Info("pgvector: the vector extension is not available; keyword search only", "reason", err.Error())
		return
	}
	s.iterative = versionAtLeast(version, 0, 8)
	s.ext = pgx.Identifier{ns}.Sanitize()
}

// versionAtLeast reports whether an extension version "major.minor[.patch]"
// is at least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// Close closes the pool the store opened.
func (s *Store) Close() error {
	if s.ownsPool {
		s.pool.Close()
	}
	return nil
}

// VectorAvailable reports whether the vector extension is installed and
// the table (if it exists) stores pgvector vectors.
func (s *Store) VectorAvailable() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vector
}

// Info implements vectordb.DB.
func (s *Store) Info() vectordb.Info { return s.info }

// UpsertAvailable implements vectordb.DB.
func (s *Store) UpsertAvailable() bool { return true }

// SupportedSearchTypes implements vectordb.DB: keyword always, vector and
// hybrid when pgvector is usable.
func (s *Store) SupportedSearchTypes() []vectordb.SearchType {
	if s.cfg.Embedder == nil || !s.VectorAvailable() {
		return []vectordb.SearchType{vectordb.SearchKeyword}
	}
	return []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid}
}

// vectorError explains why vector search is unavailable.
func (s *Store) vectorError(typ vectordb.SearchType) error {
	if s.cfg.Embedder == nil {
		return fmt.Errorf("%w: %s search on %s needs an embedder; only keyword search is available", vectordb.ErrUnsupportedSearch, typ, s.info.Name)
	}
	s.mu.RLock()
	realArray := s.realArray
	s.mu.RUnlock()
	if s.ext == "" {
		pkg := "postgresql-<version>-pgvector"
		if s.server > 0 {
			pkg = fmt.Sprintf("postgresql-%d-pgvector", s.server)
		}
		return fmt.Errorf("%w: %s search needs the PostgreSQL extension \"vector\" (pgvector), which this database lacks (%v). "+
			"Install it on the database server (Debian/Ubuntu: apt-get install %s, from the PostgreSQL apt repository where Debian has none; "+
			"others: https://github.com/pgvector/pgvector#installation), then run CREATE EXTENSION vector in the database (Open does it when it may) and reopen the store. "+
			"Keyword search works without it",
			vectordb.ErrUnsupportedSearch, typ, s.extErr, pkg)
	}
	if realArray {
		dims := s.cfg.Embedder.Dimensions()
		return fmt.Errorf("%w: %s search: table %s was created before pgvector was available, so it keeps embeddings as real[]; "+
			"convert it with ALTER TABLE %s ALTER COLUMN embedding TYPE %s.vector(%d) USING embedding::%s.vector(%d) and reopen the store, or Drop it and insert again",
			vectordb.ErrUnsupportedSearch, typ, s.tbl, s.tbl, s.ext, dims, s.ext, dims)
	}
	return fmt.Errorf("%w: %s search is not available on %s", vectordb.ErrUnsupportedSearch, typ, s.info.Name)
}

// isCode reports a PostgreSQL error with one of the SQLSTATE codes.
func isCode(err error, codes ...string) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	for _, c := range codes {
		if pe.Code == c {
			return true
		}
	}
	return false
}

// noTable reports an undefined table.
func noTable(err error) bool { return isCode(err, "42P01") }

func (s *Store) writeErr(op string, err error) error {
	if noTable(err) {
		return fmt.Errorf("%w: %s: table %s: call Create first", vectordb.ErrNotExist, op, s.tbl)
	}
	return fmt.Errorf("pgvector: %s: %w", op, err)
}
