package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/vectordbtest"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// open returns a store on a schema of its own, dropped after the test.
func open(t *testing.T, cfg Config) *Store {
	t.Helper()
	dsn := pgtest.DSN(t)
	cfg.DSN = dsn
	if cfg.Schema == "" {
		cfg.Schema = pgtest.Schema(t, dsn)
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	cfg.MaxConns = 4
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func lexical(t *testing.T) embedder.Embedder {
	t.Helper()
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustCreate(t *testing.T, db vectordb.DB) {
	t.Helper()
	if err := db.Create(t.Context()); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func mustInsert(t *testing.T, db vectordb.DB, hash string, docs ...*document.Document) {
	t.Helper()
	if err := db.Insert(t.Context(), hash, docs, nil); err != nil {
		t.Fatalf("Insert: %v", err)
	}
}

func names(docs []*document.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Name
	}
	return out
}

// vectorReady reports whether this server has pgvector; the tests of the
// other case skip when it has.
func vectorReady(t *testing.T) bool {
	t.Helper()
	return open(t, Config{Embedder: lexical(t)}).VectorAvailable()
}

// The suite runs in every mode the server supports: with pgvector, vector
// and hybrid search under each metric (and without an index, exact);
// without it, the keyword search the store then offers, with embeddings
// kept; and keyword-only without an embedder.
func TestConformance(t *testing.T) {
	if vectorReady(t) {
		t.Log("pgvector is installed: running vector and hybrid modes")
		for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchHybrid} {
			for _, dist := range []vectordb.Distance{vectordb.Cosine, vectordb.L2, vectordb.MaxInnerProduct} {
				for _, index := range []string{IndexHNSW, IndexNone} {
					t.Run(string(typ)+"/"+string(dist)+"/"+index, func(t *testing.T) {
						vectordbtest.Run(t, func(t *testing.T, e embedder.Embedder) vectordb.DB {
							return open(t, Config{Embedder: e, SearchType: typ, Distance: dist, Index: index})
						})
					})
				}
			}
		}
	} else {
		t.Log("pgvector is not installed: vector and hybrid modes are not run; see TestWithoutPgvector")
		t.Run("embedder without pgvector", func(t *testing.T) {
			vectordbtest.Run(t, func(t *testing.T, e embedder.Embedder) vectordb.DB {
				return open(t, Config{Embedder: e, SearchType: vectordb.SearchKeyword})
			})
		})
	}
	t.Run("keyword only", func(t *testing.T) {
		vectordbtest.Run(t, func(t *testing.T, _ embedder.Embedder) vectordb.DB {
			return open(t, Config{SearchType: vectordb.SearchKeyword})
		})
	})
}

// Without pgvector, vector and hybrid search fail with an error that names
// the extension and how to install it; keyword search works, and the
// embeddings are kept (as real[]).
func TestWithoutPgvector(t *testing.T) {
	if vectorReady(t) {
		t.Skip("pgvector is installed on this server")
	}
	s := open(t, Config{Embedder: lexical(t)})
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{ID: "1", Name: "pg", Content: "Postgres tables and indexes"})
	if got := s.SupportedSearchTypes(); !slices.Equal(got, []vectordb.SearchType{vectordb.SearchKeyword}) {
		t.Errorf("SupportedSearchTypes = %v, want [keyword]", got)
	}
	for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchHybrid, ""} {
		_, err := s.Search(t.Context(), vectordb.Query{Text: "postgres", Type: typ})
		if !errors.Is(err, vectordb.ErrUnsupportedSearch) {
			t.Fatalf("%q search without pgvector: %v, want ErrUnsupportedSearch", typ, err)
		}
		for _, want := range []string{`extension "vector" (pgvector)`, "apt-get install postgresql-", "-pgvector", "CREATE EXTENSION vector", "Keyword search works"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "postgres", Type: vectordb.SearchKeyword})
	if err != nil || len(got) != 1 || got[0].Name != "pg" {
		t.Fatalf("keyword search = %v, %v", got, err)
	}
	if len(got[0].Embedding) != embedder.DefaultLexicalDimensions {
		t.Errorf("stored embedding has %d dimensions, want %d", len(got[0].Embedding), embedder.DefaultLexicalDimensions)
	}
	want, _, _ := lexical(t).Embed(t.Context(), []string{"Postgres tables and indexes"})
	if !slices.Equal(got[0].Embedding, want[0]) {
		t.Error("stored embedding differs from the document's")
	}
}

