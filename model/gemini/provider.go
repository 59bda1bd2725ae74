package gemini

import (
	"os"
	"strings"

	"github.com/agno-go/agno/model"
)

// ProviderGoogle is agno's model-string name for Gemini ("google:<id>").
const ProviderGoogle = "google"

// Options are the [models.<key>] keys of Gemini beyond the common ones,
// named as agno's Gemini parameters.
type Options struct {
	// VertexAI uses Vertex AI instead of the Gemini API.
	VertexAI bool `toml:"vertexai"`
	// ProjectID and Location are Vertex AI's (defaults
	// GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION or "global").
	ProjectID string `toml:"project_id"`
	Location  string `toml:"location"`
	// ThinkingBudget is the thinking tokens allowed (-1 dynamic, 0 off).
	ThinkingBudget *int `toml:"thinking_budget"`
	// IncludeThoughts returns thought summaries as reasoning content.
	IncludeThoughts *bool `toml:"include_thoughts"`
	// ThinkingLevel is minimal, low, medium or high (Gemini 3).
	ThinkingLevel string `toml:"thinking_level"`
	// TopK samples from the k likeliest tokens.
	TopK *int `toml:"top_k"`
	// SafetySettings are {category, threshold} tables.
	SafetySettings []SafetySetting `toml:"safety_settings"`
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderGoogle, Summary: "Google Gemini API or Vertex AI (agno's Gemini)",
		KeyEnv: DefaultAPIKeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: DefaultID,
		// Vertex AI with a project authenticates with Google's default
		// credentials; only its key-only express mode needs the key.
		KeyOptional: func(_ model.ProviderSettings, o *Options) bool {
			vertex := o.VertexAI || strings.EqualFold(os.Getenv(EnvUseVertexAI), "true")
			return vertex && cmpOr(o.ProjectID, os.Getenv(EnvProject)) != ""
		},
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) {
			return New(Config{
				ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries,
				Headers: s.Headers, Logger: s.Logger,
				VertexAI: o.VertexAI, ProjectID: o.ProjectID, Location: o.Location,
				ThinkingBudget: o.ThinkingBudget, IncludeThoughts: o.IncludeThoughts, ThinkingLevel: o.ThinkingLevel,
				TopK: o.TopK, SafetySettings: o.SafetySettings,
			})
		},
	})
}
