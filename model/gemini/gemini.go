// Package gemini is the model.Model for Google's Gemini models (agno's
// Gemini class), on the official google.golang.org/genai client: the
// Gemini API with an API key, or Vertex AI with a project, a location and
// Google credentials.
//
// It maps the provider-neutral vocabulary of package model onto
// generateContent requests (system instruction, user/model contents with
// functionCall and functionResponse parts, function declarations, the
// generation and thinking config) and the responses — JSON or the
// server-sent event stream — back onto model.Chunk values. Gemini's
// thought signatures are kept in the assistant message's ProviderData and
// sent back with the history, as the API requires for a tool loop with a
// thinking model. SDK types never leave this package.
package gemini

import (
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

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	authhttp "cloud.google.com/go/auth/httptransport"
	"google.golang.org/genai"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
)

// Defaults, as agno's Gemini model has them.
const (
	DefaultID        = "gemini-flash-latest"
	DefaultAPIKeyEnv = "GOOGLE_API_KEY"
	// DefaultMaxRetries is how often a failed request is retried when
	// Config.MaxRetries is zero.
	DefaultMaxRetries = 2
	// DefaultLocation is the Vertex AI location used when neither the
	// location key nor GOOGLE_CLOUD_LOCATION gives one, as the SDK does.
	DefaultLocation = "global"
)

// Environment variables agno reads for the Vertex AI backend.
const (
	EnvUseVertexAI = "GOOGLE_GENAI_USE_VERTEXAI"
	EnvProject     = "GOOGLE_CLOUD_PROJECT"
	EnvLocation    = "GOOGLE_CLOUD_LOCATION"
)

// ProviderName is the model_provider agno reports for Gemini models.
const ProviderName = "Google"

// ErrMissingAPIKey is returned by New for the Gemini API without a key.
var ErrMissingAPIKey = errors.New("gemini: no API key")

// ErrInvalidRequest wraps every request that cannot be mapped onto
// generateContent; the message names the offending field.
var ErrInvalidRequest = errors.New("gemini: invalid request")

// Config configures a Model.
type Config struct {
	// ID is the Gemini model id, e.g. "gemini-2.5-flash". Default DefaultID.
	ID string
	// BaseURL overrides the API endpoint (default
	// https://generativelanguage.googleapis.com/, or the Vertex AI one of
	// the location).
	BaseURL string
	// APIKey is the Gemini API key, sent as x-goog-api-key. When empty
	// it is read from GOOGLE_API_KEY. With VertexAI it is used only when
	// no project is given (Vertex AI express mode).
	APIKey string

	// VertexAI selects the Vertex AI backend (agno's vertexai); also on
	// when GOOGLE_GENAI_USE_VERTEXAI is "true".
	VertexAI bool
	// ProjectID is the Google Cloud project (agno's project_id). Default
	// GOOGLE_CLOUD_PROJECT.
	ProjectID string
	// Location is the Vertex AI region. Default GOOGLE_CLOUD_LOCATION,
	// else "global".
	Location string
	// Credentials authorize Vertex AI requests. nil finds Google's
	// Application Default Credentials.
	Credentials *auth.Credentials

	// Thinking (agno's thinking_budget, include_thoughts, thinking_level).
	ThinkingBudget  *int
	IncludeThoughts *bool
	// ThinkingLevel is "minimal", "low", "medium" or "high".
	ThinkingLevel string
	// TopK is agno's top_k.
	TopK *int
	// SafetySettings are agno's safety_settings.
	SafetySettings []SafetySetting

	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with a connection
	// error, 408, 409, 429 or 5xx is retried, as package httpretry
	// decides (a RetryInfo delay in Google's error body counts as the
	// server's Retry-After). 0 means DefaultMaxRetries; negative none.
	MaxRetries int
	// Headers are sent with every request (agno's default_headers).
	Headers map[string]string
	// Logger receives debug notes. Default slog.Default().
	Logger *slog.Logger
}

// SafetySetting blocks content of a harm category at a threshold, e.g.
// HARM_CATEGORY_HATE_SPEECH at BLOCK_ONLY_HIGH.
type SafetySetting struct {
	Category  string `toml:"category"`
	Threshold string `toml:"threshold"`
}

// Model is a Gemini model. It is safe for concurrent use.
type Model struct {
	id       string
	vertex   bool
	client   *genai.Client
	thinking *genai.ThinkingConfig
	// reasoning is Info's NativeReasoning.
	reasoning model.NativeReasoning
	topK      *float32
	safety    []*genai.SafetySetting
	logger    *slog.Logger
}

