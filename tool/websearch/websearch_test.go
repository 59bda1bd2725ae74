package websearch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/duckduckgo"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeDDG answers as DuckDuckGo does. The HTML page follows the markup
// of https://html.duckduckgo.com/html/ that ddgs's duckduckgo engine
// reads (div.result__body > h2.result__title, a.result__snippet with
// /l/?uddg= redirect links); news.js follows the JSON ddgs's
// duckduckgo_news engine reads (results[].date, title, excerpt, url,
// image, source), fetched with the vqd token of the search page.
func fakeDDG(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("q")
		switch {
		case q == "fail":
			http.Error(w, "rate limited", http.StatusTooManyRequests)
		case r.URL.Path == "/html/" && r.Method == http.MethodPost:
			n := 3
			body := "An <b>example</b> page &amp; more."
			if q == "big" {
				n, body = 40, strings.Repeat("word ", 100)
			}
			if q == "nothing" {
				n = 0
			}
			if q == "challenge" {
				fmt.Fprint(w, `<html><body><div class="anomaly-modal__modal">Unfortunately, bots use DuckDuckGo too.</div></body></html>`)
				return
			}
			fmt.Fprint(w, `<html><body><div class="serp__results"><div id="links" class="results">`)
			fmt.Fprint(w, `<div class="result results_links results_links_deep result--ad"><div class="links_main links_deep result__body"><h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Ad</a></h2><a class="result__snippet" href="https://duckduckgo.com/y.js?ad_provider=x">Buy</a></div></div>`)
			for i := range n {
				fmt.Fprintf(w, `<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fexample.com%%2F%d&amp;rut=abc">Example <b>Domain</b> %d</a></h2>
<div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fexample.com%%2F%d">example.com/%d</a></div></div>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%%3A%%2F%%2Fexample.com%%2F%d&amp;rut=abc">%s</a>
<div class="clear"></div></div></div>`, i, i, i, i, i, body)
			}
			fmt.Fprint(w, `</div></div></body></html>`)
		case r.URL.Path == "/":
			fmt.Fprintf(w, `<html><script>DDG.deep.initialize('/d.js?q=%s&l=us-en&vqd=4-123456789&p=1');</script></html>`, q)
		case r.URL.Path == "/news.js":
			if r.FormValue("vqd") != "4-123456789" || r.FormValue("o") != "json" {
				http.Error(w, "bad vqd", http.StatusForbidden)
				return
			}
			fmt.Fprint(w, `{"ads":[],"query":"go","queryEncoded":"go","response_type":"places","results":[{"date":1700000000,"excerpt":"Go 1.22 is <b>out</b>.","image":"https://img.example/1.jpg","relative_time":"1 day ago","source":"The Go Blog","title":"Go &amp; you","url":"https://go.dev/blog/1"},{"date":1700003600,"excerpt":"Second.","image":"","relative_time":"2 days ago","source":"News","title":"Two","url":"https://news.example/2"}],"vqd":{"go":"4-123456789"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func setup(extra string) func(t *testing.T, env *tool.ToolkitEnv) string {
	return func(t *testing.T, env *tool.ToolkitEnv) string {
		srv := fakeDDG(t)
		env.HTTPClient = webapitest.Client(t)
		return fmt.Sprintf("html_url = %q\nnews_url = %q\n%s", srv.URL+"/html/", srv.URL, extra)
	}
}

// TestConformance runs the suite against agno v2.6.13's WebSearchTools
// (tools/websearch.py) and DuckDuckGoTools (tools/duckduckgo.py), both
// named "websearch" with web_search and search_news.
func TestConformance(t *testing.T) {
	for _, name := range []string{"websearch", "duckduckgo"} {
		t.Run(name, func(t *testing.T) {
			tooltest.Run(t, tooltest.Harness{
				Toolkit: name,
				Name:    "websearch",
				Functions: []tooltest.Function{
					{Name: "web_search", Args: []string{"query", "max_results"}},
					{Name: "search_news", Args: []string{"query", "max_results"}},
				},
				Setup: setup("max_result_bytes = 2000"),
				Failures: map[string][]tooltest.Call{
					"web_search":  {{Args: `{"query": "fail"}`, Want: "429 Too Many Requests"}, {Args: `{"query": "nothing"}`, Want: "No results found."}, {Args: `{"query": "challenge"}`, Want: "DuckDuckGo rate-limited the search"}},
					"search_news": {{Args: `{"query": "fail"}`, Want: "429 Too Many Requests"}},
				},
				Oversized: &tooltest.Oversized{Function: "web_search", Call: tooltest.Call{Args: `{"query": "big", "max_results": 40}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
				BadOptions: []tooltest.BadOption{
					{Table: `timelimit = "x"`, Key: "timelimit"},
					{Table: `backend = "yandex"`, Key: "backend"},
					{Table: `proxy = "http://p:8080"`, Key: "proxy"},
					{Table: `html_url = "ftp://x"`, Key: "html_url"},
					{Table: `timeout = 0`, Key: "timeout"},
				},
				Golden: "testdata/tooltest/" + name + ".golden.json",
			})
		})
	}
}

