package chunk

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/knowledge/document"
)

type want struct {
	id, content string
	meta        map[string]any
}

func run(t *testing.T, c Chunker, doc *document.Document) []*document.Document {
	t.Helper()
	out, err := c.Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func check(t *testing.T, got []*document.Document, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var contents []string
		for _, d := range got {
			contents = append(contents, d.Content)
		}
		t.Fatalf("got %d chunks %q, want %d", len(got), contents, len(wants))
	}
	for i, w := range wants {
		if got[i].ID != w.id || got[i].Content != w.content {
			t.Errorf("chunk %d = %s %q, want %s %q", i, got[i].ID, got[i].Content, w.id, w.content)
		}
		if w.meta != nil {
			if diff := cmp.Diff(w.meta, got[i].MetaData); diff != "" {
				t.Errorf("chunk %d metadata (-want +got):\n%s", i, diff)
			}
		}
	}
}

const fox = "The quick brown fox jumps over the lazy dog"

// The three golden cases of shared/spec/v2.6.13-changes.md §C3.
func TestFixedSizeGolden(t *testing.T) {
	doc := func() *document.Document {
		return &document.Document{Name: "doc", Content: fox, MetaData: map[string]any{"a": 1}}
	}
	c, _ := NewFixedSize(Config{Size: 10})
	check(t, run(t, c, doc()), []want{
		{"doc_1", "The quick", map[string]any{"a": 1, "chunk": 1, "chunk_size": 9}},
		{"doc_2", " brown fox", map[string]any{"a": 1, "chunk": 2, "chunk_size": 10}},
		{"doc_3", " jumps", map[string]any{"a": 1, "chunk": 3, "chunk_size": 6}},
		{"doc_4", " over the", map[string]any{"a": 1, "chunk": 4, "chunk_size": 9}},
		{"doc_5", " lazy dog", map[string]any{"a": 1, "chunk": 5, "chunk_size": 9}},
	})

	c, _ = NewFixedSize(Config{Size: 15, Overlap: 5})
	check(t, run(t, c, doc()), []want{
		{"doc_1", "The quick brown", nil},
		{"doc_2", "brown fox jumps", nil},
		{"doc_3", "jumps over the", nil},
		{"doc_4", "r the lazy dog", nil},
	})

	c, _ = NewFixedSize(Config{Size: 100})
	check(t, run(t, c, &document.Document{Content: "a\n\n\nb   c\t\td"}), []want{
		{"chunk_713f592bd537_1", "a b c d", map[string]any{"chunk": 1, "chunk_size": 7}},
	})
}

