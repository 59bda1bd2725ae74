package azure

import (
	"cmp"
	"fmt"
	"os"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/openai"
)

// Provider names in model strings and [models.<key>] tables, agno's.
const (
	ProviderOpenAI  = "azure-openai"
	ProviderFoundry = "azure-ai-foundry"
)

// OpenAIOptions are the [models.<key>] keys of azure-openai beyond the
// common ones, with agno's AzureOpenAI parameter names. base_url, when
// set, is agno's: "<endpoint>/openai[/deployments/<deployment>]".
type OpenAIOptions struct {
	// AzureEndpoint is the resource, "https://<resource>.openai.azure.com"
	// (AZURE_OPENAI_ENDPOINT when unset).
	AzureEndpoint string `toml:"azure_endpoint"`
	// AzureDeployment routes requests to this deployment while model
	// stays the body's id (AZURE_OPENAI_DEPLOYMENT when unset; without
	// either, model is the deployment).
	AzureDeployment string `toml:"azure_deployment"`
	// APIVersion is the api-version query (default 2024-10-21, agno's).
	APIVersion string `toml:"api_version"`
	// AzureADTokenEnv names the variable holding a Microsoft Entra ID
	// token (agno's azure_ad_token; default AZURE_OPENAI_AD_TOKEN). A
	// token is a secret, so the file names its variable.
	AzureADTokenEnv string            `toml:"azure_ad_token_env"`
	DefaultQuery    map[string]string `toml:"default_query"`
}

// FoundryOptions are the [models.<key>] keys of azure-ai-foundry beyond
// the common ones, with agno's AzureAIFoundry parameter names. base_url
// is taken as azure_endpoint.
type FoundryOptions struct {
	// AzureEndpoint is the inference endpoint (AZURE_ENDPOINT when unset).
	AzureEndpoint string `toml:"azure_endpoint"`
	// APIVersion is the api-version query (AZURE_API_VERSION, then
	// 2024-05-01-preview, agno's).
	APIVersion string `toml:"api_version"`
	// ModelExtras are put in every request body for the model, sent with
	// "extra-parameters: pass-through".
	ModelExtras map[string]any `toml:"model_extras"`
}

func init() {
	model.RegisterProvider(model.Provider[OpenAIOptions]{
		Name: ProviderOpenAI, Summary: "Azure OpenAI Chat Completions on a deployment (agno's AzureOpenAI; azure_endpoint or AZURE_OPENAI_ENDPOINT, key or Entra ID token)",
		KeyEnv: KeyEnv, DefaultMaxRetries: openai.DefaultMaxRetries,
		// An Entra ID token authenticates instead of the key.
		KeyOptional: func(_ model.ProviderSettings, o *OpenAIOptions) bool {
			return os.Getenv(cmp.Or(o.AzureADTokenEnv, ADTokenEnv)) != ""
		},
		New: func(s model.ProviderSettings, o *OpenAIOptions) (model.Model, error) {
			token := ""
			if o.AzureADTokenEnv != "" {
				if token = os.Getenv(o.AzureADTokenEnv); token == "" {
					return nil, fmt.Errorf("%w: azure_ad_token_env names %s, which is not set: export the Entra ID token there, or remove the key", ErrInvalidConfig, o.AzureADTokenEnv)
				}
			}
			return New(Config{
				ID: s.ID, Endpoint: o.AzureEndpoint, BaseURL: s.BaseURL, Deployment: o.AzureDeployment, APIVersion: o.APIVersion,
				APIKey: s.APIKey, ADToken: token, DefaultQuery: o.DefaultQuery,
				HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
			})
		},
	})
	model.RegisterProvider(model.Provider[FoundryOptions]{
		Name: ProviderFoundry, Summary: "Azure AI Foundry models by the Azure AI Model Inference API (agno's AzureAIFoundry; azure_endpoint or AZURE_ENDPOINT)",
		KeyEnv: FoundryKeyEnv, DefaultMaxRetries: openai.DefaultMaxRetries, DefaultModel: DefaultFoundryID,
		New: func(s model.ProviderSettings, o *FoundryOptions) (model.Model, error) {
			endpoint := o.AzureEndpoint
			if s.BaseURL != "" {
				if endpoint != "" && endpoint != s.BaseURL {
					return nil, fmt.Errorf("%w: base_url and azure_endpoint differ: set only azure_endpoint", ErrInvalidConfig)
				}
				endpoint = s.BaseURL
			}
			return NewFoundry(FoundryConfig{
				ID: s.ID, Endpoint: endpoint, APIVersion: o.APIVersion, APIKey: s.APIKey, ModelExtras: o.ModelExtras,
				HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger,
			})
		},
	})
}
