package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/tool/mcp/internal/mcptest"
)

var buildDir string

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if buildDir != "" {
			os.RemoveAll(buildDir)
		}
		os.Exit(code)
	}))
}

var (
	buildOnce sync.Once
	serverBin string
	buildErr  error
)

// serverBinary builds testdata/server once per test binary.
func serverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-testserver-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		serverBin = filepath.Join(dir, "server")
		//lint:ignore SA1019 the test runs the go command of the toolchain that built it; PATH may name none or another
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		out, err := exec.Command(gobin, "build", "-o", serverBin, "./testdata/server").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./testdata/server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return serverBin
}

// inMemory is a Config whose sessions each get a fresh in-process test
// server over an in-memory transport. Server sessions end when the client
// closes its side.
func inMemory(t testing.TB) Config {
	t.Helper()
	srv := mcptest.NewServer()
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return Config{
		Stderr: io.Discard,
		NewTransport: func(ctx context.Context) (sdk.Transport, error) {
			ct, st := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			if err != nil {
				return nil, err
			}
			wg.Go(func() { _ = ss.Wait() })
			return ct, nil
		},
	}
}

// httpServer is the test server behind a real streamable HTTP endpoint.
type httpServer struct {
	URL string
	srv *sdk.Server
	ts  *httptest.Server

	// down makes the endpoint answer 503 Service Unavailable.
	down atomic.Bool

	mu sync.Mutex
	// initAuth are the Authorization headers of initialize requests: one
	// per session opened.
	initAuth []string
}

func startHTTP(t testing.TB) *httpServer {
	t.Helper()
	h := &httpServer{srv: mcptest.NewServer()}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.srv }, nil)
	h.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		h.mu.Lock()
		if msg.Method == "initialize" {
			h.initAuth = append(h.initAuth, r.Header.Get("Authorization"))
		}
		h.mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	h.URL = h.ts.URL
	t.Cleanup(h.Close)
	return h
}

// Sessions is the number of sessions the server holds open.
func (h *httpServer) Sessions() int {
	n := 0
	for range h.srv.Sessions() {
		n++
	}
	return n
}

func (h *httpServer) InitAuth() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.initAuth)
}

func (h *httpServer) Close() {
	for ss := range h.srv.Sessions() {
		_ = ss.Close()
	}
	h.ts.CloseClientConnections()
	h.ts.Close()
}

// eventually polls cond (a state that settles asynchronously, such as a
// server noticing a closed session) for up to 10 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openFDs counts this process's open file descriptors (Linux).
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// child is a child process of the test as /proc shows it.
type child struct {
	PID   int
	State string // R, S, Z (zombie), ...
}

// children lists the test process's child processes (Linux).
func children(t testing.TB) []child {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	me := os.Getpid()
	var out []child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces.
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+2:]
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == me {
			out = append(out, child{PID: pid, State: f[0]})
		}
	}
	return out
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startProcess runs a server process for the test and waits until a line
// of its output (stdout and stderr) contains ready. onLine sees every
// line. The process is killed and reaped at cleanup.
func startProcess(t testing.TB, ready string, onLine func(string), name string, args []string, env ...string) *exec.Cmd {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		t.Fatal(err)
	}
	pw.Close()
	readyc := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			line := sc.Text()
			if onLine != nil {
				onLine(line)
			}
			if !seen && strings.Contains(line, ready) {
				seen = true
				close(readyc)
			}
		}
		if !seen {
			close(readyc)
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-readDone
	})
	select {
	case <-readyc:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not print %q", name, ready)
	}
	return cmd
}
