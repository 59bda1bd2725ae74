package agentos_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/internal/kbtest"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents/sqlitecontents"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

// kbEnv is a knowledge base on an SQLite file shared with the OS store,
// as config.toml builds it.
type kbEnv struct {
	dir   string
	path  string
	store storage.Store
	kb    *knowledge.Knowledge
}

// openKB opens (or reopens) the knowledge base "docs" and the OS store
// in dir, embedding with emb (nil: the built-in embedder).
func openKB(t *testing.T, dir, name string, emb embedder.Embedder) *kbEnv {
	t.Helper()
	return openKBClient(t, dir, name, emb, nil)
}

// openKBClient is openKB fetching URLs with client (nil: the guarded
// default, which refuses loopback).
func openKBClient(t *testing.T, dir, name string, emb embedder.Embedder, client *http.Client) *kbEnv {
	t.Helper()
	path := filepath.Join(dir, "agno.db")
	if emb == nil {
		emb = lexical(t)
	}
	st, err := sqlite.Open(t.Context(), sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sqlitevec.Open(t.Context(), sqlitevec.Config{Path: path, Table: "agno_knowledge_" + name, Embedder: emb, SearchType: vectordb.SearchHybrid, ID: "vdb-" + name})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sqlitecontents.Open(t.Context(), sqlitecontents.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = vs.Close(); _ = cs.Close(); _ = st.Close() })
	kb, err := knowledge.New(t.Context(), knowledge.Config{Name: name, Description: "The " + name, VectorDB: vs, ContentsDB: cs, MaxResults: 5, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return &kbEnv{dir: dir, path: path, store: st, kb: kb}
}

func lexical(t *testing.T) embedder.Embedder {
	t.Helper()
	e, err := embedder.NewLexical(embedder.LexicalConfig{Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newKnowledgeOS(t *testing.T, store storage.Store, cfg agentos.Config, kbs ...*knowledge.Knowledge) *agentos.OS {
	t.Helper()
	cfg.Store, cfg.Knowledge = store, kbs
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

func upload(t *testing.T, h http.Handler, query string, fields map[string]string, files ...filePart) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := multipartBody(t, fields, files...)
	return do(t, h, "POST", "/knowledge/content"+query, body, "Content-Type", ct)
}

func getJSON(t *testing.T, h http.Handler, target string) (int, map[string]any) {
	t.Helper()
	rec := do(t, h, "GET", target, nil)
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	return rec.Code, m
}

// waitContent polls the status route until the content leaves processing.
func waitContent(t *testing.T, h http.Handler, id string, query ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, st := getJSON(t, h, "/knowledge/content/"+id+"/status"+strings.Join(query, ""))
		if code != http.StatusOK {
			t.Fatalf("status %d %v", code, st)
		}
		if st["status"] != "processing" || time.Now().After(deadline) {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func search(t *testing.T, h http.Handler, body string) map[string]any {
	t.Helper()
	rec := do(t, h, "POST", "/knowledge/search", strings.NewReader(body), "Content-Type", "application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("search %s: %d %s", body, rec.Code, rec.Body)
	}
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return m
}

func contentsOf(page map[string]any) []string {
	var out []string
	for _, d := range page["data"].([]any) {
		out = append(out, d.(map[string]any)["content"].(string))
	}
	return out
}

var isoTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

// Uploads of a PDF, a markdown file, a CSV, text and a URL: each is
// accepted with agno's 202 body, ingested in the background to
// completed, listed and found by search.
func TestKnowledgeUploadsEndToEnd(t *testing.T) {
	// The URL is a server on loopback, which the operator allows here.
	env := openKBClient(t, t.TempDir(), "docs", nil, allowingClient(t, "127.0.0.1/32"))
	o := newKnowledgeOS(t, env.store, agentos.Config{}, env.kb)
	h := o.Handler()
	fx := kbtest.WriteTree(t, t.TempDir())
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/faq.txt" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("The office opens at nine and closes at six."))
	}))
	defer site.Close()

	// A PDF with metadata: the 202 is agno's ContentResponseSchema.
	rec := upload(t, h, "", map[string]string{"description": "Ops handbook", "metadata": `{"team": "ops", "version": 2}`},
		filePart{field: "file", name: "handbook.pdf", contentType: "application/pdf", data: read(fx.PDF)})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	var accepted map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &accepted)
	wantKeys := []string{"access_count", "created_at", "description", "id", "linked_to", "metadata", "name", "size", "status", "status_message", "type", "updated_at"}
	var keys []string
	for k := range accepted {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, wantKeys) || accepted["status"] != "processing" || accepted["name"] != "handbook.pdf" ||
		accepted["description"] != "Ops handbook" || accepted["type"] != nil || accepted["created_at"] != nil {
		t.Fatalf("202 body %v", accepted)
	}
	if md := accepted["metadata"].(map[string]any); md["team"] != "ops" || md["version"] != 2.0 {
		t.Errorf("metadata %v", md)
	}
	pdfID := accepted["id"].(string)
	// The id is the content id the knowledge base gives it: uuid5 of
	// agno's hash of name, description, metadata and file name.
	size := int64(len(read(fx.PDF)))
	want := knowledge.ContentID(knowledge.ContentHash(&knowledge.Content{Name: "handbook.pdf", Description: "Ops handbook",
		Metadata: map[string]any{"team": "ops", "version": json.Number("2")},
		FileData: &knowledge.FileData{Content: read(fx.PDF), Binary: true, Type: "application/pdf", Filename: "handbook.pdf", Size: &size}}, knowledge.HashOptions{}))
	if pdfID != want {
		t.Errorf("content id %s, want %s", pdfID, want)
	}

	ids := map[string]string{"pdf": pdfID}
	for kind, r := range map[string]*httptest.ResponseRecorder{
		"markdown": upload(t, h, "", nil, filePart{field: "file", name: "install.md", data: read(filepath.Join(fx.Markdown, "setup", "install.md"))}),
		"csv":      upload(t, h, "", nil, filePart{field: "file", name: "servers.csv", contentType: "text/csv", data: read(fx.CSV)}),
		"text":     upload(t, h, "", map[string]string{"name": "hours", "text_content": "Support answers tickets within four hours."}),
		"url":      upload(t, h, "", map[string]string{"url": site.URL + "/faq.txt"}),
	} {
		if r.Code != http.StatusAccepted {
			t.Fatalf("%s upload: %d %s", kind, r.Code, r.Body)
		}
		var m map[string]any
		_ = json.Unmarshal(r.Body.Bytes(), &m)
		ids[kind] = m["id"].(string)
	}
	for kind, id := range ids {
		if st := waitContent(t, h, id); st["status"] != "completed" || st["id"] != id || st["status_message"] != "" {
			t.Fatalf("%s: status %v", kind, st)
		}
	}

	code, c := getJSON(t, h, "/knowledge/content/"+pdfID)
	if code != http.StatusOK || c["status"] != "completed" || c["type"] != "application/pdf" || c["size"] != fmt.Sprint(size) ||
		!isoTime.MatchString(c["created_at"].(string)) || c["linked_to"] != nil || c["access_count"] != nil {
		t.Fatalf("content %d %v", code, c)
	}
	if _, c := getJSON(t, h, "/knowledge/content/"+ids["url"]); c["type"] != "url" || c["name"] != site.URL+"/faq.txt" {
		t.Errorf("url content %v", c)
	}
	if _, c := getJSON(t, h, "/knowledge/content/"+ids["text"]); c["type"] != "manual" || c["name"] != "hours" {
		t.Errorf("text content %v", c)
	}

	// Listing: agno's page, newest first by default.
	code, page := getJSON(t, h, "/knowledge/content?limit=2&page=1")
	meta := page["meta"].(map[string]any)
	if code != http.StatusOK || len(page["data"].([]any)) != 2 || meta["total_count"] != 5.0 || meta["total_pages"] != 3.0 || meta["limit"] != 2.0 {
		t.Fatalf("list %d %v", code, page)
	}

	// Each format is searchable, with agno's result fields.
	for query, wantText := range map[string]string{
		`{"query": "nightly snapshots thirty days"}`:    kbtest.PDFPage1,
		`{"query": "installer offline proxy flag"}`:     kbtest.InstallFix,
		`{"query": "db-1 database us-east"}`:            "db-1",
		`{"query": "tickets four hours support"}`:       "four hours",
		`{"query": "office opens nine closes six"}`:     "nine",
		`{"query": "restores tested every quarter"}`:    kbtest.PDFPage2,
		`{"query": "verify status page after install"}`: "status page",
	} {
		res := search(t, h, query)
		got := contentsOf(res)
		if len(got) == 0 || !strings.Contains(got[0], wantText) {
			t.Errorf("search %s: %q", query, got)
		}
	}
	res := search(t, h, `{"query": "nightly snapshots", "max_results": 1, "search_type": "keyword"}`)
	data := res["data"].([]any)
	first := data[0].(map[string]any)
	var resultKeys []string
	for k := range first {
		resultKeys = append(resultKeys, k)
	}
	slices.Sort(resultKeys)
	if len(data) != 1 || !slices.Equal(resultKeys, []string{"content", "content_id", "content_origin", "id", "meta_data", "name", "reranking_score", "size", "usage"}) ||
		first["content_id"] != pdfID || first["meta_data"].(map[string]any)["page"] != 1.0 || first["meta_data"].(map[string]any)["team"] != "ops" {
		t.Errorf("search result %v", first)
	}
	if m := res["meta"].(map[string]any); m["total_count"] != 1.0 || m["page"] != 1.0 || m["limit"] != 20.0 {
		t.Errorf("search meta %v", m)
	}
	// Filters are exact matches on metadata.
	if got := contentsOf(search(t, h, `{"query": "tested quarter restores nightly", "filters": {"page": 2}}`)); len(got) != 1 || got[0] != kbtest.PDFPage2 {
		t.Errorf("filtered search %q", got)
	}

	// PATCH merges metadata and renames.
	body, ct := multipartBody(t, map[string]string{"name": "Handbook", "metadata": `{"reviewed": true}`})
	rec = do(t, h, "PATCH", "/knowledge/content/"+pdfID, body, "Content-Type", ct)
	var patched map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &patched)
	if rec.Code != http.StatusOK || patched["name"] != "Handbook" || patched["metadata"].(map[string]any)["reviewed"] != true ||
		patched["metadata"].(map[string]any)["team"] != "ops" || patched["description"] != "Ops handbook" {
		t.Fatalf("patch %d %v", rec.Code, patched)
	}
	body, ct = multipartBody(t, map[string]string{"metadata": `{not json`})
	if rec := do(t, h, "PATCH", "/knowledge/content/"+pdfID, body, "Content-Type", ct); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Invalid JSON format for metadata") {
		t.Errorf("bad metadata: %d %s", rec.Code, rec.Body)
	}
	body, ct = multipartBody(t, map[string]string{"name": "x"})
	if rec := do(t, h, "PATCH", "/knowledge/content/nope", body, "Content-Type", ct); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "Content not found: nope") {
		t.Errorf("patch unknown: %d %s", rec.Code, rec.Body)
	}

	// Unknown contents: 404, and a failed status as agno reports it.
	if code, m := getJSON(t, h, "/knowledge/content/nope"); code != http.StatusNotFound || m["detail"] != "Content not found: nope" {
		t.Errorf("unknown content %d %v", code, m)
	}
	if _, st := getJSON(t, h, "/knowledge/content/nope/status"); st["status"] != "failed" || st["status_message"] != "Content not found" || st["id"] != "nope" {
		t.Errorf("unknown status %v", st)
	}

	// Deleting a content removes its chunks; deleting all removes the rest.
	if rec := do(t, h, "DELETE", "/knowledge/content/"+pdfID, nil); rec.Code != http.StatusOK || rec.Body.String() != `{"id":"`+pdfID+`"}` {
		t.Fatalf("delete %d %s", rec.Code, rec.Body)
	}
	if code, _ := getJSON(t, h, "/knowledge/content/"+pdfID); code != http.StatusNotFound {
		t.Errorf("deleted content still there: %d", code)
	}
	if got := contentsOf(search(t, h, `{"query": "nightly snapshots thirty days", "search_type": "keyword"}`)); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "snapshots") }) {
		t.Errorf("deleted chunks still found: %q", got)
	}
	if rec := do(t, h, "DELETE", "/knowledge/content", nil); rec.Code != http.StatusOK || rec.Body.String() != `"success"` {
		t.Fatalf("delete all %d %s", rec.Code, rec.Body)
	}
	if _, page := getJSON(t, h, "/knowledge/content"); page["meta"].(map[string]any)["total_count"] != 0.0 {
		t.Errorf("after delete all: %v", page)
	}
}

