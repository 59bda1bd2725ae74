package tavily_test

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
	_ "github.com/agno-go/agno/tool/tavily"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeTavily answers as Tavily's API reference documents
// (https://docs.tavily.com/documentation/api-reference/endpoint/search
// and .../endpoint/extract): POST /search with a bearer key answers
// {query, answer, images, results: [{title, url, content, score,
// raw_content}], response_time}; POST /extract answers {results: [{url,
// raw_content, images}], failed_results, response_time}; errors are
// {"detail": {"error": "..."}}.
func fakeTavily(t *testing.T, seen *[]map[string]any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tvly-test" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if seen != nil {
			*seen = append(*seen, body)
		}
		if body["query"] == "fail" || fmt.Sprint(body["urls"]) == "[https://fail.example]" {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"detail":{"error":"Your request has been blocked due to excessive requests."}}`)
			return
		}
		switch r.URL.Path {
		case "/search":
			content := "Go is an open source programming language."
			if body["query"] == "big" {
				content = strings.Repeat("go ", 3000)
			}
			fmt.Fprintf(w, `{"query":%q,"answer":"Go is a language by Google.","images":[],"results":[
{"title":"The Go Programming Language","url":"https://go.dev/","content":%q,"score":0.98,"raw_content":null},
{"title":"Go (programming language) - Wikipedia","url":"https://en.wikipedia.org/wiki/Go_(programming_language)","content":"Go is a statically typed language.","score":0.9,"raw_content":null}],"response_time":1.1}`, body["query"], content)
		case "/extract":
			fmt.Fprint(w, `{"results":[{"url":"https://go.dev/","raw_content":"# Go\n\nBuild simple, secure, scalable systems with Go.","images":[]}],"failed_results":[],"response_time":0.5}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's TavilyTools
