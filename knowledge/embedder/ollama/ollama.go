// Package ollama is an embedder.Embedder for Ollama's /api/embed: agno's
// OllamaEmbedder, registered as provider "ollama".
//
// It speaks the documented API with net/http rather than through
// github.com/ollama/ollama/api: that client lives in the Ollama server's
// module, whose requirements (the server's, GPU bindings among them) a
// build would then resolve for one JSON POST.
package ollama

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/internal/embedhttp"
)

// Defaults, as agno's OllamaEmbedder and the Ollama client set them.
const (
	// Provider is the [knowledge.NAME.embedder] provider name, agno's
	// model-string name for Ollama.
	Provider          = "ollama"
	DefaultHost       = "http://localhost:11434"
	DefaultID         = "openhermes"
	DefaultDimensions = 4096
	DefaultBatchSize  = 100
	// HostEnv is read when neither Host nor BaseURL is set, as the Ollama
	// clients do.
	HostEnv = "OLLAMA_HOST"
)

// ErrInvalidConfig is matched by the errors of New.
var ErrInvalidConfig = errors.New("ollama embedder: invalid config")

// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
var ErrNoAPIKey = fmt.Errorf("ollama embedder: %w", embedder.ErrNoAPIKey)

// Options are the keys of an ollama [knowledge.NAME.embedder] table beyond
// the common ones: agno's OllamaEmbedder fields.
type Options struct {
	// Host is agno's host: the server, "http://localhost:11434" by
	// default (base_url means the same; set one of them).
	Host string `toml:"host"`
	// Options are agno's options: model parameters sent with each
	// request (num_ctx, ...).
	Options map[string]any `toml:"options"`
}

// Config configures an Embedder. The zero value embeds with openhermes at
// localhost:11434 (or $OLLAMA_HOST) into 4096 dimensions, as agno.
type Config struct {
	ID string
	// Host of the server, with or without a scheme.
	Host string
	// Dimensions of the vectors, sent to the server as agno does; zero is
	// DefaultDimensions.
	Dimensions int
	// BatchSize is how many texts go in one request; zero is
	// DefaultBatchSize.
	BatchSize int
	// Options are model parameters sent with each request.
	Options map[string]any
	// APIKey, when set, is sent as a bearer token (a server behind an
	// authenticating proxy, or ollama.com).
	APIKey     string
	MaxRetries int
	HTTPClient *http.Client
}

// Embedder calls Ollama's /api/embed. It is safe for concurrent use.
type Embedder struct {
	client  embedhttp.Client
	url     string
	id      string
	dims    int
	batch   int
	options map[string]any
}

var _ embedder.Embedder = (*Embedder)(nil)

func init() {
	embedder.Register(Provider, embedder.Provider[Options]{
		Summary:      "Ollama's /api/embed at host (default localhost:11434), agno's OllamaEmbedder",
		DefaultModel: DefaultID,
		New:          fromOptions,
	})
}

// New validates cfg and returns an Embedder.
func New(cfg Config) (*Embedder, error) {
	host := cmp.Or(cfg.Host, os.Getenv(HostEnv), DefaultHost)
	if !strings.Contains(host, "://") {
		host = "http://" + host // as the Ollama clients read OLLAMA_HOST
	}
	u, err := url.Parse(host)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: host %q is not an http(s) URL: set it like \"http://localhost:11434\"", ErrInvalidConfig, host)
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 {
		return nil, fmt.Errorf("%w: dimensions (%d) and batch_size (%d) must not be negative", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize)
	}
	headers := map[string]string{}
	if cfg.APIKey != "" {
		headers["Authorization"] = "Bearer " + cfg.APIKey
	}
	return &Embedder{
		client:  embedhttp.Client{HTTP: cfg.HTTPClient, MaxRetries: cfg.MaxRetries, Headers: headers},
		url:     strings.TrimRight(host, "/") + "/api/embed",
		id:      cmp.Or(cfg.ID, DefaultID),
		dims:    cmp.Or(cfg.Dimensions, DefaultDimensions),
		batch:   cmp.Or(cfg.BatchSize, DefaultBatchSize),
		options: cfg.Options,
	}, nil
}

func fromOptions(o embedder.Options, x *Options) (embedder.Embedder, error) {
	if x.Host != "" && o.BaseURL != "" && strings.TrimRight(x.Host, "/") != strings.TrimRight(o.BaseURL, "/") {
		return nil, fmt.Errorf("%w: host %q and base_url %q both name the server: keep one", ErrInvalidConfig, x.Host, o.BaseURL)
	}
	cfg := Config{ID: o.Model, Host: cmp.Or(x.Host, o.BaseURL), Dimensions: o.Dimensions, BatchSize: o.BatchSize, Options: x.Options}
	if strings.HasSuffix(strings.TrimRight(cfg.Host, "/"), "/v1") {
		return nil, fmt.Errorf("%w: %q is Ollama's OpenAI-compatible path; ollama takes the server itself (\"http://localhost:11434\"), or use provider \"openai-compatible\" for /v1", ErrInvalidConfig, cfg.Host)
	}
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if o.APIKeyEnv != "" {
		key := os.Getenv(o.APIKeyEnv)
		if key == "" {
			return embedder.MissingKey(e.dims, fmt.Errorf("%w: %s (api_key_env) is not set: export %s=<your key> and restart", ErrNoAPIKey, o.APIKeyEnv, o.APIKeyEnv)), nil
		}
		e.client.Headers["Authorization"] = "Bearer " + key
	}
	return e, nil
}

// ID is the model id requests name.
func (e *Embedder) ID() string { return e.id }

// Dimensions implements embedder.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

type embedRequest struct {
	Model      string         `json:"model"`
	Input      []string       `json:"input"`
	Dimensions int            `json:"dimensions,omitempty"`
	Options    map[string]any `json:"options,omitempty"`
}

type embedResponse struct {
	Model           string      `json:"model"`
	Embeddings      [][]float32 `json:"embeddings"`
	PromptEvalCount int         `json:"prompt_eval_count"`
}

// Embed implements embedder.Embedder. Texts go in batches of BatchSize
// (/api/embed takes a list); the usage is the prompt tokens Ollama counts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage embedder.Usage
	for batch := range slices.Chunk(texts, e.batch) {
		var res embedResponse
		req := embedRequest{Model: e.id, Input: batch, Dimensions: e.dims, Options: e.options}
		if err := e.client.PostJSON(ctx, e.url, req, &res); err != nil {
			return nil, embedder.Usage{}, fmt.Errorf("ollama embedder: %s: %w", e.id, err)
		}
		if len(res.Embeddings) != len(batch) {
			return nil, embedder.Usage{}, fmt.Errorf("ollama embedder: %s returned %d embeddings for %d inputs", e.id, len(res.Embeddings), len(batch))
		}
		for _, v := range res.Embeddings {
			if len(v) != e.dims {
				// A mismatch would put vectors of two lengths in one store.
				return nil, embedder.Usage{}, fmt.Errorf("ollama embedder: %s returned %d dimensions, configured %d: set dimensions to %d",
					e.id, len(v), e.dims, len(v))
			}
		}
		out = append(out, res.Embeddings...)
		usage = usage.Add(embedder.Usage{PromptTokens: res.PromptEvalCount, TotalTokens: res.PromptEvalCount})
	}
	return out, usage, nil
}
