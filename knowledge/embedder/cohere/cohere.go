// Package cohere is an embedder.Embedder for Cohere's Embed API v2
// (https://docs.cohere.com/reference/embed) through Cohere's Go SDK,
// github.com/cohere-ai/cohere-go/v2: agno's CohereEmbedder, registered as
// provider "cohere". The SDK's types stay in this package.
package cohere

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
	"sync"
	"time"

	api "github.com/cohere-ai/cohere-go/v2"
	"github.com/cohere-ai/cohere-go/v2/option"
	sdk "github.com/cohere-ai/cohere-go/v2/v2"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/knowledge/embedder"
)

// Defaults, as agno's CohereEmbedder and Cohere's API set them.
const (
	// Provider is the [knowledge.NAME.embedder] provider name, agno's
	// model-string name for Cohere.
	Provider         = "cohere"
	DefaultBaseURL   = "https://api.cohere.com"
	DefaultID        = "embed-english-v3.0"
	DefaultInputType = "search_query"
	// MaxBatchSize is the most texts one request may hold (the API's).
	MaxBatchSize = 96
	// KeyEnv is where agno and Cohere's SDKs read the key.
	KeyEnv            = "CO_API_KEY"
	DefaultMaxRetries = 2
)

// Errors New returns.
var (
	// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
	ErrNoAPIKey      = fmt.Errorf("cohere embedder: %w", embedder.ErrNoAPIKey)
	ErrInvalidConfig = errors.New("cohere embedder: invalid config")
)

// modelDimensions are the vector lengths of Cohere's embedding models
// (https://docs.cohere.com/docs/cohere-embed); embed-v4.0's default, 1536,
// changes with output_dimension.
var modelDimensions = map[string]int{
	"embed-v4.0":                    1536,
	"embed-english-v3.0":            1024,
	"embed-multilingual-v3.0":       1024,
	"embed-english-light-v3.0":      384,
	"embed-multilingual-light-v3.0": 384,
}

// Options are the keys of a cohere [knowledge.NAME.embedder] table beyond
// the common ones: agno's CohereEmbedder fields.
type Options struct {
	// InputType is agno's input_type: "search_query" (agno's default),
	// "search_document", "classification" or "clustering".
	InputType string `toml:"input_type"`
	// EmbeddingTypes is agno's embedding_types; vectors are read from
	// "float", so a list must hold it.
	EmbeddingTypes []string `toml:"embedding_types"`
	// RequestParams is agno's request_params: the Embed request's other
	// fields.
	RequestParams RequestParams `toml:"request_params"`
}

// RequestParams are the Embed v2 request fields request_params may set.
type RequestParams struct {
	// Truncate is "NONE", "START" or "END" (the API's default).
	Truncate string `toml:"truncate"`
	// OutputDimension is 256, 512, 1024 or 1536, for embed-v4.0 and
	// newer; it is also the vectors' dimensions.
	OutputDimension int `toml:"output_dimension"`
	// MaxTokens embedded per input.
	MaxTokens int `toml:"max_tokens"`
}

// Config configures an Embedder.
type Config struct {
	ID string
	// Dimensions of the vectors; zero is the model's (known models) or
	// OutputDimension.
	Dimensions int
	// BaseURL of the API, without the /v2 path.
	BaseURL string
	APIKey  string
	// BatchSize is how many texts go in one request, at most (and by
	// default) MaxBatchSize.
	BatchSize  int
	Options    Options
	MaxRetries int
	HTTPClient *http.Client
}

// Embedder calls Cohere's /v2/embed. It is safe for concurrent use.
type Embedder struct {
	client *sdk.Client
	id     string
	dims   int
	batch  int
	req    api.V2EmbedRequest // the fields every request shares
}

var _ embedder.Embedder = (*Embedder)(nil)

func init() {
	embedder.Register(Provider, embedder.Provider[Options]{
		Summary:      "Cohere's Embed API v2 (api.cohere.com), agno's CohereEmbedder",
		KeyEnv:       KeyEnv,
		DefaultModel: DefaultID,
		New:          fromOptions,
	})
}

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(2*time.Minute, httptransport.Limits{})
	return hc
})

