package sqlitevec

import (
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// A file laid out by the runner this package had before storage/migrate
// (its versions table DDL, its version row) opens with the shared runner
// and finds its table.
func TestOpenOldLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	tb := newTables(DefaultTable)
	r := strings.NewReplacer("{t}", tb.main, "{fts}", tb.fts, "{vec}", tb.vec, "{idx}", tb.idx)
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
	stmts = append(stmts, `INSERT INTO `+versionsTable+` VALUES ('`+DefaultTable+`', 'vectors', 1, 5, 5)`)
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(t.Context(), Config{Path: path, Embedder: lexical(t, 0), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Exists(t.Context()); err != nil || !ok {
		t.Errorf("Exists: %v, %v", ok, err)
	}
	if err := s.Create(t.Context()); err != nil {
		t.Errorf("Create on the old table: %v", err)
	}
	var version, created, updated int64
	if err := s.r.QueryRow(`SELECT version, created_at, updated_at FROM `+versionsTable+` WHERE table_name = ? AND kind = 'vectors'`, DefaultTable).
		Scan(&version, &created, &updated); err != nil || version != 1 || created != 5 || updated != 5 {
		t.Errorf("version row %d %d %d (%v), want 1 5 5", version, created, updated, err)
	}
}
