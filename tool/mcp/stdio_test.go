package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agno-go/agno/internal/testlog"
)

// stdioConfig runs the test server binary as a stdio child.
func stdioConfig(t testing.TB) Config {
	return Config{Command: serverBinary(t), Stderr: io.Discard}
}

// settle waits until the process has exactly n children and none of them
// is a zombie.
func settle(t testing.TB, n int) {
	t.Helper()
	eventually(t, "children to settle at "+strconv.Itoa(n), func() bool {
		c := children(t)
		if len(c) != n {
			return false
		}
		for _, p := range c {
			if p.State == "Z" {
				return false
			}
		}
		return true
	})
}

func TestStdioServerLifecycle(t *testing.T) {
	bin := serverBinary(t)
	settle(t, 0)
	fds := openFDs(t)
	before := TotalOpenSessions()

	tools, err := New(Config{Command: bin + " -http ''", Env: map[string]string{"MCP_TEST_VAR": "1"}, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tools.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	settle(t, 1)
	for _, q := range []string{"agno v2.6.13", "second query"} {
		r, err := tools.Call(ctx, "search", map[string]any{"query": q})
		if err != nil || r.Content != "results for "+q {
			t.Fatalf("%+v %v", r, err)
		}
	}
	r, err := tools.Call(ctx, "echo", map[string]any{"message": "  padded  "})
	if err != nil || r.Content != `"  padded  "` {
		t.Fatalf("echo %q %v", r.Content, err)
	}
	r, err = tools.Call(ctx, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "MCP_TEST_VAR"}
	env := strings.Split(r.Content, ",")
	if !slices.Contains(env, "MCP_TEST_VAR") {
		t.Errorf("Env not passed: %v", env)
	}
	for _, k := range env {
		if !slices.Contains(allowed, k) {
			t.Errorf("server inherited %s; only the default environment and Env may reach it", k)
		}
	}
	if err := tools.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tools.Close(); err != nil {
		t.Fatal(err)
	}
	settle(t, 0)
	if got := openFDs(t); got > fds {
		t.Errorf("file descriptors: %d before, %d after Close", fds, got)
	}
	if TotalOpenSessions() != before {
		t.Errorf("TotalOpenSessions %d, before %d", TotalOpenSessions(), before)
	}
}

// A server killed in the middle of a call: the call fails with an error
// (the agent's ToolCallError), the next call starts a new server.
func TestStdioServerKilledMidCall(t *testing.T) {
	tools := connected(t, stdioConfig(t))
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "in-call")

	var callErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		_, callErr = tools.Call(ctx, "slow", map[string]any{"ms": 60000, "marker": marker})
	})
	var pid int
	eventually(t, "the server to be inside the call", func() bool {
		b, err := os.ReadFile(marker)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(string(b))
		return err == nil
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if !errors.Is(callErr, ErrSessionLost) {
		t.Fatalf("call on a killed server: %v, want ErrSessionLost", callErr)
	}
	r, err := tools.Call(ctx, "pid", nil)
	if err != nil {
		t.Fatalf("the next call did not reconnect: %v", err)
	}
	if r.Content == strconv.Itoa(pid) || r.Content == "" {
		t.Fatalf("pid after reconnect %q (killed %d)", r.Content, pid)
	}
	if tools.OpenSessions() != 1 {
		t.Fatalf("OpenSessions %d", tools.OpenSessions())
	}
	settle(t, 1) // the killed server was reaped
	_ = tools.Close()
	settle(t, 0)
}

// A server that died between calls is replaced before the next call.
func TestStdioServerDeadBetweenCalls(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		t.Run("refresh="+strconv.FormatBool(refresh), func(t *testing.T) {
			cfg := stdioConfig(t)
			cfg.RefreshConnection = refresh
			tools := connected(t, cfg)
			ctx := context.Background()
			r, err := tools.Call(ctx, "pid", nil)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(r.Content)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if !refresh {
				// Without pings the loss is seen when the connection drops.
				eventually(t, "the session to notice", func() bool {
					tools.mu.Lock()
					defer tools.mu.Unlock()
					return tools.def != nil && !tools.def.alive()
				})
			}
			if alive := tools.IsAlive(ctx); alive {
				t.Fatal("IsAlive on a killed server")
			}
			r, err = tools.Call(ctx, "pid", nil)
			if err != nil || r.Content == strconv.Itoa(pid) {
				t.Fatalf("after the server died: %+v %v", r, err)
			}
			if fns, err := tools.Functions(ctx); err != nil || len(fns) == 0 {
				t.Fatalf("Functions: %d, %v", len(fns), err)
			}
			_ = tools.Close()
			settle(t, 0)
		})
	}
}

