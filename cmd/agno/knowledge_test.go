package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/internal/kbtest"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
)

// runAgno runs the command line in this process.
func runAgno(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

const knowledgeConfig = `
[knowledge.docs]
description = "Operations documentation"
search_type = "hybrid"
`

// openDocs opens the config's knowledge base the way AgentOS does.
func openDocs(t *testing.T, cfgPath string) *knowledge.Knowledge {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.OpenKnowledge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Close() })
	return res.Knowledge["docs"]
}

func topResult(t *testing.T, kb *knowledge.Knowledge, query string) string {
	t.Helper()
	docs, err := kb.Search(context.Background(), query, knowledge.SearchOptions{MaxResults: 1})
	if err != nil || len(docs) == 0 {
		t.Fatalf("search %q: %v %v", query, docs, err)
	}
	return docs[0].Content
}

// `agno knowledge add DIR` ingests a tree with a PDF, markdown files in
// nested directories and a CSV into the configured SQLite file, one line
// per file when stderr is not a terminal.
func TestKnowledgeAddDirectory(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	writeTree(t, dir, map[string]string{"config.toml": knowledgeConfig})
	fx := kbtest.WriteTree(t, filepath.Join(dir, "docs"))

	stdout, stderr, err := runAgno(t, "knowledge", "add", fx.Root, "--config", cfgPath, "--metadata", `{"source": "ops-share"}`)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := []string{"[1/4] data/servers.csv: completed", "[2/4] guide/intro.md: completed", "[3/4] guide/setup/install.md: completed", "[4/4] handbook.pdf: completed"}
	if !slices.Equal(lines, want) {
		t.Errorf("progress lines %q", lines)
	}
	if wantOut := fmt.Sprintf("Ingested 4 of 4 into knowledge base %q (%s).\n", "docs", filepath.Join(dir, "agno.db")); stdout != wantOut {
		t.Errorf("stdout %q, want %q", stdout, wantOut)
	}

	kb := openDocs(t, cfgPath)
	list, total, err := kb.GetContent(context.Background(), contents.ListOptions{SortBy: "name", SortOrder: "asc"})
	if err != nil || total != 4 {
		t.Fatalf("contents %d %v", total, err)
	}
	var names []string
	for _, c := range list {
		names = append(names, c.Name)
		if c.Status != contents.StatusCompleted || c.Metadata["source"] != "ops-share" {
			t.Errorf("content %+v", c)
		}
	}
	if !slices.Equal(names, []string{"handbook.pdf", "install.md", "intro.md", "servers.csv"}) {
		t.Errorf("names %v", names)
	}
	if got := topResult(t, kb, "nightly snapshots thirty days"); got != kbtest.PDFPage1 {
		t.Errorf("pdf: %q", got)
	}
	if got := topResult(t, kb, "installer offline flag proxy"); !strings.Contains(got, kbtest.InstallFix) {
		t.Errorf("markdown: %q", got)
	}
	if got := topResult(t, kb, "db-1 us-east database"); !strings.Contains(got, "db-1") {
		t.Errorf("csv: %q", got)
	}

	// Again with --skip-if-exists: nothing changes, and it says so.
	if stdout, stderr, err := runAgno(t, "knowledge", "add", fx.Root, "--config", cfgPath, "--metadata", `{"source": "ops-share"}`, "--skip-if-exists", "--include", "*.md"); err != nil ||
		!strings.Contains(stderr, "[2/2] guide/setup/install.md: skipped (already stored: --skip-if-exists)") ||
		!strings.Contains(stdout, "Ingested 0 of 2") || !strings.Contains(stdout, "; 2 already stored, skipped.") {
		t.Fatalf("rerun: %v\n%s\n%s", err, stdout, stderr)
	}
	if _, total, _ := kb.GetContent(context.Background(), contents.ListOptions{}); total != 4 {
		t.Errorf("rerun made %d contents", total)
	}
}

// On a terminal the directory gets a progress bar redrawn in place.
func TestKnowledgeAddProgressBar(t *testing.T) {
	prev := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stderrIsTerminal = prev })
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"config.toml": knowledgeConfig, "notes/a.txt": "alpha notes", "notes/b.txt": "beta notes", "notes/bad.pdf": "not a pdf"})
	_, stderr, err := runAgno(t, "knowledge", "add", filepath.Join(dir, "notes"), "--config", filepath.Join(dir, "config.toml"))
	if err == nil || !strings.Contains(err.Error(), "1 of 3 failed") {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(stderr, "\r\033[K[##########....................] 1/3 a.txt") ||
		!strings.Contains(stderr, "\r\033[K[##############################] 3/3 bad.pdf") ||
		!strings.Contains(stderr, "bad.pdf: failed: ") || !strings.Contains(stderr, "3/3 files in ") {
		t.Errorf("terminal output %q", stderr)
	}
	if exitCode(err) != 1 {
		t.Errorf("exit code %d", exitCode(err))
	}
}

// A URL is downloaded and read by its type. The site is on loopback,
// which [outbound] allow must open first.
func TestKnowledgeAddURL(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(kbtest.CSVHeader + "\nmail-1,ap-south,mail\n"))
	}))
	defer site.Close()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"config.toml": knowledgeConfig})
	cfgPath := filepath.Join(dir, "config.toml")
	_, stderr, err := runAgno(t, "knowledge", "add", site.URL+"/inventory.csv", "--config", cfgPath, "--knowledge", "docs")
	if err == nil || !strings.Contains(stderr, `add "127.0.0.1/32" to [outbound] allow in config.toml`) {
		t.Fatalf("without [outbound] allow: %v\n%s", err, stderr)
	}
	writeTree(t, dir, map[string]string{"config.toml": knowledgeConfig + "[outbound]\nallow = [\"127.0.0.1/32\"]\n"})
	if _, stderr, err := runAgno(t, "knowledge", "add", site.URL+"/inventory.csv", "--config", cfgPath, "--knowledge", "docs"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	kb := openDocs(t, cfgPath)
	list, _, _ := kb.GetContent(context.Background(), contents.ListOptions{})
	if len(list) != 1 || list[0].FileType != "url" || list[0].Status != contents.StatusCompleted {
		t.Fatalf("contents %+v", list)
	}
	if got := topResult(t, kb, "mail-1 ap-south"); !strings.Contains(got, "mail-1") {
		t.Errorf("url content %q", got)
	}
}

