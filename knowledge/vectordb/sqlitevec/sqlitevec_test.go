package sqlitevec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/knowledge/vectordb/vectordbtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// open returns a store on a new file in the test's directory, closed at
// the end of the test.
func open(t testing.TB, cfg Config) *Store {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Path == "" {
		cfg.Path = filepath.Join(t.TempDir(), "agno.db")
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
	for _, typ := range []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchHybrid} {
		for _, dist := range []vectordb.Distance{vectordb.Cosine, vectordb.L2, vectordb.MaxInnerProduct} {
			t.Run(string(typ)+"/"+string(dist), func(t *testing.T) {
				vectordbtest.Run(t, func(t *testing.T, e embedder.Embedder) vectordb.DB {
					return open(t, Config{Embedder: e, SearchType: typ, Distance: dist})
				})
			})
		}
	}
	t.Run("keyword only", func(t *testing.T) {
		vectordbtest.Run(t, func(t *testing.T, _ embedder.Embedder) vectordb.DB {
			return open(t, Config{SearchType: vectordb.SearchKeyword})
		})
	})
	t.Run("in memory", func(t *testing.T) {
		vectordbtest.Run(t, func(t *testing.T, e embedder.Embedder) vectordb.DB {
			return open(t, Config{Path: ":memory:", Embedder: e, SearchType: vectordb.SearchHybrid})
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
	cfg.Embedder = fixed{"q": {1, 0}, "same": {1, 0}, "45": {1, 1}, "orth": {0, 1}, "opp": {-1, 0}, "zero": {0, 0}}
	s := open(t, cfg)
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	docs := []*document.Document{{Name: "same", Content: "same"}, {Name: "45", Content: "45"}, {Name: "orth", Content: "orth"}, {Name: "opp", Content: "opp"}}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

type scored struct {
	name  string
	score float64
}

func checkScores(t *testing.T, got []*document.Document, want []scored) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results %v, want %d", len(got), names(got), len(want))
	}
	for i, w := range want {
		score, _ := got[i].MetaData[vectordb.ScoreKey].(float64)
		if got[i].Name != w.name || math.Abs(score-w.score) > 1e-6 {
			t.Errorf("result %d = %s %.7f, want %s %.7f", i, got[i].Name, score, w.name, w.score)
		}
	}
}

func names(docs []*document.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Name
	}
	return out
}

// Scores are agno's normalisations of sqlite-vec's distances: the same
// golden values as the in-memory store's.
func TestScoresAndThreshold(t *testing.T) {
	search := func(s *Store, text string) []*document.Document {
		t.Helper()
		got, err := s.Search(t.Context(), vectordb.Query{Text: text, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	checkScores(t, search(newFixed(t, Config{}), "q"), []scored{{"same", 1}, {"45", math.Sqrt2 / 2}, {"orth", 0}, {"opp", 0}})
	// A zero query vector is orthogonal to everything.
	checkScores(t, search(newFixed(t, Config{}), "zero"), []scored{{"same", 0}, {"45", 0}, {"orth", 0}, {"opp", 0}})
	// l2 distances from (1,0): same 0, 45 1, orth √2, opp 2 → 1/(1+d).
	checkScores(t, search(newFixed(t, Config{Distance: vectordb.L2}), "q"), []scored{{"same", 1}, {"45", 0.5}, {"orth", 1 / (1 + math.Sqrt2)}, {"opp", 1.0 / 3}})
	// inner products with (1,0): same 1, 45 1, orth 0, opp -1 → (ip+1)/2;
	// ties keep insertion order.
	checkScores(t, search(newFixed(t, Config{Distance: vectordb.MaxInnerProduct}), "q"), []scored{{"same", 1}, {"45", 1}, {"orth", 0.5}, {"opp", 0}})

	threshold := 0.5
	checkScores(t, search(newFixed(t, Config{SimilarityThreshold: &threshold}), "q"), []scored{{"same", 1}, {"45", math.Sqrt2 / 2}})
	// The threshold applies after LIMIT without losing results: the best
	// two above it are the best two.
	s := newFixed(t, Config{SimilarityThreshold: &threshold, Distance: vectordb.L2})
	got, err := s.Search(t.Context(), vectordb.Query{Text: "q", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, got, []scored{{"same", 1}, {"45", 0.5}})
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
	s := open(t, Config{Embedder: e, SearchType: vectordb.SearchHybrid})
	if err := s.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	docs := []*document.Document{{Name: "alpha", Content: "alpha"}, {Name: "beta gamma", Content: "beta gamma"}, {Name: "delta", Content: "delta"}}
	if err := s.Insert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(t.Context(), vectordb.Query{Text: "alpha beta", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	// alpha: vector 1st, keyword 1st (BM25 favours the shorter document).
	// delta: vector 2nd. beta gamma: keyword 2nd, no vector similarity.
	second := (1.0 / 62) / (2.0 / 61)
	if len(got) != 3 || got[0].Name != "alpha" {
		t.Fatalf("hybrid ranking %v", names(got))
	}
	checkScores(t, got[:1], []scored{{"alpha", 1}})
	for _, d := range got[1:] {
		if score := d.MetaData[vectordb.ScoreKey].(float64); math.Abs(score-second) > 1e-12 {
			t.Errorf("%s scores %v, want %v (one ranking, rank 2)", d.Name, score, second)
		}
	}
}

// The store returns what the in-memory reference store returns for vector
// search: the same records in the same order with the same scores (to
// float32 precision: sqlite-vec computes in float32).
func TestVectorSearchMatchesMemoryStore(t *testing.T) {
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var docs []*document.Document
	for i := range 300 {
		docs = append(docs, &document.Document{ID: fmt.Sprint(i), Name: fmt.Sprint("doc", i), Content: randomText(r, 30)})
	}
	for _, dist := range []vectordb.Distance{vectordb.Cosine, vectordb.L2, vectordb.MaxInnerProduct} {
		t.Run(string(dist), func(t *testing.T) {
			ref, err := memory.New(memory.Config{Embedder: e, Distance: dist})
			if err != nil {
				t.Fatal(err)
			}
			s := open(t, Config{Embedder: e, Distance: dist})
			for _, db := range []vectordb.DB{ref, s} {
				if err := db.Create(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := db.Insert(t.Context(), "h", clone(docs), nil); err != nil {
					t.Fatal(err)
				}
			}
			for range 20 {
				q := vectordb.Query{Text: randomText(r, 5), Limit: 10}
				want, err := ref.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%q: %d results, memory store %d", q.Text, len(got), len(want))
				}
				for i := range want {
					gs, ws := got[i].MetaData[vectordb.ScoreKey].(float64), want[i].MetaData[vectordb.ScoreKey].(float64)
					if math.Abs(gs-ws) > 1e-5 {
						t.Errorf("%q result %d: score %v, memory store %v", q.Text, i, gs, ws)
					}
					// Near-equal scores may swap at float32 precision.
					if got[i].ID != want[i].ID && math.Abs(gs-ws) > 1e-6 {
						t.Errorf("%q result %d: %s, memory store %s", q.Text, i, got[i].Name, want[i].Name)
					}
				}
			}
		})
	}
}

var vocabulary = strings.Fields(`alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega
	river mountain forest desert ocean island valley canyon glacier meadow
	engine piston turbine rotor valve gasket bearing sprocket flywheel crank
	python golang rust haskell erlang kotlin swift scala elixir clojure`)

func randomText(r *rand.Rand, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

func clone(docs []*document.Document) []*document.Document {
	out := make([]*document.Document, len(docs))
	for i, d := range docs {
		out[i] = d.Clone()
	}
	return out
}
