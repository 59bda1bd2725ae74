package reader

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestText(t *testing.T) {
	p := write(t, t.TempDir(), "notes.v2.txt", "one two three four")
	r, _ := NewText(Options{ChunkSize: 9})
	docs, err := r.Read(t.Context(), Source{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	// Named after the stem, id "<uuid>_<n>" from the FixedSize chunker.
	if !slices.Equal(contents(docs), []string{"one two", " three", " four"}) {
		t.Fatalf("chunks %q", contents(docs))
	}
	if docs[0].Name != "notes.v2" || !strings.HasSuffix(docs[0].ID, "_1") || len(docs[0].ID) != 38 {
		t.Errorf("first chunk name %q id %q", docs[0].Name, docs[0].ID)
	}
	if docs[0].MetaData["chunk"] != 1 || docs[0].MetaData["chunk_size"] != 7 {
		t.Errorf("chunk metadata %v", docs[0].MetaData)
	}
	r, _ = NewText(Options{DisableChunking: true})
	docs, _ = r.Read(t.Context(), Source{Data: []byte("bytes in \xff memory")})
	if len(docs) != 1 || docs[0].Name != "text_file" || docs[0].Content != "bytes in \ufffd memory" {
		t.Errorf("unchunked bytes: %+v", docs)
	}
	if _, err := r.Read(t.Context(), Source{}); err == nil {
		t.Error("empty source read without error")
	}
	if _, err := r.Read(t.Context(), Source{Path: filepath.Join(t.TempDir(), "missing.txt")}); err == nil {
		t.Error("missing file read without error")
	}
}

func TestMarkdownUsesMarkdownChunker(t *testing.T) {
	text := "# A\n" + strings.Repeat("alpha ", 10) + "\n# B\n" + strings.Repeat("beta ", 10)
	r, _ := NewMarkdown(Options{ChunkSize: 70})
	docs, err := r.Read(t.Context(), Source{Data: []byte(text), Name: "guide.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || !strings.HasPrefix(docs[0].Content, "# A") || !strings.HasPrefix(docs[1].Content, "# B") {
		t.Errorf("markdown chunks: %q", contents(docs))
	}
	split, _ := chunk.NewMarkdown(chunk.MarkdownConfig{SplitOnHeadings: 1})
	r, _ = NewMarkdown(Options{Chunker: split})
	docs, _ = r.Read(t.Context(), Source{Data: []byte(text)})
	if len(docs) != 2 || docs[0].Name != "file" {
		t.Errorf("custom chunker: %q name %q", contents(docs), docs[0].Name)
	}
}

func contents(docs []*document.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Content)
	}
	return out
}

func TestCSV(t *testing.T) {
	p := write(t, t.TempDir(), "people.csv", "\ufeffname,city\n\"Lovelace, Ada\",London\n\nbob,  Paris\n")
	r, _ := NewCSV(CSVOptions{})
	docs, err := r.Read(t.Context(), Source{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"name, city", "Lovelace, Ada, London", "bob, Paris"}
	if !slices.Equal(contents(docs), want) {
		t.Fatalf("rows %q, want %q", contents(docs), want)
	}
	if docs[1].MetaData["row_number"] != 2 || docs[0].Name != "people" || !strings.HasSuffix(docs[2].ID, "_3") {
		t.Errorf("row doc %+v", docs[1])
	}
	r, _ = NewCSV(CSVOptions{Delimiter: ';', Options: Options{DisableChunking: true}})
	docs, _ = r.Read(t.Context(), Source{Data: []byte("a;b\nc;d\n")})
	if len(docs) != 1 || docs[0].Content != "a, b\nc, d\n" || docs[0].Name != "csv_file" {
		t.Errorf("unchunked csv %q", contents(docs))
	}
}

func TestJSON(t *testing.T) {
	r, _ := NewJSON(Options{DisableChunking: true})
	docs, err := r.Read(t.Context(), Source{Data: []byte(`[{"z": 1, "a": "é", "f": 1.50}, {"b": [true, null]}]`), Name: "items"})
	if err != nil {
		t.Fatal(err)
	}
	// json.dumps(item, ensure_ascii=False): file key order, ", " and ": ".
	want := []string{`{"z": 1, "a": "é", "f": 1.5}`, `{"b": [true, null]}`}
	if !slices.Equal(contents(docs), want) || docs[1].MetaData["page"] != 2 {
		t.Errorf("json docs %q meta %v, want %q", contents(docs), docs[1].MetaData, want)
	}
	docs, _ = r.Read(t.Context(), Source{Data: []byte(`{"only": "object"}`)})
	if len(docs) != 1 || docs[0].MetaData["page"] != 1 || docs[0].Name != "json_file" {
		t.Errorf("object: %+v", docs)
	}
	if _, err := r.Read(t.Context(), Source{Data: []byte(`{broken`)}); err == nil {
		t.Error("broken JSON read without error")
	}
}

const homePage = `<!doctype html><html><head><title>Site</title><script>var x = 1;</script><style>p{}</style></head>
<body><header>Top bar</header><nav><a href="/a">A</a> <a href="b#frag">B</a> <a href="/img.png">img</a> <a href="http://elsewhere.test/x">out</a></nav>
<main><h1>Main title</h1><p>  Real   content
here. </p><footer>foot</footer><!-- note --></main></body></html>`

func TestHTMLMainContent(t *testing.T) {
	r, _ := NewHTML(HTMLOptions{})
	docs, err := r.Read(t.Context(), Source{Data: []byte(homePage), Name: "index"})
	if err != nil {
		t.Fatal(err)
	}
	// Text pieces are stripped (inner whitespace stays) and joined by one
	// space; the chunker then collapses the whitespace.
	if len(docs) != 1 || docs[0].Content != "Main title Real content here." {
		t.Errorf("main content %q", contents(docs))
	}
	// No main element: the whole page without script, style, nav, header
	// and footer.
	docs, _ = r.Read(t.Context(), Source{Data: []byte(`<html><head><title>T</title></head><body><div>Body <b>bold</b></div><footer>f</footer></body></html>`)})
	if docs[0].Content != "T Body bold" {
		t.Errorf("whole page %q", docs[0].Content)
	}
	docs, _ = r.Read(t.Context(), Source{Data: []byte(`<div><p>skip</p><div class="x post-content">Kept</div></div>`)})
	if docs[0].Content != "Kept" {
		t.Errorf("content class %q", docs[0].Content)
	}
}

func site(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, homePage) })
	mux.HandleFunc("/a", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<article>Page A text <a href="/deep">deep</a> <a href="/missing">gone</a></article>`)
	})
	mux.HandleFunc("/b", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `<main>Page B text</main>`) })
	mux.HandleFunc("/deep", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<main>Deep text <a href="/deeper">x</a></main>`)
	})
	mux.HandleFunc("/deeper", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `<main>Too deep</main>`) })
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, _ *http.Request) { t.Error("crawler fetched an image link") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var quiet = slog.New(slog.DiscardHandler)

func TestWebsiteCrawl(t *testing.T) {
	srv := site(t)
	r, _ := NewWebsite(WebsiteOptions{MaxDepth: 3, HTTPClient: srv.Client(), Logger: quiet})
	docs, err := r.Read(t.Context(), Source{URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, d := range docs {
		urls = append(urls, d.MetaData["url"].(string))
		if d.Name != srv.URL+"/" || !strings.HasPrefix(d.ID, d.MetaData["url"].(string)+"_") {
			t.Errorf("doc name %q id %q", d.Name, d.ID)
		}
	}
	// Breadth first; the fragment link is /b; /deeper is at depth 4.
	want := []string{srv.URL + "/", srv.URL + "/a", srv.URL + "/b", srv.URL + "/deep"}
	if !slices.Equal(urls, want) {
		t.Errorf("crawled %v, want %v", urls, want)
	}
	if docs[1].Content != "Page A text deep gone" {
		t.Errorf("page A content %q", docs[1].Content)
	}

	r, _ = NewWebsite(WebsiteOptions{MaxLinks: 2, HTTPClient: srv.Client(), Logger: quiet})
	docs, _ = r.Read(t.Context(), Source{URL: srv.URL + "/", Name: "site"})
	if len(docs) != 2 || docs[0].Name != "site" {
		t.Errorf("max_links 2 kept %d pages", len(docs))
	}
	if _, err := r.Read(t.Context(), Source{URL: srv.URL + "/missing"}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a failing start URL: %v", err)
	}

	h, _ := NewHTML(HTMLOptions{HTTPClient: srv.Client()})
	docs, err = h.Read(t.Context(), Source{URL: srv.URL + "/b"})
	if err != nil || len(docs) != 1 || docs[0].MetaData["url"] != srv.URL+"/b" || docs[0].Content != "Page B text" {
		t.Errorf("html from URL: %+v %v", docs, err)
	}
}

func TestRegistry(t *testing.T) {
	for ext, want := range map[string]string{
		".pdf": KeyPDF, "application/pdf": KeyPDF, ".CSV": KeyCSV, "text/csv": KeyCSV, ".json": KeyJSON,
		".md": KeyMarkdown, ".markdown": KeyMarkdown, ".txt": KeyText, "Text": KeyText, ".html": KeyHTML,
		"text/plain; charset=utf-8": KeyText, "application/json": KeyJSON, "text/markdown": KeyMarkdown,
	} {
		if got, err := KeyForType(ext); got != want || err != nil {
			t.Errorf("KeyForType(%q) = %q, %v, want %q", ext, got, err, want)
		}
	}
	// Types no reader lists are refused, not read as text as agno does.
	for _, typ := range []string{".go", ".png", "application/octet-stream", ""} {
		_, err := KeyForType(typ)
		if !errors.Is(err, ErrUnknownType) || !strings.Contains(err.Error(), ".pdf") || !strings.Contains(err.Error(), "text/plain") {
			t.Errorf("KeyForType(%q): %v", typ, err)
		}
		if typ != "" && !strings.Contains(err.Error(), strconv.Quote(typ)) {
			t.Errorf("KeyForType(%q) does not name the type: %v", typ, err)
		}
	}
	// Downloads: only .markdown is markdown, as agno's _select_reader_by_extension.
	md, _ := KeyForDownload(".md")
	markdown, _ := KeyForDownload(".markdown")
	pdf, _ := KeyForDownload(".pdf")
	if md != KeyText || markdown != KeyMarkdown || pdf != KeyPDF {
		t.Error("KeyForDownload does not follow agno's download map")
	}
	if _, err := KeyForDownload(".zip"); !errors.Is(err, ErrUnknownType) {
		t.Errorf("KeyForDownload(.zip): %v", err)
	}
	builtin := []string{KeyCSV, KeyHTML, KeyJSON, KeyMarkdown, KeyPDF, KeyText, KeyWebsite}
	if got := Names(); !slices.IsSorted(got) || !containsAll(got, builtin) {
		t.Errorf("Names() = %v", got)
	}
	for _, key := range Names() {
		r, err := New(key)
		if err != nil || r == nil {
			t.Errorf("New(%q): %v", key, err)
		}
	}
	if _, err := New("docx"); err == nil {
		t.Error("New(docx) built a reader this package does not have")
	}
	for id, want := range map[string]string{"PDFReader": KeyPDF, "pdf": KeyPDF, "Website Reader": KeyWebsite, "markdown-reader": KeyMarkdown} {
		if got, ok := ResolveKey(id); !ok || got != want {
			t.Errorf("ResolveKey(%q) = %q, %v", id, got, ok)
		}
	}
	if _, ok := ResolveKey("docx"); ok {
		t.Error("ResolveKey(docx) resolved")
	}
	if rt := ContentTypeReaders(); !slices.Equal(rt["url"], []string{KeyHTML, KeyWebsite}) || !slices.Equal(rt[".pdf"], []string{KeyPDF}) {
		t.Errorf("ContentTypeReaders() = %v", rt)
	}
}

var registerRST sync.Once // the registry is global: once per test binary

func registerRSTReader() {
	Register("test_rst", Spec{Name: "RST Reader", ContentTypes: []string{"file", ".RST", "text/x-rst"},
		New: func(o FactoryOptions) (Reader, error) { return NewText(o.Options) }})
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// A program's own reader is registered like the built-ins and picked by
// its types; mistakes panic.
func TestRegisterOwnReader(t *testing.T) {
	registerRST.Do(registerRSTReader)
	if key, err := KeyForType("text/x-rst; charset=utf-8"); key != "test_rst" || err != nil {
		t.Errorf("KeyForType(rst) = %q, %v", key, err)
	}
	if key, err := KeyForType(".rst"); key != "test_rst" || err != nil {
		t.Errorf("KeyForType(.rst) = %q, %v", key, err)
	}
	for name, spec := range map[string]Spec{
		"":         {New: func(FactoryOptions) (Reader, error) { return nil, nil }},
		"test_rst": {New: func(FactoryOptions) (Reader, error) { return nil, nil }},
		"nil":      {},
		"other":    {ContentTypes: []string{".pdf"}, New: func(FactoryOptions) (Reader, error) { return nil, nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, spec)
		}()
	}
	if _, ok := Lookup("other"); ok {
		t.Error("a refused registration was kept")
	}
}

func TestFNMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.md", "a.md", true},
		{"*.md", "docs/sub/a.md", true}, // fnmatch's * crosses "/"
		{"*.md", "a.mdx", false},
		{"docs/*", "docs/a/b.txt", true},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[abc].go", "b.go", true},
		{"[!abc].go", "b.go", false},
		{"[a-c]x", "cx", true},
		{"[]]", "]", true},
		{"[", "[", true}, // an unclosed bracket is literal
		{"*a*b*c", "xxaxxbxxc", true},
		{"*a*b*c", "xxaxxcxxb", false},
		{"", "", true},
	}
	for _, c := range cases {
		if got := FNMatch(c.pattern, c.name); got != c.want {
			t.Errorf("FNMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestWalkAndIncluded(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.md", "b.txt", "sub/c.md", "sub/deep/d.md", "node_modules/x.md", ".git/config"} {
		write(t, dir, f, "x")
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	files, err := Walk(dir, []string{"*.md"}, []string{"node_modules", ".*"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rel(files), []string{"a.md", "sub/c.md", "sub/deep/d.md"}; !slices.Equal(got, want) {
		t.Errorf("Walk = %v, want %v", got, want)
	}
	files, _ = Walk(dir, nil, nil)
	if len(files) != 6 {
		t.Errorf("Walk without patterns found %d files, want 6", len(files))
	}
	if !Included("/x/y/report.pdf", []string{"*.pdf"}, nil) || Included("/x/y/report.pdf", nil, []string{"report.*"}) || Included("a.txt", []string{"*.md"}, nil) {
		t.Error("Included does not follow agno's _should_include_file")
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
