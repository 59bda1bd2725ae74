// Package azure is agno's AzureOpenAIEmbedder, embedder provider
// "azure-openai": OpenAI's embedding models on an Azure OpenAI resource
// (POST {endpoint}/openai/deployments/{deployment}/embeddings), through
// openai-go's Azure support, with agno's keys and AZURE_EMBEDDER_*
// variables.
package azure

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/agno-go/agno/knowledge/embedder"
	kbopenai "github.com/agno-go/agno/knowledge/embedder/openai"
	modelazure "github.com/agno-go/agno/model/azure"
	modelopenai "github.com/agno-go/agno/model/openai"
)

// agno's name, defaults and variables.
const (
	Provider      = "azure-openai"
	DefaultID     = "text-embedding-3-small"
	KeyEnv        = "AZURE_EMBEDDER_OPENAI_API_KEY"
	EndpointEnv   = "AZURE_EMBEDDER_OPENAI_ENDPOINT"
	DeploymentEnv = "AZURE_EMBEDDER_DEPLOYMENT"
	VersionEnv    = "AZURE_EMBEDDER_OPENAI_API_VERSION"
)

// Options are the [knowledge.NAME.embedder] keys of azure-openai beyond
// the common ones (base_url is agno's "<endpoint>/openai[/deployments/<d>]").
type Options struct {
	AzureEndpoint   string `toml:"azure_endpoint"`
	AzureDeployment string `toml:"azure_deployment"`
	APIVersion      string `toml:"api_version"`
	// AzureADTokenEnv names the variable holding a Microsoft Entra ID
	// token (agno's azure_ad_token), sent instead of the key.
	AzureADTokenEnv string `toml:"azure_ad_token_env"`
	User            string `toml:"user"`
}

func init() {
	embedder.Register(Provider, embedder.Provider[Options]{
		Summary:      "OpenAI embeddings on an Azure OpenAI deployment (azure_endpoint, azure_deployment; key or Entra ID token), agno's AzureOpenAIEmbedder",
		KeyEnv:       KeyEnv,
		DefaultModel: DefaultID,
		New:          newEmbedder,
	})
}

func newEmbedder(o embedder.Options, x *Options) (embedder.Embedder, error) {
	token := ""
	if x.AzureADTokenEnv != "" {
		if token = os.Getenv(x.AzureADTokenEnv); token == "" {
			return nil, fmt.Errorf("%w: azure-openai embedder: azure_ad_token_env names %s, which is not set: export the Entra ID token there, or remove the key", embedder.ErrNoAPIKey, x.AzureADTokenEnv)
		}
	}
	env := cmp.Or(o.APIKeyEnv, KeyEnv)
	cfg := modelazure.Config{
		ID:         cmp.Or(o.Model, DefaultID),
		Endpoint:   cmp.Or(x.AzureEndpoint, os.Getenv(EndpointEnv)),
		BaseURL:    o.BaseURL,
		Deployment: cmp.Or(x.AzureDeployment, os.Getenv(DeploymentEnv)),
		APIVersion: cmp.Or(x.APIVersion, os.Getenv(VersionEnv)),
		APIKey:     os.Getenv(env),
		ADToken:    token,
	}
	return embedder.NewOrMissingKey(func(placeholder string) (embedder.Embedder, error) {
		c := cfg
		if placeholder != "" {
			c.APIKey = placeholder
		}
		opts, _, id, err := modelazure.ClientOptions(c)
		if errors.Is(err, modelopenai.ErrNoAPIKey) {
			return nil, fmt.Errorf("%w: %v", embedder.ErrNoAPIKey, err)
		}
		if err != nil {
			return nil, err
		}
		return kbopenai.New(kbopenai.Config{ID: id, Dimensions: o.Dimensions, BatchSize: o.BatchSize, User: x.User, ClientOptions: opts})
	}, embedder.KeyNotSet(embedder.ErrNoAPIKey, env))
}
