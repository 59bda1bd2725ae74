// Package watsonx is agno's WatsonX model (IBM watsonx.ai) as provider
// "ibm": the chat API of watsonx.ai
// (https://cloud.ibm.com/apidocs/watsonx-ai#text-chat), authenticated
// with IAM tokens exchanged for an IBM Cloud API key.
//
// IBM publishes no Go SDK for watsonx.ai chat (github.com/IBM/watsonx-go
// only generates text), and the chat API's bodies are Chat Completions'
// with a few renamed fields, so requests are encoded and answers decoded
// by package openai's client (openai-go) and adapted on the wire in
// wire.go.
package watsonx

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/openai"
)

// agno's defaults and variables.
const (
	// DefaultID is agno's WatsonX default model.
	DefaultID = "ibm/granite-20b-code-instruct"
	// DefaultURL is agno's default url (Frankfurt).
	DefaultURL = "https://eu-de.ml.cloud.ibm.com"
	// DefaultVersion is the API version date sent as ?version=.
	DefaultVersion = "2024-10-08"
	// DefaultMaxRetries matches the other providers.
	DefaultMaxRetries = 2

	KeyEnv       = "IBM_WATSONX_API_KEY"
	ProjectIDEnv = "IBM_WATSONX_PROJECT_ID"
	URLEnv       = "IBM_WATSONX_URL"
)

// Name and provider as agno reports them.
const (
	Name         = "WatsonX"
	ProviderName = "IBM"
)

// ErrInvalidConfig is returned by New for a Config it cannot use.
var ErrInvalidConfig = errors.New("watsonx: invalid config")

// Config configures a Model.
type Config struct {
	// ID is the foundation model id ("ibm/granite-3-8b-instruct").
	ID string
	// APIKey is the IBM Cloud API key exchanged for IAM tokens
	// (IBM_WATSONX_API_KEY when "").
	APIKey string
	// ProjectID is the watsonx.ai project billed (IBM_WATSONX_PROJECT_ID
	// when "").
	ProjectID string
	// URL is the region's endpoint (IBM_WATSONX_URL, then DefaultURL,
	// when "").
	URL string
	// IAMURL is the IAM token endpoint; "" is IBM Cloud's.
	IAMURL string

	HTTPClient *http.Client
	MaxRetries int
	Headers    map[string]string
	Logger     *slog.Logger
}

// Model is a watsonx.ai chat model. It is safe for concurrent use.
type Model struct {
	inner *openai.Model
	iam   *iamTokens
	info  model.Info
}

var _ model.Model = (*Model)(nil)

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})

// New validates cfg and returns a Model.
func New(cfg Config) (*Model, error) {
	key := firstNonEmpty(cfg.APIKey, os.Getenv(KeyEnv))
	if key == "" {
		return nil, fmt.Errorf("%w: no API key: export %s=<your IBM Cloud API key>", ErrInvalidConfig, KeyEnv)
	}
	project := firstNonEmpty(cfg.ProjectID, os.Getenv(ProjectIDEnv))
	if project == "" {
		return nil, fmt.Errorf("%w: project_id is not set: set project_id in the model's table or export %s=<your watsonx.ai project id>", ErrInvalidConfig, ProjectIDEnv)
	}
	urlKey, rawURL := "url", cfg.URL
	if rawURL == "" {
		urlKey, rawURL = URLEnv, firstNonEmpty(os.Getenv(URLEnv), DefaultURL)
	}
	base, err := checkURL(urlKey, rawURL)
	if err != nil {
		return nil, err
	}
	iamURL, err := checkURL("IAM URL", firstNonEmpty(cfg.IAMURL, defaultIAMURL))
	if err != nil {
		return nil, err
	}
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil, fmt.Errorf("%w: header %q is set from IAM tokens: remove it from headers and give the API key in %s", ErrInvalidConfig, k, KeyEnv)
		}
	}
	id := firstNonEmpty(cfg.ID, DefaultID)

	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient()
	}
	iam := newIAMTokens(iamURL, key, hc)
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	chatClient := *hc
	chatClient.Transport = &transport{base: rt, iam: iam}

	no := false
	inner, err := openai.New(openai.Config{
		ID: id, Compatible: true, Name: Name, Provider: ProviderName,
		// agno's WatsonX is no OpenAILike and has no native reasoning rule.
		Class: Name,
		// The chat API enforces no JSON schema: response_format is
		// json_object only.
		NativeStructuredOutputs: &no,
		HTTPClient:              &chatClient, MaxRetries: cfg.MaxRetries, Headers: cfg.Headers, Logger: cfg.Logger,
		ClientOptions: []option.RequestOption{
			option.WithBaseURL(base + "/"),
			option.WithMiddleware(rewrite(base, DefaultVersion, project)),
		},
	})
	if err != nil {
		return nil, err
	}
	return &Model{inner: inner, iam: iam, info: inner.Info()}, nil
}

// Info implements model.Model.
func (m *Model) Info() model.Info { return m.info }

// Generate implements model.Model. The IAM token is fetched first so a
// refused API key ends the call with IAM's status and message.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		if _, err := m.iam.get(ctx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				yield(nil, ctxErr)
				return
			}
			pe := &model.ProviderError{Provider: m.info.Provider, Model: m.info.ID, Message: err.Error(), Err: err}
			var ie *iamError
			if errors.As(err, &ie) {
				pe.StatusCode, pe.Message = ie.status, "IAM token exchange: "+ie.message
			}
			yield(nil, pe)
			return
		}
		for c, err := range m.inner.Generate(ctx, req) {
			if !yield(c, err) {
				return
			}
		}
	}
}

func checkURL(key, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: %s %q is not an http(s) URL: set it like %q", ErrInvalidConfig, key, raw, DefaultURL)
	}
	if u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%w: %s %q: give only the endpoint, without credentials or query", ErrInvalidConfig, key, raw)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