// Bad uploads are refused before anything is stored, each with the field
// and the fix; the AgentOS upload limits apply.
func TestKnowledgeUploadValidation(t *testing.T) {
	env := openKB(t, t.TempDir(), "docs", nil)
	o := newKnowledgeOS(t, env.store, agentos.Config{MaxUploadBytes: 4096, MaxFileBytes: 1024}, env.kb)
	h := o.Handler()
	big := make([]byte, 2000)
	for i := range big {
		big[i] = 'a'
	}
	for _, c := range []struct {
		name   string
		fields map[string]string
		files  []filePart
		status int
		want   string
	}{
		{"nothing", map[string]string{"name": "x"}, nil, 400, "Nothing to upload"},
		{"two sources", map[string]string{"text_content": "a", "url": "https://example.com/a.txt"}, nil, 400, "one of file, text_content and url"},
		{"two files", nil, []filePart{{field: "file", name: "a.txt", data: []byte("a")}, {field: "file", name: "b.txt", data: []byte("b")}}, 400, "one file per upload"},
		{"empty file", nil, []filePart{{field: "file", name: "a.txt"}}, 400, "Empty file: a.txt"},
		{"file too large", nil, []filePart{{field: "file", name: "big.txt", data: big}}, 413, "max_file_bytes"},
		{"chunk_size", map[string]string{"text_content": "a", "chunk_size": "ten"}, nil, 422, `"chunk_size"`},
		{"reader_id", map[string]string{"text_content": "a", "reader_id": "docx"}, nil, 400, "Invalid reader_id: docx"},
		{"chunker", map[string]string{"text_content": "a", "chunker": "SemanticChunker"}, nil, 400, "SemanticChunker"},
		{"overlap", map[string]string{"text_content": "a", "chunker": "FixedSizeChunker", "chunk_size": "10", "chunk_overlap": "10"}, nil, 400, "chunker"},
		{"urls", map[string]string{"url": `["https://a.example/x.txt", "https://b.example/y.txt"]`}, nil, 400, "one URL per upload"},
		{"metadata", map[string]string{"text_content": "a", "metadata": `[1, 2]`}, nil, 400, "JSON object"},
	} {
		rec := upload(t, h, "", c.fields, c.files...)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body)
		}
	}
	if _, page := getJSON(t, h, "/knowledge/content"); page["meta"].(map[string]any)["total_count"] != 0.0 {
		t.Errorf("refused uploads left contents: %v", page)
	}

	// Metadata that is not JSON is kept as {"value": …}, as agno does;
	// reader_id and chunker choose the reading.
	rec := upload(t, h, "", map[string]string{"text_content": "one two three four five six", "metadata": "plain words",
		"reader_id": "TextReader", "chunker": "FixedSizeChunker", "chunk_size": "10"})
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	if rec.Code != http.StatusAccepted || m["metadata"].(map[string]any)["value"] != "plain words" {
		t.Fatalf("plain metadata: %d %s", rec.Code, rec.Body)
	}
	waitContent(t, h, m["id"].(string))
	res := search(t, h, `{"query": "three four", "search_type": "keyword"}`)
	if got := contentsOf(res); len(got) < 2 {
		t.Errorf("chunk_size 10 gave %q", got)
	}

	// Search body validation is pydantic's.
	for body, want := range map[string]string{
		`{}`:                                     `"loc":["body","query"]`,
		`{"query": "x", "search_type": "fuzzy"}`: `Input should be 'vector', 'keyword' or 'hybrid'`,
		`{"query": "x", "max_results": 0}`:       `greater than or equal to 1`,
		`{"query": "x", "meta": {"page": 0}}`:    `"loc":["body","meta","page"]`,
	} {
		rec := do(t, h, "POST", "/knowledge/search", strings.NewReader(body), "Content-Type", "application/json")
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("search %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	rec = do(t, h, "POST", "/knowledge/search", strings.NewReader(`{"query": "x", "vector_db_ids": ["other"]}`), "Content-Type", "application/json")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "None of the provided Vector DB IDs ['other'] match the knowledge base Vector DB ID vdb-docs") {
		t.Errorf("vector_db_ids: %d %s", rec.Code, rec.Body)
	}
}

