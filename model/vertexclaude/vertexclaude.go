// Package vertexclaude is agno's "vertexai-claude" provider: Claude on
// Google Cloud Vertex AI, through the Anthropic SDK's vertex package,
// which sends each Messages API request to the publisher model's
// rawPredict or streamRawPredict with an OAuth2 bearer token.
//
// Requests and responses are the Messages API's, so the model is
// model/anthropic's, with Vertex AI's routing and authentication.
package vertexclaude

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
)

// Names and defaults, as agno's vertexai Claude class has them.
const (
	ProviderVertexAIClaude = "vertexai-claude"
	DefaultID              = "claude-sonnet-4@20250514"
	ProviderName           = "VertexAI"
	Name                   = "Claude"
	// AnthropicVersion is the anthropic_version Vertex AI requires in the
	// body (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude).
	AnthropicVersion = "vertex-2023-10-16"
	// Scope is the OAuth2 scope of the credentials.
	Scope = "https://www.googleapis.com/auth/cloud-platform"
)

// Options are the [models.<key>] keys of vertexai-claude: Claude's, and
// where the model runs, as agno names them.
type Options struct {
	anthropic.Options
	// Region is the Vertex AI location ("us-east5", "europe-west1",
	// "global"); default CLOUD_ML_REGION.
	Region string `toml:"region"`
	// ProjectID is the Google Cloud project; default
	// ANTHROPIC_VERTEX_PROJECT_ID, then GOOGLE_CLOUD_PROJECT, then the
	// credentials' project.
	ProjectID string `toml:"project_id"`
}

// New builds the model. A non-empty s.APIKey is an OAuth2 access token
// sent as is (AnthropicVertex's access_token); otherwise Application
// Default Credentials are used. The base URL defaults to
// ANTHROPIC_VERTEX_BASE_URL, then the region's endpoint.
func New(s model.ProviderSettings, o *Options) (*anthropic.Model, error) {
	if o == nil {
		o = &Options{}
	}
	region := cmp.Or(o.Region, os.Getenv("CLOUD_ML_REGION"))
	if region == "" {
		return nil, fmt.Errorf("vertexai-claude: no region: set region in the model's table (e.g. \"us-east5\" or \"global\") or the CLOUD_ML_REGION environment variable")
	}
	ctx := context.Background()
	var creds *google.Credentials
	if s.APIKey != "" {
		creds = &google.Credentials{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.APIKey, TokenType: "Bearer"})}
	} else {
		var err error
		// Looks in GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, then the
		// metadata server; tokens are fetched at the first request.
		if creds, err = google.FindDefaultCredentials(ctx, Scope); err != nil {
			return nil, fmt.Errorf("vertexai-claude: no Google credentials: run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or name a variable holding an access token with api_key_env: %w", err)
		}
	}
	project := cmp.Or(o.ProjectID, os.Getenv("ANTHROPIC_VERTEX_PROJECT_ID"), os.Getenv("GOOGLE_CLOUD_PROJECT"), creds.ProjectID)
	if project == "" {
		return nil, fmt.Errorf("vertexai-claude: no project: set project_id in the model's table or the ANTHROPIC_VERTEX_PROJECT_ID environment variable")
	}
	cfg := anthropic.Config{
		ID: cmp.Or(s.ID, DefaultID), BaseURL: cmp.Or(s.BaseURL, os.Getenv("ANTHROPIC_VERTEX_BASE_URL")),
		HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
		Platform: []option.RequestOption{
			option.WithJSONSet("anthropic_version", AnthropicVersion),
			vertex.WithCredentials(ctx, region, project, creds),
		},
		ProviderName: ProviderName, Name: Name,
	}
	o.Apply(&cfg)
	// agno's rule for provider VertexAI (reasoning/vertexai.py): any
	// thinking set makes Claude a native reasoning model.
	if cfg.Thinking != nil {
		cfg.NativeReasoning = model.ReasoningThinking
	}
	return anthropic.New(cfg)
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name:    ProviderVertexAIClaude,
		Summary: "Claude on Google Cloud Vertex AI (agno's vertexai Claude), with Application Default Credentials",
		// Credentials are Google's ADC; an access token is optional.
		DefaultMaxRetries: anthropic.DefaultMaxRetries, DefaultModel: DefaultID,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return New(s, o) },
	})
}
