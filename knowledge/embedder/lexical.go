package embedder

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"

	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// DefaultLexicalDimensions is the vector length of a Lexical embedder
// whose config leaves it unset.
const DefaultLexicalDimensions = 512

// LexicalConfig configures a Lexical embedder.
type LexicalConfig struct {
	// Dimensions is the vector length; zero means DefaultLexicalDimensions.
	Dimensions int
}

// Lexical is a deterministic embedder that needs no model and no network:
// it hashes the words of a text (minus common English stop words) and
// their character trigrams into a fixed-length vector, with sub-linear
// term weights, and L2-normalises it.
//
// It is lexical, not semantic. Two texts are close when they share words
// or word fragments ("embedding" and "embeddings" are close), never
// because they mean the same thing ("car" and "automobile" are not). Use
// it for offline set-ups, tests and as the keyword-ish half of hybrid
// search; use a model embedder for semantic retrieval. Its vectors are
// stable across versions of this package only while the feature scheme
// below is unchanged.
type Lexical struct{ dims int }

var _ Embedder = (*Lexical)(nil)

// NewLexical validates cfg and returns the embedder.
func NewLexical(cfg LexicalConfig) (*Lexical, error) {
	dims := cfg.Dimensions
	if dims == 0 {
		dims = DefaultLexicalDimensions
	}
	if dims < 8 {
		return nil, fmt.Errorf("embedder: lexical dimensions must be at least 8, got %d", dims)
	}
	return &Lexical{dims: dims}, nil
}

// Dimensions implements Embedder.
func (l *Lexical) Dimensions() int { return l.dims }

// Embed implements Embedder. Usage counts one prompt token per word.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	out := make([][]float32, len(texts))
	var usage Usage
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, Usage{}, err
		}
		var n int
		out[i], n = l.vector(t)
		usage.PromptTokens += n
	}
	usage.TotalTokens = usage.PromptTokens
	return out, usage, nil
}

// Feature weights: whole words carry most of the signal, trigrams let
// inflections and compounds meet.
const (
	wordWeight    = 1.0
	trigramWeight = 0.35
)

func (l *Lexical) vector(text string) ([]float32, int) {
	tokens := textutil.Tokens(text)
	counts := map[string]float64{}
	for _, tok := range tokens {
		if stopWords[tok] {
			continue
		}
		counts["w:"+tok] += wordWeight
		padded := []rune("^" + tok + "$")
		for i := 0; i+3 <= len(padded); i++ {
			counts["t:"+string(padded[i:i+3])] += trigramWeight
		}
	}
	v := make([]float64, l.dims)
	// Sorted so the float sums, and the vector, are bit-for-bit the same
	// on every run.
	for _, feature := range slices.Sorted(maps.Keys(counts)) {
		w := counts[feature]
		h := fnv.New64a()
		_, _ = h.Write([]byte(feature))
		sum := h.Sum64()
		weight := 1 + math.Log(1+w)
		if sum>>63 == 1 {
			weight = -weight
		}
		v[sum%uint64(l.dims)] += weight
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, l.dims)
	if norm == 0 {
		return out, len(tokens)
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out, len(tokens)
}

// stopWords are dropped before hashing: they appear in nearly every text
// and would make unrelated texts look alike.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could",
		"did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his",
		"how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of",
		"on", "or", "our", "she", "so", "such", "than", "that", "the", "their", "them",
		"then", "there", "these", "they", "this", "those", "to", "was", "we", "were",
		"what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
		"you", "your",
	} {
		m[w] = true
	}
	return m
}()
