package mcp

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The reference server @modelcontextprotocol/server-everything, pinned in
// testdata/package.json and installed by `make test-deps`.

// everything returns node and the server's entry point; without them the
// test is skipped, except under CI=true where it fails.
func everything(t testing.TB) (node, entry string) {
	t.Helper()
	missing := func(format string, a ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" (CI=true: run `make test-deps`)", a...)
		}
		t.Skipf(format+" (run `make test-deps`)", a...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	entry, err = filepath.Abs("testdata/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		missing("the reference server is not installed: %v", err)
	}
	return node, entry
}

func everythingStdio(t testing.TB) Config {
	node, entry := everything(t)
	return Config{Command: node, Args: []string{entry, "stdio"}, Stderr: io.Discard}
}

func TestReferenceServerOverStdio(t *testing.T) {
	settle(t, 0)
	tools := connected(t, everythingStdio(t))
	ctx := context.Background()
	fns, err := tools.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-resource-reference", "get-resource-links"} {
		if !slices.Contains(names(fns), want) {
			t.Fatalf("reference server tools %v lack %q", names(fns), want)
		}
	}
	// The echo's leading spaces come back; the trailing ones are removed by
	// agno's final strip() of the whole result, not on the way in.
	r, err := tools.Call(ctx, "echo", map[string]any{"message": "  padded  "})
	if err != nil || r.Content != "Echo:   padded" {
		t.Fatalf("echo: %q %v", r.Content, err)
	}
	r, err = tools.Call(ctx, "echo", map[string]any{"message": "  padded  \n|"})
	if err != nil || r.Content != "Echo:   padded  \n|" {
		t.Fatalf("echo with trailing spaces inside: %q %v", r.Content, err)
	}
	r, err = tools.Call(ctx, "get-sum", map[string]any{"a": 2, "b": 3})
	if err != nil || !strings.Contains(r.Content, "5") {
		t.Fatalf("get-sum: %q %v", r.Content, err)
	}
	r, err = tools.Call(ctx, "get-tiny-image", nil)
	if err != nil || len(r.Images) != 1 || !bytes.HasPrefix(r.Images[0].Content, []byte("\x89PNG")) || r.Images[0].MimeType != "image/png" {
		t.Fatalf("get-tiny-image: %q %d images %v", r.Content, len(r.Images), err)
	}
	if !strings.Contains(r.Content, "Image has been generated and added to the response.") {
		t.Fatalf("get-tiny-image content %q", r.Content)
	}
	r, err = tools.Call(ctx, "get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1})
	if err != nil || !regexp.MustCompile(`\[Embedded resource: \{"uri":"[^"]+","mimeType":"text/plain","meta":null,"text":`).MatchString(r.Content) {
		t.Fatalf("get-resource-reference: %q %v", r.Content, err)
	}
	r, err = tools.Call(ctx, "get-resource-links", map[string]any{"count": 2})
	if err != nil || strings.Count(r.Content, "[Unsupported content type: resource_link]") != 2 {
		t.Fatalf("get-resource-links: %q %v", r.Content, err)
	}
	// Invalid arguments: the server's error is result text.
	r, err = tools.Call(ctx, "get-sum", map[string]any{"a": "x"})
	if err != nil || !strings.HasPrefix(r.Content, "Error") {
		t.Fatalf("bad arguments: %q %v", r.Content, err)
	}
	_ = tools.Close()
	settle(t, 0)
}

