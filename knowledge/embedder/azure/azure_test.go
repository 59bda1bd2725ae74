package azure_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/azure"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type seen struct {
	path, version, apiKey, auth string
	input                       []string
	dims                        int
}

// fakeAzure answers Azure OpenAI's embeddings route
// (https://learn.microsoft.com/azure/ai-services/openai/reference#embeddings):
// POST /openai/deployments/{deployment}/embeddings?api-version=..., the
// key in api-key or an Entra ID bearer, OpenAI's embedding list back.
func fakeAzure(t *testing.T) (*httptest.Server, func() []seen) {
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Input      []string `json:"input"`
			Dimensions int      `json:"dimensions"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		got = append(got, seen{r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("Api-Key"), r.Header.Get("Authorization"), body.Input, body.Dimensions})
		mu.Unlock()
		if r.Header.Get("Api-Key") == "" && r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint."}}`))
			return
		}
		var data []map[string]any
		for i := range body.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{float64(i), 0.5, 1}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "text-embedding-3-small",
			"usage": map[string]any{"prompt_tokens": 4, "total_tokens": 4}})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen { mu.Lock(); defer mu.Unlock(); return append([]seen(nil), got...) }
}

func hermetic(t *testing.T) {
	for _, k := range []string{azure.KeyEnv, azure.EndpointEnv, azure.DeploymentEnv, azure.VersionEnv, "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_AD_TOKEN", "MY_ENTRA"} {
		t.Setenv(k, "")
	}
}

func build(t *testing.T, o embedder.Options, x *azure.Options) embedder.Embedder {
	t.Helper()
	p, ok := embedder.Lookup(azure.Provider)
	if !ok {
		t.Fatal("azure-openai is not registered")
	}
	e, err := p.New(o, x)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedsOnTheDeployment(t *testing.T) {
	hermetic(t)
	srv, got := fakeAzure(t)
	t.Setenv(azure.KeyEnv, "az-key")
	t.Setenv(azure.EndpointEnv, srv.URL)
	e := build(t, embedder.Options{Dimensions: 3}, &azure.Options{})
	vecs, _, err := e.Embed(context.Background(), []string{"a", "b"})
	if err != nil || len(vecs) != 2 || vecs[1][0] != 1 || e.Dimensions() != 3 {
		t.Fatalf("%v %v", vecs, err)
	}
	s := got()[0]
	if s.path != "/openai/deployments/text-embedding-3-small/embeddings" || s.version != "2024-10-21" || s.apiKey != "az-key" || s.auth != "" || s.dims != 3 {
		t.Errorf("sent %+v", s)
	}
	// A pinned deployment and version route there; the body keeps the id.
	e = build(t, embedder.Options{Model: "text-embedding-3-large", Dimensions: 3}, &azure.Options{AzureEndpoint: srv.URL, AzureDeployment: "prod-embed", APIVersion: "2025-01-01"})
	if _, _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if s := got()[1]; s.path != "/openai/deployments/prod-embed/embeddings" || s.version != "2025-01-01" {
		t.Errorf("pinned: %+v", s)
	}
}

func TestEntraToken(t *testing.T) {
	hermetic(t)
	srv, got := fakeAzure(t)
	t.Setenv("MY_ENTRA", "entra-1")
	e := build(t, embedder.Options{Dimensions: 3}, &azure.Options{AzureEndpoint: srv.URL, AzureADTokenEnv: "MY_ENTRA"})
	if _, _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if s := got()[0]; s.auth != "Bearer entra-1" || s.apiKey != "" {
		t.Errorf("sent %+v", s)
	}
}

// A key not exported yet does not refuse a start; calls say what to export.
func TestMissingKey(t *testing.T) {
	hermetic(t)
	e := build(t, embedder.Options{Dimensions: 3}, &azure.Options{AzureEndpoint: "https://res.openai.azure.com"})
	_, _, err := e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+azure.KeyEnv) || e.Dimensions() != 3 {
		t.Fatalf("%v", err)
	}
	p, _ := embedder.Lookup(azure.Provider)
	if _, err := p.New(embedder.Options{}, &azure.Options{AzureEndpoint: "https://res.openai.azure.com", AzureADTokenEnv: "MY_ENTRA"}); err == nil || !strings.Contains(err.Error(), "azure_ad_token_env names MY_ENTRA") {
		t.Fatalf("unset token variable: %v", err)
	}
}
