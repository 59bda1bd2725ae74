package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/embedder"
)

func TestProviders(t *testing.T) {
	openai, ok := embedder.Lookup(ProviderOpenAI)
	if !ok || openai.KeyEnv != OpenAIKeyEnv || openai.RequiresBaseURL {
		t.Fatalf("openai: %+v %v", openai, ok)
	}
	compatible, ok := embedder.Lookup(ProviderCompatible)
	if !ok || compatible.KeyEnv != "" || !compatible.RequiresBaseURL {
		t.Fatalf("openai-compatible: %+v %v", compatible, ok)
	}
	if _, err := compatible.New(embedder.Options{}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("openai-compatible without base_url: %v", err)
	}
	e, err := compatible.New(embedder.Options{BaseURL: "http://127.0.0.1:11434/v1", Dimensions: 768})
	if err != nil || e.Dimensions() != 768 {
		t.Errorf("openai-compatible: %v %v", e, err)
	}

	// A key variable that is not set does not fail New: the embedder has
	// the model's dimensions and its calls say what to export.
	const env = "AGNO_TEST_EMBEDDER_PROVIDER_KEY"
	t.Setenv(env, "")
	e, err = openai.New(embedder.Options{Model: "text-embedding-3-large", APIKeyEnv: env})
	if err != nil || e.Dimensions() != 3072 {
		t.Fatalf("missing key: %v %v", e, err)
	}
	_, _, err = e.Embed(t.Context(), []string{"x"})
	if !errors.Is(err, ErrNoAPIKey) || !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+env+"=") {
		t.Errorf("embed without a key: %v", err)
	}
	// Other mistakes still fail New.
	if _, err := openai.New(embedder.Options{APIKeyEnv: env, BaseURL: "localhost:8080"}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad base_url: %v", err)
	}
}
