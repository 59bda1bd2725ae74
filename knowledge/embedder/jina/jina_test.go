package jina

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/embedder"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is Jina's POST /v1/embeddings as its API reference documents it
// (https://api.jina.ai/redoc#tag/embeddings): a bearer key, a body of
// {"model", "input": [...], "embedding_type", "task", "dimensions",
// "normalized", "late_chunking", "truncate"}, answered {"model", "object":
// "list", "usage": {"total_tokens", "prompt_tokens"}, "data": [{"object":
// "embedding", "index": i, "embedding": [...]}]}; errors as {"detail":
// "..."}. Embedding i is [len(text i), i, ...] of the requested
// dimensions; data comes back in reverse order.
type fake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.requests = append(f.requests, body)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer jina-test" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"detail":"Invalid API key"}`))
			return
		}
		dims, _ := body["dimensions"].(float64)
		inputs, _ := body["input"].([]any)
		data := []map[string]any{}
		for i := len(inputs) - 1; i >= 0; i-- {
			vec := make([]float64, int(dims))
			vec[0], vec[1] = float64(len(inputs[i].(string))), float64(i)
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
		}
		n := 3 * len(inputs)
		_ = json.NewEncoder(w).Encode(map[string]any{"model": body["model"], "object": "list", "data": data,
			"usage": map[string]any{"total_tokens": n, "prompt_tokens": n}})
	}))
	t.Cleanup(f.Close)
	return f
}

func TestEmbedThroughTheWireFormat(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "jina-test")
	p, ok := embedder.Lookup(Provider)
	if !ok || p.KeyEnv != "JINA_API_KEY" || p.DefaultModel != "jina-embeddings-v3" {
		t.Fatalf("registered %+v %v", p, ok)
	}
	yes := true
	// agno's base_url form: the embeddings URL itself.
	e, err := p.New(embedder.Options{BaseURL: f.URL + "/v1/embeddings", BatchSize: 2}, &Options{
		LateChunking: true, User: "u1", Headers: map[string]string{"X-Trace": "t1"},
		RequestParams: RequestParams{Task: "retrieval.passage", Normalized: &yes},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 1024 {
		t.Errorf("dimensions %d, want agno's 1024", e.Dimensions())
	}
	texts := []string{"a", "bb", "ccc"}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 1024 || v[0] != float32(len(texts[i])) || v[1] != float32(i%2) {
			t.Errorf("vector %d = %v...", i, v[:2])
		}
	}
	if len(vecs) != 3 || usage.TotalTokens != 9 || len(f.requests) != 2 {
		t.Fatalf("%d vectors, usage %+v, %d requests", len(vecs), usage, len(f.requests))
	}
	r := f.requests[0]
	if r["model"] != "jina-embeddings-v3" || r["dimensions"] != 1024.0 || r["embedding_type"] != "float" || r["late_chunking"] != true ||
		r["user"] != "u1" || r["task"] != "retrieval.passage" || r["normalized"] != true {
		t.Errorf("request %v", r)
	}
	if _, ok := r["truncate"]; ok {
		t.Errorf("truncate sent without being set: %v", r)
	}
	if f.headers[0].Get("X-Trace") != "t1" {
		t.Errorf("headers %v", f.headers[0])
	}
	// The API base works as base_url too.
	e, _ = p.New(embedder.Options{BaseURL: f.URL + "/v1", Dimensions: 64}, nil)
	if vecs, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || len(vecs[0]) != 64 {
		t.Errorf("base_url without /embeddings: %v", err)
	}
}

func TestErrors(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "jina-test")
	p, _ := embedder.Lookup(Provider)
	for _, tc := range []struct {
		x    Options
		want string
	}{
		{Options{EmbeddingType: "int8"}, `embedding_type = "int8"`},
		{Options{RequestParams: RequestParams{Task: "retrieval"}}, `request_params.task = "retrieval"`},
		{Options{Headers: map[string]string{"Bad Name": "x"}}, "headers"},
		{Options{Headers: map[string]string{"X-A": "a\r\nX-B: b"}}, "one-line value"},
	} {
		if _, err := p.New(embedder.Options{}, &tc.x); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.x, err, tc.want)
		}
	}
	e, _ := New(Config{BaseURL: f.URL + "/v1", APIKey: "wrong"})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "Invalid API key") {
		t.Errorf("bad key: %v", err)
	}
	t.Setenv(KeyEnv, "")
	e2, err := p.New(embedder.Options{Dimensions: 256}, nil)
	if err != nil || e2.Dimensions() != 256 {
		t.Fatalf("%v %v", e2, err)
	}
	if _, _, err := e2.Embed(t.Context(), []string{"x"}); !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export JINA_API_KEY=") {
		t.Errorf("no key: %v", err)
	}
}
