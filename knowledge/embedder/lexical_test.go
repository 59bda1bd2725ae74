package embedder

import (
	"math"
	"strings"
	"testing"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func TestLexical(t *testing.T) {
	e, err := NewLexical(LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"How do I configure the embeddings batch size?",
		"Embedding batch sizes are configured with batch_size.",
		"Bananas are a yellow fruit.",
		"the of and",
		"",
	}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || e.Dimensions() != DefaultLexicalDimensions {
		t.Fatalf("%d vectors of %d dims", len(vecs), e.Dimensions())
	}
	for i, v := range vecs[:3] {
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if len(v) != DefaultLexicalDimensions || math.Abs(norm-1) > 1e-5 {
			t.Errorf("vector %d: len %d, squared norm %v; want L2-normalised", i, len(v), norm)
		}
	}
	related, unrelated := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2])
	if related <= 0.2 || unrelated >= related/2 {
		t.Errorf("cosine(question, answer) = %.3f, cosine(question, bananas) = %.3f: shared words and stems must dominate", related, unrelated)
	}
	// Stop words alone and empty text carry no features.
	for _, i := range []int{3, 4} {
		for _, x := range vecs[i] {
			if x != 0 {
				t.Fatalf("vector %d (%q) is not zero", i, texts[i])
			}
		}
	}
	if usage.PromptTokens != 8+8+5+3 || usage.TotalTokens != usage.PromptTokens {
		t.Errorf("usage %+v, want one token per word (24)", usage)
	}
	// Deterministic: the same text always gives the same bits.
	again, _, _ := e.Embed(t.Context(), texts[:1])
	for i := range again[0] {
		if again[0][i] != vecs[0][i] {
			t.Fatalf("dimension %d differs between calls", i)
		}
	}
	if _, err := NewLexical(LexicalConfig{Dimensions: 4}); err == nil {
		t.Error("NewLexical accepted 4 dimensions")
	}
	small, _ := NewLexical(LexicalConfig{Dimensions: 64})
	v, _, _ := small.Embed(t.Context(), texts[:1])
	if len(v[0]) != 64 {
		t.Errorf("configured 64 dims, got %d", len(v[0]))
	}
}

// BenchmarkLexical embeds one chunk of about 100 words.
func BenchmarkLexical(b *testing.B) {
	e, _ := NewLexical(LexicalConfig{})
	text := strings.Repeat("the quick brown fox jumps over the lazy dog while embeddings configure batch sizes ", 7)
	for b.Loop() {
		if _, _, err := e.Embed(b.Context(), []string{text}); err != nil {
			b.Fatal(err)
		}
	}
}
