package cohere

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

// fake is Cohere's POST /v2/embed as its API reference documents it
// (https://docs.cohere.com/reference/embed): a bearer key, a body of
// {"model", "input_type", "texts", "embedding_types", "truncate",
// "output_dimension", "max_tokens"}, answered {"id", "embeddings":
// {"float": [[...]]}, "texts", "meta": {"api_version": {"version": "2"},
// "billed_units": {"input_tokens": n}}, "response_type":
// "embeddings_by_type"}, errors as {"message": "..."}. Embedding i is
// [len(text i), i, ...] with the model's length (output_dimension when
// sent).
type fake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	fail     []int
}

var fakeDims = map[string]int{"embed-english-v3.0": 1024, "embed-v4.0": 1536, "embed-english-light-v3.0": 384, "custom": 8}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v2/embed" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Not Found"}`))
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.requests = append(f.requests, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		var status int
		if len(f.fail) > 0 {
			status, f.fail = f.fail[0], f.fail[1:]
		}
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"message":"You are using a Trial key, which is limited to 100 API calls / minute."}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer co-test" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"invalid api token"}`))
			return
		}
		model, _ := body["model"].(string)
		dims, ok := fakeDims[model]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"model '` + model + `' not found, make sure the correct model ID was used and that you have access to the model."}`))
			return
		}
		if d, ok := body["output_dimension"].(float64); ok {
			dims = int(d)
		}
		texts, _ := body["texts"].([]any)
		floats := make([][]float64, len(texts))
		tokens := 0
		for i, s := range texts {
			floats[i] = make([]float64, dims)
			floats[i][0], floats[i][1] = float64(len(s.(string))), float64(i)
			tokens += len(strings.Fields(s.(string)))
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "da6e531f-54c6-4a73-bf92-f60566d8d753", "embeddings": map[string]any{"float": floats},
			"texts": texts, "response_type": "embeddings_by_type",
			"meta": map[string]any{"api_version": map[string]any{"version": "2"}, "billed_units": map[string]any{"input_tokens": tokens}},
		})
	}))
	t.Cleanup(f.Close)
	return f
}

func TestEmbedThroughTheSDK(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "co-test")
	p, ok := embedder.Lookup(Provider)
	if !ok || p.KeyEnv != "CO_API_KEY" || p.DefaultModel != "embed-english-v3.0" {
		t.Fatalf("registered %+v %v", p, ok)
	}
	e, err := p.New(embedder.Options{BaseURL: f.URL, BatchSize: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 1024 {
		t.Errorf("embed-english-v3.0: %d dimensions, want 1024", e.Dimensions())
	}
	texts := []string{"a b", "cc", "d e f"}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 1024 || v[0] != float32(len(texts[i])) || v[1] != float32(i%2) {
			t.Errorf("vector %d = %v...", i, v[:2])
		}
	}
	if len(vecs) != 3 || usage.PromptTokens != 6 {
		t.Errorf("%d vectors, usage %+v", len(vecs), usage)
	}
	if len(f.requests) != 2 {
		t.Fatalf("%d requests for 3 texts in batches of 2", len(f.requests))
	}
	r := f.requests[0]
	if r["model"] != "embed-english-v3.0" || r["input_type"] != "search_query" || f.auth[0] != "Bearer co-test" {
		t.Errorf("request %v, auth %q", r, f.auth[0])
	}
	if et, _ := r["embedding_types"].([]any); len(et) != 1 || et[0] != "float" {
		t.Errorf("embedding_types %v", r["embedding_types"])
	}
	for _, k := range []string{"truncate", "output_dimension", "max_tokens"} {
		if _, ok := r[k]; ok {
			t.Errorf("%s sent without being set: %v", k, r)
		}
	}
}

// agno's keys reach the request; output_dimension gives the dimensions.
func TestOptions(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "co-test")
	p, _ := embedder.Lookup(Provider)
	e, err := p.New(embedder.Options{BaseURL: f.URL, Model: "embed-v4.0"}, &Options{
		InputType: "search_document", EmbeddingTypes: []string{"float", "int8"},
		RequestParams: RequestParams{Truncate: "end", OutputDimension: 512, MaxTokens: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 512 {
		t.Errorf("dimensions %d, want output_dimension's 512", e.Dimensions())
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	r := f.requests[0]
	if r["input_type"] != "search_document" || r["truncate"] != "END" || r["output_dimension"] != 512.0 || r["max_tokens"] != 1000.0 {
		t.Errorf("request %v", r)
	}
	if et, _ := r["embedding_types"].([]any); len(et) != 2 || et[1] != "int8" {
		t.Errorf("embedding_types %v", r["embedding_types"])
	}
}

func TestErrors(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "co-test")
	p, _ := embedder.Lookup(Provider)
	for _, tc := range []struct {
		o    embedder.Options
		x    Options
		want string
	}{
		{embedder.Options{}, Options{InputType: "query"}, `input_type = "query"`},
		{embedder.Options{}, Options{EmbeddingTypes: []string{"int8"}}, `include "float"`},
		{embedder.Options{}, Options{EmbeddingTypes: []string{"float", "int4"}}, `"int4" is not a type`},
		{embedder.Options{}, Options{RequestParams: RequestParams{Truncate: "MIDDLE"}}, "request_params.truncate"},
		{embedder.Options{}, Options{RequestParams: RequestParams{OutputDimension: 300}}, "request_params.output_dimension = 300"},
		{embedder.Options{Dimensions: 1024}, Options{RequestParams: RequestParams{OutputDimension: 512}}, "drop dimensions"},
		{embedder.Options{Model: "embed-future"}, Options{}, "set dimensions"},
		{embedder.Options{BatchSize: 200}, Options{}, "at most 96"},
		{embedder.Options{BaseURL: "api.cohere.com"}, Options{}, "not an http(s) URL"},
	} {
		if _, err := p.New(tc.o, &tc.x); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v, %+v) = %v, want %q", tc.o, tc.x, err, tc.want)
		}
	}

	// The API's message comes back; a 4xx is not retried, a 429 is.
	e, err := New(Config{BaseURL: f.URL, APIKey: "co-test", ID: "embed-english-v2.0", Dimensions: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "not found") || len(f.requests) != 1 {
		t.Errorf("unknown model: %v after %d requests", err, len(f.requests))
	}
	f.fail = []int{http.StatusTooManyRequests}
	e, _ = New(Config{BaseURL: f.URL, APIKey: "co-test", ID: "custom", Dimensions: 8})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || len(f.requests) != 3 {
		t.Errorf("after a 429: %v, %d requests", err, len(f.requests))
	}
	f.fail = []int{http.StatusTooManyRequests}
	e, _ = New(Config{BaseURL: f.URL, APIKey: "co-test", ID: "custom", Dimensions: 8, MaxRetries: -1})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "Trial key") {
		t.Errorf("429 without retries: %v", err)
	}
	// Vectors of another length than configured are refused.
	e, _ = New(Config{BaseURL: f.URL, APIKey: "co-test", ID: "custom", Dimensions: 4})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "set dimensions to 8") {
		t.Errorf("8-dim answer for 4 configured: %v", err)
	}
}

// Without a key New still checks the options and gives the dimensions;
// calls say what to export. api_key_env names another variable.
func TestAPIKey(t *testing.T) {
	f := newFake(t)
	p, _ := embedder.Lookup(Provider)
	t.Setenv(KeyEnv, "")
	e, err := p.New(embedder.Options{Model: "embed-english-light-v3.0"}, nil)
	if err != nil || e.Dimensions() != 384 {
		t.Fatalf("%v %v", e, err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export CO_API_KEY=") {
		t.Errorf("no key: %v", err)
	}
	if _, err := p.New(embedder.Options{}, &Options{InputType: "bad"}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad options without a key: %v", err)
	}
	t.Setenv("AGNO_TEST_COHERE_KEY", "co-test")
	e, err = p.New(embedder.Options{BaseURL: f.URL, APIKeyEnv: "AGNO_TEST_COHERE_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || f.auth[0] != "Bearer co-test" {
		t.Errorf("%v, Authorization %q", err, f.auth[0])
	}
}
