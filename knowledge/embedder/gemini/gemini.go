// Package gemini is an embedder.Embedder for Google's Gemini embedding
// models (agno's GeminiEmbedder), on the official google.golang.org/genai
// client: the Gemini API's batchEmbedContents with an API key, or Vertex
// AI's embedContent with a project and Google credentials. The SDK's types
// stay in this package.
package gemini

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
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
	"github.com/agno-go/agno/knowledge/embedder"
)

// Defaults, as agno's GeminiEmbedder sets them.
const (
	DefaultID         = "gemini-embedding-001"
	DefaultTaskType   = "RETRIEVAL_QUERY"
	DefaultDimensions = embedder.DefaultDimensions
	DefaultBatchSize  = 100
	DefaultMaxRetries = 2
	// KeyEnv is where the Gemini API key is read from by default.
	KeyEnv = "GOOGLE_API_KEY"
	// DefaultLocation is the Vertex AI location when none is given.
	DefaultLocation = "global"
)

// Errors New returns.
var (
	// ErrNoAPIKey wraps embedder.ErrNoAPIKey.
	ErrNoAPIKey      = fmt.Errorf("gemini embedder: %w", embedder.ErrNoAPIKey)
	ErrInvalidConfig = errors.New("gemini embedder: invalid config")
)

// Config configures an Embedder. The zero value embeds with
// gemini-embedding-001 on the Gemini API, 1536 dimensions, task type
// RETRIEVAL_QUERY, key from GOOGLE_API_KEY.
type Config struct {
	// ID is the embedding model id; a "models/" prefix is dropped, as
	// agno does.
	ID string
	// Dimensions is sent as outputDimensionality. Default 1536.
	Dimensions int
	// TaskType is agno's task_type (RETRIEVAL_DOCUMENT, SEMANTIC_SIMILARITY,
	// ...). Default RETRIEVAL_QUERY.
	TaskType string
	// Title is agno's title, for RETRIEVAL_DOCUMENT.
	Title string
	// BatchSize is how many texts go in one request. Default 100.
	BatchSize int
	// BaseURL overrides the endpoint.
	BaseURL string
	// APIKey is the Gemini API key; when empty it is read from APIKeyEnv
	// (default GOOGLE_API_KEY).
	APIKey    string
	APIKeyEnv string
	// VertexAI selects Vertex AI, as does GOOGLE_GENAI_USE_VERTEXAI=true;
	// ProjectID and Location default to GOOGLE_CLOUD_PROJECT and
	// GOOGLE_CLOUD_LOCATION (else "global"); Credentials default to
	// Google's Application Default Credentials.
	VertexAI    bool
	ProjectID   string
	Location    string
	Credentials *auth.Credentials
	// MaxRetries for retryable failures, as package httpretry decides;
	// zero means DefaultMaxRetries, negative none.
	MaxRetries int
	HTTPClient *http.Client
	Headers    map[string]string
}

// Embedder calls Gemini's embedding endpoints. It is safe for concurrent
// use.
type Embedder struct {
	client   *genai.Client
	id       string
	dims     int
	taskType string
	title    string
	batch    int
}

var _ embedder.Embedder = (*Embedder)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(2*time.Minute, httptransport.Limits{})
	return hc
})

