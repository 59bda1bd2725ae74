package gemini

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/knowledge/embedder"
)

// ProviderGemini is the [knowledge.NAME.embedder] provider name of agno's
// GeminiEmbedder.
const ProviderGemini = "gemini"

func init() {
	embedder.Register(ProviderGemini, embedder.Provider{
		Summary: "Google Gemini embeddings (Gemini API, or Vertex AI by GOOGLE_GENAI_USE_VERTEXAI), agno's GeminiEmbedder",
		KeyEnv:  KeyEnv,
		New:     fromOptions,
	})
}

// fromOptions builds an Embedder; a key variable that is not set gives
// one whose calls fail saying what to export (embedder.Provider.New).
func fromOptions(o embedder.Options) (embedder.Embedder, error) {
	cfg := Config{ID: o.Model, BaseURL: o.BaseURL, APIKeyEnv: o.APIKeyEnv, Dimensions: o.Dimensions, BatchSize: o.BatchSize}
	e, err := New(cfg)
	if errors.Is(err, ErrNoAPIKey) {
		env := cmp.Or(cfg.APIKeyEnv, KeyEnv)
		cfg.APIKey = "unset" // checks the rest of the options
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
