package sqlitecontents

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// versionsTable records, per knowledge table, which store made it (kind)
// and its schema version; the sqlitevec store shares it.
const versionsTable = "agno_knowledge_schema_versions"

const storeKind = "contents"

// migration brings the table to a version. Versions start at 1 and only
// grow; a released migration is never edited, a change is a new version.
// {t} stands for the quoted table, {idx} for the index-name prefix.
type migration struct {
	version int64
	stmts   []string
}

var migrations = []migration{
	{version: 1, stmts: []string{
		// The columns of agno's KnowledgeRow.
		`CREATE TABLE {t} (
			id             TEXT PRIMARY KEY,
			name           TEXT NOT NULL DEFAULT '',
			description    TEXT NOT NULL DEFAULT '',
			metadata       TEXT,
			type           TEXT NOT NULL DEFAULT '',
			size           INTEGER,
			linked_to      TEXT NOT NULL DEFAULT '',
			access_count   INTEGER NOT NULL DEFAULT 0,
			status         TEXT NOT NULL DEFAULT '',
			status_message TEXT NOT NULL DEFAULT '',
			created_at     INTEGER NOT NULL,
			updated_at     INTEGER NOT NULL,
			external_id    TEXT NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX "{idx}_linked_created_idx" ON {t} (linked_to, created_at)`,
		`CREATE INDEX "{idx}_created_idx" ON {t} (created_at)`,
		`CREATE INDEX "{idx}_updated_idx" ON {t} (updated_at)`,
	}},
}

var errForeign = errors.New("sqlitecontents: the database holds a table of that name that this store did not create; choose another Config.Table")

// migrate brings table to the latest version and returns how many
// migrations it applied.
func migrate(ctx context.Context, tx *sql.Tx, table string) (int, error) {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+versionsTable+` (
		table_name TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		version    INTEGER NOT NULL,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	)`); err != nil {
		return 0, fmt.Errorf("sqlitecontents: create %s: %w", versionsTable, err)
	}
	var current int64
	var kind string
	err := tx.QueryRowContext(ctx, `SELECT kind, version FROM `+versionsTable+` WHERE table_name = ?1`, table).Scan(&kind, &current)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = ?1`, table).Scan(&n); err != nil {
			return 0, fmt.Errorf("sqlitecontents: migrate %s: %w", table, err)
		}
		if n > 0 {
			return 0, fmt.Errorf("%w (%s exists without a recorded schema version)", errForeign, table)
		}
	case err != nil:
		return 0, fmt.Errorf("sqlitecontents: read %s: %w", versionsTable, err)
	case kind != storeKind:
		return 0, fmt.Errorf("%w (%s is a %s table)", errForeign, table, kind)
	}
	latest := migrations[len(migrations)-1].version
	if current > latest {
		return 0, fmt.Errorf("sqlitecontents: table %s is at schema version %d but this build knows up to %d: upgrade agno-go", table, current, latest)
	}
	r := strings.NewReplacer("{t}", `"`+table+`"`, "{idx}", table)
	applied := 0
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		for _, stmt := range m.stmts {
			if _, err := tx.ExecContext(ctx, r.Replace(stmt)); err != nil {
				return applied, fmt.Errorf("sqlitecontents: migrate %s to version %d: %w", table, m.version, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+versionsTable+` (table_name, kind, version, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?4)
			ON CONFLICT (table_name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
			table, storeKind, m.version, time.Now().Unix()); err != nil {
			return applied, fmt.Errorf("sqlitecontents: record %s version %d: %w", table, m.version, err)
		}
		current = m.version
		applied++
	}
	return applied, nil
}
