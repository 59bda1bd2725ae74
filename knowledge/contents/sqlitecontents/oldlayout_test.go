package sqlitecontents

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
)

// A file laid out by the runner this package had before storage/migrate
// (its versions table DDL, its version row) opens with the shared runner,
// is migrated from version 1 and keeps its rows.
func TestOpenOldLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer("{t}", `"`+DefaultTable+`"`, "{idx}", DefaultTable)
	stmts := []string{`CREATE TABLE IF NOT EXISTS ` + versionsTable + ` (
		table_name TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		version    INTEGER NOT NULL,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	)`}
	for _, stmt := range migrations[0].stmts {
		stmts = append(stmts, r.Replace(stmt))
	}
	stmts = append(stmts, `INSERT INTO `+versionsTable+` VALUES ('`+DefaultTable+`', 'contents', 1, 5, 5)`,
		`INSERT INTO "`+DefaultTable+`" (id, name, created_at, updated_at) VALUES ('old', 'kept', 1, 1)`)
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kind string
	var version, created, updated int64
	latest := migrations[len(migrations)-1].version
	if err := s.r.QueryRow(`SELECT kind, version, created_at, updated_at FROM `+versionsTable+` WHERE table_name = ?`, DefaultTable).
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
