package giphy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

const testKey = "giphy-test-key"

// searchAnswer follows the response of GIPHY's search endpoint,
// https://developers.giphy.com/docs/api/endpoint#search (a "data" array
// of GIF objects, https://developers.giphy.com/docs/api/schema#gif-object,
// with images.original.url and alt_text; then pagination and meta).
const searchAnswer = `{
  "data": [
    {"type": "gif", "id": "l0MYt5jPR6QX5pnqM", "url": "https://giphy.com/gifs/l0MYt5jPR6QX5pnqM", "title": "Cat GIF", "alt_text": "a cat typing",
     "images": {"original": {"height": "200", "width": "356", "size": "1096390", "url": "https://media.giphy.com/media/l0MYt5jPR6QX5pnqM/giphy.gif"},
                "fixed_height": {"height": "200", "width": "356", "url": "https://media.giphy.com/media/l0MYt5jPR6QX5pnqM/200.gif"}}},
    {"type": "gif", "id": "JIX9t2j0ZTN9S", "url": "https://giphy.com/gifs/JIX9t2j0ZTN9S", "title": "Cat 2", "alt_text": "",
     "images": {"original": {"url": "https://media.giphy.com/media/JIX9t2j0ZTN9S/giphy.gif"}}}
  ],
  "pagination": {"total_count": 2, "count": 2, "offset": 0},
  "meta": {"status": 200, "msg": "OK", "response_id": "abc"}
}`

type fake struct {
	srv   *httptest.Server
	last  atomic.Value // the last query
	reply func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.reply = func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case q.Get("api_key") != testKey:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"meta": {"status": 401, "msg": "Unauthorized"}}`))
		case q.Get("q") == "nothing":
			_, _ = w.Write([]byte(`{"data": [], "pagination": {"total_count": 0, "count": 0, "offset": 0}, "meta": {"status": 200, "msg": "OK"}}`))
		case q.Get("q") == "huge":
			_, _ = w.Write([]byte(`{"data": [` + strings.Repeat(`{"images": {}},`, 5000) + `{}]}`))
		default:
			_, _ = w.Write([]byte(searchAnswer))
		}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/gifs/search" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		f.last.Store(r.URL.RawQuery)
		f.reply(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// localClient is the guarded client with loopback allowed, as a config
// with [outbound] allow = ["127.0.0.1"] builds it.
func localClient(t *testing.T) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   ToolkitName,
		Name:      "giphy_tools",
		Functions: []tooltest.Function{{Name: "search_gifs", Args: []string{"query"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFake(t)
			env.HTTPClient = localClient(t)
			t.Setenv(APIKeyEnv, testKey)
			return `base_url = "` + f.srv.URL + `/v1/gifs/search"` + "\nmax_response_bytes = 4096"
		},
		Failures: map[string][]tooltest.Call{
			"search_gifs": {{Args: `{"query": "nothing"}`, Want: "No gifs found"}},
		},
		Oversized: &tooltest.Oversized{Function: "search_gifs", Call: tooltest.Call{Args: `{"query": "huge"}`, Want: "max_response_bytes"}, Option: "max_response_bytes", Limit: 4096},
		BadOptions: []tooltest.BadOption{
			{Table: "limit = 0", Key: "limit"},
			{Table: `base_url = "ftp://x"`, Key: "base_url"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
			{Table: "max_response_bytes = -1", Key: "max_response_bytes"},
		},
	})
}

func build(t *testing.T, f *fake, key string) *tool.Function {
	t.Helper()
	tk, err := New(Config{APIKey: key, Limit: 2, EnableSearchGifs: true, BaseURL: f.srv.URL + "/v1/gifs/search", HTTPClient: localClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	return fns[0]
}

func TestSearchGifs(t *testing.T) {
	f := newFake(t)
	fn := build(t, f, testKey)
	res, err := fn.Invoke(context.Background(), nil, map[string]any{"query": "cat typing"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Found 2 GIF(s): ['https://media.giphy.com/media/l0MYt5jPR6QX5pnqM/giphy.gif', 'https://media.giphy.com/media/JIX9t2j0ZTN9S/giphy.gif']"
	if res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
	if len(res.Images) != 2 || res.Images[0].URL != "https://media.giphy.com/media/l0MYt5jPR6QX5pnqM/giphy.gif" || res.Images[0].ID == "" || res.Images[0].ID == res.Images[1].ID {
		t.Errorf("images = %+v: want the two originals, each with its own id", res.Images)
	}
	if q, _ := f.last.Load().(string); q != "api_key="+testKey+"&limit=2&q=cat+typing" {
		t.Errorf("query = %q", q)
	}
}

func TestSearchGifsErrors(t *testing.T) {
	f := newFake(t)
	fn := build(t, f, "wrong")
	res, err := fn.Invoke(context.Background(), nil, map[string]any{"query": "cat"})
	if err != nil || res.Content != "HTTP error occurred: 401" || len(res.Images) != 0 {
		t.Errorf("bad key: %q, %v; want agno's \"HTTP error occurred: 401\"", res.Content, err)
	}
	f.reply = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("not json")) }
	res, _ = build(t, f, testKey).Invoke(context.Background(), nil, map[string]any{"query": "cat"})
	if !strings.HasPrefix(res.Content, "An error occurred: ") {
		t.Errorf("bad JSON: %q, want agno's \"An error occurred: …\"", res.Content)
	}
	// An address the guard refuses: the key never shows in the error.
	tk, _ := New(Config{APIKey: "s3cret", EnableSearchGifs: true, BaseURL: f.srv.URL + "/v1/gifs/search"})
	fns, _ := tk.Functions(context.Background())
	res, _ = fns[0].Invoke(context.Background(), nil, map[string]any{"query": "cat"})
	if !strings.HasPrefix(res.Content, "An error occurred: ") || !strings.Contains(res.Content, "netguard") || strings.Contains(res.Content, "s3cret") {
		t.Errorf("loopback without allow: %q, want the guard's refusal without the key", res.Content)
	}
}