func TestReferenceServerStdioRefreshStaysFlat(t *testing.T) {
	settle(t, 0)
	cfg := everythingStdio(t)
	cfg.RefreshConnection = true
	tools := connected(t, cfg)
	ctx := context.Background()
	if _, err := tools.Call(ctx, "echo", map[string]any{"message": "warm"}); err != nil {
		t.Fatal(err)
	}
	settle(t, 1)
	fds, total := openFDs(t), TotalOpenSessions()
	for i := range 200 {
		msg := "  call " + strconv.Itoa(i)
		r, err := tools.Call(ctx, "echo", map[string]any{"message": msg})
		if err != nil || r.Content != "Echo: "+msg {
			t.Fatalf("call %d: %q %v", i, r.Content, err)
		}
	}
	if tools.OpenSessions() != 1 || TotalOpenSessions() != total {
		t.Fatalf("sessions grew: %d open, total %d (was %d)", tools.OpenSessions(), TotalOpenSessions(), total)
	}
	settle(t, 1)
	if got := openFDs(t); got > fds {
		t.Fatalf("file descriptors grew: %d -> %d", fds, got)
	}
	_ = tools.Close()
	settle(t, 0)
}

// everythingHTTP starts the reference server's streamable HTTP mode and
// tracks the sessions it reports open ("Session initialized" minus
// "Transport closed").
type everythingHTTP struct {
	URL    string
	mu     sync.Mutex
	opened map[string]bool
}

var sessionLine = regexp.MustCompile(`(Session initialized with ID:|Transport closed for session) ([0-9a-f-]+)`)

func startEverythingHTTP(t *testing.T) *everythingHTTP {
	node, entry := everything(t)
	port := freePort(t)
	e := &everythingHTTP{URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", opened: map[string]bool{}}
	startProcess(t, "listening on port", func(line string) {
		m := sessionLine.FindStringSubmatch(line)
		if m == nil {
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if strings.HasPrefix(m[1], "Session") {
			e.opened[m[2]] = true
		} else {
			delete(e.opened, m[2])
		}
	}, node, []string{entry, "streamableHttp"}, "PORT="+strconv.Itoa(port))
	return e
}

func (e *everythingHTTP) Open() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.opened)
}

func TestReferenceServerOverStreamableHTTP(t *testing.T) {
	srv := startEverythingHTTP(t)
	cfg := Config{URL: srv.URL, HeaderProvider: bearer, RefreshConnection: true}
	tools := connected(t, cfg)
	ctx := runCtx("run-http", "tok")
	r, err := tools.Call(ctx, "echo", map[string]any{"message": "  padded  \n|"})
	if err != nil || r.Content != "Echo:   padded  \n|" {
		t.Fatalf("echo: %q %v", r.Content, err)
	}
	eventually(t, "the server to close the call's session", func() bool { return srv.Open() == 1 })
	fds, total := openFDs(t), TotalOpenSessions()

	// 200 calls, each in its own session (refresh + header provider), then
	// 200 on the default session: nothing accumulates on either side.
	for i := range 200 {
		r, err := tools.Call(ctx, "get-sum", map[string]any{"a": i, "b": 1})
		if err != nil || !strings.Contains(r.Content, strconv.Itoa(i+1)) {
			t.Fatalf("call %d: %q %v", i, r.Content, err)
		}
		if tools.OpenSessions() != 1 {
			t.Fatalf("call %d left %d sessions open", i, tools.OpenSessions())
		}
	}
	for i := range 200 {
		if _, err := tools.Call(context.Background(), "echo", map[string]any{"message": strconv.Itoa(i)}); err != nil {
			t.Fatalf("default-session call %d: %v", i, err)
		}
	}
	if TotalOpenSessions() != total {
		t.Fatalf("TotalOpenSessions %d, was %d", TotalOpenSessions(), total)
	}
	eventually(t, "server-side sessions to settle at 1", func() bool { return srv.Open() == 1 })
	eventually(t, "file descriptors to settle", func() bool { return openFDs(t) <= fds })

	// Per-run sessions without refresh: one per run, closed by ReleaseRun.
	tools2 := connected(t, Config{URL: srv.URL, HeaderProvider: bearer})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := tools2.Call(runCtx("run-a", "a"), "echo", map[string]any{"message": "p"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	eventually(t, "one default + one run session on tools2", func() bool { return srv.Open() == 3 })
	tools2.ReleaseRun("run-a")
	_ = tools2.Close()
	_ = tools.Close()
	eventually(t, "every server session closed", func() bool { return srv.Open() == 0 })
}
