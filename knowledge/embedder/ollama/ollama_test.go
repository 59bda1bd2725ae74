package ollama

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

// fake is an Ollama server's /api/embed as docs/api.md documents it
// (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings):
// POST {"model", "input": string or [string], "truncate", "options",
// "keep_alive", "dimensions"} answered {"model", "embeddings": [[...]],
// "total_duration", "load_duration", "prompt_eval_count"}, and an unknown
// model 404 {"error": "model \"x\" not found, try pulling it first"}.
// Embedding i is [len(input i), i, ...] with the requested dimensions
// (768, a nomic-embed-text's, when none is sent).
type fake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	fail     []int // statuses to answer before succeeding
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
			http.Error(w, "404 page not found", http.StatusNotFound)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid request"}`))
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		var status int
		if len(f.fail) > 0 {
			status, f.fail = f.fail[0], f.fail[1:]
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if status != 0 {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":"server busy"}`))
			return
		}
		if body["model"] == "missing" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"model \"missing\" not found, try pulling it first"}`))
			return
		}
		var inputs []string
		switch in := body["input"].(type) {
		case string:
			inputs = []string{in}
		case []any:
			for _, s := range in {
				inputs = append(inputs, s.(string))
			}
		}
		dims := 768
		if d, ok := body["dimensions"].(float64); ok {
			dims = int(d)
		}
		embs := make([][]float64, len(inputs))
		tokens := 0
		for i, s := range inputs {
			embs[i] = make([]float64, dims)
			embs[i][0], embs[i][1] = float64(len(s)), float64(i)
			tokens += len(strings.Fields(s))
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": body["model"], "embeddings": embs,
			"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": tokens,
		})
	}))
	t.Cleanup(f.Close)
	return f
}

func TestEmbedThroughTheWireFormat(t *testing.T) {
	f := newFake(t)
	p, ok := embedder.Lookup(Provider)
	if !ok || p.KeyEnv != "" || p.DefaultModel != "openhermes" || p.RequiresBaseURL {
		t.Fatalf("registered %+v %v", p, ok)
	}
	e, err := p.New(embedder.Options{Model: "nomic-embed-text", Dimensions: 8, BatchSize: 2},
		&Options{Host: f.URL, Options: map[string]any{"num_ctx": 2048}})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a b", "ccc", "d e f"}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 8 || v[0] != float32(len(texts[i])) || v[1] != float32(i%2) {
			t.Errorf("vector %d = %v", i, v)
		}
	}
	if len(vecs) != 3 || usage.PromptTokens != 6 || usage.TotalTokens != 6 {
		t.Errorf("%d vectors, usage %+v (want the tokens of both batches, 6)", len(vecs), usage)
	}
	if len(f.requests) != 2 {
		t.Fatalf("%d requests for 3 texts in batches of 2", len(f.requests))
	}
	r := f.requests[0]
	if r["model"] != "nomic-embed-text" || r["dimensions"] != 8.0 || r["options"].(map[string]any)["num_ctx"] != 2048.0 {
		t.Errorf("request %v", r)
	}
	if in := r["input"].([]any); len(in) != 2 || in[0] != "a b" {
		t.Errorf("input %v", in)
	}
	if f.auth[0] != "" {
		t.Errorf("Authorization %q sent without a key", f.auth[0])
	}
}

// agno's defaults: openhermes, 4096 dimensions sent with each request,
// the server at localhost:11434 or $OLLAMA_HOST (base_url, host, or a
// host without a scheme, as the Ollama clients take it).
func TestDefaults(t *testing.T) {
	f := newFake(t)
	t.Setenv(HostEnv, strings.TrimPrefix(f.URL, "http://"))
	e, err := New(Config{})
	if err != nil || e.Dimensions() != DefaultDimensions || e.ID() != DefaultID {
		t.Fatalf("%v %v", e, err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if r := f.requests[0]; r["model"] != "openhermes" || r["dimensions"] != 4096.0 {
		t.Errorf("request %v", r)
	}
	t.Setenv(HostEnv, "")
	if e, _ := New(Config{}); e.url != "http://localhost:11434/api/embed" {
		t.Errorf("default url %s", e.url)
	}
	p, _ := embedder.Lookup(Provider)
	if _, err := p.New(embedder.Options{BaseURL: f.URL + "/", Dimensions: 4}, nil); err != nil {
		t.Errorf("base_url: %v", err)
	}
}

func TestErrors(t *testing.T) {
	f := newFake(t)
	p, _ := embedder.Lookup(Provider)
	for _, tc := range []struct {
		o    embedder.Options
		x    *Options
		want string
	}{
		{embedder.Options{BaseURL: "http://a:11434"}, &Options{Host: "http://b:11434"}, "keep one"},
		{embedder.Options{BaseURL: "http://localhost:11434/v1"}, &Options{}, "openai-compatible"},
		{embedder.Options{}, &Options{Host: "ftp://x"}, "not an http(s) URL"},
		{embedder.Options{Dimensions: -1}, &Options{}, "must not be negative"},
	} {
		if _, err := p.New(tc.o, tc.x); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v, %+v) = %v, want %q", tc.o, tc.x, err, tc.want)
		}
	}

	// A model the server lacks: its message, not retried.
	e, _ := New(Config{Host: f.URL, ID: "missing", Dimensions: 4})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "try pulling it first") || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing model: %v", err)
	}
	if len(f.requests) != 1 {
		t.Errorf("a 404 was sent %d times", len(f.requests))
	}
	// A 503 is retried.
	f.fail = []int{http.StatusServiceUnavailable}
	e, _ = New(Config{Host: f.URL, Dimensions: 4})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || len(f.requests) != 3 {
		t.Errorf("after a 503: %v, %d requests", err, len(f.requests))
	}
	// Vectors of another length than configured are refused.
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"model":"m","embeddings":[[0.1,0.2]]}`))
	}))
	defer wrong.Close()
	e, _ = New(Config{Host: wrong.URL, Dimensions: 3})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "set dimensions to 2") {
		t.Errorf("2-dim answer for 3 configured: %v", err)
	}
}

// api_key_env sends its key as a bearer token; unset, New still gives the
// dimensions and calls say what to export.
func TestAPIKeyEnv(t *testing.T) {
	f := newFake(t)
	p, _ := embedder.Lookup(Provider)
	const env = "AGNO_TEST_OLLAMA_KEY"
	t.Setenv(env, "k1")
	e, err := p.New(embedder.Options{BaseURL: f.URL, APIKeyEnv: env, Dimensions: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || f.auth[0] != "Bearer k1" {
		t.Errorf("%v, Authorization %q", err, f.auth[0])
	}
	t.Setenv(env, "")
	e, err = p.New(embedder.Options{BaseURL: f.URL, APIKeyEnv: env, Dimensions: 4}, nil)
	if err != nil || e.Dimensions() != 4 {
		t.Fatalf("%v %v", e, err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+env+"=") {
		t.Errorf("no key: %v", err)
	}
}
