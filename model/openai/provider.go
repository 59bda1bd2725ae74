package openai

import (
	"maps"

	"github.com/agno-go/agno/model"
)

// Provider names in model strings and [models.<key>] tables: agno's
// "openai-chat" (OpenAIChat; agno's "openai" is the Responses API, in
// package openairesponses), and "openai-compatible" for any endpoint that
// speaks Chat Completions (agno's OpenAILike).
const (
	ProviderOpenAIChat = "openai-chat"
	ProviderCompatible = "openai-compatible"
)

// Options are the [models.<key>] keys of these providers beyond the common
// ones, with agno's OpenAIChat parameter names.
type Options struct {
	// Organization is sent as OpenAI-Organization.
	Organization string `toml:"organization"`
	// DefaultHeaders are added to every request.
	DefaultHeaders map[string]string `toml:"default_headers"`
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderOpenAIChat, Summary: "OpenAI Chat Completions (agno's OpenAIChat)",
		KeyEnv: OpenAIKeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: DefaultID,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return newFromSettings(s, o, false) },
	})
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderCompatible, Summary: "any OpenAI-compatible endpoint by base_url: Ollama, vLLM, OpenRouter, gateways (agno's OpenAILike)",
		RequiresBaseURL: true, DefaultMaxRetries: DefaultMaxRetries,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return newFromSettings(s, o, true) },
	})
}

func newFromSettings(s model.ProviderSettings, o *Options, compatible bool) (model.Model, error) {
	return New(Config{
		ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, Compatible: compatible, HTTPClient: s.HTTPClient,
		MaxRetries: s.MaxRetries, Logger: s.Logger, Organization: o.Organization, Headers: mergeHeaders(s.Headers, o.DefaultHeaders),
	})
}

// mergeHeaders joins the common headers key with openai's own
// default_headers, the latter winning where both name a header.
func mergeHeaders(common, own map[string]string) map[string]string {
	if len(common)+len(own) == 0 {
		return nil
	}
	out := maps.Clone(common)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, own)
	return out
}