// Mistakes get a message with the fix; usage errors exit 2.
func TestKnowledgeAddErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"none.toml": "",
		"two.toml":  "[knowledge.docs]\n[knowledge.faq]\n",
		"one.toml":  knowledgeConfig,
		"f.txt":     "x",
	})
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--config", filepath.Join(dir, "none.toml"), filepath.Join(dir, "f.txt")}, 2, "has no knowledge base: add one"},
		{[]string{"--config", filepath.Join(dir, "two.toml"), filepath.Join(dir, "f.txt")}, 2, "choose one with --knowledge (docs, faq)"},
		{[]string{"--config", filepath.Join(dir, "one.toml"), "--knowledge", "faq", filepath.Join(dir, "f.txt")}, 2, "has no [knowledge.faq]; it has docs"},
		{[]string{"--config", filepath.Join(dir, "one.toml"), filepath.Join(dir, "missing")}, 1, "no such file or directory; give a file, a directory or an http(s) URL"},
		{[]string{"--config", filepath.Join(dir, "one.toml"), "ftp://example.com/a.txt"}, 1, "only http and https URLs"},
		{[]string{"--config", filepath.Join(dir, "one.toml"), "--metadata", "[1]", filepath.Join(dir, "f.txt")}, 2, "--metadata must be a JSON object"},
		{[]string{"--config", filepath.Join(dir, "one.toml")}, 2, "give one file, directory or URL"},
	} {
		_, _, err := runAgno(t, append([]string{"knowledge", "add"}, c.args...)...)
		if err == nil || exitCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %d %v", c.args, exitCode(err), err)
		}
	}
}

// End to end with the binary: `agno knowledge add` fills the knowledge
// base, `agno agentos start` on the same config serves it, and uploads
// of a PDF, a markdown file and a CSV through the API are ingested too.
func TestE2EKnowledgeCLIAndAPI(t *testing.T) {
	bin := agnoBinary(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"config.toml": knowledgeConfig + "\n[agentos]\nregistry_auto_populate = false\n",
	})
	cfgPath := filepath.Join(dir, "config.toml")
	fx := kbtest.WriteTree(t, filepath.Join(dir, "docs"))
	out, err := exec.Command(bin, "knowledge", "add", fx.Markdown, "--config", cfgPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "[2/2] setup/install.md: completed") || !strings.Contains(string(out), "Ingested 2 of 2") {
		t.Fatalf("knowledge add: %v\n%s", err, out)
	}

	p := startAgno(t, bin, []string{"agentos", "start", "--config", cfgPath}, nil)
	var page struct {
		Data []map[string]any `json:"data"`
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	getJSON(t, p.base+"/knowledge/content", &page)
	if page.Meta.TotalCount != 2 {
		t.Fatalf("contents served: %+v", page)
	}
	for _, f := range []struct{ path, ct string }{{fx.PDF, "application/pdf"}, {fx.CSV, "text/csv"}, {filepath.Join(fx.Markdown, "intro.md"), ""}} {
		id := uploadFile(t, p.base, f.path, f.ct)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var st map[string]any
			getJSON(t, p.base+"/knowledge/content/"+id+"/status", &st)
			if st["status"] == "completed" {
				break
			}
			if st["status"] == "failed" || time.Now().After(deadline) {
				t.Fatalf("upload %s: %v", f.path, st)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	getJSON(t, p.base+"/knowledge/content", &page)
	// intro.md is there twice: agno hashes a path and an upload apart.
	if page.Meta.TotalCount != 5 {
		t.Errorf("after uploads: %d contents", page.Meta.TotalCount)
	}
	for query, want := range map[string]string{"restores tested every quarter": kbtest.PDFPage2, "cache-1 eu-west cache": "cache-1", "installer offline flag": kbtest.InstallFix} {
		body := strings.NewReader(`{"query": "` + query + `", "max_results": 1}`)
		resp, err := http.Post(p.base+"/knowledge/search", "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Data []struct {
				Content string `json:"content"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		if len(res.Data) != 1 || !strings.Contains(res.Data[0].Content, want) {
			t.Errorf("search %q: %+v", query, res)
		}
	}
	var conf map[string]any
	getJSON(t, p.base+"/config", &conf)
	inst := conf["knowledge"].(map[string]any)["knowledge_instances"].([]any)
	if len(inst) != 1 || inst[0].(map[string]any)["name"] != "docs" || inst[0].(map[string]any)["description"] != "Operations documentation" {
		t.Errorf("config knowledge %v", conf["knowledge"])
	}
	p.stop(t)
}

func uploadFile(t *testing.T, base, path, contentType string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	hdr := map[string][]string{"Content-Disposition": {`form-data; name="file"; filename="` + filepath.Base(path) + `"`}}
	if contentType != "" {
		hdr["Content-Type"] = []string{contentType}
	}
	w, err := mw.CreatePart(hdr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data)
	_ = mw.Close()
	resp, err := http.Post(base+"/knowledge/content", mw.FormDataContentType(), &b)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("upload %s: %d %s", path, resp.StatusCode, raw)
	}
	return m["id"].(string)
}
