package daytona

import (
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
)

// The five acceptance cases of agno commit 3fbc39b16b (spec A1), against
// the fake Daytona API: the exact command strings and cwd of every exec.

func ptr(s string) *string { return &s }

func wrap(t *testing.T, tk *toolkit) *tool.Toolkit {
	t.Helper()
	fns, err := tk.functions()
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.NewToolkit(tool.ToolkitConfig{Name: "daytona_tools", Functions: fns})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// a1Fixture is a toolkit on a scripted fake: pwd answers /home/daytona,
// test -d answers per the test, everything else echoes a fixed output.
func a1Fixture(t *testing.T, testD string) (*fakeDaytona, *tool.Toolkit, *toolkit) {
	f := newFake(t)
	f.onExec = func(cmd string, _ *string) (int, string) {
		switch {
		case strings.HasSuffix(cmd, "&& pwd"):
			return 0, "/home/daytona\n"
		case strings.HasPrefix(cmd, "test -d ") && strings.HasSuffix(cmd, "echo 'not found'"):
			return 0, testD + "\n"
		case strings.HasPrefix(cmd, "test -d "):
			return 0, "file\n"
		case strings.HasPrefix(cmd, "cat '") || strings.HasPrefix(cmd, "cat /"):
			return 0, "file body\n"
		}
		return 0, "ok\n"
	}
	tk := newTestToolkit(t, f, Config{})
	tk.newDelimiter = func(string) string { return "AGNO_EOF_0123456789abcdef" }
	return f, wrap(t, tk), tk
}

func assertExecs(t *testing.T, f *fakeDaytona, want ...execCall) {
	t.Helper()
	got := f.execCalls()
	eq := func(a, b execCall) bool {
		return a.Command == b.Command && (a.Cwd == nil) == (b.Cwd == nil) && (a.Cwd == nil || *a.Cwd == *b.Cwd)
	}
	if !slices.EqualFunc(got, want, eq) {
		t.Fatalf("exec requests:\n got  %v\n want %v", got, want)
	}
}

func TestA1Case1CdInjectionIsOneQuotedTest(t *testing.T) {
	f, tk, _ := a1Fixture(t, "not found")
	ctx, rc := runCtx(nil)
	out := callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "cd /home/daytona/vuln; id;"})
	assertExecs(t, f, execCall{`test -d '/home/daytona/vuln; id;' && echo 'exists' || echo 'not found'`, ptr("/")})
	if out != "Error: Directory /home/daytona/vuln; id; not found" {
		t.Fatalf("result %q", out)
	}
	if _, ok := rc.StateValue(StateWorkingDirectory); ok {
		t.Fatal("a failed cd wrote working_directory")
	}
}

func TestA1Case2CreateFileQuotesPathAndKeepsPrefix(t *testing.T) {
	f, tk, _ := a1Fixture(t, "")
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "create_file", map[string]any{"file_path": "dir; id;/name's.txt", "content": "Hello, World!"})
	execs := f.execCalls()
	if len(execs) != 2 {
		t.Fatalf("want 2 execs, got %v", execs)
	}
	assertExecs(t, f,
		execCall{Command: `mkdir -p '/home/daytona/dir; id;'`},
		execCall{Command: "cat > '/home/daytona/dir; id;/name'\"'\"'s.txt' << 'AGNO_EOF_0123456789abcdef'" +
			" && printf %s 'Hello, World!' >> '/home/daytona/dir; id;/name'\"'\"'s.txt'\nAGNO_EOF_0123456789abcdef"},
	)
	// agno's exec[1] began `cat > '/home/daytona/dir; id;/name'"'"'s.txt' << 'EOF'`; the redirection
	// and quoted path are kept byte for byte, only the delimiter differs.
	if prefix := `cat > '/home/daytona/dir; id;/name'"'"'s.txt' << '`; !strings.HasPrefix(execs[1].Command, prefix) {
		t.Fatalf("exec[1] %q lacks A1's prefix %q", execs[1].Command, prefix)
	}
	if !strings.Contains(out, "File created/updated: /home/daytona/dir; id;/name's.txt") {
		t.Fatalf("result %q", out)
	}
}

func TestA1Case2WithNewlineTerminatedContentIsAgnoShape(t *testing.T) {
	f, tk, _ := a1Fixture(t, "")
	ctx, _ := runCtx(nil)
	callTool(t, ctx, tk, "create_file", map[string]any{"file_path": "dir; id;/name's.txt", "content": "Hello, World!\n"})
	assertExecs(t, f,
		execCall{Command: `mkdir -p '/home/daytona/dir; id;'`},
		execCall{Command: "cat > '/home/daytona/dir; id;/name'\"'\"'s.txt' << 'AGNO_EOF_0123456789abcdef'\nHello, World!\nAGNO_EOF_0123456789abcdef"},
	)
}

