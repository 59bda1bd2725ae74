// Command knowledge measures the embedded knowledge store (sqlitevec in a
// SQLite file, the built-in lexical embedder): ingest throughput in
// chunks per second and search latency percentiles for keyword, vector
// and hybrid search, at each store size asked for. It prints a markdown
// table for BENCHMARKS.md.
//
//	go run ./bench/knowledge                       # 10k and 100k chunks
//	go run ./bench/knowledge -sizes 10000 -queries 100
//
// The corpus is synthetic: chunks of 100 words drawn by a Zipf law
// (s = 1.1) from 5,000 made-up words, as word frequencies in text go, in
// contents of 100 chunks, each chunk with {"tenant": one of 10, "n": i}.
// Queries are 4 words drawn the same way.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
)

const (
	wordsPerChunk    = 100
	chunksPerContent = 100
	vocabSize        = 5000
)

type corpus struct {
	zipf  *rand.Zipf
	vocab []string
}

// newCorpus draws words with seed from the one vocabulary.
func newCorpus(seed uint64) *corpus {
	v := rand.New(rand.NewPCG(0, 42))
	vocab := make([]string, vocabSize)
	const letters = "abcdefghijklmnopqrstuvwxyz"
	for i := range vocab {
		b := make([]byte, 3+v.IntN(7))
		for j := range b {
			b[j] = letters[v.IntN(len(letters))]
		}
		vocab[i] = string(b)
	}
	r := rand.New(rand.NewPCG(seed, 42))
	return &corpus{zipf: rand.NewZipf(r, 1.1, 1, vocabSize-1), vocab: vocab}
}

func (c *corpus) text(words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// content returns the chunks of content number n.
func (c *corpus) content(n int) []*document.Document {
	docs := make([]*document.Document, chunksPerContent)
	for i := range docs {
		k := n*chunksPerContent + i
		docs[i] = &document.Document{
			ID: "chunk-" + strconv.Itoa(k), Name: "doc-" + strconv.Itoa(n), ContentID: "content-" + strconv.Itoa(n),
			Content:  c.text(wordsPerChunk),
			MetaData: map[string]any{"tenant": "t" + strconv.Itoa(k%10), "n": k},
		}
	}
	return docs
}

func main() {
	sizes := flag.String("sizes", "10000,100000", "store sizes in chunks, comma-separated")
	queries := flag.Int("queries", 200, "queries per search type")
	limit := flag.Int("limit", 10, "results per query (agno's Knowledge max_results default)")
	dir := flag.String("dir", "", "directory for the database files (default: a temporary one)")
	flag.Parse()

	work := *dir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "agno-knowledge-bench-"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(work)
	}
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("go %s, %s/%s, %d CPUs, %s\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().Format("2006-01-02"))
	fmt.Printf("| chunks | ingest, embedding included (chunks/s) | ingest, pre-embedded (chunks/s) | file MB | search | p50 ms | p99 ms | mean ms |\n")
	fmt.Printf("|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < chunksPerContent {
			log.Fatalf("size %q: give a number of chunks of at least %d", f, chunksPerContent)
		}
		if err := measure(context.Background(), filepath.Join(work, f), e, n, *queries, *limit); err != nil {
			log.Fatal(err)
		}
	}
}

func open(ctx context.Context, path string, e embedder.Embedder) (*sqlitevec.Store, error) {
	s, err := sqlitevec.Open(ctx, sqlitevec.Config{Path: path, Embedder: e, SearchType: vectordb.SearchHybrid, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	return s, s.Create(ctx)
}

// ingest upserts n chunks, one content of 100 chunks per call, as a
// Knowledge stores a content's chunks; it returns chunks per second.
func ingest(ctx context.Context, s *sqlitevec.Store, c *corpus, n int, pre embedder.Embedder) (float64, error) {
	contents := n / chunksPerContent
	batches := make([][]*document.Document, contents)
	for i := range batches {
		batches[i] = c.content(i)
		if pre != nil {
			if err := vectordb.EmbedDocuments(ctx, pre, batches[i]); err != nil {
				return 0, err
			}
		}
	}
	start := time.Now()
	for i, docs := range batches {
		if err := s.Upsert(ctx, "hash-"+strconv.Itoa(i), docs, nil); err != nil {
			return 0, err
		}
	}
	return float64(contents*chunksPerContent) / time.Since(start).Seconds(), nil
}

func measure(ctx context.Context, dir string, e embedder.Embedder, n, queries, limit int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// Pre-embedded ingest into a store of its own: the store's share.
	pre, err := open(ctx, filepath.Join(dir, "pre.db"), e)
	if err != nil {
		return err
	}
	preRate, err := ingest(ctx, pre, newCorpus(1), n, e)
	pre.Close()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "agno.db")
	s, err := open(ctx, path, e)
	if err != nil {
		return err
	}
	defer s.Close()
	rate, err := ingest(ctx, s, newCorpus(1), n, nil)
	if err != nil {
		return err
	}
	size := fileMB(path) + fileMB(path+"-wal")

	qc := newCorpus(2)
	qs := make([]string, queries)
	for i := range qs {
		qs[i] = qc.text(4)
	}
	tenant := filter.Dict(map[string]any{"tenant": "t3"})
	first := true
	for _, c := range []struct {
		name    string
		typ     vectordb.SearchType
		filters filter.Filters
	}{
		{"keyword", vectordb.SearchKeyword, filter.Filters{}},
		{"vector", vectordb.SearchVector, filter.Filters{}},
		{"hybrid", vectordb.SearchHybrid, filter.Filters{}},
		{"hybrid, dict filter (1 in 10 chunks)", vectordb.SearchHybrid, tenant},
	} {
		for _, q := range qs[:min(10, len(qs))] { // warm the page cache and the mapping
			if _, err := s.Search(ctx, vectordb.Query{Text: q, Limit: limit, Type: c.typ, Filters: c.filters}); err != nil {
				return err
			}
		}
		lat := make([]time.Duration, 0, len(qs))
		for _, q := range qs {
			t0 := time.Now()
			got, err := s.Search(ctx, vectordb.Query{Text: q, Limit: limit, Type: c.typ, Filters: c.filters})
			lat = append(lat, time.Since(t0))
			if err != nil {
				return err
			}
			if len(got) == 0 {
				return fmt.Errorf("%s search for %q found nothing", c.name, q)
			}
		}
		slices.Sort(lat)
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
		if first {
			fmt.Printf("| %d | %.0f | %.0f | %.0f | %s | %s | %s | %s |\n", n, rate, preRate, size, c.name, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(sum/time.Duration(len(lat))))
			first = false
		} else {
			fmt.Printf("| | | | | %s | %s | %s | %s |\n", c.name, ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]), ms(sum/time.Duration(len(lat))))
		}
	}
	return nil
}

func fileMB(path string) float64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(fi.Size()) / (1 << 20)
}
