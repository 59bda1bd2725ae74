package toolkits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
)

// fakeSearchServices is DuckDuckGo's HTML endpoint (the markup ddgs
// reads: div.result__body, h2 title, a.result__snippet), the Hacker News
// Firebase API (https://github.com/HackerNews/API), Tavily's search
// endpoint (https://docs.tavily.com/documentation/api-reference/endpoint/search),
// MediaWiki's Action API, arXiv's Atom API and NCBI's E-utilities, each
// under its own path prefix.
func fakeSearchServices(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ddg/html/":
			fmt.Fprint(w, `<html><body><div class="result results_links web-result"><div class="links_main links_deep result__body">`+
				`<h2 class="result__title"><a class="result__a" href="https://go.dev/">The Go Programming Language</a></h2>`+
				`<a class="result__snippet" href="https://go.dev/">Go is an open source <b>programming</b> language.</a></div></div></body></html>`)
		case "/hn/v0/topstories.json":
			fmt.Fprint(w, `[8863]`)
		case "/hn/v0/item/8863.json":
			fmt.Fprint(w, `{"by":"dhouston","id":8863,"score":111,"title":"My YC app: Dropbox","type":"story"}`)
		case "/tavily/search":
			if r.Header.Get("Authorization") != "Bearer tvly-e2e" {
				http.Error(w, `{"detail":{"error":"Unauthorized"}}`, http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"query":"go","answer":"Go is a language.","results":[{"title":"Go","url":"https://go.dev/","content":"Build simple systems.","score":0.9}]}`)
		// MediaWiki Action API (https://www.mediawiki.org/wiki/API:Search,
		// API:Info, Extension:TextExtracts).
		case "/wiki/w/api.php":
			q := r.URL.Query()
			switch {
			case q.Get("list") == "search":
				fmt.Fprint(w, `{"query":{"searchinfo":{"totalhits":1},"search":[{"ns":0,"title":"Go (programming language)"}]}}`)
			case q.Get("prop") == "extracts":
				fmt.Fprint(w, `{"query":{"pages":{"25039021":{"pageid":25039021,"title":"Go","extract":"Go is a programming language designed at Google."}}}}`)
			default:
				fmt.Fprint(w, `{"query":{"pages":{"25039021":{"pageid":25039021,"ns":0,"title":"Go (programming language)"}}}}`)
			}
		// arXiv's Atom feed (https://info.arxiv.org/help/api/user-manual.html).
		case "/arxiv/api/query":
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1706.03762v7</id><published>2017-06-12T17:57:34Z</published><title>Attention Is All You Need</title><summary>The dominant sequence transduction models...</summary><author><name>Ashish Vaswani</name></author><link href="http://arxiv.org/abs/1706.03762v7" rel="alternate" type="text/html"/><category term="cs.CL"/></entry></feed>`)
		// E-utilities esearch and efetch (https://www.ncbi.nlm.nih.gov/books/NBK25499/).
		case "/eutils/esearch.fcgi":
			fmt.Fprint(w, `<eSearchResult><Count>1</Count><IdList><Id>36000001</Id></IdList></eSearchResult>`)
		case "/eutils/efetch.fcgi":
			fmt.Fprint(w, `<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>36000001</PMID><Article><ArticleTitle>CRISPR therapy.</ArticleTitle><Abstract><AbstractText>Gene editing works.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An agent using duckduckgo, hackernews, tavily, wikipedia, arxiv and
// pubmed, each built from its [toolkits.<name>] table by the config (the
// outbound guard allowing the fakes' loopback address), runs through
// AgentOS: the fake model calls one tool of each, sees each service's
// answer in agno's format, and answers.
func TestSearchToolkitsThroughAgentOS(t *testing.T) {
	// Registered first, so it runs after the fakes' cleanups.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	svc := fakeSearchServices(t)
	dir := t.TempDir()
	t.Setenv("TAVILY_API_KEY", "tvly-e2e")
	cfgText := fmt.Sprintf(`[outbound]
allow = ["127.0.0.1/32"]

[toolkits.duckduckgo]
html_url = "%[1]s/ddg/html/"
news_url = "%[1]s/ddg"

[toolkits.hackernews]
base_url = "%[1]s/hn/v0"

[toolkits.tavily]
api_base_url = "%[1]s/tavily"
format = "json"

[toolkits.wikipedia]
base_url = "%[1]s/wiki/w/api.php"

[toolkits.arxiv]
base_url = "%[1]s/arxiv/api/query"

[toolkits.pubmed]
base_url = "%[1]s/eutils"
`, svc.URL)
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var tools []tool.Provider
	for _, name := range []string{"duckduckgo", "hackernews", "tavily", "wikipedia", "arxiv", "pubmed"} {
		p, ok := res.Toolkits[name]
		if !ok {
			t.Fatalf("toolkit %s was not built", name)
		}
		tools = append(tools, p)
	}

	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{
			model.NewToolCall("c1", "web_search", `{"query":"golang","max_results":1}`),
			model.NewToolCall("c2", "get_top_hackernews_stories", `{"num_stories":1}`),
			model.NewToolCall("c3", "web_search_using_tavily", `{"query":"go"}`),
			model.NewToolCall("c4", "search_wikipedia", `{"query":"golang"}`),
			model.NewToolCall("c5", "search_arxiv_and_return_articles", `{"query":"attention","num_articles":1}`),
			model.NewToolCall("c6", "search_pubmed", `{"query":"crispr"}`),
		}},
		modeltest.Response{Content: "Go is a programming language; HN's top story is Dropbox."},
	)
	a, err := agent.New(agent.Config{ID: "researcher", Name: "Researcher", Model: fake, Tools: tools, Store: res.Store})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: res.Store})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	resp, err := http.PostForm(srv.URL+"/agents/researcher/runs", url.Values{"message": {"What is Go, and what is on HN?"}, "stream": {"false"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if out.Content != "Go is a programming language; HN's top story is Dropbox." {
		t.Errorf("run: %+v", out)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model was called %d times", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == model.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	want := map[string]string{
		"c1": "[\n  {\n    \"title\": \"The Go Programming Language\",\n    \"href\": \"https://go.dev/\",\n    \"body\": \"Go is an open source programming language.\"\n  }\n]",
		"c2": `[{"by": "dhouston", "id": 8863, "score": 111, "title": "My YC app: Dropbox", "type": "story", "username": "dhouston"}]`,
		"c3": `{"query": "go", "answer": "Go is a language.", "results": [{"title": "Go", "url": "https://go.dev/", "content": "Build simple systems.", "score": 0.9}]}`,
		"c4": `{"name": "golang", "meta_data": {}, "content": "Go is a programming language designed at Google."}`,
		"c5": "\"id\": \"1706.03762v7\",\n        \"entry_id\": \"http://arxiv.org/abs/1706.03762v7\",\n        \"authors\": [\n            \"Ashish Vaswani\"\n        ]",
		"c6": `["Summary: Gene editing works."]`,
	}
	for id, w := range want {
		if got := results[id]; !strings.Contains(got, w) {
			t.Errorf("tool result %s:\n%s\nwant\n%s", id, got, w)
		}
	}
}
