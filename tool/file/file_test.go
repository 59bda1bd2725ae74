package file

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	t       *testing.T
	base    string
	outside string
	tk      *tool.Toolkit
}

// newFixture is a base directory next to an outside directory holding a
// secret, with symlinks from inside the base to outside it.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	base := filepath.Join(root, "base")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{base, outside, filepath.Join(base, "sub", "deeper")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	write(t, filepath.Join(base, "a.txt"), "alpha\n")
	write(t, filepath.Join(base, "sub", "b.txt"), "beta")
	write(t, filepath.Join(base, "sub", "deeper", "c.go"), "package c")
	write(t, filepath.Join(base, ".hidden.txt"), "h")
	for link, target := range map[string]string{
		"out":       outside,                                // directory outside
		"secretln":  filepath.Join(outside, "secret.txt"),   // file outside
		"relout":    "../outside",                           // relative, outside
		"dangling":  filepath.Join(outside, "new-file.txt"), // would create outside
		"inside":    "sub",                                  // stays inside
		"insidefil": "a.txt",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	tk, err := New(Config{BaseDir: base})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, base: base, outside: outside, tk: tk}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) call(name string, args map[string]any) (string, error) {
	fns, _ := f.tk.Functions(context.Background())
	for _, fn := range fns {
		if fn.Name == name {
			res, err := fn.Invoke(context.Background(), &tool.Call{Function: fn}, args)
			return res.Content, err
		}
	}
	f.t.Fatalf("no tool %q", name)
	return "", nil
}

func (f *fixture) ok(name string, args map[string]any) string {
	f.t.Helper()
	out, err := f.call(name, args)
	if err != nil {
		f.t.Fatalf("%s(%v): %v", name, args, err)
	}
	return out
}

