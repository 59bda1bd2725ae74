// Package openai is the model.Model for OpenAI's Chat Completions API and
// every endpoint that speaks it: Ollama, vLLM, OpenRouter, llama.cpp, LLM
// gateways — anything reachable through a base URL.
//
// It is built on github.com/openai/openai-go/v3 for request encoding,
// transport and SSE framing. The SDK's types stay in this package; callers
// see only the model package's vocabulary.
package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
)

// Defaults, as agno and the OpenAI SDKs set them.
const (
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultID is agno's OpenAIChat default model.
	DefaultID = "gpt-5.4-mini"
	// DefaultCompatibleID is what agno's OpenAILike sends when no id is set;
	// single-model servers (llama.cpp, some vLLM set-ups) ignore it.
	DefaultCompatibleID = "not-provided"
	// DefaultMaxRetries matches the OpenAI SDKs.
	DefaultMaxRetries = 2
	// OpenAIKeyEnv is read when neither APIKey nor APIKeyEnv is set.
	OpenAIKeyEnv = "OPENAI_API_KEY"
)

// Provider and model names as agno reports them. agno's OpenAILike inherits
// provider "OpenAI" from OpenAIChat and differs only in its name.
const (
	ProviderName   = "OpenAI"
	NameChat       = "OpenAIChat"
	NameCompatible = "OpenAILike"
)

// ErrNoAPIKey is returned by New when a required API key is missing.
var ErrNoAPIKey = errors.New("openai: no API key")

// ErrInvalidConfig is returned by New for a Config it cannot use.
var ErrInvalidConfig = errors.New("openai: invalid config")

// Config configures a Model. The zero value talks to api.openai.com with
// the key in OPENAI_API_KEY.
type Config struct {
	// ID is the model id at the provider ("gpt-4o", "llama3.1:8b", ...).
	ID string
	// BaseURL of the API, including the version path (".../v1").
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>".
	APIKey string
	// APIKeyEnv names the environment variable holding the key; when set,
	// the variable must be non-empty.
	APIKeyEnv string
	// Compatible marks an OpenAI-compatible endpoint rather than OpenAI
	// itself (agno's OpenAILike): the key is optional, OPENAI_API_KEY is
	// never read, system messages keep the "system" role and tool-call ids
	// are sent back exactly as the endpoint issued them.
	Compatible bool

	// Name and Provider override what Info reports.
	Name     string
	Provider string
	// Class is agno's model class the Model stands for ("DeepSeek",
	// "Groq", "AzureOpenAI"): with ID it decides Info.NativeReasoning by
	// agno's rules (see NativeReasoning). "" is OpenAIChat, or OpenAILike
	// when Compatible.
	Class string
	// NativeReasoning, when set, is reported instead of what Class and ID
	// decide: for a vendor whose agno class has a rule of its own (Azure
	// AI Foundry).
	NativeReasoning model.NativeReasoning

	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// MaxRetries bounds retries of a request that failed with a retryable
	// error (network, 408, 409, 429, 5xx), as package httpretry decides.
	// Zero means DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// Headers are added to every request.
	Headers map[string]string
	// Organization is sent as OpenAI-Organization (agno's organization).
	Organization string
	// NativeStructuredOutputs reports whether the endpoint enforces a
	// json_schema response_format; nil means true, as for OpenAIChat.
	NativeStructuredOutputs *bool

	// ClientOptions are for a vendor that serves Chat Completions behind
	// its own URLs and authentication (Azure). When set, they replace
	// BaseURL and APIKey: no key is resolved, BaseURL is not used, and
	// errors name Provider rather than an OpenAI-compatible endpoint.
	// They come before the retry middleware, so a middleware of theirs
	// that rewrites the request runs once, not once per attempt.
	ClientOptions []option.RequestOption

	Logger *slog.Logger
}