var _ model.Model = (*Model)(nil)

// New validates cfg and returns the model.
func New(cfg Config) (*Model, error) {
	id := strings.TrimSpace(cfg.ID)
	if id == "" {
		id = DefaultID
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	m := &Model{id: id, logger: logger, reasoning: nativeReasoning(id, cfg.ThinkingBudget, cfg.IncludeThoughts)}
	var err error
	if m.thinking, err = thinkingConfig(cfg.ThinkingBudget, cfg.IncludeThoughts, cfg.ThinkingLevel); err != nil {
		return nil, err
	}
	if cfg.TopK != nil {
		if *cfg.TopK <= 0 {
			return nil, fmt.Errorf("gemini: top_k is %d: set a positive number or leave it out", *cfg.TopK)
		}
		k := float32(*cfg.TopK)
		m.topK = &k
	}
	for i, s := range cfg.SafetySettings {
		if strings.TrimSpace(s.Category) == "" || strings.TrimSpace(s.Threshold) == "" {
			return nil, fmt.Errorf("gemini: safety_settings[%d] needs both category (e.g. HARM_CATEGORY_HATE_SPEECH) and threshold (e.g. BLOCK_ONLY_HIGH)", i)
		}
		m.safety = append(m.safety, &genai.SafetySetting{
			Category:  genai.HarmCategory(strings.ToUpper(strings.TrimSpace(s.Category))),
			Threshold: genai.HarmBlockThreshold(strings.ToUpper(strings.TrimSpace(s.Threshold))),
		})
	}

	cc := genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	}
	if len(cfg.Headers) > 0 {
		cc.HTTPOptions.Headers = http.Header{}
		for k, v := range cfg.Headers {
			cc.HTTPOptions.Headers.Set(k, v)
		}
	}
	m.vertex = cfg.VertexAI || strings.EqualFold(os.Getenv(EnvUseVertexAI), "true")
	creds := cfg.Credentials
	if !m.vertex {
		cc.APIKey = cfg.APIKey
		if cc.APIKey == "" {
			cc.APIKey = os.Getenv(DefaultAPIKeyEnv)
		}
		if cc.APIKey == "" {
			return nil, fmt.Errorf("%w: set the %s environment variable, or use Vertex AI (vertexai = true with project_id)", ErrMissingAPIKey, DefaultAPIKeyEnv)
		}
		creds = nil
	} else {
		cc.Backend = genai.BackendVertexAI
		cc.Project = cmpOr(cfg.ProjectID, os.Getenv(EnvProject))
		cc.Location = cmpOr(cfg.Location, os.Getenv(EnvLocation), DefaultLocation)
		if cc.Project == "" {
			// Vertex AI express mode takes an API key instead of a project.
			cc.APIKey = cmpOr(cfg.APIKey, os.Getenv(DefaultAPIKeyEnv))
			if cc.APIKey == "" {
				return nil, fmt.Errorf("gemini: Vertex AI needs a project: set project_id or the %s environment variable (or an API key for Vertex AI express mode)", EnvProject)
			}
			cc.Location = ""
			creds = nil
		} else if creds == nil {
			// Found now rather than by the SDK, which skips them when
			// given an HTTP client, as it is here.
			creds, err = credentials.DetectDefault(&credentials.DetectOptions{
				Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"},
			})
			if err != nil {
				return nil, fmt.Errorf("gemini: Vertex AI needs Google credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS: %w", err)
			}
		}
	}

	base := cfg.HTTPClient
	if base == nil {
		base = sharedHTTPClient()
	}
	hc := &http.Client{
		Transport:     retryTransport{base: roundTripper(base), policy: httpretry.Policy{MaxRetries: retries, Logger: logger, LogAttrs: []any{"provider", ProviderName, "model", id}}},
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
		Timeout:       base.Timeout,
	}
	if creds != nil {
		if err := authhttp.AddAuthorizationMiddleware(hc, creds); err != nil {
			return nil, fmt.Errorf("gemini: Vertex AI credentials: %w", err)
		}
	}
	// The SDK retries nothing unless HTTPOptions.RetryOptions is set; the
	// one policy is httpretry's, in hc.
	cc.HTTPClient = hc
	client, err := genai.NewClient(context.Background(), &cc)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	m.client = client
	return m, nil
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func roundTripper(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// thinkingLevels maps agno's thinking_level values onto the API's.
var thinkingLevels = map[string]genai.ThinkingLevel{
	"minimal": genai.ThinkingLevelMinimal,
	"low":     genai.ThinkingLevelLow,
	"medium":  genai.ThinkingLevelMedium,
	"high":    genai.ThinkingLevelHigh,
}

func thinkingConfig(budget *int, include *bool, level string) (*genai.ThinkingConfig, error) {
	if budget == nil && include == nil && level == "" {
		return nil, nil
	}
	tc := &genai.ThinkingConfig{}
	if budget != nil {
		// -1 asks for a dynamic budget, 0 turns thinking off.
		if *budget < -1 || *budget > 1<<24 {
			return nil, fmt.Errorf("gemini: thinking_budget is %d: use -1 (dynamic), 0 (off) or a number of tokens", *budget)
		}
		b := int32(*budget)
		tc.ThinkingBudget = &b
	}
	if include != nil {
		tc.IncludeThoughts = *include
	}
	if level != "" {
		l, ok := thinkingLevels[strings.ToLower(strings.TrimSpace(level))]
		if !ok {
			return nil, fmt.Errorf("gemini: thinking_level is %q: use minimal, low, medium or high", level)
		}
		tc.ThinkingLevel = l
	}
	return tc, nil
}

// Info implements model.Model. Gemini enforces a JSON schema given in
// Request.ResponseFormat (responseJsonSchema) and has a JSON mode.
func (m *Model) Info() model.Info {
	return model.Info{
		ID:                      m.id,
		Provider:                ProviderName,
		Name:                    "Gemini",
		NativeStructuredOutputs: true,
		JSONMode:                true,
		NativeReasoning:         m.reasoning,
	}
}

// nativeReasoning is agno's rule for its Gemini class, on the Gemini API
// and Vertex AI alike (reasoning/gemini.py): 2.5 and later models think,
// and so does any model given a positive thinking budget or
// include_thoughts (set either way, as agno checks only that it is set).
func nativeReasoning(id string, budget *int, includeThoughts *bool) model.NativeReasoning {
	lower := strings.ToLower(id)
	for _, s := range []string{"2.5", "3.0", "3.5", "deepthink", "gemini-3"} {
		if strings.Contains(lower, s) {
			return model.ReasoningThinking
		}
	}
	if (budget != nil && *budget > 0) || includeThoughts != nil {
		return model.ReasoningThinking
	}
	return model.ReasoningNone
}

// Generate implements model.Model: one generateContent call, or
// streamGenerateContent when req.Stream is set.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("%w: request is nil", ErrInvalidRequest))
			return
		}
		contents, config, err := m.newRequest(req)
		if err != nil {
			yield(nil, err)
			return
		}
		start := time.Now()
		if req.Stream {
			m.stream(ctx, contents, config, start, yield)
			return
		}
		resp, err := m.client.Models.GenerateContent(ctx, m.id, contents, config)
		if err != nil {
			yield(nil, m.convertError(ctx, err))
			return
		}
		acc := newAccumulator()
		text, reasoning := acc.add(resp)
		c := acc.final()
		c.Content, c.ReasoningContent = text, reasoning
		if c.Usage != nil {
			c.Usage.TimeToFirstToken = time.Since(start)
		}
		yield(c, nil)
	}
}

// stream yields reasoning and text as they arrive, then one final chunk
// with the tool calls, finish reason, usage and thought signatures.
func (m *Model) stream(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig, start time.Time, yield func(*model.Chunk, error) bool) {
	acc := newAccumulator()
	var first time.Duration
	for resp, err := range m.client.Models.GenerateContentStream(ctx, m.id, contents, config) {
		if err != nil {
			yield(nil, m.convertError(ctx, err))
			return
		}
		text, reasoning := acc.add(resp)
		if text == "" && reasoning == "" {
			continue
		}
		if first == 0 {
			first = time.Since(start)
		}
		if !yield(&model.Chunk{Content: text, ReasoningContent: reasoning}, nil) {
			return
		}
	}
	if err := ctx.Err(); err != nil {
		yield(nil, err)
		return
	}
	if !acc.finished {
		yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "stream ended before a finish reason"})
		return
	}
	c := acc.final()
	if c.Usage != nil {
		c.Usage.TimeToFirstToken = first
	}
	yield(c, nil)
}

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})