func TestA1Case3ReadAndListQuote(t *testing.T) {
	f, tk, _ := a1Fixture(t, "")
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "read_file", map[string]any{"file_path": "name'; id;.txt"})
	assertExecs(t, f, execCall{Command: `cat '/home/daytona/name'"'"'; id;.txt'`})
	if out != "file body\n" {
		t.Fatalf("read_file returned %q, want the exec result verbatim", out)
	}
	f.resetExecs()
	out = callTool(t, ctx, tk, "list_files", map[string]any{"directory": "dir'; id;"})
	assertExecs(t, f, execCall{Command: `ls -la '/home/daytona/dir'"'"'; id;'`})
	if out != "Contents of /home/daytona/dir'; id;:\nok\n" {
		t.Fatalf("list_files returned %q", out)
	}
}

func TestA1Case4DeleteQuotesBothCommands(t *testing.T) {
	f, tk, _ := a1Fixture(t, "")
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "delete_file", map[string]any{"file_path": "name'; id;.txt"})
	assertExecs(t, f,
		execCall{Command: `test -d '/home/daytona/name'"'"'; id;.txt' && echo 'directory' || echo 'file'`},
		execCall{Command: `rm -f '/home/daytona/name'"'"'; id;.txt'`},
	)
	if out != "Deleted: /home/daytona/name'; id;.txt" {
		t.Fatalf("result %q", out)
	}
}

func TestA1Case5ChangeDirectoryStoresCheckedAbsolutePath(t *testing.T) {
	f, tk, _ := a1Fixture(t, "exists")
	ctx, rc := runCtx(nil)
	out := callTool(t, ctx, tk, "change_directory", map[string]any{"directory": "subdir"})
	assertExecs(t, f,
		execCall{`cd /home/daytona && pwd`, ptr("/")},
		execCall{`test -d /home/daytona/subdir && echo 'exists' || echo 'not found'`, ptr("/")},
	)
	if out != "Changed directory to: /home/daytona/subdir" {
		t.Fatalf("result %q", out)
	}
	if wd, _ := rc.StateValue(StateWorkingDirectory); wd != "/home/daytona/subdir" {
		t.Fatalf("working_directory = %#v", wd)
	}

	// Safe paths are not quoted.
	f2, tk2, _ := a1Fixture(t, "")
	ctx2, _ := runCtx(nil)
	callTool(t, ctx2, tk2, "read_file", map[string]any{"file_path": "test.txt"})
	assertExecs(t, f2, execCall{Command: "cat /home/daytona/test.txt"})
}

func TestA1CdNormalisesWithPosixNormpath(t *testing.T) {
	f, tk, _ := a1Fixture(t, "exists")
	ctx, rc := runCtx(nil)
	out := callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "  cd /home/daytona/../tmp/./x//y/  "})
	assertExecs(t, f, execCall{`test -d /home/tmp/x/y && echo 'exists' || echo 'not found'`, ptr("/")})
	if out != "Changed directory to: /home/tmp/x/y" {
		t.Fatalf("result %q", out)
	}
	if wd, _ := rc.StateValue(StateWorkingDirectory); wd != "/home/tmp/x/y" {
		t.Fatalf("working_directory = %#v", wd)
	}
	// The new directory is the cwd of the next command, and of relative cds.
	f.resetExecs()
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "ls -la"})
	callTool(t, ctx, tk, "change_directory", map[string]any{"directory": "it's here"})
	assertExecs(t, f,
		execCall{"ls -la", ptr("/home/tmp/x/y")},
		execCall{`cd /home/tmp/x/y && pwd`, ptr("/")},
		// pwd (scripted) answers /home/daytona, so the target is built on that.
		execCall{`test -d '/home/daytona/it'"'"'s here' && echo 'exists' || echo 'not found'`, ptr("/")},
	)
}

func TestA1NonCdCommandRunsVerbatimInWorkingDirectory(t *testing.T) {
	f, tk, _ := a1Fixture(t, "")
	ctx, _ := runCtx(map[string]any{StateWorkingDirectory: "/srv/my app"})
	// Only a leading "cd " is intercepted; "cd a && ls" would be a cd, "cdx" is not.
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "echo $HOME; cdx"})
	assertExecs(t, f, execCall{"echo $HOME; cdx", ptr("/srv/my app")})
}
