package coding

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	t             *testing.T
	base, outside string
	tk            *tool.Toolkit
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	root := t.TempDir()
	base, outside := filepath.Join(root, "base"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(base, "src", "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	write(t, filepath.Join(base, "src", "main.py"), "import os\n\ndef main():\n    print('hi')\n\nif __name__ == '__main__':\n    main()\n")
	write(t, filepath.Join(base, "src", "pkg", "util.py"), "def helper():\n    return 42\n")
	write(t, filepath.Join(base, "README.md"), "# Demo\n")
	if err := os.Symlink(outside, filepath.Join(base, "out")); err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = base
	cfg.All = true
	tk, err := New(cfg)
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

func TestReadEditWrite(t *testing.T) {
	f := newFixture(t, Config{RestrictToBaseDir: true})
	if got := f.call("read_file", map[string]any{"file_path": "src/pkg/util.py"}); got != "   1 | def helper():\n   2 |     return 42\n   3 | " {
		t.Fatalf("read_file = %q", got)
	}
	if got := f.call("read_file", map[string]any{"file_path": "src/main.py", "offset": 2, "limit": 2}); got != "   3 | def main():\n   4 |     print('hi')\n[Showing lines 3-4 of 8 total]" {
		t.Fatalf("read_file page = %q", got)
	}
	diff := f.call("edit_file", map[string]any{"file_path": "src/main.py", "old_text": "print('hi')", "new_text": "print('hello')\n    return 0"})
	want := "--- a/src/main.py\n+++ b/src/main.py\n@@ -1,7 +1,8 @@\n import os\n \n def main():\n-    print('hi')\n+    print('hello')\n+    return 0\n \n if __name__ == '__main__':\n     main()\n"
	if diff != want {
		t.Fatalf("edit_file diff =\n%q\nwant\n%q", diff, want)
	}
	if got := f.call("edit_file", map[string]any{"file_path": "src/main.py", "old_text": "absent", "new_text": "x"}); !strings.HasPrefix(got, "Error: old_text not found in src/main.py.") {
		t.Fatalf("no match: %q", got)
	}
	if got := f.call("edit_file", map[string]any{"file_path": "src/main.py", "old_text": "x", "new_text": "x"}); got != "No changes needed: old_text and new_text are identical" {
		t.Fatalf("same text: %q", got)
	}
	if got := f.call("write_file", map[string]any{"file_path": "new/dir/a.txt", "contents": "1\n2\n"}); got != "Wrote 3 lines to new/dir/a.txt" {
		t.Fatalf("write_file = %q", got)
	}
	write(t, filepath.Join(f.base, "bin.dat"), "a\x00b")
	if got := f.call("read_file", map[string]any{"file_path": "bin.dat"}); got != "Error: Binary file detected: bin.dat" {
		t.Fatalf("binary: %q", got)
	}
	write(t, filepath.Join(f.base, "empty.txt"), "")
	if got := f.call("read_file", map[string]any{"file_path": "empty.txt"}); got != "File is empty: empty.txt" {
		t.Fatalf("empty: %q", got)
	}
}

func TestPathEscapesAreRefused(t *testing.T) {
	f := newFixture(t, Config{RestrictToBaseDir: true})
	secret := filepath.Join(f.outside, "secret.txt")
	for _, p := range []string{"../outside/secret.txt", secret, "out/secret.txt"} {
		want := "Error: Path '" + p + "' is outside the allowed base directory"
		for fn, args := range map[string]map[string]any{
			"read_file":  {"file_path": p},
			"edit_file":  {"file_path": p, "old_text": "secret", "new_text": "pwned"},
			"write_file": {"file_path": p, "contents": "pwned"},
			"grep":       {"pattern": "secret", "path": p},
		} {
			if got := f.call(fn, args); got != want {
				t.Errorf("%s(%q) = %q", fn, p, got)
			}
		}
	}
	for _, p := range []string{"..", "out", f.outside} {
		if got := f.call("ls", map[string]any{"path": p}); !strings.HasPrefix(got, "Error: Path '"+p+"'") {
			t.Errorf("ls(%q) = %q", p, got)
		}
		if got := f.call("find", map[string]any{"pattern": "*", "path": p}); !strings.HasPrefix(got, "Error: Path '"+p+"'") {
			t.Errorf("find(%q) = %q", p, got)
		}
	}
	if got := f.call("find", map[string]any{"pattern": "../*"}); !strings.Contains(got, "leaves the base directory") {
		t.Errorf("find ../*: %q", got)
	}
	for cmd, want := range map[string]string{
		"cat ../outside/secret.txt": "Error: Command references path outside base directory: ../outside/secret.txt",
		"cat out/secret.txt":        "Error: Command references path outside base directory: out/secret.txt",
		"ls ..":                     "Error: Command references path outside base directory: ..",
		"cat $(echo x)":             "Error: Shell operator '$(' is not allowed in restricted mode.",
		"echo x > y":                "Error: Shell operator '>' is not allowed in restricted mode.",
		"/usr/bin/curl x":           "Error: Command 'curl' is not in the allowed commands list.",
		"echo 'unclosed":            "Error: Could not parse shell command.",
	} {
		if got := f.call("run_shell", map[string]any{"command": cmd}); got != want {
			t.Errorf("run_shell(%q) = %q, want %q", cmd, got, want)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Fatalf("secret changed: %q", b)
	}
}

func TestRunShell(t *testing.T) {
	f := newFixture(t, Config{RestrictToBaseDir: true, MaxLines: 5, ShellTimeout: time.Second})
	if got := f.call("run_shell", map[string]any{"command": "ls src"}); got != "Exit code: 0\nmain.py\npkg\n" {
		t.Fatalf("ls = %q", got)
	}
	if got := f.call("run_shell", map[string]any{"command": "cat missing"}); !strings.HasPrefix(got, "Exit code: 1\ncat: missing: No such file or directory") {
		t.Fatalf("failing command = %q", got)
	}
	if got := f.call("run_shell", map[string]any{"command": "printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n'"}); got != "Exit code: 0\n1\n2\n3\n4\n5\n[Output truncated: 8 lines total]" {
		t.Fatalf("truncated = %q", got)
	}
	start := time.Now()
	free := newFixture(t, Config{RestrictToBaseDir: false, ShellTimeout: 500 * time.Millisecond})
	if got := free.call("run_shell", map[string]any{"command": "sleep 30 & sleep 30"}); got != "Error: Command timed out after 0 seconds" || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout = %q after %s", got, time.Since(start))
	}
	// Unrestricted, agno's operators and any path are allowed.
	if got := free.call("run_shell", map[string]any{"command": "cat " + filepath.Join(free.outside, "secret.txt") + " | tr a-z A-Z"}); got != "Exit code: 0\nSECRET" {
		t.Fatalf("unrestricted = %q", got)
	}
}

func TestGrepFindLs(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("grep is not installed")
	}
	f := newFixture(t, Config{RestrictToBaseDir: true})
	if got := f.call("grep", map[string]any{"pattern": "def [a-z]", "include": "*.py"}); got != "src/main.py:3:def main():\nsrc/pkg/util.py:1:def helper():\n" && got != "src/pkg/util.py:1:def helper():\nsrc/main.py:3:def main():\n" {
		t.Fatalf("grep = %q", got)
	}
	if got := f.call("grep", map[string]any{"pattern": "DEMO", "ignore_case": true, "path": "README.md"}); got != "1:# Demo\n" {
		t.Fatalf("grep file = %q", got)
	}
	if got := f.call("grep", map[string]any{"pattern": "-nothing-"}); got != "No matches found for pattern: -nothing-" {
		t.Fatalf("no match = %q", got)
	}
	if got := f.call("find", map[string]any{"pattern": "**/*.py"}); got != "src/main.py\nsrc/pkg/util.py" {
		t.Fatalf("find = %q", got)
	}
	if got := f.call("find", map[string]any{"pattern": "*", "path": "src"}); got != "src/main.py\nsrc/pkg/" {
		t.Fatalf("find in src = %q", got)
	}
	if got := f.call("find", map[string]any{"pattern": "*.py", "path": "src", "limit": 1}); got != "src/main.py\n[Results limited to 1 entries]" {
		t.Fatalf("find limit = %q", got)
	}
	if got := f.call("ls", map[string]any{}); got != "out/\nREADME.md\nsrc/" {
		t.Fatalf("ls = %q", got)
	}
	if got := f.call("ls", map[string]any{"path": "src", "limit": 1}); got != "main.py\n[Listing limited to 1 entries]" {
		t.Fatalf("ls limit = %q", got)
	}
}

func TestInstructionsAndFlags(t *testing.T) {
	tk, err := New(Config{BaseDir: t.TempDir(), EnableReadFile: true, EnableRunShell: true, AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 2 || fns[0].Name != "read_file" || fns[1].Name != "run_shell" {
		t.Fatalf("functions %d", len(fns))
	}
	instr := tk.Instructions()
	if !strings.HasPrefix(instr, "You have access to coding tools: read_file, run_shell.\n") || strings.Contains(instr, "**edit_file**") ||
		!strings.HasSuffix(instr, "## Best Practices\n- Run tests after making changes to verify correctness.") {
		t.Fatalf("instructions:\n%s", instr)
	}
	custom := "Only read."
	tk, _ = New(Config{BaseDir: t.TempDir(), EnableReadFile: true, Instructions: &custom, AddInstructions: true})
	if tk.Instructions() != custom {
		t.Fatalf("custom instructions %q", tk.Instructions())
	}
}

func TestShlexSplit(t *testing.T) {
	for in, want := range map[string]string{
		`a b  c`:              "a|b|c",
		`git commit -m "a b"`: `git|commit|-m|a b`,
		`echo 'x y'z`:         "echo|x yz",
		`a\ b "q\"x" 'p\n'`:   `a b|q"x|p\n`,
	} {
		got, err := shlexSplit(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("shlexSplit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`"open`, `'open`, `trail\`} {
		if _, err := shlexSplit(bad); err == nil {
			t.Errorf("shlexSplit(%q) accepted", bad)
		}
	}
}
