package llmstxt_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	_ "github.com/agno-go/agno/tool/llmstxt"
	"github.com/agno-go/agno/tool/tooltest"
)

// docs serves a documentation site with an llms.txt in the format of
// https://llmstxt.org (an H1, a blockquote summary, details, then "##"
// sections of "- [title](url): notes" links, an "Optional" section
// last), its Markdown pages, and an HTML page.
func docs(t *testing.T) *httptest.Server {
	t.Helper()
	index, _ := os.ReadFile("testdata/llms.txt")
	page, err := os.ReadFile("testdata/config.html")
	if err != nil {
		t.Fatal(err)
	}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		md := map[string]string{
			"/docs/install.md":    "# Installation\n\nDownload `tidewater` for your platform.",
			"/docs/quickstart.md": "# Quick start\n\nRun `tidewater serve`.",
			"/docs/api.md":        "# HTTP API\n\nGET /readings lists readings.",
			"/docs/changelog.md":  "# Changelog\n\n1.2.0: webhooks.",
		}
		switch {
		case r.URL.Path == "/llms.txt":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte(strings.ReplaceAll(string(index), "https://docs.tidewater.test", srv.URL)))
		case r.URL.Path == "/docs/config.html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write(page)
		case r.URL.Path == "/old/llms.txt":
			http.Redirect(w, r, "/llms.txt", http.StatusFound)
		case r.URL.Path == "/away/llms.txt":
			http.Redirect(w, r, "http://localhost:1/llms.txt", http.StatusFound)
		case r.URL.Path == "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte("\x89PNG\r\n"))
		case r.URL.Path == "/big.md":
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = w.Write([]byte(strings.Repeat("Tide tables for every port. ", 500)))
		case md[r.URL.Path] != "":
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			_, _ = w.Write([]byte(md[r.URL.Path]))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestConformance(t *testing.T) {
	srv := docs(t)
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "llms_txt",
		Name:    "llms_txt_tools",
		Functions: []tooltest.Function{
			{Name: "get_llms_txt_index", Args: []string{"url"}},
			{Name: "read_llms_txt_url", Args: []string{"url"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return "max_output_bytes = 2000"
		},
		Failures: map[string][]tooltest.Call{
			"get_llms_txt_index": {{Args: `{"url": "` + srv.URL + `/missing.txt"}`, Want: "Failed to fetch llms.txt from " + srv.URL + "/missing.txt"}},
			"read_llms_txt_url": {
				{Args: `{"url": "` + srv.URL + `/logo.png"}`, Want: "Failed to fetch content from " + srv.URL + "/logo.png"},
				{Args: `{"url": "http://10.3.3.3/docs"}`, Want: "Failed to fetch content from http://10.3.3.3/docs"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_llms_txt_url", Option: "max_output_bytes", Limit: 2000,
			Call: tooltest.Call{Args: `{"url": "` + srv.URL + `/big.md"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_urls = 0", Key: "max_urls"},
			{Table: "timeout = 0", Key: "timeout"},
			{Table: `allowed_hosts = ["https://docs.example.com/"]`, Key: "allowed_hosts[0]"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
			{Table: "max_output_bytes = 0", Key: "max_output_bytes"},
		},
	})
}

func build(t *testing.T, env tool.ToolkitEnv, tbl string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("llms_txt")
	opts := rt.DefaultOptions(env)
	md, err := toml.Decode(tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, func(k string) bool { return md.IsDefined(k) }); err != nil {
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

func call(t *testing.T, f *tool.Function, u string) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"url": u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestIndexAndPages(t *testing.T) {
	srv := docs(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	fns := build(t, env, "")
	out := call(t, fns["get_llms_txt_index"], srv.URL+"/old/llms.txt")
	want := `{"overview": "# Tidewater\n\n> Tidewater records tide gauge readings and raises alerts when the water crosses a threshold.\n\nTidewater is a single binary with an embedded web UI. These docs cover installation, configuration and the HTTP API.", "pages": [` +
		`{"title": "Installation", "url": "` + srv.URL + `/docs/install.md", "description": "Download the binary or run the container image", "section": "Docs"}, ` +
		`{"title": "Configuration", "url": "` + srv.URL + `/docs/config.html", "description": "Every key of tidewater.toml", "section": "Docs"}, ` +
		`{"title": "Quick start", "url": "` + srv.URL + `/old/docs/quickstart.md", "description": "", "section": "Docs"}, ` +
		`{"title": "HTTP API", "url": "` + srv.URL + `/docs/api.md", "description": "Endpoints for readings and alerts", "section": "API"}, ` +
		`{"title": "Changelog", "url": "` + srv.URL + `/docs/changelog.md", "description": "Release history", "section": "Optional"}], "total_pages": 5}`
	if out != want {
		t.Errorf("index:\n%s\nwant\n%s", out, want)
	}
	var idx struct {
		TotalPages int `json:"total_pages"`
	}
	_ = json.Unmarshal([]byte(call(t, build(t, env, "skip_optional = true")["get_llms_txt_index"], srv.URL+"/llms.txt")), &idx)
	if idx.TotalPages != 4 {
		t.Errorf("skip_optional: %d pages", idx.TotalPages)
	}
	if got := call(t, fns["read_llms_txt_url"], srv.URL+"/docs/api.md"); got != "# HTTP API\n\nGET /readings lists readings." {
		t.Errorf("markdown page: %q", got)
	}
	if got := call(t, fns["read_llms_txt_url"], srv.URL+"/docs/config.html"); got != "Configuration\nTidewater reads\ntidewater.toml\n.\nEvery key can be set from the environment." {
		t.Errorf("HTML page: %q", got)
	}
}

func TestAllowedHosts(t *testing.T) {
	srv := docs(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	fns := build(t, env, `allowed_hosts = ["127.0.0.1"]`)
	if got := call(t, fns["read_llms_txt_url"], "https://docs.other.test/llms.txt"); got != "Host is not in allowed_hosts; refusing to fetch https://docs.other.test/llms.txt" {
		t.Errorf("a host outside allowed_hosts: %q", got)
	}
	if got := call(t, fns["get_llms_txt_index"], srv.URL+"/llms.txt"); !strings.Contains(got, `"total_pages": 5`) {
		t.Errorf("an allowed host: %q", got)
	}
	// A redirect to a host outside allowed_hosts is refused at the hop.
	if got := call(t, fns["get_llms_txt_index"], srv.URL+"/away/llms.txt"); got != "Failed to fetch llms.txt from "+srv.URL+"/away/llms.txt" {
		t.Errorf("a redirect away: %q", got)
	}
	if got := call(t, build(t, env, "allowed_hosts = []")["read_llms_txt_url"], srv.URL+"/docs/api.md"); !strings.HasPrefix(got, "Host is not in allowed_hosts") {
		t.Errorf("allowed_hosts = [] allows %q", got)
	}
}

// loader inserts the way a Knowledge does with a reader given: it reads
// the URL with it.
type loader struct{ docs []*document.Document }

func (l *loader) Insert(ctx context.Context, in knowledge.Input) ([]*knowledge.Content, error) {
	docs, err := in.Reader.Read(ctx, reader.Source{URL: in.URL})
	l.docs = append(l.docs, docs...)
	return []*knowledge.Content{{URL: in.URL}}, err
}

func TestLoadKnowledge(t *testing.T) {
	srv := docs(t)
	kb := &loader{}
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1"), Resolve: func(kind, name string) (any, error) { return kb, nil }}
	fns := build(t, env, "knowledge = \"docs\"\nmax_urls = 3")
	if len(fns) != 1 || fns["read_llms_txt_and_load_knowledge"] == nil {
		t.Fatalf("with knowledge the toolkit has %v, want only read_llms_txt_and_load_knowledge", fns)
	}
	if got := call(t, fns["read_llms_txt_and_load_knowledge"], srv.URL+"/llms.txt"); got != "Successfully loaded documentation from "+srv.URL+"/llms.txt into the knowledge base" {
		t.Errorf("load: %q", got)
	}
	var kinds, names []string
	for _, d := range kb.docs {
		kinds = append(kinds, d.MetaData["type"].(string))
		names = append(names, d.Name)
	}
	if strings.Join(kinds, ",") != "llms_txt_overview,llms_txt_linked_doc,llms_txt_linked_doc,llms_txt_linked_doc" ||
		strings.Join(names, ",") != srv.URL+"/llms.txt,Installation,Configuration,Quick start" {
		t.Errorf("documents %q %q: want the overview and the pages of the first max_urls (3) links, not HTTP API", kinds, names)
	}
}
