// Package vectordbtest is the conformance suite every vectordb.DB backend
// passes: the memory store here, and the SQLite and Postgres stores.
package vectordbtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Factory returns a new, empty store that embeds with e. The suite calls
// Create before writing.
type Factory func(t *testing.T, e embedder.Embedder) vectordb.DB

// Run runs the suite against stores from open.
func Run(t *testing.T, open Factory) {
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	newStore := func(t *testing.T) vectordb.DB {
		t.Helper()
		db := open(t, e)
		if err := db.Create(t.Context()); err != nil {
			t.Fatalf("Create: %v", err)
		}
		return db
	}
	t.Run("Lifecycle", func(t *testing.T) { testLifecycle(t, newStore(t)) })
	t.Run("InsertAndSearch", func(t *testing.T) { testInsertAndSearch(t, newStore(t)) })
	t.Run("Filters", func(t *testing.T) { testFilters(t, newStore(t)) })
	t.Run("InsertDuplicate", func(t *testing.T) { testInsertDuplicate(t, newStore(t)) })
	t.Run("Upsert", func(t *testing.T) { testUpsert(t, newStore(t)) })
	t.Run("Deletes", func(t *testing.T) { testDeletes(t, newStore(t)) })
	t.Run("UpdateMetadata", func(t *testing.T) { testUpdateMetadata(t, newStore(t)) })
}

func corpus() []*document.Document {
	return []*document.Document{
		{ID: "d1", Name: "go", ContentID: "c1", Content: "Go channels let goroutines communicate safely", MetaData: map[string]any{"year": 2012, "lang": "go", "rating": 0.1}},
		{ID: "d2", Name: "pg", ContentID: "c1", Content: "Postgres stores rows in tables and supports indexes", MetaData: map[string]any{"year": 1996, "lang": "sql"}},
		{ID: "d3", Name: "fruit", ContentID: "c1", Content: "Bananas are yellow fruit rich in potassium", MetaData: map[string]any{"year": 2020, "tags": []any{"food", "yellow"}}},
	}
}

func mustInsert(t *testing.T, db vectordb.DB, hash string, docs []*document.Document, filters map[string]any) {
	t.Helper()
	if err := db.Insert(t.Context(), hash, docs, filters); err != nil {
		t.Fatalf("Insert(%s): %v", hash, err)
	}
}

func search(t *testing.T, db vectordb.DB, q vectordb.Query) []*document.Document {
	t.Helper()
	docs, err := db.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return docs
}

func names(docs []*document.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Name
	}
	return out
}

func supports(db vectordb.DB, typ vectordb.SearchType) bool {
	return slices.Contains(db.SupportedSearchTypes(), typ)
}

func exists(t *testing.T, name string, f func(context.Context) (bool, error), want bool) {
	t.Helper()
	got, err := f(t.Context())
	if err != nil || got != want {
		t.Errorf("%s = %v, %v; want %v", name, got, err, want)
	}
}

func testLifecycle(t *testing.T, db vectordb.DB) {
	ctx := t.Context()
	exists(t, "Exists after Create", db.Exists, true)
	mustInsert(t, db, "h1", corpus(), nil)
	exists(t, "ContentHashExists(h1)", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h1") }, true)
	if err := db.Drop(ctx); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	exists(t, "Exists after Drop", db.Exists, false)
	if err := db.Create(ctx); err != nil {
		t.Fatalf("Create again: %v", err)
	}
	exists(t, "ContentHashExists(h1) after Drop and Create", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h1") }, false)
	if err := db.Create(ctx); err != nil {
		t.Errorf("Create on an existing table: %v", err)
	}
}

func testInsertAndSearch(t *testing.T, db vectordb.DB) {
	docs := corpus()
	mustInsert(t, db, "h1", docs, map[string]any{"tenant": "a"})
	exists(t, "ContentHashExists(h1)", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h1") }, true)
	exists(t, "ContentHashExists(h2)", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h2") }, false)
	id := vectordb.RecordID(docs[1], "h1")
	exists(t, "IDExists(record id)", func(ctx context.Context) (bool, error) { return db.IDExists(ctx, id) }, true)
	exists(t, "IDExists(document id)", func(ctx context.Context) (bool, error) { return db.IDExists(ctx, "d2") }, false)
	exists(t, "NameExists(pg)", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "pg") }, true)
	exists(t, "NameExists(nope)", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "nope") }, false)

	for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid} {
		t.Run(string(typ), func(t *testing.T) {
			if !supports(db, typ) {
				t.Skipf("%s search not supported", typ)
			}
			got := search(t, db, vectordb.Query{Text: "postgres tables and indexes", Limit: 2, Type: typ})
			if len(got) == 0 || got[0].Name != "pg" {
				t.Fatalf("top result %v, want pg first", names(got))
			}
			if len(got) > 2 {
				t.Errorf("got %d results for limit 2", len(got))
			}
			top := got[0]
			if top.ID != id || top.ContentID != "c1" || top.Content != docs[1].Content {
				t.Errorf("result id %q content_id %q content %q; want record id %s, c1 and the stored content", top.ID, top.ContentID, top.Content, id)
			}
			if top.MetaData["tenant"] != "a" || !filter.Equal(top.MetaData["year"], 1996) {
				t.Errorf("metadata %v lacks the insert filters or the document's own metadata", top.MetaData)
			}
			score, hasScore := top.MetaData[vectordb.ScoreKey].(float64)
			if typ != vectordb.SearchKeyword && (!hasScore || score <= 0 || score > 1) {
				t.Errorf("%s = %v, want a score in (0, 1]", vectordb.ScoreKey, top.MetaData[vectordb.ScoreKey])
			}
			if typ == vectordb.SearchKeyword {
				for _, d := range search(t, db, vectordb.Query{Text: "potassium", Limit: 5, Type: typ}) {
					if d.Name != "fruit" {
						t.Errorf("keyword search for potassium returned %q, which lacks the word", d.Name)
					}
				}
			}
		})
	}
}

