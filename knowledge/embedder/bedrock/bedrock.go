// Package bedrock is agno's AwsBedrockEmbedder: Cohere Embed (v3, v4) and
// Amazon Titan text embeddings through Bedrock's InvokeModel, with
// aws-sdk-go-v2's bedrockruntime client and AWS's credential chain.
package bedrock

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/auth/bearer"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/knowledge/embedder"
)

// Defaults, as agno's AwsBedrockEmbedder has them.
const (
	DefaultID         = "cohere.embed-multilingual-v3"
	DefaultMaxRetries = 2
	// DefaultInputType is agno's input_type default.
	DefaultInputType = "search_query"
	// cohereMaxTexts is how many texts Cohere Embed takes in one call.
	cohereMaxTexts = 96
)

// ErrInvalidConfig wraps every configuration New refuses.
var ErrInvalidConfig = errors.New("aws-bedrock embedder: invalid config")

// Config configures an Embedder.
type Config struct {
	// ID is the Bedrock model id: cohere.embed-english-v3,
	// cohere.embed-multilingual-v3, cohere.embed-v4:0,
	// amazon.titan-embed-text-v2:0 or amazon.titan-embed-text-v1.
	ID string
	// Dimensions of the vectors; zero for the model's default (Cohere v3
	// 1024, v4 1536, Titan v2 1024, Titan v1 1536).
	Dimensions int
	// AwsRegion is the region; default AWS_REGION, then the shared
	// config's. Required.
	AwsRegion string
	// BaseURL overrides the bedrock-runtime endpoint.
	BaseURL string
	// APIKey is a Bedrock API key, sent as a bearer token instead of a
	// SigV4 signature; APIKeyEnv names a variable holding one.
	APIKey, APIKeyEnv string
	// BatchSize is how many texts one Cohere call embeds (at most 96,
	// the default); Titan embeds one text per call.
	BatchSize int
	// MaxRetries for throttling, 5xx, model timeouts and network errors;
	// zero means DefaultMaxRetries, negative none.
	MaxRetries int
	HTTPClient *http.Client
	Headers    map[string]string
}

// family is how a model takes and returns texts.
type family int

const (
	cohereV3 family = iota
	cohereV4
	titanV2
	titanV1
)

// Embedder embeds texts with a Bedrock embedding model. It is safe for
// concurrent use.
type Embedder struct {
	client *bedrockruntime.Client
	id     string
	family family
	dims   int
	batch  int
}

var _ embedder.Embedder = (*Embedder)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(2*time.Minute, httptransport.Limits{})
	return hc
})

// New validates cfg and returns an Embedder; it sends nothing.
func New(cfg Config) (*Embedder, error) {
	id := cmp.Or(cfg.ID, DefaultID)
	fam, dims, err := modelFamily(id, cfg.Dimensions)
	if err != nil {
		return nil, err
	}
	batch := cmp.Or(cfg.BatchSize, cohereMaxTexts)
	if cfg.BatchSize < 0 || batch > cohereMaxTexts {
		return nil, fmt.Errorf("%w: batch_size %d: Cohere Embed takes 1 to %d texts per call", ErrInvalidConfig, cfg.BatchSize, cohereMaxTexts)
	}
	if fam == titanV1 || fam == titanV2 {
		batch = 1
	}
	key := cfg.APIKey
	if key == "" && cfg.APIKeyEnv != "" {
		if key = os.Getenv(cfg.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("%w: api_key_env names %s, which is not set: export %s=<your Bedrock API key>, or remove api_key_env to sign with AWS credentials", embedder.ErrNoAPIKey, cfg.APIKeyEnv, cfg.APIKeyEnv)
		}
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	var loadOpts []func(*awsconfig.LoadOptions) error
	if region := cmp.Or(cfg.AwsRegion, os.Getenv("AWS_REGION")); region != "" {
		loadOpts = append(loadOpts, awsconfig.WithRegion(region))
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background(), loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("aws-bedrock embedder: loading the AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		return nil, fmt.Errorf("%w: no AWS region: export AWS_REGION (e.g. us-east-1) or set the profile's region", ErrInvalidConfig)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient()
	}
	client := bedrockruntime.NewFromConfig(awsCfg, func(o *bedrockruntime.Options) {
		o.HTTPClient = hc
		o.Retryer = retryer{maxAttempts: 1 + retries}
		if cfg.BaseURL != "" {
			o.BaseEndpoint = aws.String(cfg.BaseURL)
		}
		if key != "" {
			o.BearerAuthTokenProvider = bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
				return bearer.Token{Value: key}, nil
			})
			o.AuthSchemePreference = []string{"httpBearerAuth"}
		}
		for k, v := range cfg.Headers {
			o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue(k, v))
		}
	})
	return &Embedder{client: client, id: id, family: fam, dims: dims, batch: batch}, nil
}

