package daytona

import (
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMissingAPIKeyIsAgnosError(t *testing.T) {
	t.Setenv("DAYTONA_API_KEY", "")
	_, err := New(Config{})
	if !errors.Is(err, ErrMissingAPIKey) {
		t.Fatalf("err = %v", err)
	}
	if err.Error() != "DAYTONA_API_KEY not set. Please set the DAYTONA_API_KEY environment variable." {
		t.Fatalf("text %q", err.Error())
	}
}

func TestConfigValidation(t *testing.T) {
	t.Setenv("DAYTONA_API_KEY", "k")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Language: "ruby"}, `Language "ruby" is not supported`},
		{Config{APIURL: "ftp://x"}, `APIURL "ftp://x" is not an http(s) URL`},
		{Config{Timeout: -1}, "Timeout -1ns is negative"},
		{Config{AutoStopInterval: Int(-5)}, "AutoStopInterval -5 is negative"},
		{Config{Include: []string{"nope"}}, "nope"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
	tk, err := New(Config{AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	var got []string
	for _, f := range fns {
		got = append(got, f.Name)
	}
	want := []string{"run_code", "run_shell_command", "create_file", "read_file", "list_files", "delete_file", "change_directory"}
	if tk.Name() != "daytona_tools" || !reflect.DeepEqual(got, want) || tk.Instructions() != DefaultInstructions {
		t.Fatalf("toolkit %q %v", tk.Name(), got)
	}
}

func TestEnvironmentFallbacksAndCreateRequest(t *testing.T) {
	f := newFake(t)
	t.Setenv("DAYTONA_API_KEY", testKey)
	t.Setenv("DAYTONA_API_URL", f.srv.URL+"/api")
	t.Setenv("DAYTONA_TARGET", "eu")
	t.Setenv("DAYTONA_ORGANIZATION_ID", "org-7")
	tk, err := New(Config{
		HTTPClient: f.srv.Client(), OSUser: "dev", EnvVars: map[string]string{"A": "1"},
		Labels: map[string]string{"team": "x", "created_by": "me"}, Public: Bool(false), AutoStopInterval: Int(0),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, rc := runCtx(nil)
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})

	if len(f.stats().creates) != 1 {
		t.Fatalf("creates: %v", f.stats().creates)
	}
	want := map[string]any{
		"user": "dev", "env": map[string]any{"A": "1"}, "public": false, "target": "eu", "autoStopInterval": float64(0),
		"labels": map[string]any{"team": "x", "created_by": "me", "language": "python", "persistent": "true", "code-toolbox-language": "python"},
	}
	if !reflect.DeepEqual(f.stats().creates[0], want) {
		t.Fatalf("create body\n got  %v\n want %v", f.stats().creates[0], want)
	}
	for _, h := range f.stats().headers {
		if h.Get("Authorization") != "Bearer "+testKey || h.Get("X-Daytona-Organization-ID") != "org-7" {
			t.Fatalf("headers %v", h)
		}
	}
	if id, _ := rc.StateValue(StateSandboxID); id != "sb-1" {
		t.Fatalf("sandbox_id = %#v", id)
	}
}

func TestDefaultCreateRequest(t *testing.T) {
	f := newFake(t)
	t.Setenv("DAYTONA_TARGET", "")
	t.Setenv("DAYTONA_ORGANIZATION_ID", "")
	tk := toolkitOn(t, f, Config{Persistent: Bool(false), Language: "javascript"})
	ctx, rc := runCtx(nil)
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	want := map[string]any{
		"env": map[string]any{}, "autoStopInterval": float64(60),
		"labels": map[string]any{"created_by": "agno_daytona_toolkit", "language": "javascript", "code-toolbox-language": "javascript"},
	}
	if len(f.stats().creates) != 2 || !reflect.DeepEqual(f.stats().creates[0], want) {
		t.Fatalf("a non-persistent toolkit creates a sandbox per call; creates %v", f.stats().creates)
	}
	if _, ok := rc.StateValue(StateSandboxID); ok {
		t.Fatal("a non-persistent toolkit wrote sandbox_id")
	}
	if f.stats().headers[0].Get("X-Daytona-Organization-ID") != "" {
		t.Fatal("organization header sent without an organization")
	}
}

func TestSessionSandboxIsReused(t *testing.T) {
	f := newFake(t)
	tk := toolkitOn(t, f, Config{})
	ctx, rc := runCtx(nil)
	for range 3 {
		callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	}
	if len(f.stats().creates) != 1 || len(f.stats().gets) != 2 || f.stats().gets[0] != "sb-1" {
		t.Fatalf("creates %d, gets %v", len(f.stats().creates), f.stats().gets)
	}
	// Another session gets its own sandbox.
	ctx2, rc2 := runCtx(nil)
	callTool(t, ctx2, tk, "run_shell_command", map[string]any{"command": "true"})
	a, _ := rc.StateValue(StateSandboxID)
	b, _ := rc2.StateValue(StateSandboxID)
	if a != "sb-1" || b != "sb-2" {
		t.Fatalf("sandbox ids %v %v", a, b)
	}
}

func TestStoppedSandboxIsStarted(t *testing.T) {
	f := newFake(t)
	f.addSandbox("old", "stopped")
	tk := toolkitOn(t, f, Config{})
	ctx, _ := runCtx(map[string]any{StateSandboxID: "old"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if len(f.stats().creates) != 0 || !reflect.DeepEqual(f.stats().starts, []string{"old"}) || len(f.stats().execs) != 1 {
		t.Fatalf("creates %d starts %v execs %v", len(f.stats().creates), f.stats().starts, f.stats().execs)
	}
}

func TestStartingSandboxIsAwaited(t *testing.T) {
	f := newFake(t)
	f.createState = "creating"
	f.statesOnGet = []string{"creating", "starting", "started"}
	tk := wrap(t, newTestToolkit(t, f, Config{}))
	ctx, _ := runCtx(nil)
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if len(f.stats().gets) != 3 || len(f.stats().starts) != 0 || len(f.stats().execs) != 1 {
		t.Fatalf("gets %v starts %v execs %v", f.stats().gets, f.stats().starts, f.stats().execs)
	}
}

func TestExplicitSandboxID(t *testing.T) {
	f := newFake(t)
	f.addSandbox("pinned", "started")
	tk := toolkitOn(t, f, Config{SandboxID: "pinned"})
	ctx, rc := runCtx(map[string]any{StateSandboxID: "other"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if len(f.stats().creates) != 0 || !reflect.DeepEqual(f.stats().gets, []string{"pinned"}) {
		t.Fatalf("creates %d gets %v", len(f.stats().creates), f.stats().gets)
	}
	if id, _ := rc.StateValue(StateSandboxID); id != "other" {
		t.Fatalf("sandbox_id = %v", id)
	}
}

func TestLostSandboxIsReplaced(t *testing.T) {
	f := newFake(t)
	tk := toolkitOn(t, f, Config{})
	ctx, rc := runCtx(map[string]any{StateSandboxID: "gone"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if len(f.stats().creates) != 1 || len(f.stats().execs) != 1 {
		t.Fatalf("creates %d execs %v", len(f.stats().creates), f.stats().execs)
	}
	if id, _ := rc.StateValue(StateSandboxID); id != "sb-1" {
		t.Fatalf("sandbox_id = %v", id)
	}
}

func TestStartFailureAutoCreates(t *testing.T) {
	f := newFake(t)
	f.addSandbox("old", "stopped")
	f.failStart = 503
	tk := toolkitOn(t, f, Config{})
	ctx, rc := runCtx(map[string]any{StateSandboxID: "old"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if len(f.stats().creates) != 1 || len(f.stats().execs) != 1 {
		t.Fatalf("creates %d execs %v", len(f.stats().creates), f.stats().execs)
	}
	if id, _ := rc.StateValue(StateSandboxID); id != "sb-1" {
		t.Fatalf("sandbox_id = %v", id)
	}

	// Without auto-create the failure is the tool's error result.
	f2 := newFake(t)
	f2.addSandbox("old", "stopped")
	f2.failStart = 503
	tk2 := toolkitOn(t, f2, Config{AutoCreateSandbox: Bool(false)})
	ctx2, _ := runCtx(map[string]any{StateSandboxID: "old"})
	out := callTool(t, ctx2, tk2, "read_file", map[string]any{"file_path": "x"})
	want := `{"status": "error", "message": "Error reading file: daytona POST /api/sandbox/old/start: 503 Service Unavailable: runner unavailable; try later"}`
	if out != want || len(f2.stats().creates) != 0 {
		t.Fatalf("got %s, creates %d", out, len(f2.stats().creates))
	}
}

func TestFailedSandboxReportsReason(t *testing.T) {
	f := newFake(t)
	f.createState = "creating"
	f.createReason = "no capacity"
	f.statesOnGet = []string{"error"}
	tk := wrap(t, newTestToolkit(t, f, Config{AutoCreateSandbox: Bool(false)}))
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "run_code", map[string]any{"code": "print(1)"})
	if want := `{"status": "error", "message": "Error executing code: daytona: sandbox sb-1 failed to start (state error): no capacity"}`; out != want {
		t.Fatalf("got %s", out)
	}
}

func TestSandboxThatNeverStartsTimesOut(t *testing.T) {
	f := newFake(t)
	f.createState = "creating"
	tk := newTestToolkit(t, f, Config{AutoCreateSandbox: Bool(false), Timeout: 50 * time.Millisecond})
	tk.api.poll = time.Millisecond
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, wrap(t, tk), "read_file", map[string]any{"file_path": "x"})
	if want := `{"status": "error", "message": "Error reading file: daytona: sandbox sb-1 did not start within 50ms (last state \"creating\")"}`; out != want {
		t.Fatalf("got %s", out)
	}
}

func TestDeprecatedToolboxRoute(t *testing.T) {
	f := newFake(t)
	f.noProxyURL = true
	tk := toolkitOn(t, f, Config{})
	ctx, _ := runCtx(nil)
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "true"})
	if f.stats().toolboxRoutes != 1 {
		t.Fatalf("exec did not use /api/toolbox/{id}/toolbox: %v", f.stats().execs)
	}
}

func TestRunCode(t *testing.T) {
	f := newFake(t)
	f.onCodeRun = func(code, lang string) (int, int, string) { return 200, 0, "ran\n" }
	tk := toolkitOn(t, f, Config{})
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "run_code", map[string]any{"code": "x = true\nprint('true', x) # none\n"})
	if out != "ran\n" {
		t.Fatalf("run_code = %q", out)
	}
	want := codeRunRequest{Code: "x = True\nprint('true', x) # none\n", Language: "python"}
	if len(f.stats().codeRuns) != 1 || f.stats().codeRuns[0] != want {
		t.Fatalf("code-run requests %v", f.stats().codeRuns)
	}
}

// TestRunCodeThroughExecWhenCodeRunIsMissing runs the exec fallback on a
// real python3, through a real sh.
func TestRunCodeThroughExecWhenCodeRunIsMissing(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	f := newFake(t)
	f.onCodeRun = func(string, string) (int, int, string) { return 404, 0, "" }
	f.onExec = shellExec(t.TempDir())
	tk := toolkitOn(t, f, Config{})
	ctx, _ := runCtx(nil)
	out := callTool(t, ctx, tk, "run_code", map[string]any{"code": "import sys\nprint(\"it's\", true, 'true', sys.argv[0])\n"})
	if out != "it's True true -c\n" {
		t.Fatalf("run_code = %q", out)
	}
}

func TestOutsideARunStateIsKeptByTheToolkit(t *testing.T) {
	f := newFake(t)
	f.onExec = func(cmd string, cwd *string) (int, string) {
		if strings.HasPrefix(cmd, "test -d") {
			return 0, "exists\n"
		}
		return 0, "/home/daytona\n"
	}
	tk := toolkitOn(t, f, Config{})
	ctx := context.Background()
	callTool(t, ctx, tk, "change_directory", map[string]any{"directory": "work"})
	callTool(t, ctx, tk, "run_shell_command", map[string]any{"command": "ls"})
	last := f.execCalls()[len(f.execCalls())-1]
	if len(f.stats().creates) != 1 || last.Command != "ls" || *last.Cwd != "/home/daytona/work" {
		t.Fatalf("creates %d, last %v", len(f.stats().creates), last)
	}
}

func TestCancelledRunIsNotReportedAsSandboxError(t *testing.T) {
	f := newFake(t)
	tk := toolkitOn(t, f, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fns, _ := tk.Functions(ctx)
	_, err := fns[1].Invoke(ctx, nil, map[string]any{"command": "true"})
	if !errors.Is(err, context.Canceled) || len(f.stats().creates) != 0 {
		t.Fatalf("err %v, creates %d", err, len(f.stats().creates))
	}
}

func TestBadAPIKeyIsReported(t *testing.T) {
	f := newFake(t)
	tk, err := New(Config{APIKey: "wrong", APIURL: f.srv.URL + "/api", HTTPClient: f.srv.Client(), AutoCreateSandbox: Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	out := callTool(t, context.Background(), tk, "list_files", map[string]any{})
	if out != `{"status": "error", "message": "Error listing files: daytona POST /api/sandbox: 401 Unauthorized: Invalid API key"}` {
		t.Fatalf("got %s", out)
	}
}
