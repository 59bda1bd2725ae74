package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/embedder"
)

func TestProviders(t *testing.T) {
	openai, ok := embedder.Lookup(ProviderOpenAI)
	if !ok || openai.KeyEnv != OpenAIKeyEnv || openai.RequiresBaseURL || openai.DefaultModel != DefaultID {
		t.Fatalf("openai: %+v %v", openai, ok)
	}
	compatible, ok := embedder.Lookup(ProviderCompatible)
	if !ok || compatible.KeyEnv != "" || !compatible.RequiresBaseURL {
		t.Fatalf("openai-compatible: %+v %v", compatible, ok)
	}
	if _, err := compatible.New(embedder.Options{}, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("openai-compatible without base_url: %v", err)
	}
	e, err := compatible.New(embedder.Options{BaseURL: "http://127.0.0.1:11434/v1", Dimensions: 768}, nil)
	if err != nil || e.Dimensions() != 768 {
		t.Errorf("openai-compatible: %v %v", e, err)
	}

	// A key variable that is not set does not fail New: the embedder has
	// the model's dimensions and its calls say what to export.
	const env = "AGNO_TEST_EMBEDDER_PROVIDER_KEY"
	t.Setenv(env, "")
	e, err = openai.New(embedder.Options{Model: "text-embedding-3-large", APIKeyEnv: env}, nil)
	if err != nil || e.Dimensions() != 3072 {
		t.Fatalf("missing key: %v %v", e, err)
	}
	_, _, err = e.Embed(t.Context(), []string{"x"})
	if !errors.Is(err, ErrNoAPIKey) || !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+env+"=") {
		t.Errorf("embed without a key: %v", err)
	}
	// Other mistakes still fail New.
	if _, err := openai.New(embedder.Options{APIKeyEnv: env, BaseURL: "localhost:8080"}, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad base_url: %v", err)
	}
}

// The table's user key reaches the request (agno's OpenAIEmbedder.user).
func TestProviderOptionsUser(t *testing.T) {
	s := newServer(t)
	p, _ := embedder.Lookup(ProviderCompatible)
	e, err := p.New(embedder.Options{BaseURL: s.URL + "/v1", Dimensions: 3}, &ProviderOptions{User: "u-42"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := s.requests[0]["user"]; got != "u-42" {
		t.Errorf("user = %v", got)
	}
}

// Each preset embeds with agno's model and dimensions at its endpoint,
// with the key from its variable; the fake speaks OpenAI's /embeddings
// (newServer), which these vendors document as compatible.
func TestPresets(t *testing.T) {
	want := map[string]struct {
		env, model string
		dims       int
	}{
		"fireworks": {"FIREWORKS_API_KEY", "nomic-ai/nomic-embed-text-v1.5", 768},
		"nebius":    {"NEBIUS_API_KEY", "BAAI/bge-en-icl", 1024},
		"together":  {"TOGETHER_API_KEY", "togethercomputer/m2-bert-80M-32k-retrieval", 768},
	}
	if len(Presets) != len(want) {
		t.Errorf("%d presets, want %d", len(Presets), len(want))
	}
	for _, preset := range Presets {
		t.Run(preset.Name, func(t *testing.T) {
			w, ok := want[preset.Name]
			if !ok {
				t.Fatalf("unexpected preset %q", preset.Name)
			}
			p, ok := embedder.Lookup(preset.Name)
			if !ok || p.KeyEnv != w.env || p.DefaultModel != w.model || p.RequiresBaseURL {
				t.Fatalf("registered %+v %v", p, ok)
			}
			s := newServer(t)
			t.Setenv(w.env, "key-"+preset.Name)
			e, err := p.New(embedder.Options{BaseURL: s.URL + "/v1"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if e.Dimensions() != w.dims {
				t.Errorf("dimensions %d, want %d", e.Dimensions(), w.dims)
			}
			vecs, _, err := e.Embed(t.Context(), []string{"hello"})
			if err != nil || len(vecs) != 1 || len(vecs[0]) != w.dims {
				t.Fatalf("embed: %v %v", vecs, err)
			}
			if r := s.requests[0]; r["model"] != w.model || r["dimensions"] != float64(w.dims) {
				t.Errorf("request %v", r)
			}
			if s.auth[0] != "Bearer key-"+preset.Name {
				t.Errorf("Authorization %q", s.auth[0])
			}

			// Model and dimensions are overridable.
			e, err = p.New(embedder.Options{BaseURL: s.URL + "/v1", Model: "other", Dimensions: 256}, nil)
			if err != nil || e.Dimensions() != 256 {
				t.Fatalf("override: %v %v", e, err)
			}
			if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || s.requests[1]["model"] != "other" {
				t.Errorf("override request %v: %v", s.requests[1], err)
			}

			// Without the key New still gives the dimensions; calls name
			// the vendor's variable.
			t.Setenv(w.env, "")
			e, err = p.New(embedder.Options{}, nil)
			if err != nil || e.Dimensions() != w.dims {
				t.Fatalf("no key: %v %v", e, err)
			}
			if _, _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+w.env+"=") {
				t.Errorf("embed without a key: %v", err)
			}
		})
	}
}

// agno's LangDBEmbedder: the project's endpoint, LANGDB_API_KEY, and an
// error naming project_id when there is none.
func TestLangDB(t *testing.T) {
	t.Setenv("LANGDB_PROJECT_ID", "")
	t.Setenv("LANGDB_API_KEY", "key-langdb")
	p, ok := embedder.Lookup("langdb")
	if !ok || p.KeyEnv != "LANGDB_API_KEY" || p.DefaultModel != "text-embedding-ada-002" {
		t.Fatalf("registered %+v %v", p, ok)
	}
	if _, err := p.New(embedder.Options{}, nil); err == nil || !strings.Contains(err.Error(), "project_id (or LANGDB_PROJECT_ID)") {
		t.Fatalf("no project: %v", err)
	}
	e, err := p.New(embedder.Options{}, &LangDBOptions{ProjectID: "p1"})
	if err != nil || e.Dimensions() != 1536 {
		t.Fatalf("%v %v", e, err)
	}
	s := newServer(t)
	e, err = p.New(embedder.Options{BaseURL: s.URL + "/v1"}, &LangDBOptions{ProjectID: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"hello"}); err != nil || s.auth[0] != "Bearer key-langdb" || s.requests[0]["model"] != "text-embedding-ada-002" {
		t.Fatalf("embed: %v %v %v", err, s.auth, s.requests)
	}
}