func TestFixedSizeEdges(t *testing.T) {
	// A word longer than the chunk is cut hard.
	c, _ := NewFixedSize(Config{Size: 4})
	check(t, run(t, c, &document.Document{ID: "x", Content: "abcdefghij"}), []want{
		{"x_1", "abcd", nil}, {"x_2", "efgh", nil}, {"x_3", "ij", nil},
	})
	// Sizes count code points, not bytes: "é" is one.
	c, _ = NewFixedSize(Config{Size: 5})
	check(t, run(t, c, &document.Document{ID: "u", Content: "héllo wörld"}), []want{
		{"u_1", "héllo", map[string]any{"chunk": 1, "chunk_size": 5}},
		{"u_2", " wörl", nil}, {"u_3", "d", nil},
	})
	if got := run(t, c, &document.Document{Content: ""}); len(got) != 0 {
		t.Errorf("empty document gave %d chunks", len(got))
	}
	// The input document is left alone.
	doc := &document.Document{Name: "n", Content: fox, MetaData: map[string]any{"a": 1}}
	run(t, c, doc)
	if len(doc.MetaData) != 1 {
		t.Errorf("chunking changed the input metadata: %v", doc.MetaData)
	}
	for _, cfg := range []Config{{Size: -1}, {Size: 10, Overlap: 10}, {Size: 10, Overlap: -1}} {
		if _, err := NewFixedSize(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewFixedSize(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

func TestRecursive(t *testing.T) {
	c, _ := NewRecursive(Config{Size: 20})
	// Fits: the document comes back as it is, without chunk metadata.
	check(t, run(t, c, &document.Document{ID: "d", Content: "short", MetaData: map[string]any{"k": "v"}}), []want{
		{"d", "short", map[string]any{"k": "v"}},
	})
	// Cuts after the last newline, else after the last ".", else at the
	// limit; every chunk is cleaned.
	text := "Line one here\nLine two. More words go past the limit"
	check(t, run(t, c, &document.Document{ID: "d", Content: text}), []want{
		{"d_1", "Line one here ", map[string]any{"chunk": 1, "chunk_size": 14}},
		{"d_2", "Line two.", nil},
		{"d_3", " More words go past ", nil},
		{"d_4", "the limit", nil},
	})
}

func TestParagraph(t *testing.T) {
	c, _ := NewParagraph(Config{Size: 30})
	text := "First paragraph here.\n\nSecond one.\n\nA third paragraph that is long. It has two sentences!"
	check(t, run(t, c, &document.Document{Name: "p", Content: text}), []want{
		{"p_1", "First paragraph here.", map[string]any{"chunk": 1, "chunk_size": 21}},
		{"p_2", "Second one.", nil},
		{"p_3", "A third paragraph that is long.", nil},
		{"p_4", "It has two sentences!", nil},
	})
	// With overlap every chunk after the first starts with the previous
	// chunk's last characters.
	c, _ = NewParagraph(Config{Size: 30, Overlap: 4})
	got := run(t, c, &document.Document{Name: "p", Content: text})
	if got[1].Content != "ere.Second one." || got[1].MetaData["chunk_size"] != 15 || got[1].ID != "p_2" {
		t.Errorf("overlapped chunk 2 = %s %q %v", got[1].ID, got[1].Content, got[1].MetaData)
	}
}

func TestMarkdownSplitOnHeadings(t *testing.T) {
	text := "# Title\nIntro text.\n## Part A\nAlpha body.\n### Deep\nDeep body.\n## Part B\nBeta body."
	c, _ := NewMarkdown(MarkdownConfig{Config: Config{Size: 1000}, SplitOnHeadings: 2})
	// Level 2 keeps the H3 inside Part A. The triple newline after a
	// heading is agno's own (heading + "\n\n" + "\nbody").
	check(t, run(t, c, &document.Document{Name: "m", Content: text}), []want{
		{"m_1", "# Title\n\n\nIntro text.", map[string]any{"chunk": 1, "chunk_size": 21}},
		{"m_2", "## Part A\n\n\nAlpha body.\n### Deep\nDeep body.", nil},
		{"m_3", "## Part B\n\n\nBeta body.", nil},
	})
	c, _ = NewMarkdown(MarkdownConfig{Config: Config{Size: 1000}, SplitOnHeadings: 6})
	if got := run(t, c, &document.Document{Name: "m", Content: text}); len(got) != 4 {
		t.Errorf("splitting on all headings gave %d chunks, want 4", len(got))
	}
	// A section longer than the size is split by paragraph and repeats
	// its heading.
	long := "## Big\n\n" + strings.Repeat("word ", 6) + "\n\n" + strings.Repeat("more ", 6)
	c, _ = NewMarkdown(MarkdownConfig{Config: Config{Size: 40}, SplitOnHeadings: 6})
	check(t, run(t, c, &document.Document{Name: "m", Content: long}), []want{
		{"m_1", "## Big\n\nword word word word word word", nil},
		{"m_2", "## Big\n\nmore more more more more more", nil},
	})
	if _, err := NewMarkdown(MarkdownConfig{SplitOnHeadings: 7}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("split_on_headings 7: %v, want ErrInvalidConfig", err)
	}
}

func TestMarkdownBySize(t *testing.T) {
	c, _ := NewMarkdown(MarkdownConfig{Config: Config{Size: 30}})
	text := "# One\nshort\n# Two\nalso short\n# Three\nthird section text"
	check(t, run(t, c, &document.Document{Name: "m", Content: text}), []want{
		{"m_1", "# One\n\n\nshort", nil},
		{"m_2", "# Two\n\n\nalso short", nil},
		{"m_3", "# Three\n\n\nthird section text", nil},
	})
	c, _ = NewMarkdown(MarkdownConfig{Config: Config{Size: 40}})
	got := run(t, c, &document.Document{Name: "m", Content: text})
	if len(got) != 2 || got[0].Content != "# One\n\n\nshort\n\n# Two\n\n\nalso short" {
		t.Errorf("packing sections into 40: %d chunks, first %q", len(got), got[0].Content)
	}
}

func TestRow(t *testing.T) {
	doc := &document.Document{ID: "csv", Name: "data", Content: "name, age\nada,  36\n\n  bob , 41\n", MetaData: map[string]any{"k": 1}}
	check(t, run(t, NewRow(RowConfig{}), doc), []want{
		{"csv_1", "name, age", map[string]any{"k": 1, "row_number": 1}},
		{"csv_2", "ada, 36", map[string]any{"k": 1, "row_number": 2}},
		{"csv_4", "bob , 41", map[string]any{"k": 1, "row_number": 4}},
	})
	check(t, run(t, NewRow(RowConfig{SkipHeader: true, KeepWhitespace: true}), doc), []want{
		{"csv_2", "ada,  36", map[string]any{"k": 1, "row_number": 2}},
		{"csv_4", "bob , 41", nil},
	})
}

func TestNewByName(t *testing.T) {
	for _, name := range []string{TypeFixedSize, TypeRecursive, TypeDocument, TypeMarkdown, TypeRow} {
		c, err := New(name, Config{})
		if err != nil || c.Type() != name {
			t.Errorf("New(%q) = %v, %v", name, c, err)
		}
	}
	if _, err := New("SemanticChunker", Config{}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New(SemanticChunker) = %v, want ErrInvalidConfig", err)
	}
}
