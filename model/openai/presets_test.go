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
}

type recorder struct{ calls []recordedCall }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	var m string
	if i := strings.Index(string(body), `"model":"`); i >= 0 {
		m, _, _ = strings.Cut(string(body[i+len(`"model":"`):]), `"`)
	}
	r.calls = append(r.calls, recordedCall{url: req.URL.String(), auth: req.Header.Get("Authorization"), model: m})
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
	for _, name := range []string{"groq", "ollama", "openrouter", "deepseek", "xai", "together", "fireworks", "perplexity", "lmstudio", "vllm", "llama-cpp"} {
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
