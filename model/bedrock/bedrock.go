// Package bedrock is the model.Model for Amazon Bedrock's Converse API
// (agno's AwsBedrock), built on aws-sdk-go-v2's bedrockruntime client.
//
// One Converse request shape serves every model family Bedrock hosts
// (Claude, Llama, Nova, Mistral, ...): system prompts, user/assistant
// turns of content blocks (text, image, document, toolUse, toolResult,
// reasoningContent), toolConfig and inferenceConfig. Non-streamed calls use
// Converse, streamed ones ConverseStream, whose AWS event-stream events are
// turned into model.Chunk values. SDK types never leave this package.
package bedrock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go/auth/bearer"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
)

// Defaults, as agno's AwsBedrock has them.
const (
	DefaultID = "mistral.mistral-small-2402-v1:0"
	// DefaultMaxRetries is how often a failed request is retried when
	// Config.MaxRetries is zero.
	DefaultMaxRetries = 2
	// RegionEnv is the variable the region is read from, as agno does.
	RegionEnv = "AWS_REGION"
)

// ProviderName is the model_provider (and name) agno reports for
// AwsBedrock models.
const ProviderName = "AwsBedrock"

// ErrMissingRegion is returned by New when no region is configured.
var ErrMissingRegion = errors.New("aws-bedrock: no AWS region")

// ErrInvalidRequest wraps every request that cannot be mapped onto the
// Converse API; the message names the offending field.
var ErrInvalidRequest = errors.New("aws-bedrock: invalid request")

// Config configures a Model. The Aws* fields are agno's parameters.
type Config struct {
	// ID is the Bedrock model id or inference profile
	// ("anthropic.claude-sonnet-4-5-20250929-v1:0",
	// "us.meta.llama3-3-70b-instruct-v1:0"). Default DefaultID.
	ID string
	// BaseURL overrides the bedrock-runtime endpoint (a VPC endpoint, a
	// proxy); requests are still signed for AwsRegion.
	BaseURL string
	// AwsRegion is the region; default AWS_REGION, then the shared config
	// profile's region. Required.
	AwsRegion string
	// AwsAccessKeyID and AwsSecretAccessKey (with AwsSessionToken for
	// temporary credentials) override AWS's default credential chain;
	// set both or neither.
	AwsAccessKeyID     string
	AwsSecretAccessKey string
	AwsSessionToken    string
	// AwsSsoAuth uses the default chain's credentials (the profile's SSO
	// session) and ignores the explicit keys, as agno's aws_sso_auth.
	AwsSsoAuth bool
	// APIKey is a Bedrock API key, sent as a bearer token instead of a
	// SigV4 signature (what the SDK does with AWS_BEARER_TOKEN_BEDROCK).
	APIKey string
	// HTTPClient sends the requests; nil uses a shared client.
	HTTPClient *http.Client
	// MaxRetries is how many times a request failing with a retryable
	// error (throttling, 5xx, model timeout, a dropped connection) is
	// retried. 0 means DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// Headers are sent with every request (agno's default_headers).
	Headers map[string]string
	// Logger receives debug notes. Default slog.Default().
	Logger *slog.Logger
}

// Model is a Bedrock model behind the Converse API. It is safe for
// concurrent use.
type Model struct {
	id     string
	region string
	client *bedrockruntime.Client
	// newClient builds a client like client. Each stream gets its own:
	// the SDK's event-stream decoder (one per client, in its protocol)
	// keeps state, so two streams of one client race on it.
	newClient func() *bedrockruntime.Client
	logger    *slog.Logger
}

var _ model.Model = (*Model)(nil)

