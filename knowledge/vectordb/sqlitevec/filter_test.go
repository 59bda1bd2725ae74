package sqlitevec

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Metadata and filters drawn from small pools, so that filters often
// match: keys that are plain, dotted, nested and missing; values of every
// JSON type, numbers as ints, floats and json.Number, strings differing in
// case, accents and prefixes.
var (
	metaKeys   = []string{"a", "b", "n", "a.b", "tags"}
	filterKeys = []string{"a", "b", "n", "a.b", "tags", "missing", "n.x"}
	scalars    = []any{"x", "X", "xy", "Xyz", "é", "É", "", 0, 1, 2, -1, 1.0, 0.5, 2.5, 0.1, 1e20, true, false, nil,
		json.Number("0.10"), json.Number("2.0"), json.Number("123456789012345678901234567890")}
	// Numbers as filters decoded from API JSON hold them (json.Number).
	extra = []any{json.Number("1"), json.Number("1.0"), json.Number("0.5"), json.Number("0.1"), json.Number("1e+20"), json.Number("2.50"),
		json.Number("123456789012345678901234567890"), int64(2), uint8(1), float32(0.5), []any{"x"}, map[string]any{"b": 1}}
)

func randomMeta(r *rand.Rand) map[string]any {
	m := map[string]any{}
	for _, k := range metaKeys {
		if r.IntN(3) == 0 {
			continue
		}
		switch r.IntN(8) {
		case 0:
			m[k] = []any{scalars[r.IntN(len(scalars))], scalars[r.IntN(len(scalars))]}
		case 1:
			m[k] = map[string]any{"b": scalars[r.IntN(len(scalars))], "x": scalars[r.IntN(len(scalars))]}
		default:
			m[k] = scalars[r.IntN(len(scalars))]
		}
	}
	return m
}

func randomValue(r *rand.Rand) any {
	if r.IntN(5) == 0 {
		return extra[r.IntN(len(extra))]
	}
	return scalars[r.IntN(len(scalars))]
}

func randomExpr(r *rand.Rand, depth int) filter.Expr {
	k := filterKeys[r.IntN(len(filterKeys))]
	n := 11
	if depth > 0 {
		n = 14
	}
	switch r.IntN(n) {
	case 0:
		return filter.EQ(k, randomValue(r))
	case 1:
		return filter.NEQ(k, randomValue(r))
	case 2:
		return filter.GT(k, randomValue(r))
	case 3:
		return filter.GTE(k, randomValue(r))
	case 4:
		return filter.LT(k, randomValue(r))
	case 5:
		return filter.LTE(k, randomValue(r))
	case 6:
		s, _ := scalars[r.IntN(7)].(string)
		return filter.CONTAINS(k, s)
	case 7:
		s, _ := scalars[r.IntN(7)].(string)
		return filter.STARTSWITH(k, s)
	case 8, 9:
		values := make([]any, r.IntN(4))
		for i := range values {
			values[i] = randomValue(r)
		}
		return filter.IN(k, values...)
	case 10:
		return filter.EQ(k, scalars[r.IntN(len(scalars))])
	case 11:
		return filter.AND(randomExpr(r, depth-1), randomExpr(r, depth-1))
	case 12:
		return filter.OR(randomExpr(r, depth-1), randomExpr(r, depth-1))
	}
	return filter.NOT(randomExpr(r, depth-1))
}

func randomFilters(r *rand.Rand) filter.Filters {
	if r.IntN(4) == 0 {
		d := map[string]any{}
		for range 1 + r.IntN(2) {
			d[metaKeys[r.IntN(len(metaKeys))]] = randomValue(r)
		}
		return filter.Dict(d)
	}
	exprs := make([]filter.Expr, 1+r.IntN(2))
	for i := range exprs {
		exprs[i] = randomExpr(r, 2)
	}
	return filter.List(exprs...)
}

// Every filter selects, through SQL and the match function, exactly the
// records filter.Match selects; filters the translation calls exact run
// without calling back into Go, and most filters are.
func TestFiltersAgreeWithMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	const n = 150
	metas := make([]map[string]any, n)
	docs := make([]*document.Document, n)
	for i := range docs {
		metas[i] = randomMeta(r)
		docs[i] = &document.Document{ID: fmt.Sprint(i), Name: fmt.Sprint(i), Content: "common words", MetaData: metas[i]}
	}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	exactCount := 0
	const rounds = 600
	for range rounds {
		f := randomFilters(r)
		var want []string
		for i, m := range metas {
			if filter.Match(m, f) {
				want = append(want, fmt.Sprint(i))
			}
		}
		c := compileFilters("c.meta_data", f)
		before := matchCalls.Load()
		got, err := s.Search(t.Context(), vectordb.Query{Text: "common", Limit: n, Filters: f})
		if err != nil {
			t.Fatalf("filters %s: %v", f, err)
		}
		calls := matchCalls.Load() - before
		gotNames := names(got)
		slices.Sort(gotNames)
		slices.Sort(want)
		if !slices.Equal(gotNames, want) {
			t.Errorf("filters %s (sql %s, exact %v): got %v, want %v", f, c.SQL, c.Exact, gotNames, want)
		}
		if c.Exact {
			exactCount++
			if calls != 0 {
				t.Errorf("filters %s are exact SQL but called filter.Match %d times", f, calls)
			}
		}
	}
	if exactCount < rounds/2 {
		t.Errorf("only %d of %d random filters ran as exact SQL", exactCount, rounds)
	}
	t.Logf("%d of %d random filters ran as exact SQL", exactCount, rounds)
}

// A filter SQL cannot express still leaves LIMIT counting matching
// records: the best-ranked matches come back, as many as asked for.
func TestLimitCountsMatchingRecords(t *testing.T) {
	e := fixed{}
	var docs []*document.Document
	for i := range 200 {
		text := fmt.Sprint("doc ", i)
		// Similarity to the query falls with i.
		e[text] = []float32{1, float32(i) / 10}
		label := "plain"
		if i%50 == 49 {
			label = "Très Spécial" // every 50th document, ranked low
		}
		docs = append(docs, &document.Document{Name: fmt.Sprint(i), Content: text, MetaData: map[string]any{"label": label}})
	}
	e["q"] = []float32{1, 0}
	s := open(t, Config{Embedder: e})
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	// CONTAINS folds case the Unicode way, which SQLite's lower() does not.
	f := filter.List(filter.CONTAINS("label", "SPÉCIAL"))
	if compileFilters("c.meta_data", f).Exact {
		t.Fatal("test needs a filter left to filter.Match")
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 3, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), []string{"49", "99", "149"}) {
		t.Errorf("got %v, want [49 99 149]", names(got))
	}
}

func TestDeleteByMetadataLeftToMatch(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	docs := []*document.Document{
		{ID: "a", Name: "a", Content: "x", MetaData: map[string]any{"tags": []any{"red", "blue"}}},
		{ID: "b", Name: "b", Content: "x", MetaData: map[string]any{"tags": []any{"blue"}}},
		{ID: "c", Name: "c", Content: "x", MetaData: map[string]any{"tags": "red"}},
	}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	ok, err := s.DeleteByMetadata(t.Context(), map[string]any{"tags": []any{"red"}})
	if err != nil || !ok {
		t.Fatalf("DeleteByMetadata = %v, %v", ok, err)
	}
	got, _ := s.Search(t.Context(), vectordb.Query{Text: "x", Limit: 10})
	if !slices.Equal(names(got), []string{"b", "c"}) {
		t.Errorf("left %v, want [b c] (a list contains [red]; the string red is not a list)", names(got))
	}
}