// (tools/tavily.py) with all = true: web_search_using_tavily and
// extract_url_content.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "tavily",
		Name:    "tavily_tools",
		Functions: []tooltest.Function{
			{Name: "web_search_using_tavily", Args: []string{"query", "max_results"}},
			{Name: "extract_url_content", Args: []string{"urls"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeTavily(t, nil)
			env.HTTPClient = webapitest.Client(t)
			t.Setenv("TAVILY_API_KEY", "tvly-test")
			return fmt.Sprintf("api_base_url = %q\nall = true\nmax_tokens = 100000\nmax_result_bytes = 2000", srv.URL)
		},
		Failures: map[string][]tooltest.Call{
			"web_search_using_tavily": {{Args: `{"query": "fail"}`, Want: "Your request has been blocked due to excessive requests. (Tavily answered 429)"}},
			"extract_url_content": {
				{Args: `{"urls": "https://fail.example"}`, Want: "Error extracting content: Your request has been blocked"},
				{Args: `{"urls": " , "}`, Want: "Error: No valid URLs provided."},
			},
		},
		Oversized: &tooltest.Oversized{Function: "web_search_using_tavily", Call: tooltest.Call{Args: `{"query": "big"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `search_depth = "deep"`, Key: "search_depth"},
			{Table: `format = "xml"`, Key: "format"},
			{Table: `api_base_url = "api.tavily.com"`, Key: "api_base_url"},
			{Table: `max_tokens = 0`, Key: "max_tokens"},
		},
	})
}

func build(t *testing.T, table string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("tavily")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
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

func invoke(t *testing.T, f *tool.Function, args map[string]any) (string, error) {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, args)
	return res.Content, err
}

// The search answers agno's markdown (the default) or its JSON, results
// kept while the JSON text stays within max_tokens; the request carries
// agno's search_depth, include_answer and max_results.
func TestSearch(t *testing.T) {
	var seen []map[string]any
	srv := fakeTavily(t, &seen)
	fns := build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"tvly-test\"", srv.URL))
	got, err := invoke(t, fns["web_search_using_tavily"], map[string]any{"query": "golang", "max_results": 2})
	want := "# golang\n\n### Summary\nGo is a language by Google.\n\n### [The Go Programming Language](https://go.dev/)\nGo is an open source programming language.\n\n### [Go (programming language) - Wikipedia](https://en.wikipedia.org/wiki/Go_(programming_language))\nGo is a statically typed language.\n\n"
	if err != nil || got != want {
		t.Errorf("markdown: %v\n%q\nwant\n%q", err, got, want)
	}
	if b := seen[0]; b["search_depth"] != "advanced" || b["include_answer"] != true || b["max_results"] != 2.0 {
		t.Errorf("request %v", b)
	}
	fns = build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"tvly-test\"\nformat = \"json\"\nmax_tokens = 250", srv.URL))
	got, err = invoke(t, fns["web_search_using_tavily"], map[string]any{"query": "golang"})
	want = `{"query": "golang", "answer": "Go is a language by Google.", "results": [{"title": "The Go Programming Language", "url": "https://go.dev/", "content": "Go is an open source programming language.", "score": 0.98}]}`
	if err != nil || got != want {
		t.Errorf("json: %v\n%s\nwant\n%s", err, got, want)
	}
}

// enable_search_context swaps the search for web_search_with_tavily,
// which answers the sources' url and content as JSON.
func TestSearchContext(t *testing.T) {
	srv := fakeTavily(t, nil)
	fns := build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"tvly-test\"\nenable_search_context = true", srv.URL))
	if _, ok := fns["web_search_using_tavily"]; ok {
		t.Fatal("both searches")
	}
	got, err := invoke(t, fns["web_search_with_tavily"], map[string]any{"query": "golang"})
	want := `[{"url": "https://go.dev/", "content": "Go is an open source programming language."}, {"url": "https://en.wikipedia.org/wiki/Go_(programming_language)", "content": "Go is a statically typed language."}]`
	if err != nil || got != want {
		t.Errorf("%v\n%s\nwant\n%s", err, got, want)
	}
}

// extract_url_content answers agno's markdown or text layout.
func TestExtract(t *testing.T) {
	srv := fakeTavily(t, nil)
	fns := build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"tvly-test\"\nenable_extract = true", srv.URL))
	got, _ := invoke(t, fns["extract_url_content"], map[string]any{"urls": "https://go.dev/"})
	if want := "## https://go.dev/\n\n# Go\n\nBuild simple, secure, scalable systems with Go.\n\n"; got != want {
		t.Errorf("markdown %q", got)
	}
	fns = build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"tvly-test\"\nenable_extract = true\nextract_format = \"text\"", srv.URL))
	got, _ = invoke(t, fns["extract_url_content"], map[string]any{"urls": "https://go.dev/"})
	if want := "URL: https://go.dev/\n" + strings.Repeat("-", 80) + "\n# Go\n\nBuild simple, secure, scalable systems with Go.\n\n"; got != want {
		t.Errorf("text %q", got)
	}
}

// Without a key (no api_key, no TAVILY_API_KEY) the call fails with
// tavily-python's message; a wrong key with Tavily's.
func TestKeys(t *testing.T) {
	t.Setenv("TAVILY_API_KEY", "")
	srv := fakeTavily(t, nil)
	fns := build(t, fmt.Sprintf("api_base_url = %q", srv.URL))
	if _, err := invoke(t, fns["web_search_using_tavily"], map[string]any{"query": "x"}); err == nil || !strings.Contains(err.Error(), "TAVILY_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	fns = build(t, fmt.Sprintf("api_base_url = %q\napi_key = \"wrong\"", srv.URL))
	if _, err := invoke(t, fns["web_search_using_tavily"], map[string]any{"query": "x"}); err == nil || !strings.Contains(err.Error(), "Unauthorized: missing or invalid API key. (Tavily answered 401)") {
		t.Errorf("wrong key: %v", err)
	}
}
