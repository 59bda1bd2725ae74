// Package azureclaude is Claude served by Microsoft Foundry (agno's
// AzureFoundryClaude, model-string "azure-foundry-claude"): the Messages
// API at https://<resource>.services.ai.azure.com/anthropic/, through the
// Anthropic SDK, authenticated by the resource's key (x-api-key) or a
// Microsoft Entra ID token (Authorization: Bearer).
package azureclaude

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
)

// agno's names and defaults.
const (
	ProviderAzureFoundryClaude = "azure-foundry-claude"
	ProviderName               = "AzureFoundry"
	Name                       = "AzureFoundryClaude"
	DefaultID                  = "claude-sonnet-4-5"
	KeyEnv                     = "ANTHROPIC_FOUNDRY_API_KEY"
	ResourceEnv                = "ANTHROPIC_FOUNDRY_RESOURCE"
	BaseURLEnv                 = "ANTHROPIC_FOUNDRY_BASE_URL"
)

// Options are the [models.<key>] keys of azure-foundry-claude: Claude's,
// and where the resource is and how it is reached.
type Options struct {
	anthropic.Options
	// Resource is the Foundry resource's name (ANTHROPIC_FOUNDRY_RESOURCE
	// when unset); base_url, or ANTHROPIC_FOUNDRY_BASE_URL, wins.
	Resource string `toml:"resource"`
	// AzureADTokenEnv names the variable holding a Microsoft Entra ID
	// token (agno's azure_ad_token_provider), sent instead of the key.
	AzureADTokenEnv string `toml:"azure_ad_token_env"`
}

// New builds the model; s.APIKey is the resource's key.
func New(s model.ProviderSettings, o *Options) (*anthropic.Model, error) {
	if o == nil {
		o = &Options{}
	}
	base := cmp.Or(s.BaseURL, os.Getenv(BaseURLEnv))
	if base == "" {
		resource := cmp.Or(o.Resource, os.Getenv(ResourceEnv))
		if resource == "" {
			return nil, fmt.Errorf("azure-foundry-claude: no resource: set resource (or %s) to the Foundry resource's name, or base_url to https://<resource>.services.ai.azure.com/anthropic/", ResourceEnv)
		}
		base = "https://" + resource + ".services.ai.azure.com/anthropic/"
	}
	var auth option.RequestOption
	switch {
	case o.AzureADTokenEnv != "":
		token := os.Getenv(o.AzureADTokenEnv)
		if token == "" {
			return nil, fmt.Errorf("azure-foundry-claude: azure_ad_token_env names %s, which is not set: export the Entra ID token there, or remove the key to use %s", o.AzureADTokenEnv, KeyEnv)
		}
		auth = option.WithAuthToken(token)
	case s.APIKey != "":
		// Foundry's documented header; the SDK's WithAPIKey sends a bearer.
		auth = option.WithHeader("x-api-key", s.APIKey)
	default:
		return nil, fmt.Errorf("%w: export %s (the resource's key) or name a variable holding an Entra ID token with azure_ad_token_env", anthropic.ErrMissingAPIKey, KeyEnv)
	}
	cfg := anthropic.Config{
		ID: cmp.Or(s.ID, DefaultID), BaseURL: strings.TrimSpace(base), HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries,
		Headers: s.Headers, Logger: s.Logger, Platform: []option.RequestOption{auth},
		ProviderName: ProviderName, Name: Name,
	}
	o.Apply(&cfg)
	return anthropic.New(cfg)
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name:    ProviderAzureFoundryClaude,
		Summary: "Claude on Microsoft Foundry (agno's AzureFoundryClaude): resource or base_url, key or Entra ID token",
		KeyEnv:  KeyEnv, DefaultMaxRetries: anthropic.DefaultMaxRetries, DefaultModel: DefaultID,
		KeyOptional: func(_ model.ProviderSettings, o *Options) bool {
			return o.AzureADTokenEnv != "" && os.Getenv(o.AzureADTokenEnv) != ""
		},
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return New(s, o) },
	})
}
