// Package voyageai is an embedder.Embedder for Voyage AI's embeddings API
// (https://docs.voyageai.com/reference/embeddings-api): agno's
// VoyageAIEmbedder, registered as provider "voyageai". Voyage publishes
// no Go SDK, so it speaks the documented API with net/http.
package voyageai

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

// Defaults, as agno's VoyageAIEmbedder and Voyage's clients set them.
const (
	// Provider is the [knowledge.NAME.embedder] provider name (agno's
	// class VoyageAIEmbedder, module voyageai).
	Provider          = "voyageai"
	DefaultBaseURL    = "https://api.voyageai.com/v1"
	DefaultID         = "voyage-2"
	DefaultDimensions = 1024
	DefaultBatchSize  = 100
	// MaxBatchSize is the most texts one request may hold (the API's).
	MaxBatchSize = 1000
	// KeyEnv is where Voyage's clients read the key.
	KeyEnv = "VOYAGE_API_KEY"
)

// Errors New returns.
var (
	// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
	ErrNoAPIKey      = fmt.Errorf("voyageai embedder: %w", embedder.ErrNoAPIKey)
	ErrInvalidConfig = errors.New("voyageai embedder: invalid config")
)

// Options are the keys of a voyageai [knowledge.NAME.embedder] table
// beyond the common ones: agno's VoyageAIEmbedder fields.
type Options struct {
	// RequestParams is agno's request_params, the arguments of Voyage's
	// embed call it passes on.
	RequestParams RequestParams `toml:"request_params"`
}

// RequestParams are the embeddings request fields request_params may set.
type RequestParams struct {
	// InputType is "query" or "document"; empty sends none (Voyage's
	// default, as agno's).
	InputType string `toml:"input_type"`
	// Truncation of texts longer than the model takes; nil is Voyage's
	// default (true), false makes them an error.
	Truncation *bool `toml:"truncation"`
	// OutputDimension is 256, 512, 1024 or 2048 for the models that take
	// it; it is also the vectors' dimensions.
	OutputDimension int `toml:"output_dimension"`
}

// Config configures an Embedder.
type Config struct {
	ID string
	// Dimensions of the vectors; zero is OutputDimension or
	// DefaultDimensions.
	Dimensions int
	// BaseURL of the API with its version path; agno's form, the
	// embeddings URL itself, is taken too.
	BaseURL       string
	APIKey        string
	BatchSize     int
	RequestParams RequestParams
	MaxRetries    int
	HTTPClient    *http.Client
}

// Embedder calls Voyage's /v1/embeddings. It is safe for concurrent use.
type Embedder struct {
	client embedhttp.Client
	url    string
	id     string
	dims   int
	batch  int
	params RequestParams
}

var _ embedder.Embedder = (*Embedder)(nil)

func init() {
	embedder.Register(Provider, embedder.Provider[Options]{
		Summary:      "Voyage AI's embeddings API (api.voyageai.com), agno's VoyageAIEmbedder",
		KeyEnv:       KeyEnv,
		DefaultModel: DefaultID,
		New:          fromOptions,
	})
}

// New validates cfg and returns an Embedder. It makes no request.
func New(cfg Config) (*Embedder, error) {
	base := strings.TrimSuffix(strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/"), "/embeddings")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like %q", ErrInvalidConfig, base, DefaultBaseURL)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: %s is not set: export %s=<your key>, or name another variable with api_key_env", ErrNoAPIKey, KeyEnv, KeyEnv)
	}
	rp := cfg.RequestParams
	if rp.InputType != "" && rp.InputType != "query" && rp.InputType != "document" {
		return nil, fmt.Errorf("%w: request_params.input_type = %q: use \"query\" or \"document\", or leave it out", ErrInvalidConfig, rp.InputType)
	}
	if rp.OutputDimension != 0 && !slices.Contains([]int{256, 512, 1024, 2048}, rp.OutputDimension) {
		return nil, fmt.Errorf("%w: request_params.output_dimension = %d: use 256, 512, 1024 or 2048", ErrInvalidConfig, rp.OutputDimension)
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 || cfg.BatchSize > MaxBatchSize {
		return nil, fmt.Errorf("%w: dimensions (%d) must not be negative and batch_size (%d) at most %d, Voyage's limit", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize, MaxBatchSize)
	}
	dims := cfg.Dimensions
	if od := rp.OutputDimension; od != 0 {
		if dims != 0 && dims != od {
			return nil, fmt.Errorf("%w: dimensions = %d but request_params.output_dimension = %d: the vectors have output_dimension entries, so drop dimensions or make them equal", ErrInvalidConfig, dims, od)
		}
		dims = od
	}
	return &Embedder{
		client: embedhttp.Client{HTTP: cfg.HTTPClient, MaxRetries: cfg.MaxRetries, Headers: map[string]string{"Authorization": "Bearer " + cfg.APIKey}},
		url:    base + "/embeddings",
		id:     cmp.Or(cfg.ID, DefaultID),
		// agno keeps 1024 whatever the model.
		dims:   cmp.Or(dims, DefaultDimensions),
		batch:  cmp.Or(cfg.BatchSize, DefaultBatchSize),
		params: rp,
	}, nil
}

func fromOptions(o embedder.Options, x *Options) (embedder.Embedder, error) {
	env := cmp.Or(o.APIKeyEnv, KeyEnv)
	cfg := Config{ID: o.Model, Dimensions: o.Dimensions, BaseURL: o.BaseURL, APIKey: os.Getenv(env), BatchSize: o.BatchSize, RequestParams: x.RequestParams}
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
	Input           []string `json:"input"`
	Model           string   `json:"model"`
	InputType       string   `json:"input_type,omitempty"`
	Truncation      *bool    `json:"truncation,omitempty"`
	OutputDimension int      `json:"output_dimension,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	} `json:"data"`
	Usage struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// Embed implements embedder.Embedder. Texts go in batches of BatchSize;
// the usage is the tokens Voyage counts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage embedder.Usage
	for batch := range slices.Chunk(texts, e.batch) {
		req := embedRequest{Input: batch, Model: e.id, InputType: e.params.InputType, Truncation: e.params.Truncation, OutputDimension: e.params.OutputDimension}
		var res embedResponse
		if err := e.client.PostJSON(ctx, e.url, req, &res); err != nil {
			return nil, embedder.Usage{}, fmt.Errorf("voyageai embedder: %s: %w", e.id, err)
		}
		if len(res.Data) != len(batch) {
			return nil, embedder.Usage{}, fmt.Errorf("voyageai embedder: %s returned %d embeddings for %d inputs", e.id, len(res.Data), len(batch))
		}
		vecs := make([][]float32, len(batch))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil {
				return nil, embedder.Usage{}, fmt.Errorf("voyageai embedder: %s returned a bad or repeated index %d", e.id, d.Index)
			}
			if len(d.Embedding) != e.dims {
				// A mismatch would put vectors of two lengths in one store.
				return nil, embedder.Usage{}, fmt.Errorf("voyageai embedder: %s returned %d dimensions, configured %d: set dimensions to %d",
					e.id, len(d.Embedding), e.dims, len(d.Embedding))
			}
			vecs[d.Index] = d.Embedding
		}
		out = append(out, vecs...)
		// Voyage reports total tokens only, all of them input.
		usage = usage.Add(embedder.Usage{PromptTokens: res.Usage.TotalTokens, TotalTokens: res.Usage.TotalTokens})
	}
	return out, usage, nil
}
