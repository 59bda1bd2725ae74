package gemini

import (
	"cmp"

	"github.com/agno-go/agno/knowledge/embedder"
)

// ProviderGemini is the [knowledge.NAME.embedder] provider name of agno's
// GeminiEmbedder.
const ProviderGemini = "gemini"

// Options are the [knowledge.NAME.embedder] keys of agno's GeminiEmbedder
// beyond the common ones.
type Options struct {
	TaskType  string `toml:"task_type"`
	Title     string `toml:"title"`
	VertexAI  bool   `toml:"vertexai"`
	ProjectID string `toml:"project_id"`
	Location  string `toml:"location"`
}

func init() {
	embedder.Register(ProviderGemini, embedder.Provider[Options]{
		Summary:      "Google Gemini embeddings (Gemini API, or Vertex AI with vertexai or GOOGLE_GENAI_USE_VERTEXAI), agno's GeminiEmbedder",
		KeyEnv:       KeyEnv,
		DefaultModel: DefaultID,
		New:          fromOptions,
	})
}

// fromOptions builds an Embedder; a key variable that is not set gives
// one whose calls fail saying what to export (embedder.Provider.New).
func fromOptions(o embedder.Options, x *Options) (embedder.Embedder, error) {
	cfg := Config{ID: o.Model, BaseURL: o.BaseURL, APIKeyEnv: o.APIKeyEnv, Dimensions: o.Dimensions, BatchSize: o.BatchSize,
		TaskType: x.TaskType, Title: x.Title, VertexAI: x.VertexAI, ProjectID: x.ProjectID, Location: x.Location}
	return embedder.NewOrMissingKey(func(placeholder string) (embedder.Embedder, error) {
		c := cfg
		c.APIKey = placeholder
		return New(c)
	}, embedder.KeyNotSet(ErrNoAPIKey, cmp.Or(cfg.APIKeyEnv, KeyEnv)))
}
