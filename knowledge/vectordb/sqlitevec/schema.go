package sqlitevec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// versionsTable records, per knowledge table, which store made it (kind)
// and its schema version. The SQLite contents store shares it.
const versionsTable = "agno_knowledge_schema_versions"

const versionsDDL = `CREATE TABLE IF NOT EXISTS ` + versionsTable + ` (
	table_name TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	version    INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
)`

// storeKind is this store's entry in versionsTable.kind.
const storeKind = "vectors"

// migration brings a store's tables to a version. Versions start at 1 and
// only grow; a released migration is never edited, a change is a new
// version. In statements {t}, {fts} and {vec} stand for the quoted table
// names and {idx} for the index-name prefix.
type migration struct {
	version int64
	stmts   []string
}

var migrations = []migration{
	{version: 1, stmts: []string{
		// seq is an INTEGER PRIMARY KEY, so VACUUM keeps it: the FTS
		// index and the vectors are keyed by it.
		`CREATE TABLE {t} (
			seq          INTEGER PRIMARY KEY,
			id           TEXT NOT NULL UNIQUE,
			name         TEXT NOT NULL DEFAULT '',
			content      TEXT NOT NULL,
			meta_data    TEXT NOT NULL DEFAULT '{}',
			content_id   TEXT NOT NULL DEFAULT '',
			content_hash TEXT NOT NULL DEFAULT '',
			usage        TEXT,
			created_at   INTEGER NOT NULL,
			updated_at   INTEGER NOT NULL
		)`,
		`CREATE INDEX "{idx}_name_idx" ON {t} (name)`,
		`CREATE INDEX "{idx}_content_id_idx" ON {t} (content_id)`,
		`CREATE INDEX "{idx}_content_hash_idx" ON {t} (content_hash)`,
		// Filters read meta_data of every record; through this covering
		// index they scan it alone instead of the records with their
		// content (twice as fast at 100k chunks).
		`CREATE INDEX "{idx}_meta_idx" ON {t} (meta_data)`,
		// sqnorm is |embedding|², for inner-product search through the l2
		// distance: a·q = (|a|² + |q|² − |a−q|²) / 2.
		`CREATE TABLE {vec} (
			seq       INTEGER PRIMARY KEY,
			dims      INTEGER NOT NULL,
			sqnorm    REAL NOT NULL,
			embedding BLOB NOT NULL
		)`,
		`CREATE VIRTUAL TABLE {fts} USING fts5(content, content='', contentless_delete=1,
			tokenize='unicode61 remove_diacritics 2')`,
		`CREATE TRIGGER "{idx}_insert" AFTER INSERT ON {t} BEGIN
			INSERT INTO {fts} (rowid, content) VALUES (new.seq, new.content);
		END`,
		`CREATE TRIGGER "{idx}_delete" AFTER DELETE ON {t} BEGIN
			DELETE FROM {fts} WHERE rowid = old.seq;
			DELETE FROM {vec} WHERE seq = old.seq;
		END`,
	}},
}

// errForeign reports tables this package did not make.
var errForeign = errors.New("sqlitevec: the database holds a table of that name that this store did not create; choose another Config.Table")

// migrate creates the versions table and brings the store's tables to the
// latest version: all of them when create is set, else only tables that
// exist already.
func (s *Store) migrate(ctx context.Context, tx *sql.Tx, create bool) error {
	applied, err := migrateTable(ctx, tx, s.t, migrations, create)
	if applied > 0 {
		s.log.Info("sqlitevec: schema migrated", "path", s.path, "table", s.t.name, "migrations", applied)
	}
	return err
}

func migrateTable(ctx context.Context, tx *sql.Tx, t tables, ms []migration, create bool) (int, error) {
	if _, err := tx.ExecContext(ctx, versionsDDL); err != nil {
		return 0, fmt.Errorf("sqlitevec: create %s: %w", versionsTable, err)
	}
	var current int64
	var gotKind string
	err := tx.QueryRowContext(ctx, `SELECT kind, version FROM `+versionsTable+` WHERE table_name = ?1`, t.name).Scan(&gotKind, &current)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name IN (?1, ?2, ?3)`,
			t.name, t.name+"_fts", t.name+"_vectors").Scan(&n); err != nil {
			return 0, fmt.Errorf("sqlitevec: migrate %s: %w", t.name, err)
		}
		if n > 0 {
			return 0, fmt.Errorf("%w (%s exists without a recorded schema version)", errForeign, t.name)
		}
		if !create {
			return 0, nil
		}
	case err != nil:
		return 0, fmt.Errorf("sqlitevec: read %s: %w", versionsTable, err)
	case gotKind != storeKind:
		return 0, fmt.Errorf("%w (%s is a %s table)", errForeign, t.name, gotKind)
	}
	latest := ms[len(ms)-1].version
	if current > latest {
		return 0, fmt.Errorf("sqlitevec: table %s is at schema version %d but this build knows up to %d: upgrade agno-go", t.name, current, latest)
	}
	r := strings.NewReplacer("{t}", t.main, "{fts}", t.fts, "{vec}", t.vec, "{idx}", t.idx)
	applied := 0
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		for _, stmt := range m.stmts {
			if _, err := tx.ExecContext(ctx, r.Replace(stmt)); err != nil {
				return applied, fmt.Errorf("sqlitevec: migrate %s to version %d: %w", t.name, m.version, err)
			}
		}
		now := time.Now().Unix()
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+versionsTable+` (table_name, kind, version, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?4)
			ON CONFLICT (table_name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
			t.name, storeKind, m.version, now); err != nil {
			return applied, fmt.Errorf("sqlitevec: record %s version %d: %w", t.name, m.version, err)
		}
		current = m.version
		applied++
	}
	return applied, nil
}
