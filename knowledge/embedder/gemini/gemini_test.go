package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/auth"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/gemini"
)

// fakeEmbed is the Gemini API's models.batchEmbedContents
// (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents:
// {"requests":[{"model","content","taskType","outputDimensionality"}]} →
// {"embeddings":[{"values":[...]}]}) and Vertex AI's embedContent
// (https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1beta1/projects.locations.publishers.models/embedContent:
// {"content","taskType","outputDimensionality"} → {"embedding":{"values"},
// "usageMetadata"}). A vector's first value is the text's length, so
// that order can be checked; failFirst answers the first request with 503.
type fakeEmbed struct {
	srv       *httptest.Server
	dims      int
	failFirst bool

	mu     sync.Mutex
	paths  []string
	auth   []string
	keys   []string
	bodies []map[string]any
}

func newFakeEmbed(t *testing.T, dims int) *fakeEmbed {
	f := &fakeEmbed{dims: dims}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEmbed) vector(text string) []float32 {
	v := make([]float32, f.dims)
	v[0] = float32(len(text))
	return v
}

func (f *fakeEmbed) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	n := len(f.paths)
	f.paths = append(f.paths, r.URL.Path)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.keys = append(f.keys, r.Header.Get("x-goog-api-key"))
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if f.failFirst && n == 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.001s"}]}}`)
		return
	}
	text := func(c any) string {
		parts, _ := c.(map[string]any)["parts"].([]any)
		s, _ := parts[0].(map[string]any)["text"].(string)
		return s
	}
	switch {
	case strings.HasSuffix(r.URL.Path, ":batchEmbedContents"):
		reqs, _ := body["requests"].([]any)
		var embs []any
		for _, rq := range reqs {
			embs = append(embs, map[string]any{"values": f.vector(text(rq.(map[string]any)["content"]))})
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": embs})
	case strings.HasSuffix(r.URL.Path, ":embedContent"):
		t := text(body["content"])
		json.NewEncoder(w).Encode(map[string]any{"embedding": map[string]any{"values": f.vector(t)}, "usageMetadata": map[string]any{"promptTokenCount": 3}})
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`)
	}
}

func TestBatchEmbedContents(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	f := newFakeEmbed(t, 8)
	e, err := gemini.New(gemini.Config{APIKey: "AIza-k", BaseURL: f.srv.URL, Dimensions: 8, BatchSize: 2, TaskType: "retrieval_document", Title: "Doc"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc"}
	vecs, _, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	for i, v := range vecs {
		if len(v) != 8 || int(v[0]) != len(texts[i]) {
			t.Errorf("vector %d = %v", i, v)
		}
	}
	if len(f.paths) != 2 || f.paths[0] != "/v1/models/gemini-embedding-001:batchEmbedContents" {
		t.Fatalf("paths = %v", f.paths)
	}
	if f.keys[0] != "AIza-k" {
		t.Errorf("x-goog-api-key = %q", f.keys[0])
	}
	rq := f.bodies[0]["requests"].([]any)[0].(map[string]any)
	if rq["model"] != "models/gemini-embedding-001" || rq["taskType"] != "RETRIEVAL_DOCUMENT" || rq["outputDimensionality"] != 8.0 || rq["title"] != "Doc" {
		t.Errorf("request = %v", rq)
	}
	if n := len(f.bodies[1]["requests"].([]any)); n != 1 {
		t.Errorf("second batch has %d texts", n)
	}
}

// agno's defaults: gemini-embedding-001, 1536 dimensions, RETRIEVAL_QUERY;
// a "models/" prefix is dropped.
func TestDefaults(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	f := newFakeEmbed(t, 1536)
	e, err := gemini.New(gemini.Config{ID: "models/gemini-embedding-001", APIKey: "k", BaseURL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 1536 || e.ID() != "gemini-embedding-001" {
		t.Errorf("dims %d id %q", e.Dimensions(), e.ID())
	}
	if _, _, err := e.Embed(context.Background(), []string{"q"}); err != nil {
		t.Fatal(err)
	}
	rq := f.bodies[0]["requests"].([]any)[0].(map[string]any)
	if rq["taskType"] != "RETRIEVAL_QUERY" || rq["outputDimensionality"] != 1536.0 {
		t.Errorf("request = %v", rq)
	}
}

func TestDimensionMismatch(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	f := newFakeEmbed(t, 4)
	e, _ := gemini.New(gemini.Config{APIKey: "k", BaseURL: f.srv.URL, Dimensions: 8})
	_, _, err := e.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "set dimensions to 4") {
		t.Fatalf("err = %v", err)
	}
}

// A 503 is retried (after the RetryInfo delay) and then succeeds.
func TestRetried(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	f := newFakeEmbed(t, 4)
	f.failFirst = true
	e, _ := gemini.New(gemini.Config{APIKey: "k", BaseURL: f.srv.URL, Dimensions: 4})
	if _, _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(f.paths) != 2 {
		t.Errorf("sent %d times, want 2", len(f.paths))
	}
}

type token string

func (s token) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer"}, nil
}

// Vertex AI: one text goes to the project's embedContent with the
// credentials' token; the usage is the tokens it reports.
func TestVertexEmbedContent(t *testing.T) {
	f := newFakeEmbed(t, 4)
	e, err := gemini.New(gemini.Config{
		VertexAI: true, ProjectID: "p1", Location: "us-central1", BaseURL: f.srv.URL, Dimensions: 4, BatchSize: 1,
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: token("ya29.t")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	vecs, usage, err := e.Embed(context.Background(), []string{"hello", "hi"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if int(vecs[0][0]) != 5 || int(vecs[1][0]) != 2 || usage.PromptTokens != 6 {
		t.Errorf("vecs %v usage %+v", vecs, usage)
	}
	if want := "/v1beta1/projects/p1/locations/us-central1/publishers/google/models/gemini-embedding-001:embedContent"; f.paths[0] != want {
		t.Errorf("path = %s, want %s", f.paths[0], want)
	}
	if f.auth[0] != "Bearer ya29.t" || f.keys[0] != "" {
		t.Errorf("auth %q key %q", f.auth[0], f.keys[0])
	}
	// The SDK sends the options in embedContentConfig.
	if c, _ := f.bodies[0]["embedContentConfig"].(map[string]any); c["taskType"] != "RETRIEVAL_QUERY" || c["outputDimensionality"] != 4.0 {
		t.Errorf("body = %v", f.bodies[0])
	}
}

// Registered as "gemini": a missing key is reported by the calls, with
// what to export, not by building.
func TestRegisteredWithoutKey(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	t.Setenv("GOOGLE_API_KEY", "")
	p, ok := embedder.Lookup(gemini.ProviderGemini)
	if !ok || p.KeyEnv != "GOOGLE_API_KEY" {
		t.Fatalf("provider %+v registered %v", p, ok)
	}
	e, err := p.New(embedder.Options{Dimensions: 768}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 768 {
		t.Errorf("dims %d", e.Dimensions())
	}
	_, _, err = e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, embedder.ErrNoAPIKey) || !strings.Contains(err.Error(), "export GOOGLE_API_KEY") {
		t.Errorf("err = %v", err)
	}
	if _, err := p.New(embedder.Options{Dimensions: -1}, nil); err == nil {
		t.Errorf("negative dimensions accepted")
	}
}
