package wikipedia_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
	_ "github.com/agno-go/agno/tool/wikipedia"
)

// fakeWiki answers action=query as the MediaWiki Action API documents
// (https://www.mediawiki.org/wiki/API:Search,
// https://www.mediawiki.org/wiki/API:Info,
// https://www.mediawiki.org/wiki/Extension:TextExtracts#API,
// https://www.mediawiki.org/wiki/API:Revisions) in format=json: the
// search with its suggestion, pages keyed by id ("-1" and "missing" for
// none), pageprops.disambiguation, extracts and parsed revisions.
func fakeWiki(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("action") != "query" || q.Get("format") != "json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch {
		case q.Get("srsearch") == "fail":
			http.Error(w, "upstream error", http.StatusBadGateway)
		case q.Get("list") == "search":
			switch q.Get("srsearch") {
			case "nothing here":
				fmt.Fprint(w, `{"batchcomplete":"","query":{"searchinfo":{"totalhits":0},"search":[]}}`)
			case "golang":
				fmt.Fprint(w, `{"batchcomplete":"","query":{"searchinfo":{"totalhits":1,"suggestion":"go language"},"search":[{"ns":0,"title":"Golang"}]}}`)
			case "mercury":
				fmt.Fprint(w, `{"batchcomplete":"","query":{"searchinfo":{"totalhits":9},"search":[{"ns":0,"title":"Mercury"}]}}`)
			default:
				fmt.Fprintf(w, `{"batchcomplete":"","query":{"searchinfo":{"totalhits":1},"search":[{"ns":0,"title":%q}]}}`, q.Get("srsearch"))
			}
		case q.Get("prop") == "info|pageprops":
			switch q.Get("titles") {
			case "go language", "Go (programming language)", "Big":
				fmt.Fprintf(w, `{"batchcomplete":"","query":{"pages":{"25039021":{"pageid":25039021,"ns":0,"title":%q,"fullurl":"https://en.wikipedia.org/wiki/Go"}}}}`, q.Get("titles"))
			case "Mercury":
				fmt.Fprint(w, `{"batchcomplete":"","query":{"pages":{"19694":{"pageid":19694,"ns":0,"title":"Mercury","pageprops":{"disambiguation":""}}}}}`)
			default:
				fmt.Fprintf(w, `{"batchcomplete":"","query":{"pages":{"-1":{"ns":0,"title":%q,"missing":""}}}}`, q.Get("titles"))
			}
		case q.Get("prop") == "extracts":
			extract := "Go is a high-level general purpose programming language."
			if q.Get("pageids") != "25039021" {
				extract = "?"
			}
			if r.Header.Get("X-Big") != "" {
				extract = strings.Repeat("Go ", 5000)
			}
			fmt.Fprintf(w, `{"batchcomplete":"","query":{"pages":{%q:{"pageid":25039021,"ns":0,"title":"Go","extract":%q}}}}`, q.Get("pageids"), extract)
		case q.Get("prop") == "revisions":
			fmt.Fprint(w, `{"query":{"pages":{"19694":{"pageid":19694,"revisions":[{"*":"<p><b>Mercury</b> may refer to:</p><ul><li class=\"toclevel-1 tocsection-1\"><a href=\"#Science\">Science</a></li><li><a href=\"/wiki/Mercury_(planet)\" title=\"Mercury (planet)\">Mercury (planet)</a>, the closest planet</li><li><a href=\"/wiki/Mercury_(element)\">Mercury (element)</a></li><li>no link</li></ul>"}]}}}}`)
		default:
			http.Error(w, "unexpected", http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// bigClient asks for the large extract.
type bigClient struct{ http.RoundTripper }

func (b bigClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Big", "1")
	return b.RoundTripper.RoundTrip(r)
}

// TestConformance runs the suite against agno v2.6.13's WikipediaTools
// (tools/wikipedia.py) without a knowledge base: search_wikipedia.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "wikipedia",
		Name:      "wikipedia_tools",
		Functions: []tooltest.Function{{Name: "search_wikipedia", Args: []string{"query"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeWiki(t)
			c := webapitest.Client(t)
			c.Transport = bigClient{c.Transport}
			env.HTTPClient = c
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 2000", srv.URL+"/w/api.php")
		},
		Failures: map[string][]tooltest.Call{
			"search_wikipedia": {
				{Args: `{"query": "nothing here"}`, Want: `{"error": "Page id \"nothing here\" does not match any pages. Try another id!"}`},
				{Args: `{"query": "fail"}`, Want: `{"error": "GET http://127.0.0.1`},
			},
		},
		Oversized: &tooltest.Oversized{Function: "search_wikipedia", Call: tooltest.Call{Args: `{"query": "golang"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = ""`, Key: "base_url"},
			{Table: `knowledge = "kb"`, Key: "knowledge"},
		},
	})
}

func build(t *testing.T, table string, c *http.Client) *tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("wikipedia")
	env := tool.ToolkitEnv{HTTPClient: c}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	return fns[0]
}

func invoke(t *testing.T, f *tool.Function, q string) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"query": q})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

// The summary is agno's Document dict; the search's suggestion wins
// over its first result; a disambiguation page answers its options;
// auto_suggest = false reads the title as given.
func TestSearchWikipedia(t *testing.T) {
	srv := fakeWiki(t)
	f := build(t, fmt.Sprintf("base_url = %q", srv.URL+"/w/api.php"), webapitest.Client(t))
	if got, want := invoke(t, f, "golang"), `{"name": "golang", "meta_data": {}, "content": "Go is a high-level general purpose programming language."}`; got != want {
		t.Errorf("summary:\n%s\nwant\n%s", got, want)
	}
	if got, want := invoke(t, f, "mercury"), `{"disambiguation": "mercury", "options": ["Mercury (planet)", "Mercury (element)"]}`; got != want {
		t.Errorf("disambiguation:\n%s\nwant\n%s", got, want)
	}
	f = build(t, fmt.Sprintf("base_url = %q\nauto_suggest = false", srv.URL+"/w/api.php"), webapitest.Client(t))
	if got := invoke(t, f, "Go (programming language)"); !strings.Contains(got, `"content": "Go is a high-level`) {
		t.Errorf("auto_suggest = false: %s", got)
	}
	if got := invoke(t, f, "golang"); !strings.Contains(got, `does not match any pages`) {
		t.Errorf("auto_suggest = false, no such title: %s", got)
	}
}
