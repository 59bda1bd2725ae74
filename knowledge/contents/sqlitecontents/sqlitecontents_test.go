package sqlitecontents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/contentstest"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

func open(t *testing.T, cfg Config) *Store {
	t.Helper()
	if cfg.Path == "" {
		cfg.Path = filepath.Join(t.TempDir(), "agno.db")
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	contentstest.Run(t, func(t *testing.T) contents.Store { return open(t, Config{}) })
	t.Run("in memory", func(t *testing.T) {
		contentstest.Run(t, func(t *testing.T) contents.Store { return open(t, Config{Path: ":memory:"}) })
	})
}

func size(n int64) *int64 { return &n }

// List agrees with the in-memory store, the reference, for every sort
// column, order, page and knowledge base, ties and missing sizes
// included.
func TestListMatchesMemoryStore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := open(t, Config{})
	ref := contents.NewMemory()
	names := []string{"a", "B", "b", "é", "Z", "z", "ab", ""}
	statuses := []contents.Status{contents.StatusProcessing, contents.StatusCompleted, contents.StatusFailed}
	for i := range 60 {
		row := contents.Row{
			ID: fmt.Sprintf("id-%02d", r.IntN(1000)), Name: names[r.IntN(len(names))], LinkedTo: []string{"kb", "other", ""}[r.IntN(3)],
			Status: statuses[r.IntN(3)], AccessCount: r.IntN(3), CreatedAt: int64(r.IntN(5)), UpdatedAt: int64(r.IntN(5)),
			Metadata: map[string]any{"i": i},
		}
		if r.IntN(3) > 0 {
			row.Size = size(int64(r.IntN(4)))
		}
		for _, st := range []contents.Store{s, ref} {
			if err := st.Upsert(t.Context(), row); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, sortBy := range []string{"", "created_at", "updated_at", "name", "size", "status", "access_count"} {
		for _, order := range []string{"", contents.SortAsc, contents.SortDesc, "ASC"} {
			for _, linked := range []string{"", "kb"} {
				for _, page := range [][2]int{{0, 0}, {7, 0}, {7, 1}, {7, 3}, {5, 100}} {
					opts := contents.ListOptions{SortBy: sortBy, SortOrder: order, LinkedTo: linked, Limit: page[0], Page: page[1]}
					want, wantTotal, err := ref.List(t.Context(), opts)
					if err != nil {
						t.Fatal(err)
					}
					got, total, err := s.List(t.Context(), opts)
					if err != nil {
						t.Fatal(err)
					}
					if total != wantTotal || !cmp.Equal(ids(got), ids(want)) {
						t.Errorf("List(%+v) = %v (%d), memory store %v (%d)", opts, ids(got), total, ids(want), wantTotal)
					}
				}
			}
		}
	}
	// A page too far for int64 arithmetic is empty, not an error.
	got, total, err := s.List(t.Context(), contents.ListOptions{Limit: math.MaxInt, Page: math.MaxInt})
	if err != nil || len(got) != 0 || total == 0 {
		t.Errorf("List of a page past int64 = %d rows, %d, %v", len(got), total, err)
	}
}

func ids(rows []contents.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

// Rows survive reopening, every field intact; the contents table shares
// the file with the knowledge vectors; the file is private.
func TestReopenAndSharedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	e, err := embedder.NewLexical(embedder.LexicalConfig{Dimensions: 32})
	if err != nil {
		t.Fatal(err)
	}
	vec, err := sqlitevec.Open(t.Context(), sqlitevec.Config{Path: path, Embedder: e, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer vec.Close()
	if err := vec.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	row := contents.Row{ID: "c1", Name: "demo.pdf", Description: "d", Type: ".pdf", Size: size(42), LinkedTo: "kb", AccessCount: 2,
		Metadata: map[string]any{"big": uint64(12345678901234567890), "f": 1.5, "nested": map[string]any{"l": []any{"x"}}},
		Status:   contents.StatusFailed, StatusMessage: "Could not insert embedding", CreatedAt: 10, UpdatedAt: 20, ExternalID: "ext"}
	s, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(t.Context(), row); err != nil {
		t.Fatal(err)
	}
	if err := vec.Insert(t.Context(), "h", []*document.Document{{Content: "chunk", ContentID: "c1"}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, Config{Path: path})
	got, err := s.Get(t.Context(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := row
	want.Metadata = map[string]any{"big": jsonNumber("12345678901234567890"), "f": jsonNumber("1.5"), "nested": map[string]any{"l": []any{"x"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row after reopen (-want +got):\n%s", diff)
	}
	if hits, err := vec.Search(t.Context(), vectordb.Query{Text: "chunk"}); err != nil || len(hits) != 1 {
		t.Errorf("vectors next to the contents table: %v, %v", hits, err)
	}
	var kinds string
	if err := s.r.QueryRow(`SELECT group_concat(table_name || '=' || kind, ',') FROM (SELECT * FROM ` + versionsTable + ` ORDER BY table_name)`).Scan(&kinds); err != nil ||
		kinds != "agno_knowledge_contents=contents,agno_knowledge_vectors=vectors" {
		t.Errorf("recorded tables %q (%v)", kinds, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestRefusals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	// The vectors store's table is not a contents table.
	vec, err := sqlitevec.Open(t.Context(), sqlitevec.Config{Path: path, SearchType: vectordb.SearchKeyword, Table: "agno_knowledge_contents", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer vec.Close()
	if err := vec.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(t.Context(), Config{Path: path, Logger: quiet}); !errors.Is(err, errForeign) {
		if s != nil {
			s.Close()
		}
		t.Errorf("Open on a vectors table: %v, want errForeign", err)
	}
	for name, cfg := range map[string]Config{
		"table without prefix": {Table: "contents"},
		"URI path":             {Path: "file:x.db"},
	} {
		if s, err := Open(context.Background(), cfg); !errors.Is(err, ErrInvalidConfig) {
			if s != nil {
				s.Close()
			}
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
	s := open(t, Config{})
	if err := s.Upsert(t.Context(), contents.Row{}); err == nil || !strings.Contains(err.Error(), "id is empty") {
		t.Errorf("Upsert without id: %v", err)
	}
	if _, _, err := s.List(t.Context(), contents.ListOptions{SortBy: "id; DROP TABLE x"}); err == nil {
		t.Error("List accepted an unknown sort column")
	}
}

func jsonNumber(s string) any { return json.Number(s) }
