package daytona

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/shellquote/shellquotetest"
	"go.uber.org/goleak"
)

// File names that are shell syntax if they are ever left unquoted. The
// ones that mention CANARY would create a file of that name if run.
var hostileNames = []string{
	"with space.txt", "it's.txt", `dq"uote.txt`, "semi;colon.txt",
	"$(touch CANARY)", "`touch CANARY`", "; touch CANARY;", "' ; touch CANARY; '", `"; touch CANARY; "`,
	"new\nline.txt", "new\n; touch CANARY\n", "glob*?[x].txt", "*", "?", "[", "-rf", "--help", "-",
	"$HOME", "${IFS}x", `back\slash`, "EOF", "tab\tname", "ünï ✓", "a&&b||c", "pipe|x", "<in>out",
	"#hash", "~tilde", "'", `"`, "!bang", "{a,b}", "x=y", "AGNO_EOF_x",
}

// Contents a here-document gets wrong unless it is built with care.
var hostileContents = []string{
	"",
	"EOF",
	"EOF\n",
	"line one\nEOF\nit's \"quoted\" $VAR ${HOME} `whoami` $(id) \\n \\\n  indented\ttab\n",
	"no trailing newline 'q' EOF\nlast line",
	"AGNO_EOF_deadbeef\n",
	"\r\nwindows\r\n",
	"ünïcødé ✓ 🎉\n",
	"'\n'\n",
	"\n\n\n",
	"%s %d \\0 -- -n\n",
	"-n",
	"tail with 'single' and \"double\" and $(touch CANARY)",
	"Añadir\nAGNO\u00e9\n_é\n", // dash drops bytes after a delimiter prefix
	pathological,
}

// pathological starts a line with every candidate delimiter's first
// character followed by a non-ASCII byte, so no delimiter is dash-safe.
var pathological = func() string {
	var b strings.Builder
	for _, c := range "A" + delimiterLeads {
		b.WriteString(string(c) + "é\n")
	}
	return b.String()
}()

// sh runs a command the way the sandbox does (sh -c) in dir.
func sh(t *testing.T, dir, cmd string) (string, int) {
	t.Helper()
	code, out := shellExec(dir)(cmd, nil)
	return out, code
}

func mustSh(t *testing.T, dir, cmd string) string {
	t.Helper()
	out, code := sh(t, dir, cmd)
	if code != 0 {
		t.Fatalf("sh -c %q: exit %d: %s", cmd, code, out)
	}
	return out
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// assertNoCanary proves no injected `touch CANARY` ran: in the shell's
// working directories, and anywhere under base.
func assertNoCanary(t *testing.T, base string) {
	t.Helper()
	_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "CANARY" {
			t.Errorf("injected command ran: %s exists", p)
		}
		return nil
	})
	if _, err := os.Stat("/CANARY"); err == nil {
		t.Errorf("injected command ran: /CANARY exists")
	}
}

// TestBuildersOnRealShell runs every command builder through a real sh on
// files and directories with hostile names.
func TestBuildersOnRealShell(t *testing.T) {
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "keep.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, name := range hostileNames {
		content := hostileContents[i%len(hostileContents)]
		dir := filepath.Join(base, "d "+name)
		path := filepath.Join(dir, name)

		if out, _ := sh(t, base, dirExistsCommand(dir)); out != "not found\n" {
			t.Fatalf("%q: dir test before mkdir printed %q", name, out)
		}
		mustSh(t, base, mkdirCommand(dir))
		if out := mustSh(t, base, dirExistsCommand(dir)); out != "exists\n" {
			t.Fatalf("%q: dir test printed %q", name, out)
		}
		if out := mustSh(t, "/", pwdCommand(dir)); out != dir+"\n" {
			t.Fatalf("%q: pwd printed %q", name, out)
		}
		mustSh(t, base, writeFileCommand(path, content, heredocDelimiter(content)))
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Fatalf("%q: file holds %q (%v), want %q", name, got, err, content)
		}
		if got := names(t, dir); !slices.Equal(got, []string{name}) {
			t.Fatalf("%q: directory holds %q", name, got)
		}
		if out := mustSh(t, base, readFileCommand(path)); out != content {
			t.Fatalf("%q: cat printed %q, want %q", name, out, content)
		}
		if out := mustSh(t, base, listCommand(dir)); !strings.HasPrefix(out, "total ") {
			t.Fatalf("%q: ls printed %q", name, out)
		}
		if out := mustSh(t, base, kindCommand(path)); out != "file\n" {
			t.Fatalf("%q: kind of file printed %q", name, out)
		}
		if out := mustSh(t, base, kindCommand(dir)); out != "directory\n" {
			t.Fatalf("%q: kind of dir printed %q", name, out)
		}
		mustSh(t, base, removeCommand(path, false))
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%q: rm -f left the file: %v", name, err)
		}
		mustSh(t, base, writeFileCommand(path, content, heredocDelimiter(content)))
		mustSh(t, base, removeCommand(dir, true))
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%q: rm -rf left the directory: %v", name, err)
		}
	}
	if got := names(t, base); !slices.Equal(got, []string{"keep.txt"}) {
		t.Fatalf("base holds %q, want only keep.txt", got)
	}
	assertNoCanary(t, base)
}