// Model is an OpenAI Chat Completions model. It is safe for concurrent use.
type Model struct {
	info       model.Info
	chat       sdk.ChatCompletionService
	compatible bool
	// endpoint names a compatible server in errors (no credentials).
	endpoint string
	// sleep waits between retries; tests replace it to observe delays.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ model.Model = (*Model)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})

// New validates cfg and returns a Model.
func New(cfg Config) (*Model, error) {
	vendor := len(cfg.ClientOptions) > 0
	var key string
	base := cfg.BaseURL
	if !vendor {
		var err error
		if key, err = resolveAPIKey(cfg); err != nil {
			return nil, err
		}
		if base == "" {
			base = DefaultBaseURL
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like \"http://localhost:11434/v1\"", ErrInvalidConfig, base)
		}
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = sharedHTTPClient()
	}

	id := cfg.ID
	name, provider := NameChat, ProviderName
	if cfg.Compatible {
		name = NameCompatible
		if id == "" {
			id = DefaultCompatibleID
		}
	} else if id == "" {
		id = DefaultID
	}
	if cfg.Name != "" {
		name = cfg.Name
	}
	if cfg.Provider != "" {
		provider = cfg.Provider
	}
	structured := cfg.NativeStructuredOutputs == nil || *cfg.NativeStructuredOutputs
	reasoning := cfg.NativeReasoning
	if reasoning == model.ReasoningNone {
		class := cfg.Class
		if class == "" {
			class = ClassChat
			if cfg.Compatible {
				class = ClassCompatible
			}
		}
		reasoning = NativeReasoning(class, id)
	}

	maxRetries := cfg.MaxRetries
	switch {
	case maxRetries == 0:
		maxRetries = DefaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}

	m := &Model{
		info: model.Info{
			ID:                      id,
			Provider:                provider,
			Name:                    name,
			NativeStructuredOutputs: structured,
			JSONMode:                true,
			NativeReasoning:         reasoning,
		},
		compatible: cfg.Compatible,
		sleep:      httpretry.Sleep,
	}
	if cfg.Compatible && !vendor {
		m.endpoint = redactedURL(cfg.BaseURL)
	}
	retry := httpretry.Policy{
		MaxRetries: maxRetries,
		Sleep:      func(ctx context.Context, d time.Duration) error { return m.sleep(ctx, d) },
		Logger:     logger,
		LogAttrs:   []any{"provider", provider, "model", id},
	}

	// Options are given explicitly instead of through sdk.NewClient, which
	// would also pick up OPENAI_* variables and send an OpenAI key or
	// organisation to a third-party endpoint.
	opts := []option.RequestOption{option.WithHTTPClient(httpClient)}
	if vendor {
		opts = append(opts, cfg.ClientOptions...)
	} else {
		opts = append(opts, option.WithBaseURL(base), option.WithAPIKey(key))
	}
	opts = append(opts,
		// One retry policy for every provider (httpretry), so the SDK's is off.
		option.WithMaxRetries(0),
		option.WithMiddleware(retry.Middleware),
	)
	if cfg.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Organization))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}

	m.chat = sdk.NewChatCompletionService(opts...)
	return m, nil
}

func resolveAPIKey(cfg Config) (string, error) {
	if cfg.APIKey != "" {
		return cfg.APIKey, nil
	}
	if cfg.APIKeyEnv != "" {
		if v := os.Getenv(cfg.APIKeyEnv); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%w: environment variable %s (api_key_env) is empty or unset: export %s=<your key>, or set api_key in the model config",
			ErrNoAPIKey, cfg.APIKeyEnv, cfg.APIKeyEnv)
	}
	if cfg.Compatible {
		return "", nil
	}
	if v := os.Getenv(OpenAIKeyEnv); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%w: %s is not set: export %s=<your key>, set api_key or api_key_env in the model config, or mark the model as OpenAI-compatible if the endpoint needs no key",
		ErrNoAPIKey, OpenAIKeyEnv, OpenAIKeyEnv)
}

// Info implements model.Model.
func (m *Model) Info() model.Info { return m.info }

// Generate implements model.Model. A streamed request yields content and
// reasoning deltas as they arrive, then one final chunk with the complete
// tool calls, the finish reason and the usage.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		params, err := m.params(req)
		if err != nil {
			yield(nil, err)
			return
		}
		opts := requestOptions(req)
		if req.Stream {
			m.stream(ctx, params, opts, yield)
			return
		}
		c, err := m.complete(ctx, params, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(c, nil)
	}
}

// redactedURL is u without credentials or query (a key may ride in
// either), for messages.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "(unparsable base_url)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}
