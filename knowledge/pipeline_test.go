package knowledge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/openai"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/memory"
)

// The pipeline with the OpenAI-compatible embedder, against a fake
// /v1/embeddings endpoint speaking the real wire format. The fake answers
// with lexical vectors so retrieval has something to find.
func TestPipelineWithOpenAIEmbedder(t *testing.T) {
	lex, _ := embedder.NewLexical(embedder.LexicalConfig{Dimensions: 64})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-fake" {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		requests.Add(1)
		var body struct {
			Input      []string `json:"input"`
			Model      string   `json:"model"`
			Dimensions int      `json:"dimensions"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Dimensions != 64 {
			http.Error(w, fmt.Sprintf(`{"error": {"message": "bad body: %v"}}`, err), http.StatusBadRequest)
			return
		}
		vecs, _, _ := lex.Embed(r.Context(), body.Input)
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body.Model,
			"usage": map[string]any{"prompt_tokens": 3 * len(body.Input), "total_tokens": 3 * len(body.Input)}})
	}))
	defer srv.Close()

	e, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-fake", Dimensions: 64, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := memory.New(memory.Config{Embedder: e})
	k, err := New(t.Context(), Config{Name: "kb", VectorDB: vs, ContentsDB: contents.NewMemory(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Insert(t.Context(), Input{Path: demoPDF}); err != nil {
		t.Fatal(err)
	}
	docs, err := k.Search(t.Context(), "nightly snapshots backups", SearchOptions{MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].MetaData["page"] != 2 || docs[0].Usage == nil || docs[0].Usage.PromptTokens != 3 {
		t.Errorf("top result %+v", docs)
	}
	// One request embeds both pages, one embeds the query.
	if n := requests.Load(); n != 2 {
		t.Errorf("%d embedding requests, want 2", n)
	}
}

// One Knowledge serves concurrent inserts and searches (run with -race).
func TestConcurrentInsertAndSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 16 {
			wg.Go(func() {
				_, err := f.k.Insert(t.Context(), Input{TextContent: fmt.Sprintf("document number %d about topic %d", i, i%4), Name: fmt.Sprintf("d%d", i), Metadata: map[string]any{"topic": i % 4}})
				if err != nil {
					errs <- err
				}
			})
			wg.Go(func() {
				if _, err := f.k.Search(t.Context(), "document topic", SearchOptions{Filters: filter.Dict(map[string]any{"topic": i % 4})}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if _, total, _ := f.k.GetContent(t.Context(), contents.ListOptions{}); total != 16 {
			t.Errorf("%d contents, want 16", total)
		}
		docs, _ := f.k.Search(t.Context(), "document", SearchOptions{MaxResults: 50, Filters: filter.Dict(map[string]any{"topic": 1}), SearchType: vectordb.SearchKeyword})
		if len(docs) != 4 {
			t.Errorf("topic 1 has %d chunks, want 4", len(docs))
		}
	})
}
