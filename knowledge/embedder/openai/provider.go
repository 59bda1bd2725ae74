package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/knowledge/embedder"
)

// Provider names of [knowledge.NAME.embedder]: agno's "openai", and
// "openai-compatible" for any endpoint that speaks /embeddings (agno's
// OpenAILike).
const (
	ProviderOpenAI     = "openai"
	ProviderCompatible = "openai-compatible"
)

func init() {
	embedder.Register(ProviderOpenAI, embedder.Provider{
		Summary: "OpenAI's embeddings API, agno's OpenAIEmbedder",
		KeyEnv:  OpenAIKeyEnv,
		New:     fromOptions,
	})
	embedder.Register(ProviderCompatible, embedder.Provider{
		Summary:         "any /embeddings endpoint by base_url: Ollama, vLLM, a gateway; agno's OpenAILike",
		RequiresBaseURL: true,
		New: func(o embedder.Options) (embedder.Embedder, error) {
			if o.BaseURL == "" {
				return nil, fmt.Errorf("%w: openai-compatible needs a base_url, for example \"http://localhost:11434/v1\"", ErrInvalidConfig)
			}
			return fromOptions(o)
		},
	})
}

// fromOptions builds an Embedder; a key variable that is not set gives
// one whose calls fail saying what to export (embedder.Provider.New).
func fromOptions(o embedder.Options) (embedder.Embedder, error) {
	cfg := Config{ID: o.Model, BaseURL: o.BaseURL, APIKeyEnv: o.APIKeyEnv, Dimensions: o.Dimensions, BatchSize: o.BatchSize}
	e, err := New(cfg)
	if errors.Is(err, ErrNoAPIKey) {
		// A placeholder key checks the rest of the options and gives the
		// dimensions, which the vector store's table needs now.
		env := cmp.Or(cfg.APIKeyEnv, OpenAIKeyEnv)
		cfg.APIKey, cfg.APIKeyEnv = "unset", ""
		probe, perr := New(cfg)
		if perr != nil {
			return nil, perr
		}
		return noKey{dims: probe.Dimensions(), env: env}, nil
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// noKey stands in for an Embedder whose API key is not set.
type noKey struct {
	dims int
	env  string
}

func (n noKey) Dimensions() int { return n.dims }

func (n noKey) Embed(context.Context, []string) ([][]float32, embedder.Usage, error) {
	return nil, embedder.Usage{}, fmt.Errorf("%w: %s is not set: export %s=<your key> and restart", ErrNoAPIKey, n.env, n.env)
}