func TestStdioRefreshManyCallsStaysFlat(t *testing.T) {
	cfg := stdioConfig(t)
	cfg.RefreshConnection = true
	tools := connected(t, cfg)
	ctx := context.Background()
	if _, err := tools.Call(ctx, "search", map[string]any{"query": "warm"}); err != nil {
		t.Fatal(err)
	}
	settle(t, 1)
	fds, total := openFDs(t), TotalOpenSessions()
	for i := range 200 {
		r, err := tools.Call(ctx, "search", map[string]any{"query": strconv.Itoa(i)})
		if err != nil || r.Content != "results for "+strconv.Itoa(i) {
			t.Fatalf("call %d: %+v %v", i, r, err)
		}
	}
	if _, err := tools.Functions(ctx); err != nil {
		t.Fatal(err)
	}
	if tools.OpenSessions() != 1 || TotalOpenSessions() != total {
		t.Fatalf("sessions grew: %d open, total %d (was %d)", tools.OpenSessions(), TotalOpenSessions(), total)
	}
	settle(t, 1)
	if got := openFDs(t); got > fds {
		t.Fatalf("file descriptors grew over 200 calls: %d -> %d", fds, got)
	}
	_ = tools.Close()
	settle(t, 0)
}

func TestStdioConnectFailureLeavesNothing(t *testing.T) {
	before := TotalOpenSessions()
	// A program that exits at once instead of speaking MCP.
	tools, err := New(Config{Command: "sh", Args: []string{"-c", "exit 3"}, Stderr: io.Discard, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Connect(context.Background()); err == nil {
		t.Fatal("Connect to a server that exits succeeded")
	}
	if tools.Connected() || tools.OpenSessions() != 0 || TotalOpenSessions() != before {
		t.Fatalf("state after a failed Connect: connected=%v open=%d", tools.Connected(), tools.OpenSessions())
	}
	settle(t, 0)
	// A command that cannot start.
	tools, _ = New(Config{Command: "/bin/sh", Args: []string{}, Stderr: io.Discard})
	tools.set.argv = []string{filepath.Join(t.TempDir(), "gone")}
	if err := tools.Connect(context.Background()); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("Connect with a missing executable: %v", err)
	}
}

// A stdio server's standard error is logged line by line under its name,
// the last line too when it has no newline, so that the lines of several
// servers can be told apart.
func TestStdioStderrIsAttributed(t *testing.T) {
	var sink testlog.Buffer
	logger := slog.New(slog.NewJSONHandler(&sink, nil))
	tools, err := New(Config{Name: "files", Command: serverBinary(t), Args: []string{"-stderr", `Secure MCP Filesystem Server running on stdio\nallowed: /tmp\nno newline`}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tools.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tools.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(sink.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == "MCP server stderr" {
			if rec["server"] != "files" || rec["level"] != "INFO" {
				t.Errorf("record %v", rec)
			}
			got = append(got, rec["line"].(string))
		}
	}
	want := []string{"Secure MCP Filesystem Server running on stdio", "allowed: /tmp", "no newline"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q\n%s", got, want, sink.String())
	}
}
