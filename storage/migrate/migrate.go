// Package migrate applies versioned schema migrations for every SQL store
// of agno-go (sessions and runs, the control plane, knowledge contents and
// vectors, on SQLite and Postgres): each table's version is a row of a
// versions table, and a migration runs once, in the caller's transaction.
//
// Not goose or golang-migrate: both keep one version for the whole
// database in their own table, where agno-go versions each table (several
// stores share a file or schema, knowledge tables are named by the user)
// in agno_schema_versions rows that existing databases already hold; and
// both open their own transactions, where the stores migrate inside
// theirs (BEGIN IMMEDIATE on SQLite, under an advisory lock on Postgres).
// Adapting either would cost more code than this runner.
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Migration brings one table to a version. Versions per table start at 1
// and only grow; a released migration is never edited, a change is a new
// version.
type Migration struct {
	Table   string
	Version int64
	Stmts   []string
}

// Tx is the transaction migrations run in. The caller begins it, takes
// any lock replicas need, and commits it. Queries use $n placeholders,
// which pgx and modernc.org/sqlite both accept.
type Tx interface {
	Exec(ctx context.Context, query string, args ...any) error
	// Query calls row with the scanner of each result row in turn.
	Query(ctx context.Context, query string, args []any, row func(scan func(dest ...any) error) error) error
}

// Plan says where versions are recorded and how statements run.
type Plan struct {
	// Name prefixes error messages ("sqlite", "postgres: schema ai").
	Name string
	// Versions is the versions table as queries write it (quoted and
	// schema-qualified where needed); Run creates it if missing.
	Versions string
	// Postgres makes the version columns BIGINT (INTEGER on SQLite).
	Postgres bool
	// IntType, when set, is the version columns' type (a dialect's
	// BigInt), whatever Postgres says.
	IntType string
	// Kind, when set, is recorded in a kind column of each row: stores
	// sharing one versions table refuse each other's tables.
	Kind string
	// Exists, when set, reports whether a table is in the database; one
	// there without a recorded version was made by someone else.
	Exists func(ctx context.Context, tx Tx, table string) (bool, error)
	// SkipNew leaves tables without a recorded version alone: only
	// tables made before are migrated.
	SkipNew bool
	// Expand, when set, rewrites each statement before it runs (table
	// names, schema).
	Expand func(stmt string) string
	// Foreign is wrapped by errors about tables this code did not make;
	// default ErrForeign.
	Foreign error
}

// ErrForeign is Plan.Foreign's default.
var ErrForeign = errors.New("migrate: the database holds tables this code did not make")

// Run brings the tables of ms to their latest versions, in order, and
// returns how many migrations it applied. It refuses tables recorded at a
// version newer than ms knows, and tables this code did not make.
func Run(ctx context.Context, tx Tx, p Plan, ms []Migration) (int, error) {
	foreign := p.Foreign
	if foreign == nil {
		foreign = ErrForeign
	}
	intType, kindCol, kindSel := "INTEGER", "", ""
	if p.Postgres {
		intType = "BIGINT"
	}
	if p.IntType != "" {
		intType = p.IntType
	}
	if p.Kind != "" {
		kindCol, kindSel = "\n\t\tkind       TEXT NOT NULL,", ", kind"
	}
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+p.Versions+` (
		table_name TEXT PRIMARY KEY,`+kindCol+`
		version    `+intType+` NOT NULL,
		created_at `+intType+` NOT NULL,
		updated_at `+intType+` NOT NULL
	)`); err != nil {
		return 0, fmt.Errorf("%s: create %s: %w", p.Name, p.Versions, err)
	}

	known := map[string]int64{}
	for _, m := range ms {
		known[m.Table] = max(known[m.Table], m.Version)
	}
	current := map[string]int64{}
	var refused error // a row this build must not migrate
	err := tx.Query(ctx, `SELECT table_name, version`+kindSel+` FROM `+p.Versions, nil, func(scan func(...any) error) error {
		var name, kind string
		var v any
		dest := []any{&name, &v}
		if p.Kind != "" {
			dest = append(dest, &kind)
		}
		if err := scan(dest...); err != nil {
			return err
		}
		// Python agno's versions table holds strings ("2.0.0").
		n, ok := v.(int64)
		latest, mine := known[name]
		switch {
		case !ok:
			refused = fmt.Errorf("%w: %s has version %v for %s", foreign, p.Versions, v, name)
		case !mine:
		case p.Kind != "" && kind != p.Kind:
			refused = fmt.Errorf("%w: %s is a %s table", foreign, name, kind)
		case n > latest:
			refused = fmt.Errorf("%s: table %s is at schema version %d but this build knows up to %d: upgrade agno-go", p.Name, name, n, latest)
		default:
			current[name] = n
		}
		return refused
	})
	if refused != nil {
		return 0, refused
	}
	if err != nil {
		return 0, fmt.Errorf("%s: read %s: %w", p.Name, p.Versions, err)
	}

	applied := 0
	for _, m := range ms {
		if m.Version <= current[m.Table] {
			continue
		}
		if current[m.Table] == 0 {
			if p.Exists != nil {
				exists, err := p.Exists(ctx, tx, m.Table)
				if err != nil {
					return applied, fmt.Errorf("%s: migrate %s: %w", p.Name, m.Table, err)
				}
				if exists {
					return applied, fmt.Errorf("%w: table %s exists without a recorded schema version", foreign, m.Table)
				}
			}
			if p.SkipNew {
				continue
			}
		}
		for _, stmt := range m.Stmts {
			if p.Expand != nil {
				stmt = p.Expand(stmt)
			}
			if err := tx.Exec(ctx, stmt); err != nil {
				return applied, fmt.Errorf("%s: migrate %s to version %d: %w", p.Name, m.Table, m.Version, err)
			}
		}
		if err := record(ctx, tx, p, m); err != nil {
			return applied, fmt.Errorf("%s: record %s version %d: %w", p.Name, m.Table, m.Version, err)
		}
		current[m.Table] = m.Version
		applied++
	}
	return applied, nil
}

// record sets m's table to m's version, keeping created_at of the row.
func record(ctx context.Context, tx Tx, p Plan, m Migration) error {
	const upsert = ` ON CONFLICT (table_name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`
	now := time.Now().Unix()
	if p.Kind != "" {
		return tx.Exec(ctx, `INSERT INTO `+p.Versions+` (table_name, kind, version, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`+upsert, m.Table, p.Kind, m.Version, now)
	}
	return tx.Exec(ctx, `INSERT INTO `+p.Versions+` (table_name, version, created_at, updated_at)
		VALUES ($1, $2, $3, $3)`+upsert, m.Table, m.Version, now)
}

// HasRow reports whether query returns a row: a helper for Plan.Exists.
func HasRow(ctx context.Context, tx Tx, query string, args ...any) (bool, error) {
	found := false
	err := tx.Query(ctx, query, args, func(func(...any) error) error {
		found = true
		return nil
	})
	return found, err
}

// SQL adapts a database/sql transaction.
func SQL(tx *sql.Tx) Tx { return sqlTx{tx} }

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

func (t sqlTx) Query(ctx context.Context, query string, args []any, row func(func(...any) error) error) error {
	rows, err := t.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}
