// Package azure is the model.Model for Microsoft Azure: agno's AzureOpenAI
// (Chat Completions on an Azure OpenAI resource) and AzureAIFoundry (the
// Azure AI Model Inference API of Foundry, serverless and managed
// endpoints).
//
// Both speak Chat Completions, so both are package openai's model on
// openai-go with Azure's URLs and authentication given as client options:
// AzureOpenAI through openai-go's own azure package, AzureAIFoundry
// through its base URL, query and header options.
package azure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/model/openai"
)

// Names as agno reports them: both classes say provider "Azure".
const (
	ProviderName = "Azure"
	NameOpenAI   = "AzureOpenAI"
	NameFoundry  = "AzureAIFoundry"
)

// Azure OpenAI defaults and the variables agno reads.
const (
	// DefaultAPIVersion is agno's AzureOpenAI api_version.
	DefaultAPIVersion = "2024-10-21"
	KeyEnv            = "AZURE_OPENAI_API_KEY"
	EndpointEnv       = "AZURE_OPENAI_ENDPOINT"
	DeploymentEnv     = "AZURE_OPENAI_DEPLOYMENT"
	// ADTokenEnv is read by the openai SDK agno builds its client with
	// when azure_ad_token is not set.
	ADTokenEnv = "AZURE_OPENAI_AD_TOKEN"
)

// ErrInvalidConfig is matched by the errors of New and NewFoundry for a
// configuration they cannot use.
var ErrInvalidConfig = errors.New("azure: invalid config")

// Config configures an Azure OpenAI model (agno's AzureOpenAI).
type Config struct {
	// ID is the model id; "" means the deployment's name. Without
	// Deployment, the id is the deployment requests go to, as agno's SDK
	// routes them.
	ID string
	// Endpoint is the resource's endpoint,
	// "https://<resource>.openai.azure.com" (agno's azure_endpoint;
	// AZURE_OPENAI_ENDPOINT when "").
	Endpoint string
	// BaseURL is agno's base_url, the alternative to Endpoint:
	// "<endpoint>/openai" or "<endpoint>/openai/deployments/<deployment>".
	BaseURL string
	// Deployment pins the deployment (agno's azure_deployment;
	// AZURE_OPENAI_DEPLOYMENT when "").
	Deployment string
	// APIVersion is sent as api-version; "" is DefaultAPIVersion.
	APIVersion string
	// APIKey is sent as api-key (AZURE_OPENAI_API_KEY when "").
	APIKey string
	// ADToken is a Microsoft Entra ID token sent as "Authorization:
	// Bearer" (agno's azure_ad_token; AZURE_OPENAI_AD_TOKEN when ""). It
	// wins over APIKey, as in agno's SDK.
	ADToken string
	// DefaultQuery parameters are added to every request.
	DefaultQuery map[string]string

	HTTPClient *http.Client
	MaxRetries int
	Headers    map[string]string
	Logger     *slog.Logger
}

// New validates cfg and returns an Azure OpenAI Chat Completions model.
func New(cfg Config) (*openai.Model, error) {
	opts, endpoint, id, err := ClientOptions(cfg)
	if err != nil {
		return nil, err
	}
	return openai.New(openai.Config{
		ID: id, BaseURL: endpoint, Compatible: true, Name: NameOpenAI, Provider: ProviderName, Class: NameOpenAI,
		HTTPClient: cfg.HTTPClient, MaxRetries: cfg.MaxRetries, Headers: cfg.Headers, Logger: cfg.Logger,
		ClientOptions: opts,
	})
}

// ClientOptions are the openai-go options that reach cfg's resource and
// deployment with its credentials (any of the OpenAI APIs Azure serves:
// chat completions, embeddings), with the resource's endpoint and the id
// the body names.
func ClientOptions(cfg Config) (opts []option.RequestOption, endpointURL, id string, err error) {
	endpoint, deployment, err := resolveEndpoint(cfg)
	if err != nil {
		return nil, "", "", err
	}
	id = cfg.ID
	if id == "" {
		id = deployment
	}
	if id == "" {
		return nil, "", "", fmt.Errorf("%w: no deployment: set model to the deployment's name, or azure_deployment (or %s)", ErrInvalidConfig, DeploymentEnv)
	}
	version := cfg.APIVersion
	if version == "" {
		version = DefaultAPIVersion
	}
	if err := checkHeaders(cfg.Headers, "Authorization", "Api-Key"); err != nil {
		return nil, "", "", err
	}

	opts = []option.RequestOption{azure.WithEndpoint(endpoint.String(), version)}
	if endpoint.Scheme == "http" {
		// Checked to be loopback: a local emulator or proxy.
		opts = append(opts, azure.WithUnsafeAllowHTTP())
	}
	if deployment != "" && deployment != id {
		opts = append(opts, option.WithMiddleware(pinDeployment(endpoint, deployment)))
	}
	token := firstNonEmpty(cfg.ADToken, os.Getenv(ADTokenEnv))
	key := firstNonEmpty(cfg.APIKey, os.Getenv(KeyEnv))
	switch {
	case token != "":
		opts = append(opts, azure.WithTokenCredential(staticToken(token)))
	case key != "":
		opts = append(opts, azure.WithAPIKey(key))
	default:
		return nil, "", "", fmt.Errorf("%w: Azure OpenAI authentication is not configured: export %s=<your key> (or name another variable in api_key_env), or a Microsoft Entra ID token in %s (or the variable azure_ad_token_env names)",
			openai.ErrNoAPIKey, KeyEnv, ADTokenEnv)
	}
	for k, v := range cfg.DefaultQuery {
		opts = append(opts, option.WithQueryAdd(k, v))
	}
	return opts, endpoint.String(), id, nil
}

