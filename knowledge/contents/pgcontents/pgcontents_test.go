package pgcontents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/contentstest"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/pgvector"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// open returns a store on a schema of its own (unless cfg names one),
// dropped after the test.
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

func TestConformance(t *testing.T) {
	contentstest.Run(t, func(t *testing.T) contents.Store { return open(t, Config{}) })
}

func size(n int64) *int64 { return &n }

// List agrees with the in-memory store, the reference, for every sort
// column, order, page and knowledge base, ties, accents, case and missing
// sizes included.
func TestListMatchesMemoryStore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := open(t, Config{})
	ref := contents.NewMemory()
	names := []string{"a", "B", "b", "é", "Z", "z", "ab", "", "a b", "a-b"}
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

// Every field survives a reopen; metadata keeps its exact text (JSON,
// not JSONB), a NUL included.
func TestReopen(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	s := open(t, Config{Schema: schema})
	row := contents.Row{ID: "c1", Name: "demo.pdf", Description: "d", Type: ".pdf", Size: size(42), LinkedTo: "kb", AccessCount: 2,
		Metadata: map[string]any{"big": uint64(12345678901234567890), "f": 1.5, "nul": "a\x00b", "nested": map[string]any{"l": []any{"x"}}},
		Status:   contents.StatusFailed, StatusMessage: "Could not insert embedding", CreatedAt: 10, UpdatedAt: 20, ExternalID: "ext"}
	if err := s.Upsert(t.Context(), row); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, Config{Schema: schema})
	got, err := s.Get(t.Context(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := row
	want.Metadata = map[string]any{"big": json.Number("12345678901234567890"), "f": json.Number("1.5"), "nul": "a\x00b", "nested": map[string]any{"l": []any{"x"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row after reopen (-want +got):\n%s", diff)
	}
	if err := s.Upsert(t.Context(), contents.Row{ID: "c2"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(t.Context(), "c2"); got.Metadata != nil || got.Size != nil {
		t.Errorf("a row without metadata or size reads back %+v", got)
	}
}

func TestRefusals(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	// The vector store's table is not a contents table.
	vec, err := pgvector.Open(t.Context(), pgvector.Config{DSN: dsn, Schema: schema, Table: DefaultTable, SearchType: vectordb.SearchKeyword, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer vec.Close()
	if err := vec.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(t.Context(), Config{DSN: dsn, Schema: schema, Logger: quiet}); !errors.Is(err, errForeign) {
		if s != nil {
			s.Close()
		}
		t.Errorf("Open on a vectors table: %v, want errForeign", err)
	}
	// Next to it, under another name, a contents table is fine.
	s := open(t, Config{Schema: schema, Table: "agno_knowledge_rows"})
	if err := s.Upsert(t.Context(), contents.Row{}); err == nil || !strings.Contains(err.Error(), "id is empty") {
		t.Errorf("Upsert without id: %v", err)
	}
	for name, cfg := range map[string]Config{
		"no DSN":               {},
		"bad schema":           {DSN: dsn, Schema: "a b"},
		"table without prefix": {DSN: dsn, Table: "contents"},
	} {
		if s, err := Open(context.Background(), cfg); !errors.Is(err, ErrInvalidConfig) {
			if s != nil {
				s.Close()
			}
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}
