package geminiinteractions

import "github.com/agno-go/agno/model"

// ProviderKey is agno's model-string name ("google-interactions:<id>").
const ProviderKey = "google-interactions"

// Options are the [models.<key>] keys beyond the common ones, named as
// agno's GeminiInteractions parameters.
type Options struct {
	// Store false keeps nothing on the server: the whole history is sent.
	Store *bool `toml:"store"`
	// ThinkingLevel is minimal, low, medium or high.
	ThinkingLevel string `toml:"thinking_level"`
	// Search, URLContext and CodeExecution add Google's built-in tools.
	Search        bool `toml:"search"`
	URLContext    bool `toml:"url_context"`
	CodeExecution bool `toml:"code_execution"`
	// ServiceTier is flex, standard or priority.
	ServiceTier string `toml:"service_tier"`
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderKey, Summary: "Gemini through Google's Interactions API, history kept on the server (agno's GeminiInteractions)",
		KeyEnv: DefaultAPIKeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: DefaultID,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) {
			return New(Config{
				ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries,
				Headers: s.Headers, Logger: s.Logger,
				Store: o.Store, ThinkingLevel: o.ThinkingLevel, Search: o.Search, URLContext: o.URLContext,
				CodeExecution: o.CodeExecution, ServiceTier: o.ServiceTier,
			})
		},
	})
}
