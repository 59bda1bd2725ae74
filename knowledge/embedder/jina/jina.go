// Package jina is an embedder.Embedder for Jina AI's embeddings API
// (https://api.jina.ai/redoc#tag/embeddings): agno's JinaEmbedder,
// registered as provider "jina". agno posts JSON without an SDK, and Jina
// publishes no Go SDK, so it speaks the documented API with net/http.
package jina

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/internal/embedhttp"
)

// Defaults, as agno's JinaEmbedder sets them.
const (
	// Provider is the [knowledge.NAME.embedder] provider name.
	Provider          = "jina"
	DefaultBaseURL    = "https://api.jina.ai/v1/embeddings"
	DefaultID         = "jina-embeddings-v3"
	DefaultDimensions = 1024
	DefaultBatchSize  = 100
	KeyEnv            = "JINA_API_KEY"
)

// Errors New returns.
var (
	// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
	ErrNoAPIKey      = fmt.Errorf("jina embedder: %w", embedder.ErrNoAPIKey)
	ErrInvalidConfig = errors.New("jina embedder: invalid config")
)

// tasks are the task values the API takes (jina-embeddings-v3).
var tasks = []string{"retrieval.query", "retrieval.passage", "separation", "classification", "text-matching"}

// Options are the keys of a jina [knowledge.NAME.embedder] table beyond
// the common ones: agno's JinaEmbedder fields.
type Options struct {
	// EmbeddingType is agno's embedding_type; the vectors stored are
	// floats, so only "float" (the default) is taken.
	EmbeddingType string `toml:"embedding_type"`
	// LateChunking is agno's late_chunking: the texts of a request are
	// embedded in each other's context.
	LateChunking bool `toml:"late_chunking"`
	// User is agno's user, sent as "user".
	User string `toml:"user"`
	// Headers are agno's headers, added to each request.
	Headers map[string]string `toml:"headers"`
	// RequestParams is agno's request_params: the request's other fields.
	RequestParams RequestParams `toml:"request_params"`
}

// RequestParams are the embeddings request fields request_params may set.
type RequestParams struct {
	// Task is "retrieval.query", "retrieval.passage", "separation",
	// "classification" or "text-matching".
	Task       string `toml:"task"`
	Normalized *bool  `toml:"normalized"`
	Truncate   *bool  `toml:"truncate"`
}

// Config configures an Embedder.
type Config struct {
	ID         string
	Dimensions int
	// BaseURL is the embeddings URL (agno's form) or the API base it is
	// under ("https://api.jina.ai/v1").
	BaseURL    string
	APIKey     string
	BatchSize  int
	Options    Options
	MaxRetries int
	HTTPClient *http.Client
}

// Embedder calls Jina's /v1/embeddings. It is safe for concurrent use.
type Embedder struct {
	client embedhttp.Client
	url    string
	id     string
	dims   int
	batch  int
	opts   Options
}

var _ embedder.Embedder = (*Embedder)(nil)

func init() {
	embedder.Register(Provider, embedder.Provider[Options]{
		Summary:      "Jina AI's embeddings API (api.jina.ai), agno's JinaEmbedder",
		KeyEnv:       KeyEnv,
		DefaultModel: DefaultID,
		New:          fromOptions,
	})
}

