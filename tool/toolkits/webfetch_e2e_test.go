package toolkits_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	_ "github.com/agno-go/agno/tool/toolkits"
)

// The web fetch toolkits end to end: an agent served by AgentOS, its
// tools built from the registry as a config builds them, reached by POST
// /agents/<id>/runs. The scripted model expands a short link
// (webtools), reads the article it leads to (newspaper4k) and a page of
// the site (website), then asks for a page on a private address, which
// the guard refuses; every result, the refusal included, reaches the
// model's next request.
func TestWebFetchToolkitsThroughAgentOS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	page, err := os.ReadFile("../newspaper4k/testdata/news-article.html")
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/s/park":
			http.Redirect(w, r, "/local/riverside-park", http.StatusMovedPermanently)
		case "/local/riverside-park":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	var tools []tool.Provider
	for _, name := range []string{"webtools", "newspaper4k", "website"} {
		rt, ok := tool.LookupToolkit(name)
		if !ok {
			t.Fatalf("toolkit %q is not registered", name)
		}
		p, err := rt.New(env, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tools = append(tools, p)
	}

	article := site.URL + "/local/riverside-park"
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "expand_url", `{"url": "`+site.URL+`/s/park"}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c2", "read_article", `{"url": "`+article+`"}`),
			modeltest.ToolCall("c3", "read_url", `{"url": "http://10.1.2.3/admin"}`),
		}},
		modeltest.Response{Content: "The council approved the Riverside Park expansion 7-2."},
	)
	a, err := agent.New(agent.Config{Name: "Reader", ID: "reader", Model: fake, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	form := url.Values{"message": {"What happened to the park? " + site.URL + "/s/park"}, "stream": {"false"}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/agents/reader/runs", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Content string           `json:"content"`
		Status  string           `json:"status"`
		Tools   []map[string]any `json:"tools"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /agents/reader/runs: %d %v", resp.StatusCode, err)
	}
	if out.Content != "The council approved the Riverside Park expansion 7-2." || out.Status != "COMPLETED" {
		t.Errorf("run: %q %q", out.Status, out.Content)
	}
	results := map[string]string{}
	for _, tc := range out.Tools {
		s, _ := tc["result"].(string)
		results[tc["tool_name"].(string)] = s
	}
	if results["expand_url"] != article {
		t.Errorf("expand_url result %q, want %q", results["expand_url"], article)
	}
	if !strings.Contains(results["read_article"], `"title": "City council approves riverside park expansion"`) {
		t.Errorf("read_article result %q", results["read_article"])
	}

	// What the model read back: the tool messages of its last request.
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	var toolMsgs []string
	for _, m := range reqs[2].Messages {
		if m.Role == model.RoleTool {
			toolMsgs = append(toolMsgs, m.Content)
		}
	}
	joined := strings.Join(toolMsgs, "\n---\n")
	for _, want := range []string{article, "The city council voted 7-2 on Thursday", "netguard: refused to connect to 10.1.2.3"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the model did not read %q; its tool messages:\n%s", want, joined)
		}
	}
	var offered []string
	for _, d := range reqs[0].Tools {
		offered = append(offered, d.Name)
	}
	if strings.Join(offered, ",") != "expand_url,read_article,read_url" {
		t.Errorf("the model was offered %q", offered)
	}
}

// build makes a toolkit from the registry with its [toolkits.<name>]
// table, as a config does.
func build(t *testing.T, env tool.ToolkitEnv, name, table string) tool.Provider {
	t.Helper()
	rt, ok := tool.LookupToolkit(name)
	if !ok {
		t.Fatalf("toolkit %q is not registered", name)
	}
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// The rest of the group through AgentOS: jina (its endpoint a fake of
// r.jina.ai, https://jina.ai/reader/), crawl4ai, trafilatura and
// llms_txt (an llms.txt as https://llmstxt.org describes) on one agent.
func TestMoreWebFetchToolkitsThroughAgentOS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	page, err := os.ReadFile("../newspaper4k/testdata/news-article.html")
	if err != nil {
		t.Fatal(err)
	}
	var site *httptest.Server
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/local/riverside-park":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page)
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("# Example News\n\n> Local news.\n\n## Stories\n\n- [Riverside park](/local/riverside-park): The council vote\n"))
		case "/jina/" + site.URL + "/local/riverside-park":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"code":200,"status":20000,"data":{"title":"City council approves riverside park expansion","content":"The city council voted 7-2."}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	tools := []tool.Provider{
		build(t, env, "jina", `base_url = "`+site.URL+`/jina/"`),
		build(t, env, "crawl4ai", ""),
		build(t, env, "trafilatura", "enable_crawl_website = false\nenable_extract_batch = false\nenable_html_to_text = false\nenable_extract_metadata_only = false"),
		build(t, env, "llms_txt", ""),
	}
	article := site.URL + "/local/riverside-park"
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "get_llms_txt_index", `{"url": "`+site.URL+`/llms.txt"}`),
			modeltest.ToolCall("c2", "read_url", `{"url": "`+article+`"}`),
			modeltest.ToolCall("c3", "crawl", `{"url": "`+article+`", "search_query": "bridge"}`),
			modeltest.ToolCall("c4", "extract_text", `{"url": "`+article+`"}`),
			modeltest.ToolCall("c5", "crawl", `{"url": "http://192.168.7.7/"}`),
		}},
		modeltest.Response{Content: "Approved, with a pedestrian bridge."},
	)
	a, err := agent.New(agent.Config{Name: "Researcher", ID: "researcher", Model: fake, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	form := url.Values{"message": {"Summarize the park story."}, "stream": {"false"}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/agents/researcher/runs", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "COMPLETED" || out.Content != "Approved, with a pedestrian bridge." {
		t.Fatalf("run: %d %v %+v", resp.StatusCode, err, out)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	byID := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == model.RoleTool {
			byID[m.ToolCallID] = m.Content
		}
	}
	for id, want := range map[string]string{
		"c1": `"pages": [{"title": "Riverside park", "url": "` + article + `", "description": "The council vote", "section": "Stories"}], "total_pages": 1}`,
		"c2": "'content': 'The city council voted 7-2.'",
		"c3": "the bridge will be closed to cars",
		"c4": "SPRINGFIELD (EN) — The city council voted 7-2 on Thursday",
		"c5": "Error crawling http://192.168.7.7/: netguard: refused to connect to 192.168.7.7",
	} {
		if !strings.Contains(byID[id], want) {
			t.Errorf("tool call %s: the model read %q, want it to contain %q", id, byID[id], want)
		}
	}
	if strings.Contains(byID["c3"], "Opponents on the council") {
		t.Errorf("crawl's search_query kept unrelated passages: %s", byID["c3"])
	}
}
