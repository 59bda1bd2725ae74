package azureclaude_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
	"github.com/agno-go/agno/model/azureclaude"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func hermetic(t *testing.T) {
	for _, k := range []string{azureclaude.KeyEnv, azureclaude.ResourceEnv, azureclaude.BaseURLEnv, "MY_ENTRA_TOKEN"} {
		t.Setenv(k, "")
	}
}

// foundryPlatform is Microsoft Foundry serving Claude as a fake: the
// Messages API under /anthropic/ of the resource, authenticated by the
// resource's key in x-api-key or an Entra ID bearer token
// (https://learn.microsoft.com/azure/ai-foundry/foundry-models/how-to/use-foundry-models-claude),
// answering with Anthropic's bodies, events and errors
// (https://docs.anthropic.com/en/api/messages, /en/api/errors).
func foundryPlatform(key, token string) anthropictest.Platform {
	return anthropictest.Platform{
		Route: func(w http.ResponseWriter, r *http.Request, body []byte) (string, bool, bool) {
			var b struct {
				Model  string `json:"model"`
				Stream bool   `json:"stream"`
			}
			_ = json.Unmarshal(body, &b)
			if r.Method != http.MethodPost || r.URL.Path != "/anthropic/v1/messages" {
				anthropictest.WriteError(w, http.StatusNotFound, "not_found_error", "no route "+r.URL.Path)
				return b.Model, b.Stream, false
			}
			authed := (key != "" && r.Header.Get("X-Api-Key") == key) || (token != "" && r.Header.Get("Authorization") == "Bearer "+token)
			if !authed {
				anthropictest.WriteError(w, http.StatusUnauthorized, "authentication_error", "invalid credentials")
				return b.Model, b.Stream, false
			}
			return b.Model, b.Stream, true
		},
		WriteError: func(w http.ResponseWriter, turn providertest.Turn) {
			typ, body := anthropictest.TurnError(turn)
			_ = typ
			w.Header().Set("Content-Type", "application/json")
			if turn.RetryAfter > 0 {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(turn.Status)
			w.Write(body)
		},
		StreamContentType: "text/event-stream",
		ModelInBody:       true,
		WriteEvent: func(w io.Writer, ev anthropictest.Event) error {
			_, err := io.WriteString(w, anthropictest.SSE(ev))
			return err
		},
	}
}

// underAnthropic serves the suite the resource's /anthropic/ base URL.
type underAnthropic struct{ *anthropictest.Fake }

func (u underAnthropic) URL() string { return u.Fake.URL() + "/anthropic/" }

func TestConformance(t *testing.T) {
	hermetic(t)
	providertest.Run(t, providertest.Harness{
		Provider: azureclaude.ProviderAzureFoundryClaude,
		Options:  &azureclaude.Options{},
		Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
			return underAnthropic{anthropictest.StartFake(t, foundryPlatform(providertest.APIKey, ""), turns...)}
		},
	})
}

func hello() *model.Request {
	return &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}
}

func generate(t *testing.T, m model.Model) (*model.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return model.Collect(m.Generate(ctx, hello()))
}

// An Entra ID token from the variable azure_ad_token_env names is sent
// as bearer, with no key; agno's default id and names are reported.
func TestEntraToken(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, foundryPlatform("", "entra-1"), providertest.Turn{Text: []string{"hi"}})
	t.Setenv("MY_ENTRA_TOKEN", "entra-1")
	t.Setenv(azureclaude.BaseURLEnv, fake.URL()+"/anthropic/")
	reg, _ := model.LookupProvider(azureclaude.ProviderAzureFoundryClaude)
	opts := &azureclaude.Options{AzureADTokenEnv: "MY_ENTRA_TOKEN"}
	if !reg.KeyOptional(model.ProviderSettings{}, opts) {
		t.Fatal("a set token makes the key optional")
	}
	m, err := reg.New(model.ProviderSettings{MaxRetries: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := generate(t, m); err != nil || resp.Content != "hi" {
		t.Fatalf("%v %+v", err, resp)
	}
	req := fake.Requests()[0]
	if req.Header.Get("X-Api-Key") != "" || req.Model != azureclaude.DefaultID {
		t.Errorf("sent key %q model %q", req.Header.Get("X-Api-Key"), req.Model)
	}
	if info := m.Info(); info.Provider != azureclaude.ProviderName || info.Name != azureclaude.Name {
		t.Errorf("info %+v", info)
	}
}

// The resource's name places the endpoint, as agno's AnthropicFoundry
// client does.
func TestResourceURL(t *testing.T) {
	hermetic(t)
	var got string
	rt := roundTrip(func(r *http.Request) (*http.Response, error) {
		got = r.URL.String()
		body := anthropictest.TurnMessage(providertest.Turn{Text: []string{"ok"}}, "msg_1")
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(string(body))), Request: r}, nil
	})
	t.Setenv(azureclaude.ResourceEnv, "my-res")
	m, err := azureclaude.New(model.ProviderSettings{APIKey: "k", HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generate(t, m); err != nil {
		t.Fatal(err)
	}
	if got != "https://my-res.services.ai.azure.com/anthropic/v1/messages" {
		t.Errorf("sent to %s", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestErrors(t *testing.T) {
	hermetic(t)
	for _, c := range []struct {
		opts *azureclaude.Options
		key  string
		want string
	}{
		{&azureclaude.Options{}, "k", "no resource: set resource (or ANTHROPIC_FOUNDRY_RESOURCE)"},
		{&azureclaude.Options{Resource: "r"}, "", "export ANTHROPIC_FOUNDRY_API_KEY"},
		{&azureclaude.Options{Resource: "r", AzureADTokenEnv: "MY_ENTRA_TOKEN"}, "", "azure_ad_token_env names MY_ENTRA_TOKEN, which is not set"},
	} {
		if _, err := azureclaude.New(model.ProviderSettings{APIKey: c.key}, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.opts, err)
		}
	}
}
