package sqlitevec

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/agno-go/agno/storage/migrate"
)

// versionsTable records, per knowledge table, which store made it (kind)
// and its schema version. The SQLite contents store shares it.
const versionsTable = "agno_knowledge_schema_versions"

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

// migrate brings the store's tables to the latest version: all of them
// when create is set, else only tables that exist already.
func (s *Store) migrate(ctx context.Context, tx *sql.Tx, create bool) error {
	t := s.t
	r := strings.NewReplacer("{t}", t.main, "{fts}", t.fts, "{vec}", t.vec, "{idx}", t.idx)
	plan := migrate.Plan{
		Name:     "sqlitevec",
		Versions: versionsTable,
		Kind:     storeKind,
		Foreign:  errForeign,
		Exists: func(ctx context.Context, tx migrate.Tx, name string) (bool, error) {
			return migrate.HasRow(ctx, tx, `SELECT 1 FROM sqlite_master WHERE name IN ($1, $1 || '_fts', $1 || '_vectors')`, name)
		},
		SkipNew: !create,
		Expand:  r.Replace,
	}
	ms := make([]migrate.Migration, len(migrations))
	for i, m := range migrations {
		ms[i] = migrate.Migration{Table: t.name, Version: m.version, Stmts: m.stmts}
	}
	applied, err := migrate.Run(ctx, migrate.SQL(tx), plan, ms)
	if applied > 0 {
		s.log.Info("sqlitevec: schema migrated", "path", s.path, "table", t.name, "migrations", applied)
	}
	return err
}
