package exa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	_ "github.com/agno-go/agno/tool/exa"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// fakeExa answers as Exa's API reference documents
// (https://docs.exa.ai/reference/search, /get-contents, /find-similar-links,
// /answer): POST with the x-api-key header; results [{id, title, url,
// publishedDate, author, text}]; answer {answer, citations: [{id, url,
// title, publishedDate, author, text}]}; errors as a status with a JSON
// body.
func fakeExa(t *testing.T, seen *[]map[string]any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != "exa-test" {
			http.Error(w, `{"error":"Invalid API key"}`, http.StatusUnauthorized)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if seen != nil {
			*seen = append(*seen, body)
		}
		if body["query"] == "fail" || body["url"] == "https://fail.example" || fmt.Sprint(body["urls"]) == "[https://fail.example]" {
			http.Error(w, `{"error":"Rate limit exceeded"}`, http.StatusTooManyRequests)
			return
		}
		text := "Gö is an open source programming language that makes it simple to build secure, scalable systems."
		if body["query"] == "big" {
			text = strings.Repeat("go ", 300)
		}
		switch r.URL.Path {
		case "/search", "/contents", "/findSimilar":
			var results []string
			for i := range 12 {
				results = append(results, fmt.Sprintf(`{"id":"https://go.dev/%d","title":"Go %d","url":"https://go.dev/%d","publishedDate":"2024-01-0%dT00:00:00.000Z","author":%q,"text":%q}`, i, i, i, i%9+1, map[bool]string{true: "", false: "The Go Team"}[i == 1], text))
			}
			fmt.Fprintf(w, `{"requestId":"r1","resolvedSearchType":"neural","results":[%s],"costDollars":{"total":0.005}}`, strings.Join(results, ","))
		case "/answer":
			fmt.Fprintf(w, `{"answer":"Go was created at Google.","citations":[{"id":"https://go.dev/","url":"https://go.dev/","title":"Go","publishedDate":null,"author":null,"text":%q}],"requestId":"r2"}`, text)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's ExaTools
// (tools/exa.py) with its defaults (research off).
func TestConformance(t *testing.T) {
	want := "Error: Request failed with status code 429"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "exa",
		Name:    "exa",
		Functions: []tooltest.Function{
			{Name: "search_exa", Args: []string{"query", "num_results", "category"}},
			{Name: "get_contents", Args: []string{"urls"}},
			{Name: "find_similar", Args: []string{"url", "num_results"}},
			{Name: "exa_answer", Args: []string{"query", "text"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeExa(t, nil)
			env.HTTPClient = webapitest.Client(t)
			t.Setenv("EXA_API_KEY", "exa-test")
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 2000", srv.URL)
		},
		Failures: map[string][]tooltest.Call{
			"search_exa":   {{Args: `{"query": "fail"}`, Want: want}},
			"get_contents": {{Args: `{"urls": ["https://fail.example"]}`, Want: want}},
			"find_similar": {{Args: `{"url": "https://fail.example"}`, Want: want}},
			"exa_answer":   {{Args: `{"query": "fail"}`, Want: want}},
		},
		Oversized: &tooltest.Oversized{Function: "search_exa", Call: tooltest.Call{Args: `{"query": "big", "num_results": 12}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `enable_research = true`, Key: "enable_research"},
			{Table: `model = "gpt"`, Key: "model"},
		},
	})
}

func build(t *testing.T, tbl string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("exa")
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

// The results are agno's parsed dicts (indent=4, UTF-8 kept, the empty
// author left out, the text cut to text_length_limit); the request
// carries Exa's camelCase options, the configured category winning.
func TestExa(t *testing.T) {
	var seen []map[string]any
	srv := fakeExa(t, &seen)
	fns := build(t, fmt.Sprintf("base_url = %q\napi_key = \"exa-test\"\ntext_length_limit = 10\ninclude_domains = [\"go.dev\"]\ncategory = \"github\"\nstart_published_date = \"2024-01-01\"", srv.URL))
	got := invoke(t, fns["search_exa"], map[string]any{"query": "golang", "num_results": 2, "category": "news"})
	var parsed []map[string]any
	if err := json.Unmarshal([]byte(got), &parsed); err != nil || len(parsed) != 12 {
		t.Fatalf("%v: %s", err, got)
	}
	want := "[\n    {\n        \"url\": \"https://go.dev/0\",\n        \"title\": \"Go 0\",\n        \"author\": \"The Go Team\",\n        \"published_date\": \"2024-01-01T00:00:00.000Z\",\n        \"text\": \"Gö is an o\"\n    },\n    {\n        \"url\": \"https://go.dev/1\",\n        \"title\": \"Go 1\",\n        \"published_date\""
	if !strings.HasPrefix(got, want) {
		t.Errorf("search:\n%.400s\nwant prefix\n%s", got, want)
	}
	b, _ := json.Marshal(seen[0])
	if want := `{"category":"github","contents":{"summary":false,"text":true},"includeDomains":["go.dev"],"numResults":2,"query":"golang","startPublishedDate":"2024-01-01"}`; string(b) != want {
		t.Errorf("request %s\nwant    %s", b, want)
	}
	got = invoke(t, fns["exa_answer"], map[string]any{"query": "who made go"})
	if want := "{\n    \"answer\": \"Go was created at Google.\",\n    \"citations\": [\n        {\n            \"id\": \"https://go.dev/\",\n            \"url\": \"https://go.dev/\",\n            \"title\": \"Go\",\n            \"published_date\": null,\n            \"author\": null,\n            \"text\": null\n        }\n    ]\n}"; got != want {
		t.Errorf("answer:\n%s\nwant\n%s", got, want)
	}
	invoke(t, fns["get_contents"], map[string]any{"urls": []any{"https://go.dev/"}})
	if b, _ := json.Marshal(seen[len(seen)-1]); string(b) != `{"summary":false,"text":true,"urls":["https://go.dev/"]}` {
		t.Errorf("contents request %s", b)
	}
	t.Setenv("EXA_API_KEY", "")
	fns = build(t, fmt.Sprintf("base_url = %q", srv.URL))
	if got := invoke(t, fns["find_similar"], map[string]any{"url": "https://go.dev/"}); !strings.Contains(got, "EXA_API_KEY") {
		t.Errorf("no key: %s", got)
	}
}
