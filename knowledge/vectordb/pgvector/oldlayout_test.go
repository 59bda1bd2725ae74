package pgvector

import (
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// A schema laid out by the runner this package had before storage/migrate
// (its versions table DDL, its version row, beside a contents store's
// row) opens with the shared runner, which migrates nothing and keeps the
// records.
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
	r := strings.NewReplacer("{t}", tbl, "{idx}", DefaultTable, "{embedding}", "real[]", "{lang}", "'english'")
	stmts := []string{`CREATE SCHEMA ` + pgx.Identifier{schema}.Sanitize(), `CREATE TABLE IF NOT EXISTS ` + versions + ` (
		table_name TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		version    BIGINT NOT NULL,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL
	)`}
	for _, st := range migrations[0].stmts {
		if !st.vectorIndex {
			stmts = append(stmts, r.Replace(st.sql))
		}
	}
	stmts = append(stmts,
		`INSERT INTO `+versions+` VALUES ('`+DefaultTable+`', 'vectors', 1, 5, 5), ('agno_knowledge_contents', 'contents', 1, 6, 6)`,
		`INSERT INTO `+tbl+` (id, name, content, meta_data, content_hash, embedding, created_at, updated_at)
			VALUES ('old', 'kept', 'an old chunk about herons', '{"n": 1}', 'h', '{0.5,0.25}', 1, 1)`)
	for _, stmt := range stmts {
		if _, err := conn.Exec(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}

	// Open alone finds the table: no Create needed to read it.
	s := open(t, Config{Schema: schema, SearchType: vectordb.SearchKeyword})
	got, err := s.Search(t.Context(), vectordb.Query{Text: "herons"})
	if err != nil || len(got) != 1 || got[0].ID != "old" || got[0].Name != "kept" || got[0].MetaData["n"] != int64(1) ||
		!slices.Equal(got[0].Embedding, []float32{0.5, 0.25}) {
		t.Fatalf("old record after Open: %v, %v", got, err)
	}
	mustCreate(t, s)
	mustInsert(t, s, "h2", &document.Document{ID: "new", Name: "added", Content: "a new chunk about herons"})
	if got, err := s.Search(t.Context(), vectordb.Query{Text: "herons"}); err != nil || len(got) != 2 {
		t.Errorf("after Create and Insert: %v, %v", names(got), err)
	}
	for table, want := range map[string]struct {
		kind    string
		stamped int64
	}{DefaultTable: {"vectors", 5}, "agno_knowledge_contents": {"contents", 6}} {
		var kind string
		var version, created, updated int64
		if err := conn.QueryRow(t.Context(), `SELECT kind, version, created_at, updated_at FROM `+versions+` WHERE table_name = $1`, table).
			Scan(&kind, &version, &created, &updated); err != nil || kind != want.kind || version != 1 || created != want.stamped || updated != want.stamped {
			t.Errorf("%s version row %s %d %d %d (%v), want %s 1 %d %d", table, kind, version, created, updated, err, want.kind, want.stamped, want.stamped)
		}
	}
}
