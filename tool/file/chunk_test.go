package file

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadAndReplaceChunk(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.base, "l.txt"), "l0\nl1\nl2\nl3\nl4")
	for _, c := range []struct {
		start, end int
		want       string
	}{
		{0, 0, "l0"},
		{1, 3, "l1\nl2\nl3"},
		{3, 99, "l3\nl4"},
		{-2, 10, "l3\nl4"}, // Python's negative indices
		{4, 2, ""},
	} {
		if out := f.ok("read_file_chunk", map[string]any{"file_name": "l.txt", "start_line": c.start, "end_line": c.end}); out != c.want {
			t.Errorf("read_file_chunk(%d, %d) = %q, want %q", c.start, c.end, out, c.want)
		}
	}
	if out := f.ok("replace_file_chunk", map[string]any{"file_name": "l.txt", "start_line": 1, "end_line": 2, "chunk": "A\nB\nC"}); out != "l.txt" {
		t.Fatalf("replace_file_chunk = %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(f.base, "l.txt")); string(got) != "l0\nA\nB\nC\nl3\nl4" {
		t.Fatalf("after replace: %q", got)
	}
	if _, err := f.call("replace_file_chunk", map[string]any{"file_name": "out/secret.txt", "start_line": 0, "end_line": 0, "chunk": "pwned"}); !errors.Is(err, ErrOutsideBase) {
		t.Fatalf("replace through an outside symlink: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(got) != "secret" {
		t.Fatalf("secret changed: %q", got)
	}
	tk, err := New(Config{BaseDir: f.base, LineSeparator: ";"})
	if err != nil {
		t.Fatal(err)
	}
	f.tk = tk
	write(t, filepath.Join(f.base, "s.txt"), "a;b;c")
	if out := f.ok("read_file_chunk", map[string]any{"file_name": "s.txt", "start_line": 1, "end_line": 1}); out != "b" {
		t.Fatalf("line_separator: %q", out)
	}
}

func TestDeleteFile(t *testing.T) {
	f := newFixture(t)
	tk, err := New(Config{BaseDir: f.base, Functions: &Functions{DeleteFile: true}})
	if err != nil {
		t.Fatal(err)
	}
	f.tk = tk
	if out := f.ok("delete_file", map[string]any{"file_name": "a.txt"}); out != "" {
		t.Fatalf("delete_file = %q", out)
	}
	if _, err := os.Stat(filepath.Join(f.base, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a.txt still there: %v", err)
	}
	if err := os.Mkdir(filepath.Join(f.base, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.ok("delete_file", map[string]any{"file_name": "empty"})
	if _, err := f.call("delete_file", map[string]any{"file_name": "sub"}); err == nil {
		t.Fatal("a non-empty directory was removed")
	}
	for _, name := range []string{"../outside/secret.txt", filepath.Join(f.outside, "secret.txt"), "out/secret.txt", "secretln", "."} {
		if _, err := f.call("delete_file", map[string]any{"file_name": name}); err == nil {
			t.Errorf("delete_file(%q) accepted", name)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "secret.txt")); err != nil {
		t.Fatalf("the secret outside was deleted: %v", err)
	}
}

func TestSearchContent(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("x", 300) + "Needle" + strings.Repeat("y", 300)
	write(t, filepath.Join(f.base, "sub", "n.md"), long)
	write(t, filepath.Join(f.base, "sub", "deeper", "n.txt"), "a NEEDLE here")
	write(t, filepath.Join(f.base, "n.bin"), "needle") // not a text extension
	write(t, filepath.Join(f.base, "big.log"), "needle"+strings.Repeat("z", maxSearchFileSize))
	write(t, filepath.Join(f.outside, "n.txt"), "needle outside")

	out := f.ok("search_content", map[string]any{"query": "needle"})
	var got contentResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// os.walk's order: a directory's files before its subdirectories.
	if got.MatchesFound != 2 || got.Files[0].File != "sub/n.md" || got.Files[1].File != "sub/deeper/n.txt" {
		t.Fatalf("search_content = %s", out)
	}
	want := "..." + strings.Repeat("x", 200) + "Needle" + strings.Repeat("y", 200) + "..."
	if got.Files[0].Snippet != want || got.Files[0].Size != "606B" || got.Files[1].Snippet != "a NEEDLE here" {
		t.Fatalf("match = %+v", got.Files[0])
	}
	if out := f.ok("search_content", map[string]any{"query": "needle", "limit": 1}); !strings.Contains(out, `"matches_found": 1`) {
		t.Fatalf("limit 1: %s", out)
	}
	if out := f.ok("search_content", map[string]any{"query": "needle", "directory": "sub/deeper"}); !strings.Contains(out, `"file": "sub/deeper/n.txt"`) || !strings.Contains(out, `"matches_found": 1`) {
		t.Fatalf("directory: %s", out)
	}
	if out := f.ok("search_content", map[string]any{"query": "zzz nothing"}); out != "{\n  \"query\": \"zzz nothing\",\n  \"matches_found\": 0,\n  \"files\": []\n}" {
		t.Fatalf("layout: %s", out)
	}
	for _, dir := range []string{"out", "..", f.outside} {
		if _, err := f.call("search_content", map[string]any{"query": "needle", "directory": dir}); !errors.Is(err, ErrOutsideBase) {
			t.Errorf("directory %q: %v", dir, err)
		}
	}
	if _, err := f.call("search_content", map[string]any{"query": "needle", "directory": "a.txt"}); err == nil || err.Error() != "Error: 'a.txt' is not a directory" {
		t.Fatalf("file as directory: %v", err)
	}
	for n, want := range map[int64]string{0: "0B", 1023: "1023B", 1024: "1.0KB", 1536: "1.5KB", 5 << 20: "5.0MB", 3 << 30: "3.0GB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestExcludePatterns checks agno's default exclusions (version control,
// dependencies, secrets) in list_files, search_files and search_content,
// and that an empty list turns them off.
func TestExcludePatterns(t *testing.T) {
	f := newFixture(t)
	for _, d := range []string{".git", "node_modules/pkg"} {
		if err := os.MkdirAll(filepath.Join(f.base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(f.base, ".git", "x.txt"), "needle")
	write(t, filepath.Join(f.base, "node_modules", "pkg", "a.md"), "needle")
	write(t, filepath.Join(f.base, ".env.txt"), "needle")
	write(t, filepath.Join(f.base, "kept.txt"), "needle")
	list := f.ok("list_files", map[string]any{})
	search := f.ok("search_files", map[string]any{"pattern": "**/*.txt"})
	content := f.ok("search_content", map[string]any{"query": "needle"})
	for _, out := range []string{list, search, content} {
		if strings.Contains(out, ".git") || strings.Contains(out, "node_modules") || strings.Contains(out, ".env.txt") || !strings.Contains(out, "kept.txt") {
			t.Errorf("default exclusions not applied:\n%s", out)
		}
	}
	tk, err := New(Config{BaseDir: f.base, ExcludePatterns: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	f.tk = tk
	if out := f.ok("search_content", map[string]any{"query": "needle"}); !strings.Contains(out, `"matches_found": 4`) {
		t.Errorf("exclude_patterns = []: %s", out)
	}
}
