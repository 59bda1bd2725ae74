// Package anthropic is the model.Model for Anthropic's Messages API, built
// on the official anthropic-sdk-go client.
//
// It maps the provider-neutral vocabulary of package model onto Messages API
// requests (system prompt, content blocks, tool_use / tool_result, tools,
// tool_choice) and the responses — JSON or the server-sent event stream —
// back onto model.Chunk values. SDK types never leave this package.
package anthropic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
)

// Defaults, as agno's Claude model has them.
const (
	DefaultID        = "claude-sonnet-4-5-20250929"
	DefaultAPIKeyEnv = "ANTHROPIC_API_KEY"
	DefaultMaxTokens = 8192
	// DefaultMaxRetries is how often a failed request is retried when
	// Config.MaxRetries is zero.
	DefaultMaxRetries = 2
)

// ProviderName is the model_provider agno reports for Claude models.
const ProviderName = "Anthropic"

// ErrMissingAPIKey is returned by New when no API key is configured.
var ErrMissingAPIKey = errors.New("anthropic: no API key")

// ErrInvalidRequest wraps every request that cannot be mapped onto the
// Messages API; the message names the offending field.
var ErrInvalidRequest = errors.New("anthropic: invalid request")

// Config configures a Model.
type Config struct {
	// ID is the Claude model id, e.g. "claude-sonnet-4-5". Default DefaultID.
	ID string
	// BaseURL overrides the API endpoint (default https://api.anthropic.com/).
	BaseURL string
	// APIKey is the key sent as x-api-key. When empty it is read from the
	// environment variable APIKeyEnv.
	APIKey string
	// APIKeyEnv names the environment variable holding the key. Default
	// ANTHROPIC_API_KEY.
	APIKeyEnv string
	// MaxTokens is max_tokens for requests that do not set
	// Request.MaxTokens; Anthropic requires it. Default 8192.
	MaxTokens int
	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with a connection
	// error, 408, 409, 429, 529 or 5xx is retried, waiting as the server's
	// retry-after header asks (up to a minute; a longer wait is returned as
	// the error's RetryAfter), as package httpretry decides. 0 means
	// DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// Headers are sent with every request (agno's default_headers).
	Headers map[string]string
	// Logger receives debug notes (dropped parameters, repaired tool
	// arguments, retries). Default slog.Default().
	Logger *slog.Logger

	// Thinking, when set, is sent as the thinking parameter of every
	// request; see Options.
	Thinking *Thinking
	// CacheSystemPrompt, ExtendedCacheTime and CacheTools are agno's prompt
	// caching switches; see Options.
	CacheSystemPrompt bool
	ExtendedCacheTime bool
	CacheTools        bool
	// TopK is top_k of every request; 0 leaves it to the API.
	TopK int
	// Betas are sent in the anthropic-beta header.
	Betas []string

	// Platform, when set, serves Claude from a cloud platform instead of
	// Anthropic's API: request options such as bedrock.WithConfig or
	// vertex.WithCredentials that route, rewrite and authenticate each
	// request. APIKey is then not used. They run after the retry
	// middleware, so that every attempt is signed afresh; BaseURL, when
	// set, still overrides the platform's endpoint.
	Platform []option.RequestOption
	// ProviderName and Name are what Info reports (agno's provider and
	// name of the class); defaults ProviderName and "Claude".
	ProviderName, Name string
	// NativeReasoning, when set, is what Info reports instead of agno's
	// Anthropic rule: for a platform whose agno rule is its own (Vertex
	// AI).
	NativeReasoning model.NativeReasoning
}

// Model is a Claude model. It is safe for concurrent use.
type Model struct {
	id        string
	maxTokens int
	client    sdk.Client
	logger    *slog.Logger

	provider, name string
	reasoning      model.NativeReasoning
	thinking       *Thinking
	cacheSystem    bool
	cacheTTL       sdk.CacheControlEphemeralTTL
	cacheTools     bool
	topK           int
}

var _ model.Model = (*Model)(nil)