func testFilters(t *testing.T, db vectordb.DB) {
	mustInsert(t, db, "h1", corpus(), map[string]any{"tenant": "a"})
	other := []*document.Document{{ID: "d4", Name: "pg-b", ContentID: "c2", Content: "Postgres tables for tenant b", MetaData: map[string]any{"year": 2024}}}
	mustInsert(t, db, "h2", other, map[string]any{"tenant": "b"})
	typ := db.SupportedSearchTypes()[0]
	cases := []struct {
		name    string
		filters filter.Filters
		want    []string
	}{
		{"dict", filter.Dict(map[string]any{"tenant": "b"}), []string{"pg-b"}},
		{"dict two keys", filter.Dict(map[string]any{"tenant": "a", "lang": "sql"}), []string{"pg"}},
		{"dict list containment", filter.Dict(map[string]any{"tags": []any{"yellow"}}), []string{"fruit"}},
		{"EQ", filter.List(filter.EQ("lang", "go")), []string{"go"}},
		{"IN", filter.List(filter.IN("lang", "go", "sql")), []string{"go", "pg"}},
		{"GT", filter.List(filter.GT("year", 2015)), []string{"fruit", "pg-b"}},
		{"LT and NOT", filter.List(filter.LT("year", 2021), filter.NOT(filter.EQ("lang", "go"))), []string{"fruit", "pg"}},
		{"OR", filter.List(filter.OR(filter.EQ("tenant", "b"), filter.EQ("lang", "go"))), []string{"go", "pg-b"}},
		{"no match", filter.Dict(map[string]any{"tenant": "z"}), nil},
		// Filters as the API decodes them (numbers as json.Number) meet
		// the stored Go numbers as Python compares them.
		{"JSON dict float", parse(t, `{"rating": 0.1}`), []string{"go"}},
		{"JSON EQ float", parse(t, `[{"op": "EQ", "key": "rating", "value": 0.10}]`), []string{"go"}},
		{"JSON GTE float", parse(t, `[{"op": "GTE", "key": "rating", "value": 1e-1}]`), []string{"go"}},
		{"JSON IN int as float", parse(t, `[{"op": "IN", "key": "year", "values": [1996.0, 2012]}]`), []string{"go", "pg"}},
		{"JSON LT float", parse(t, `[{"op": "LT", "key": "year", "value": 2012.5}]`), []string{"go", "pg"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := names(search(t, db, vectordb.Query{Text: "postgres goroutines bananas tables", Limit: 10, Type: typ, Filters: c.filters}))
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("filters %s: got %v, want %v", c.filters, got, c.want)
			}
		})
	}
}

func parse(t *testing.T, s string) filter.Filters {
	t.Helper()
	f, err := filter.Parse([]byte(s))
	if err != nil {
		t.Fatalf("filter.Parse(%s): %v", s, err)
	}
	return f
}

func testInsertDuplicate(t *testing.T, db vectordb.DB) {
	mustInsert(t, db, "h1", corpus(), nil)
	err := db.Insert(t.Context(), "h1", corpus(), nil)
	if !errors.Is(err, vectordb.ErrDuplicate) {
		t.Errorf("second Insert under the same hash: %v, want ErrDuplicate", err)
	}
	// The same documents under another content hash are other records.
	mustInsert(t, db, "h2", corpus(), nil)
	got := search(t, db, vectordb.Query{Text: "postgres", Limit: 10, Type: db.SupportedSearchTypes()[0]})
	if n := countName(got, "pg"); n != 2 {
		t.Errorf("pg stored %d times, want 2 (one per content hash)", n)
	}
}

func countName(docs []*document.Document, name string) int {
	n := 0
	for _, d := range docs {
		if d.Name == name {
			n++
		}
	}
	return n
}

