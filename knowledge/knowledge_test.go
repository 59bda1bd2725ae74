package knowledge

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/pgcontents"
	"github.com/agno-go/agno/knowledge/contents/sqlitecontents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/knowledge/vectordb/pgvector"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

type fixture struct {
	k        *Knowledge
	vectors  vectordb.DB
	contents contents.Store
}

func lexical(t *testing.T) embedder.Embedder {
	t.Helper()
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// newFixture is a Knowledge on the in-memory stores.
func newFixture(t *testing.T, cfg Config) fixture {
	t.Helper()
	vs, err := memory.New(memory.Config{Embedder: lexical(t), SearchType: vectordb.SearchHybrid})
	if err != nil {
		t.Fatal(err)
	}
	return finishFixture(t, cfg, vs, contents.NewMemory())
}

// newSQLiteFixture is a Knowledge on the embedded default: the SQLite
// vector and contents stores in one file.
func newSQLiteFixture(t *testing.T, cfg Config) fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agno.db")
	vs, err := sqlitevec.Open(t.Context(), sqlitevec.Config{Path: path, Embedder: lexical(t), SearchType: vectordb.SearchHybrid, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.Close() })
	cs, err := sqlitecontents.Open(t.Context(), sqlitecontents.Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return finishFixture(t, cfg, vs, cs)
}

// newPostgresFixture is a Knowledge on the Postgres stores, in a schema
// of its own. The vector store searches by keyword so that it runs where
// pgvector is missing, as on this project's machines.
func newPostgresFixture(t *testing.T, cfg Config) fixture {
	t.Helper()
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	vs, err := pgvector.Open(t.Context(), pgvector.Config{DSN: dsn, Schema: schema, MaxConns: 4, Embedder: lexical(t), SearchType: vectordb.SearchKeyword, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vs.Close() })
	cs, err := pgcontents.Open(t.Context(), pgcontents.Config{DSN: dsn, Schema: schema, MaxConns: 4, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return finishFixture(t, cfg, vs, cs)
}

func finishFixture(t *testing.T, cfg Config, vs vectordb.DB, cs contents.Store) fixture {
	t.Helper()
	if cfg.VectorDB == nil {
		cfg.VectorDB = vs
	}
	if cfg.ContentsDB == nil {
		cfg.ContentsDB = cs
	}
	cfg.Logger = quiet
	k, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{k: k, vectors: cfg.VectorDB, contents: cfg.ContentsDB}
}

// eachBackend runs a pipeline test on the in-memory stores, the embedded
// SQLite ones and the Postgres ones.
func eachBackend(t *testing.T, test func(t *testing.T, open func(*testing.T, Config) fixture)) {
	t.Run("memory", func(t *testing.T) { test(t, newFixture) })
	t.Run("sqlite", func(t *testing.T) { test(t, newSQLiteFixture) })
	t.Run("postgres", func(t *testing.T) { test(t, newPostgresFixture) })
}

func (f fixture) row(t *testing.T, id string) contents.Row {
	t.Helper()
	r, err := f.contents.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("contents row %s: %v", id, err)
	}
	return r
}

func (f fixture) search(t *testing.T, query string, flt filter.Filters) []*document.Document {
	t.Helper()
	docs, err := f.k.Search(t.Context(), query, SearchOptions{MaxResults: 50, Filters: flt})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func contentIDs(docs []*document.Document) []string {
	var out []string
	for _, d := range docs {
		if !slices.Contains(out, d.ContentID) {
			out = append(out, d.ContentID)
		}
	}
	slices.Sort(out)
	return out
}

// New creates the vector store's table, as agno's __post_init__ does.
func TestNewCreatesTheVectorTable(t *testing.T) {
	f := newFixture(t, Config{Name: "kb"})
	if ok, _ := f.vectors.Exists(t.Context()); !ok {
		t.Error("the vector table was not created")
	}
	if _, err := New(t.Context(), Config{IsolateVectorSearch: true}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("isolation without a name: %v", err)
	}
}

// Golden case 5 of A3 through the whole pipeline.
func TestInsertText(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		cs, err := f.k.Insert(t.Context(), Input{TextContent: "hello world, this is a greeting"})
		if err != nil {
			t.Fatal(err)
		}
		c := cs[0]
		if c.ContentHash != "71988c4d8e0803ba4519f0b2864c1331c14a1890bf8694e251379177bfedb5c3" || c.ID != "35435304-3154-5af0-9b01-a233f029fbbe" {
			t.Errorf("hash %s id %s, want golden case 5 (text hashes only \"Text\")", c.ContentHash, c.ID)
		}
		row := f.row(t, c.ID)
		// Name defaults to the first 10 characters, after hashing.
		if row.Name != "hello worl" || row.Type != "Text" || row.Size == nil || *row.Size != 31 || row.Status != contents.StatusCompleted || row.LinkedTo != "kb" {
			t.Errorf("row %+v", row)
		}
		docs := f.search(t, "greeting", filter.Filters{})
		if len(docs) != 1 || docs[0].ContentID != c.ID || docs[0].MetaData["linked_to"] != "kb" || docs[0].Content != "hello world, this is a greeting" {
			t.Errorf("search: %+v", docs)
		}
	})
}

func TestInsertNeedsASource(t *testing.T) {
	f := newFixture(t, Config{})
	if _, err := f.k.Insert(t.Context(), Input{Name: "x"}); !errors.Is(err, ErrNoSource) {
		t.Errorf("no source: %v", err)
	}
	if _, err := f.k.Insert(t.Context(), Input{TextContent: "a", File: &FileData{Content: []byte("b")}}); !errors.Is(err, ErrNoSource) {
		t.Errorf("text and file: %v", err)
	}
}

const demoPDF = "testdata/demo.pdf"

func serverMeta(id string) map[string]any {
	return map[string]any{"doc_id": 1, "collection_id": 1, "server_id": id}
}

// The users' change 7 (agno #8211): the same file inserted twice with
// different metadata and upsert off is two contents, each keeping its own
// metadata in the contents DB and in the vector store.
func TestChange7SameFileDifferentMetadata(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		first, err := f.k.Insert(t.Context(), Input{Path: demoPDF, Metadata: serverMeta("10"), Upsert: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		second, err := f.k.Insert(t.Context(), Input{Path: demoPDF, Metadata: serverMeta("11"), Upsert: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		a, b := first[0], second[0]
		if a.ContentHash != sha256Hex(`{"collection_id": 1, "doc_id": 1, "server_id": "10"}:`+demoPDF) {
			t.Errorf("first hash %s is not over the metadata and the path", a.ContentHash)
		}
		if a.ID == b.ID {
			t.Fatalf("both inserts got content id %s", a.ID)
		}
		for id, want := range map[string]string{a.ID: "10", b.ID: "11"} {
			row := f.row(t, id)
			if !filter.Equal(row.Metadata["server_id"], want) || row.Status != contents.StatusCompleted || row.Name != "demo.pdf" || row.Type != ".pdf" {
				t.Errorf("row %s: %+v, want server_id %s completed", id, row, want)
			}
			docs := f.search(t, "server handbook backups", filter.Dict(map[string]any{"server_id": want}))
			if got := contentIDs(docs); !slices.Equal(got, []string{id}) || len(docs) != 2 {
				t.Errorf("chunks with server_id %s belong to %v (%d chunks), want only %s (2 pages)", want, got, len(docs), id)
			}
		}
		all, total, err := f.k.GetContent(t.Context(), contents.ListOptions{})
		if err != nil || total != 2 || len(all) != 2 {
			t.Errorf("GetContent: %d contents, %v", total, err)
		}
		// The PDF was read page by page with agno's metadata.
		docs := f.search(t, "snapshots nightly", filter.Dict(map[string]any{"server_id": "10"}))
		if len(docs) == 0 || docs[0].MetaData["page"] == nil || !strings.Contains(docs[0].Content, "snapshots run nightly") {
			t.Errorf("top chunk %+v", docs)
		}
	})
}

// With include_metadata=false the v2.6.12 behaviour (and its bug) is
// back: one content id, one row, and the last metadata on every chunk.
func TestChange7LegacyHash(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb", ContentHash: HashOptions{IncludeMetadata: new(false)}})
		first, _ := f.k.Insert(t.Context(), Input{Path: demoPDF, Metadata: serverMeta("10"), Upsert: new(false)})
		second, _ := f.k.Insert(t.Context(), Input{Path: demoPDF, Metadata: serverMeta("11"), Upsert: new(false)})
		if first[0].ID != second[0].ID || first[0].ContentHash != sha256Hex(demoPDF) {
			t.Fatalf("legacy ids %s %s", first[0].ID, second[0].ID)
		}
		if _, total, _ := f.k.GetContent(t.Context(), contents.ListOptions{}); total != 1 {
			t.Errorf("%d contents, want 1", total)
		}
		if docs := f.search(t, "server handbook", filter.Dict(map[string]any{"server_id": "10"})); len(docs) != 0 {
			t.Errorf("%d chunks still say server_id 10; the legacy hash rewrites them all to 11", len(docs))
		}
		if docs := f.search(t, "server handbook backups", filter.Dict(map[string]any{"server_id": "11"})); len(docs) != 4 {
			t.Errorf("%d chunks with server_id 11, want both copies (4)", len(docs))
		}
	})
}

func writeFile(t *testing.T, dir, name, content string) string {
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

// countingReader reads text and counts calls, to see whether the
// pipeline read a source at all.
type countingReader struct {
	reader.Reader
	calls atomic.Int32
}

func (r *countingReader) Read(ctx context.Context, src reader.Source) ([]*document.Document, error) {
	r.calls.Add(1)
	return r.Reader.Read(ctx, src)
}

func TestUpsertInsertAndSkipIfExists(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		p := writeFile(t, t.TempDir(), "notes.txt", "Quarterly revenue grew in the northern region.")
		count := func() int { return len(f.search(t, "quarterly revenue", filter.Filters{})) }

		// Upsert (the default) replaces what is stored under the hash.
		for range 2 {
			if _, err := f.k.Insert(t.Context(), Input{Path: p}); err != nil {
				t.Fatal(err)
			}
		}
		if n := count(); n != 1 {
			t.Errorf("after two upserts: %d chunks, want 1", n)
		}
		// Insert adds new records (the reader gives new document ids).
		if _, err := f.k.Insert(t.Context(), Input{Path: p, Upsert: new(false)}); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 2 {
			t.Errorf("after an insert: %d chunks, want 2", n)
		}
		// skip_if_exists does not read the file again and marks it completed.
		text, _ := reader.NewText(reader.Options{})
		r := &countingReader{Reader: text}
		cs, err := f.k.Insert(t.Context(), Input{Path: p, Reader: r, SkipIfExists: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.calls.Load() != 0 || cs[0].Status != contents.StatusCompleted || count() != 2 {
			t.Errorf("skip_if_exists: %d reads, status %s, %d chunks", r.calls.Load(), cs[0].Status, count())
		}
		if _, err := f.k.Insert(t.Context(), Input{Path: p, Reader: r, SkipIfExists: true, Metadata: map[string]any{"new": "meta"}}); err != nil {
			t.Fatal(err)
		}
		if r.calls.Load() != 1 {
			t.Error("different metadata is a different content hash and must be read")
		}
	})
}

// failingStore fails every write, as a broken vector database would.
type failingStore struct{ *memory.Store }

func (failingStore) Insert(context.Context, string, []*document.Document, map[string]any) error {
	return errors.New("disk full")
}

func (failingStore) Upsert(context.Context, string, []*document.Document, map[string]any) error {
	return errors.New("disk full")
}

func TestStatusFailedWithMessage(t *testing.T) {
	// The vector store fails; the contents rows are in each backend.
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		vs, _ := memory.New(memory.Config{SearchType: vectordb.SearchKeyword})
		f := open(t, Config{VectorDB: failingStore{vs}})
		cs, err := f.k.Insert(t.Context(), Input{TextContent: "some text"})
		if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "Could not upsert embedding") {
			t.Errorf("Insert error %v", err)
		}
		row := f.row(t, cs[0].ID)
		if row.Status != contents.StatusFailed || row.StatusMessage != "Could not upsert embedding" {
			t.Errorf("row %+v", row)
		}
		status, msg, err := f.k.GetContentStatus(t.Context(), cs[0].ID)
		if err != nil || status != contents.StatusFailed || msg != "Could not upsert embedding" {
			t.Errorf("GetContentStatus = %s %q %v", status, msg, err)
		}
		cs, _ = f.k.Insert(t.Context(), Input{TextContent: "other", Upsert: new(false), Name: "n"})
		if row := f.row(t, cs[0].ID); row.StatusMessage != "Could not insert embedding" {
			t.Errorf("insert failure message %q", row.StatusMessage)
		}

		// No vector database at all.
		k, _ := New(t.Context(), Config{ContentsDB: f.contents, Logger: quiet})
		cs, err = k.Insert(t.Context(), Input{TextContent: "x", Name: "novec"})
		if err == nil || f.row(t, cs[0].ID).StatusMessage != "No vector database configured" {
			t.Errorf("no vector db: %v %+v", err, f.row(t, cs[0].ID))
		}
		if docs, err := k.Search(t.Context(), "x", SearchOptions{}); docs != nil || err != nil {
			t.Errorf("search without a vector db: %v %v", docs, err)
		}

		// A file the reader cannot read.
		bad := writeFile(t, t.TempDir(), "broken.pdf", "%PDF-1.4 garbage")
		cs, err = f.k.Insert(t.Context(), Input{Path: bad})
		if err == nil || f.row(t, cs[0].ID).Status != contents.StatusFailed || !strings.HasPrefix(f.row(t, cs[0].ID).StatusMessage, "Error reading") {
			t.Errorf("broken pdf: %v %+v", err, f.row(t, cs[0].ID))
		}
		if _, err := f.k.Insert(t.Context(), Input{Path: filepath.Join(t.TempDir(), "missing")}); err == nil {
			t.Error("a missing path inserted without error")
		}
	})
}

