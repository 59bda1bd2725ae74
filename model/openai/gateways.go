package openai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/agno-go/agno/model"
)

// Gateways whose endpoint or headers depend on the user's account: agno's
// Cloudflare, LangDB and Portkey classes, each with agno's keys and
// environment variables. base_url, when set, wins over what the keys
// build, as in agno.

// CloudflareOptions are the [models.<key>] keys of provider "cloudflare".
type CloudflareOptions struct {
	Options
	// AccountID and GatewayID place the AI Gateway's compat endpoint
	// (default CLOUDFLARE_ACCOUNT_ID, and CLOUDFLARE_AI_GATEWAY_ID or
	// "default").
	AccountID string `toml:"account_id"`
	GatewayID string `toml:"gateway_id"`
}

// LangDBOptions are the [models.<key>] keys of provider "langdb".
type LangDBOptions struct {
	Options
	// ProjectID is part of the endpoint (default LANGDB_PROJECT_ID).
	ProjectID string `toml:"project_id"`
	// BaseHostURL is the region's host (default LANGDB_API_BASE_URL or
	// https://api.us-east-1.langdb.ai).
	BaseHostURL string `toml:"base_host_url"`
	// Label is sent as x-label.
	Label string `toml:"label"`
}

// PortkeyOptions are the [models.<key>] keys of provider "portkey".
type PortkeyOptions struct {
	Options
	// VirtualKey routes to a provider key stored in Portkey (default
	// PORTKEY_VIRTUAL_KEY).
	VirtualKey string `toml:"virtual_key"`
	// Config is Portkey's routing config (retries, fallbacks), sent as
	// x-portkey-config.
	Config map[string]any `toml:"config"`
}

// Agno's defaults for the gateways.
const (
	cloudflareModel  = "@cf/meta/llama-3.3-70b-instruct-fp8-fast"
	langDBHost       = "https://api.us-east-1.langdb.ai"
	portkeyGateway   = "https://api.portkey.ai/v1"
	portkeyKeyEnv    = "PORTKEY_API_KEY"
	cloudflareKeyEnv = "CLOUDFLARE_API_TOKEN"
)

func init() {
	model.RegisterProvider(model.Provider[CloudflareOptions]{
		Name: "cloudflare", Summary: "agno's Cloudflare: AI Gateway's OpenAI-compatible endpoint of account_id and gateway_id",
		KeyEnv: cloudflareKeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: cloudflareModel,
		New: newCloudflare,
	})
	model.RegisterProvider(model.Provider[LangDBOptions]{
		Name: "langdb", Summary: "agno's LangDB: the AI gateway's endpoint of project_id (OpenAI-compatible)",
		KeyEnv: "LANGDB_API_KEY", DefaultMaxRetries: DefaultMaxRetries, DefaultModel: "gpt-4o",
		New: newLangDB,
	})
	model.RegisterProvider(model.Provider[PortkeyOptions]{
		Name: "portkey", Summary: "agno's Portkey: the AI gateway " + portkeyGateway + ", routed by virtual_key or config (OpenAI-compatible)",
		KeyEnv: portkeyKeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: "gpt-4o-mini",
		New: newPortkey,
	})
}

func newCloudflare(s model.ProviderSettings, o *CloudflareOptions) (model.Model, error) {
	if s.BaseURL == "" {
		account := cmp.Or(o.AccountID, os.Getenv("CLOUDFLARE_ACCOUNT_ID"))
		if account == "" {
			return nil, fmt.Errorf("%w: cloudflare needs account_id (or CLOUDFLARE_ACCOUNT_ID) to build the AI Gateway URL, or base_url ending in /compat", ErrInvalidConfig)
		}
		gateway := cmp.Or(o.GatewayID, os.Getenv("CLOUDFLARE_AI_GATEWAY_ID"), "default")
		s.BaseURL = "https://gateway.ai.cloudflare.com/v1/" + account + "/" + gateway + "/compat"
	}
	// The compat API names Workers AI models workers-ai/@cf/...; agno
	// takes the catalog's @cf/... id as well.
	s.ID = cmp.Or(s.ID, cloudflareModel)
	if strings.HasPrefix(s.ID, "@cf/") {
		s.ID = "workers-ai/" + s.ID
	}
	return Preset{Name: "cloudflare", Class: "Cloudflare", Provider: "Cloudflare"}.New(s, &o.Options)
}

func newLangDB(s model.ProviderSettings, o *LangDBOptions) (model.Model, error) {
	if s.BaseURL == "" {
		project := cmp.Or(o.ProjectID, os.Getenv("LANGDB_PROJECT_ID"))
		if project == "" {
			return nil, fmt.Errorf("%w: langdb needs project_id (or LANGDB_PROJECT_ID) to build its endpoint, or base_url", ErrInvalidConfig)
		}
		host := strings.TrimRight(cmp.Or(o.BaseHostURL, os.Getenv("LANGDB_API_BASE_URL"), langDBHost), "/")
		s.BaseURL = host + "/" + project + "/v1"
	}
	opts := o.Options
	if o.Label != "" {
		opts.DefaultHeaders = mergeHeaders(map[string]string{"x-label": o.Label}, o.DefaultHeaders)
	}
	return Preset{Name: "langdb", Class: "LangDB", Provider: "LangDB", Model: "gpt-4o"}.New(s, &opts)
}

// newPortkey authenticates with Portkey's headers, as Portkey's
// createHeaders does; the bearer key is a placeholder the gateway ignores.
func newPortkey(s model.ProviderSettings, o *PortkeyOptions) (model.Model, error) {
	if s.APIKey == "" {
		return nil, fmt.Errorf("%w: portkey needs its API key: export %s or name another variable with api_key_env", ErrNoAPIKey, portkeyKeyEnv)
	}
	headers := map[string]string{"x-portkey-api-key": s.APIKey}
	if vk := cmp.Or(o.VirtualKey, os.Getenv("PORTKEY_VIRTUAL_KEY")); vk != "" {
		headers["x-portkey-virtual-key"] = vk
	}
	if o.Config != nil {
		b, err := json.Marshal(o.Config)
		if err != nil {
			return nil, fmt.Errorf("%w: portkey config: %v", ErrInvalidConfig, err)
		}
		headers["x-portkey-config"] = string(b)
	}
	opts := o.Options
	opts.DefaultHeaders = maps.Clone(o.DefaultHeaders)
	if opts.DefaultHeaders == nil {
		opts.DefaultHeaders = map[string]string{}
	}
	maps.Copy(opts.DefaultHeaders, headers)
	s.APIKey = "not-needed"
	s.BaseURL = cmp.Or(s.BaseURL, portkeyGateway)
	return Preset{Name: "portkey", Class: "Portkey", Provider: "Portkey", Model: "gpt-4o-mini"}.New(s, &opts)
}
