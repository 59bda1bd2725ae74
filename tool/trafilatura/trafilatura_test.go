package trafilatura_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	"github.com/agno-go/agno/tool/tooltest"
	_ "github.com/agno-go/agno/tool/trafilatura"
)

// kitchen is a WordPress blog (see testdata/post.html's comment): a home
// page listing posts, each post page, a PDF, a plain-text page; it
// records the paths it served, in order.
type kitchen struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newKitchen(t *testing.T) *kitchen {
	t.Helper()
	home, _ := os.ReadFile("testdata/home.html")
	post, err := os.ReadFile("testdata/post.html")
	if err != nil {
		t.Fatal(err)
	}
	k := &kitchen{}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.paths = append(k.paths, r.URL.Path)
		k.mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			_, _ = w.Write(home)
		case "/2025/11/sourdough-at-altitude/", "/2025/10/boiling-point/", "/2025/09/jam/", "/recipes/", "/about/":
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			_, _ = w.Write(post)
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body><article><h1>Big</h1>" + strings.Repeat("<p>"+strings.Repeat("Knead the dough until smooth and elastic. ", 30)+"</p>", 60) + "</article></body></html>"))
		case "/files/altitude-chart.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(k.Close)
	return k
}

func (k *kitchen) served() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.paths)
}

