package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	t             *testing.T
	root, outside string
	tk            *tool.Toolkit
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "root"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(root, "src", "deep", "deeper"), filepath.Join(root, ".git"), filepath.Join(root, "node_modules"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range map[string]string{
		filepath.Join(outside, "secret.txt"):                 "secret",
		filepath.Join(root, "a.py"):                          "def f():\n    return 'Needle'\n",
		filepath.Join(root, "src", "b.md"):                   "# needle doc\n",
		filepath.Join(root, "src", "deep", "c.go"):           "package c",
		filepath.Join(root, "src", "deep", "deeper", "d.go"): "package d",
		filepath.Join(root, ".git", "config.txt"):            "needle in git",
		filepath.Join(root, "node_modules", "m.js"):          "needle",
	} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	cfg.Root = root
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, root: root, outside: outside, tk: tk}
}

func (f *fixture) call(name string, args map[string]any) string {
	f.t.Helper()
	fns, _ := f.tk.Functions(context.Background())
	for _, fn := range fns {
		if fn.Name == name {
			res, err := fn.Invoke(context.Background(), &tool.Call{Function: fn}, args)
			if err != nil {
				f.t.Fatalf("%s(%v): %v", name, args, err)
			}
			return res.Content
		}
	}
	f.t.Fatalf("no tool %q", name)
	return ""
}

func TestSurfaceAndConfirmation(t *testing.T) {
	f := newFixture(t, Config{})
	fns, _ := f.tk.Functions(context.Background())
	var names, confirmed []string
	for _, fn := range fns {
		names = append(names, fn.Name)
		if fn.RequiresConfirmation {
			confirmed = append(confirmed, fn.Name)
		}
	}
	if strings.Join(names, ",") != "read_file,list_files,search_content,write_file,edit_file,move_file,delete_file,run_command" ||
		strings.Join(confirmed, ",") != "write_file,edit_file,move_file,delete_file,run_command" {
		t.Fatalf("functions %v, confirmed %v", names, confirmed)
	}
	if f.tk.Instructions() != editInstructions {
		t.Fatalf("instructions %q", f.tk.Instructions())
	}
	ro, err := New(Config{Root: f.root, Allowed: []string{"read", "search"}})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ = ro.Functions(context.Background())
	if len(fns) != 2 || fns[0].RequiresConfirmation || ro.Instructions() != "" {
		t.Fatalf("allowed only: %d functions, instructions %q", len(fns), ro.Instructions())
	}
	for _, c := range []struct{ allowed, confirm []string }{{[]string{"fly"}, nil}, {[]string{"read"}, []string{"read"}}} {
		if _, err := New(Config{Root: f.root, Allowed: c.allowed, Confirm: c.confirm}); err == nil {
			t.Errorf("allowed %v confirm %v accepted", c.allowed, c.confirm)
		}
	}
}

