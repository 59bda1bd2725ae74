package serper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	_ "github.com/agno-go/agno/tool/serper"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeSerper answers as Serper's API does (https://serper.dev/playground,
// the JSON of POST https://google.serper.dev/search, /news, /scholar and
// https://scrape.serper.dev with the X-API-KEY header): searchParameters
// echoing the request, then organic / news / organic results; the
// scraper answers {text, markdown, metadata}.
func fakeSerper(t *testing.T, seen *[]map[string]any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != "serper-test" {
			http.Error(w, `{"message":"Unauthorized.","statusCode":403}`, http.StatusForbidden)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if seen != nil {
			*seen = append(*seen, body)
		}
		if body["q"] == "fail" || body["url"] == "https://fail.example" {
			http.Error(w, `{"message":"Not enough credits","statusCode":400}`, http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/search", "/news", "/scholar":
			snippet := "Go is an open source programming language."
			if body["q"] == "big" {
				snippet = strings.Repeat("go ", 2000)
			}
			fmt.Fprintf(w, `{"searchParameters":{"q":%q,"gl":"us","hl":"en","type":%q,"num":%v,"engine":"google"},"organic":[{"title":"The Go Programming Language","link":"https://go.dev/","snippet":%q,"position":1}],"credits":1}`,
				body["q"], strings.TrimPrefix(r.URL.Path, "/"), body["num"], snippet)
		case "/scrape":
			fmt.Fprintf(w, `{"text":"Go page","markdown":%q,"metadata":{"title":"Go"},"credits":1}`, fmt.Sprint(body["includeMarkdown"]))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func table(srv *httptest.Server, extra string) string {
	return fmt.Sprintf("base_url = %q\nscrape_url = %q\n%s", srv.URL, srv.URL+"/scrape", extra)
}

// TestConformance runs the suite against agno v2.6.13's SerperTools
// (tools/serper.py).
func TestConformance(t *testing.T) {
	errJSON := "{\n  \"error\": \"POST http://127.0.0.1"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "serper",
		Name:    "serper_tools",
		Functions: []tooltest.Function{
			{Name: "search_web", Args: []string{"query", "num_results"}},
			{Name: "search_news", Args: []string{"query", "num_results"}},
			{Name: "search_scholar", Args: []string{"query", "num_results"}},
			{Name: "scrape_webpage", Args: []string{"url", "markdown"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeSerper(t, nil)
			env.HTTPClient = webapitest.Client(t)
			t.Setenv("SERPER_API_KEY", "serper-test")
			return table(srv, "max_result_bytes = 2000")
		},
		Failures: map[string][]tooltest.Call{
			"search_web":     {{Args: `{"query": "fail"}`, Want: errJSON}, {Args: `{"query": ""}`, Want: "Please provide a query to search for"}},
			"search_news":    {{Args: `{"query": "fail"}`, Want: errJSON}},
			"search_scholar": {{Args: `{"query": "fail"}`, Want: errJSON}},
			"scrape_webpage": {{Args: `{"url": "https://fail.example"}`, Want: "400 Bad Request"}},
		},
		Oversized: &tooltest.Oversized{Function: "search_web", Call: tooltest.Call{Args: `{"query": "big"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `num_results = 0`, Key: "num_results"},
			{Table: `scrape_url = "x"`, Key: "scrape_url"},
		},
	})
}

func build(t *testing.T, tbl string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("serper")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(tbl, opts); err != nil {
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
		t.Fatal(err)
	}
	return res.Content
}

// The searches answer Serper's text unchanged, the request carrying
// num (the model's, else num_results), gl, hl and tbs; scrape sends
// includeMarkdown; no key answers agno's error.
func TestSerper(t *testing.T) {
	var seen []map[string]any
	srv := fakeSerper(t, &seen)
	fns := build(t, table(srv, "api_key = \"serper-test\"\ndate_range = \"qdr:w\"\nnum_results = 3"))
	got := invoke(t, fns["search_news"], map[string]any{"query": "golang"})
	if want := `{"searchParameters":{"q":"golang","gl":"us","hl":"en","type":"news","num":3,"engine":"google"},"organic":[{"title":"The Go Programming Language","link":"https://go.dev/","snippet":"Go is an open source programming language.","position":1}],"credits":1}`; got != want {
		t.Errorf("news:\n%s\nwant\n%s", got, want)
	}
	if b := seen[0]; b["tbs"] != "qdr:w" || b["gl"] != "us" || b["hl"] != "en" || b["num"] != 3.0 {
		t.Errorf("request %v", b)
	}
	invoke(t, fns["search_web"], map[string]any{"query": "golang", "num_results": 7})
	if seen[1]["num"] != 7.0 {
		t.Errorf("num_results: %v", seen[1])
	}
	if got := invoke(t, fns["scrape_webpage"], map[string]any{"url": "https://go.dev/", "markdown": true}); !strings.Contains(got, `"markdown":"true"`) {
		t.Errorf("scrape: %s", got)
	}
	t.Setenv("SERPER_API_KEY", "")
	fns = build(t, table(srv, ""))
	if got := invoke(t, fns["search_scholar"], map[string]any{"query": "x"}); got != "{\n  \"error\": \"Please provide a Serper API key\"\n}" {
		t.Errorf("no key: %q", got)
	}
}