// New validates cfg and returns an Embedder. It makes no request.
func New(cfg Config) (*Embedder, error) {
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base_url %q is not an http(s) URL: set it like %q", ErrInvalidConfig, base, DefaultBaseURL)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: %s is not set: export %s=<your key>, or name another variable with api_key_env", ErrNoAPIKey, KeyEnv, KeyEnv)
	}
	id := cmp.Or(cfg.ID, DefaultID)
	req, err := request(id, cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 || cfg.BatchSize > MaxBatchSize {
		return nil, fmt.Errorf("%w: dimensions (%d) must not be negative and batch_size (%d) at most %d, Cohere's limit", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize, MaxBatchSize)
	}
	dims := cfg.Dimensions
	if od := cfg.Options.RequestParams.OutputDimension; od != 0 {
		if dims != 0 && dims != od {
			return nil, fmt.Errorf("%w: dimensions = %d but request_params.output_dimension = %d: the vectors have output_dimension entries, so drop dimensions or make them equal", ErrInvalidConfig, dims, od)
		}
		dims = od
	}
	if dims == 0 {
		if dims = modelDimensions[id]; dims == 0 {
			return nil, fmt.Errorf("%w: the dimensions of model %q are not known here: set dimensions to its vector length", ErrInvalidConfig, id)
		}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	hc := *cmp.Or(cfg.HTTPClient, sharedHTTPClient())
	hc.Transport = retrying{base: cmp.Or[http.RoundTripper](hc.Transport, http.DefaultTransport), policy: httpretry.Policy{MaxRetries: retries}}
	client := sdk.NewClient(
		option.WithBaseURL(strings.TrimRight(base, "/")),
		option.WithToken(cfg.APIKey),
		option.WithHTTPClient(&hc),
		// The models' retry policy (httpretry), so the SDK's is off.
		option.WithMaxAttempts(1),
	)
	return &Embedder{client: client, id: id, dims: dims, batch: cmp.Or(cfg.BatchSize, MaxBatchSize), req: req}, nil
}

// request checks the options and returns the request fields they set.
func request(id string, o Options) (api.V2EmbedRequest, error) {
	req := api.V2EmbedRequest{Model: id, InputType: api.EmbedInputType(cmp.Or(o.InputType, DefaultInputType))}
	switch req.InputType {
	case api.EmbedInputTypeSearchQuery, api.EmbedInputTypeSearchDocument, api.EmbedInputTypeClassification, api.EmbedInputTypeClustering:
	default:
		return req, fmt.Errorf("%w: input_type = %q: use \"search_query\" (agno's default), \"search_document\" (for the texts stored), \"classification\" or \"clustering\"", ErrInvalidConfig, o.InputType)
	}
	req.EmbeddingTypes = []api.EmbeddingType{api.EmbeddingTypeFloat}
	if len(o.EmbeddingTypes) > 0 {
		if !slices.Contains(o.EmbeddingTypes, "float") {
			return req, fmt.Errorf("%w: embedding_types = %q: the vectors stored are the float ones, so include \"float\" (or drop embedding_types)", ErrInvalidConfig, o.EmbeddingTypes)
		}
		req.EmbeddingTypes = nil
		for _, t := range o.EmbeddingTypes {
			et, err := api.NewEmbeddingTypeFromString(t)
			if err != nil {
				return req, fmt.Errorf("%w: embedding_types: %q is not a type: use \"float\", \"int8\", \"uint8\", \"binary\", \"ubinary\" or \"base64\"", ErrInvalidConfig, t)
			}
			req.EmbeddingTypes = append(req.EmbeddingTypes, et)
		}
	}
	rp := o.RequestParams
	if rp.Truncate != "" {
		t, err := api.NewV2EmbedRequestTruncateFromString(strings.ToUpper(rp.Truncate))
		if err != nil {
			return req, fmt.Errorf("%w: request_params.truncate = %q: use \"NONE\", \"START\" or \"END\"", ErrInvalidConfig, rp.Truncate)
		}
		req.Truncate = &t
	}
	if rp.OutputDimension != 0 {
		if !slices.Contains([]int{256, 512, 1024, 1536}, rp.OutputDimension) {
			return req, fmt.Errorf("%w: request_params.output_dimension = %d: use 256, 512, 1024 or 1536 (embed-v4.0 and newer)", ErrInvalidConfig, rp.OutputDimension)
		}
		req.OutputDimension = &rp.OutputDimension
	}
	if rp.MaxTokens < 0 {
		return req, fmt.Errorf("%w: request_params.max_tokens = %d must be positive", ErrInvalidConfig, rp.MaxTokens)
	}
	if rp.MaxTokens > 0 {
		req.MaxTokens = &rp.MaxTokens
	}
	return req, nil
}

// retrying sends requests under the retry policy of package httpretry.
type retrying struct {
	base   http.RoundTripper
	policy httpretry.Policy
}

func (r retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	return r.policy.Middleware(req, r.base.RoundTrip)
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

// Embed implements embedder.Embedder. Texts go in batches of BatchSize;
// the usage is the input tokens Cohere bills.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage embedder.Usage
	for batch := range slices.Chunk(texts, e.batch) {
		req := e.req
		req.Texts = batch
		res, err := e.client.Embed(ctx, &req)
		if err != nil {
			return nil, embedder.Usage{}, fmt.Errorf("cohere embedder: %s: %w", e.id, err)
		}
		var floats [][]float64
		if res.Embeddings != nil {
			floats = res.Embeddings.Float
		}
		if len(floats) != len(batch) {
			return nil, embedder.Usage{}, fmt.Errorf("cohere embedder: %s returned %d float embeddings for %d inputs", e.id, len(floats), len(batch))
		}
		for _, f := range floats {
			if len(f) != e.dims {
				// A mismatch would put vectors of two lengths in one store.
				return nil, embedder.Usage{}, fmt.Errorf("cohere embedder: %s returned %d dimensions, configured %d: set dimensions to %d",
					e.id, len(f), e.dims, len(f))
			}
			vec := make([]float32, len(f))
			for i, x := range f {
				vec[i] = float32(x)
			}
			out = append(out, vec)
		}
		if res.Meta != nil && res.Meta.BilledUnits != nil && res.Meta.BilledUnits.InputTokens != nil {
			n := int(*res.Meta.BilledUnits.InputTokens)
			usage = usage.Add(embedder.Usage{PromptTokens: n, TotalTokens: n})
		}
	}
	return out, usage, nil
}