// With several knowledge bases the routes need knowledge_id (or an
// unambiguous db_id), as agno's get_knowledge_instance; /config lists
// them with agno's ids, and /registry lists them and their vector stores.
func TestKnowledgeInstancesConfigAndRegistry(t *testing.T) {
	dir := t.TempDir()
	docs, faq := openKB(t, dir, "docs", nil), openKB(t, dir, "faq", nil)
	// An agent's knowledge base is discovered; the explicit one is added.
	a, err := agent.New(agent.Config{Name: "Helper", Model: modeltest.New(), Knowledge: docs.kb})
	if err != nil {
		t.Fatal(err)
	}
	o := newKnowledgeOS(t, docs.store, agentos.Config{Agents: []*agent.Agent{a}}, faq.kb)
	h := o.Handler()
	id := func(name string) string {
		sum := sha256.Sum256([]byte("agno-db:agno_knowledge_contents:" + name))
		x := hex.EncodeToString(sum[:])
		return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
	}
	docsID, faqID := id("docs"), id("faq")

	code, m := getJSON(t, h, "/knowledge/content")
	if code != http.StatusBadRequest || m["detail"] != fmt.Sprintf("db_id or knowledge_id query parameter is required when using multiple knowledge bases. Available IDs: ['%s', '%s']", docsID, faqID) {
		t.Fatalf("no id: %d %v", code, m)
	}
	if code, m := getJSON(t, h, "/knowledge/content?db_id=agno-db"); code != http.StatusBadRequest || !strings.HasPrefix(m["detail"].(string), "Multiple knowledge instances found for db_id 'agno-db'. Please specify knowledge_id parameter.") {
		t.Errorf("shared db_id: %d %v", code, m)
	}
	if code, m := getJSON(t, h, "/knowledge/content?db_id=other"); code != http.StatusNotFound || m["detail"] != "Knowledge instance with db_id 'other' not found" {
		t.Errorf("unknown db_id: %d %v", code, m)
	}
	if code, m := getJSON(t, h, "/knowledge/content?knowledge_id=nope"); code != http.StatusNotFound || m["detail"] != "Knowledge base 'nope' not found" {
		t.Errorf("unknown knowledge_id: %d %v", code, m)
	}
	rec := upload(t, h, "?knowledge_id="+faqID, map[string]string{"text_content": "Refunds take five working days.", "metadata": `{"topic": "billing"}`})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	var up map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &up)
	if st := waitContent(t, h, up["id"].(string), "?knowledge_id="+faqID); st["status"] != "completed" {
		t.Fatalf("status %v", st)
	}
	if _, page := getJSON(t, h, "/knowledge/content?knowledge_id="+docsID); page["meta"].(map[string]any)["total_count"] != 0.0 {
		t.Errorf("docs sees faq's content: %v", page)
	}
	if got := contentsOf(search(t, h, `{"query": "refunds working days", "knowledge_id": "`+faqID+`"}`)); len(got) != 1 {
		t.Errorf("faq search %q", got)
	}

	// /knowledge/config: readers, chunkers, the filter keys, the store.
	_, cfg := getJSON(t, h, "/knowledge/config?knowledge_id="+faqID)
	readers := cfg["readers"].(map[string]any)
	pdf := readers["pdf"].(map[string]any)
	if pdf["id"] != "pdf" || pdf["name"] == "" || !slices.Contains(anyStrings(pdf["chunkers"]), "FixedSizeChunker") {
		t.Errorf("readers %v", readers)
	}
	if rt := cfg["readersForType"].(map[string]any); !slices.Equal(anyStrings(rt[".pdf"]), []string{"pdf"}) || !slices.Contains(anyStrings(rt["url"]), "website") {
		t.Errorf("readersForType %v", rt)
	}
	fixed := cfg["chunkers"].(map[string]any)["FixedSizeChunker"].(map[string]any)
	if fixed["key"] != "FixedSizeChunker" || fixed["metadata"].(map[string]any)["chunk_size"] != 5000.0 {
		t.Errorf("chunkers %v", cfg["chunkers"])
	}
	if !slices.Equal(anyStrings(cfg["filters"]), []string{"topic"}) {
		t.Errorf("filters %v", cfg["filters"])
	}
	vdbs := cfg["vector_dbs"].([]any)
	if v := vdbs[0].(map[string]any); len(vdbs) != 1 || v["id"] != "vdb-faq" || v["name"] != "SqliteVec" || !slices.Equal(anyStrings(v["search_types"]), []string{"vector", "keyword", "hybrid"}) {
		t.Errorf("vector_dbs %v", vdbs)
	}
	if _, ok := cfg["remote_content_sources"]; !ok || cfg["remote_content_sources"] != nil {
		t.Errorf("remote_content_sources %v", cfg["remote_content_sources"])
	}

	// Remote sources: none configured.
	if rec := do(t, h, "GET", "/knowledge/"+faqID+"/sources", nil); rec.Code != http.StatusOK || rec.Body.String() != "[]" {
		t.Errorf("sources %d %s", rec.Code, rec.Body)
	}
	if code, m := getJSON(t, h, "/knowledge/nope/sources"); code != http.StatusNotFound || m["detail"] != "Knowledge base 'nope' not found" {
		t.Errorf("sources of unknown %d %v", code, m)
	}
	if code, m := getJSON(t, h, "/knowledge/"+faqID+"/sources/s3-docs/files"); code != http.StatusNotFound || m["detail"] != "Content source not found: s3-docs" {
		t.Errorf("source files %d %v", code, m)
	}
	if rec := do(t, h, "GET", "/knowledge/"+faqID+"/sources/s3/files?limit=5000", nil); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("limit 5000: %d", rec.Code)
	}
	form := url.Values{"config_id": {"s3-docs"}}
	if rec := do(t, h, "POST", "/knowledge/remote-content?knowledge_id="+faqID, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded"); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"loc":["body","path"]`) {
		t.Errorf("remote without path: %d %s", rec.Code, rec.Body)
	}
	form.Set("path", "reports/")
	if rec := do(t, h, "POST", "/knowledge/remote-content?knowledge_id="+faqID, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded"); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "Unknown content source: s3-docs. Check /knowledge/config for available sources.") {
		t.Errorf("remote: %d %s", rec.Code, rec.Body)
	}

	// /config lists the contents DB and both instances.
	_, conf := getJSON(t, h, "/config")
	kc := conf["knowledge"].(map[string]any)
	dbs := kc["dbs"].([]any)
	db0 := dbs[0].(map[string]any)
	if len(dbs) != 1 || db0["db_id"] != "agno-db" || !slices.Equal(anyStrings(db0["tables"]), []string{"agno_knowledge_contents"}) ||
		db0["domain_config"].(map[string]any)["display_name"] != "agno-db" {
		t.Errorf("knowledge dbs %v", dbs)
	}
	inst := kc["knowledge_instances"].([]any)
	if len(inst) != 2 || inst[0].(map[string]any)["id"] != docsID || inst[0].(map[string]any)["name"] != "docs" ||
		inst[1].(map[string]any)["table"] != "agno_knowledge_contents" || inst[1].(map[string]any)["description"] != "The faq" {
		t.Errorf("knowledge_instances %v", inst)
	}

	// The agent lists its knowledge base as agno's AgentResponse does.
	if _, ag := getJSON(t, h, "/agents/helper"); ag["knowledge"] == nil || ag["knowledge"].(map[string]any)["knowledge_table"] != "agno_knowledge_contents" ||
		ag["knowledge"].(map[string]any)["db_id"] != "agno-db" {
		t.Errorf("agent knowledge %v", ag["knowledge"])
	}

	// /registry: the knowledge bases and their vector stores.
	_, reg := getJSON(t, h, "/registry?resource_type=knowledge")
	var names []string
	for _, e := range reg["data"].([]any) {
		entry := e.(map[string]any)
		names = append(names, entry["name"].(string))
		if md := entry["metadata"].(map[string]any); md["class_path"] != "agno.knowledge.knowledge.Knowledge" || !strings.HasSuffix(md["vector_db_class"].(string), "sqlitevec.Store") || md["max_results"] != 5.0 {
			t.Errorf("knowledge entry %v", entry)
		}
	}
	if !slices.Equal(names, []string{"docs", "faq"}) {
		t.Errorf("registry knowledge %v", names)
	}
	_, reg = getJSON(t, h, "/registry?resource_type=vector_db")
	var vdbIDs []string
	for _, e := range reg["data"].([]any) {
		entry := e.(map[string]any)
		vdbIDs = append(vdbIDs, entry["id"].(string))
		if md := entry["metadata"].(map[string]any); !strings.HasPrefix(md["table_name"].(string), "agno_knowledge_") {
			t.Errorf("vector_db entry %v", entry)
		}
	}
	slices.Sort(vdbIDs)
	if !slices.Equal(vdbIDs, []string{"vdb-docs", "vdb-faq"}) {
		t.Errorf("registry vector dbs %v", vdbIDs)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// blockingEmbedder holds every embedding until released, like a slow
// model endpoint.
type blockingEmbedder struct {
	embedder.Embedder
	entered chan struct{}
	once    sync.Once
}

func (b *blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, embedder.Usage, error) {
	b.once.Do(func() { close(b.entered) })
	<-ctx.Done()
	return nil, embedder.Usage{}, ctx.Err()
}

// An upload accepted before a shutdown is ingested by the next start:
// the job waits in the database, the content stays processing, and the
// restarted OS completes it.
func TestKnowledgeUploadSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	block := &blockingEmbedder{Embedder: lexical(t), entered: make(chan struct{})}
	first := openKB(t, dir, "docs", block)
	o1, err := agentos.New(agentos.Config{Store: first.store, Knowledge: []*knowledge.Knowledge{first.kb}})
	if err != nil {
		t.Fatal(err)
	}
	h1 := o1.Handler()
	fx := kbtest.WriteTree(t, t.TempDir())
	data, _ := os.ReadFile(fx.PDF)
	rec := upload(t, h1, "", map[string]string{"metadata": `{"kind": "handbook"}`}, filePart{field: "file", name: "handbook.pdf", contentType: "application/pdf", data: data})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("upload %d %s", rec.Code, rec.Body)
	}
	var up map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &up)
	id := up["id"].(string)
	select {
	case <-block.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the ingestion never started")
	}
	if err := o1.Close(); err != nil { // the process stops mid-ingestion
		t.Fatal(err)
	}
	if st, msg, err := first.kb.GetContentStatus(t.Context(), id); err != nil || st != "processing" {
		t.Fatalf("after shutdown: %s %q %v", st, msg, err)
	}

	// A new process on the same database resumes the upload.
	second := openKB(t, dir, "docs", nil)
	o2 := newKnowledgeOS(t, second.store, agentos.Config{}, second.kb)
	h2 := o2.Handler()
	if st := waitContent(t, h2, id); st["status"] != "completed" {
		t.Fatalf("after restart: %v", st)
	}
	if got := contentsOf(search(t, h2, `{"query": "nightly snapshots thirty days"}`)); len(got) == 0 || got[0] != kbtest.PDFPage1 {
		t.Fatalf("search after restart %q", got)
	}
	_, c := getJSON(t, h2, "/knowledge/content/"+id)
	if c["name"] != "handbook.pdf" || c["metadata"].(map[string]any)["kind"] != "handbook" {
		t.Errorf("resumed content %v", c)
	}
	// The finished job is gone from storage; a third start does nothing.
	for {
		session := "agno-knowledge-upload:" + kbID(t, h2) + ":" + id
		_, err := second.store.GetBlob(t.Context(), session, session+"/job")
		if errors.Is(err, storage.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func kbID(t *testing.T, h http.Handler) string {
	t.Helper()
	_, conf := getJSON(t, h, "/config")
	return conf["knowledge"].(map[string]any)["knowledge_instances"].([]any)[0].(map[string]any)["id"].(string)
}

// An agent run through AgentOS returns and stores agno's references.
func TestRunReferencesThroughAgentOS(t *testing.T) {
	env := openKB(t, t.TempDir(), "docs", nil)
	if _, err := env.kb.Insert(t.Context(), knowledge.Input{Name: "policy", TextContent: "Laptops are replaced every three years."}); err != nil {
		t.Fatal(err)
	}
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "Every three years."}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "search_knowledge_base", `{"query":"laptop replacement"}`)}}
	})
	a, err := agent.New(agent.Config{Name: "IT", Model: m, Knowledge: env.kb, Store: env.store})
	if err != nil {
		t.Fatal(err)
	}
	o := newKnowledgeOS(t, env.store, agentos.Config{Agents: []*agent.Agent{a}})
	h := o.Handler()
	form := url.Values{"message": {"When are laptops replaced?"}, "stream": {"false"}, "session_id": {"s1"}}
	rec := do(t, h, "POST", "/agents/it/runs", strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("run %d %s", rec.Code, rec.Body)
	}
	refs, _ := out["references"].([]any)
	if len(refs) != 1 || refs[0].(map[string]any)["query"] != "laptop replacement" {
		t.Fatalf("run references %v", out["references"])
	}
	rec = do(t, h, "GET", "/sessions/s1/runs", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"references":[{"query":"laptop replacement","references":[{`) ||
		!strings.Contains(rec.Body.String(), "Laptops are replaced every three years.") {
		t.Errorf("stored run: %d %s", rec.Code, rec.Body)
	}
	// The knowledge base of the agent is served without being passed.
	if _, page := getJSON(t, h, "/knowledge/content"); page["meta"].(map[string]any)["total_count"] != 1.0 {
		t.Errorf("agent knowledge not served: %v", page)
	}
}