// modelFamily checks dims against what the model can return.
func modelFamily(id string, dims int) (family, int, error) {
	choose := func(f family, def int, allowed ...int) (family, int, error) {
		if dims == 0 {
			return f, def, nil
		}
		if !slices.Contains(allowed, dims) {
			return 0, 0, fmt.Errorf("%w: %s returns %v dimensions, not %d: set dimensions to one of them or 0", ErrInvalidConfig, id, allowed, dims)
		}
		return f, dims, nil
	}
	lower := strings.ToLower(id)
	switch {
	case strings.Contains(lower, "cohere.embed-v4"):
		return choose(cohereV4, 1536, 256, 512, 1024, 1536)
	case strings.Contains(lower, "cohere.embed-"):
		return choose(cohereV3, 1024, 1024)
	case strings.Contains(lower, "amazon.titan-embed-text-v2"):
		return choose(titanV2, 1024, 256, 512, 1024)
	case strings.Contains(lower, "amazon.titan-embed-text-v1"):
		return choose(titanV1, 1536, 1536)
	}
	return 0, 0, fmt.Errorf("%w: model %q is not an embedding model this embedder speaks: use cohere.embed-english-v3, cohere.embed-multilingual-v3, cohere.embed-v4:0, amazon.titan-embed-text-v2:0 or amazon.titan-embed-text-v1", ErrInvalidConfig, id)
}

// Dimensions implements embedder.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

// Embed implements embedder.Embedder: Cohere embeds up to BatchSize texts
// per call, Titan one.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	return embedder.EmbedInBatches(ctx, texts, e.batch, e.embedBatch)
}

// embedBatch invokes the model on one batch and checks what came back.
func (e *Embedder) embedBatch(ctx context.Context, batch []string) ([][]float32, embedder.Usage, error) {
	vecs, u, err := e.invoke(ctx, batch)
	if err != nil {
		return nil, embedder.Usage{}, err
	}
	if len(vecs) != len(batch) {
		return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %s returned %d vectors for %d texts", e.id, len(vecs), len(batch))
	}
	for i, v := range vecs {
		if len(v) != e.dims {
			return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %s returned a vector of %d dimensions for text %d, want %d", e.id, len(v), i, e.dims)
		}
	}
	return vecs, u, nil
}

func (e *Embedder) invoke(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	body := e.requestBody(texts)
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, embedder.Usage{}, err
	}
	out, err := e.client.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{
		ModelId: aws.String(e.id), Body: raw,
		ContentType: aws.String("application/json"), Accept: aws.String("application/json"),
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, embedder.Usage{}, ctxErr
		}
		return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %s: %w", e.id, err)
	}
	return e.parse(out.Body)
}

// requestBody is the model's InvokeModel body: Cohere's
// {texts, input_type, output_dimension} or Titan's {inputText, dimensions}.
func (e *Embedder) requestBody(texts []string) map[string]any {
	switch e.family {
	case titanV2:
		return map[string]any{"inputText": texts[0], "dimensions": e.dims, "normalize": true}
	case titanV1:
		return map[string]any{"inputText": texts[0]}
	}
	b := map[string]any{"texts": texts, "input_type": DefaultInputType}
	if e.family == cohereV4 {
		b["output_dimension"] = e.dims
		b["embedding_types"] = []string{"float"}
	}
	return b
}

// parse reads Cohere's embeddings (a list, or by type) or Titan's
// embedding and token count.
func (e *Embedder) parse(raw []byte) ([][]float32, embedder.Usage, error) {
	var resp struct {
		Embeddings          json.RawMessage `json:"embeddings"`
		Embedding           []float32       `json:"embedding"`
		InputTextTokenCount int             `json:"inputTextTokenCount"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %s: unreadable response: %v", e.id, err)
	}
	if e.family == titanV1 || e.family == titanV2 {
		u := embedder.Usage{PromptTokens: resp.InputTextTokenCount, TotalTokens: resp.InputTextTokenCount}
		return [][]float32{resp.Embedding}, u, nil
	}
	var list [][]float32
	if err := json.Unmarshal(resp.Embeddings, &list); err != nil {
		var byType struct {
			Float [][]float32 `json:"float"`
		}
		if err := json.Unmarshal(resp.Embeddings, &byType); err != nil || byType.Float == nil {
			return nil, embedder.Usage{}, fmt.Errorf("aws-bedrock embedder: %s: response has no float embeddings", e.id)
		}
		list = byType.Float
	}
	return list, embedder.Usage{}, nil
}

// retryer retries what the model providers retry (httpretry's statuses:
// 408, 409, 429, 5xx, and failed connections), waiting as httpretry does.
type retryer struct{ maxAttempts int }

func (r retryer) IsErrorRetryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		s := respErr.HTTPStatusCode()
		return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
	}
	var sendErr *smithyhttp.RequestSendError
	var netErr net.Error
	var deserErr *smithy.DeserializationError
	return errors.As(err, &sendErr) || errors.As(err, &netErr) || errors.As(err, &deserErr) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (r retryer) MaxAttempts() int { return r.maxAttempts }

func (r retryer) RetryDelay(attempt int, _ error) (time.Duration, error) {
	return httpretry.Backoff(attempt - 1), nil
}

func (r retryer) GetRetryToken(context.Context, error) (func(error) error, error) {
	return nopRelease, nil
}

func (r retryer) GetInitialToken() func(error) error { return nopRelease }

func (r retryer) GetAttemptToken(context.Context) (func(error) error, error) {
	return nopRelease, nil
}

func nopRelease(error) error { return nil }