// fixed embeds every text to a vector chosen by the test.
type fixed map[string][]float32

func (f fixed) Dimensions() int { return 2 }

func (f fixed) Embed(_ context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f[t]
		if !ok {
			return nil, embedder.Usage{}, errors.New("no vector for " + t)
		}
		out[i] = v
	}
	return out, embedder.Usage{PromptTokens: len(texts), TotalTokens: len(texts)}, nil
}

// With pgvector, scores are agno's normalisations of its distances: the
// golden values of the in-memory store.
func TestScoresWithPgvector(t *testing.T) {
	if !vectorReady(t) {
		t.Skip("pgvector is not installed on this server")
	}
	e := fixed{"q": {1, 0}, "same": {1, 0}, "45": {1, 1}, "orth": {0, 1}, "opp": {-1, 0}}
	threshold := 0.5
	for _, c := range []struct {
		cfg  Config
		want []float64
	}{
		{Config{}, []float64{1, math.Sqrt2 / 2, 0, 0}},
		{Config{Distance: vectordb.L2}, []float64{1, 0.5, 1 / (1 + math.Sqrt2), 1.0 / 3}},
		{Config{Distance: vectordb.MaxInnerProduct}, []float64{1, 1, 0.5, 0}},
		{Config{SimilarityThreshold: &threshold}, []float64{1, math.Sqrt2 / 2}},
	} {
		c.cfg.Embedder, c.cfg.Index = e, IndexNone
		s := open(t, c.cfg)
		mustCreate(t, s)
		mustInsert(t, s, "h", &document.Document{Name: "same", Content: "same"}, &document.Document{Name: "45", Content: "45"},
			&document.Document{Name: "orth", Content: "orth"}, &document.Document{Name: "opp", Content: "opp"})
		got, err := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("%+v: %v", c.cfg, names(got))
		}
		for i, w := range c.want {
			if score := got[i].MetaData[vectordb.ScoreKey].(float64); math.Abs(score-w) > 1e-6 {
				t.Errorf("%s/%v result %d (%s) scores %v, want %v", c.cfg.Distance, c.cfg.SimilarityThreshold != nil, i, got[i].Name, score, w)
			}
		}
	}
}

func TestSchemaRefusals(t *testing.T) {
	dsn := pgtest.DSN(t)
	for name, setup := range map[string]string{
		"newer version": `CREATE TABLE {s}.agno_knowledge_schema_versions (table_name TEXT PRIMARY KEY, kind TEXT NOT NULL, version BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
			CREATE TABLE {s}.agno_knowledge_vectors (x int); INSERT INTO {s}.agno_knowledge_schema_versions VALUES ('agno_knowledge_vectors', 'vectors', 99, 0, 0)`,
		"foreign table":      `CREATE TABLE {s}.agno_knowledge_vectors (id TEXT)`,
		"another store kind": `CREATE TABLE {s}.agno_knowledge_schema_versions (table_name TEXT PRIMARY KEY, kind TEXT NOT NULL, version BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL); INSERT INTO {s}.agno_knowledge_schema_versions VALUES ('agno_knowledge_vectors', 'contents', 1, 0, 0)`,
	} {
		t.Run(name, func(t *testing.T) {
			schema := pgtest.Schema(t, dsn)
			conn, err := pgx.Connect(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+schema+"; "+strings.ReplaceAll(setup, "{s}", schema)); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), Config{DSN: dsn, Schema: schema, SearchType: vectordb.SearchKeyword, Logger: quiet})
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the schema")
			}
			if name == "newer version" && !strings.Contains(err.Error(), "upgrade agno-go") ||
				name != "newer version" && !errors.Is(err, errForeign) {
				t.Errorf("Open: %v", err)
			}
		})
	}
}