// New validates cfg and returns an Embedder.
func New(cfg Config) (*Embedder, error) {
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 || cfg.Dimensions > math.MaxInt32 {
		return nil, fmt.Errorf("%w: dimensions (%d) and batch_size (%d) must be positive, or zero for the defaults", ErrInvalidConfig, cfg.Dimensions, cfg.BatchSize)
	}
	e := &Embedder{
		id:       strings.TrimPrefix(cmp.Or(strings.TrimSpace(cfg.ID), DefaultID), "models/"),
		dims:     cmp.Or(cfg.Dimensions, DefaultDimensions),
		taskType: strings.ToUpper(cmp.Or(strings.TrimSpace(cfg.TaskType), DefaultTaskType)),
		title:    cfg.Title,
		batch:    cmp.Or(cfg.BatchSize, DefaultBatchSize),
	}
	cc := genai.ClientConfig{Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL}}
	if len(cfg.Headers) > 0 {
		cc.HTTPOptions.Headers = http.Header{}
		for k, v := range cfg.Headers {
			cc.HTTPOptions.Headers.Set(k, v)
		}
	}
	keyEnv := cmp.Or(cfg.APIKeyEnv, KeyEnv)
	key := cmp.Or(cfg.APIKey, os.Getenv(keyEnv))
	creds := cfg.Credentials
	if cfg.VertexAI || strings.EqualFold(os.Getenv("GOOGLE_GENAI_USE_VERTEXAI"), "true") {
		cc.Backend = genai.BackendVertexAI
		cc.Project = cmp.Or(cfg.ProjectID, os.Getenv("GOOGLE_CLOUD_PROJECT"))
		cc.Location = cmp.Or(cfg.Location, os.Getenv("GOOGLE_CLOUD_LOCATION"), DefaultLocation)
		switch {
		case cc.Project == "" && key == "":
			return nil, fmt.Errorf("%w: Vertex AI needs a project: set GOOGLE_CLOUD_PROJECT (or an API key for Vertex AI express mode)", ErrInvalidConfig)
		case cc.Project == "":
			cc.APIKey, cc.Location, creds = key, "", nil
		case creds == nil:
			var err error
			creds, err = credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
			if err != nil {
				return nil, fmt.Errorf("%w: Vertex AI needs Google credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS: %v", ErrInvalidConfig, err)
			}
		}
	} else {
		if key == "" {
			return nil, fmt.Errorf("%w: %s is not set: export %s=<your key>", ErrNoAPIKey, keyEnv, keyEnv)
		}
		cc.APIKey, creds = key, nil
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	base := cfg.HTTPClient
	if base == nil {
		base = sharedHTTPClient()
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	policy := httpretry.Policy{MaxRetries: retries}
	hc := &http.Client{
		// The SDK retries nothing by default; the one policy is httpretry's.
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return policy.Middleware(r, next.RoundTrip)
		}),
		CheckRedirect: base.CheckRedirect, Jar: base.Jar, Timeout: base.Timeout,
	}
	if creds != nil {
		if err := authhttp.AddAuthorizationMiddleware(hc, creds); err != nil {
			return nil, fmt.Errorf("%w: Vertex AI credentials: %v", ErrInvalidConfig, err)
		}
	}
	cc.HTTPClient = hc
	client, err := genai.NewClient(context.Background(), &cc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	e.client = client
	return e, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// ID is the model id requests name.
func (e *Embedder) ID() string { return e.id }

// Dimensions implements embedder.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

// Embed implements embedder.Embedder: texts go in batches of BatchSize,
// one request each (batchEmbedContents); the usage is the tokens the API
// counted, where it reports them.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	return embedder.EmbedInBatches(ctx, texts, e.batch, e.embedBatch)
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	dims := int32(e.dims)
	cfg := &genai.EmbedContentConfig{TaskType: e.taskType, Title: e.title, OutputDimensionality: &dims}
	resp, err := e.client.Models.EmbedContent(ctx, e.id, contents, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, embedder.Usage{}, ctx.Err()
		}
		return nil, embedder.Usage{}, fmt.Errorf("gemini embedder: %s: %w", e.id, err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, embedder.Usage{}, fmt.Errorf("gemini embedder: %s returned %d embeddings for %d inputs", e.id, len(resp.Embeddings), len(texts))
	}
	out := make([][]float32, len(texts))
	var tokens int
	for i, emb := range resp.Embeddings {
		if emb == nil || len(emb.Values) != e.dims {
			n := 0
			if emb != nil {
				n = len(emb.Values)
			}
			// A mismatch would put vectors of two lengths in one store.
			return nil, embedder.Usage{}, fmt.Errorf("gemini embedder: %s returned %d dimensions, configured %d: set dimensions to %d", e.id, n, e.dims, n)
		}
		out[i] = emb.Values
		if emb.Statistics != nil {
			tokens += int(emb.Statistics.TokenCount)
		}
	}
	if u := resp.UsageMetadata; u != nil && u.PromptTokenCount > 0 {
		tokens = int(u.PromptTokenCount)
	}
	return out, embedder.Usage{PromptTokens: tokens, TotalTokens: tokens}, nil
}