func testUpsert(t *testing.T, db vectordb.DB) {
	if !db.UpsertAvailable() {
		t.Skip("upsert not available")
	}
	mustInsert(t, db, "h1", corpus(), nil)
	mustInsert(t, db, "h2", []*document.Document{{ID: "k", Name: "keep", Content: "Postgres keeps this row"}}, nil)
	replacement := []*document.Document{{ID: "d9", Name: "new", Content: "Postgres replacement text"}}
	if err := db.Upsert(t.Context(), "h1", replacement, map[string]any{"v": 2}); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	got := search(t, db, vectordb.Query{Text: "postgres", Limit: 10, Type: db.SupportedSearchTypes()[0]})
	gotNames := names(got)
	slices.Sort(gotNames)
	if !slices.Equal(gotNames, []string{"keep", "new"}) {
		t.Errorf("after Upsert(h1): %v, want [keep new] (h1's old records replaced, h2 kept)", gotNames)
	}
	// Upserting the same document again updates it in place.
	replacement = []*document.Document{{ID: "d9", Name: "new", Content: "Postgres replacement text, edited"}}
	if err := db.Upsert(t.Context(), "h1", replacement, nil); err != nil {
		t.Fatalf("second Upsert: %v", err)
	}
	if n := countName(search(t, db, vectordb.Query{Text: "postgres", Limit: 10, Type: db.SupportedSearchTypes()[0]}), "new"); n != 1 {
		t.Errorf("document stored %d times after two upserts, want 1", n)
	}
}

func testDeletes(t *testing.T, db vectordb.DB) {
	ctx := t.Context()
	docs := corpus()
	mustInsert(t, db, "h1", docs, map[string]any{"tenant": "a"})
	mustInsert(t, db, "h2", []*document.Document{{ID: "x", Name: "other", ContentID: "c2", Content: "other content"}}, map[string]any{"tenant": "b"})

	check := func(name string, got bool, err error, want bool) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	ok, err := db.DeleteByID(ctx, vectordb.RecordID(docs[0], "h1"))
	check("DeleteByID", ok, err, true)
	exists(t, "NameExists(go) after DeleteByID", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "go") }, false)
	ok, err = db.DeleteByName(ctx, "pg")
	check("DeleteByName", ok, err, true)
	exists(t, "NameExists(pg) after DeleteByName", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "pg") }, false)
	ok, err = db.DeleteByMetadata(ctx, map[string]any{"tenant": "b"})
	check("DeleteByMetadata", ok, err, true)
	exists(t, "NameExists(other) after DeleteByMetadata", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "other") }, false)
	exists(t, "NameExists(fruit) kept", func(ctx context.Context) (bool, error) { return db.NameExists(ctx, "fruit") }, true)
	ok, err = db.DeleteByContentID(ctx, "c1")
	check("DeleteByContentID", ok, err, true)
	exists(t, "ContentHashExists(h1) after deleting every record", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h1") }, false)
	ok, err = db.DeleteByContentID(ctx, "c1")
	check("DeleteByContentID again", ok, err, false)

	mustInsert(t, db, "h3", corpus(), nil)
	ok, err = db.Delete(ctx)
	check("Delete", ok, err, true)
	exists(t, "ContentHashExists(h3) after Delete", func(ctx context.Context) (bool, error) { return db.ContentHashExists(ctx, "h3") }, false)
	exists(t, "Exists after Delete", db.Exists, true)
}

func testUpdateMetadata(t *testing.T, db vectordb.DB) {
	mustInsert(t, db, "h1", corpus(), map[string]any{"server_id": "10"})
	mustInsert(t, db, "h2", []*document.Document{{ID: "x", Name: "other", ContentID: "c2", Content: "Postgres other"}}, map[string]any{"server_id": "10"})
	if err := db.UpdateMetadata(t.Context(), "c1", map[string]any{"server_id": "11", "extra": true}); err != nil {
		t.Fatalf("UpdateMetadata: %v", err)
	}
	typ := db.SupportedSearchTypes()[0]
	// The query shares a word with every document, so keyword-only stores
	// find them all too.
	const everything = "postgres goroutines bananas"
	got := names(search(t, db, vectordb.Query{Text: everything, Limit: 10, Type: typ, Filters: filter.Dict(map[string]any{"server_id": "11", "extra": true})}))
	slices.Sort(got)
	if !slices.Equal(got, []string{"fruit", "go", "pg"}) {
		t.Errorf("records of c1 after UpdateMetadata: %v, want [fruit go pg]", got)
	}
	got = names(search(t, db, vectordb.Query{Text: everything, Limit: 10, Type: typ, Filters: filter.Dict(map[string]any{"server_id": "10"})}))
	if !slices.Equal(got, []string{"other"}) {
		t.Errorf("records still at server_id 10: %v, want [other] (c2 untouched)", got)
	}
}
