package anthropic

import "github.com/agno-go/agno/model"

// ProviderAnthropic is agno's model-string name for Claude.
const ProviderAnthropic = "anthropic"

// Options are the [models.<key>] keys of Claude beyond the common ones.
type Options struct{}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderAnthropic, Summary: "Anthropic Messages API (agno's Claude)",
		KeyEnv: DefaultAPIKeyEnv, DefaultMaxRetries: DefaultMaxRetries,
		New: func(s model.ProviderSettings, _ *Options) (model.Model, error) {
			return New(Config{ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger})
		},
	})
}
