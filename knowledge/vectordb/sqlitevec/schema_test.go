package sqlitevec

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	agnosqlite "github.com/agno-go/agno/storage/sqlite"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
)

func lexical(t testing.TB, dims int) embedder.Embedder {
	t.Helper()
	e, err := embedder.NewLexical(embedder.LexicalConfig{Dimensions: dims})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustCreate(t testing.TB, db vectordb.DB) {
	t.Helper()
	if err := db.Create(t.Context()); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func mustInsert(t testing.TB, db vectordb.DB, hash string, docs ...*document.Document) {
	t.Helper()
	if err := db.Insert(t.Context(), hash, docs, nil); err != nil {
		t.Fatalf("Insert: %v", err)
	}
}

func mustSearch(t testing.TB, db vectordb.DB, q vectordb.Query) []*document.Document {
	t.Helper()
	got, err := db.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	return got
}

// rawDB opens the file with a plain connection, as another program would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

type logCount struct {
	mu       sync.Mutex
	migrated int
}

func (l *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCount) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "schema migrated") {
		l.mu.Lock()
		l.migrated++
		l.mu.Unlock()
	}
	return nil
}
func (l *logCount) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCount) WithGroup(string) slog.Handler      { return l }

// The tables survive the process: reopening finds the records and runs no
// migration again; the file is private to its user.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	logs := &logCount{}
	cfg := Config{Path: path, Embedder: lexical(t, 0), Logger: slog.New(logs)}
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{ID: "1", Name: "pg", Content: "Postgres tables", ContentID: "c", MetaData: map[string]any{"k": "v"}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, cfg)
	if ok, err := s.Exists(t.Context()); err != nil || !ok {
		t.Fatalf("Exists after reopen = %v, %v", ok, err)
	}
	mustCreate(t, s) // a Knowledge calls Create on every start
	got := mustSearch(t, s, vectordb.Query{Text: "postgres", Filters: filter.Dict(map[string]any{"k": "v"})})
	if len(got) != 1 || got[0].Name != "pg" || got[0].ContentID != "c" || len(got[0].Embedding) != embedder.DefaultLexicalDimensions {
		t.Fatalf("after reopen: %+v", got)
	}
	if logs.migrated != 1 {
		t.Errorf("migrations logged %d times over two opens, want once", logs.migrated)
	}
	var version int64
	var k string
	if err := s.r.QueryRow(`SELECT kind, version FROM `+versionsTable+` WHERE table_name = ?`, DefaultTable).Scan(&k, &version); err != nil || k != "vectors" || version != migrations[len(migrations)-1].version {
		t.Errorf("recorded schema %q version %d (%v)", k, version, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("database file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestSchemaRefusals(t *testing.T) {
	for name, setup := range map[string]string{
		"newer version": `CREATE TABLE ` + versionsTable + ` (table_name TEXT PRIMARY KEY, kind TEXT NOT NULL, version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
			CREATE TABLE agno_knowledge_vectors (x); INSERT INTO ` + versionsTable + ` VALUES ('agno_knowledge_vectors', 'vectors', 99, 0, 0)`,
		"foreign table":      `CREATE TABLE agno_knowledge_vectors (id TEXT)`,
		"foreign fts table":  `CREATE TABLE agno_knowledge_vectors_fts (id TEXT)`,
		"another store kind": `CREATE TABLE ` + versionsTable + ` (table_name TEXT PRIMARY KEY, kind TEXT NOT NULL, version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL); INSERT INTO ` + versionsTable + ` VALUES ('agno_knowledge_vectors', 'contents', 1, 0, 0)`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agno.db")
			if _, err := rawDB(t, path).Exec(setup); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), Config{Path: path, Embedder: lexical(t, 0), Logger: slog.New(slog.DiscardHandler)})
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the file")
			}
			if name == "newer version" && !strings.Contains(err.Error(), "upgrade agno-go") ||
				name != "newer version" && !errors.Is(err, errForeign) {
				t.Errorf("Open: %v", err)
			}
		})
	}
}

// Stores with different tables share a file without seeing each other,
// next to the AgentOS session store on the same file.
func TestSharedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	sessions, err := agnosqlite.Open(t.Context(), agnosqlite.Config{Path: path, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer sessions.Close()
	e := lexical(t, 0)
	a := open(t, Config{Path: path, Embedder: e})
	b := open(t, Config{Path: path, Embedder: e, Table: "agno_knowledge_other"})
	mustCreate(t, a)
	mustCreate(t, b)
	mustInsert(t, a, "h", &document.Document{ID: "1", Name: "in-a", Content: "shared words"})
	mustInsert(t, b, "h", &document.Document{ID: "1", Name: "in-b", Content: "shared words"})
	for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid} {
		if got := names(mustSearch(t, a, vectordb.Query{Text: "shared", Type: typ})); len(got) != 1 || got[0] != "in-a" {
			t.Errorf("%s search of table a: %v", typ, got)
		}
	}
	if err := a.Drop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := names(mustSearch(t, b, vectordb.Query{Text: "shared"})); len(got) != 1 || got[0] != "in-b" {
		t.Errorf("table b after dropping a: %v", got)
	}
	// The session store still opens the file (its migrations ignore ours).
	if err := sessions.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := agnosqlite.Open(t.Context(), agnosqlite.Config{Path: path, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("reopening the session store next to knowledge tables: %v", err)
	}
	again.Close()
}

// Another process writing the same file (as AgentOS does with sessions)
// makes the store wait, not fail.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	s := open(t, Config{Path: path, Embedder: lexical(t, 64), SearchType: vectordb.SearchHybrid})
	mustCreate(t, s)
	other := rawDB(t, path)
	if _, err := other.Exec(`CREATE TABLE other_writes (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Go(func() {
		for i := range 200 {
			if _, err := other.Exec(`INSERT INTO other_writes VALUES (?)`, i); err != nil {
				errs <- fmt.Errorf("other writer: %w", err)
				return
			}
		}
	})
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				doc := &document.Document{ID: fmt.Sprint(w, "-", i), Name: fmt.Sprint(w), Content: randomTextN(w*100 + i)}
				if err := s.Insert(context.Background(), fmt.Sprint("h", w), []*document.Document{doc}, nil); err != nil {
					errs <- err
					return
				}
				if _, err := s.Search(context.Background(), vectordb.Query{Text: doc.Content, Limit: 3}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := mustSearch(t, s, vectordb.Query{Text: "alpha beta gamma delta", Limit: 1000, Type: vectordb.SearchKeyword})
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM ` + s.t.main).Scan(&n); err != nil || n != 100 {
		t.Errorf("%d records (%v), want 100; keyword search found %d", n, err, len(got))
	}
}