// New validates cfg and returns an Embedder. It makes no request.
func New(cfg Config) (*Embedder, error) {
	endpoint := strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/")
	if !strings.HasSuffix(endpoint, "/embeddings") {
		endpoint += "/embeddings"
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like %q", ErrInvalidConfig, cfg.BaseURL, DefaultBaseURL)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: %s is not set: export %s=<your key>, or name another variable with api_key_env", ErrNoAPIKey, KeyEnv, KeyEnv)
	}
	o := cfg.Options
	if o.EmbeddingType != "" && o.EmbeddingType != "float" {
		return nil, fmt.Errorf("%w: embedding_type = %q: the vectors stored are floats, so use \"float\" (the default)", ErrInvalidConfig, o.EmbeddingType)
	}
	if t := o.RequestParams.Task; t != "" && !slices.Contains(tasks, t) {
		return nil, fmt.Errorf("%w: request_params.task = %q: use one of %s", ErrInvalidConfig, t, strings.Join(tasks, ", "))
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 {
		return nil, fmt.Errorf("%w: dimensions (%d) and batch_size (%d) must not be negative", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize)
	}
	for k, v := range o.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("%w: headers: %q = %q is not a header: give a name without spaces or colons and a one-line value", ErrInvalidConfig, k, v)
		}
	}
	headers := maps.Clone(o.Headers)
	if headers == nil {
		headers = map[string]string{}
	}
	headers["Authorization"] = "Bearer " + cfg.APIKey
	return &Embedder{
		client: embedhttp.Client{HTTP: cfg.HTTPClient, MaxRetries: cfg.MaxRetries, Headers: headers},
		url:    endpoint,
		id:     cmp.Or(cfg.ID, DefaultID),
		dims:   cmp.Or(cfg.Dimensions, DefaultDimensions),
		batch:  cmp.Or(cfg.BatchSize, DefaultBatchSize),
		opts:   o,
	}, nil
}

func fromOptions(o embedder.Options, x *Options) (embedder.Embedder, error) {
	env := cmp.Or(o.APIKeyEnv, KeyEnv)
	cfg := Config{ID: o.Model, Dimensions: o.Dimensions, BaseURL: o.BaseURL, APIKey: os.Getenv(env), BatchSize: o.BatchSize, Options: *x}
	return embedder.NewOrMissingKey(func(placeholder string) (embedder.Embedder, error) {
		c := cfg
		c.APIKey = cmp.Or(placeholder, c.APIKey)
		return New(c)
	}, embedder.KeyNotSet(ErrNoAPIKey, env))
}

// ID is the model id requests name.
func (e *Embedder) ID() string { return e.id }

// Dimensions implements embedder.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

type embedRequest struct {
	Model         string   `json:"model"`
	Input         []string `json:"input"`
	Dimensions    int      `json:"dimensions"`
	EmbeddingType string   `json:"embedding_type"`
	LateChunking  bool     `json:"late_chunking"`
	User          string   `json:"user,omitempty"`
	Task          string   `json:"task,omitempty"`
	Normalized    *bool    `json:"normalized,omitempty"`
	Truncate      *bool    `json:"truncate,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// Embed implements embedder.Embedder. Texts go in batches of BatchSize,
// with agno's fields (dimensions, embedding_type, late_chunking) in each.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage embedder.Usage
	for batch := range slices.Chunk(texts, e.batch) {
		rp := e.opts.RequestParams
		req := embedRequest{
			Model: e.id, Input: batch, Dimensions: e.dims, EmbeddingType: "float", LateChunking: e.opts.LateChunking,
			User: e.opts.User, Task: rp.Task, Normalized: rp.Normalized, Truncate: rp.Truncate,
		}
		var res embedResponse
		if err := e.client.PostJSON(ctx, e.url, req, &res); err != nil {
			return nil, embedder.Usage{}, fmt.Errorf("jina embedder: %s: %w", e.id, err)
		}
		if len(res.Data) != len(batch) {
			return nil, embedder.Usage{}, fmt.Errorf("jina embedder: %s returned %d embeddings for %d inputs", e.id, len(res.Data), len(batch))
		}
		vecs := make([][]float32, len(batch))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil {
				return nil, embedder.Usage{}, fmt.Errorf("jina embedder: %s returned a bad or repeated index %d", e.id, d.Index)
			}
			if len(d.Embedding) != e.dims {
				// A mismatch would put vectors of two lengths in one store.
				return nil, embedder.Usage{}, fmt.Errorf("jina embedder: %s returned %d dimensions, configured %d: set dimensions to %d",
					e.id, len(d.Embedding), e.dims, len(d.Embedding))
			}
			vecs[d.Index] = d.Embedding
		}
		out = append(out, vecs...)
		usage = usage.Add(embedder.Usage{PromptTokens: cmp.Or(res.Usage.PromptTokens, res.Usage.TotalTokens), TotalTokens: res.Usage.TotalTokens})
	}
	return out, usage, nil
}
