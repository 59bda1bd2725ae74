package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
	_ "modernc.org/sqlite"

	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/migrate/pgxmigrate"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// backend runs fn in a committed transaction of one database, with a raw
// exec for setting up layouts by hand.
type backend struct {
	postgres bool
	versions string                    // quoted versions table (kind-less)
	kversion string                    // quoted versions table with kind
	qual     func(table string) string // quoted table name
	exists   func(context.Context, migrate.Tx, string) (bool, error)
	inTx     func(fn func(migrate.Tx) error) error
	raw      func(stmt string, args ...any) // fails the test on error
}

func each(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, backend{
			versions: "agno_schema_versions",
			kversion: "agno_knowledge_schema_versions",
			qual:     func(table string) string { return `"` + table + `"` },
			exists: func(ctx context.Context, tx migrate.Tx, table string) (bool, error) {
				return migrate.HasRow(ctx, tx, `SELECT 1 FROM sqlite_master WHERE name = $1`, table)
			},
			inTx: func(fn func(migrate.Tx) error) error {
				tx, err := db.BeginTx(t.Context(), nil)
				if err != nil {
					return err
				}
				if err := fn(migrate.SQL(tx)); err != nil {
					tx.Rollback()
					return err
				}
				return tx.Commit()
			},
			raw: func(stmt string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(t.Context(), stmt, args...); err != nil {
					t.Fatal(err)
				}
			},
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		schema := pgtest.Schema(t, dsn)
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		q := pgx.Identifier{schema}.Sanitize()
		if _, err := conn.Exec(t.Context(), `CREATE SCHEMA `+q); err != nil {
			t.Fatal(err)
		}
		fn(t, backend{
			postgres: true,
			versions: q + ".agno_schema_versions",
			kversion: q + ".agno_knowledge_schema_versions",
			qual:     func(table string) string { return pgx.Identifier{schema, table}.Sanitize() },
			exists:   pgxmigrate.Exists(schema),
			inTx: func(fn func(migrate.Tx) error) error {
				return pgx.BeginFunc(t.Context(), conn, func(tx pgx.Tx) error {
					if err := pgxmigrate.Lock(t.Context(), tx, 1, schema); err != nil {
						return err
					}
					return fn(pgxmigrate.Tx(tx))
				})
			},
			raw: func(stmt string, args ...any) {
				t.Helper()
				if _, err := conn.Exec(t.Context(), stmt, args...); err != nil {
					t.Fatal(err)
				}
			},
		})
	})
}

func run(b backend, p migrate.Plan, ms []migrate.Migration) (int, error) {
	var n int
	err := b.inTx(func(tx migrate.Tx) error {
		var err error
		n, err = migrate.Run(context.Background(), tx, p, ms)
		return err
	})
	return n, err
}

