// Package embedder turns text into vectors for the knowledge vector stores.
//
// Embedder is the interface every store takes through its Config. This
// package also holds Lexical, a deterministic built-in embedder for offline
// use. The model embedders are subpackages, each registering its
// providers (Register): openai (OpenAI, any /embeddings endpoint and
// agno's OpenAI-compatible vendors), ollama, cohere, voyageai and jina.
package embedder

import "context"

// DefaultDimensions is agno's Embedder.dimensions default.
const DefaultDimensions = 1536

// Usage is the token accounting an embeddings endpoint reports, with the
// field names of agno's usage dict.
type Usage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens + o.PromptTokens, TotalTokens: u.TotalTokens + o.TotalTokens}
}

// Embedder embeds texts. Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order, and the usage of the
	// whole call. Every vector has Dimensions() entries.
	Embed(ctx context.Context, texts []string) ([][]float32, Usage, error)
	// Dimensions is the length of the vectors Embed returns.
	Dimensions() int
}