func TestInsertDirectory(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "docs"})
		dir := t.TempDir()
		writeFile(t, dir, "intro.md", "# Intro\nWelcome to the handbook.")
		writeFile(t, dir, "sub/setup.md", "# Setup\nInstall the binary.")
		writeFile(t, dir, "sub/notes.txt", "plain notes")
		writeFile(t, dir, "node_modules/dep.md", "# Dep")
		cs, err := f.k.Insert(t.Context(), Input{Path: dir, Include: []string{"*.md"}, Exclude: []string{"node_modules"}, Metadata: map[string]any{"team": "ops"}})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range cs {
			names = append(names, c.Name)
			if c.Status != contents.StatusCompleted || c.FileType != ".md" || c.ContentHash != ContentHash(&Content{Path: c.Path, Metadata: map[string]any{"team": "ops"}}, def) {
				t.Errorf("content %+v", c)
			}
		}
		if !slices.Equal(names, []string{"intro.md", "setup.md"}) {
			t.Errorf("inserted %v, want [intro.md setup.md]", names)
		}
		docs := f.search(t, "install binary", filter.List(filter.EQ("team", "ops")))
		if len(docs) == 0 || docs[0].Name != "setup.md" {
			t.Errorf("search: %+v", docs)
		}
	})
}

func TestInsertURLs(t *testing.T) {
	pdfBytes, err := os.ReadFile(demoPDF)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/files/demo.pdf", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pdfBytes) })
	mux.HandleFunc("/files/data.csv", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("city,country\nLyon,France\n")) })
	mux.HandleFunc("/site/", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<main>Home page about lighthouses. <a href="/site/keepers">keepers</a></main>`))
	})
	mux.HandleFunc("/site/keepers", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<main>Lighthouse keepers lived on the rocks.</main>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// The default website reader crawls with the Knowledge's client.
	f := newFixture(t, Config{Name: "kb", HTTPClient: srv.Client()})

	cs, err := f.k.Insert(t.Context(), Input{URL: srv.URL + "/files/demo.pdf", Metadata: map[string]any{"src": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	row := f.row(t, cs[0].ID)
	agno, _ := row.Metadata[AgnoMetadataKey].(map[string]any)
	if row.Name != "demo.pdf" || row.Type != "url" || agno["source_type"] != "url" || agno["source_url"] != srv.URL+"/files/demo.pdf" {
		t.Errorf("pdf url row %+v", row)
	}
	docs := f.search(t, "snapshots", filter.Dict(map[string]any{"src": "web"}))
	if len(docs) == 0 || docs[0].ContentID != cs[0].ID || docs[0].MetaData["page"] == nil {
		t.Fatalf("pdf url chunks %+v", docs)
	}
	if _, leaked := docs[0].MetaData[AgnoMetadataKey]; leaked {
		t.Error("_agno reached the vector store's metadata")
	}

	_, err = f.k.Insert(t.Context(), Input{URL: srv.URL + "/files/data.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if docs := f.search(t, "Lyon France", filter.Filters{}); len(docs) == 0 || docs[0].Name != "data.csv" || docs[0].MetaData["row_number"] != 2 {
		t.Errorf("csv url: %+v", docs)
	}

	// A URL without an extension is crawled; each page gets its own hash
	// and content id, as agno's multi-page handling does.
	// The content is named after the URL's last path segment, before the
	// page hashes are built.
	site := &Content{URL: srv.URL + "/site/", Name: "site"}
	cs, err = f.k.Insert(t.Context(), Input{URL: site.URL})
	if err != nil {
		t.Fatal(err)
	}
	if f.row(t, cs[0].ID).Status != contents.StatusCompleted {
		t.Errorf("site status %+v", f.row(t, cs[0].ID))
	}
	keepers := &document.Document{MetaData: map[string]any{"url": srv.URL + "/site/keepers"}}
	want := ContentID(DocumentContentHash(keepers, site, def))
	docs = f.search(t, "keepers rocks", filter.Filters{})
	if len(docs) == 0 || docs[0].ContentID != want || docs[0].MetaData["url"] != srv.URL+"/site/keepers" {
		for _, d := range docs {
			t.Logf("%s %q %v", d.ContentID, d.Content, d.MetaData)
		}
		t.Errorf("crawled page chunk, want content id %s", want)
	}

	cs, err = f.k.Insert(t.Context(), Input{URL: "not a url"})
	if err == nil || f.row(t, cs[0].ID).StatusMessage != "Invalid URL format: not a url" {
		t.Errorf("invalid url: %v", err)
	}
}

// topicReader answers topics, as agno's Wikipedia or arXiv readers do.
type topicReader struct{}

func (topicReader) ClassName() string { return "WikipediaReader" }

func (topicReader) Read(_ context.Context, src reader.Source) ([]*document.Document, error) {
	if src.Topic == "empty" {
		return nil, nil
	}
	return []*document.Document{{Name: src.Topic, Content: "About " + src.Topic}}, nil
}

func TestInsertTopics(t *testing.T) {
	f := newFixture(t, Config{Name: "kb"})
	cs, err := f.k.Insert(t.Context(), Input{Topics: []string{"python", "empty"}, Reader: topicReader{}})
	if len(cs) != 2 || err == nil {
		t.Fatalf("contents %d, err %v", len(cs), err)
	}
	// Each topic is its own content named after it: "python:python-WikipediaReader".
	if cs[0].ContentHash != sha256Hex("python:python-WikipediaReader") || f.row(t, cs[0].ID).Type != "Topic" {
		t.Errorf("topic content %+v", cs[0])
	}
	if f.row(t, cs[1].ID).StatusMessage != "No content found for topic" {
		t.Errorf("empty topic row %+v", f.row(t, cs[1].ID))
	}
	if docs := f.search(t, "python", filter.Filters{}); len(docs) != 1 || docs[0].ContentID != cs[0].ID {
		t.Errorf("topic chunks %+v", docs)
	}
	if _, err := f.k.Insert(t.Context(), Input{Topics: []string{"go"}}); err == nil {
		t.Error("topics without a reader inserted without error")
	}
}

func TestIsolatedSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		shared := open(t, Config{Name: "a", IsolateVectorSearch: true})
		b, err := New(t.Context(), Config{Name: "b", IsolateVectorSearch: true, VectorDB: shared.vectors, ContentsDB: shared.contents, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := shared.k.Insert(t.Context(), Input{TextContent: "alpha apples", Name: "x", Metadata: map[string]any{"kind": "fruit"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Insert(t.Context(), Input{TextContent: "beta apples", Name: "y", Metadata: map[string]any{"kind": "fruit"}}); err != nil {
			t.Fatal(err)
		}
		for _, flt := range []filter.Filters{{}, filter.Dict(map[string]any{"kind": "fruit"}), filter.List(filter.EQ("kind", "fruit"))} {
			docs, _ := b.Search(t.Context(), "apples", SearchOptions{Filters: flt})
			if len(docs) != 1 || docs[0].Content != "beta apples" {
				t.Errorf("b with filters %s sees %d docs", flt, len(docs))
			}
		}
		if keys, _ := b.ValidFilters(t.Context()); !slices.Equal(keys, []string{"kind"}) {
			t.Errorf("valid filters of b: %v", keys)
		}
	})
}

func TestBuildContext(t *testing.T) {
	f := newFixture(t, Config{Name: "kb"})
	plain := "<knowledge_base>\nYou have a knowledge base you can search using the search_knowledge_base tool. " +
		"Search before answering questions—don't assume you know the answer. " +
		"For ambiguous questions, search first rather than asking for clarification.\n</knowledge_base>"
	if got, _ := f.k.BuildContext(t.Context(), true); got != plain {
		t.Errorf("no metadata keys yet:\n%s", got)
	}
	if _, err := f.k.Insert(t.Context(), Input{TextContent: "x", Metadata: map[string]any{"user_id": "u", "document_type": "contract"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.k.BuildContext(t.Context(), false); got != plain {
		t.Errorf("agentic filters off:\n%s", got)
	}
	got, _ := f.k.BuildContext(t.Context(), true)
	wantStart := strings.TrimSuffix(plain, "\n</knowledge_base>") + "\nThe knowledge base contains documents with these metadata filters: document_type, user_id.\n"
	if !strings.HasPrefix(got, wantStart) ||
		!strings.HasSuffix(got, "Ensure the filter keys match the valid metadata filters: document_type, user_id.\n\nMake sure to pass the filters as [Dict[str: Any]] to the tool. FOLLOW THIS STRUCTURE STRICTLY.\n</knowledge_base>") ||
		!strings.Contains(got, "filters parameter set to {'document_type': 'contract'}") {
		t.Errorf("agentic context:\n%s", got)
	}
}

func TestValidateFilters(t *testing.T) {
	keys := []string{"server_id", "tenant"}
	valid, invalid := validateFilters(filter.Dict(map[string]any{"server_id": "1", "meta_data.tenant": "a", "nope": 1}), keys)
	if len(valid.Dict) != 2 || !slices.Equal(invalid, []string{"nope"}) {
		t.Errorf("dict: %v %v", valid, invalid)
	}
	// No known keys: every dict key is dropped, a list is kept.
	if valid, invalid := validateFilters(filter.Dict(map[string]any{"a": 1}), nil); !valid.IsZero() || !slices.Equal(invalid, []string{"a"}) {
		t.Errorf("dict without keys: %v %v", valid, invalid)
	}
	list := filter.List(filter.EQ("nope", 1), filter.IN("tenant", "a"), filter.NOT(filter.EQ("nope", 2)))
	if valid, _ := validateFilters(list, nil); len(valid.Exprs) != 3 {
		t.Errorf("list without keys must be kept, got %v", valid)
	}
	valid, invalid = validateFilters(list, keys)
	if len(valid.Exprs) != 2 || valid.Exprs[0].Op() != filter.OpIN || valid.Exprs[1].Op() != filter.OpNOT || !slices.Equal(invalid, []string{"nope"}) {
		t.Errorf("list: %v %v", valid, invalid)
	}
}

func TestMergeAgenticFilters(t *testing.T) {
	agent := AgentFiltersDict([]AgentFilter{{"user_id", "a"}, {"user_id", "b"}})
	if got, _ := MergeAgenticFilters(agent, filter.Filters{}); got.Dict["user_id"] != "b" {
		t.Errorf("agent only: %v", got)
	}
	user := filter.Dict(map[string]any{"tenant": "t"})
	if got, _ := MergeAgenticFilters(agent, user); got.Dict["tenant"] != "t" || got.Dict["user_id"] != nil {
		t.Errorf("user dict wins: %v", got)
	}
	if got, _ := MergeAgenticFilters(nil, filter.List(filter.EQ("a", 1))); len(got.Exprs) != 1 {
		t.Errorf("user list alone: %v", got)
	}
	if _, err := MergeAgenticFilters(agent, filter.List(filter.EQ("a", 1))); !errors.Is(err, ErrFilters) {
		t.Errorf("user list with agent filters: %v", err)
	}
}

func TestDocumentsJSON(t *testing.T) {
	docs := []*document.Document{{Name: "café", Content: "<b>é</b>", MetaData: map[string]any{"page": 1, "similarity_score": 0.5}}, {Content: "no name"}}
	got, err := DocumentsJSON(docs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "[\n  {\n    \"name\": \"caf\\u00e9\",\n    \"meta_data\": {\n      \"page\": 1,\n      \"similarity_score\": 0.5\n    },\n    \"content\": \"<b>\\u00e9</b>\"\n  },\n  {\n    \"meta_data\": {},\n    \"content\": \"no name\"\n  }\n]"
	if got != want {
		t.Errorf("DocumentsJSON:\n%s\nwant\n%s", got, want)
	}
	if got, _ := DocumentsJSON(docs[:1], true); !strings.Contains(got, `"name": "café"`) {
		t.Errorf("ensure_ascii=False:\n%s", got)
	}
}

func TestContentManagement(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		cs, err := f.k.Insert(t.Context(), Input{TextContent: "manage me please", Name: "m", Metadata: map[string]any{"v": 1}})
		if err != nil {
			t.Fatal(err)
		}
		id := cs[0].ID
		got, err := f.k.GetContentByID(t.Context(), id)
		if err != nil || got.Name != "m" || got.Status != contents.StatusCompleted || got.UpdatedAt == 0 {
			t.Errorf("GetContentByID %+v %v", got, err)
		}
		row, err := f.k.PatchContent(t.Context(), Content{ID: id, Description: "patched", Metadata: map[string]any{"v": 2, "extra": "x"}})
		if err != nil || row.Description != "patched" || !filter.Equal(row.Metadata["v"], 2) || row.Metadata["extra"] != "x" {
			t.Errorf("PatchContent %+v %v", row, err)
		}
		if docs := f.search(t, "manage", filter.Dict(map[string]any{"v": 2, "extra": "x"})); len(docs) != 1 {
			t.Errorf("patched metadata did not reach the vector store: %d docs", len(docs))
		}
		if err := f.k.RemoveContentByID(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if _, err := f.k.GetContentByID(t.Context(), id); !errors.Is(err, contents.ErrNotFound) {
			t.Errorf("after remove: %v", err)
		}
		if docs := f.search(t, "manage", filter.Filters{}); len(docs) != 0 {
			t.Errorf("chunks left after remove: %d", len(docs))
		}
		k, _ := New(t.Context(), Config{Logger: quiet})
		if _, _, err := k.GetContent(t.Context(), contents.ListOptions{}); !errors.Is(err, ErrNoContentsDB) {
			t.Errorf("no contents db: %v", err)
		}
	})
}

func TestRetrieveUsesMaxResults(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb", MaxResults: 2})
		for _, s := range []string{"red apples", "green apples", "yellow apples"} {
			if _, err := f.k.Insert(t.Context(), Input{TextContent: s, Name: s}); err != nil {
				t.Fatal(err)
			}
		}
		docs, err := f.k.Retrieve(t.Context(), "apples", 0, filter.Filters{})
		if err != nil || len(docs) != 2 {
			t.Errorf("Retrieve with the default max_results 2: %d docs, %v", len(docs), err)
		}
		docs, _ = f.k.Retrieve(t.Context(), "apples", 3, filter.Dict(map[string]any{"linked_to": "kb"}))
		if len(docs) != 3 {
			t.Errorf("Retrieve(3): %d docs", len(docs))
		}
	})
}

// Config.Readers replaces the default reader for its key.
func TestReaderOverride(t *testing.T) {
	text, _ := reader.NewText(reader.Options{})
	r := &countingReader{Reader: text}
	f := newFixture(t, Config{Name: "kb", Readers: map[string]reader.Reader{reader.KeyText: r}})
	p := writeFile(t, t.TempDir(), "a.txt", "log lines")
	if _, err := f.k.Insert(t.Context(), Input{Path: p}); err != nil {
		t.Fatal(err)
	}
	if r.calls.Load() != 1 {
		t.Errorf("the configured text reader was called %d times, want 1", r.calls.Load())
	}
}

// A file type no reader reads is refused, not read as text: the content
// fails with a status message naming the type and the known ones, and a
// URL of such a file is not even downloaded. A reader given for the insert
// reads it anyway, and typed-in text ("manual") is text.
func TestUnknownTypeRefused(t *testing.T) {
	f := newFixture(t, Config{Name: "kb"})
	dir := t.TempDir()
	var fetched atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fetched.Add(1) }))
	defer srv.Close()
	client := srv.Client()
	f.k.cfg.HTTPClient = client
	for name, in := range map[string]Input{
		"path": {Path: writeFile(t, dir, "logo.png", "\x89PNG")},
		"file": {File: &FileData{Content: []byte{0, 1, 2}, Type: "application/octet-stream"}},
		"url":  {URL: srv.URL + "/archive.zip"},
	} {
		cs, err := f.k.Insert(t.Context(), in)
		if !errors.Is(err, reader.ErrUnknownType) || len(cs) != 1 {
			t.Fatalf("%s: %v %v", name, cs, err)
		}
		row := f.row(t, cs[0].ID)
		if row.Status != contents.StatusFailed || !strings.HasPrefix(row.StatusMessage, "No reader available: ") ||
			!strings.Contains(row.StatusMessage, ".pdf") {
			t.Errorf("%s: row %s %q", name, row.Status, row.StatusMessage)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the .zip URL was fetched %d times", n)
	}
	text, _ := reader.NewText(reader.Options{})
	if _, err := f.k.Insert(t.Context(), Input{Path: filepath.Join(dir, "logo.png"), Reader: text}); err != nil {
		t.Errorf("with a reader: %v", err)
	}
	if _, err := f.k.Insert(t.Context(), Input{File: &FileData{Content: []byte("typed text"), Type: "manual"}}); err != nil {
		t.Errorf("manual text: %v", err)
	}
}

// Config.ReaderOptions reach the registered readers the Knowledge builds.
func TestReaderOptions(t *testing.T) {
	f := newFixture(t, Config{Name: "kb", ReaderOptions: reader.Options{ChunkSize: 10}})
	const text = "alpha beta gamma alpha delta alpha epsilon alpha"
	if _, err := f.k.Insert(t.Context(), Input{TextContent: text}); err != nil {
		t.Fatal(err)
	}
	// Every chunk of at most 10 characters holds "alpha" once.
	if docs := f.search(t, "alpha", filter.Filters{}); len(docs) < 4 {
		t.Errorf("chunks of 10: %d docs", len(docs))
	}
}

// statusReader records the contents row's status at the moment the
// pipeline reads the source.
type statusReader struct {
	reader.Reader
	rows   contents.Store
	id     string
	status contents.Status
}

func (r *statusReader) Read(ctx context.Context, src reader.Source) ([]*document.Document, error) {
	row, err := r.rows.Get(ctx, r.id)
	if err != nil {
		return nil, err
	}
	r.status = row.Status
	return r.Reader.Read(ctx, src)
}

// The row is written with status processing before the source is read
// (agno's _insert_contents_db), and completed after the chunks are stored.
func TestStatusProcessingWhileReading(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(*testing.T, Config) fixture) {
		f := open(t, Config{Name: "kb"})
		p := writeFile(t, t.TempDir(), "notes.txt", "Processing happens before completion.")
		text, _ := reader.NewText(reader.Options{})
		r := &statusReader{Reader: text, rows: f.contents}
		r.id = ContentID(ContentHash(&Content{Path: p}, HashOptions{}))
		cs, err := f.k.Insert(t.Context(), Input{Path: p, Reader: r})
		if err != nil {
			t.Fatal(err)
		}
		if cs[0].ID != r.id {
			t.Fatalf("content id %s, expected %s", cs[0].ID, r.id)
		}
		if r.status != contents.StatusProcessing {
			t.Errorf("status while reading = %q, want processing", r.status)
		}
		if row := f.row(t, r.id); row.Status != contents.StatusCompleted || row.StatusMessage != "" {
			t.Errorf("status after insert = %q %q, want completed", row.Status, row.StatusMessage)
		}
	})
}

// A knowledge base on Postgres without the pgvector extension (as on
// this project's machines): ingestion works and keeps the embeddings,
// keyword search answers, and vector or hybrid search fails with an error
// that says how to install the extension.
func TestPostgresWithoutPgvector(t *testing.T) {
	dsn := pgtest.DSN(t)
	vs, err := pgvector.Open(t.Context(), pgvector.Config{DSN: dsn, Schema: pgtest.Schema(t, dsn), MaxConns: 4, Embedder: lexical(t), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	if vs.VectorAvailable() {
		t.Skip("pgvector is installed on this server")
	}
	k, err := New(t.Context(), Config{Name: "kb", VectorDB: vs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Insert(t.Context(), Input{TextContent: "Backups run nightly at two.", Name: "ops"}); err != nil {
		t.Fatal(err)
	}
	docs, err := k.Search(t.Context(), "nightly backups", SearchOptions{SearchType: vectordb.SearchKeyword})
	if err != nil || len(docs) != 1 || docs[0].Name != "ops" {
		t.Fatalf("keyword search: %v, %v", docs, err)
	}
	for _, typ := range []vectordb.SearchType{"", vectordb.SearchVector, vectordb.SearchHybrid} {
		_, err := k.Search(t.Context(), "nightly backups", SearchOptions{SearchType: typ})
		if !errors.Is(err, vectordb.ErrUnsupportedSearch) || !strings.Contains(err.Error(), "CREATE EXTENSION vector") || !strings.Contains(err.Error(), "pgvector") {
			t.Errorf("%q search without pgvector: %v", typ, err)
		}
	}
}
