package arxiv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	_ "github.com/agno-go/agno/tool/arxiv"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// makePDF writes a minimal PDF with one text line per page.
func makePDF(pages []string) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, text := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// entry is one Atom entry as the arXiv API user manual documents it
// (https://info.arxiv.org/help/api/user-manual.html#_details_of_atom_results_returned):
// id, published, title, summary, authors, arxiv:comment, the abstract
// and pdf links, arxiv:primary_category and categories.
func entry(base, id, summary string) string {
	return fmt.Sprintf(`<entry>
    <id>http://arxiv.org/abs/%[2]s</id>
    <updated>2021-03-05T01:23:45Z</updated>
    <published>2021-03-05T01:23:45Z</published>
    <title>Attention is not all you need:
      pure attention loses rank</title>
    <summary>  %[3]s
</summary>
    <author><name>Yihe Dong</name></author>
    <author><name>Jean-Baptiste Cordonnier</name></author>
    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">ICML 2021</arxiv:comment>
    <link href="http://arxiv.org/abs/%[2]s" rel="alternate" type="text/html"/>
    <link title="pdf" href="%[1]s/pdf/%[2]s" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`, base, id, summary)
}

func fakeArxiv(t *testing.T) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case r.URL.Path == "/api/query" && q.Get("search_query") == "fail":
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		case r.URL.Path == "/api/query":
			var entries []string
			summary := "We show that attention alone loses rank."
			if q.Get("search_query") == "big" {
				summary = strings.Repeat("rank ", 1000)
			}
			if ids := q.Get("id_list"); ids != "" {
				for _, id := range strings.Split(ids, ",") {
					entries = append(entries, entry(srv.URL, id, summary))
				}
			} else {
				for i := range 3 {
					entries = append(entries, entry(srv.URL, fmt.Sprintf("2103.0340%dv1", i), summary))
				}
			}
			w.Header().Set("Content-Type", "application/atom+xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query</title>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">%d</opensearch:totalResults>
  %s
</feed>`, len(entries), strings.Join(entries, "\n"))
		case r.URL.Path == "/pdf/9999.00000v1":
			http.Error(w, "gone", http.StatusNotFound)
		case strings.HasPrefix(r.URL.Path, "/pdf/"):
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(makePDF([]string{"Page one of " + strings.TrimPrefix(r.URL.Path, "/pdf/"), "Page two", "Page three"}))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's ArxivTools
// (tools/arxiv.py).
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "arxiv",
		Name:    "arxiv_tools",
		Functions: []tooltest.Function{
			{Name: "search_arxiv_and_return_articles", Args: []string{"query", "num_articles"}},
			{Name: "read_arxiv_papers", Args: []string{"id_list", "pages_to_read"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeArxiv(t)
			env.HTTPClient = webapitest.Client(t)
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 3000", srv.URL+"/api/query")
		},
		Failures: map[string][]tooltest.Call{
			"search_arxiv_and_return_articles": {{Args: `{"query": "fail"}`, Want: "503 Service Unavailable"}},
			// The paper whose PDF cannot be read is left out, as agno
			// logs and skips it.
			"read_arxiv_papers": {{Args: `{"id_list": ["9999.00000v1"]}`, Want: "[]"}},
		},
		Oversized: &tooltest.Oversized{Function: "search_arxiv_and_return_articles", Call: tooltest.Call{Args: `{"query": "big"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 3000},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "export.arxiv.org"`, Key: "base_url"},
			{Table: `timeout = -1`, Key: "timeout"},
		},
	})
}

func build(t *testing.T, table string) map[string]*tool.Function {
	t.Helper()
	tk, _ := tool.LookupToolkit("arxiv")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t), Dir: t.TempDir()}
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

func invoke(t *testing.T, f *tool.Function, args map[string]any) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return res.Content
}

// The search answers agno's article dicts (json.dumps indent=4): the
// title's whitespace collapsed, the short id, the pdf link, at most
// num_articles.
func TestSearch(t *testing.T) {
	srv := fakeArxiv(t)
	fns := build(t, fmt.Sprintf("base_url = %q", srv.URL+"/api/query"))
	got := invoke(t, fns["search_arxiv_and_return_articles"], map[string]any{"query": "attention", "num_articles": 1})
	want := `[
    {
        "title": "Attention is not all you need: pure attention loses rank",
        "id": "2103.03400v1",
        "entry_id": "http://arxiv.org/abs/2103.03400v1",
        "authors": [
            "Yihe Dong",
            "Jean-Baptiste Cordonnier"
        ],
        "primary_category": "cs.LG",
        "categories": [
            "cs.LG",
            "cs.AI"
        ],
        "published": "2021-03-05T01:23:45+00:00",
        "pdf_url": "` + srv.URL + `/pdf/2103.03400v1",
        "links": [
            "http://arxiv.org/abs/2103.03400v1",
            "` + srv.URL + `/pdf/2103.03400v1"
        ],
        "summary": "We show that attention alone loses rank.",
        "comment": "ICML 2021"
    }
]`
	if got != want {
		t.Errorf("search:\n%s\nwant\n%s", got, want)
	}
}

// Reading papers downloads each PDF (kept in download_dir) and answers
// its pages' text, at most pages_to_read.
func TestReadPapers(t *testing.T) {
	srv := fakeArxiv(t)
	dir := t.TempDir()
	fns := build(t, fmt.Sprintf("base_url = %q\ndownload_dir = %q", srv.URL+"/api/query", dir))
	got := invoke(t, fns["read_arxiv_papers"], map[string]any{"id_list": []any{"2103.03404v1", "9999.00000v1"}, "pages_to_read": 2})
	var arts []struct {
		ID      string `json:"id"`
		Content []struct {
			Page int    `json:"page"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(got), &arts); err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].ID != "2103.03404v1" || len(arts[0].Content) != 2 ||
		!strings.Contains(arts[0].Content[0].Text, "Page one of 2103.03404v1") || arts[0].Content[1].Page != 2 {
		t.Errorf("read: %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "2103.03404v1.pdf")); err != nil {
		t.Errorf("download_dir: %v", err)
	}
}