// Reopening finds the table and its records and migrates nothing; two
// tables in one schema are independent.
func TestReopenAndTwoTables(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	cfg := Config{Schema: schema, SearchType: vectordb.SearchKeyword}
	a := open(t, cfg)
	mustCreate(t, a)
	mustInsert(t, a, "h", &document.Document{ID: "1", Name: "in-a", Content: "shared words", MetaData: map[string]any{"n": 1}})
	b := open(t, Config{Schema: schema, SearchType: vectordb.SearchKeyword, Table: "agno_knowledge_other"})
	mustCreate(t, b)
	mustInsert(t, b, "h", &document.Document{ID: "1", Name: "in-b", Content: "shared words"})
	a.Close()
	again := open(t, cfg)
	mustCreate(t, again)
	got, err := again.Search(t.Context(), vectordb.Query{Text: "shared"})
	if err != nil || len(got) != 1 || got[0].Name != "in-a" || got[0].MetaData["n"] != int64(1) {
		t.Fatalf("after reopen: %v, %v", got, err)
	}
	if err := again.Drop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Search(t.Context(), vectordb.Query{Text: "shared"}); len(got) != 1 || got[0].Name != "in-b" {
		t.Errorf("table b after dropping a: %v", names(got))
	}
	var versions int
	if err := b.pool.QueryRow(t.Context(), `SELECT COUNT(*) FROM `+b.versions+` WHERE version = 1`).Scan(&versions); err != nil || versions != 1 {
		t.Errorf("%d recorded tables (%v), want 1 (b; a was dropped)", versions, err)
	}
}

func TestDroppedTable(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
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
	if ok, err := s.DeleteByMetadata(t.Context(), map[string]any{"a": []any{1}}); err != nil || ok {
		t.Errorf("DeleteByMetadata after Drop = %v, %v", ok, err)
	}
	if err := s.UpdateMetadata(t.Context(), "c", map[string]any{"a": 1}); err != nil {
		t.Errorf("UpdateMetadata after Drop: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	bad := 1.5
	e := fixed{}
	for name, cfg := range map[string]Config{
		"no DSN":                  {SearchType: vectordb.SearchKeyword},
		"threshold above 1":       {DSN: "postgres://x", SimilarityThreshold: &bad, Embedder: e},
		"vector without embedder": {DSN: "postgres://x"},
		"unknown distance":        {DSN: "postgres://x", Embedder: e, Distance: "manhattan"},
		"bad schema":              {DSN: "postgres://x", Embedder: e, Schema: "a-b"},
		"table without prefix":    {DSN: "postgres://x", Embedder: e, Table: "vectors"},
		"bad language":            {DSN: "postgres://x", Embedder: e, Language: "english'; DROP"},
		"bad index":               {DSN: "postgres://x", Embedder: e, Index: "ivfflat"},
	} {
		if s, err := Open(t.Context(), cfg); err == nil {
			s.Close()
			t.Errorf("%s: Open accepted %+v", name, cfg)
		} else if !errors.Is(err, vectordb.ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}

// UpdateMetadata merges keys (jsonb ||); results carry Python's number
// types.
func TestUpdateMetadata(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{ID: "1", Content: "x", ContentID: "c", MetaData: map[string]any{"n": 3, "f": 2.5, "keep": "k", "nested": map[string]any{"a": 1}}})
	if err := s.UpdateMetadata(t.Context(), "c", map[string]any{"keep": "changed", "new": []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "x"})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	m := got[0].MetaData
	if m["n"] != int64(3) || m["f"] != 2.5 || m["keep"] != "changed" || !filter.Equal(m["new"], []any{"a"}) || !filter.Equal(m["nested"], map[string]any{"a": int64(1)}) {
		t.Errorf("metadata after UpdateMetadata: %#v", m)
	}
}

// Usage travels with the record.
func TestUsageStored(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	mustInsert(t, s, "h", &document.Document{ID: "1", Content: "x", Usage: &embedder.Usage{PromptTokens: 3, TotalTokens: 4}})
	got, err := s.Search(t.Context(), vectordb.Query{Text: "x"})
	if err != nil || len(got) != 1 || got[0].Usage == nil || *got[0].Usage != (embedder.Usage{PromptTokens: 3, TotalTokens: 4}) {
		t.Fatalf("%+v, %v", got, err)
	}
	b, _ := json.Marshal(got[0].Usage)
	t.Logf("usage %s", b)
}

func TestNumberPlaceholders(t *testing.T) {
	if got := number("a = $? AND b = $? OR c ? 'k'", 3); got != "a = $3 AND b = $4 OR c ? 'k'" {
		t.Errorf("number = %q", got)
	}
	_ = fmt.Sprint()
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{"0.8.0": true, "0.8": true, "0.10.1": true, "1.0.0": true, "0.7.4": false, "0.5": false, "": false, "x.y": false, "0": false} {
		if got := versionAtLeast(v, 0, 8); got != want {
			t.Errorf("versionAtLeast(%q, 0, 8) = %v, want %v", v, got, want)
		}
	}
}
