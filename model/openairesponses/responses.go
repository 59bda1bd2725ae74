// Package openairesponses is the model.Model for OpenAI's Responses API
// (agno's OpenAIResponses), and for every server that speaks it by
// base_url: OpenRouter's and Ollama's /v1/responses (agno's
// OpenRouterResponses and OllamaResponses, which have no model-string
// names of their own).
//
// OpenRouter and Ollama are reached by base_url; both are stateless, so
// agno's subclasses set store = false:
//
//	[models.router]
//	provider = "openai-responses"
//	base_url = "https://openrouter.ai/api/v1"
//	api_key_env = "OPENROUTER_API_KEY"
//	model = "openai/gpt-oss-20b"
//	store = false
//
//	[models.local]
//	provider = "openai-responses"
//	base_url = "http://localhost:11434/v1"   # Ollama 0.13.3 or later
//	api_key_env = "OLLAMA_API_KEY"           # agno's; a local Ollama ignores its value
//	model = "gpt-oss:20b"
//	store = false
//
// Conversation state follows agno: a reasoning model (o3*, o4-mini*,
// gpt-5*) with store unset is sent store = true and continues from the
// last assistant turn's response_id by previous_response_id, sending only
// the messages after it; with store = false it asks for
// include = ["reasoning.encrypted_content"] and sends the reasoning items
// kept in the assistant's provider_data back with the history.
//
// It is built on github.com/openai/openai-go/v3/responses for request
// encoding, transport and the typed event stream. The SDK's types stay in
// this package.
package openairesponses

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
)

// Defaults, as agno's OpenAIResponses and the OpenAI SDKs set them.
const (
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultID is agno's OpenAIResponses default model.
	DefaultID = "gpt-5.4-mini"
	// DefaultMaxRetries matches the OpenAI SDKs.
	DefaultMaxRetries = 2
	// KeyEnv is where the key is read from by default.
	KeyEnv = "OPENAI_API_KEY"
)

// Provider and model names as agno reports them (model_provider, name).
const (
	ProviderName = "OpenAI"
	Name         = "OpenAIResponses"
)

// ErrNoAPIKey is returned by New for api.openai.com without a key.
var ErrNoAPIKey = errors.New("openai-responses: no API key")

// ErrInvalidConfig is returned by New for a Config it cannot use.
var ErrInvalidConfig = errors.New("openai-responses: invalid config")

// Config configures a Model. The key is required for api.openai.com
// only: a local server at BaseURL (Ollama) may take none.
type Config struct {
	// ID is the model id ("gpt-5.4-mini", "openai/gpt-oss-20b" on
	// OpenRouter, "gpt-oss:20b" on Ollama); "" is DefaultID.
	ID string
	// BaseURL of the API, including the version path (".../v1").
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>".
	APIKey string
	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// MaxRetries of a request failing with a retryable error: 0 is
	// DefaultMaxRetries, negative none.
	MaxRetries int
	// Headers are added to every request.
	Headers map[string]string
	Logger  *slog.Logger
	// Options are agno's OpenAIResponses parameters.
	Options Options
}

// Model is a Responses API model. It is safe for concurrent use.
type Model struct {
	info model.Info
	svc  responses.ResponseService
	opts Options
	// reasoning marks OpenAI's reasoning models, which agno chains by
	// previous_response_id (or, stateless, sends encrypted reasoning).
	reasoning bool
	// endpoint names a server other than OpenAI's in errors.
	endpoint string
	logger   *slog.Logger
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ model.Model = (*Model)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})

// New validates cfg and returns a Model.
func New(cfg Config) (*Model, error) {
	if err := cfg.Options.validate(); err != nil {
		return nil, err
	}
	base := cmp.Or(strings.TrimSpace(cfg.BaseURL), DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like \"https://openrouter.ai/api/v1\" or \"http://localhost:11434/v1\"", ErrInvalidConfig, base)
	}
	own := strings.TrimSuffix(base, "/") == DefaultBaseURL
	if own && cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: %s is not set: export %s=<your key>, or set api_key_env in the model config", ErrNoAPIKey, KeyEnv, KeyEnv)
	}
	id := cmp.Or(cfg.ID, DefaultID)
	maxRetries := cfg.MaxRetries
	switch {
	case maxRetries == 0:
		maxRetries = DefaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	logger := cmp.Or(cfg.Logger, slog.Default())
	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient()
	}
	m := &Model{
		info: model.Info{ID: id, Provider: ProviderName, Name: Name, NativeStructuredOutputs: true, JSONMode: true, NativeReasoning: nativeReasoning(id)},
		opts: cfg.Options,
		// agno's _using_reasoning_model.
		reasoning: strings.HasPrefix(id, "o3") || strings.HasPrefix(id, "o4-mini") || strings.HasPrefix(id, "gpt-5"),
		logger:    logger,
		sleep:     httpretry.Sleep,
	}
	if !own {
		m.endpoint = redactedURL(base)
	}
	retry := httpretry.Policy{
		MaxRetries: maxRetries,
		Sleep:      func(ctx context.Context, d time.Duration) error { return m.sleep(ctx, d) },
		Logger:     logger,
		LogAttrs:   []any{"provider", ProviderName, "model", id},
	}
	// Options are given explicitly rather than through openai.NewClient,
	// which would also read OPENAI_* variables and send an OpenAI key or
	// organization to another endpoint.
	opts := []option.RequestOption{
		option.WithHTTPClient(hc),
		option.WithBaseURL(base),
		option.WithAPIKey(cfg.APIKey),
		// One retry policy for every provider (httpretry): the SDK's is off.
		option.WithMaxRetries(0),
		option.WithMiddleware(retry.Middleware),
	}
	if cfg.Options.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Options.Organization))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	m.svc = responses.NewResponseService(opts...)
	return m, nil
}

// Info implements model.Model.
func (m *Model) Info() model.Info { return m.info }

// Generate implements model.Model. A streamed request yields text and
// reasoning deltas as the typed events bring them, then one final chunk
// with the complete function calls, the finish reason, the usage and the
// provider data (response_id, reasoning items) the next turn needs.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		params, err := m.params(req)
		if err != nil {
			yield(nil, err)
			return
		}
		opts := requestOptions(req.Extra)
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

// storeOff reports whether requests are stateless (store = false).
func (m *Model) storeOff() bool { return m.opts.Store != nil && !*m.opts.Store }

// chains reports whether turns continue by previous_response_id: agno
// does so for reasoning models unless store is false.
func (m *Model) chains() bool { return m.reasoning && !m.storeOff() }

// redactedURL is u without credentials or query, for messages.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "(unparsable base_url)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// nativeReasoning is agno's rule for an OpenAIResponses model
// (reasoning/openai.py): o-series and GPT-5.1/5.2 ids, matched as
// written, answer with their reasoning.
func nativeReasoning(id string) model.NativeReasoning {
	for _, s := range []string{"o4", "o3", "o1", "5.1", "5.2"} {
		if strings.Contains(id, s) {
			return model.ReasoningContent
		}
	}
	return model.ReasoningNone
}
