package sqlitevec

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Benchmarks run on a synthetic corpus: chunks of 100 words drawn from a
// vocabulary of 5,000 made-up words by a Zipf law (s = 1.1), like word
// frequencies in text, embedded by the built-in lexical embedder (512
// dimensions). Each chunk carries {"tenant": one of 10, "n": its index}.
//
//	go test -run '^$' -bench . ./knowledge/vectordb/sqlitevec/
//	AGNO_BENCH_LARGE=1 go test -run '^$' -bench Search -timeout 1h ./knowledge/vectordb/sqlitevec/
//
// AGNO_BENCH_LARGE=1 adds the 100k-chunk store to BenchmarkSearch. The
// figures in BENCHMARKS.md come from go run ./bench/knowledge, which
// measures ingest to 10k and 100k chunks and search percentiles on the
// same kind of corpus.

const (
	benchWords     = 100
	benchBatch     = 100
	benchVocabSize = 5000
)

type corpusGen struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newCorpus(seed uint64) *corpusGen {
	r := rand.New(rand.NewPCG(seed, 42))
	vocab := make([]string, benchVocabSize)
	const letters = "abcdefghijklmnopqrstuvwxyz"
	for i := range vocab {
		n := 3 + r.IntN(7)
		b := make([]byte, n)
		for j := range b {
			b[j] = letters[r.IntN(len(letters))]
		}
		vocab[i] = string(b)
	}
	return &corpusGen{r: r, zipf: rand.NewZipf(r, 1.1, 1, benchVocabSize-1), vocab: vocab}
}

func (c *corpusGen) text(words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

func (c *corpusGen) chunks(start, n int) []*document.Document {
	docs := make([]*document.Document, n)
	for i := range docs {
		k := start + i
		docs[i] = &document.Document{
			ID: fmt.Sprint("chunk-", k), Name: fmt.Sprint("doc-", k/20), ContentID: fmt.Sprint("content-", k/20),
			Content:  c.text(benchWords),
			MetaData: map[string]any{"tenant": fmt.Sprint("t", k%10), "n": k},
		}
	}
	return docs
}

func benchStore(b *testing.B, path string, e embedder.Embedder) *Store {
	b.Helper()
	s := open(b, Config{Path: path, Embedder: e})
	mustCreate(b, s)
	return s
}

// BenchmarkIngest inserts batches of 100 chunks (one Insert per batch, as
// a Knowledge inserts one content's chunks), embedding them with the
// lexical embedder, or pre-embedded to show the store's own share.
func BenchmarkIngest(b *testing.B) {
	e := lexical(b, 0)
	for _, pre := range []bool{false, true} {
		name := "lexical"
		if pre {
			name = "preembedded"
		}
		b.Run(name, func(b *testing.B) {
			s := benchStore(b, filepath.Join(b.TempDir(), "agno.db"), e)
			gen := newCorpus(1)
			batches := make([][]*document.Document, 20)
			for i := range batches {
				batches[i] = gen.chunks(i*benchBatch, benchBatch)
				if pre {
					if err := vectordb.EmbedDocuments(b.Context(), e, batches[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				docs := clone(batches[i%len(batches)])
				if err := s.Insert(b.Context(), fmt.Sprint("hash-", i), docs, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkSearch measures search latency over stores of 10k chunks (and
// 100k with AGNO_BENCH_LARGE=1), limit 10, reporting p50 and p99 next to
// the mean.
func BenchmarkSearch(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv("AGNO_BENCH_LARGE") == "1" {
		sizes = append(sizes, 100_000)
	}
	e := lexical(b, 0)
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			s := benchStore(b, filepath.Join(b.TempDir(), "agno.db"), e)
			gen := newCorpus(2)
			start := time.Now()
			for i := 0; i < n; i += 500 {
				if err := s.Insert(b.Context(), fmt.Sprint("hash-", i), gen.chunks(i, min(500, n-i)), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("ingested %d chunks in %v", n, time.Since(start).Round(time.Millisecond))
			queries := make([]string, 100)
			for i := range queries {
				queries[i] = gen.text(4)
			}
			tenant := filter.Dict(map[string]any{"tenant": "t3"})
			for _, c := range []struct {
				name    string
				typ     vectordb.SearchType
				filters filter.Filters
			}{
				{"keyword", vectordb.SearchKeyword, filter.Filters{}},
				{"vector", vectordb.SearchVector, filter.Filters{}},
				{"hybrid", vectordb.SearchHybrid, filter.Filters{}},
				{"hybrid/filter=sql", vectordb.SearchHybrid, tenant},
				{"hybrid/filter=match", vectordb.SearchHybrid, filter.List(filter.STARTSWITH("tenant", "T3"))},
			} {
				b.Run(c.name, func(b *testing.B) {
					var lat []time.Duration
					for i := 0; b.Loop(); i++ {
						t0 := time.Now()
						got, err := s.Search(b.Context(), vectordb.Query{Text: queries[i%len(queries)], Limit: 10, Type: c.typ, Filters: c.filters})
						lat = append(lat, time.Since(t0))
						if err != nil {
							b.Fatal(err)
						}
						if len(got) == 0 {
							b.Fatalf("%s search for %q found nothing", c.name, queries[i%len(queries)])
						}
					}
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		})
	}
}