func build(t *testing.T, name, extra string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit(name)
	env := tool.ToolkitEnv{}
	table := setup(extra)(t, &env)
	opts := tk.DefaultOptions(env)
	if _, err := tomlDecode(table, opts); err != nil {
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

func invoke(t *testing.T, f *tool.Function, args map[string]any) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return res.Content
}

// web_search answers ddgs's text results as json.dumps(indent=2): the
// ad dropped, redirect links resolved, markup and entities cleaned, at
// most max_results (the modifier put before the query).
func TestWebSearch(t *testing.T) {
	fns := build(t, "duckduckgo", `modifier = "site:example.com"`)
	got := invoke(t, fns["web_search"], map[string]any{"query": "example", "max_results": 2})
	want := `[
  {
    "title": "Example Domain 0",
    "href": "https://example.com/0",
    "body": "An example page & more."
  },
  {
    "title": "Example Domain 1",
    "href": "https://example.com/1",
    "body": "An example page & more."
  }
]`
	if got != want {
		t.Errorf("web_search:\n%s\nwant\n%s", got, want)
	}
	// fixed_max_results wins over the model's max_results.
	fns = build(t, "websearch", `fixed_max_results = 1`)
	if got := invoke(t, fns["web_search"], map[string]any{"query": "example", "max_results": 3}); strings.Count(got, `"href"`) != 1 {
		t.Errorf("fixed_max_results = 1 gave %s", got)
	}
}

// search_news answers ddgs's news results: the date as UTC ISO 8601, the
// excerpt as body.
func TestSearchNews(t *testing.T) {
	fns := build(t, "websearch", "")
	got := invoke(t, fns["search_news"], map[string]any{"query": "go", "max_results": 1})
	want := `[
  {
    "date": "2023-11-14T22:13:20+00:00",
    "title": "Go & you",
    "body": "Go 1.22 is out.",
    "url": "https://go.dev/blog/1",
    "image": "https://img.example/1.jpg",
    "source": "The Go Blog"
  }
]`
	if got != want {
		t.Errorf("search_news:\n%s\nwant\n%s", got, want)
	}
}

// enable_news = false leaves only web_search.
func TestEnableFlags(t *testing.T) {
	fns := build(t, "websearch", "enable_news = false")
	if _, ok := fns["search_news"]; ok || fns["web_search"] == nil {
		t.Errorf("functions %v", fns)
	}
}

// Without an allowance for loopback the guarded client refuses the fake:
// the model learns why.
func TestGuardedClient(t *testing.T) {
	srv := fakeDDG(t)
	tk, _ := tool.LookupToolkit("websearch")
	env := tool.ToolkitEnv{}
	opts := tk.DefaultOptions(env)
	if _, err := tomlDecode(fmt.Sprintf("html_url = %q", srv.URL+"/html/"), opts); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	_, err = fns[0].Invoke(context.Background(), &tool.Call{Function: fns[0]}, map[string]any{"query": "x"})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("got %v, want netguard's refusal", err)
	}
}
