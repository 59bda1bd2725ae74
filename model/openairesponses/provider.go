package openairesponses

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/agno-go/agno/model"
)

// ProviderResponses is agno's model-string name for OpenAIResponses.
const ProviderResponses = "openai-responses"

// Options are the [models.<key>] keys of OpenAIResponses beyond the
// common ones, with agno's parameter names. temperature, top_p, user,
// reasoning_effort, max_tokens (sent as max_output_tokens) and
// request_params are common keys and reach the model per request.
type Options struct {
	// Organization is sent as OpenAI-Organization.
	Organization string `toml:"organization"`
	// DefaultHeaders are added to every request, winning over headers.
	DefaultHeaders map[string]string `toml:"default_headers"`
	// Store asks OpenAI to keep the response. Unset, a reasoning model
	// (o3*, o4-mini*, gpt-5*) is sent store=true and each turn continues
	// the last one by previous_response_id; false makes every request
	// stateless, and reasoning then travels back encrypted.
	Store *bool `toml:"store"`
	// Include lists extra output the response should carry
	// ("reasoning.encrypted_content", "message.output_text.logprobs", ...).
	Include []string `toml:"include"`
	// ReasoningSummary asks reasoning models for a summary of their
	// reasoning: auto, concise or detailed. It arrives as reasoning content.
	ReasoningSummary string `toml:"reasoning_summary"`
	// Verbosity of the answer: low, medium or high (text.verbosity).
	Verbosity string `toml:"verbosity"`
	// MaxOutputTokens bounds the answer, reasoning included; a request's
	// max_tokens wins.
	MaxOutputTokens *int `toml:"max_output_tokens"`
	// MaxToolCalls bounds the built-in tool calls of one response.
	MaxToolCalls *int `toml:"max_tool_calls"`
	// ParallelToolCalls lets the model call several tools in one turn.
	ParallelToolCalls *bool `toml:"parallel_tool_calls"`
	// Metadata is attached to the stored response (16 pairs at most).
	Metadata map[string]string `toml:"metadata"`
	// Truncation: auto or disabled.
	Truncation string `toml:"truncation"`
	// ServiceTier: auto, default, flex or priority.
	ServiceTier string `toml:"service_tier"`
	// StrictOutput false lets a structured answer deviate from its schema
	// (agno's strict_output, default true).
	StrictOutput *bool `toml:"strict_output"`
}

// includables are the values the API documents for include.
var includables = []string{
	string(responses.ResponseIncludableFileSearchCallResults),
	string(responses.ResponseIncludableWebSearchCallResults),
	string(responses.ResponseIncludableWebSearchCallActionSources),
	string(responses.ResponseIncludableMessageInputImageImageURL),
	string(responses.ResponseIncludableComputerCallOutputOutputImageURL),
	string(responses.ResponseIncludableCodeInterpreterCallOutputs),
	string(responses.ResponseIncludableReasoningEncryptedContent),
	string(responses.ResponseIncludableMessageOutputTextLogprobs),
}

// validate checks every key against the values the API takes, naming
// the key and the fix.
func (o *Options) validate() error {
	oneOf := func(key, v string, allowed ...string) error {
		if v == "" || slices.Contains(allowed, v) {
			return nil
		}
		return fmt.Errorf("%w: %s = %q: use one of %s", ErrInvalidConfig, key, v, strings.Join(allowed, ", "))
	}
	for _, err := range []error{
		oneOf("reasoning_summary", o.ReasoningSummary, "auto", "concise", "detailed"),
		oneOf("verbosity", o.Verbosity, "low", "medium", "high"),
		oneOf("truncation", o.Truncation, "auto", "disabled"),
		oneOf("service_tier", o.ServiceTier, "auto", "default", "flex", "priority"),
	} {
		if err != nil {
			return err
		}
	}
	if o.MaxOutputTokens != nil && *o.MaxOutputTokens < 1 {
		return fmt.Errorf("%w: max_output_tokens = %d: use a positive number of tokens, or leave it out", ErrInvalidConfig, *o.MaxOutputTokens)
	}
	if o.MaxToolCalls != nil && *o.MaxToolCalls < 1 {
		return fmt.Errorf("%w: max_tool_calls = %d: use a positive number, or leave it out", ErrInvalidConfig, *o.MaxToolCalls)
	}
	for i, inc := range o.Include {
		if !slices.Contains(includables, inc) {
			return fmt.Errorf("%w: include[%d] = %q: use one of %s", ErrInvalidConfig, i, inc, strings.Join(includables, ", "))
		}
	}
	if len(o.Metadata) > 16 {
		return fmt.Errorf("%w: metadata has %d pairs: the API takes at most 16", ErrInvalidConfig, len(o.Metadata))
	}
	for _, k := range slices.Sorted(maps.Keys(o.Metadata)) {
		if k == "" || len(k) > 64 {
			return fmt.Errorf("%w: metadata key %q: keys are 1 to 64 characters", ErrInvalidConfig, k)
		}
		if len(o.Metadata[k]) > 512 {
			return fmt.Errorf("%w: metadata %q: values are at most 512 characters", ErrInvalidConfig, k)
		}
	}
	return nil
}

// Spec is the registration of OpenAIResponses under name: agno's
// "openai-responses" and "openai" both name it.
func Spec(name string) model.Provider[Options] {
	return model.Provider[Options]{
		Name: name, Summary: "OpenAI Responses API (agno's OpenAIResponses); any Responses endpoint by base_url: OpenRouter, Ollama",
		KeyEnv: KeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: DefaultID,
		// Another Responses endpoint (a local Ollama) may take no key.
		KeyOptional: func(s model.ProviderSettings, _ *Options) bool {
			base := strings.TrimSuffix(strings.TrimSpace(s.BaseURL), "/")
			return base != "" && base != DefaultBaseURL
		},
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return NewFromSettings(s, o) },
	}
}

// ProviderOpenAI is agno's "openai": in a model string or a [models.<key>]
// table it means OpenAIResponses, as agno's get_model has it.
const ProviderOpenAI = "openai"

func init() {
	model.RegisterProvider(Spec(ProviderResponses))
	model.RegisterProvider(Spec(ProviderOpenAI))
}

// NewFromSettings builds the model from the registry's settings and the
// table's options.
func NewFromSettings(s model.ProviderSettings, o *Options) (*Model, error) {
	if o == nil {
		o = &Options{}
	}
	headers := maps.Clone(s.Headers)
	if len(o.DefaultHeaders) > 0 {
		if headers == nil {
			headers = map[string]string{}
		}
		maps.Copy(headers, o.DefaultHeaders)
	}
	return New(Config{
		ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries,
		Headers: headers, Logger: s.Logger, Options: *o,
	})
}