func TestToolkitShape(t *testing.T) {
	f := newFixture(t)
	fns, _ := f.tk.Functions(context.Background())
	var got []string
	for _, fn := range fns {
		got = append(got, fn.Name)
	}
	if strings.Join(got, ",") != "save_file,read_file,list_files,search_files,read_file_chunk,replace_file_chunk,search_content" || f.tk.Name() != "file_tools" {
		t.Fatalf("%s: %v", f.tk.Name(), got)
	}
	ro, err := New(Config{BaseDir: f.base, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ = ro.Functions(context.Background())
	if names := fnNames(fns); names != "read_file,list_files,search_files,read_file_chunk,search_content" {
		t.Fatalf("read-only toolkit has %s", names)
	}
	all, err := New(Config{BaseDir: f.base, Functions: &Functions{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ = all.Functions(context.Background())
	if names := fnNames(fns); names != "save_file,read_file,list_files,search_files,delete_file,read_file_chunk,replace_file_chunk,search_content" {
		t.Fatalf("all = true has %s", names)
	}
	allRO, err := New(Config{BaseDir: f.base, Functions: &Functions{All: true}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ = allRO.Functions(context.Background())
	if names := fnNames(fns); names != "read_file,list_files,search_files,read_file_chunk,search_content" {
		t.Fatalf("all = true with read_only has %s", names)
	}
	if _, err := New(Config{BaseDir: filepath.Join(f.base, "a.txt")}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("file as BaseDir: %v", err)
	}
}

func TestSaveReadList(t *testing.T) {
	f := newFixture(t)
	content := "line 'one'\nEOF\n$HOME `x` ünï ✓"
	if out := f.ok("save_file", map[string]any{"contents": content, "file_name": "new/dir/it's here.txt"}); out != "new/dir/it's here.txt" {
		t.Fatalf("save_file = %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(f.base, "new", "dir", "it's here.txt")); string(got) != content {
		t.Fatalf("saved %q", got)
	}
	if out := f.ok("read_file", map[string]any{"file_name": "new/dir/it's here.txt"}); out != content {
		t.Fatalf("read_file = %q", out)
	}
	if out := f.ok("save_file", map[string]any{"contents": "x", "file_name": "a.txt", "overwrite": false}); out != "File a.txt already exists" {
		t.Fatalf("no-overwrite save = %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(f.base, "a.txt")); string(got) != "alpha\n" {
		t.Fatalf("a.txt overwritten: %q", got)
	}
	f.ok("save_file", map[string]any{"contents": "replaced", "file_name": filepath.Join(f.base, "a.txt")})
	if out := f.ok("read_file", map[string]any{"file_name": "a.txt"}); out != "replaced" {
		t.Fatalf("absolute path inside the base: %q", out)
	}
	// The base as configured through a symlink, and an absolute path in that form.
	link := filepath.Join(t.TempDir(), "baselink")
	if err := os.Symlink(f.base, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := New(Config{BaseDir: link})
	if err != nil {
		t.Fatal(err)
	}
	f2 := &fixture{t: t, base: f.base, tk: viaLink}
	if out := f2.ok("read_file", map[string]any{"file_name": filepath.Join(link, "a.txt")}); out != "replaced" {
		t.Fatalf("absolute path through the configured base: %q", out)
	}
	write(t, filepath.Join(f.base, "ü.txt"), "u")
	want := "[\n    \".hidden.txt\",\n    \"a.txt\",\n    \"dangling\",\n    \"inside\",\n    \"insidefil\",\n    \"new\",\n    \"out\",\n    \"relout\",\n    \"secretln\",\n    \"sub\",\n    \"\\u00fc.txt\"\n]"
	if out := f.ok("list_files", map[string]any{}); out != want {
		t.Fatalf("list_files =\n%s\nwant\n%s", out, want)
	}
	if out := f.ok("list_files", map[string]any{"directory": "sub"}); out != "[\n    \"sub/b.txt\",\n    \"sub/deeper\"\n]" {
		t.Fatalf("list_files(sub) = %s", out)
	}
	// A symlink that stays inside the base is followed.
	if out := f.ok("list_files", map[string]any{"directory": "inside/deeper"}); out != "[\n    \"inside/deeper/c.go\"\n]" {
		t.Fatalf("list_files(inside/deeper) = %s", out)
	}
	if out := f.ok("read_file", map[string]any{"file_name": "insidefil"}); out != "replaced" {
		t.Fatalf("read through an inside symlink = %q", out)
	}
}

func TestEscapesAreRefused(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		tool string
		args map[string]any
		want string // in the message, besides the base directory
	}{
		{"read_file", map[string]any{"file_name": "../outside/secret.txt"}, `file_name "../outside/secret.txt" is outside the base directory`},
		{"read_file", map[string]any{"file_name": "sub/../../outside/secret.txt"}, `is outside the base directory`},
		{"read_file", map[string]any{"file_name": filepath.Join(f.outside, "secret.txt")}, `is outside the base directory`},
		{"read_file", map[string]any{"file_name": "out/secret.txt"}, `goes through the symlink "out", which points to "` + f.outside + `"`},
		{"read_file", map[string]any{"file_name": "secretln"}, `goes through the symlink "secretln"`},
		{"read_file", map[string]any{"file_name": "relout/secret.txt"}, `goes through the symlink "relout"`},
		{"save_file", map[string]any{"contents": "pwned", "file_name": "out/pwned.txt"}, `goes through the symlink "out"`},
		{"save_file", map[string]any{"contents": "pwned", "file_name": "dangling"}, `goes through the symlink "dangling", which points to "` + filepath.Join(f.outside, "new-file.txt") + `"`},
		{"save_file", map[string]any{"contents": "pwned", "file_name": "../pwned.txt"}, `is outside the base directory`},
		{"list_files", map[string]any{"directory": "out"}, `directory "out" goes through the symlink "out"`},
		{"list_files", map[string]any{"directory": ".."}, `directory ".." is outside the base directory`},
		{"search_files", map[string]any{"pattern": "../*"}, `leaves the base directory`},
	}
	for _, c := range cases {
		out, err := f.call(c.tool, c.args)
		if !errors.Is(err, ErrOutsideBase) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), f.base) && c.tool != "search_files" {
			t.Errorf("%s(%v) = %q, %v; want ErrOutsideBase mentioning %q and the base", c.tool, c.args, out, err, c.want)
		}
	}
	for _, p := range []string{filepath.Join(f.outside, "pwned.txt"), filepath.Join(f.outside, "new-file.txt"), filepath.Join(filepath.Dir(f.base), "pwned.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created outside the base", p)
		}
	}
}

// TestRootEnforcesConfinement bypasses the friendly checks: os.Root alone
// refuses the escape, and the refusal still reads ErrOutsideBase.
func TestRootEnforcesConfinement(t *testing.T) {
	f := newFixture(t)
	fl := &Base{dir: f.base}
	for _, p := range []string{"out/secret.txt", "secretln"} {
		err := fl.WithRoot(func(root *os.Root) error { _, err := root.ReadFile(p); return err })
		if err = fl.RootErr("file_name", p, err); !errors.Is(err, ErrOutsideBase) {
			t.Errorf("os.Root read of %q: %v", p, err)
		}
	}
	err := fl.WithRoot(func(root *os.Root) error { return root.WriteFile("dangling", []byte("x"), 0o644) })
	if err = fl.RootErr("file_name", "dangling", err); !errors.Is(err, ErrOutsideBase) {
		t.Errorf("os.Root write through a dangling symlink: %v", err)
	}
}

func TestSearchFiles(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		pattern string
		files   []string
	}{
		{"*.txt", []string{".hidden.txt", "a.txt"}},
		{"**/*.txt", []string{".hidden.txt", "a.txt", "sub/b.txt"}},
		{"**/*.go", []string{"sub/deeper/c.go"}},
		{"sub/*", []string{"sub/b.txt", "sub/deeper"}},
		{"**", []string{"sub", "sub/deeper"}},
		{"s?b/**/c.[gx]o", []string{"sub/deeper/c.go"}},
		{"nothing*", []string{}},
	} {
		out := f.ok("search_files", map[string]any{"pattern": c.pattern})
		var got searchResult
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%q: %v\n%s", c.pattern, err, out)
		}
		if got.Pattern != c.pattern || got.MatchesFound != len(c.files) || strings.Join(got.Files, ",") != strings.Join(c.files, ",") {
			t.Errorf("search_files(%q) = %s, want %v", c.pattern, out, c.files)
		}
	}
	out := f.ok("search_files", map[string]any{"pattern": "*.go"})
	if out != "{\n  \"pattern\": \"*.go\",\n  \"matches_found\": 0,\n  \"files\": []\n}" {
		t.Fatalf("layout:\n%s", out)
	}
	for _, bad := range []string{"", "  ", "[", "/etc/*"} {
		if _, err := f.call("search_files", map[string]any{"pattern": bad}); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}

func TestReadLimitsAndErrors(t *testing.T) {
	f := newFixture(t)
	tk, err := New(Config{BaseDir: f.base, MaxFileLength: 5})
	if err != nil {
		t.Fatal(err)
	}
	f.tk = tk
	if _, err := f.call("read_file", map[string]any{"file_name": "a.txt"}); err == nil || !strings.Contains(err.Error(), "too long to read whole: 6 characters in 2 lines") {
		t.Fatalf("over the limit: %v", err)
	}
	write(t, filepath.Join(f.base, "bin"), "\xff\xfe")
	if _, err := f.call("read_file", map[string]any{"file_name": "bin"}); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Fatalf("binary: %v", err)
	}
	if _, err := f.call("read_file", map[string]any{"file_name": "missing"}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := f.call("save_file", map[string]any{"contents": "x", "file_name": ""}); err == nil {
		t.Fatal("empty file_name accepted")
	}
}

// TestJSONMatchesPython compares pyDumps with CPython's json.dumps.
func TestJSONMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	v := searchResult{Pattern: "**/*<&>.txt", MatchesFound: 3, Files: []string{"ü/✓.txt", "🎉\x7f\x01\b\f\t\n\"\\", "a\u2028b"}}
	got, err := pyDumps(v, "  ")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(v)
	cmd := exec.Command(py, "-c", "import json,sys; sys.stdout.write(json.dumps(json.load(sys.stdin), indent=2))")
	cmd.Stdin = bytes.NewReader(in)
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("got\n%s\npython\n%s", got, want)
	}
}

func fnNames(fns []*tool.Function) string {
	var names []string
	for _, fn := range fns {
		names = append(names, fn.Name)
	}
	return strings.Join(names, ",")
}