// rows reads the versions table: table -> "version created updated [kind]".
func rows(t *testing.T, b backend, table string, kind bool) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	cols := "table_name, version, created_at, updated_at"
	if kind {
		cols += ", kind"
	}
	err := b.inTx(func(tx migrate.Tx) error {
		return tx.Query(context.Background(), `SELECT `+cols+` FROM `+table, nil, func(scan func(...any) error) error {
			var name string
			v := make([]any, strings.Count(cols, ","))
			dest := []any{&name}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := scan(dest...); err != nil {
				return err
			}
			out[name] = v
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var errMine = errors.New("test: foreign")

func TestRunUpgradesAndRefuses(t *testing.T) {
	each(t, func(t *testing.T, b backend) {
		p := migrate.Plan{Name: "test", Versions: b.versions, Postgres: b.postgres, Foreign: errMine, Exists: b.exists,
			Expand: func(s string) string { return strings.ReplaceAll(s, "{t}", b.qual("things")) }}
		v1 := []migrate.Migration{
			{Table: "things", Version: 1, Stmts: []string{`CREATE TABLE {t} (id TEXT PRIMARY KEY)`}},
			{Table: "others", Version: 1, Stmts: []string{`CREATE TABLE ` + b.qual("others") + ` (id TEXT)`}},
		}
		if n, err := run(b, p, v1); err != nil || n != 2 {
			t.Fatalf("first run: %d, %v; want 2 applied", n, err)
		}
		// An existing row's created_at survives upgrades; set it apart.
		b.raw(`UPDATE ` + b.versions + ` SET created_at = 7, updated_at = 7`)
		if n, err := run(b, p, v1); err != nil || n != 0 {
			t.Fatalf("second run: %d, %v; want 0 applied", n, err)
		}
		v2 := append(v1, migrate.Migration{Table: "things", Version: 2, Stmts: []string{`ALTER TABLE {t} ADD COLUMN note TEXT`}})
		if n, err := run(b, p, v2); err != nil || n != 1 {
			t.Fatalf("upgrade: %d, %v; want 1 applied", n, err)
		}
		got := rows(t, b, b.versions, false)
		if got["things"][0] != int64(2) || got["things"][1] != int64(7) || got["things"][2] == int64(7) ||
			got["others"][0] != int64(1) || got["others"][2] != int64(7) {
			t.Errorf("version rows %v", got)
		}
		b.raw(`INSERT INTO ` + b.qual("things") + ` (id, note) VALUES ('a', 'n')`)

		// The build knowing only version 1 refuses, but not as foreign.
		if _, err := run(b, p, v1); err == nil || errors.Is(err, errMine) || !strings.Contains(err.Error(), "upgrade agno-go") {
			t.Errorf("older build on a newer table: %v", err)
		}
		// A table made outside the runner.
		b.raw(`CREATE TABLE ` + b.qual("stray") + ` (x TEXT)`)
		stray := []migrate.Migration{{Table: "stray", Version: 1, Stmts: []string{`CREATE TABLE ` + b.qual("stray") + ` (id TEXT)`}}}
		if _, err := run(b, p, stray); !errors.Is(err, errMine) {
			t.Errorf("unrecorded table: %v, want the Foreign error", err)
		}
		// A failing statement rolls the whole run back.
		bad := append(v2, migrate.Migration{Table: "others", Version: 2, Stmts: []string{`ALTER TABLE ` + b.qual("others") + ` ADD COLUMN x TEXT`, `NOT SQL`}})
		if _, err := run(b, p, bad); err == nil || !strings.Contains(err.Error(), "migrate others to version 2") {
			t.Errorf("bad statement: %v", err)
		}
		if got := rows(t, b, b.versions, false); got["others"][0] != int64(1) {
			t.Errorf("failed migration recorded: %v", got)
		}
	})
}

// Python agno keeps string versions in a table of the same name.
func TestRunRefusesStringVersions(t *testing.T) {
	each(t, func(t *testing.T, b backend) {
		b.raw(`CREATE TABLE ` + b.versions + ` (table_name VARCHAR PRIMARY KEY, version VARCHAR, created_at BIGINT, updated_at BIGINT)`)
		b.raw(`INSERT INTO ` + b.versions + ` VALUES ('agno_sessions', '2.0.0', 0, 0)`)
		p := migrate.Plan{Name: "test", Versions: b.versions, Postgres: b.postgres}
		_, err := run(b, p, []migrate.Migration{{Table: "x", Version: 1, Stmts: []string{`CREATE TABLE ` + b.qual("x") + ` (id TEXT)`}}})
		if !errors.Is(err, migrate.ErrForeign) {
			t.Errorf("string versions: %v, want ErrForeign", err)
		}
	})
}

// Knowledge stores share a versions table with a kind column, each keyed
// by a table name the user picks.
func TestRunKinds(t *testing.T) {
	each(t, func(t *testing.T, b backend) {
		plan := func(kind string, skipNew bool) migrate.Plan {
			return migrate.Plan{Name: "test", Versions: b.kversion, Postgres: b.postgres, Kind: kind, SkipNew: skipNew, Exists: b.exists}
		}
		ms := []migrate.Migration{{Table: "k", Version: 1, Stmts: []string{`CREATE TABLE ` + b.qual("k") + ` (id TEXT)`}}}
		// SkipNew leaves a table that is not there alone.
		if n, err := run(b, plan("vectors", true), ms); err != nil || n != 0 {
			t.Fatalf("skip new: %d, %v", n, err)
		}
		if n, err := run(b, plan("vectors", false), ms); err != nil || n != 1 {
			t.Fatalf("create: %d, %v", n, err)
		}
		if got := rows(t, b, b.kversion, true)["k"]; got[0] != int64(1) || got[3] != "vectors" {
			t.Errorf("row %v", got)
		}
		// SkipNew still migrates a table made before.
		ms2 := append(ms, migrate.Migration{Table: "k", Version: 2, Stmts: []string{`ALTER TABLE ` + b.qual("k") + ` ADD COLUMN y TEXT`}})
		if n, err := run(b, plan("vectors", true), ms2); err != nil || n != 1 {
			t.Fatalf("skip new, known table: %d, %v", n, err)
		}
		if _, err := run(b, plan("contents", false), ms2); !errors.Is(err, migrate.ErrForeign) || !strings.Contains(err.Error(), "vectors table") {
			t.Errorf("another kind's table: %v, want ErrForeign", err)
		}
	})
}