// TestToolsOnRealShell drives the toolkit itself over the Daytona wire
// format against a fake whose exec is a real sh on a temporary directory.
func TestToolsOnRealShell(t *testing.T) {
	base := t.TempDir()
	f := newFake(t)
	f.onExec = shellExec(base)
	tk := toolkitOn(t, f, Config{})
	ctx, rc := runCtx(map[string]any{StateWorkingDirectory: base})

	for i, name := range hostileNames {
		content := hostileContents[i%len(hostileContents)]
		path := base + "/" + name
		if out := callTool(t, ctx, tk, "create_file", map[string]any{"file_path": name, "content": content}); out != "File created/updated: "+path {
			t.Fatalf("create_file(%q) = %q", name, out)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Fatalf("create_file(%q) wrote %q (%v), want %q", name, got, err, content)
		}
		if out := callTool(t, ctx, tk, "read_file", map[string]any{"file_path": name}); out != content {
			t.Fatalf("read_file(%q) = %q, want %q", name, out, content)
		}
		if out := callTool(t, ctx, tk, "delete_file", map[string]any{"file_path": name}); out != "Deleted: "+path {
			t.Fatalf("delete_file(%q) = %q", name, out)
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("delete_file(%q) left it: %v", name, err)
		}
	}

	if err := os.WriteFile(filepath.Join(base, "keep.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"it's a dir; touch CANARY", "$(touch CANARY)", "*", "-rf", "new\nline", `"dq" & 'sq'`} {
		dirPath := base + "/" + dir
		callTool(t, ctx, tk, "create_file", map[string]any{"file_path": dir + "/inner.txt", "content": "inner\n"})
		if got := names(t, dirPath); !slices.Equal(got, []string{"inner.txt"}) {
			t.Fatalf("%q holds %q", dir, got)
		}
		if out := callTool(t, ctx, tk, "list_files", map[string]any{"directory": dir}); !strings.HasPrefix(out, "Contents of "+dirPath+":\ntotal ") || !strings.Contains(out, "inner.txt") {
			t.Fatalf("list_files(%q) = %q", dir, out)
		}
		if out := callTool(t, ctx, tk, "change_directory", map[string]any{"directory": dir}); out != "Changed directory to: "+dirPath {
			t.Fatalf("change_directory(%q) = %q", dir, out)
		}
		if wd, _ := rc.StateValue(StateWorkingDirectory); wd != dirPath {
			t.Fatalf("working_directory = %#v, want %q", wd, dirPath)
		}
		if out := callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "pwd"}); out != dirPath+"\n" {
			t.Fatalf("pwd in %q printed %q", dir, out)
		}
		callTool(t, ctx, tk, "create_file", map[string]any{"file_path": "second.txt", "content": "2"})
		if out := callTool(t, ctx, tk, "list_files", map[string]any{}); !strings.Contains(out, "second.txt") {
			t.Fatalf("list_files() in %q = %q", dir, out)
		}
		if out := callTool(t, ctx, tk, "change_directory", map[string]any{"directory": ".."}); out != "Changed directory to: "+base {
			t.Fatalf("change_directory(..) = %q", out)
		}
		if out := callTool(t, ctx, tk, "delete_file", map[string]any{"file_path": dir}); out != "Deleted: "+dirPath {
			t.Fatalf("delete_file(%q) = %q", dir, out)
		}
		if got := names(t, base); !slices.Equal(got, []string{"keep.txt"}) {
			t.Fatalf("after deleting %q base holds %q", dir, got)
		}
	}

	// A directory that does not exist is refused and the state kept.
	if out := callTool(t, ctx, tk, "change_directory", map[string]any{"directory": "nope; touch CANARY"}); out != "Error: Directory "+base+"/nope; touch CANARY not found" {
		t.Fatalf("change_directory to a missing dir = %q", out)
	}
	if wd, _ := rc.StateValue(StateWorkingDirectory); wd != base {
		t.Fatalf("working_directory = %#v after a failed cd", wd)
	}
	// Failures come back as agno's error JSON with the shell's message.
	out := callTool(t, ctx, tk, "read_file", map[string]any{"file_path": "missing 'file'"})
	if !strings.HasPrefix(out, `{"status": "error", "message": "Error reading file: cat: `) || !strings.Contains(out, `No such file or directory\n"}`) {
		t.Fatalf("read_file of a missing file = %q", out)
	}
	assertNoCanary(t, base)
}