// New validates cfg, resolves the region and credentials and returns the
// model. Credentials are resolved lazily, on the first request, by AWS's
// default chain unless cfg gives keys or an API key.
func New(cfg Config) (*Model, error) {
	id := cfg.ID
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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient()
	}

	region := cfg.AwsRegion
	if region == "" {
		region = os.Getenv(RegionEnv)
	}
	var loadOpts []func(*awsconfig.LoadOptions) error
	if region != "" {
		loadOpts = append(loadOpts, awsconfig.WithRegion(region))
	}
	if !cfg.AwsSsoAuth {
		switch {
		case cfg.AwsAccessKeyID != "" && cfg.AwsSecretAccessKey != "":
			loadOpts = append(loadOpts, awsconfig.WithCredentialsProvider(
				credentials.NewStaticCredentialsProvider(cfg.AwsAccessKeyID, cfg.AwsSecretAccessKey, cfg.AwsSessionToken)))
		case cfg.AwsAccessKeyID != "" || cfg.AwsSecretAccessKey != "":
			return nil, fmt.Errorf("aws-bedrock: only one of aws_access_key_id and aws_secret_access_key is set: set both, or neither to use AWS's default credential chain")
		}
	}
	// Only local files and variables are read here; credentials that need
	// a call (SSO, a role) are fetched on the first request.
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background(), loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("aws-bedrock: loading the AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		return nil, fmt.Errorf("%w: set aws_region in [models.<key>] or the %s environment variable (e.g. us-east-1)", ErrMissingRegion, RegionEnv)
	}

	m := &Model{id: id, region: awsCfg.Region, logger: logger}
	configure := func(o *bedrockruntime.Options) {
		// The SDK's retry loop re-signs each attempt and does not buffer
		// the event stream, so it stays; what is retried, and how long it
		// waits, is this package's retryer, which asks model.ProviderError.
		o.Retryer = &retryer{m: m, maxAttempts: 1 + retries}
		// Set here, not in LoadDefaultConfig, which wants to change the
		// transport (AWS_CA_BUNDLE) of a client it does not own.
		o.HTTPClient = ownBodyClient{hc}
		if cfg.BaseURL != "" {
			o.BaseEndpoint = aws.String(cfg.BaseURL)
		}
		if cfg.APIKey != "" {
			key := cfg.APIKey
			o.BearerAuthTokenProvider = bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
				return bearer.Token{Value: key}, nil
			})
			o.AuthSchemePreference = []string{"httpBearerAuth"}
		}
		for k, v := range cfg.Headers {
			o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue(k, v))
		}
	}
	m.newClient = func() *bedrockruntime.Client { return bedrockruntime.NewFromConfig(awsCfg, configure) }
	m.client = m.newClient()
	return m, nil
}

// Info implements model.Model. Structured output is left to the agent's
// JSON prompt, as agno's AwsBedrock does.
func (m *Model) Info() model.Info {
	return model.Info{ID: m.id, Provider: ProviderName, Name: ProviderName}
}

// Region is the region requests are signed for.
func (m *Model) Region() string { return m.region }

// Generate implements model.Model: one Converse call, or ConverseStream
// when req.Stream is set.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("%w: request is nil", ErrInvalidRequest))
			return
		}
		in, err := m.newInput(req)
		if err != nil {
			yield(nil, err)
			return
		}
		if req.Stream {
			m.stream(ctx, in, yield)
			return
		}
		start := time.Now()
		out, err := m.client.Converse(ctx, in)
		if err != nil {
			yield(nil, m.convertError(ctx, err))
			return
		}
		yield(outputChunk(out, time.Since(start), m.logger), nil)
	}
}

// stream runs ConverseStream and yields text and reasoning as they
// arrive, then one final chunk with the tool calls, stop reason and usage.
func (m *Model) stream(ctx context.Context, in *bedrockruntime.ConverseInput, yield func(*model.Chunk, error) bool) {
	start := time.Now()
	out, err := m.newClient().ConverseStream(ctx, streamInput(in))
	if err != nil {
		yield(nil, m.convertError(ctx, err))
		return
	}
	es := out.GetStream()
	defer es.Close()

	st := &streamState{logger: m.logger, start: start}
	for ev := range es.Events() {
		chunk := st.handle(ev)
		if chunk != nil && !yield(chunk, nil) {
			return
		}
	}
	if err := es.Err(); err != nil {
		yield(nil, m.convertError(ctx, err))
		return
	}
	if err := ctx.Err(); err != nil {
		yield(nil, err)
		return
	}
	if !st.stopped {
		yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "stream ended before messageStop"})
		return
	}
	yield(st.final(), nil)
}

// ownBodyClient sends each request with a copy of its body. smithy-go
// closes the request body as soon as the response headers are back; the
// transport may still be reading it to its end, and a body closed under it
// makes the transport close the connection, which cuts an event stream
// that had begun. The bodies are small JSON documents.
type ownBodyClient struct{ hc *http.Client }

func (c ownBodyClient) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return c.hc.Do(req)
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	own := req.Clone(req.Context())
	own.ContentLength = int64(len(b))
	own.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	own.Body, _ = own.GetBody()
	return c.hc.Do(own)
}

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// lookupEnv reads the variable an *_env key names.
func lookupEnv(key, name string) (string, error) {
	if !envName.MatchString(name) {
		return "", fmt.Errorf("aws-bedrock: %s must name an environment variable, not hold the secret itself: export MY_VAR=<the value> and set %s = \"MY_VAR\"", key, key)
	}
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("aws-bedrock: %s names %s, which is not set: export %s=<the value>, or remove %s to use AWS's default credential chain", key, name, name, key)
	}
	return v, nil
}
