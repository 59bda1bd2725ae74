package python

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

// needPython skips a test that runs code when python3 is absent; the
// refusal without an interpreter is tested by TestMissingInterpreter.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: this test runs Python code")
	}
}

type fixture struct {
	t       *testing.T
	base    string
	outside string
	tk      *tool.Toolkit
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	root := t.TempDir()
	base, outside := filepath.Join(root, "base"), filepath.Join(root, "outside")
	for _, d := range []string{base, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.py"), []byte("secret = 's3cr3t'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "out")); err != nil {
		t.Fatal(err)
	}
	cfg.BaseDir = base
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, base: base, outside: outside, tk: tk}
}

func (f *fixture) call(ctx context.Context, name string, args map[string]any) string {
	f.t.Helper()
	fns, _ := f.tk.Functions(ctx)
	for _, fn := range fns {
		if fn.Name == name {
			res, err := fn.Invoke(ctx, &tool.Call{Function: fn}, args)
			if err != nil {
				f.t.Fatalf("%s(%v): %v", name, args, err)
			}
			return res.Content
		}
	}
	f.t.Fatalf("no tool %q", name)
	return ""
}

func TestRunPythonCode(t *testing.T) {
	needPython(t)
	f := newFixture(t, Config{RestrictToBaseDir: true})
	ctx := context.Background()
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"code": "x = 6 * 7"}, "successfully ran python code"},
		{map[string]any{"code": "x = [1, 'a', None]", "variable_to_return": "x"}, "[1, 'a', None]"},
		{map[string]any{"code": "x = 1", "variable_to_return": "y"}, "Variable y not found"},
		{map[string]any{"code": "x = None", "variable_to_return": "x"}, "Variable x not found"}, // agno's None check
		{map[string]any{"code": "import os\ncwd = os.getcwd()", "variable_to_return": "cwd"}, f.base},
		{map[string]any{"code": "print('noise')\nraise KeyError('k')"}, "Error running python code: 'k'"},
		{map[string]any{"code": "def f(:"}, "Error running python code: invalid syntax"},
		{map[string]any{"code": "import sys\nsys.exit(3)"}, "Error running python code: the interpreter ended without a result (exit status 3)"},
	} {
		if got := f.call(ctx, "run_python_code", c.args); !strings.HasPrefix(got, c.want) {
			t.Errorf("run_python_code(%v) = %q, want %q", c.args, got, c.want)
		}
	}
	// Each call is a fresh interpreter: nothing carries over.
	f.call(ctx, "run_python_code", map[string]any{"code": "kept = 1"})
	if got := f.call(ctx, "run_python_code", map[string]any{"code": "y = kept"}); !strings.Contains(got, "name 'kept' is not defined") {
		t.Errorf("state carried over: %q", got)
	}
}

func TestSaveAndRunFiles(t *testing.T) {
	needPython(t)
	f := newFixture(t, Config{RestrictToBaseDir: true})
	ctx := context.Background()
	got := f.call(ctx, "save_to_file_and_run", map[string]any{"file_name": "pkg/m.py", "code": "import sys\nname = __name__ + ' ' + sys.argv[0]\n", "variable_to_return": "name"})
	if want := "__main__ " + filepath.Join(f.base, "pkg", "m.py"); got != want {
		t.Fatalf("save_to_file_and_run = %q, want %q", got, want)
	}
	if got := f.call(ctx, "save_to_file_and_run", map[string]any{"file_name": "pkg/m.py", "code": "x = 1", "overwrite": false}); got != "File pkg/m.py already exists" {
		t.Fatalf("no overwrite: %q", got)
	}
	if got := f.call(ctx, "save_to_file_and_run", map[string]any{"file_name": "n.py", "code": "x = 1"}); got != "successfully ran "+filepath.Join(f.base, "n.py") {
		t.Fatalf("no variable: %q", got)
	}
	if got := f.call(ctx, "run_python_file_return_variable", map[string]any{"file_name": "pkg/m.py", "variable_to_return": "name"}); !strings.HasPrefix(got, "__main__ ") {
		t.Fatalf("run_python_file_return_variable = %q", got)
	}
	if got := f.call(ctx, "read_file", map[string]any{"file_name": "n.py"}); got != "x = 1" {
		t.Fatalf("read_file = %q", got)
	}
	if got := f.call(ctx, "list_files", map[string]any{}); got != "n.py, out, pkg" {
		t.Fatalf("list_files = %q", got)
	}
}

