package azure

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/openai"
)

// Azure AI Foundry defaults and the variables agno reads.
const (
	// DefaultFoundryID is agno's AzureAIFoundry default model.
	DefaultFoundryID = "gpt-4o"
	// DefaultFoundryAPIVersion is agno's default api_version.
	DefaultFoundryAPIVersion = "2024-05-01-preview"
	FoundryKeyEnv            = "AZURE_API_KEY"
	FoundryEndpointEnv       = "AZURE_ENDPOINT"
	FoundryAPIVersionEnv     = "AZURE_API_VERSION"
)

// FoundryConfig configures an Azure AI Foundry model (agno's
// AzureAIFoundry), served by the Azure AI Model Inference API.
type FoundryConfig struct {
	// ID is the model; "" is DefaultFoundryID.
	ID string
	// Endpoint is the inference endpoint agno's azure_endpoint names
	// ("https://<resource>.services.ai.azure.com/models", a serverless
	// ".models.ai.azure.com" one, or an Azure OpenAI deployment URL);
	// AZURE_ENDPOINT when "".
	Endpoint string
	// APIVersion is sent as api-version; "" reads AZURE_API_VERSION, then
	// DefaultFoundryAPIVersion.
	APIVersion string
	// APIKey authenticates (AZURE_API_KEY when "").
	APIKey string
	// ModelExtras are agno's model_extras: parameters outside the API's
	// own, put in the body and passed through to the model.
	ModelExtras map[string]any

	HTTPClient *http.Client
	MaxRetries int
	Headers    map[string]string
	Logger     *slog.Logger
}

// NewFoundry validates cfg and returns an Azure AI Foundry chat model.
//
// agno's azure-ai-inference client posts to <endpoint>/chat/completions
// with api-version in the query and the key both as "Authorization:
// Bearer" and as api-key (serverless and managed endpoints read the
// first, Azure OpenAI and the unified endpoints the second); model_extras
// go in the body with "extra-parameters: pass-through"
// (https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-chat-completions).
func NewFoundry(cfg FoundryConfig) (*openai.Model, error) {
	raw, key := cfg.Endpoint, "azure_endpoint"
	if raw == "" {
		raw, key = os.Getenv(FoundryEndpointEnv), FoundryEndpointEnv
	}
	if raw == "" {
		return nil, fmt.Errorf("%w: no endpoint: set azure_endpoint (https://<resource>.services.ai.azure.com/models) or export %s", ErrInvalidConfig, FoundryEndpointEnv)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%w: %s %q is not an http(s) URL: set it like \"https://<resource>.services.ai.azure.com/models\"", ErrInvalidConfig, key, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %s %q has credentials, a query or a fragment: give only scheme, host and path (api_version is a key of its own)", ErrInvalidConfig, key, redact(u))
	}
	apiKey := firstNonEmpty(cfg.APIKey, os.Getenv(FoundryKeyEnv))
	if apiKey == "" {
		return nil, fmt.Errorf("%w: export %s=<your key>, or name another variable in api_key_env", openai.ErrNoAPIKey, FoundryKeyEnv)
	}
	if err := checkHeaders(cfg.Headers, "Authorization", "Api-Key"); err != nil {
		return nil, err
	}
	version := firstNonEmpty(cfg.APIVersion, os.Getenv(FoundryAPIVersionEnv), DefaultFoundryAPIVersion)
	id := firstNonEmpty(cfg.ID, DefaultFoundryID)

	opts := []option.RequestOption{
		option.WithBaseURL(u.String()),
		option.WithAPIKey(apiKey),
		option.WithHeader("api-key", apiKey),
		option.WithQueryAdd("api-version", version),
	}
	if len(cfg.ModelExtras) > 0 {
		for k, v := range cfg.ModelExtras {
			opts = append(opts, option.WithJSONSet(k, v))
		}
		opts = append(opts, option.WithHeader("extra-parameters", "pass-through"))
	}
	// agno's AzureAIFoundry does not claim native structured outputs:
	// most Foundry models (Llama, Mistral, Phi) do not enforce a schema.
	native := false
	return openai.New(openai.Config{
		ID: id, BaseURL: u.String(), Compatible: true, Name: NameFoundry, Provider: ProviderName, NativeStructuredOutputs: &native,
		Class: NameFoundry, NativeReasoning: foundryReasoning(id),
		HTTPClient: cfg.HTTPClient, MaxRetries: cfg.MaxRetries, Headers: cfg.Headers, Logger: cfg.Logger,
		ClientOptions: opts,
	})
}

// foundryReasoning is agno's rule for an AzureAIFoundry model
// (reasoning/azure_ai_foundry.py): DeepSeek and OpenAI o-series ids answer
// with their reasoning.
func foundryReasoning(id string) model.NativeReasoning {
	lower := strings.ToLower(id)
	for _, s := range []string{"deepseek", "o1", "o3", "o4"} {
		if strings.Contains(lower, s) {
			return model.ReasoningContent
		}
	}
	return model.ReasoningNone
}
