package websearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
)

// fakeAPIs answers, under /<backend>, each search API's documented
// format with one result "Go" at https://go.dev/ whose snippet is "Go is
// fast.", checking the key where the service sends it:
//   - brave: https://api-dashboard.search.brave.com/app/documentation/web-search/responses
//     (web.results[].title/url/description; news results[] with page_age, meta_url, thumbnail)
//   - google: https://developers.google.com/custom-search/v1/reference/rest/v1/Search
//     (items[].title/link/snippet)
//   - bing: Bing Web Search API v7 response objects (webPages.value[].name/url/snippet;
//     news value[].name/url/description/datePublished/image.thumbnail.contentUrl/provider[].name)
//   - searxng: https://docs.searxng.org/dev/search_api.html (results[].url/title/content)
//   - serper: https://serper.dev (organic[].title/link/snippet; news[].title/link/snippet/date/source/imageUrl)
//   - tavily: https://docs.tavily.com/documentation/api-reference/endpoint/search (results[].title/url/content)
//   - exa: https://docs.exa.ai/reference/search (results[].title/url/text)
//   - parallel: https://docs.parallel.ai (POST /v1/search; results[].url/title/excerpts)
//   - you: https://docs.you.com/get-started/quickstart (results.web[].url/title/description/snippets;
//     results.news[].url/title/description/page_age/thumbnail_url)
func fakeAPIs(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, q := r.Header, r.URL.Query()
		var body map[string]any
		if r.Method == http.MethodPost {
			_ = json.NewDecoder(r.Body).Decode(&body)
		}
		deny := func(ok bool) bool {
			if !ok {
				http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
			}
			return !ok
		}
		switch r.URL.Path {
		case "/brave/web/search":
			if deny(h.Get("X-Subscription-Token") == "k" && q.Get("count") == "2") {
				return
			}
			fmt.Fprint(w, `{"type":"search","web":{"results":[{"title":"<strong>Go</strong>","url":"https://go.dev/","description":"Go is <strong>fast</strong>."}]}}`)
		case "/brave/news/search":
			if deny(h.Get("X-Subscription-Token") == "k") {
				return
			}
			fmt.Fprint(w, `{"type":"news","results":[{"title":"Go 1.24","url":"https://go.dev/blog","description":"Released.","page_age":"2025-02-11T00:00:00","meta_url":{"hostname":"go.dev"},"thumbnail":{"src":"https://img/1"}}]}`)
		case "/google":
			if deny(q.Get("key") == "k" && q.Get("cx") == "cx1" && q.Get("num") == "2") {
				return
			}
			fmt.Fprint(w, `{"kind":"customsearch#search","items":[{"kind":"customsearch#result","title":"Go","link":"https://go.dev/","snippet":"Go is fast."}]}`)
		case "/bing/search":
			if deny(h.Get("Ocp-Apim-Subscription-Key") == "k") {
				return
			}
			fmt.Fprint(w, `{"_type":"SearchResponse","webPages":{"value":[{"name":"Go","url":"https://go.dev/","snippet":"Go is fast."}]}}`)
		case "/bing/news/search":
			if deny(h.Get("Ocp-Apim-Subscription-Key") == "k") {
				return
			}
			fmt.Fprint(w, `{"_type":"News","value":[{"name":"Go 1.24","url":"https://go.dev/blog","description":"Released.","datePublished":"2025-02-11T00:00:00.0000000Z","image":{"thumbnail":{"contentUrl":"https://img/1"}},"provider":[{"_type":"Organization","name":"go.dev"}]}]}`)
		case "/searxng/search":
			if deny(q.Get("format") == "json") {
				return
			}
			if q.Get("categories") == "news" {
				fmt.Fprint(w, `{"results":[{"url":"https://go.dev/blog","title":"Go 1.24","content":"Released.","engine":"go.dev","publishedDate":"2025-02-11T00:00:00","thumbnail":"https://img/1"}]}`)
				return
			}
			fmt.Fprint(w, `{"query":"go","results":[{"url":"https://go.dev/","title":"Go","content":"Go is fast.","engine":"duckduckgo"}]}`)
		case "/serper/search":
			if deny(h.Get("X-API-KEY") == "k" && body["num"] == 2.0) {
				return
			}
			fmt.Fprint(w, `{"organic":[{"title":"Go","link":"https://go.dev/","snippet":"Go is fast.","position":1}]}`)
		case "/serper/news":
			if deny(h.Get("X-API-KEY") == "k") {
				return
			}
			fmt.Fprint(w, `{"news":[{"title":"Go 1.24","link":"https://go.dev/blog","snippet":"Released.","date":"2025-02-11T00:00:00","source":"go.dev","imageUrl":"https://img/1"}]}`)
		case "/tavily/search":
			if deny(h.Get("Authorization") == "Bearer k") {
				return
			}
			if body["topic"] == "news" {
				fmt.Fprint(w, `{"results":[{"title":"Go 1.24","url":"https://go.dev/blog","content":"Released.","published_date":"2025-02-11T00:00:00","score":0.9}]}`)
				return
			}
			fmt.Fprint(w, `{"results":[{"title":"Go","url":"https://go.dev/","content":"Go is fast.","score":0.9}]}`)
		case "/parallel/search":
			if deny(h.Get("x-api-key") == "k" && fmt.Sprint(body["search_queries"]) == "[go]") {
				return
			}
			fmt.Fprint(w, `{"search_id":"s1","results":[{"url":"https://go.dev/","title":"Go","publish_date":null,"excerpts":["Go is","fast."]}],"warnings":null}`)
		case "/you/search":
			if deny(h.Get("X-API-Key") == "k" && q.Get("count") != "") {
				return
			}
			fmt.Fprint(w, `{"results":{"web":[{"url":"https://go.dev/","title":"Go","description":"Go is fast.","snippets":["Go is fast and simple."]}],"news":[{"url":"https://go.dev/blog","title":"Go 1.24","description":"Released.","page_age":"2025-02-11T00:00:00","thumbnail_url":"https://img/1"}]},"metadata":{"query":"go"}}`)
		case "/exa/search":
			if deny(h.Get("x-api-key") == "k") {
				return
			}
			fmt.Fprint(w, `{"results":[{"id":"1","title":"Go","url":"https://go.dev/","text":"Go is\n fast."}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func buildBackend(t *testing.T, backend, table string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("websearch")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := tomlDecode(fmt.Sprintf("backend = %q\n%s", backend, table), opts); err != nil {
		t.Fatal(err)
	}
	if err := tk.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
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

// Every API backend answers web_search in ddgs's text shape, and those
// with news search_news in ddgs's news shape.
func TestAPIBackends(t *testing.T) {
	srv := fakeAPIs(t)
	text := "[\n  {\n    \"title\": \"Go\",\n    \"href\": \"https://go.dev/\",\n    \"body\": \"Go is fast.\"\n  }\n]"
	news := "[\n  {\n    \"date\": \"%s\",\n    \"title\": \"Go 1.24\",\n    \"body\": \"Released.\",\n    \"url\": \"https://go.dev/blog\",\n    \"image\": \"%s\",\n    \"source\": \"go.dev\"\n  }\n]"
	for _, c := range []struct {
		backend, date, image string
	}{
		{"brave", "2025-02-11T00:00:00", "https://img/1"},
		{"google", "", ""},
		{"bing", "2025-02-11T00:00:00.0000000Z", "https://img/1"},
		{"searxng", "2025-02-11T00:00:00", "https://img/1"},
		{"serper", "2025-02-11T00:00:00", "https://img/1"},
		{"tavily", "2025-02-11T00:00:00", ""},
		{"exa", "", ""},
		{"you", "2025-02-11T00:00:00", "https://img/1"},
		{"parallel", "", ""},
	} {
		t.Run(c.backend, func(t *testing.T) {
			fns := buildBackend(t, c.backend, fmt.Sprintf("base_url = %q\napi_key = \"k\"\nsearch_engine_id = \"cx1\"", srv.URL+"/"+c.backend))
			res, err := fns["web_search"].Invoke(context.Background(), &tool.Call{}, map[string]any{"query": "go", "max_results": 2})
			if err != nil || res.Content != text {
				t.Errorf("web_search: %v\n%s", err, res.Content)
			}
			res, err = fns["search_news"].Invoke(context.Background(), &tool.Call{}, map[string]any{"query": "go"})
			switch {
			case c.date == "":
				if err == nil || !strings.Contains(err.Error(), "has no news search") {
					t.Errorf("search_news: %v %s", err, res.Content)
				}
			case err != nil || res.Content != fmt.Sprintf(news, c.date, c.image):
				t.Errorf("search_news: %v\n%s", err, res.Content)
			}
		})
	}
}

// A backend without its key says which variable to set; a wrong key
// reaches the model as the service's status.
func TestAPIBackendKeys(t *testing.T) {
	srv := fakeAPIs(t)
	t.Setenv("BRAVE_API_KEY", "")
	fns := buildBackend(t, "brave", fmt.Sprintf("base_url = %q", srv.URL+"/brave"))
	if _, err := fns["web_search"].Invoke(context.Background(), &tool.Call{}, map[string]any{"query": "go"}); err == nil || !strings.Contains(err.Error(), "set BRAVE_API_KEY, or api_key") {
		t.Errorf("no key: %v", err)
	}
	t.Setenv("SERPER_API_KEY", "wrong")
	fns = buildBackend(t, "serper", fmt.Sprintf("base_url = %q", srv.URL+"/serper"))
	if _, err := fns["web_search"].Invoke(context.Background(), &tool.Call{}, map[string]any{"query": "go"}); err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Errorf("wrong key: %v", err)
	}
	t.Setenv("GOOGLE_CSE_ID", "")
	fns = buildBackend(t, "google", fmt.Sprintf("base_url = %q\napi_key = \"k\"", srv.URL+"/google"))
	if _, err := fns["web_search"].Invoke(context.Background(), &tool.Call{}, map[string]any{"query": "go"}); err == nil || !strings.Contains(err.Error(), "GOOGLE_CSE_ID") {
		t.Errorf("no cx: %v", err)
	}
}
