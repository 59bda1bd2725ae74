package azure

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest/providertest"
	"github.com/agno-go/agno/model/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clearEnv unsets every variable the providers read, so that a machine's
// own Azure settings do not change what a test sees.
func clearEnv(t *testing.T) {
	for _, v := range []string{KeyEnv, EndpointEnv, DeploymentEnv, ADTokenEnv, FoundryKeyEnv, FoundryEndpointEnv, FoundryAPIVersionEnv} {
		t.Setenv(v, "")
	}
}

// ask makes one non-streamed call and returns its text.
func ask(t *testing.T, m model.Model) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out strings.Builder
	for c, err := range m.Generate(ctx, &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}) {
		if err != nil {
			t.Fatalf("Generate: %v", err)
		}
		out.WriteString(c.Content)
	}
	return out.String()
}

func testClient(t *testing.T) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func bodyModel(t *testing.T, r providertest.Request) string {
	t.Helper()
	var head struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(r.Body, &head); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return head.Model
}

func TestInfoNamesAzure(t *testing.T) {
	clearEnv(t)
	m, err := New(Config{Endpoint: "https://res.openai.azure.com", ID: "gpt-4o", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if i := m.Info(); i.Provider != "Azure" || i.Name != "AzureOpenAI" || i.ID != "gpt-4o" {
		t.Errorf("Info = %+v, want provider Azure, name AzureOpenAI, id gpt-4o", i)
	}
	f, err := NewFoundry(FoundryConfig{Endpoint: "https://res.services.ai.azure.com/models", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if i := f.Info(); i.Provider != "Azure" || i.Name != "AzureAIFoundry" || i.ID != DefaultFoundryID {
		t.Errorf("Info = %+v, want provider Azure, name AzureAIFoundry, id %s", i, DefaultFoundryID)
	}
}

// An Entra ID token goes as "Authorization: Bearer" and no api-key, and
// wins over a key, as in agno's SDK.
func TestEntraIDToken(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		env  string
	}{
		{name: "azure_ad_token", cfg: Config{ADToken: "entra-token", APIKey: "some-key"}},
		{name: ADTokenEnv, env: "entra-token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ADTokenEnv, tc.env)
			f := startAzureFake(t, openAIWire(DefaultAPIVersion, "", "entra-token"), "", providertest.Turn{Text: []string{"hello"}})
			cfg := tc.cfg
			cfg.Endpoint, cfg.ID, cfg.HTTPClient = f.URL(), "gpt-4o", testClient(t)
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ask(t, m); got != "hello" {
				t.Errorf("answer %q, want hello", got)
			}
			if n := len(f.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// azure_deployment routes to the deployment while the body keeps the id,
// on every attempt of a retried call; base_url may name the deployment.
func TestDeploymentRouting(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		name     string
		cfg      func(url string) Config
		wantBody string
	}{
		{"azure_deployment", func(u string) Config { return Config{Endpoint: u, Deployment: "prod-4o", ID: "gpt-4o"} }, "gpt-4o"},
		{"base_url", func(u string) Config { return Config{BaseURL: u + "/openai/deployments/prod-4o", ID: "gpt-4o"} }, "gpt-4o"},
		{"deployment is the id", func(u string) Config { return Config{Endpoint: u, Deployment: "prod-4o"} }, "prod-4o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startAzureFake(t, openAIWire("2025-01-01-preview", "k", ""), "",
				providertest.Turn{Status: http.StatusServiceUnavailable, ErrorMessage: "busy", RetryAfter: time.Millisecond},
				providertest.Turn{Text: []string{"ok"}})
			cfg := tc.cfg(f.URL())
			cfg.APIKey, cfg.APIVersion, cfg.HTTPClient, cfg.MaxRetries = "k", "2025-01-01-preview", testClient(t), 1
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ask(t, m); got != "ok" {
				t.Errorf("answer %q, want ok", got)
			}
			reqs := f.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (one retry)", len(reqs))
			}
			for i, r := range reqs {
				if r.Model != "prod-4o" {
					t.Errorf("attempt %d went to deployment %q, want prod-4o", i+1, r.Model)
				}
				if got := bodyModel(t, r); got != tc.wantBody {
					t.Errorf("attempt %d: body model %q, want %q", i+1, got, tc.wantBody)
				}
			}
		})
	}
}

// The endpoint, deployment and key come from agno's variables.
func TestEnvironment(t *testing.T) {
	clearEnv(t)
	f := startAzureFake(t, openAIWire(DefaultAPIVersion, "env-key", ""), "", providertest.Turn{Text: []string{"ok"}})
	t.Setenv(EndpointEnv, f.URL())
	t.Setenv(DeploymentEnv, "from-env")
	t.Setenv(KeyEnv, "env-key")
	m, err := model.FromProvider(ProviderOpenAI, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ask(t, m); got != "ok" {
		t.Errorf("answer %q, want ok", got)
	}
	if r := f.Requests(); len(r) != 1 || r[0].Model != "from-env" {
		t.Errorf("requests %+v, want one to deployment from-env", r)
	}
}

func TestDefaultQueryAndHeaders(t *testing.T) {
	clearEnv(t)
	f := startAzureFake(t, openAIWire(DefaultAPIVersion, "k", ""), "", providertest.Turn{Text: []string{"ok"}})
	m, err := New(Config{Endpoint: f.URL(), ID: "d", APIKey: "k", HTTPClient: testClient(t),
		DefaultQuery: map[string]string{"tenant": "blue"}, Headers: map[string]string{"X-Team": "red"}})
	if err != nil {
		t.Fatal(err)
	}
	ask(t, m)
	r := f.Requests()
	if len(r) != 1 {
		t.Fatalf("%d requests, want 1", len(r))
	}
	if got := r[0].Header.Get("X-Team"); got != "red" {
		t.Errorf("X-Team = %q, want red", got)
	}
	if got := r[0].Header.Get(queryHeader); !strings.Contains(got, "tenant=blue") {
		t.Errorf("query %q lacks tenant=blue", got)
	}
}

func TestFoundry(t *testing.T) {
	clearEnv(t)
	f := startAzureFake(t, foundryWire("/models", "2024-12-01", "fk"), "/models", providertest.Turn{Text: []string{"ok"}})
	t.Setenv(FoundryEndpointEnv, f.URL())
	t.Setenv(FoundryKeyEnv, "fk")
	t.Setenv(FoundryAPIVersionEnv, "2024-12-01")
	m, err := NewFoundry(FoundryConfig{ID: "Phi-4", HTTPClient: testClient(t), ModelExtras: map[string]any{"safe_mode": true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ask(t, m); got != "ok" {
		t.Errorf("answer %q, want ok", got)
	}
	r := f.Requests()
	if len(r) != 1 {
		t.Fatalf("%d requests, want 1", len(r))
	}
	var body map[string]any
	if err := json.Unmarshal(r[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "Phi-4" || body["safe_mode"] != true {
		t.Errorf("body %s: want model Phi-4 and model_extras' safe_mode", r[0].Body)
	}
	if got := r[0].Header.Get("Extra-Parameters"); got != "pass-through" {
		t.Errorf("extra-parameters = %q, want pass-through", got)
	}
}

// Errors of the API come back as ProviderErrors naming Azure.
func TestErrorsNameAzure(t *testing.T) {
	clearEnv(t)
	f := startAzureFake(t, openAIWire(DefaultAPIVersion, "k", ""), "", providertest.Turn{Status: http.StatusBadRequest, ErrorMessage: "bad things"})
	m, err := New(Config{Endpoint: f.URL(), ID: "d", APIKey: "k", HTTPClient: testClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}) {
		var pe *model.ProviderError
		if !errors.As(err, &pe) || pe.Provider != "Azure" || pe.StatusCode != 400 || !strings.HasPrefix(err.Error(), "Azure: ") {
			t.Errorf("err = %v, want an Azure ProviderError with status 400", err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	clearEnv(t)
	const ep = "https://res.openai.azure.com"
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"no endpoint", Config{ID: "d", APIKey: "k"}, []string{"azure_endpoint", EndpointEnv}},
		{"both endpoints", Config{Endpoint: ep, BaseURL: ep + "/openai", ID: "d", APIKey: "k"}, []string{"base_url and azure_endpoint are mutually exclusive"}},
		{"base_url shape", Config{BaseURL: ep, ID: "d", APIKey: "k"}, []string{"base_url", "/openai/deployments/<deployment>"}},
		{"base_url deployment clash", Config{BaseURL: ep + "/openai/deployments/a", Deployment: "b", APIKey: "k"}, []string{`"a"`, `"b"`}},
		{"plain http", Config{Endpoint: "http://res.openai.azure.com", ID: "d", APIKey: "k"}, []string{"azure_endpoint", "https"}},
		{"not a URL", Config{Endpoint: "res.openai.azure.com", ID: "d", APIKey: "k"}, []string{"azure_endpoint", "https://<resource>.openai.azure.com"}},
		{"query", Config{Endpoint: ep + "?api-version=1", ID: "d", APIKey: "k"}, []string{"api_version"}},
		{"no deployment", Config{Endpoint: ep, APIKey: "k"}, []string{"azure_deployment", DeploymentEnv}},
		{"no credentials", Config{Endpoint: ep, ID: "d"}, []string{KeyEnv, "azure_ad_token", ADTokenEnv}},
		{"auth header", Config{Endpoint: ep, ID: "d", APIKey: "k", Headers: map[string]string{"api-key": "x"}}, []string{`"api-key"`, "api_key_env"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	if _, err := New(Config{ID: "d"}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("no endpoint: %v, want ErrInvalidConfig", err)
	}
	if _, err := New(Config{Endpoint: ep, ID: "d"}); !errors.Is(err, openai.ErrNoAPIKey) {
		t.Errorf("no credentials: %v, want openai.ErrNoAPIKey", err)
	}
	if _, err := New(Config{Endpoint: "http://localhost:8080", ID: "d", APIKey: "k"}); err != nil {
		t.Errorf("http to localhost (an emulator or a local proxy): %v", err)
	}
}

func TestFoundryConfigErrors(t *testing.T) {
	clearEnv(t)
	p, _ := model.LookupProvider(ProviderFoundry)
	for _, tc := range []struct {
		name string
		s    model.ProviderSettings
		o    FoundryOptions
		want []string
	}{
		{"no endpoint", model.ProviderSettings{APIKey: "k"}, FoundryOptions{}, []string{"azure_endpoint", FoundryEndpointEnv}},
		{"no key", model.ProviderSettings{}, FoundryOptions{AzureEndpoint: "https://x.services.ai.azure.com/models"}, []string{FoundryKeyEnv}},
		{"two endpoints", model.ProviderSettings{APIKey: "k", BaseURL: "https://a/models"}, FoundryOptions{AzureEndpoint: "https://b/models"}, []string{"base_url", "azure_endpoint"}},
		{"bad endpoint", model.ProviderSettings{APIKey: "k"}, FoundryOptions{AzureEndpoint: "x.services.ai.azure.com"}, []string{"azure_endpoint", "https://"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			_, err := p.New(tc.s, &o)
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// The options decode from agno's keys, as config decodes a [models.<key>]
// table: strictly, every key known.
func TestOptionsDecodeAgnoKeys(t *testing.T) {
	var o OpenAIOptions
	md, err := toml.Decode(`
azure_endpoint = "https://res.openai.azure.com"
azure_deployment = "prod"
api_version = "2025-01-01-preview"
azure_ad_token_env = "MY_ENTRA_TOKEN"
default_query = { tenant = "blue" }
`, &o)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("decode: %v, undecoded %v", err, md.Undecoded())
	}
	want := OpenAIOptions{AzureEndpoint: "https://res.openai.azure.com", AzureDeployment: "prod", APIVersion: "2025-01-01-preview",
		AzureADTokenEnv: "MY_ENTRA_TOKEN", DefaultQuery: map[string]string{"tenant": "blue"}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("got %+v, want %+v", o, want)
	}
	var f FoundryOptions
	md, err = toml.Decode(`
azure_endpoint = "https://res.services.ai.azure.com/models"
api_version = "2024-05-01-preview"
model_extras = { safe_mode = true, n = 2 }
`, &f)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("decode: %v, undecoded %v", err, md.Undecoded())
	}
	if f.AzureEndpoint == "" || f.APIVersion != "2024-05-01-preview" || f.ModelExtras["safe_mode"] != true {
		t.Errorf("got %+v", f)
	}
}
