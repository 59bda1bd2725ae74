// Package openai is an embedder.Embedder for OpenAI's embeddings API and
// every endpoint that speaks it (Ollama, vLLM, LiteLLM, any base URL): agno's
// OpenAIEmbedder and OpenAILike embedders. It is built on
// github.com/openai/openai-go/v3; the SDK's types stay in this package.
package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/knowledge/embedder"
)

// Defaults, as agno's OpenAIEmbedder sets them.
const (
	DefaultBaseURL   = "https://api.openai.com/v1"
	DefaultID        = "text-embedding-3-small"
	DefaultBatchSize = 100
	// DefaultMaxRetries matches the OpenAI SDKs.
	DefaultMaxRetries = 2
	// OpenAIKeyEnv is read when neither APIKey nor APIKeyEnv is set and
	// the base URL is OpenAI's.
	OpenAIKeyEnv = "OPENAI_API_KEY"
)

// Errors New returns.
var (
	// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
	ErrNoAPIKey      = fmt.Errorf("openai embedder: %w", embedder.ErrNoAPIKey)
	ErrInvalidConfig = errors.New("openai embedder: invalid config")
)

// Config configures an Embedder. The zero value embeds with
// text-embedding-3-small at api.openai.com, key from OPENAI_API_KEY.
type Config struct {
	// ID is the embedding model id.
	ID string
	// Dimensions of the vectors; zero means 3072 for
	// text-embedding-3-large and 1536 otherwise, as agno.
	Dimensions int
	// BaseURL of the API, including the version path (".../v1").
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>".
	APIKey string
	// APIKeyEnv names the environment variable that holds the key; when
	// set, the variable must be non-empty.
	APIKeyEnv string
	// BatchSize is how many texts go in one request; zero means
	// DefaultBatchSize. 1 sends each text alone, as agno does without
	// enable_batch.
	BatchSize int
	// User is sent as the "user" field when set.
	User string
	// MaxRetries for retryable failures (network, 408, 409, 429, 5xx), as
	// package httpretry decides; zero means DefaultMaxRetries and a
	// negative value disables retries.
	MaxRetries int
	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers map[string]string
	// ClientOptions are for a vendor that serves /embeddings behind its
	// own URLs and authentication (Azure): when set they replace BaseURL
	// and the key, and come before the retry middleware, so a rewrite of
	// theirs runs once a call.
	ClientOptions []option.RequestOption
}

// Embedder calls an OpenAI-compatible /embeddings endpoint. It is safe for
// concurrent use.
type Embedder struct {
	svc            sdk.EmbeddingService
	id             string
	dims           int
	sendDimensions bool
	batch          int
	user           string
}

var _ embedder.Embedder = (*Embedder)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(2*time.Minute, httptransport.Limits{})
	return hc
})

// New validates cfg and returns an Embedder.
func New(cfg Config) (*Embedder, error) {
	vendor := len(cfg.ClientOptions) > 0
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like \"http://localhost:11434/v1\"", ErrInvalidConfig, base)
	}
	// A vendor serving OpenAI's models (Azure) takes what OpenAI takes.
	custom := !vendor && strings.TrimRight(base, "/") != DefaultBaseURL
	var key string
	if !vendor {
		if key, err = resolveKey(cfg, custom); err != nil {
			return nil, err
		}
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 {
		return nil, fmt.Errorf("%w: dimensions (%d) and batch_size (%d) must not be negative", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize)
	}
	id := cmp.Or(cfg.ID, DefaultID)
	dims := cfg.Dimensions
	if dims == 0 {
		dims = embedder.DefaultDimensions
		if id == "text-embedding-3-large" {
			dims = 3072
		}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = sharedHTTPClient()
	}
	// Options are explicit rather than sdk.NewClient's, which would also
	// read OPENAI_* variables and send an OpenAI key to another endpoint.
	opts := []option.RequestOption{option.WithHTTPClient(httpClient)}
	if vendor {
		opts = append(opts, cfg.ClientOptions...)
	} else {
		opts = append(opts, option.WithBaseURL(base), option.WithAPIKey(key))
	}
	opts = append(opts,
		// The models' retry policy (httpretry), so the SDK's is off.
		option.WithMaxRetries(0),
		option.WithMiddleware(httpretry.Policy{MaxRetries: retries}.Middleware),
	)
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Embedder{
		svc:  sdk.NewEmbeddingService(opts...),
		id:   id,
		dims: dims,
		// agno sends dimensions to text-embedding-3 models and to any
		// third-party endpoint; older OpenAI models reject the field.
		sendDimensions: strings.HasPrefix(id, "text-embedding-3") || custom,
		batch:          cmp.Or(cfg.BatchSize, DefaultBatchSize),
		user:           cfg.User,
	}, nil
}

func resolveKey(cfg Config, custom bool) (string, error) {
	if cfg.APIKey != "" {
		return cfg.APIKey, nil
	}
	if cfg.APIKeyEnv != "" {
		if v := os.Getenv(cfg.APIKeyEnv); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%w: environment variable %s (api_key_env) is empty or unset: export %s=<your key>, or set api_key in the embedder config",
			ErrNoAPIKey, cfg.APIKeyEnv, cfg.APIKeyEnv)
	}
	if custom {
		return "", nil // local servers (Ollama, vLLM) need no key
	}
	if v := os.Getenv(OpenAIKeyEnv); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%w: %s is not set: export %s=<your key>, or set api_key or api_key_env in the embedder config",
		ErrNoAPIKey, OpenAIKeyEnv, OpenAIKeyEnv)
}

// ID is the model id requests name.
func (e *Embedder) ID() string { return e.id }

// Dimensions implements embedder.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

// Embed implements embedder.Embedder. Texts are sent in batches of
// BatchSize; the usage is the sum over batches.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	return embedder.EmbedInBatches(ctx, texts, e.batch, e.embedBatch)
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	params := sdk.EmbeddingNewParams{
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		Model:          sdk.EmbeddingModel(e.id),
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	if e.sendDimensions {
		params.Dimensions = sdk.Int(int64(e.dims))
	}
	if e.user != "" {
		params.User = sdk.String(e.user)
	}
	resp, err := e.svc.New(ctx, params)
	if err != nil {
		return nil, embedder.Usage{}, fmt.Errorf("openai embedder: %s: %w", e.id, err)
	}
	if len(resp.Data) != len(texts) {
		return nil, embedder.Usage{}, fmt.Errorf("openai embedder: %s returned %d embeddings for %d inputs", e.id, len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || out[d.Index] != nil {
			return nil, embedder.Usage{}, fmt.Errorf("openai embedder: %s returned a bad or repeated index %d", e.id, d.Index)
		}
		if len(d.Embedding) != e.dims {
			// A mismatch would put vectors of two lengths in one store.
			return nil, embedder.Usage{}, fmt.Errorf("openai embedder: %s returned %d dimensions, configured %d: set dimensions to %d",
				e.id, len(d.Embedding), e.dims, len(d.Embedding))
		}
		vec := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			vec[i] = float32(x)
		}
		out[d.Index] = vec
	}
	return out, embedder.Usage{PromptTokens: int(resp.Usage.PromptTokens), TotalTokens: int(resp.Usage.TotalTokens)}, nil
}
