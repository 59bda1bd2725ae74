package embedder

import (
	"context"
	"errors"
	"fmt"
	"math"

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

// ProviderBuiltin is the Lexical embedder's provider name, the default of
// [knowledge.NAME.embedder].
const ProviderBuiltin = "builtin"

func init() {
	Register(ProviderBuiltin, Provider[struct{}]{
		Summary: "offline, lexical: shared words and word fragments, not meaning; the default",
		New: func(o Options, _ *struct{}) (Embedder, error) {
			if o.Model != "" || o.BaseURL != "" || o.APIKeyEnv != "" || o.BatchSize != 0 {
				return nil, errors.New("embedder: the builtin embedder takes only dimensions; model, base_url, api_key_env and batch_size are for providers with an endpoint")
			}
			l, err := NewLexical(LexicalConfig{Dimensions: o.Dimensions})
			if err != nil {
				return nil, err
			}
			return l, nil
		},
	})
}

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
// inflections and compounds meet. A feature seen n times weighs
// kind * (1 + ln n); the kind scales the feature, not its count, or a
// word's many trigrams would outweigh the word itself.
const (
	wordWeight    = 1.0
	trigramWeight = 0.35
)

// FNV-1a, 64 bits, of a feature: its kind prefix ("w:" or "t:") and text.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func featureHash(kind byte, text string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	h = (h ^ ':') * fnvPrime
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * fnvPrime
	}
	return h
}

func (l *Lexical) vector(text string) ([]float32, int) {
	tokens := textutil.Tokens(text)
	// Features are counted by their 64-bit hash, which also picks their
	// dimension, in the order the text first has them: summing in that
	// order makes the vector bit-for-bit the same on every run, which map
	// order would not.
	counts := map[uint64]float64{}
	var order []uint64
	add := func(h uint64) {
		if counts[h] == 0 {
			order = append(order, h)
		}
		counts[h]++
	}
	words := map[uint64]bool{}
	var starts []int
	for _, tok := range tokens {
		if textutil.IsStopWord(tok) {
			continue
		}
		w := featureHash('w', tok)
		add(w)
		words[w] = true
		// Trigrams of code points of "^" + tok + "$".
		padded := "^" + tok + "$"
		starts = starts[:0]
		for i := range padded {
			starts = append(starts, i)
		}
		starts = append(starts, len(padded))
		for i := 0; i+3 < len(starts); i++ {
			add(featureHash('t', padded[starts[i]:starts[i+3]]))
		}
	}
	v := make([]float64, l.dims)
	for _, h := range order {
		kind := trigramWeight
		if words[h] {
			kind = wordWeight
		}
		weight := kind * (1 + math.Log(counts[h]))
		if h>>63 == 1 {
			weight = -weight
		}
		v[h%uint64(l.dims)] += weight
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
