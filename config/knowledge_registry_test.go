package config_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// readmeLines returns the lines of config/README.md from the one starting
// with first up to the one starting with last, both included.
func readmeLines(t *testing.T, first, last string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for line := range strings.Lines(string(b)) {
		in = in || strings.HasPrefix(line, first)
		if in {
			out = append(out, line)
			if strings.HasPrefix(line, last) {
				return strings.Join(out, "")
			}
		}
	}
	t.Fatalf("README.md has no lines %q ... %q", first, last)
	return ""
}

func distinct(matches []string) []string {
	slices.Sort(matches)
	return slices.Compact(matches)
}

// The README's knowledge sample names only registered embedder
// providers (the generated embedder table lists them all), and every
// chunking strategy this build registers and no other.
func TestREADMEKnowledgeRegistries(t *testing.T) {
	emb := readmeLines(t, "[knowledge.docs.embedder]", "provider =")
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(emb, -1) {
		if !slices.Contains(embedder.Names(), m[1]) {
			t.Errorf("README.md's [knowledge.docs.embedder] names provider %q; registered: %v", m[1], embedder.Names())
		}
	}
	strategies := readmeLines(t, "strategy =", "strategy =")
	if got, want := distinct(regexp.MustCompile(`\w+Chunker`).FindAllString(strategies, -1)), chunk.Names(); !slices.Equal(got, want) {
		t.Errorf("README.md's chunking strategy line names %v; registered: %v", got, want)
	}
}

// Every [storage] driver keeps knowledge in a registered vector store;
// the README names no stores, so the list is checked here.
func TestKnowledgeVectorStoresRegistered(t *testing.T) {
	if got, want := vectordb.Names(), []string{"memory", "pgvector", "sqlitevec"}; !slices.Equal(got, want) {
		t.Errorf("vector stores %v, want %v", got, want)
	}
}