// New validates cfg and returns the model.
func New(cfg Config) (*Model, error) {
	id := cfg.ID
	if id == "" {
		id = DefaultID
	}
	keyEnv := cfg.APIKeyEnv
	if keyEnv == "" {
		keyEnv = DefaultAPIKeyEnv
	}
	key := cfg.APIKey
	if key == "" && len(cfg.Platform) == 0 {
		key = os.Getenv(keyEnv)
		if key == "" {
			return nil, fmt.Errorf("%w: set the %s environment variable or Config.APIKey", ErrMissingAPIKey, keyEnv)
		}
	}
	if err := validateFeatures(cfg, id); err != nil {
		return nil, err
	}
	maxTokens := cfg.MaxTokens
	switch {
	case maxTokens == 0:
		maxTokens = DefaultMaxTokens
	case maxTokens < 0:
		return nil, fmt.Errorf("anthropic: Config.MaxTokens is %d: set a positive number or 0 for the default %d", maxTokens, DefaultMaxTokens)
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}

	// The SDK would otherwise pick up credentials, base URL and headers from
	// the environment and profile files; this package resolves them itself
	// so that Config is the whole truth.
	provider := cmp.Or(cfg.ProviderName, ProviderName)
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		// One retry policy for every provider (httpretry), so the SDK's is off.
		option.WithMaxRetries(0),
		option.WithMiddleware(httpretry.Policy{
			MaxRetries: retries,
			Logger:     logger,
			LogAttrs:   []any{"provider", provider, "model", id},
		}.Middleware),
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if len(cfg.Betas) > 0 {
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", strings.Join(cfg.Betas, ",")))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient()
	}
	// The client goes before the platform's options: Vertex AI wraps it
	// with its authorization.
	opts = append(opts, option.WithHTTPClient(hc))
	if len(cfg.Platform) > 0 {
		opts = append(opts, cfg.Platform...)
	} else {
		opts = append(opts, option.WithAPIKey(key))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	m := &Model{
		id:          id,
		maxTokens:   maxTokens,
		client:      sdk.NewClient(opts...),
		logger:      logger,
		provider:    provider,
		name:        cmp.Or(cfg.Name, "Claude"),
		thinking:    cfg.Thinking,
		reasoning:   cmp.Or(cfg.NativeReasoning, nativeReasoning(provider, cfg.Thinking)),
		cacheSystem: cfg.CacheSystemPrompt,
		cacheTools:  cfg.CacheTools,
		topK:        cfg.TopK,
	}
	if cfg.ExtendedCacheTime {
		m.cacheTTL = sdk.CacheControlEphemeralTTLTTL1h
	}
	return m, nil
}

// Info implements model.Model. Structured output is left to the agent's
// JSON prompt: ResponseFormat is not sent.
func (m *Model) Info() model.Info {
	return model.Info{
		ID:              m.id,
		Provider:        m.provider,
		Name:            m.name,
		NativeReasoning: m.reasoning,
	}
}

// nativeReasoning is agno's rule for its Claude class
// (reasoning/anthropic.py): with provider Anthropic (not Bedrock, Azure
// Foundry or Vertex AI) and any thinking set, even type "disabled" as in
// agno, the thinking comes apart from the answer.
func nativeReasoning(provider string, thinking *Thinking) model.NativeReasoning {
	if provider == ProviderName && thinking != nil {
		return model.ReasoningThinking
	}
	return model.ReasoningNone
}

// Generate implements model.Model: one Messages API call, streamed when
// req.Stream is set.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("%w: request is nil", ErrInvalidRequest))
			return
		}
		params, err := m.newParams(req)
		if err != nil {
			yield(nil, err)
			return
		}
		if req.Stream {
			m.stream(ctx, params, yield)
			return
		}
		start := time.Now()
		msg, err := m.client.Messages.New(ctx, params)
		if err != nil {
			yield(nil, m.convertError(ctx, err))
			return
		}
		yield(messageChunk(msg, time.Since(start)), nil)
	}
}

// stream runs a streaming request and yields text and thinking as they
// arrive, then one final chunk with the tool calls, finish reason and usage.
func (m *Model) stream(ctx context.Context, params sdk.MessageNewParams, yield func(*model.Chunk, error) bool) {
	start := time.Now()
	s := m.client.Messages.NewStreaming(ctx, params)
	defer s.Close()

	st := newStreamState(m.logger)
	for s.Next() {
		chunk := st.handle(s.Current(), start)
		if chunk != nil && !yield(chunk, nil) {
			return
		}
		if st.stopped {
			break
		}
	}
	if err := s.Err(); err != nil {
		yield(nil, m.convertError(ctx, err))
		return
	}
	if err := ctx.Err(); err != nil {
		yield(nil, err)
		return
	}
	if !st.stopped {
		yield(nil, &model.ProviderError{
			Provider: m.provider,
			Model:    m.id,
			Message:  "stream ended before message_stop",
		})
		return
	}
	yield(st.final(), nil)
}

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})
