package openai

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// A preset is the Chat Completions client pointed at its vendor: it
// passes the conformance suite against the fake Chat Completions server
// (the vendor's endpoint is overridden by base_url, as a file may).
func TestPresetConformance(t *testing.T) {
	for _, name := range []string{"groq", "ollama"} {
		t.Run(name, func(t *testing.T) {
			providertest.Run(t, providertest.Harness{Provider: name, ID: "llama-3.3-70b-versatile", Start: startChatCompletionsFake})
		})
	}
}

// recordedCall is what a preset sent: no network, the transport answers
// a minimal Chat Completions body (https://platform.openai.com/docs/api-reference/chat/object).
type recordedCall struct {
	url, auth, model string
	header           http.Header
}

type recorder struct{ calls []recordedCall }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	var m string
	if i := strings.Index(string(body), `"model":"`); i >= 0 {
		m, _, _ = strings.Cut(string(body[i+len(`"model":"`):]), `"`)
	}
	r.calls = append(r.calls, recordedCall{url: req.URL.String(), auth: req.Header.Get("Authorization"), model: m, header: req.Header.Clone()})
	answer := `{"id":"c1","object":"chat.completion","created":1,"model":"` + m + `","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}]}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(answer)), Request: req}, nil
}

// Each preset is registered under agno's model-string name with agno's
// key variable, and calls its vendor's endpoint with agno's default model,
// the key and the vendor's name in what it reports.
func TestPresets(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Presets {
		if seen[p.Name] {
			t.Fatalf("preset %q twice", p.Name)
		}
		seen[p.Name] = true
		reg, ok := model.LookupProvider(p.Name)
		if !ok || reg.KeyEnv != p.KeyEnv || reg.RequiresBaseURL {
			t.Fatalf("%s: registered %v, key %q, requires base_url %v", p.Name, ok, reg.KeyEnv, reg.RequiresBaseURL)
		}
		rec := &recorder{}
		m, err := reg.New(model.ProviderSettings{APIKey: "k-" + p.Name, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if info := m.Info(); info.Provider != p.Provider || info.ID != p.Model || info.Provider == ProviderName {
			t.Fatalf("%s: info %+v", p.Name, info)
		}
		for _, err := range m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}) {
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
		}
		want := strings.TrimSuffix(p.BaseURL, "/") + "/chat/completions"
		if len(rec.calls) != 1 || rec.calls[0].url != want || rec.calls[0].auth != "Bearer k-"+p.Name || rec.calls[0].model != p.Model {
			t.Fatalf("%s: sent %+v, want POST %s with its key and model %q", p.Name, rec.calls, want, p.Model)
		}
	}
	for _, name := range []string{"groq", "ollama", "openrouter", "deepseek", "xai", "together", "fireworks", "perplexity", "lmstudio", "vllm", "llama-cpp",
		"mistral", "cohere", "huggingface", "cerebras", "meta", "internlm", "litellm"} {
		if !seen[name] {
			t.Errorf("agno's %q has no preset", name)
		}
	}
}

// A file's base_url and model win over the preset's.
func TestPresetOverrides(t *testing.T) {
	reg, _ := model.LookupProvider("groq")
	rec := &recorder{}
	m, err := reg.New(model.ProviderSettings{ID: "mixtral", BaseURL: "https://gateway.example/v1", HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.calls) != 1 || rec.calls[0].url != "https://gateway.example/v1/chat/completions" || rec.calls[0].model != "mixtral" {
		t.Fatalf("sent %+v", rec.calls)
	}
}

// The common headers key reaches a preset's requests.
func TestPresetHeaders(t *testing.T) {
	reg, _ := model.LookupProvider("groq")
	rec := &recorder{}
	m, err := reg.New(model.ProviderSettings{APIKey: "k", Headers: map[string]string{"X-Tenant": "acme"}, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	generate(t, m)
	if got := rec.calls[0].header.Get("X-Tenant"); got != "acme" {
		t.Fatalf("X-Tenant %q", got)
	}
}

func generate(t *testing.T, m model.Model) {
	t.Helper()
	for _, err := range m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The gateways build their endpoint and headers from agno's keys and
// variables: Cloudflare's AI Gateway compat URL
// (https://developers.cloudflare.com/ai-gateway/usage/chat-completion/),
// LangDB's project URL, Portkey's x-portkey-* headers
// (https://portkey.ai/docs/api-reference/inference-api/headers).
func TestGateways(t *testing.T) {
	t.Setenv("CLOUDFLARE_ACCOUNT_ID", "")
	t.Setenv("CLOUDFLARE_AI_GATEWAY_ID", "")
	t.Setenv("LANGDB_PROJECT_ID", "")
	t.Setenv("LANGDB_API_BASE_URL", "")
	t.Setenv("PORTKEY_VIRTUAL_KEY", "")
	cases := []struct {
		provider      string
		opts          any
		wantURL, auth string
		wantModel     string
		headers       map[string]string
	}{
		{"cloudflare", &CloudflareOptions{AccountID: "acc"}, "https://gateway.ai.cloudflare.com/v1/acc/default/compat/chat/completions", "Bearer k",
			"workers-ai/@cf/meta/llama-3.3-70b-instruct-fp8-fast", nil},
		{"cloudflare", &CloudflareOptions{AccountID: "acc", GatewayID: "gw"}, "https://gateway.ai.cloudflare.com/v1/acc/gw/compat/chat/completions", "Bearer k",
			"workers-ai/@cf/meta/llama-3.3-70b-instruct-fp8-fast", nil},
		{"langdb", &LangDBOptions{ProjectID: "p1", Label: "docs"}, "https://api.us-east-1.langdb.ai/p1/v1/chat/completions", "Bearer k", "gpt-4o",
			map[string]string{"X-Label": "docs"}},
		{"portkey", &PortkeyOptions{VirtualKey: "vk", Config: map[string]any{"retry": map[string]any{"attempts": 3}}}, "https://api.portkey.ai/v1/chat/completions", "Bearer not-needed", "gpt-4o-mini",
			map[string]string{"X-Portkey-Api-Key": "k", "X-Portkey-Virtual-Key": "vk", "X-Portkey-Config": `{"retry":{"attempts":3}}`}},
	}
	for _, c := range cases {
		reg, ok := model.LookupProvider(c.provider)
		if !ok {
			t.Fatalf("%s not registered", c.provider)
		}
		rec := &recorder{}
		m, err := reg.New(model.ProviderSettings{APIKey: "k", HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.provider, err)
		}
		generate(t, m)
		got := rec.calls[0]
		if got.url != c.wantURL || got.auth != c.auth || got.model != c.wantModel {
			t.Errorf("%s: sent %s %q model %q", c.provider, got.url, got.auth, got.model)
		}
		for k, v := range c.headers {
			if got.header.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", c.provider, k, got.header.Get(k), v)
			}
		}
		if info := m.Info(); strings.EqualFold(info.Provider, "OpenAI") {
			t.Errorf("%s reports %+v", c.provider, info)
		}
	}
	// What is missing is named with its variable.
	for provider, want := range map[string]string{"cloudflare": "CLOUDFLARE_ACCOUNT_ID", "langdb": "LANGDB_PROJECT_ID"} {
		reg, _ := model.LookupProvider(provider)
		if _, err := reg.New(model.ProviderSettings{APIKey: "k"}, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s without its account: %v", provider, err)
		}
	}
	t.Setenv("CLOUDFLARE_ACCOUNT_ID", "env-acc")
	reg, _ := model.LookupProvider("cloudflare")
	rec := &recorder{}
	m, err := reg.New(model.ProviderSettings{ID: "openai/gpt-4o", APIKey: "k", HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	generate(t, m)
	if rec.calls[0].url != "https://gateway.ai.cloudflare.com/v1/env-acc/default/compat/chat/completions" || rec.calls[0].model != "openai/gpt-4o" {
		t.Errorf("from the environment: %+v", rec.calls[0])
	}
}

// A preset's errors name its vendor, not OpenAI.
func TestPresetErrorsNameTheVendor(t *testing.T) {
	reg, _ := model.LookupProvider("groq")
	fail := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := `{"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}`
		return &http.Response{StatusCode: 401, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	m, err := reg.New(model.ProviderSettings{APIKey: "k", HTTPClient: &http.Client{Transport: fail}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
	if err == nil || !strings.HasPrefix(err.Error(), "Groq at https://api.groq.com/openai/v1: status 401: Invalid API Key") {
		t.Fatalf("%v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
