package mcp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The read timeout of these tests: small, so a hung call ends soon, yet
// far above what a healthy call of the test server takes on a busy machine.
const hungTimeout = time.Second

var hungTimeoutText = "Error: " + timeoutText(hungTimeout)

// hungServer is a stdio test server whose "hang" tool never answers. It
// logs each process it starts to a file, and while the files named by
// hangInit or hangList exist, its initialize or tools/list never answer.
type hungServer struct {
	started, hangInit, hangList string
}

func newHungServer(t *testing.T) (*hungServer, Config) {
	dir := t.TempDir()
	h := &hungServer{
		started:  filepath.Join(dir, "started"),
		hangInit: filepath.Join(dir, "hang-init"),
		hangList: filepath.Join(dir, "hang-list"),
	}
	return h, Config{
		Command: serverBinary(t),
		Args:    []string{"-started", h.started, "-hang-init", h.hangInit, "-hang-list", h.hangList},
		Stderr:  io.Discard,
		Timeout: hungTimeout,
		// Starting a process is not what these tests time out.
		ConnectTimeout: 30 * time.Second,
		// The hung server ignores its closed stdin; do not wait long for it
		// before SIGTERM.
		TerminateGrace: 20 * time.Millisecond,
	}
}

// pids are the processes the server started, in order.
func (h *hungServer) pids(t *testing.T) []int {
	t.Helper()
	b, err := os.ReadFile(h.started)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pid)
	}
	return out
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func callPID(t *testing.T, tools *Tools) int {
	t.Helper()
	r, err := tools.Call(context.Background(), "pid", nil)
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	pid, err := strconv.Atoi(r.Content)
	if err != nil {
		t.Fatalf("pid: %q", r.Content)
	}
	return pid
}