// resolveEndpoint returns the resource endpoint (without "/openai") and
// the pinned deployment, if any, from Endpoint or agno's BaseURL shape.
func resolveEndpoint(cfg Config) (*url.URL, string, error) {
	deployment := cfg.Deployment
	raw, key := cfg.Endpoint, "azure_endpoint"
	switch {
	case cfg.BaseURL != "" && cfg.Endpoint != "":
		return nil, "", fmt.Errorf("%w: base_url and azure_endpoint are mutually exclusive: set only azure_endpoint (the resource endpoint)", ErrInvalidConfig)
	case cfg.BaseURL != "":
		u, err := parseEndpoint(cfg.BaseURL, "base_url")
		if err != nil {
			return nil, "", err
		}
		path := strings.TrimSuffix(u.Path, "/")
		head, tail, ok := cutLast(path, "/openai/deployments/")
		switch {
		case ok && tail != "" && !strings.Contains(tail, "/"):
			if deployment != "" && deployment != tail {
				return nil, "", fmt.Errorf("%w: base_url names deployment %q but azure_deployment is %q: keep one", ErrInvalidConfig, tail, deployment)
			}
			deployment = tail
		case strings.HasSuffix(path, "/openai"):
			head = strings.TrimSuffix(path, "/openai")
		default:
			return nil, "", fmt.Errorf("%w: base_url %q is not an Azure OpenAI base URL: end it in /openai or /openai/deployments/<deployment>, or set azure_endpoint to the resource endpoint (https://<resource>.openai.azure.com)", ErrInvalidConfig, cfg.BaseURL)
		}
		u.Path, u.RawPath = head, ""
		return u, deployment, nil
	case raw == "":
		raw, key = os.Getenv(EndpointEnv), EndpointEnv
		if raw == "" {
			return nil, "", fmt.Errorf("%w: no endpoint: set azure_endpoint (https://<resource>.openai.azure.com), export %s, or set base_url", ErrInvalidConfig, EndpointEnv)
		}
	}
	if deployment == "" {
		deployment = os.Getenv(DeploymentEnv)
	}
	u, err := parseEndpoint(raw, key)
	return u, deployment, err
}

// parseEndpoint checks an endpoint: https, or http to a loopback host
// only, since a key or token is sent to it in the clear otherwise.
func parseEndpoint(raw, key string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%w: %s %q is not an https URL: set it like \"https://<resource>.openai.azure.com\"", ErrInvalidConfig, key, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %s %q has credentials, a query or a fragment: give only scheme, host and path (api_version is a key of its own)", ErrInvalidConfig, key, redact(u))
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%w: %s %q uses http: Azure credentials go only over https (http is allowed for localhost)", ErrInvalidConfig, key, raw)
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pinDeployment sends every request to deployment. openai-go's Azure
// routing takes the deployment from the body's model, which is the id;
// agno's azure_deployment routes by deployment while the body keeps the
// id. It runs after that routing and before the retries, once a call.
func pinDeployment(endpoint *url.URL, deployment string) option.Middleware {
	prefix := strings.TrimSuffix(endpoint.EscapedPath(), "/") + "/openai/deployments/"
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if rest, ok := strings.CutPrefix(r.URL.EscapedPath(), prefix); ok {
			if _, tail, ok := strings.Cut(rest, "/"); ok {
				escaped := prefix + url.PathEscape(deployment) + "/" + tail
				path, err := url.PathUnescape(escaped)
				if err != nil {
					return nil, err
				}
				r.URL.Path, r.URL.RawPath = path, escaped
			}
		}
		return next(r)
	}
}

// staticToken is a token agno's azure_ad_token gives: used as it is until
// the server refuses it (no refresh without a credential to refresh from).
type staticToken string

func (t staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	// Any expiry outside the policy's refresh window: the token is all
	// there is, so it is never "refreshed".
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// checkHeaders refuses headers that would take the place of the
// provider's own authentication.
func checkHeaders(h map[string]string, reserved ...string) error {
	for k := range h {
		for _, r := range reserved {
			if strings.EqualFold(k, r) {
				return fmt.Errorf("%w: header %q is set from the credentials: remove it from headers and give the key by api_key_env (or azure_ad_token)", ErrInvalidConfig, k)
			}
		}
	}
	return nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}
