package knowledge

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
)

// The labelled retrieval set: five of the project's own documents and
// questions a user would ask about them, each labelled with the document,
// the section that answers it and the sentence there that does (and, for
// the few questions answered in two places, the other place). A search
// finds a question's answer when one of its results is a chunk of that
// document holding that text.
const retrievalDir = "testdata/retrieval"

type labelled struct {
	Q       string `json:"q"`
	Doc     string `json:"doc"`
	Section string `json:"section"`
	Answer  string `json:"answer"`
	Also    []struct {
		Doc  string `json:"doc"`
		Text string `json:"text"`
	} `json:"also"`
}

func loadQuestions(t *testing.T) []labelled {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(retrievalDir, "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []labelled
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	return qs
}

var spaces = regexp.MustCompile(`\s+`)

func squash(s string) string { return spaces.ReplaceAllString(strings.TrimSpace(s), " ") }

// sections maps each heading of a markdown file (outside code fences) to
// its text, up to the next heading of the same or a higher level.
func sections(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type open struct {
		title string
		level int
		text  strings.Builder
	}
	var stack []*open
	out := map[string]string{}
	closeTo := func(level int) {
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			top := stack[len(stack)-1]
			out[top.title] = top.text.String()
			stack = stack[:len(stack)-1]
		}
	}
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	heading := regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*$`)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if m := heading.FindStringSubmatch(line); m != nil && !fence {
			closeTo(len(m[1]))
			stack = append(stack, &open{title: m[2], level: len(m[1])})
		}
		for _, s := range stack {
			s.text.WriteString(line + "\n")
		}
	}
	closeTo(1)
	return out
}

// The labels are right: each answer is in the section named, each
// alternative in its document.
func TestRetrievalSetLabels(t *testing.T) {
	qs := loadQuestions(t)
	if len(qs) < 30 {
		t.Fatalf("%d questions; the set needs at least 30", len(qs))
	}
	secs := map[string]map[string]string{}
	for _, q := range qs {
		if secs[q.Doc] == nil {
			secs[q.Doc] = sections(t, filepath.Join(retrievalDir, "docs", q.Doc))
		}
		text, ok := secs[q.Doc][q.Section]
		if !ok {
			t.Errorf("%q: %s has no section %q", q.Q, q.Doc, q.Section)
			continue
		}
		if !strings.Contains(squash(text), squash(q.Answer)) {
			t.Errorf("%q: section %q of %s does not hold %q", q.Q, q.Section, q.Doc, q.Answer)
		}
		for _, a := range q.Also {
			b, err := os.ReadFile(filepath.Join(retrievalDir, "docs", a.Doc))
			if err != nil || !strings.Contains(squash(string(b)), squash(a.Text)) {
				t.Errorf("%q: %s does not hold %q (%v)", q.Q, a.Doc, a.Text, err)
			}
		}
	}
}

// answeredBy reports whether a search result holds the question's answer.
func (q labelled) answeredBy(d *document.Document) bool {
	text := squash(d.Content)
	if d.Name == q.Doc && strings.Contains(text, squash(q.Answer)) {
		return true
	}
	for _, a := range q.Also {
		if d.Name == a.Doc && strings.Contains(text, squash(a.Text)) {
			return true
		}
	}
	return false
}

// retrievalKnowledge ingests the documents into the embedded store with
// the built-in lexical embedder, chunked by markdown headings.
func retrievalKnowledge(t *testing.T, c chunk.Chunker) (*Knowledge, int) {
	t.Helper()
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sqlitevec.Open(t.Context(), sqlitevec.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Embedder: e, SearchType: vectordb.SearchHybrid, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.Close() })
	md, err := reader.NewMarkdown(reader.Options{Chunker: c})
	if err != nil {
		t.Fatal(err)
	}
	k, err := New(t.Context(), Config{Name: "docs", VectorDB: vs, Readers: map[string]reader.Reader{reader.KeyMarkdown: md}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := k.Insert(t.Context(), Input{Path: filepath.Join(retrievalDir, "docs")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 5 {
		t.Fatalf("ingested %d documents, want 5", len(cs))
	}
	// Vector search returns every chunk (each has an embedding).
	all, err := k.Search(t.Context(), "chunks", SearchOptions{MaxResults: 100_000, SearchType: vectordb.SearchVector})
	if err != nil {
		t.Fatal(err)
	}
	return k, len(all)
}

func recallAt5(t *testing.T, k *Knowledge, qs []labelled, typ vectordb.SearchType) (float64, []string) {
	t.Helper()
	hits := 0
	var misses []string
	for _, q := range qs {
		docs, err := k.Search(t.Context(), q.Q, SearchOptions{MaxResults: 5, SearchType: typ})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range docs {
			if q.answeredBy(d) {
				found = true
				break
			}
		}
		if found {
			hits++
		} else {
			misses = append(misses, q.Q)
		}
	}
	return float64(hits) / float64(len(qs)), misses
}

// Recall@5 of each search type on the embedded store with the built-in
// lexical embedder (go test -run TestRetrievalRecall -v ./knowledge/
// prints the figures). Documents are chunked by markdown heading into
// sections of at most 1,000 characters; the figures for the markdown
// reader's default (sections packed into 5,000 characters) are logged
// too. Hybrid search must find at least 90 % of the answers.
func TestRetrievalRecall(t *testing.T) {
	qs := loadQuestions(t)
	for _, c := range []struct {
		name   string
		cfg    chunk.MarkdownConfig
		assert bool
	}{
		{"markdown headings, 1000 characters", chunk.MarkdownConfig{Config: chunk.Config{Size: 1000}, SplitOnHeadings: 6}, true},
		{"markdown reader default, 5000 characters", chunk.MarkdownConfig{}, false},
	} {
		chunker, err := chunk.NewMarkdown(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		k, n := retrievalKnowledge(t, chunker)
		for _, typ := range []vectordb.SearchType{vectordb.SearchKeyword, vectordb.SearchVector, vectordb.SearchHybrid} {
			recall, misses := recallAt5(t, k, qs, typ)
			t.Logf("%s (%d chunks), %s search: recall@5 = %.3f (%d of %d)", c.name, n, typ, recall, len(qs)-len(misses), len(qs))
			for _, m := range misses {
				t.Logf("    missed: %s", m)
			}
			if c.assert && typ == vectordb.SearchHybrid && recall < 0.9 {
				t.Errorf("hybrid recall@5 = %.3f, want at least 0.9", recall)
			}
		}
	}
}