// TestWriteFileRandomContents writes many random contents built from the
// pieces shells trip over (delimiter prefixes, non-ASCII bytes, quotes,
// newlines), all in one script per shell.
func TestWriteFileRandomContents(t *testing.T) {
	dir := t.TempDir()
	pieces := []string{"A", "AG", "AGNO_EOF_", "_", "B", "é", "ñ", "\x81", "\xff", "\n", "'", `"`, "EOF", "$x", "`", "\\", " ", "\t"}
	rng := rand.New(rand.NewPCG(5, 6))
	var script strings.Builder
	var contents []string
	for i := range 400 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		c := b.String()
		contents = append(contents, c)
		script.WriteString(writeFileCommand(filepath.Join(dir, strconv.Itoa(i)), c, heredocDelimiter(c)) + "\n")
	}
	for _, sh := range []string{"sh", "dash", "bash"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		if out, err := exec.Command(path, "-c", script.String()).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", sh, err, out)
		}
		for i, c := range contents {
			got, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
			if err != nil || string(got) != c {
				t.Fatalf("%s wrote %q (%v), want %q", sh, got, err, c)
			}
		}
	}
}

// FuzzCommandWords checks with a strict POSIX parser that every builder
// yields exactly the intended words, whatever the path.
func FuzzCommandWords(f *testing.F) {
	for i, n := range hostileNames {
		f.Add("/home/daytona/"+n, hostileContents[i%len(hostileContents)])
	}
	f.Fuzz(func(t *testing.T, path, content string) {
		if strings.IndexByte(path, 0) >= 0 || strings.IndexByte(content, 0) >= 0 {
			t.Skip()
		}
		check := func(cmd string, want ...string) {
			t.Helper()
			toks, err := shellquotetest.Split(cmd)
			if err != nil {
				t.Fatalf("%q does not parse: %v", cmd, err)
			}
			if got := shellquotetest.Words(toks); !slices.Equal(got, want) {
				t.Fatalf("%q parses as %q, want %q", cmd, got, want)
			}
		}
		check(readFileCommand(path), "cat", path)
		check(listCommand(path), "ls", "-la", path)
		check(mkdirCommand(path), "mkdir", "-p", path)
		check(removeCommand(path, true), "rm", "-rf", path)
		check(removeCommand(path, false), "rm", "-f", path)
		check(pwdCommand(path), "cd", path, "&&", "pwd")
		check(dirExistsCommand(path), "test", "-d", path, "&&", "echo", "exists", "||", "echo", "not found")
		check(kindCommand(path), "test", "-d", path, "&&", "echo", "directory", "||", "echo", "file")

		delim := heredocDelimiter(content)
		cmd := writeFileCommand(path, content, delim)
		if delim == "" {
			check(cmd, "printf", "%s", content, ">", path)
			return
		}
		if !dashSafe(content, delim) {
			t.Fatalf("delimiter %q is not dash-safe for %q", delim, content)
		}
		line, rest, err := shellquotetest.FirstLine(cmd)
		if err != nil {
			t.Fatal(err)
		}
		toks, err := shellquotetest.Split(line)
		if err != nil {
			t.Fatalf("first line %q does not parse: %v", line, err)
		}
		words := shellquotetest.Words(toks)
		if !slices.Equal(words[:5], []string{"cat", ">", path, "<<", delim}) {
			t.Fatalf("first line parses as %q", words)
		}
		tail := ""
		if len(words) > 5 {
			if len(words) != 11 || !slices.Equal(words[5:8], []string{"&&", "printf", "%s"}) || words[9] != ">>" || words[10] != path {
				t.Fatalf("first line parses as %q", words)
			}
			tail = words[8]
		}
		// The here-document runs to the first line that is the delimiter.
		var body strings.Builder
		lines := strings.SplitAfter(rest, "\n")
		for i, l := range lines {
			if strings.TrimSuffix(l, "\n") == delim {
				if i != len(lines)-1 {
					t.Fatalf("text after the delimiter in %q", cmd)
				}
				break
			}
			if i == len(lines)-1 {
				t.Fatalf("no delimiter line in %q", cmd)
			}
			body.WriteString(l)
		}
		if got := body.String() + tail; got != content {
			t.Fatalf("command writes %q, want %q", got, content)
		}
	})
}

// FuzzWriteFileShell writes random content with a real sh (seeds run in
// every `go test`).
func FuzzWriteFileShell(f *testing.F) {
	for _, c := range hostileContents {
		f.Add(c)
	}
	dir := f.TempDir()
	var shells []string
	for _, s := range []string{"sh", "dash", "bash"} {
		if p, err := exec.LookPath(s); err == nil {
			shells = append(shells, p)
		}
	}
	f.Fuzz(func(t *testing.T, content string) {
		if strings.IndexByte(content, 0) >= 0 {
			t.Skip("NUL cannot be written through a shell")
		}
		path := filepath.Join(dir, "out 'file'.txt")
		cmd := writeFileCommand(path, content, heredocDelimiter(content))
		for _, sh := range shells {
			if out, err := exec.Command(sh, "-c", cmd).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v: %s", sh, err, out)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, []byte(content)) {
				t.Fatalf("%s wrote %q (%v), want %q", sh, got, err, content)
			}
		}
	})
}

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("sh"); err != nil {
		panic("these tests need a POSIX sh")
	}
	goleak.VerifyTestMain(m)
}
