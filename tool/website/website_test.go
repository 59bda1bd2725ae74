package website_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	"github.com/agno-go/agno/tool/tooltest"
	_ "github.com/agno-go/agno/tool/website"
)

// blog serves testdata/site, pages shaped like the Go blog
// (https://go.dev/blog/): an index linking to posts, posts linking on,
// and counts the requests per path.
type blog struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newBlog(t *testing.T) *blog {
	t.Helper()
	pages := map[string]string{
		"/blog/":                "index.html",
		"/blog/go1.26":          "go1.26.html",
		"/blog/range-functions": "range-functions.html",
		"/blog/deep/one":        "deep-one.html",
	}
	b := &blog{hits: map[string]int{}}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.hits[r.URL.Path]++
		b.mu.Unlock()
		switch r.URL.Path {
		case "/blog/deep/two":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<main>Deep page two.</main>"))
			return
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<main>" + strings.Repeat("All work and no play makes Jack a dull boy. ", 2000) + "</main>"))
			return
		case "/broken":
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		f, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile("testdata/site/" + f)
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(data)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *blog) visited() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for p := range b.hits {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func TestConformance(t *testing.T) {
	// One site for every check: the oversized call names its URL.
	srv := newBlog(t)
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "website",
		Name:      "website_tools",
		Functions: []tooltest.Function{{Name: "read_url", Args: []string{"url"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return "max_output_bytes = 4000\nmax_depth = 1"
		},
		Failures: map[string][]tooltest.Call{
			"read_url": {
				{Args: `{"url": "http://10.1.2.3/"}`, Want: "netguard: refused to connect to 10.1.2.3"},
				{Args: `{"url": "not a url"}`, Want: "invalid URL"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_url", Option: "max_output_bytes", Limit: 4000,
			Call: tooltest.Call{Args: `{"url": "` + srv.URL + `/big"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_depth = 0", Key: "max_depth"},
			{Table: "max_links = -1", Key: "max_links"},
			{Table: "timeout = 0", Key: "timeout"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
			{Table: "max_output_bytes = 0", Key: "max_output_bytes"},
		},
	})
}

// build makes the toolkit through the registry, as a config does.
func build(t *testing.T, env tool.ToolkitEnv, table string) *tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("website")
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
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
	return fns[0]
}

func call(t *testing.T, f *tool.Function, u string) (string, error) {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"url": u})
	return res.Content, err
}

type doc struct {
	Name     string         `json:"name"`
	MetaData map[string]any `json:"meta_data"`
	Content  string         `json:"content"`
}

func TestReadURLCrawlsTheSite(t *testing.T) {
	srv := newBlog(t)
	f := build(t, tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}, "")
	out, err := call(t, f, srv.URL+"/blog/")
	if err != nil {
		t.Fatal(err)
	}
	var docs []doc
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		t.Fatalf("read_url did not return agno's JSON list of documents: %v\n%s", err, out)
	}
	var urls []string
	for _, d := range docs {
		urls = append(urls, d.MetaData["url"].(string))
		if d.Name != srv.URL+"/blog/" {
			t.Errorf("document name %q, want the start URL (agno's WebsiteReader names every page so)", d.Name)
		}
		if strings.Contains(d.Content, "Copyright") || strings.Contains(d.Content, "dataLayer") {
			t.Errorf("%s: footer or script text kept: %q", d.MetaData["url"], d.Content)
		}
	}
	want := []string{srv.URL + "/blog/", srv.URL + "/blog/go1.26", srv.URL + "/blog/range-functions", srv.URL + "/blog/deep/one"}
	if !slices.Equal(urls, want) {
		t.Errorf("pages %q, want %q (breadth-first, 3 deep, no .png, no other domain)", urls, want)
	}
	if !strings.Contains(out, "Today the Go team is happy to release Go 1.26.") {
		t.Errorf("the post's text is missing:\n%s", out)
	}
	if got := srv.visited(); slices.Contains(got, "/blog/deep/two") || slices.Contains(got, "/blog/logo.png") {
		t.Errorf("fetched %q: past max_depth or a skipped file", got)
	}
}

func TestReadURLBounds(t *testing.T) {
	srv := newBlog(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	out, err := call(t, build(t, env, "max_links = 2"), srv.URL+"/blog/")
	if err != nil {
		t.Fatal(err)
	}
	var docs []doc
	_ = json.Unmarshal([]byte(out), &docs)
	if len(docs) != 2 {
		t.Errorf("max_links = 2 gave %d documents", len(docs))
	}
	// A page past max_bytes is refused, not read in part.
	_, err = call(t, build(t, env, "max_bytes = 1000"), srv.URL+"/big")
	if err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("a page past max_bytes: %v", err)
	}
	_, err = call(t, build(t, env, ""), srv.URL+"/broken")
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("a 500: %v", err)
	}
}

// Without loopback allowed the guard refuses the site, and the model
// reads the refusal, with the setting that would allow it.
func TestReadURLRefusesInternalAddresses(t *testing.T) {
	srv := newBlog(t)
	f := build(t, tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t)}, "")
	_, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, f.DecodeArguments(`{"url": "`+srv.URL+`/blog/"}`))
	if err == nil || !strings.Contains(err.Error(), "netguard: refused to connect to 127.0.0.1") {
		t.Fatalf("read_url of a loopback site: %v, want the guard's refusal", err)
	}
	if len(srv.visited()) != 0 {
		t.Errorf("the site was reached: %q", srv.visited())
	}
}

type fakeKB struct{ inputs []knowledge.Input }

func (k *fakeKB) Insert(_ context.Context, in knowledge.Input) ([]*knowledge.Content, error) {
	if strings.Contains(in.URL, "fail") {
		return nil, errors.New("knowledge: fetching failed")
	}
	k.inputs = append(k.inputs, in)
	return []*knowledge.Content{{URL: in.URL}}, nil
}

func TestKnowledgeOption(t *testing.T) {
	kb := &fakeKB{}
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t), Resolve: func(kind, name string) (any, error) {
		if kind != tool.ResourceKnowledge || name != "docs" {
			return nil, errors.New("no such knowledge base")
		}
		return kb, nil
	}}
	f := build(t, env, `knowledge = "docs"`)
	if f.Name != "add_website_to_knowledge" {
		t.Fatalf("with knowledge set the tool is %q, want add_website_to_knowledge (agno offers it instead of read_url)", f.Name)
	}
	out, err := call(t, f, "https://docs.agno.com/introduction")
	if err != nil || out != "Success" {
		t.Fatalf("add_website_to_knowledge = %q, %v", out, err)
	}
	if len(kb.inputs) != 1 || kb.inputs[0].URL != "https://docs.agno.com/introduction" {
		t.Errorf("inserted %+v", kb.inputs)
	}
	if _, err := call(t, f, "https://fail.example/"); err == nil {
		t.Error("a failed insert is not an error")
	}

	rt, _ := tool.LookupToolkit("website")
	opts := rt.DefaultOptions(env)
	_, _ = toml.Decode(`knowledge = "nope"`, opts)
	if _, err := rt.New(env, opts); err == nil || !strings.Contains(err.Error(), `knowledge = "nope"`) {
		t.Errorf("an unknown knowledge base: %v", err)
	}
}
