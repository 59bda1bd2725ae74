// Package pgcontents keeps the knowledge contents table (agno's
// KnowledgeRow, one row per ingested content with its processing status)
// in PostgreSQL, in one schema (default "ai") next to AgentOS's sessions
// and the pgvector chunks. It implements contents.Store.
//
// The table's schema is a versioned migration, recorded in
// agno_knowledge_schema_versions and applied by Open under an advisory
// lock, so replicas starting together migrate once.
package pgcontents

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/migrate/pgxmigrate"
	"github.com/agno-go/agno/storage/rowcount"
)

// Defaults.
const (
	DefaultSchema = "ai"
	DefaultTable  = "agno_knowledge_contents"
)

// Config configures Open.
type Config struct {
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
	// "agno_knowledge_contents".
	Table string
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// Store is the PostgreSQL contents.Store. It is safe for concurrent use.
type Store struct {
	pool     *pgxpool.Pool
	ownsPool bool
	schema   string
	table    string
	t        string // quoted, schema-qualified
}

var _ contents.Store = (*Store)(nil)

// ErrInvalidConfig is returned (wrapped) by Open for unusable configs.
var ErrInvalidConfig = errors.New("pgcontents: invalid config")

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)
	tableName  = regexp.MustCompile(`^agno_knowledge_[a-z0-9_]{1,33}$`)
)

// Open connects, creates the schema if missing and brings the table to
// the current schema version.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	schema := cmp.Or(cfg.Schema, DefaultSchema)
	table := cmp.Or(cfg.Table, DefaultTable)
	if !identifier.MatchString(schema) {
		return nil, fmt.Errorf("%w: Schema %q: use letters, digits and _ (not starting with a digit), at most 63", ErrInvalidConfig, schema)
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("%w: Table %q: use agno_knowledge_ followed by lower-case letters, digits or _ (at most 48 characters in all)", ErrInvalidConfig, table)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	pool, owns := cfg.Pool, false
	if pool == nil {
		if cfg.DSN == "" {
			return nil, fmt.Errorf("%w: DSN is empty: set it (postgres://user:pass@host:5432/db) or pass Pool", ErrInvalidConfig)
		}
		pc, err := pgxpool.ParseConfig(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("%w: DSN: %v", ErrInvalidConfig, err)
		}
		if cfg.MaxConns > 0 {
			pc.MaxConns = cfg.MaxConns
		}
		if pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
			return nil, fmt.Errorf("pgcontents: connect: %w", err)
		}
		owns = true
	}
	s := &Store{pool: pool, ownsPool: owns, schema: schema, table: table, t: pgx.Identifier{schema, table}.Sanitize()}
	// Concurrent CREATE SCHEMA IF NOT EXISTS can still collide; whoever
	// loses finds the schema made.
	if _, err := pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil && !isCode(err, "23505", "42P06") {
		s.Close()
		return nil, fmt.Errorf("pgcontents: create schema %s: %w", schema, err)
	}
	var applied int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		applied, err = runMigrations(ctx, tx, schema, table)
		return err
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	if applied > 0 {
		log.Info("pgcontents: schema migrated", "table", s.t, "migrations", applied)
	}
	return s, nil
}

// Close closes the pool the store opened.
func (s *Store) Close() error {
	if s.ownsPool {
		s.pool.Close()
	}
	return nil
}

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

const columns = `id, name, description, metadata::text, type, size, linked_to, access_count, status, status_message, created_at, updated_at, external_id`

