package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server is a fake OpenAI embeddings endpoint speaking the real wire
// format: POST /v1/embeddings with {"input": [...], "model", ...}, answered
// with {"object": "list", "data": [{"object": "embedding", "index": i,
// "embedding": [...]}], "model", "usage"}. Embedding i of a request is
// [len(input), i, dims]; data items come back in reverse order so the
// client has to sort by index.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	status   int
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		status := s.status
		s.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error": {"message": "invalid model", "type": "invalid_request_error", "code": "model_not_found"}}`))
			return
		}
		inputs, _ := body["input"].([]any)
		dims := 3
		if d, ok := body["dimensions"].(float64); ok {
			dims = int(d)
		}
		data := make([]map[string]any, 0, len(inputs))
		for i := len(inputs) - 1; i >= 0; i-- {
			vec := make([]float64, dims)
			vec[0], vec[1] = float64(len(inputs[i].(string))), float64(i)
			if dims > 2 {
				vec[2] = float64(dims)
			}
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"object": "list", "data": data, "model": body["model"],
			"usage": map[string]any{"prompt_tokens": 2 * len(inputs), "total_tokens": 2 * len(inputs)},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) setStatus(code int) {
	s.mu.Lock()
	s.status = code
	s.mu.Unlock()
}

func TestEmbedBatchesThroughTheWireFormat(t *testing.T) {
	s := newServer(t)
	e, err := New(Config{BaseURL: s.URL + "/v1", APIKey: "sk-test", ID: "nomic-embed-text", Dimensions: 4, BatchSize: 2, User: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 5 {
		t.Fatalf("got %d vectors", len(vecs))
	}
	for i, v := range vecs {
		// Vector = [len(text), index within its batch, dims, 0].
		if len(v) != 4 || v[0] != float32(len(texts[i])) || v[1] != float32(i%2) || v[2] != 4 {
			t.Errorf("vector %d = %v: out of order or wrong", i, v)
		}
	}
	if usage.PromptTokens != 10 || usage.TotalTokens != 10 {
		t.Errorf("usage %+v, want the sum over 3 batches (10)", usage)
	}
	if len(s.requests) != 3 {
		t.Fatalf("%d requests for 5 texts in batches of 2, want 3", len(s.requests))
	}
	first := s.requests[0]
	if first["model"] != "nomic-embed-text" || first["encoding_format"] != "float" || first["dimensions"] != 4.0 || first["user"] != "u1" {
		t.Errorf("request body %v", first)
	}
	if in, _ := first["input"].([]any); len(in) != 2 || in[0] != "a" || in[1] != "bb" {
		t.Errorf("first batch input %v", first["input"])
	}
	if s.auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization %q", s.auth[0])
	}
}

func TestDimensionsRule(t *testing.T) {
	// agno sends dimensions only to text-embedding-3 models or custom
	// endpoints; its defaults are 1536, and 3072 for -3-large.
	e, _ := New(Config{APIKey: "k"})
	if e.Dimensions() != 1536 || e.ID() != DefaultID || !e.sendDimensions {
		t.Errorf("default: %d dims, id %s, send %v", e.Dimensions(), e.ID(), e.sendDimensions)
	}
	e, _ = New(Config{APIKey: "k", ID: "text-embedding-3-large"})
	if e.Dimensions() != 3072 {
		t.Errorf("text-embedding-3-large: %d dims, want 3072", e.Dimensions())
	}
	e, _ = New(Config{APIKey: "k", ID: "text-embedding-ada-002"})
	if e.sendDimensions {
		t.Error("dimensions sent to text-embedding-ada-002 at api.openai.com")
	}
}

func TestErrors(t *testing.T) {
	s := newServer(t)
	s.setStatus(http.StatusBadRequest)
	e, err := New(Config{BaseURL: s.URL + "/v1", Dimensions: 3, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("HTTP 400: %v", err)
	}
	// The endpoint's vectors must have the configured length.
	s.setStatus(0)
	e, _ = New(Config{BaseURL: s.URL + "/v1", Dimensions: 3})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Errorf("matching dims: %v", err)
	}
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`))
	}))
	defer wrong.Close()
	e, _ = New(Config{BaseURL: wrong.URL, Dimensions: 3})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "set dimensions to 2") {
		t.Errorf("2-dim answer for 3 configured: %v", err)
	}

	t.Setenv("OPENAI_API_KEY", "")
	if _, err := New(Config{}); !errors.Is(err, ErrNoAPIKey) {
		t.Errorf("no key for api.openai.com: %v", err)
	}
	t.Setenv("MY_EMBED_KEY", "")
	if _, err := New(Config{BaseURL: s.URL, APIKeyEnv: "MY_EMBED_KEY"}); !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "MY_EMBED_KEY") {
		t.Errorf("empty api_key_env: %v", err)
	}
	t.Setenv("MY_EMBED_KEY", "from-env")
	if _, err := New(Config{BaseURL: s.URL, APIKeyEnv: "MY_EMBED_KEY"}); err != nil {
		t.Errorf("api_key_env set: %v", err)
	}
	if _, err := New(Config{BaseURL: "localhost:11434"}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("base_url without scheme: %v", err)
	}
}

func TestAPIKeyFromEnv(t *testing.T) {
	s := newServer(t)
	t.Setenv("MY_EMBED_KEY", "env-key")
	e, err := New(Config{BaseURL: s.URL + "/v1", APIKeyEnv: "MY_EMBED_KEY", Dimensions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if s.auth[0] != "Bearer env-key" {
		t.Errorf("Authorization %q, want the key from MY_EMBED_KEY", s.auth[0])
	}
}
