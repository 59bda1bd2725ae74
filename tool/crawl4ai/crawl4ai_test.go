package crawl4ai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/crawl4ai"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	"github.com/agno-go/agno/tool/tooltest"
)

// docsSite serves a Material for MkDocs site (see
// testdata/docs-page.html's comment): every page has the same layout,
// its title taken from the path; it records the paths served.
type docsSite struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	// blog replaces the page's link to another host's blog.
	blog string
}

func newDocs(t *testing.T) *docsSite {
	t.Helper()
	page, err := os.ReadFile("testdata/docs-page.html")
	if err != nil {
		t.Fatal(err)
	}
	d := &docsSite{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.paths = append(d.paths, r.URL.Path)
		blog := d.blog
		d.mu.Unlock()
		switch r.URL.Path {
		case "/", "/install/", "/config/", "/api/":
			title := map[string]string{"/": "Home", "/install/": "Installation", "/config/": "Configuration", "/api/": "API reference"}[r.URL.Path]
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			html := strings.Replace(string(page), `<h1 id="configuration">Configuration</h1>`, "<h1>"+title+"</h1>", 1)
			html = strings.Replace(html, "<title>Configuration - Tidewater Docs</title>", "<title>"+title+" - Tidewater Docs</title>", 1)
			if blog != "" {
				html = strings.Replace(html, "https://other.example/blog/", blog, 1)
			}
			_, _ = w.Write([]byte(html))
		case "/changelog.txt":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("v1.2.0: alerts over webhooks\nv1.1.0: PostgreSQL storage"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *docsSite) served() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.paths)
}

func TestConformance(t *testing.T) {
	d := newDocs(t)
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "crawl4ai",
		Name:      "crawl4ai_tools",
		Functions: []tooltest.Function{{Name: "crawl", Args: []string{"url", "search_query"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return "max_length = 0\nmax_output_bytes = 1500"
		},
		Failures: map[string][]tooltest.Call{
			"crawl": {
				{Args: `{"url": ""}`, Want: "Error: No URL provided"},
				{Args: `{"url": "` + d.URL + `/missing"}`, Want: "Error crawling " + d.URL + "/missing: Client error '404 Not Found'"},
				{Args: `{"url": "http://10.4.4.4/"}`, Want: "Error crawling http://10.4.4.4/: netguard: refused to connect to 10.4.4.4"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "crawl", Option: "max_output_bytes", Limit: 1500,
			Call: tooltest.Call{Args: `{"url": ["` + d.URL + `/config/", "` + d.URL + `/api/", "` + d.URL + `/install/"]}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_length = -1", Key: "max_length"},
			{Table: "timeout = 0", Key: "timeout"},
			{Table: "pruning_threshold = 2.0", Key: "pruning_threshold"},
			{Table: "bm25_threshold = -1.0", Key: "bm25_threshold"},
			{Table: "max_depth = 9", Key: "max_depth"},
			{Table: "max_pages = 0", Key: "max_pages"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
			{Table: "max_output_bytes = 0", Key: "max_output_bytes"},
		},
	})
}

func crawl(t *testing.T, env tool.ToolkitEnv, tbl, args string) string {
	t.Helper()
	rt, _ := tool.LookupToolkit("crawl4ai")
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
	res, err := fns[0].InvokeArgs(context.Background(), &tool.Call{Function: fns[0]}, fns[0].DecodeArguments(args))
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestCrawlMarkdown(t *testing.T) {
	d := newDocs(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	out := crawl(t, env, "max_length = 0", `{"url": "`+d.URL+`/config/"}`)
	for _, want := range []string{
		"# Configuration - Tidewater Docs\n\nTidewater reads",
		"Tidewater reads its settings from `tidewater.toml` in the working directory.",
		"## Storage", "The **storage** table", "```\n[storage]\ndriver = \"sqlite\"",
		"*high_water*", "- high_water: the level that triggers a flood alert",
		"[API reference](" + d.URL + "/api/)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, out)
		}
	}
	for _, clutter := range []string{"Made with Material", "Previous: Installation", "bundle.js", "Search"} {
		if strings.Contains(out, clutter) {
			t.Errorf("the Markdown keeps %q:\n%s", clutter, out)
		}
	}
	if got := crawl(t, env, "max_length = 40", `{"url": "`+d.URL+`/config/"}`); got != "# Configuration - Tidewater Docs\n\nTidewa..." {
		t.Errorf("max_length = 40: %q", got)
	}
	if got := crawl(t, env, "", `{"url": "`+d.URL+`/changelog.txt"}`); got != "v1.2.0: alerts over webhooks\nv1.1.0: PostgreSQL storage" {
		t.Errorf("plain text: %q", got)
	}
}

func TestCrawlListAndQuery(t *testing.T) {
	d := newDocs(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	out := crawl(t, env, "max_length = 20", `{"url": ["`+d.URL+`/config/", "`+d.URL+`/gone"]}`)
	want := "{'" + d.URL + "/config/': '# Configuration - Ti...', '" + d.URL + "/gone': \"Error crawling " + d.URL + "/gone: Client error '404 Not Found' for url '" + d.URL + "/gone'\\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404\"}"
	if out != want {
		t.Errorf("a list of URLs:\n%s\nwant agno's dict:\n%s", out, want)
	}
	q := crawl(t, env, "max_length = 0", `{"url": "`+d.URL+`/config/", "search_query": "postgresql storage"}`)
	if !strings.Contains(q, "PostgreSQL is recommended") || strings.Contains(q, "Alerts fire") {
		t.Errorf("search_query keeps other passages or drops the match:\n%s", q)
	}
	pruned := crawl(t, env, "max_length = 0\nuse_pruning = true", `{"url": "`+d.URL+`/config/"}`)
	if !strings.Contains(pruned, "Alerts fire when") {
		t.Errorf("pruning dropped the text:\n%s", pruned)
	}
}

// With max_depth the crawl follows links on the start URL's host only,
// breadth-first, one page at a time, up to max_pages.
func TestCrawlBounds(t *testing.T) {
	d := newDocs(t)
	other := newDocs(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}

	out := crawl(t, env, "max_length = 0\nmax_depth = 1\nmax_pages = 3", `{"url": "`+d.URL+`/config/"}`)
	if got := d.served(); !slices.Equal(got, []string{"/config/", "/", "/install/"}) {
		t.Errorf("fetched %q, want the start page and two more (max_pages = 3)", got)
	}
	if !strings.HasPrefix(out, "## "+d.URL+"/config/\n\n# Configuration - Tidewater Docs") || !strings.Contains(out, "## "+d.URL+"/install/\n\n# Installation - Tidewater Docs") {
		t.Errorf("pages are not sectioned by URL:\n%.300s", out)
	}

	// The pages link to another host (the second server, on the same
	// address but another port): never followed.
	d.mu.Lock()
	d.paths, d.blog = nil, other.URL+"/"
	d.mu.Unlock()
	crawl(t, env, "max_depth = 2\nmax_pages = 50", `{"url": "`+d.URL+`/"}`)
	got := d.served()
	slices.Sort(got)
	if !slices.Equal(got, []string{"/", "/api/", "/config/", "/install/"}) {
		t.Errorf("max_depth = 2 fetched %q, want each page of the site once", got)
	}
	if len(other.served()) != 0 {
		t.Errorf("another host was crawled: %q", other.served())
	}

	d.mu.Lock()
	d.paths = nil
	d.mu.Unlock()
	crawl(t, env, "max_pages = 2", `{"url": ["`+d.URL+`/", "`+d.URL+`/api/", "`+d.URL+`/install/"]}`)
	if got := d.served(); len(got) != 2 {
		t.Errorf("max_pages = 2 over a list fetched %q", got)
	}
}
