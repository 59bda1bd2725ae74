package vectordb

import (
	"context"
	"math"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
)

// Golden values computed with Python's hashlib and uuid.
func TestRecordIDAndDefaultID(t *testing.T) {
	if got := RecordID(&document.Document{ID: "d1", Content: "x"}, "h1"); got != "f1617d0c4faecf048de06c1cadfcaa69" {
		t.Errorf("RecordID with doc id = %s", got)
	}
	// Without a doc id, md5 of the content (NUL replaced by U+FFFD) stands in.
	if got := RecordID(&document.Document{Content: "a\x00b"}, "h1"); got != "92012249e0dd6877f8674b993aa4c7e3" {
		t.Errorf("RecordID without doc id = %s", got)
	}
	if got := DefaultID("PgVector"); got != "9c2d8e7d-4b90-5b53-8b02-153a423369c4" {
		t.Errorf("DefaultID(PgVector) = %s", got)
	}
}

func TestNormalizeScore(t *testing.T) {
	cases := []struct {
		d      float64
		metric Distance
		want   float64
	}{
		{0, Cosine, 1}, {0.25, Cosine, 0.75}, {1.5, Cosine, 0}, {-0.5, Cosine, 1},
		{0, L2, 1}, {1, L2, 0.5}, {3, L2, 0.25}, {math.Inf(1), L2, 0},
		{1, MaxInnerProduct, 1}, {0, MaxInnerProduct, 0.5}, {-1, MaxInnerProduct, 0}, {3, MaxInnerProduct, 1},
		{math.Inf(1), MaxInnerProduct, 1}, {math.NaN(), Cosine, 0},
	}
	for _, c := range cases {
		if got := NormalizeScore(c.d, c.metric); got != c.want {
			t.Errorf("NormalizeScore(%v, %s) = %v, want %v", c.d, c.metric, got, c.want)
		}
	}
}

func TestFuseRRF(t *testing.T) {
	got := FuseRRF(60, []string{"a", "b", "c"}, []string{"c", "a", "d"})
	// a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; d: 1/63 — over 2/61.
	want := []Fused{
		{"a", (1.0/61 + 1.0/62) / (2.0 / 61)},
		{"c", (1.0/63 + 1.0/61) / (2.0 / 61)},
		{"b", (1.0 / 62) / (2.0 / 61)},
		{"d", (1.0 / 63) / (2.0 / 61)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Errorf("rank %d = %v, want %v", i, got[i], want[i])
		}
	}
	if top := FuseRRF(0, []string{"x"}, []string{"x"}); top[0].Score != 1 {
		t.Errorf("first in every ranking scores %v, want 1", top[0].Score)
	}
}

type countingEmbedder struct{ calls, texts int }

func (c *countingEmbedder) Dimensions() int { return 1 }

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	c.calls++
	c.texts += len(texts)
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = []float32{float32(len(texts[i]))}
	}
	return out, embedder.Usage{PromptTokens: 30, TotalTokens: 30}, nil
}

func TestEmbedDocuments(t *testing.T) {
	e := &countingEmbedder{}
	docs := []*document.Document{{Content: "aa"}, {Content: "bbbb", Embedding: []float32{9}}, {Content: "c"}}
	if err := EmbedDocuments(t.Context(), e, docs); err != nil {
		t.Fatal(err)
	}
	// One call for the two documents without embeddings; usage shared by length.
	if e.calls != 1 || e.texts != 2 || docs[0].Embedding[0] != 2 || docs[1].Embedding[0] != 9 || docs[2].Embedding[0] != 1 {
		t.Errorf("calls %d texts %d embeddings %v %v %v", e.calls, e.texts, docs[0].Embedding, docs[1].Embedding, docs[2].Embedding)
	}
	if docs[0].Usage.PromptTokens != 20 || docs[2].Usage.PromptTokens != 10 || docs[1].Usage != nil {
		t.Errorf("usage split %+v %+v %+v", docs[0].Usage, docs[1].Usage, docs[2].Usage)
	}
	if err := EmbedDocuments(t.Context(), nil, []*document.Document{{Content: "x"}}); err == nil {
		t.Error("no embedder and documents to embed: no error")
	}
}

func TestParseSearchType(t *testing.T) {
	for in, want := range map[string]SearchType{"": "", "vector": SearchVector, "Hybrid": SearchHybrid, "keyword": SearchKeyword} {
		if got, err := ParseSearchType(in); err != nil || got != want {
			t.Errorf("ParseSearchType(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSearchType("semantic"); err == nil {
		t.Error("ParseSearchType(semantic) accepted")
	}
}
