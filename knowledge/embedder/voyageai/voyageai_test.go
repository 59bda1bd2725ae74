package voyageai

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

// fake is Voyage's POST /v1/embeddings as its API reference documents it
// (https://docs.voyageai.com/reference/embeddings-api): a bearer key, a
// body of {"input": [...], "model", "input_type", "truncation",
// "output_dimension", "output_dtype"}, answered {"object": "list", "data":
// [{"object": "embedding", "embedding": [...], "index": i}], "model",
// "usage": {"total_tokens": n}}; errors as {"detail": "..."}. Embedding i
// is [len(text i), i, ...] of output_dimension (default 1024) entries;
// data comes back in reverse order so the client has to use index.
type fake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	fail     []int
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
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		var status int
		if len(f.fail) > 0 {
			status, f.fail = f.fail[0], f.fail[1:]
		}
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"detail":"Rate limit exceeded."}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer pa-test" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"detail":"Provided API key is invalid."}`))
			return
		}
		if body["model"] == "voyage-0" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"detail":"Model voyage-0 is not supported."}`))
			return
		}
		dims := 1024
		if d, ok := body["output_dimension"].(float64); ok {
			dims = int(d)
		}
		inputs, _ := body["input"].([]any)
		data := []map[string]any{}
		tokens := 0
		for i := len(inputs) - 1; i >= 0; i-- {
			vec := make([]float64, dims)
			vec[0], vec[1] = float64(len(inputs[i].(string))), float64(i)
			tokens += len(strings.Fields(inputs[i].(string)))
			data = append(data, map[string]any{"object": "embedding", "embedding": vec, "index": i})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"], "usage": map[string]any{"total_tokens": tokens}})
	}))
	t.Cleanup(f.Close)
	return f
}

func TestEmbedThroughTheWireFormat(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "pa-test")
	p, ok := embedder.Lookup(Provider)
	if !ok || p.KeyEnv != "VOYAGE_API_KEY" || p.DefaultModel != "voyage-2" {
		t.Fatalf("registered %+v %v", p, ok)
	}
	e, err := p.New(embedder.Options{BaseURL: f.URL + "/v1", BatchSize: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 1024 {
		t.Errorf("dimensions %d, want agno's 1024", e.Dimensions())
	}
	texts := []string{"a b", "cc", "d e f"}
	vecs, usage, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 1024 || v[0] != float32(len(texts[i])) || v[1] != float32(i%2) {
			t.Errorf("vector %d = %v...: out of order or wrong", i, v[:2])
		}
	}
	if len(vecs) != 3 || usage.TotalTokens != 6 || usage.PromptTokens != 6 {
		t.Errorf("%d vectors, usage %+v", len(vecs), usage)
	}
	if len(f.requests) != 2 || f.auth[0] != "Bearer pa-test" {
		t.Fatalf("%d requests, auth %q", len(f.requests), f.auth[0])
	}
	r := f.requests[0]
	if r["model"] != "voyage-2" {
		t.Errorf("request %v", r)
	}
	for _, k := range []string{"input_type", "truncation", "output_dimension"} {
		if _, ok := r[k]; ok {
			t.Errorf("%s sent without being set: %v", k, r)
		}
	}
}

// agno's request_params reach the request; output_dimension gives the
// dimensions; agno's base_url form (the embeddings URL) works too.
func TestRequestParams(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "pa-test")
	p, _ := embedder.Lookup(Provider)
	no := false
	e, err := p.New(embedder.Options{BaseURL: f.URL + "/v1/embeddings", Model: "voyage-3.5"},
		&Options{RequestParams: RequestParams{InputType: "document", Truncation: &no, OutputDimension: 256}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 256 {
		t.Errorf("dimensions %d, want output_dimension's 256", e.Dimensions())
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	r := f.requests[0]
	if r["model"] != "voyage-3.5" || r["input_type"] != "document" || r["truncation"] != false || r["output_dimension"] != 256.0 {
		t.Errorf("request %v", r)
	}
}

func TestErrors(t *testing.T) {
	f := newFake(t)
	t.Setenv(KeyEnv, "pa-test")
	p, _ := embedder.Lookup(Provider)
	for _, tc := range []struct {
		o    embedder.Options
		x    Options
		want string
	}{
		{embedder.Options{}, Options{RequestParams{InputType: "search_query"}}, `input_type = "search_query"`},
		{embedder.Options{}, Options{RequestParams{OutputDimension: 768}}, "output_dimension = 768"},
		{embedder.Options{Dimensions: 512}, Options{RequestParams{OutputDimension: 256}}, "drop dimensions"},
		{embedder.Options{BatchSize: 1001}, Options{}, "at most 1000"},
		{embedder.Options{BaseURL: "api.voyageai.com"}, Options{}, "not an http(s) URL"},
	} {
		if _, err := p.New(tc.o, &tc.x); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v, %+v) = %v, want %q", tc.o, tc.x, err, tc.want)
		}
	}
	// The API's detail comes back; a 400 is not retried, a 429 is.
	e, _ := New(Config{BaseURL: f.URL + "/v1", APIKey: "pa-test", ID: "voyage-0"})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "voyage-0 is not supported") || len(f.requests) != 1 {
		t.Errorf("bad model: %v after %d requests", err, len(f.requests))
	}
	f.fail = []int{http.StatusTooManyRequests}
	e, _ = New(Config{BaseURL: f.URL + "/v1", APIKey: "pa-test"})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err != nil || len(f.requests) != 3 {
		t.Errorf("after a 429: %v, %d requests", err, len(f.requests))
	}
	e, _ = New(Config{BaseURL: f.URL + "/v1", APIKey: "wrong"})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "API key is invalid") {
		t.Errorf("bad key: %v", err)
	}
	// Vectors of another length than configured are refused.
	e, _ = New(Config{BaseURL: f.URL + "/v1", APIKey: "pa-test", Dimensions: 512})
	if _, _, err := e.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "set dimensions to 1024") {
		t.Errorf("1024-dim answer for 512 configured: %v", err)
	}
}

// Without a key New still checks the options and gives the dimensions;
// calls say what to export.
func TestAPIKey(t *testing.T) {
	p, _ := embedder.Lookup(Provider)
	t.Setenv(KeyEnv, "")
	e, err := p.New(embedder.Options{}, &Options{RequestParams{OutputDimension: 2048}})
	if err != nil || e.Dimensions() != 2048 {
		t.Fatalf("%v %v", e, err)
	}
	if _, _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export VOYAGE_API_KEY=") {
		t.Errorf("no key: %v", err)
	}
	if _, err := p.New(embedder.Options{}, &Options{RequestParams{InputType: "bad"}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad options without a key: %v", err)
	}
}
