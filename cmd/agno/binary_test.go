package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agno-go/agno/internal/testlog"
)

// builtAgno is the agno binary, built once for the package's e2e tests
// into a directory TestMain removes.
var builtAgno = struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}{}

func agnoBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	builtAgno.once.Do(func() {
		builtAgno.dir, builtAgno.err = os.MkdirTemp("", "agno-bin-")
		if builtAgno.err != nil {
			return
		}
		builtAgno.bin = filepath.Join(builtAgno.dir, "agno")
		//lint:ignore SA1019 the test runs the go command of the toolchain that built it; PATH may name none or another
		out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", builtAgno.bin, ".").CombinedOutput()
		if err != nil {
			builtAgno.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtAgno.err != nil {
		t.Fatal(builtAgno.err)
	}
	return builtAgno.bin
}

func removeBuiltAgno() {
	if builtAgno.dir != "" {
		_ = os.RemoveAll(builtAgno.dir)
	}
}

// usersConfig is the users' config.toml with its model pointed at
// modelURL and its HITL socket in a fresh short directory.
func usersConfig(t *testing.T, modelURL string) (cfg, socket string) {
	t.Helper()
	users := mustRead(t, "../../examples/agentos/config.toml")
	socket = shortSocket(t)
	cfg = strings.Replace(users, `base_url = "https://taotoken.net/api"`, `base_url = "`+modelURL+`"`, 1)
	cfg = strings.Replace(cfg, `socket_path = "/tmp/agno-hitl.sock"`, `socket_path = "`+socket+`"`, 1)
	if !strings.Contains(cfg, modelURL) || !strings.Contains(cfg, socket) {
		t.Fatal("the users' config changed shape (base_url, socket_path); update usersConfig")
	}
	return cfg, socket
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// agnoProcess is a running `agno agentos start`.
type agnoProcess struct {
	cmd    *exec.Cmd
	base   string
	logs   *testlog.Buffer
	exited chan error
}

// startAgno starts the binary with args (plus --port) and env, waits for
// /health, and kills it at the end of the test, logging its output if the
// test failed.
func startAgno(t *testing.T, bin string, args, env []string) *agnoProcess {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, append(args, "--port", fmt.Sprint(port))...)
	// The process is killed at the end: its temporary files (the upload
	// spool) go with the test's directory.
	cmd.Env = append(append(os.Environ(), "TMPDIR="+t.TempDir()), env...)
	p := &agnoProcess{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), logs: &testlog.Buffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
		if t.Failed() {
			t.Logf("agentos log:\n%s", p.logs.String())
		}
	})
	waitHealthy(t, p.base, p.exited)
	return p
}

// waitLogged waits for s in the process's output: a line written before
// /health answered may still be in the pipe the output is copied through.
func (p *agnoProcess) waitLogged(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.logs.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("%q not in the log:\n%s", s, p.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop sends SIGTERM and expects a clean exit.
func (p *agnoProcess) stop(t *testing.T) {
	t.Helper()
	p.stopWithin(t, 20*time.Second)
}

// stopWithin sends SIGTERM and expects a clean exit within d.
func (p *agnoProcess) stopWithin(t *testing.T, d time.Duration, during ...func()) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	for _, f := range during {
		f()
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
		p.exited <- nil // for the cleanup
	case <-time.After(d):
		t.Fatalf("no exit within %s of SIGTERM", d)
	}
}