// Upsert implements contents.Store.
func (s *Store) Upsert(ctx context.Context, row contents.Row) error {
	if row.ID == "" {
		return errors.New("pgcontents: row id is empty")
	}
	var meta *string
	if row.Metadata != nil {
		b, err := json.Marshal(row.Metadata)
		if err != nil {
			return fmt.Errorf("pgcontents: metadata of %q is not JSON: %w", row.ID, err)
		}
		m := string(b)
		meta = &m
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO `+s.t+` (id, name, description, metadata, type, size, linked_to, access_count,
			status, status_message, created_at, updated_at, external_id)
		VALUES ($1, $2, $3, $4::text::json, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
			metadata = excluded.metadata, type = excluded.type, size = excluded.size, linked_to = excluded.linked_to,
			access_count = excluded.access_count, status = excluded.status, status_message = excluded.status_message,
			created_at = excluded.created_at, updated_at = excluded.updated_at, external_id = excluded.external_id`,
		row.ID, row.Name, row.Description, meta, row.Type, row.Size, row.LinkedTo, row.AccessCount,
		string(row.Status), row.StatusMessage, row.CreatedAt, row.UpdatedAt, row.ExternalID)
	if err != nil {
		return fmt.Errorf("pgcontents: upsert %q: %w", row.ID, err)
	}
	return nil
}

func scanRow(row pgx.Row) (contents.Row, error) {
	var r contents.Row
	var meta *string
	var status string
	if err := row.Scan(&r.ID, &r.Name, &r.Description, &meta, &r.Type, &r.Size, &r.LinkedTo, &r.AccessCount,
		&status, &r.StatusMessage, &r.CreatedAt, &r.UpdatedAt, &r.ExternalID); err != nil {
		return r, err
	}
	r.Status = contents.Status(status)
	if meta != nil {
		dec := json.NewDecoder(bytes.NewReader([]byte(*meta)))
		dec.UseNumber()
		if err := dec.Decode(&r.Metadata); err != nil {
			return r, fmt.Errorf("pgcontents: stored metadata of %q: %w", r.ID, err)
		}
	}
	return r, nil
}

// Get implements contents.Store.
func (s *Store) Get(ctx context.Context, id string) (contents.Row, error) {
	r, err := scanRow(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM `+s.t+` WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return contents.Row{}, fmt.Errorf("%w: content %q", contents.ErrNotFound, id)
	}
	if err != nil {
		return contents.Row{}, fmt.Errorf("pgcontents: get %q: %w", id, err)
	}
	return r, nil
}

// sortColumns maps ListOptions.SortBy to SQL. Text sorts by code point
// (COLLATE "C"), as Go compares strings; a missing size sorts as -1.
var sortColumns = map[string]string{
	"":             "created_at",
	"created_at":   "created_at",
	"updated_at":   "updated_at",
	"name":         `name COLLATE "C"`,
	"status":       `status COLLATE "C"`,
	"access_count": "access_count",
	"size":         "COALESCE(size, -1)",
}

// queries renders the count query of opts and its list query, unpaged.
// The tie-break id runs in the sort's direction, so one index serves a
// column both ways.
func (s *Store) queries(opts contents.ListOptions) (count string, countArgs []any, list string, args []any, err error) {
	col, ok := sortColumns[opts.SortBy]
	if !ok {
		return "", nil, "", nil, fmt.Errorf("pgcontents: cannot sort by %q: use created_at, updated_at, name, size, status or access_count", opts.SortBy)
	}
	dir := "DESC"
	if opts.SortOrder == contents.SortAsc {
		dir = "ASC"
	}
	where, args := "", []any{}
	if opts.LinkedTo != "" {
		where, args = ` WHERE linked_to = $1`, append(args, opts.LinkedTo)
	}
	count, countArgs = `SELECT COUNT(*) FROM `+s.t+where, args
	var eqs []rowcount.Eq
	if opts.LinkedTo != "" {
		eqs = append(eqs, rowcount.Eq{Col: "linked_to", Val: opts.LinkedTo})
	}
	if q, a, ok := counted.Lookup(true, pgx.Identifier{s.schema, s.table + "_counts"}.Sanitize(), eqs); ok {
		count, countArgs = q, a
	}
	return count, countArgs, `SELECT ` + columns + ` FROM ` + s.t + where + ` ORDER BY ` + col + ` ` + dir + `, id COLLATE "C" ` + dir, args, nil
}

// List implements contents.Store. Rows are ordered by the sort column,
// then by id in the same direction; the count and the page read one
// snapshot.
func (s *Store) List(ctx context.Context, opts contents.ListOptions) ([]contents.Row, int, error) {
	count, countArgs, q, args, err := s.queries(opts)
	if err != nil {
		return nil, 0, err
	}
	var total int
	out := []contents.Row{}
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, count, countArgs...).Scan(&total); err != nil {
			return err
		}
		pageArgs := args
		if opts.Limit > 0 {
			page := int64(max(opts.Page, 1))
			limit := int64(opts.Limit)
			if page-1 > math.MaxInt64/limit {
				return nil
			}
			n := len(args)
			q += fmt.Sprintf(` LIMIT $%d OFFSET $%d`, n+1, n+2)
			pageArgs = append(pageArgs, limit, (page-1)*limit)
		}
		rows, err := tx.Query(ctx, q, pageArgs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRow(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("pgcontents: list: %w", err)
	}
	return out, total, nil
}

// Delete implements contents.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM `+s.t+` WHERE id = $1`, id); err != nil {
		return fmt.Errorf("pgcontents: delete %q: %w", id, err)
	}
	return nil
}

// versionsTable records, per knowledge table of a schema, which store
// made it (kind) and its schema version; the pgvector store shares it.
const versionsTable = "agno_knowledge_schema_versions"

const storeKind = "contents"

// lockClass is the first key of the advisory lock migrations hold (the
// pgvector store's); the second is hashtext of the qualified table.
const lockClass = 0x61676b6e // "agkn"

// migration brings the table to a version. Versions start at 1 and only
// grow; a released migration is never edited, a change is a new version.
// {t} stands for the quoted table, {idx} for the index-name prefix and
// {schema} for the quoted schema.
type migration struct {
	version int64
	stmts   []string
}

// metadata is JSON, not JSONB: it keeps the text as written (key order,
// number spelling, \u0000); nothing queries inside it here.
var migrations = []migration{
	{version: 1, stmts: []string{
		`CREATE TABLE {t} (
			id             TEXT PRIMARY KEY,
			name           TEXT NOT NULL DEFAULT '',
			description    TEXT NOT NULL DEFAULT '',
			metadata       JSON,
			type           TEXT NOT NULL DEFAULT '',
			size           BIGINT,
			linked_to      TEXT NOT NULL DEFAULT '',
			access_count   INTEGER NOT NULL DEFAULT 0,
			status         TEXT NOT NULL DEFAULT '',
			status_message TEXT NOT NULL DEFAULT '',
			created_at     BIGINT NOT NULL,
			updated_at     BIGINT NOT NULL,
			external_id    TEXT NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX "{idx}_linked_created_idx" ON {t} (linked_to, created_at)`,
		`CREATE INDEX "{idx}_created_idx" ON {t} (created_at)`,
		`CREATE INDEX "{idx}_updated_idx" ON {t} (updated_at)`,
	}},
	{version: 2, stmts: []string{
		// The listing orders (created_at or updated_at, then id, one
		// direction) end these indexes, of all rows and of a knowledge
		// base's, so a page is read in order and stops there.
		`DROP INDEX {schema}."{idx}_linked_created_idx"`,
		`DROP INDEX {schema}."{idx}_created_idx"`,
		`DROP INDEX {schema}."{idx}_updated_idx"`,
		`CREATE INDEX "{idx}_linked_created_idx" ON {t} (linked_to, created_at, id COLLATE "C")`,
		`CREATE INDEX "{idx}_linked_updated_idx" ON {t} (linked_to, updated_at, id COLLATE "C")`,
		`CREATE INDEX "{idx}_created_idx" ON {t} (created_at, id COLLATE "C")`,
		`CREATE INDEX "{idx}_updated_idx" ON {t} (updated_at, id COLLATE "C")`,
	}}, // total_count of all contents and of a knowledge base's, kept by
	// triggers (see rowcount).
	{version: 3, stmts: counted.Statements(rowcount.Names{Postgres: true, Table: "{t}", Counts: `{schema}."{idx}_counts"`, Func: `{schema}."{idx}_count"`, Trigger: "{idx}_counted"})},
}

var counted = rowcount.Spec{Scopes: [][]string{{}, {"linked_to"}}}

var errForeign = errors.New("pgcontents: the schema holds a table of that name that this store did not create; choose another Config.Table or Config.Schema")

// runMigrations brings the table to the latest version under an advisory
// lock, so replicas starting together migrate once, and returns how many
// migrations it applied.
func runMigrations(ctx context.Context, tx pgx.Tx, schema, table string) (int, error) {
	t := pgx.Identifier{schema, table}.Sanitize()
	if err := pgxmigrate.Lock(ctx, tx, lockClass, t); err != nil {
		return 0, fmt.Errorf("pgcontents: lock for migrations: %w", err)
	}
	plan := migrate.Plan{
		Name:     "pgcontents: schema " + schema,
		Versions: pgx.Identifier{schema, versionsTable}.Sanitize(),
		Postgres: true,
		Kind:     storeKind,
		Foreign:  errForeign,
		Exists:   pgxmigrate.Exists(schema),
		Expand:   strings.NewReplacer("{t}", t, "{idx}", table, "{schema}", pgx.Identifier{schema}.Sanitize()).Replace,
	}
	ms := make([]migrate.Migration, len(migrations))
	for i, m := range migrations {
		ms[i] = migrate.Migration{Table: table, Version: m.version, Stmts: m.stmts}
	}
	return migrate.Run(ctx, pgxmigrate.Tx(tx), plan, ms)
}
