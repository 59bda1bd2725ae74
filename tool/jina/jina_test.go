package jina_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	_ "github.com/agno-go/agno/tool/jina"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeJina answers as Jina Reader does with "Accept: application/json"
// (https://jina.ai/reader/ and https://github.com/jina-ai/reader):
// r.jina.ai/<url> gives {"code", "status", "data": {"title",
// "description", "url", "content", "links", "images", "usage"}},
// s.jina.ai (POST {"q"}) gives "data" as a list of such results.
func fakeJina(t *testing.T, seen *[]*http.Request) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if seen != nil {
			*seen = append(*seen, r)
		}
		if r.Header.Get("Authorization") != "Bearer jina_test_key" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"data":null,"code":401,"name":"AuthenticationRequiredError","status":40103,"message":"Authentication is required to use this endpoint. Please provide a valid API key via Authorization header.","readableMessage":"AuthenticationRequiredError: Authentication is required to use this endpoint."}`))
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/search/":
			var q struct{ Q string }
			_ = json.Unmarshal(body, &q)
			if q.Q == "" {
				http.Error(w, `{"code":400,"message":"q is required"}`, http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte(`{"code":200,"status":20000,"data":[{"title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","description":"Go 1.26 is a major release.","content":"Go 1.26 ships a new garbage collector.","usage":{"tokens":12}},{"title":"Go 1.26 is released","url":"https://go.dev/blog/go1.26","description":"The Go team announces Go 1.26.","content":"","usage":{"tokens":9}}],"meta":{"usage":{"tokens":10000}}}`))
		case r.URL.Path == "/reader/https://go.dev/blog/go1.26":
			_, _ = w.Write([]byte(`{"code":200,"status":20000,"data":{"title":"Go 1.26 is released","description":"The Go team announces the release of Go 1.26.","url":"https://go.dev/blog/go1.26","content":"Today the Go team is happy to release Go 1.26. It’s fast.","publishedTime":"2026-02-10T00:00:00Z","links":{"Blog index":"https://go.dev/blog/"},"images":{},"usage":{"tokens":42}},"meta":{"usage":{"tokens":42}}}`))
		case r.URL.Path == "/reader/https://big.example/":
			_, _ = w.Write([]byte(`{"code":200,"status":20000,"data":{"content":"` + strings.Repeat("word ", 5000) + `"}}`))
		case r.URL.Path == "/reader/https://html.example/":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>not json</html>"))
		default:
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"code":422,"status":42206,"message":"No content available for URL"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func table(srv *httptest.Server, extra string) string {
	return `api_key = "jina_test_key"` + "\n" + `base_url = "` + srv.URL + `/reader/"` + "\n" + `search_url = "` + srv.URL + `/search/"` + "\n" + extra
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "jina",
		Name:    "jina_reader_tools",
		Functions: []tooltest.Function{
			{Name: "read_url", Args: []string{"url"}},
			{Name: "search_query", Args: []string{"query"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return table(fakeJina(t, nil), "all = true\nmax_content_length = 3000")
		},
		Failures: map[string][]tooltest.Call{
			"read_url":     {{Args: `{"url": "https://gone.example/"}`, Want: "Error reading URL: Client error '422 Unprocessable Entity' for url"}},
			"search_query": {{Args: `{"query": ""}`, Want: "Error performing search: Client error '400 Bad Request'"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_url", Option: "max_content_length", Limit: 3000,
			Call: tooltest.Call{Args: `{"url": "https://big.example/"}`, Want: "... (content truncated)"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "r.jina.ai"`, Key: "base_url"},
			{Table: `search_url = "ftp://s.jina.ai/"`, Key: "search_url"},
			{Table: "max_content_length = 0", Key: "max_content_length"},
			{Table: "timeout = -1", Key: "timeout"},
			{Table: "request_timeout = 0", Key: "request_timeout"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
		},
	})
}

func build(t *testing.T, env tool.ToolkitEnv, tbl string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("jina")
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(tbl, opts); err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	out := map[string]*tool.Function{}
	for _, f := range fns {
		out[f.Name] = f
	}
	return out
}