func randomTextN(seed int) string {
	return strings.Join([]string{vocabulary[seed%len(vocabulary)], vocabulary[(seed/7)%len(vocabulary)], vocabulary[(seed/3)%len(vocabulary)]}, " ")
}

func TestDimensionMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	s := open(t, Config{Path: path, Embedder: lexical(t, 64)})
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{ID: "1", Content: "first"})
	other := open(t, Config{Path: path, Embedder: lexical(t, 32)})
	err := other.Insert(t.Context(), "h2", []*document.Document{{ID: "2", Content: "second"}}, nil)
	if !errors.Is(err, vectordb.ErrInvalidConfig) || !strings.Contains(err.Error(), "64-dimensional") {
		t.Errorf("Insert with another embedder's dimensions: %v", err)
	}
	// A query of the other length finds nothing rather than failing.
	if got := mustSearch(t, other, vectordb.Query{Text: "first"}); len(got) != 0 {
		t.Errorf("search with 32-dimensional queries over 64-dimensional vectors: %v", names(got))
	}
}

func TestDroppedTable(t *testing.T) {
	s := open(t, Config{Embedder: lexical(t, 16)})
	if err := s.Insert(t.Context(), "h", []*document.Document{{Content: "x"}}, nil); !errors.Is(err, vectordb.ErrNotExist) {
		t.Errorf("Insert before Create: %v, want ErrNotExist", err)
	}
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{Content: "x"})
	if err := s.Drop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(t.Context(), "h", []*document.Document{{Content: "x"}}, nil); !errors.Is(err, vectordb.ErrNotExist) {
		t.Errorf("Upsert after Drop: %v, want ErrNotExist", err)
	}
	if got, err := s.Search(t.Context(), vectordb.Query{Text: "x"}); err != nil || len(got) != 0 {
		t.Errorf("Search after Drop = %v, %v; want nothing", got, err)
	}
	if ok, err := s.DeleteByName(t.Context(), ""); err != nil || ok {
		t.Errorf("DeleteByName after Drop = %v, %v", ok, err)
	}
	if err := s.UpdateMetadata(t.Context(), "c", map[string]any{"a": 1}); err != nil {
		t.Errorf("UpdateMetadata after Drop: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	bad := 1.5
	e := lexical(t, 16)
	for name, cfg := range map[string]Config{
		"threshold above 1":       {SimilarityThreshold: &bad, Embedder: e},
		"vector without embedder": {},
		"unknown distance":        {Embedder: e, Distance: "manhattan"},
		"unknown search type":     {Embedder: e, SearchType: "fuzzy"},
		"table without prefix":    {Embedder: e, Table: "vectors"},
		"table with capitals":     {Embedder: e, Table: "agno_knowledge_Vectors"},
		"table too long":          {Embedder: e, Table: "agno_knowledge_" + strings.Repeat("x", 34)},
		"URI path":                {Embedder: e, Path: "file:agno.db?mode=ro"},
	} {
		if cfg.Path == "" {
			cfg.Path = filepath.Join(t.TempDir(), "agno.db")
		}
		if s, err := Open(t.Context(), cfg); err == nil {
			s.Close()
			t.Errorf("%s: Open accepted %+v", name, cfg)
		} else if !errors.Is(err, vectordb.ErrInvalidConfig) && !errors.Is(err, vectordb.ErrUnsupportedSearch) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	if _, err := s.Search(t.Context(), vectordb.Query{Text: "x", Type: vectordb.SearchVector}); !errors.Is(err, vectordb.ErrUnsupportedSearch) {
		t.Errorf("vector search without embedder: %v, want ErrUnsupportedSearch", err)
	}
}

// UpdateMetadata sets keys and leaves the other stored JSON as it was,
// numbers too large for int64 included; results carry Python's number
// types (int64, float64).
func TestUpdateMetadata(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	big := json.Number("123456789012345678901234567890")
	mustInsert(t, s, "h", &document.Document{ID: "1", Content: "x", ContentID: "c", MetaData: map[string]any{"big": big, "n": 3, "f": 2.5, "keep": "k", "nested": map[string]any{"a": 1}}})
	if err := s.UpdateMetadata(t.Context(), "c", map[string]any{"keep": "changed", "new": []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	got := mustSearch(t, s, vectordb.Query{Text: "x"})
	if len(got) != 1 {
		t.Fatalf("got %d results", len(got))
	}
	m := got[0].MetaData
	if m["big"] != big || m["n"] != int64(3) || m["f"] != 2.5 || m["keep"] != "changed" ||
		!filter.Equal(m["new"], []any{"a"}) || !filter.Equal(m["nested"], map[string]any{"a": int64(1)}) {
		t.Errorf("metadata after UpdateMetadata: %#v", m)
	}
}
