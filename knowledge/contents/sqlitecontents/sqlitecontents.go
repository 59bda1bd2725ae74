// Package sqlitecontents keeps the knowledge contents table (agno's
// KnowledgeRow, one row per ingested content with its processing status)
// in an SQLite file — by default agno.db, next to AgentOS's sessions and
// the sqlitevec chunks. It implements contents.Store.
//
// The table's schema is a versioned migration, recorded in
// agno_knowledge_schema_versions and applied by Open.
package sqlitecontents

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agno-go/agno/internal/privatefile"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	sqlitedrv "modernc.org/sqlite" // also the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/storage/rowcount"
)

// Defaults.
const (
	// DefaultPath is the file AgentOS keeps its sessions in.
	DefaultPath = "agno.db"
	// DefaultTable is the contents table when Config.Table is empty.
	DefaultTable = "agno_knowledge_contents"
)

// Config configures Open.
type Config struct {
	// Path of the SQLite file, created (mode 0600, with its directory) if
	// missing. Default "agno.db". ":memory:" keeps the table in this
	// process, on one connection.
	Path string
	// Table must start with "agno_knowledge_" and hold only lower-case
	// letters, digits and _ (at most 48 characters). Default
	// "agno_knowledge_contents".
	Table string
	// BusyTimeout is how long a statement waits for a lock another
	// connection holds. Default 5s.
	BusyTimeout time.Duration
	// MaxReadConns bounds concurrent readers. Default 4.
	MaxReadConns int
	// Logger receives migration notices. Default slog.Default().
	Logger *slog.Logger
}

// Store is the SQLite contents.Store. It is safe for concurrent use.
type Store struct {
	w, r  *sql.DB
	table string // unquoted
	t     string // quoted
	// upsert is prepared once: preparing compiles the table's triggers.
	upsert *sql.Stmt
}

var _ contents.Store = (*Store)(nil)

var tableName = regexp.MustCompile(`^agno_knowledge_[a-z0-9_]{1,33}$`)

// ErrInvalidConfig is returned (wrapped) by Open for unusable configs.
var ErrInvalidConfig = errors.New("sqlitecontents: invalid config")

// Open opens (creating if needed) the file and the table, applying
// pending migrations.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	table := cmp.Or(cfg.Table, DefaultTable)
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("%w: Table %q: use agno_knowledge_ followed by lower-case letters, digits or _ (at most 48 characters in all)", ErrInvalidConfig, table)
	}
	path := cmp.Or(cfg.Path, DefaultPath)
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("%w: Path %q: give a plain file path (no \"file:\" URI, no '?')", ErrInvalidConfig, path)
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
		return nil, fmt.Errorf("sqlitecontents: open %s: %w", path, err)
	}
	// One write connection: writers queue in database/sql rather than
	// meeting SQLITE_BUSY from each other.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s := &Store{w: w, r: w, table: table, t: `"` + table + `"`}
	var applied int
	err = s.write(ctx, func(tx *sql.Tx) error {
		applied, err = runMigrations(ctx, tx, table)
		return err
	})
	if err != nil {
		w.Close()
		return nil, err
	}
	if applied > 0 {
		log.Info("sqlitecontents: schema migrated", "path", path, "table", table, "migrations", applied)
	}
	if s.upsert, err = w.PrepareContext(ctx, `INSERT INTO `+s.t+` (`+columns+`)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
				metadata = excluded.metadata, type = excluded.type, size = excluded.size, linked_to = excluded.linked_to,
				access_count = excluded.access_count, status = excluded.status, status_message = excluded.status_message,
				created_at = excluded.created_at, updated_at = excluded.updated_at, external_id = excluded.external_id`); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlitecontents: prepare: %w", err)
	}
	if !inMemory {
		rq := url.Values{"_pragma": {"query_only(1)", busyPragma}}
		r, err := sql.Open("sqlite", path+"?"+rq.Encode())
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("sqlitecontents: open %s for reading: %w", path, err)
		}
		r.SetMaxOpenConns(readers)
		r.SetMaxIdleConns(readers)
		if err := r.PingContext(ctx); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("sqlitecontents: open %s for reading: %w", path, err)
		}
		s.r = r
	}
	return s, nil
}

// Close closes the store's connections.
func (s *Store) Close() error {
	var errR error
	if s.r != s.w {
		errR = s.r.Close()
	}
	return errors.Join(errR, s.upsert.Close(), s.w.Close())
}

// Table is the contents table's name.
func (s *Store) Table() string { return s.table }

// busyRetries is how many times write starts over when another
// connection (AgentOS's session store, the vector store) kept the lock
// past BusyTimeout.
const busyRetries = 5

// write runs fn in a write transaction (BEGIN IMMEDIATE), again from the
// start if the lock stayed busy past BusyTimeout.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt >= busyRetries {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
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

func (s *Store) writeOnce(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitecontents: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitecontents: commit: %w", err)
	}
	return nil
}

const columns = `id, name, description, metadata, type, size, linked_to, access_count, status, status_message, created_at, updated_at, external_id`