func call(t *testing.T, f *tool.Function, args map[string]any) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestReadURL(t *testing.T) {
	var seen []*http.Request
	srv := fakeJina(t, &seen)
	fns := build(t, tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}, table(srv, "timeout = 20"))
	if _, ok := fns["search_query"]; ok {
		t.Error("search_query is on by default; agno's enable_search_query is False")
	}
	got := call(t, fns["read_url"], map[string]any{"url": "https://go.dev/blog/go1.26"})
	// str() of what json.loads made of the answer: Python's dict repr,
	// keys in the answer's order, non-ASCII kept.
	want := `{'code': 200, 'status': 20000, 'data': {'title': 'Go 1.26 is released', 'description': 'The Go team announces the release of Go 1.26.', 'url': 'https://go.dev/blog/go1.26', 'content': 'Today the Go team is happy to release Go 1.26. It’s fast.', 'publishedTime': '2026-02-10T00:00:00Z', 'links': {'Blog index': 'https://go.dev/blog/'}, 'images': {}, 'usage': {'tokens': 42}}, 'meta': {'usage': {'tokens': 42}}}`
	if got != want {
		t.Errorf("read_url =\n%s\nwant\n%s", got, want)
	}
	r := seen[0]
	for k, v := range map[string]string{"Accept": "application/json", "X-With-Links-Summary": "true", "X-With-Images-Summary": "true", "X-Timeout": "20", "Authorization": "Bearer jina_test_key"} {
		if r.Header.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, r.Header.Get(k), v)
		}
	}
	if got := call(t, fns["read_url"], map[string]any{"url": "https://html.example/"}); got != "Error reading URL: Expecting value: line 1 column 1 (char 0)" {
		t.Errorf("a non-JSON answer: %q", got)
	}
}

func TestSearchQuery(t *testing.T) {
	var seen []*http.Request
	srv := fakeJina(t, &seen)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	fns := build(t, env, table(srv, "enable_search_query = true"))
	got := call(t, fns["search_query"], map[string]any{"query": "go 1.26 release"})
	if !strings.HasPrefix(got, `{'code': 200, 'status': 20000, 'data': [{'title': 'Go 1.26 Release Notes', 'url': 'https://go.dev/doc/go1.26'`) {
		t.Errorf("search_query = %s", got)
	}
	body, _ := io.ReadAll(seen[0].Body)
	if string(body) != `{"q":"go 1.26 release"}` || seen[0].Header.Get("X-Respond-With") != "" {
		t.Errorf("request body %s, X-Respond-With %q", body, seen[0].Header.Get("X-Respond-With"))
	}
	fns = build(t, env, table(srv, "enable_search_query = true\nsearch_query_content = false"))
	call(t, fns["search_query"], map[string]any{"query": "go"})
	if h := seen[1].Header.Get("X-Respond-With"); h != "no-content" {
		t.Errorf("search_query_content = false: X-Respond-With %q, want no-content", h)
	}
}

func TestAPIKeyFromEnvironmentAndErrors(t *testing.T) {
	srv := fakeJina(t, nil)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	noKey := `base_url = "` + srv.URL + `/reader/"`
	t.Setenv("JINA_API_KEY", "")
	got := call(t, build(t, env, noKey)["read_url"], map[string]any{"url": "https://go.dev/blog/go1.26"})
	if !strings.HasPrefix(got, "Error reading URL: Client error '401 Unauthorized' for url '"+srv.URL+"/reader/https://go.dev/blog/go1.26'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401") {
		t.Errorf("without a key: %q", got)
	}
	t.Setenv("JINA_API_KEY", "jina_test_key")
	if got := call(t, build(t, env, noKey)["read_url"], map[string]any{"url": "https://go.dev/blog/go1.26"}); !strings.Contains(got, "'title': 'Go 1.26 is released'") {
		t.Errorf("with JINA_API_KEY: %q", got)
	}
	// The guard refuses an internal endpoint unless [outbound] allows it;
	// the model reads the refusal.
	got = call(t, build(t, tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t)}, table(srv, ""))["read_url"], map[string]any{"url": "https://go.dev/"})
	if !strings.HasPrefix(got, "Error reading URL: netguard: refused to connect to 127.0.0.1") {
		t.Errorf("an internal endpoint: %q", got)
	}
}