func TestPathEscapesAreRefused(t *testing.T) {
	needPython(t)
	f := newFixture(t, Config{RestrictToBaseDir: true})
	ctx := context.Background()
	secret := filepath.Join(f.outside, "secret.py")
	for _, name := range []string{"../outside/secret.py", secret, "out/secret.py"} {
		if got := f.call(ctx, "run_python_file_return_variable", map[string]any{"file_name": name, "variable_to_return": "secret"}); got != "Error: Path '"+name+"' is outside the allowed base directory" {
			t.Errorf("run %q: %q", name, got)
		}
		if got := f.call(ctx, "read_file", map[string]any{"file_name": name}); got != "Error reading file: path outside allowed directory" {
			t.Errorf("read %q: %q", name, got)
		}
		if got := f.call(ctx, "save_to_file_and_run", map[string]any{"file_name": name, "code": "pwned = 1"}); !strings.HasPrefix(got, "Error: Path ") {
			t.Errorf("save %q: %q", name, got)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret = 's3cr3t'\n" {
		t.Fatalf("the file outside was overwritten: %q", b)
	}
	// restrict_to_base_dir = false is agno's opt-out.
	free := newFixture(t, Config{RestrictToBaseDir: false})
	free.outside = f.outside
	if got := free.call(ctx, "run_python_file_return_variable", map[string]any{"file_name": secret, "variable_to_return": "secret"}); got != "s3cr3t" {
		t.Fatalf("unrestricted run: %q", got)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	needPython(t)
	f := newFixture(t, Config{RestrictToBaseDir: true, Timeout: 500 * time.Millisecond})
	start := time.Now()
	// The child the code starts is in the interpreter's process group
	// and is killed with it.
	got := f.call(context.Background(), "run_python_code", map[string]any{"code": "import subprocess, time\nsubprocess.Popen(['sleep', '30'])\ntime.sleep(30)"})
	if !strings.Contains(got, "Error running python code: timed out after 500ms") || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %q after %s", got, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	f2 := newFixture(t, Config{RestrictToBaseDir: true})
	if got := f2.call(ctx, "run_python_code", map[string]any{"code": "import time\ntime.sleep(30)"}); got != "Error running python code: "+context.DeadlineExceeded.Error() {
		t.Fatalf("cancelled run: %q", got)
	}
}

func TestMissingInterpreter(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-python")
	f := newFixture(t, Config{RestrictToBaseDir: true, Interpreter: missing})
	ctx := context.Background()
	got := f.call(ctx, "run_python_code", map[string]any{"code": "x = 1"})
	if !strings.HasPrefix(got, "Error running python code: no Python interpreter: \""+missing+"\" was not found") || !strings.Contains(got, "set interpreter in [toolkits.python]") {
		t.Fatalf("missing interpreter: %q", got)
	}
	if got := f.call(ctx, "save_to_file_and_run", map[string]any{"file_name": "a.py", "code": "x = 1"}); !strings.Contains(got, "no Python interpreter") {
		t.Fatalf("save_to_file_and_run: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.base, "a.py")); err != nil {
		t.Fatalf("the file is saved before the run, as in agno: %v", err)
	}
}

func TestPipInstallRefusedByDefault(t *testing.T) {
	f := newFixture(t, Config{RestrictToBaseDir: true})
	for _, fn := range []string{"pip_install_package", "uv_pip_install_package"} {
		if got := f.call(context.Background(), fn, map[string]any{"package_name": "requests"}); got != "Error installing package requests: installing packages is disabled: set allow_pip_install = true in [toolkits.python] to allow it" {
			t.Errorf("%s: %q", fn, got)
		}
	}
	allowed := newFixture(t, Config{RestrictToBaseDir: true, AllowPipInstall: true, Interpreter: filepath.Join(t.TempDir(), "nope")})
	if got := allowed.call(context.Background(), "pip_install_package", map[string]any{"package_name": "--index-url=http://evil"}); !strings.Contains(got, "not be empty or an option") {
		t.Errorf("an option as package: %q", got)
	}
}