func TestFiles(t *testing.T) {
	f := newFixture(t, Config{RequireReadBeforeWrite: true})
	if got := f.call("read_file", map[string]any{"path": "a.py"}); got != "     1\tdef f():\n     2\t    return 'Needle'" {
		t.Fatalf("read_file = %q", got)
	}
	if got := f.call("read_file", map[string]any{"path": "a.py", "start_line": 2, "end_line": 9}); got != "     2\t    return 'Needle'" {
		t.Fatalf("read_file chunk = %q", got)
	}
	if got := f.call("edit_file", map[string]any{"path": "src/b.md", "old_str": "doc", "new_str": "page"}); !strings.HasPrefix(got, "Error: require_read_before_write is enabled and b.md hasn't been read this session.") {
		t.Fatalf("edit before read = %q", got)
	}
	f.call("read_file", map[string]any{"path": "src/b.md"})
	if got := f.call("edit_file", map[string]any{"path": "src/b.md", "old_str": "e", "new_str": "E", "replace_all": true}); got != "Edited src/b.md: replaced 3 occurrences" {
		t.Fatalf("edit_file = %q", got)
	}
	if got := f.call("write_file", map[string]any{"path": "new/n.txt", "content": "ünï"}); got != "Wrote 3 chars to new/n.txt" {
		t.Fatalf("write_file = %q", got)
	}
	if got := f.call("write_file", map[string]any{"path": "new/n.txt", "content": "x", "overwrite": false}); got != "Error: file exists and overwrite=False: new/n.txt" {
		t.Fatalf("no overwrite = %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "new", "n.txt.tmp")); err == nil {
		t.Fatal("the .tmp file was left behind")
	}
	if got := f.call("move_file", map[string]any{"src": "new/n.txt", "dst": "moved/m.txt"}); got != "Moved new/n.txt -> moved/m.txt" {
		t.Fatalf("move_file = %q", got)
	}
	// The move carries the read status: deleting needs no new read.
	if got := f.call("delete_file", map[string]any{"path": "moved/m.txt"}); got != "Deleted moved/m.txt" {
		t.Fatalf("delete_file = %q", got)
	}
	for _, p := range []string{"../outside/secret.txt", filepath.Join(f.outside, "secret.txt"), "out/secret.txt"} {
		for fn, args := range map[string]map[string]any{
			"read_file":   {"path": p},
			"write_file":  {"path": p, "content": "pwned"},
			"edit_file":   {"path": p, "old_str": "secret", "new_str": "pwned"},
			"delete_file": {"path": p},
		} {
			if got := f.call(fn, args); got != "Error: path escapes workspace root" {
				t.Errorf("%s(%q) = %q", fn, p, got)
			}
		}
		if got := f.call("move_file", map[string]any{"src": "a.py", "dst": p}); got != "Error: dst escapes workspace root" {
			t.Errorf("move to %q = %q", p, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(b) != "secret" {
		t.Fatalf("secret changed: %q", b)
	}
}

func TestListAndSearch(t *testing.T) {
	f := newFixture(t, Config{})
	var l listing
	out := f.call("list_files", map[string]any{})
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range l.Files {
		paths = append(paths, e.Path+":"+e.Type)
	}
	// .git and node_modules are excluded; the symlink leaving the root is skipped.
	if strings.Join(paths, ",") != "a.py:file,src:dir" || *l.Files[0].Size != "29B" || l.Files[1].Size != nil {
		t.Fatalf("list_files = %s", out)
	}
	out = f.call("list_files", map[string]any{"recursive": true, "max_depth": 2, "pattern": "*.go"})
	if !strings.Contains(out, `"path": "src/deep/c.go"`) || strings.Contains(out, "d.go") {
		t.Fatalf("recursive depth 2 = %s", out)
	}
	out = f.call("list_files", map[string]any{"pattern": "**/*.go"})
	if !strings.Contains(out, "src/deep/deeper/d.go") {
		t.Fatalf("glob = %s", out)
	}
	if got := f.call("list_files", map[string]any{"directory": "out"}); got != "Error: directory escapes workspace root" {
		t.Fatalf("list out = %q", got)
	}
	out = f.call("search_content", map[string]any{"query": "NEEDLE"})
	if !strings.Contains(out, `"matches_found": 2`) || !strings.Contains(out, `"file": "a.py"`) || !strings.Contains(out, `"file": "src/b.md"`) {
		t.Fatalf("search_content = %s", out)
	}
}

func TestRunCommand(t *testing.T) {
	f := newFixture(t, Config{})
	if got := f.call("run_command", map[string]any{"args": []any{"printf", "\x1b[31mred\x1b[0m\\n1\\n2\\n3\\n"}, "tail": 2}); got != "2\n3" {
		t.Fatalf("tail = %q", got)
	}
	if got := f.call("run_command", map[string]any{"args": []any{"printf", "\x1b[31mred\x1b[0m"}}); got != "red" {
		t.Fatalf("ansi = %q", got)
	}
	if got := f.call("run_command", map[string]any{"args": []any{"sleep", "30"}, "timeout": 1}); got != "Error: command timed out after 1 seconds" {
		t.Fatalf("timeout = %q", got)
	}
	if got := f.call("run_command", map[string]any{"args": []any{"no-such-command-xyz"}}); !strings.HasPrefix(got, "Error running command: ") {
		t.Fatalf("missing = %q", got)
	}
}