func TestConformance(t *testing.T) {
	k := newKitchen(t)
	post := k.URL + "/2025/11/sourdough-at-altitude/"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "trafilatura",
		Name:    "trafilatura_tools",
		Functions: []tooltest.Function{
			{Name: "extract_text", Args: []string{"url", "output_format"}},
			{Name: "extract_metadata_only", Args: []string{"url", "as_json"}},
			{Name: "html_to_text", Args: []string{"html_content", "clean"}},
			{Name: "extract_batch", Args: []string{"urls"}},
			{Name: "crawl_website", Args: []string{"homepage_url", "extract_content"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return "max_output_bytes = 2000\nmax_crawl_urls = 2"
		},
		Failures: map[string][]tooltest.Call{
			"extract_text": {
				{Args: `{"url": "` + k.URL + `/missing"}`, Want: "Error: Could not fetch content from URL: " + k.URL + "/missing"},
				{Args: `{"url": "` + k.URL + `/files/altitude-chart.pdf"}`, Want: "Error: Could not extract readable content from URL"},
				{Args: `{"url": "` + post + `", "output_format": "xmltei"}`, Want: `Error extracting text from ` + post + `: output format "xmltei" is not supported here`},
			},
			"extract_metadata_only": {{Args: `{"url": "http://10.0.0.7/"}`, Want: "Error: Could not fetch content from URL: http://10.0.0.7/"}},
			"html_to_text":          {{Args: `{"html_content": "<html><body><script>x()</script></body></html>"}`, Want: "Error: Could not extract text from HTML content"}},
			"extract_batch":         {{Args: `{"urls": ["` + k.URL + `/missing"]}`, Want: `"failed_urls": [` + "\n    \"" + k.URL + `/missing"`}},
			"crawl_website":         {{Args: `{"homepage_url": "http://10.0.0.7/"}`, Want: "Error crawling website http://10.0.0.7/: netguard: refused to connect to 10.0.0.7"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "extract_text", Option: "max_output_bytes", Limit: 2000,
			Call: tooltest.Call{Args: `{"url": "` + k.URL + `/big"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `output_format = "xml"`, Key: "output_format"},
			{Table: "max_tree_size = -1", Key: "max_tree_size"},
			{Table: "max_crawl_urls = 0", Key: "max_crawl_urls"},
			{Table: "max_known_urls = 0", Key: "max_known_urls"},
			{Table: "timeout = 0", Key: "timeout"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
			{Table: "max_output_bytes = 0", Key: "max_output_bytes"},
		},
	})
}

func tools(t *testing.T, env tool.ToolkitEnv, tbl string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("trafilatura")
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(tbl, opts); err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
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

func call(t *testing.T, f *tool.Function, args string) string {
	t.Helper()
	res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, f.DecodeArguments(args))
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestExtractText(t *testing.T) {
	k := newKitchen(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	post := k.URL + "/2025/11/sourdough-at-altitude/"
	fns := tools(t, env, "")
	txt := call(t, fns["extract_text"], `{"url": "`+post+`"}`)
	if !strings.HasPrefix(txt, "Bakers who move to the mountains") || !strings.Contains(txt, "more frequent feedings") {
		t.Errorf("txt:\n%s", txt)
	}
	for _, clutter := range []string{"Proudly powered", "Recipes", "wp-embed", "max-width"} {
		if strings.Contains(txt, clutter) {
			t.Errorf("txt keeps %q:\n%s", clutter, txt)
		}
	}

	var doc map[string]any
	js := call(t, fns["extract_text"], `{"url": "`+post+`", "output_format": "json"}`)
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, js)
	}
	if doc["title"] != "Sourdough at altitude: what changes above 2000 m" || doc["date"] != "2025-11-02" || doc["source"] != post ||
		doc["hostname"] != "127.0.0.1" || doc["source-hostname"] != "The Mountain Kitchen" || !strings.HasPrefix(doc["text"].(string), "Bakers") {
		t.Errorf("json: %s", js)
	}
	if !strings.HasPrefix(js, `{"title": `) {
		t.Errorf("json keys not in trafilatura's order: %.80s", js)
	}

	meta := call(t, tools(t, env, "with_metadata = true")["extract_text"], `{"url": "`+post+`"}`)
	if !strings.HasPrefix(meta, "---\ntitle: Sourdough at altitude: what changes above 2000 m\n") || !strings.Contains(meta, "\ndate: 2025-11-02\n---\nBakers") {
		t.Errorf("with_metadata:\n%s", meta)
	}
	if h := call(t, fns["extract_text"], `{"url": "`+post+`", "output_format": "html"}`); !strings.HasPrefix(h, "<html><body>") || !strings.Contains(h, "<p>Bakers who move") {
		t.Errorf("html: %.200s", h)
	}
	if got := call(t, fns["extract_text"], `{"url": "`+k.URL+`/robots.txt"}`); got != "User-agent: *\nAllow: /" {
		t.Errorf("plain text passes through: %q", got)
	}
	if got := call(t, tools(t, env, `target_language = "de"`)["extract_text"], `{"url": "`+post+`"}`); got != "Error: Could not extract readable content from URL: "+post {
		t.Errorf("an English page with target_language de: %q", got)
	}
}

func TestExtractMetadataOnlyAndHTMLToText(t *testing.T) {
	k := newKitchen(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	post := k.URL + "/2025/11/sourdough-at-altitude/"
	fns := tools(t, env, "")
	out := call(t, fns["extract_metadata_only"], `{"url": "`+post+`"}`)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m["title"] != "Sourdough at altitude: what changes above 2000 m" || m["author"] != "Lena Berg" || m["sitename"] != "The Mountain Kitchen" ||
		m["description"] != "Why sourdough rises faster and dries out sooner at altitude, and how to adjust hydration, proofing and baking." ||
		m["url"] != post || m["language"] != "en-US" || m["text"] != nil || len(m) != 21 {
		t.Errorf("metadata: %s", out)
	}
	text := call(t, fns["extract_metadata_only"], `{"url": "`+post+`", "as_json": false}`)
	if !strings.HasPrefix(text, "title: Sourdough at altitude") || !strings.Contains(text, "\nfingerprint: None\n") || !strings.Contains(text, "\ncategories: []\n") {
		t.Errorf("as_json false:\n%s", text)
	}

	page, _ := os.ReadFile("testdata/post.html")
	arg, _ := json.Marshal(map[string]any{"html_content": string(page)})
	clean := call(t, fns["html_to_text"], string(arg))
	if strings.Contains(clean, "wp-embed") || strings.Contains(clean, "Recipes") || !strings.Contains(clean, "Bakers who move to the mountains often find") || strings.Contains(clean, "  ") {
		t.Errorf("html_to_text clean:\n%s", clean)
	}
	arg, _ = json.Marshal(map[string]any{"html_content": string(page), "clean": false})
	if raw := call(t, fns["html_to_text"], string(arg)); !strings.Contains(raw, "Recipes About") {
		t.Errorf("html_to_text clean=false drops the navigation:\n%s", raw)
	}
}

func TestExtractBatch(t *testing.T) {
	k := newKitchen(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	post := k.URL + "/2025/11/sourdough-at-altitude/"
	out := call(t, tools(t, env, "")["extract_batch"], `{"urls": ["`+post+`", "`+k.URL+`/missing", "http://10.0.0.7/"]}`)
	var r struct {
		Successful int               `json:"successful_extractions"`
		Failed     int               `json:"failed_extractions"`
		Total      int               `json:"total_urls"`
		Results    map[string]string `json:"results"`
		FailedURLs []string          `json:"failed_urls"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Successful != 1 || r.Failed != 2 || r.Total != 3 || !strings.HasPrefix(r.Results[post], "Bakers") ||
		!slices.Equal(r.FailedURLs, []string{k.URL + "/missing", "http://10.0.0.7/"}) {
		t.Errorf("batch: %s", out)
	}
	if !strings.HasPrefix(out, "{\n  \"successful_extractions\": 1,\n  \"failed_extractions\": 2,\n  \"total_urls\": 3,\n  \"results\": {") {
		t.Errorf("not agno's key order and indent: %.120s", out)
	}
}

// The crawl stays on the homepage's host, skips files, fetches one page
// at a time and stops at max_crawl_urls pages and max_known_urls links.
func TestCrawlWebsiteBounds(t *testing.T) {
	k := newKitchen(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	out := call(t, tools(t, env, "max_crawl_urls = 2")["crawl_website"], `{"homepage_url": "`+k.URL+`/"}`)
	var r struct {
		Homepage   string   `json:"homepage"`
		ToVisit    []string `json:"to_visit"`
		KnownLinks []string `json:"known_links"`
		Stats      struct {
			URLsToVisit int `json:"urls_to_visit"`
			Known       int `json:"known_links_count"`
		} `json:"stats"`
		Extracted map[string]string `json:"extracted_content"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantKnown := []string{k.URL + "/", k.URL + "/recipes/", k.URL + "/about/", k.URL + "/2025/11/sourdough-at-altitude/", k.URL + "/2025/10/boiling-point/", k.URL + "/2025/09/jam/"}
	if !slices.Equal(r.KnownLinks, wantKnown) {
		t.Errorf("known_links %q, want %q (same host, no files, no fragments)", r.KnownLinks, wantKnown)
	}
	if got := k.served(); !slices.Equal(got, []string{"/", "/recipes/"}) {
		t.Errorf("fetched %q, want the homepage and one more page (max_crawl_urls = 2)", got)
	}
	if len(r.ToVisit) != 4 || r.Stats.URLsToVisit != 4 || r.Stats.Known != 6 || r.Extracted != nil {
		t.Errorf("crawl: %s", out)
	}

	k.mu.Lock()
	k.paths = nil
	k.mu.Unlock()
	out = call(t, tools(t, env, "max_crawl_urls = 5\nmax_known_urls = 3")["crawl_website"], `{"homepage_url": "`+k.URL+`/", "extract_content": true}`)
	r.Extracted, r.KnownLinks = nil, nil
	_ = json.Unmarshal([]byte(out), &r)
	if len(r.KnownLinks) != 3 || len(r.Extracted) != 3 || !strings.HasPrefix(r.Extracted[k.URL+"/recipes/"], "Bakers") {
		t.Errorf("max_known_urls = 3 with extract_content: %s", out)
	}
	for _, p := range k.served() {
		if strings.HasSuffix(p, ".pdf") || strings.HasSuffix(p, ".jpg") {
			t.Errorf("the crawl fetched a file: %s", p)
		}
	}
}
