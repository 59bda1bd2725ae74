package sqlitecontents

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/rowcount"
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
	{version: 2, stmts: []string{
		// The listing orders (created_at or updated_at, then id, one
		// direction) end these indexes, of all rows and of a knowledge
		// base's, so a page is read in order and stops there.
		`DROP INDEX "{idx}_linked_created_idx"`,
		`DROP INDEX "{idx}_created_idx"`,
		`DROP INDEX "{idx}_updated_idx"`,
		`CREATE INDEX "{idx}_linked_created_idx" ON {t} (linked_to, created_at, id)`,
		`CREATE INDEX "{idx}_linked_updated_idx" ON {t} (linked_to, updated_at, id)`,
		`CREATE INDEX "{idx}_created_idx" ON {t} (created_at, id)`,
		`CREATE INDEX "{idx}_updated_idx" ON {t} (updated_at, id)`,
	}}, // total_count of all contents and of a knowledge base's, kept by
	// triggers (see rowcount).
	{version: 3, stmts: counted.Statements(rowcount.Names{Table: "{t}", Counts: `"{idx}_counts"`, Trigger: "{idx}_counted"})},
}

var counted = rowcount.Spec{Scopes: [][]string{{}, {"linked_to"}}}

var errForeign = errors.New("sqlitecontents: the database holds a table of that name that this store did not create; choose another Config.Table")

// runMigrations brings table to the latest version and returns how many
// migrations it applied.
func runMigrations(ctx context.Context, tx *sql.Tx, table string) (int, error) {
	plan := migrate.Plan{
		Name:     "sqlitecontents",
		Versions: versionsTable,
		Kind:     storeKind,
		Foreign:  errForeign,
		Exists: func(ctx context.Context, tx migrate.Tx, name string) (bool, error) {
			return migrate.HasRow(ctx, tx, `SELECT 1 FROM sqlite_master WHERE name = $1`, name)
		},
		Expand: strings.NewReplacer("{t}", `"`+table+`"`, "{idx}", table).Replace,
	}
	ms := make([]migrate.Migration, len(migrations))
	for i, m := range migrations {
		ms[i] = migrate.Migration{Table: table, Version: m.version, Stmts: m.stmts}
	}
	return migrate.Run(ctx, migrate.SQL(tx), plan, ms)
}
