package pgvector

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

// Every filter selects exactly the records filter.Match selects, whether
// its SQL is exact or filter.Match sorts the candidates; most filters are
// exact SQL.
func TestFiltersAgreeWithMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	const n = 150
	metas := make([]map[string]any, n)
	docs := make([]*document.Document, n)
	for i := range docs {
		metas[i] = randomMeta(r)
		docs[i] = &document.Document{ID: fmt.Sprint(i), Name: fmt.Sprint(i), Content: "common words", MetaData: metas[i]}
	}
	mustInsert(t, s, "h", docs...)
	del := open(t, Config{SearchType: vectordb.SearchKeyword, Schema: s.schema, Table: "agno_knowledge_deletes"})
	mustCreate(t, del)
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
		if c.Exact {
			exactCount++
		}
		got, err := s.Search(t.Context(), vectordb.Query{Text: "common", Limit: n, Filters: f})
		if err != nil {
			t.Fatalf("filters %s (sql %s): %v", f, c.SQL, err)
		}
		gotNames := names(got)
		slices.Sort(gotNames)
		slices.Sort(want)
		if !slices.Equal(gotNames, want) {
			t.Errorf("filters %s (sql %s, exact %v): got %v, want %v", f, c.SQL, c.Exact, gotNames, want)
		}
		if f.Dict != nil {
			// DeleteByMetadata selects as a dict filter does.
			checkDeleteByMetadata(t, del, f.Dict, metas)
		}
	}
	if exactCount < rounds/2 {
		t.Errorf("only %d of %d random filters ran as exact SQL", exactCount, rounds)
	}
	t.Logf("%d of %d random filters ran as exact SQL", exactCount, rounds)
}

func checkDeleteByMetadata(t *testing.T, s *Store, dict map[string]any, metas []map[string]any) {
	t.Helper()
	if _, err := s.Delete(t.Context()); err != nil {
		t.Fatal(err)
	}
	var docs []*document.Document
	var keep []string
	for i, m := range metas[:40] {
		docs = append(docs, &document.Document{ID: fmt.Sprint(i), Name: fmt.Sprint(i), Content: "common", MetaData: m})
		if !filter.Match(m, filter.Dict(dict)) {
			keep = append(keep, fmt.Sprint(i))
		}
	}
	mustInsert(t, s, "h", docs...)
	ok, err := s.DeleteByMetadata(t.Context(), dict)
	if err != nil {
		t.Fatalf("DeleteByMetadata(%v): %v", dict, err)
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "common", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	gotNames := names(got)
	slices.Sort(gotNames)
	slices.Sort(keep)
	if !slices.Equal(gotNames, keep) || ok != (len(keep) < 40) {
		t.Errorf("DeleteByMetadata(%v) = %v, left %v; want %v", dict, ok, gotNames, keep)
	}
}

// A filter SQL cannot express still leaves LIMIT counting matching
// records, over several pages of candidates.
func TestLimitCountsMatchingRecords(t *testing.T) {
	s := open(t, Config{SearchType: vectordb.SearchKeyword})
	mustCreate(t, s)
	var docs []*document.Document
	for i := range 500 {
		label := "plain"
		if i%100 == 99 {
			label = "Très Spécial"
		}
		// Equal ranks: the order is insertion order.
		docs = append(docs, &document.Document{ID: fmt.Sprint(i), Name: fmt.Sprint(i), Content: "common", MetaData: map[string]any{"label": label}})
	}
	mustInsert(t, s, "h", docs...)
	f := filter.List(filter.CONTAINS("label", "SPÉCIAL"))
	if compileFilters("c.meta_data", f).Exact {
		t.Fatal("test needs a filter left to filter.Match")
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "common", Limit: 3, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), []string{"99", "199", "299"}) {
		t.Errorf("got %v, want [99 199 299]", names(got))
	}
}