// reaped reports whether pid, a child of the test, is gone and waited
// for: a zombie still has /proc/<pid> and still takes signal 0.
func reaped(pid int) bool {
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitMarker waits until a call has created marker in the server.
func waitMarker(t *testing.T, marker string) {
	t.Helper()
	eventually(t, "the server to be inside the call", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}

// A call that times out on a stdio server answers the model with the read
// timeout's text, as before, and the server is treated as broken: the
// next call is answered by a new process, and the old one is killed and
// reaped, leaving no goroutine or file descriptor behind.
func TestStdioTimedOutServerIsReplaced(t *testing.T) {
	settle(t, 0)
	leaks := goleak.IgnoreCurrent()
	fds := openFDs(t)
	before := TotalOpenSessions()
	srv, cfg := newHungServer(t)
	tools := connected(t, cfg)
	ctx := context.Background()

	old := callPID(t, tools)
	r, err := tools.Call(ctx, "hang", nil)
	if err != nil || r.Content != hungTimeoutText {
		t.Fatalf("a call that hangs: %+v %v, want %q", r, err, hungTimeoutText)
	}
	// A model retrying the call gets the same answer, from a new process.
	r, err = tools.Call(ctx, "hang", nil)
	if err != nil || r.Content != hungTimeoutText {
		t.Fatalf("the second call that hangs: %+v %v", r, err)
	}
	cur := callPID(t, tools)
	if cur == old {
		t.Fatalf("pid %d answered after its call timed out: the hung server was kept", old)
	}
	if got := srv.pids(t); len(got) != 3 || got[0] != old || got[2] != cur {
		t.Fatalf("processes started %v; want %d, one for the retried hang, then %d", got, old, cur)
	}
	for _, pid := range srv.pids(t)[:2] {
		eventually(t, "timed-out server "+strconv.Itoa(pid)+" to be reaped", func() bool { return reaped(pid) })
	}
	settle(t, 1)
	if tools.OpenSessions() != 1 || TotalOpenSessions() != before+1 {
		t.Fatalf("OpenSessions %d, total %d (before %d)", tools.OpenSessions(), TotalOpenSessions(), before)
	}

	_ = tools.Close()
	settle(t, 0)
	if got := openFDs(t); got > fds {
		t.Errorf("file descriptors: %d before, %d after Close", fds, got)
	}
	goleak.VerifyNone(t, leaks)
}

// Calls in flight on a session when another call's timeout declares it
// broken fail (they do not wait for their own timeout), and the calls
// that follow, all at once, share a single replacement process.
func TestStdioTimeoutFailsCallsInFlightAndStartsOneReplacement(t *testing.T) {
	settle(t, 0)
	leaks := goleak.IgnoreCurrent()
	srv, cfg := newHungServer(t)
	tools := connected(t, cfg)
	ctx := context.Background()
	old := callPID(t, tools)

	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	var wg sync.WaitGroup
	var r1, r2 string
	var err1, err2 error
	wg.Go(func() {
		r, err := tools.Call(ctx, "hang", map[string]any{"marker": first})
		r1, err1 = r.Content, err
	})
	waitMarker(t, first)
	// Half a timeout apart, so the second call is surely still waiting
	// on its own when the first one times out.
	time.Sleep(hungTimeout / 2)
	wg.Go(func() {
		r, err := tools.Call(ctx, "hang", map[string]any{"marker": second})
		r2, err2 = r.Content, err
	})
	waitMarker(t, second)
	wg.Wait()
	if err1 != nil || r1 != hungTimeoutText {
		t.Fatalf("the call that timed out: %q %v", r1, err1)
	}
	if !errors.Is(err2, ErrSessionLost) {
		t.Fatalf("the call in flight on the broken session: %q %v, want ErrSessionLost", r2, err2)
	}

	const n = 8
	pids := make([]int, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r, err := tools.Call(ctx, "pid", nil)
			errs[i] = err
			pids[i], _ = strconv.Atoi(r.Content)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || pids[i] == old || pids[i] != pids[0] {
			t.Fatalf("call %d after the timeout: pid %d, %v (old %d, others %v)", i, pids[i], errs[i], old, pids)
		}
	}
	if got := srv.pids(t); !slices.Equal(got, []int{old, pids[0]}) {
		t.Fatalf("processes started %v, want [%d %d]: one replacement", got, old, pids[0])
	}
	eventually(t, "the timed-out server to be reaped", func() bool { return reaped(old) })
	settle(t, 1)

	_ = tools.Close()
	settle(t, 0)
	goleak.VerifyNone(t, leaks)
}

// A tools/list or initialize that times out breaks its session like a
// call does: with RefreshConnection, a server whose tool list does not
// come back after reconnecting is not used, and one that does not
// initialise is not kept; each is reaped, and the next call starts anew.
func TestStdioListAndInitializeTimeoutsReplaceTheServer(t *testing.T) {
	settle(t, 0)
	leaks := goleak.IgnoreCurrent()
	srv, cfg := newHungServer(t)
	cfg.RefreshConnection = true
	cfg.ConnectTimeout = hungTimeout
	tools := connected(t, cfg)
	ctx := context.Background()
	old := callPID(t, tools)

	touch(t, srv.hangList)
	if _, err := tools.Functions(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Functions on a server whose tools/list hangs: %v", err)
	}
	eventually(t, "the server whose listing timed out to be reaped", func() bool { return reaped(old) })
	// Reconnecting lists the tools again, and that hangs too.
	_, err := tools.Call(ctx, "pid", nil)
	if !errors.Is(err, ErrSessionLost) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call reconnecting to a server whose tools/list hangs: %v", err)
	}
	got := srv.pids(t)
	if len(got) != 2 {
		t.Fatalf("processes started %v", got)
	}
	eventually(t, "the reconnected server whose listing timed out to be reaped", func() bool { return reaped(got[1]) })

	if err := os.Remove(srv.hangList); err != nil {
		t.Fatal(err)
	}
	touch(t, srv.hangInit)
	_, err = tools.Call(ctx, "pid", nil)
	if !errors.Is(err, ErrSessionLost) || !strings.Contains(err.Error(), "ConnectTimeout") {
		t.Fatalf("a call reconnecting to a server whose initialize hangs: %v", err)
	}
	got = srv.pids(t)
	if len(got) != 3 {
		t.Fatalf("processes started %v", got)
	}
	eventually(t, "the server that did not initialise to be reaped", func() bool { return reaped(got[2]) })

	if err := os.Remove(srv.hangInit); err != nil {
		t.Fatal(err)
	}
	cur := callPID(t, tools)
	if got = srv.pids(t); len(got) != 4 || got[3] != cur {
		t.Fatalf("processes started %v, answered by %d", got, cur)
	}
	settle(t, 1)

	_ = tools.Close()
	settle(t, 0)
	goleak.VerifyNone(t, leaks)
}

// Streamable HTTP: a timed-out call also ends its session (the server is
// told, and forgets it) and the next call opens a new one.
func TestStreamableHTTPTimedOutSessionIsReplaced(t *testing.T) {
	h := startHTTP(t)
	tools := connected(t, Config{URL: h.URL, Timeout: hungTimeout})
	ctx := context.Background()
	if r, err := tools.Call(ctx, "search", map[string]any{"query": "q"}); err != nil || r.Content != "results for q" {
		t.Fatalf("%+v %v", r, err)
	}
	r, err := tools.Call(ctx, "slow", map[string]any{"ms": 60000})
	if err != nil || r.Content != hungTimeoutText {
		t.Fatalf("a call that times out: %+v %v", r, err)
	}
	if r, err := tools.Call(ctx, "search", map[string]any{"query": "again"}); err != nil || r.Content != "results for again" {
		t.Fatalf("after the timeout: %+v %v", r, err)
	}
	if n := len(h.InitAuth()); n != 2 {
		t.Fatalf("%d sessions initialised, want 2: the timed-out one was kept", n)
	}
	eventually(t, "the server to forget the timed-out session", func() bool { return h.Sessions() == 1 })
	_ = tools.Close()
	eventually(t, "the server to forget every session", func() bool { return h.Sessions() == 0 })
}
