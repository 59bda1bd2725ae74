package memory

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/vectordbtest"
)

func TestConformance(t *testing.T) {
	for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchHybrid} {
		t.Run(string(typ), func(t *testing.T) {
			vectordbtest.Run(t, func(t *testing.T, e embedder.Embedder) vectordb.DB {
				s, err := New(Config{Embedder: e, SearchType: typ})
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
	t.Run("keyword only", func(t *testing.T) {
		vectordbtest.Run(t, func(t *testing.T, _ embedder.Embedder) vectordb.DB {
			s, err := New(Config{SearchType: vectordb.SearchKeyword})
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}

// fixed embeds every text to a vector chosen by the test, so scores are
// known exactly.
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

func newFixed(t *testing.T, cfg Config) *Store {
	t.Helper()
	cfg.Embedder = fixed{
		"q":    {1, 0},
		"same": {1, 0},
		"45":   {1, 1},
		"orth": {0, 1},
		"opp":  {-1, 0},
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	docs := []*document.Document{{Name: "same", Content: "same"}, {Name: "45", Content: "45"}, {Name: "orth", Content: "orth"}, {Name: "opp", Content: "opp"}}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// Cosine scores follow agno's normalize_cosine: 1 - distance, clamped.
func TestCosineScoresAndThreshold(t *testing.T) {
	s := newFixed(t, Config{})
	got, err := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		score float64
	}{{"same", 1}, {"45", math.Sqrt2 / 2}, {"orth", 0}, {"opp", 0}}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		score := got[i].MetaData[vectordb.ScoreKey].(float64)
		if got[i].Name != w.name || math.Abs(score-w.score) > 1e-6 {
			t.Errorf("result %d = %s %.6f, want %s %.6f", i, got[i].Name, score, w.name, w.score)
		}
	}

	threshold := 0.5
	s = newFixed(t, Config{SimilarityThreshold: &threshold})
	got, _ = s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 10})
	if len(got) != 2 || got[0].Name != "same" || got[1].Name != "45" {
		t.Errorf("threshold 0.5 kept %v, want [same 45]", got)
	}
}

func TestL2AndInnerProductScores(t *testing.T) {
	s := newFixed(t, Config{Distance: vectordb.L2})
	got, _ := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 10})
	// l2 distance from (1,0): same 0, 45 1, orth sqrt2, opp 2.
	if score := got[3].MetaData[vectordb.ScoreKey].(float64); got[3].Name != "opp" || math.Abs(score-1.0/3) > 1e-9 {
		t.Errorf("last l2 result %s %v, want opp 1/3", got[3].Name, score)
	}
	s = newFixed(t, Config{Distance: vectordb.MaxInnerProduct})
	got, _ = s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 10})
	// inner products with (1,0): same 1, 45 1, orth 0, opp -1 → (ip+1)/2.
	if score := got[2].MetaData[vectordb.ScoreKey].(float64); got[2].Name != "orth" || score != 0.5 {
		t.Errorf("third inner-product result %s %v, want orth 0.5", got[2].Name, score)
	}
}

func TestConfigErrors(t *testing.T) {
	bad := 1.5
	for name, cfg := range map[string]Config{
		"threshold above 1":       {SimilarityThreshold: &bad, SearchType: vectordb.SearchKeyword},
		"vector without embedder": {},
		"unknown distance":        {SearchType: vectordb.SearchKeyword, Distance: "manhattan"},
		"unknown search type":     {SearchType: "fuzzy"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	s, err := New(Config{SearchType: vectordb.SearchKeyword})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(t.Context(), "h", []*document.Document{{Content: "x"}}, nil); !errors.Is(err, vectordb.ErrNotExist) {
		t.Errorf("Insert before Create: %v, want ErrNotExist", err)
	}
	_ = s.Create(t.Context())
	if _, err := s.Search(t.Context(), vectordb.Query{Text: "x", Type: vectordb.SearchVector}); !errors.Is(err, vectordb.ErrUnsupportedSearch) {
		t.Errorf("vector search without embedder: %v, want ErrUnsupportedSearch", err)
	}
}

// Results are copies: changing one does not change the store.
func TestResultsAreCopies(t *testing.T) {
	s := newFixed(t, Config{})
	got, _ := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 1})
	got[0].MetaData["x"] = 1
	got[0].Embedding[0] = 42
	again, _ := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 1})
	if _, ok := again[0].MetaData["x"]; ok || again[0].Embedding[0] != 1 {
		t.Errorf("store changed through a result: %v %v", again[0].MetaData, again[0].Embedding)
	}
}

// Hybrid ranks by reciprocal rank fusion of the vector and keyword
// rankings; a document first in both scores 1.
func TestHybridFusion(t *testing.T) {
	e := fixed{
		"alpha beta": {1, 0}, // query
		"alpha":      {1, 0}, // best vector match, also a keyword match
		"beta gamma": {0, 1}, // keyword match only (orthogonal vector)
		"delta":      {1, 1}, // vector match only
	}
	s, _ := New(Config{Embedder: e, SearchType: vectordb.SearchHybrid})
	_ = s.Create(t.Context())
	docs := []*document.Document{{Name: "alpha", Content: "alpha"}, {Name: "beta gamma", Content: "beta gamma"}, {Name: "delta", Content: "delta"}}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "alpha beta", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	// alpha: vector 1st, keyword 1st (the shorter document scores higher in BM25).
	// delta: vector 2nd. beta gamma: keyword 2nd, and no vector similarity.
	names := []string{}
	for _, d := range got {
		names = append(names, d.Name)
	}
	if len(got) != 3 || got[0].Name != "alpha" || got[0].MetaData[vectordb.ScoreKey].(float64) != 1 {
		t.Fatalf("hybrid ranking %v (top score %v)", names, got[0].MetaData[vectordb.ScoreKey])
	}
	second := got[1].MetaData[vectordb.ScoreKey].(float64)
	if want := (1.0 / 62) / (2.0 / 61); math.Abs(second-want) > 1e-12 {
		t.Errorf("second-place score %v, want %v (one ranking, rank 2)", second, want)
	}
}