// Upsert implements contents.Store.
func (s *Store) Upsert(ctx context.Context, row contents.Row) error {
	if row.ID == "" {
		return errors.New("sqlitecontents: row id is empty")
	}
	var meta any
	if row.Metadata != nil {
		b, err := json.Marshal(row.Metadata)
		if err != nil {
			return fmt.Errorf("sqlitecontents: metadata of %q is not JSON: %w", row.ID, err)
		}
		meta = string(b)
	}
	var size any
	if row.Size != nil {
		size = *row.Size
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.upsert).ExecContext(ctx, row.ID, row.Name, row.Description, meta, row.Type, size, row.LinkedTo, row.AccessCount,
			string(row.Status), row.StatusMessage, row.CreatedAt, row.UpdatedAt, row.ExternalID)
		if err != nil {
			return fmt.Errorf("sqlitecontents: upsert %q: %w", row.ID, err)
		}
		return nil
	})
}

type scanner interface{ Scan(...any) error }

func scanRow(sc scanner) (contents.Row, error) {
	var r contents.Row
	var meta sql.NullString
	var size sql.NullInt64
	var status string
	if err := sc.Scan(&r.ID, &r.Name, &r.Description, &meta, &r.Type, &size, &r.LinkedTo, &r.AccessCount,
		&status, &r.StatusMessage, &r.CreatedAt, &r.UpdatedAt, &r.ExternalID); err != nil {
		return r, err
	}
	r.Status = contents.Status(status)
	if size.Valid {
		n := size.Int64
		r.Size = &n
	}
	if meta.Valid {
		dec := json.NewDecoder(bytes.NewReader([]byte(meta.String)))
		dec.UseNumber()
		if err := dec.Decode(&r.Metadata); err != nil {
			return r, fmt.Errorf("sqlitecontents: stored metadata of %q: %w", r.ID, err)
		}
	}
	return r, nil
}

// Get implements contents.Store.
func (s *Store) Get(ctx context.Context, id string) (contents.Row, error) {
	r, err := scanRow(s.r.QueryRowContext(ctx, `SELECT `+columns+` FROM `+s.t+` WHERE id = ?1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return contents.Row{}, fmt.Errorf("%w: content %q", contents.ErrNotFound, id)
	}
	if err != nil {
		return contents.Row{}, fmt.Errorf("sqlitecontents: get %q: %w", id, err)
	}
	return r, nil
}

// sortColumns maps ListOptions.SortBy to SQL; a missing size sorts as -1.
var sortColumns = map[string]string{
	"":             "created_at",
	"created_at":   "created_at",
	"updated_at":   "updated_at",
	"name":         "name",
	"status":       "status",
	"access_count": "access_count",
	"size":         "COALESCE(size, -1)",
}

// queries renders the count query of opts and its list query, unpaged.
// The tie-break id runs in the sort's direction, so one index serves a
// column both ways.
func (s *Store) queries(opts contents.ListOptions) (count string, countArgs []any, list string, args []any, err error) {
	col, ok := sortColumns[opts.SortBy]
	if !ok {
		return "", nil, "", nil, fmt.Errorf("sqlitecontents: cannot sort by %q: use created_at, updated_at, name, size, status or access_count", opts.SortBy)
	}
	dir := "DESC"
	if opts.SortOrder == contents.SortAsc {
		dir = "ASC"
	}
	where, args := "", []any{}
	if opts.LinkedTo != "" {
		where, args = ` WHERE linked_to = ?`, append(args, opts.LinkedTo)
	}
	count, countArgs = `SELECT COUNT(*) FROM `+s.t+where, args
	var eqs []rowcount.Eq
	if opts.LinkedTo != "" {
		eqs = append(eqs, rowcount.Eq{Col: "linked_to", Val: opts.LinkedTo})
	}
	if q, a, ok := counted.Lookup(false, `"`+s.table+`_counts"`, eqs); ok {
		count, countArgs = q, a
	}
	return count, countArgs, `SELECT ` + columns + ` FROM ` + s.t + where + ` ORDER BY ` + col + ` ` + dir + `, id ` + dir, args, nil
}

// List implements contents.Store. Rows are ordered by the sort column,
// then by id, in the same direction.
func (s *Store) List(ctx context.Context, opts contents.ListOptions) ([]contents.Row, int, error) {
	count, countArgs, q, args, err := s.queries(opts)
	if err != nil {
		return nil, 0, err
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("sqlitecontents: list: %w", err)
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, count, countArgs...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqlitecontents: list: %w", err)
	}
	if opts.Limit > 0 {
		page := int64(max(opts.Page, 1))
		limit := int64(opts.Limit)
		if page-1 > math.MaxInt64/limit {
			return []contents.Row{}, total, nil
		}
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit, (page-1)*limit)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlitecontents: list: %w", err)
	}
	defer rows.Close()
	out := []contents.Row{}
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlitecontents: list: %w", err)
	}
	return out, total, nil
}

// Delete implements contents.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+s.t+` WHERE id = ?1`, id); err != nil {
			return fmt.Errorf("sqlitecontents: delete %q: %w", id, err)
		}
		return nil
	})
}

// createPrivate makes the database file private to this user before
// SQLite opens it, and warns when an existing one is not.
func createPrivate(path string, log *slog.Logger) error {
	open, mode, err := privatefile.Create(path)
	if err != nil {
		return fmt.Errorf("sqlitecontents: Path %s: %w", path, err)
	}
	if open {
		log.Warn("sqlitecontents: the database file is readable by other users (chmod 600 it)", "path", path, "mode", mode.String())
	}
	return nil
}
