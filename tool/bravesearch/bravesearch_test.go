package bravesearch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	_ "github.com/agno-go/agno/tool/bravesearch"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeBrave answers GET /res/v1/web/search as Brave's Web Search API
// documents (https://api-dashboard.search.brave.com/app/documentation/web-search/responses):
// {"type": "search", "query": {...}, "web": {"type": "search", "results":
// [{title, url, description, ...}]}}, the key in X-Subscription-Token.
func fakeBrave(t *testing.T, seen *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "brave-test" {
			http.Error(w, `{"type":"ErrorResponse","error":{"status":401,"code":"SUBSCRIPTION_TOKEN_INVALID"}}`, http.StatusUnauthorized)
			return
		}
		if seen != nil {
			*seen = append(*seen, r.URL.RawQuery)
		}
		q := r.URL.Query().Get("q")
		switch q {
		case "fail":
			http.Error(w, `{"type":"ErrorResponse","error":{"status":429,"code":"RATE_LIMITED"}}`, http.StatusTooManyRequests)
		case "nothing":
			fmt.Fprint(w, `{"type":"search","query":{"original":"nothing"}}`)
		default:
			desc := "Go is an open source programming language."
			if q == "big" {
				desc = strings.Repeat("go ", 2000)
			}
			fmt.Fprintf(w, `{"type":"search","query":{"original":%q},"web":{"type":"search","results":[{"title":"The Go Programming Language","url":"https://go.dev/","is_source_local":false,"description":%q,"language":"en","family_friendly":true}],"family_friendly":true}}`, q, desc)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's
// BraveSearchTools (tools/bravesearch.py).
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "bravesearch",
		Name:      "brave_search",
		Functions: []tooltest.Function{{Name: "brave_search", Args: []string{"query", "max_results", "country", "search_lang"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeBrave(t, nil)
			env.HTTPClient = webapitest.Client(t)
			t.Setenv("BRAVE_API_KEY", "brave-test")
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 2000", srv.URL+"/res/v1/web/search")
		},
		Failures: map[string][]tooltest.Call{
			"brave_search": {{Args: `{"query": "fail"}`, Want: "429 Too Many Requests"}},
		},
		Oversized: &tooltest.Oversized{Function: "brave_search", Call: tooltest.Call{Args: `{"query": "big"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `fixed_max_results = 0`, Key: "fixed_max_results"},
			{Table: `base_url = "brave"`, Key: "base_url"},
		},
	})
}

func build(t *testing.T, tbl string) (*tool.Function, error) {
	t.Helper()
	tk, _ := tool.LookupToolkit("bravesearch")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(tbl, opts); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		return nil, err
	}
	fns, _ := p.Functions(context.Background())
	return fns[0], nil
}

// brave_search answers agno's dict as json.dumps(indent=2); the request
// carries count, country, search_lang (fixed_language wins) and
// result_filter=web; an answer without web results answers none; no key
// refuses to build, as agno's constructor raises.
func TestBraveSearch(t *testing.T) {
	var seen []string
	srv := fakeBrave(t, &seen)
	base := fmt.Sprintf("base_url = %q\napi_key = \"brave-test\"\n", srv.URL+"/res/v1/web/search")
	f, err := build(t, base+`fixed_language = "fr"`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"query": "golang", "max_results": 3, "country": "FR"})
	want := `{
  "web_results": [
    {
      "title": "The Go Programming Language",
      "url": "https://go.dev/",
      "description": "Go is an open source programming language."
    }
  ],
  "query": "golang",
  "total_results": 1
}`
	if err != nil || res.Content != want {
		t.Errorf("%v\n%s\nwant\n%s", err, res.Content, want)
	}
	if want := "count=3&country=FR&q=golang&result_filter=web&search_lang=fr"; seen[0] != want {
		t.Errorf("request %s, want %s", seen[0], want)
	}
	res, _ = f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"query": "nothing"})
	if res.Content != "{\n  \"web_results\": [],\n  \"query\": \"nothing\",\n  \"total_results\": 0\n}" {
		t.Errorf("no results: %s", res.Content)
	}
	t.Setenv("BRAVE_API_KEY", "")
	if _, err := build(t, fmt.Sprintf("base_url = %q", srv.URL)); err == nil || !strings.Contains(err.Error(), "BRAVE_API_KEY is required") {
		t.Errorf("no key: %v", err)
	}
}
