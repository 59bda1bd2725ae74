package shell

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func function(t *testing.T, cfg Config) *tool.Function {
	t.Helper()
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 1 || fns[0].Name != "run_shell_command" || tk.Name() != "shell_tools" {
		t.Fatalf("toolkit %q has %d functions", tk.Name(), len(fns))
	}
	return fns[0]
}

func invoke(t *testing.T, ctx context.Context, f *tool.Function, args map[string]any) (string, error) {
	t.Helper()
	res, err := f.Invoke(ctx, &tool.Call{Function: f}, args)
	return res.Content, err
}

func mustInvoke(t *testing.T, f *tool.Function, args map[string]any) string {
	t.Helper()
	out, err := invoke(t, context.Background(), f, args)
	if err != nil {
		t.Fatalf("run_shell_command(%v): %v", args, err)
	}
	return out
}

func TestArgvRunsWithoutAShell(t *testing.T) {
	dir := t.TempDir()
	f := function(t, Config{Dir: dir})
	// Every argument arrives as written: nothing is expanded.
	out := mustInvoke(t, f, map[string]any{"args": []any{"printf", "%s|", "$(touch CANARY)", "*", "a b", "'"}})
	if out != "$(touch CANARY)|*|a b|'|" {
		t.Fatalf("got %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "CANARY")); err == nil {
		t.Fatal("an argument was run as a command")
	}
	if out := mustInvoke(t, f, map[string]any{"args": []any{"pwd"}}); out != dir+"\n" {
		t.Fatalf("pwd = %q, want %q", out, dir)
	}
}

func TestTailAndErrors(t *testing.T) {
	f := function(t, Config{Dir: t.TempDir()})
	script := []any{"sh", "-c", "printf 'a\\nb\\nc\\n'"}
	for _, c := range []struct {
		tail any
		want string
	}{{nil, "a\nb\nc\n"}, {2, "c\n"}, {3, "b\nc\n"}, {0, ""}, {-1, ""}} {
		args := map[string]any{"args": script}
		if c.tail != nil {
			args["tail"] = c.tail
		}
		if got := mustInvoke(t, f, args); got != c.want {
			t.Errorf("tail %v: got %q, want %q", c.tail, got, c.want)
		}
	}
	if got := mustInvoke(t, f, map[string]any{"args": []any{"sh", "-c", "echo out; echo bad >&2; exit 3"}}); got != "Error: bad\n" {
		t.Errorf("failing command: %q", got)
	}
	if got := mustInvoke(t, f, map[string]any{"args": []any{"sh", "-c", "exit 4"}}); got != "Error: command exited with status 4" {
		t.Errorf("silent failing command: %q", got)
	}
	if got := mustInvoke(t, f, map[string]any{"args": []any{"no-such-program-x"}}); !strings.HasPrefix(got, `Error: "no-such-program-x": executable file not found in PATH`) {
		t.Errorf("missing program: %q", got)
	}
	if _, err := invoke(t, context.Background(), f, map[string]any{"args": []any{}}); !errors.Is(err, ErrInvalidArgs) {
		t.Errorf("empty args: %v", err)
	}
}

func TestEnvironmentIsTheAllowList(t *testing.T) {
	t.Setenv("AGNO_SECRET_TOKEN", "s3cret")
	t.Setenv("AGNO_VISIBLE", "yes")
	f := function(t, Config{Dir: t.TempDir(), EnvAllowList: []string{"PATH", "AGNO_VISIBLE", "AGNO_UNSET"}, Env: map[string]string{"EXTRA": "1"}})
	got := mustInvoke(t, f, map[string]any{"args": []any{"env"}})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	want := []string{"PATH=" + os.Getenv("PATH"), "AGNO_VISIBLE=yes", "EXTRA=1"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("env:\n%s", got)
	}

	// Nothing inherited: no PATH, so only absolute programs run.
	bare := function(t, Config{Dir: t.TempDir(), EnvAllowList: []string{}})
	if got := mustInvoke(t, bare, map[string]any{"args": []any{"env"}}); !strings.Contains(got, "has no PATH") {
		t.Fatalf("bare env lookup: %q", got)
	}
	envPath := "/usr/bin/env"
	if _, err := os.Stat(envPath); err != nil {
		t.Skip("no /usr/bin/env")
	}
	if got := mustInvoke(t, bare, map[string]any{"args": []any{envPath}}); got != "" {
		t.Fatalf("empty environment printed %q", got)
	}
}

func TestDefaultEnvDropsSecrets(t *testing.T) {
	t.Setenv("AGNO_SECRET_TOKEN", "s3cret")
	f := function(t, Config{Dir: t.TempDir()})
	if got := mustInvoke(t, f, map[string]any{"args": []any{"env"}}); strings.Contains(got, "s3cret") || !strings.Contains(got, "PATH=") {
		t.Fatalf("env:\n%s", got)
	}
}

func TestOutputIsTruncatedWithANote(t *testing.T) {
	f := function(t, Config{Dir: t.TempDir(), MaxOutputBytes: 1000})
	got := mustInvoke(t, f, map[string]any{"args": []any{"sh", "-c", "i=0; while [ $i -lt 5000 ]; do printf 'x'; i=$((i+1)); done; printf 'END'"}})
	note := "[output truncated: the first 4003 of 5003 bytes were dropped (MaxOutputBytes is 1000)]\n"
	if !strings.HasPrefix(got, note) || got[len(note):] != strings.Repeat("x", 997)+"END" {
		t.Fatalf("got %d bytes: %.200q", len(got), got)
	}
	got = mustInvoke(t, f, map[string]any{"args": []any{"sh", "-c", "head -c 3000 /dev/zero | tr '\\0' e >&2; exit 1"}})
	if !strings.HasPrefix(got, "Error: [output truncated: the first 2000 of 3000 bytes were dropped") {
		t.Fatalf("stderr: %.200q", got)
	}
}

func TestShellModeIsOptIn(t *testing.T) {
	plain := function(t, Config{Dir: t.TempDir()})
	var schema struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(plain.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if _, ok := schema.Properties["command"]; ok || len(schema.Required) != 1 || schema.Required[0] != "args" {
		t.Fatalf("default schema %s", plain.Parameters)
	}
	// The schema has no command: the call is refused before it runs, args
	// missing (agno's validate_call).
	var ve *tool.ValidationError
	if _, err := invoke(t, context.Background(), plain, map[string]any{"command": "echo hi"}); !errors.As(err, &ve) ||
		len(ve.Errors) != 1 || ve.Errors[0].Loc != "args" || ve.Errors[0].Type != "missing_argument" {
		t.Fatalf("command without AllowShell: %v", err)
	}

	f := function(t, Config{Dir: t.TempDir(), AllowShell: true})
	if got := mustInvoke(t, f, map[string]any{"command": "echo $((1+2)) | tr 3 x"}); got != "x\n" {
		t.Fatalf("shell command: %q", got)
	}
	if _, err := invoke(t, context.Background(), f, map[string]any{"command": "true", "args": []any{"true"}}); !errors.Is(err, ErrInvalidArgs) {
		t.Fatalf("both: %v", err)
	}
	if got := mustInvoke(t, f, map[string]any{"args": []any{"echo", "$HOME"}}); got != "$HOME\n" {
		t.Fatalf("args with AllowShell: %q", got)
	}
}

// processGone reports whether pid has exited (gone, or a zombie waiting
// for a parent that may never reap it in a container).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func eventuallyGone(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		if processGone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d is still running", pid)
}

func backgroundPID(t *testing.T, path string) int {
	t.Helper()
	for range 500 {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command never wrote its background pid")
	return 0
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	f := function(t, Config{Dir: dir, Timeout: 300 * time.Millisecond, AllowShell: true})
	got := mustInvoke(t, f, map[string]any{"command": "echo started; sleep 30 & echo $! > bg.pid; sleep 30"})
	if !strings.HasPrefix(got, "Error: command timed out after 300ms; its process group was killed\nOutput before the timeout:\nstarted\n") {
		t.Fatalf("got %q", got)
	}
	eventuallyGone(t, backgroundPID(t, filepath.Join(dir, "bg.pid")))
}

func TestLeftoverBackgroundJobsAreKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs waitid(WNOWAIT) and /proc")
	}
	dir := t.TempDir()
	f := function(t, Config{Dir: dir, AllowShell: true})
	// The background sleep holds stdout open; the call still returns when
	// sh exits, and the sleep is killed.
	got := mustInvoke(t, f, map[string]any{"command": "sleep 30 & echo $! > bg.pid; echo done"})
	if got != "done\n" {
		t.Fatalf("got %q", got)
	}
	eventuallyGone(t, backgroundPID(t, filepath.Join(dir, "bg.pid")))
}

