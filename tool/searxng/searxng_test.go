package searxng_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	_ "github.com/agno-go/agno/tool/searxng"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeSearx answers GET /search?format=json as SearXNG's search API
// documents (https://docs.searxng.org/dev/search_api.html): {query,
// number_of_results, results: [{url, title, content, engine, category,
// ...}], answers, corrections, infoboxes, suggestions,
// unresponsive_engines}.
func fakeSearx(t *testing.T, seen *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			*seen = append(*seen, r.URL.RawQuery)
		}
		q := r.URL.Query()
		if r.URL.Path != "/search" || q.Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		if q.Get("q") == "fail" {
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
			return
		}
		n := 8
		content := "Go is an open source programming language."
		if q.Get("q") == "big" {
			n, content = 20, strings.Repeat("go ", 300)
		}
		var results []string
		for i := range n {
			results = append(results, fmt.Sprintf(`{"url":"https://go.dev/%d","title":"Go %d","content":%q,"engine":"duckduckgo","category":%q}`, i, i, content, q.Get("categories")))
		}
		fmt.Fprintf(w, `{"query":%q,"number_of_results":0,"results":[%s],"answers":[],"corrections":[],"infoboxes":[],"suggestions":["golang"],"unresponsive_engines":[]}`, q.Get("q"), strings.Join(results, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's Searxng
// (tools/searxng.py).
func TestConformance(t *testing.T) {
	var fns []tooltest.Function
	failures := map[string][]tooltest.Call{}
	for _, n := range []string{"search_web", "image_search", "it_search", "map_search", "music_search", "news_search", "science_search", "video_search"} {
		fns = append(fns, tooltest.Function{Name: n, Args: []string{"query", "max_results"}})
		failures[n] = []tooltest.Call{{Args: `{"query": "fail"}`, Want: "Error fetching results from searxng: GET http://127.0.0.1"}}
	}
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "searxng",
		Name:      "searxng",
		Functions: fns,
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeSearx(t, nil)
			env.HTTPClient = webapitest.Client(t)
			return fmt.Sprintf("host = %q\nmax_result_bytes = 2000", srv.URL)
		},
		Failures:  failures,
		Oversized: &tooltest.Oversized{Function: "search_web", Call: tooltest.Call{Args: `{"query": "big", "max_results": 20}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `host = "searx"`, Key: "host"},
		},
	})
}

// A search answers SearXNG's JSON in its key order with the results cut
// to max_results (fixed_max_results wins); the engines and the
// function's category go into the request.
func TestSearch(t *testing.T) {
	var seen []string
	srv := fakeSearx(t, &seen)
	tk, _ := tool.LookupToolkit("searxng")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(fmt.Sprintf("host = %q\nengines = [\"duckduckgo\", \"wikipedia\"]", srv.URL), opts); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	var news *tool.Function
	for _, f := range fns {
		if f.Name == "news_search" {
			news = f
		}
	}
	res, err := news.Invoke(context.Background(), &tool.Call{Function: news}, map[string]any{"query": "go lang", "max_results": 1})
	want := `{"query": "go lang", "number_of_results": 0, "results": [{"url": "https://go.dev/0", "title": "Go 0", "content": "Go is an open source programming language.", "engine": "duckduckgo", "category": "news"}], "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["golang"], "unresponsive_engines": []}`
	if err != nil || res.Content != want {
		t.Errorf("%v\n%s\nwant\n%s", err, res.Content, want)
	}
	if want := "format=json&q=go%20lang&engines=duckduckgo,wikipedia&categories=news"; seen[0] != want {
		t.Errorf("request %s, want %s", seen[0], want)
	}
}

// Without a host the toolkit is not built, and the error names the key.
func TestNoHost(t *testing.T) {
	tk, _ := tool.LookupToolkit("searxng")
	if _, err := tk.New(tool.ToolkitEnv{}, nil); err == nil || !strings.Contains(err.Error(), "host is not set") {
		t.Errorf("got %v", err)
	}
}
