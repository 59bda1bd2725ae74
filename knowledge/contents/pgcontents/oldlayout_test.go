package pgcontents

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// A schema laid out by the runner this package had before storage/migrate
// (its versions table DDL, its version row) opens with the shared runner,
// is migrated from version 1 and keeps its rows.
func TestOpenOldLayout(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	tbl := pgx.Identifier{schema, DefaultTable}.Sanitize()
	versions := pgx.Identifier{schema, versionsTable}.Sanitize()
	r := strings.NewReplacer("{t}", tbl, "{idx}", DefaultTable)
	stmts := []string{`CREATE SCHEMA ` + pgx.Identifier{schema}.Sanitize(), `CREATE TABLE IF NOT EXISTS ` + versions + ` (
		table_name TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		version    BIGINT NOT NULL,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL
	)`}
	for _, stmt := range migrations[0].stmts {
		stmts = append(stmts, r.Replace(stmt))
	}
	stmts = append(stmts, `INSERT INTO `+versions+` VALUES ('`+DefaultTable+`', 'contents', 1, 5, 5)`,
		`INSERT INTO `+tbl+` (id, name, created_at, updated_at) VALUES ('old', 'kept', 1, 1)`)
	for _, stmt := range stmts {
		if _, err := conn.Exec(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}

	s, err := Open(t.Context(), Config{DSN: dsn, Schema: schema, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kind string
	var version, created, updated int64
	latest := migrations[len(migrations)-1].version
	if err := conn.QueryRow(t.Context(), `SELECT kind, version, created_at, updated_at FROM `+versions+` WHERE table_name = $1`, DefaultTable).
		Scan(&kind, &version, &created, &updated); err != nil || kind != "contents" || version != latest || created != 5 {
		t.Errorf("version row %s %d %d %d (%v), want contents %d 5, migrated", kind, version, created, updated, err, latest)
	}
	if row, err := s.Get(t.Context(), "old"); err != nil || row.Name != "kept" {
		t.Errorf("old row: %+v, %v", row, err)
	}
	if err := s.Upsert(t.Context(), contents.Row{ID: "new", Name: "n"}); err != nil {
		t.Error(err)
	}
}