func TestCancellationKillsAndReturnsTheContextError(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	f := function(t, Config{Dir: dir, AllowShell: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := invoke(t, ctx, f, map[string]any{"command": "echo $$ > sh.pid; sleep 30"})
		done <- err
	}()
	pid := backgroundPID(t, filepath.Join(dir, "sh.pid"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	eventuallyGone(t, pid)
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Dir: "/no/such/dir"}, `Dir "/no/such/dir" is not an existing directory`},
		{Config{Timeout: -time.Second}, "Timeout -1s is negative"},
		{Config{MaxOutputBytes: -1}, "MaxOutputBytes -1 is negative"},
		{Config{EnvAllowList: []string{"A=B"}}, `EnvAllowList entry "A=B" is not a variable name`},
		{Config{Env: map[string]string{"": "x"}}, `Env entry "" cannot be set`},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
	f := function(t, Config{RequiresConfirmation: true})
	if !f.RequiresConfirmation {
		t.Fatal("RequiresConfirmation not set")
	}
}

func TestTailBuffer(t *testing.T) {
	b := newTailBuffer(5)
	for _, s := range []string{"ab", "cd", "efg", "", "123456789", "x"} {
		_, _ = b.Write([]byte(s))
	}
	if string(b.buf) != "6789x" || b.total != 17 {
		t.Fatalf("buf %q total %d", b.buf, b.total)
	}
	u := newTailBuffer(4)
	_, _ = u.Write([]byte("aé✓")) // the kept bytes start inside ✓
	if got := u.text(); got != "✓" {
		t.Fatalf("text %q", got)
	}
}
