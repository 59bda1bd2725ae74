package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestPrivateProbe is run by TestPrivateWithoutBinaries in a child
// process.
func TestPrivateProbe(t *testing.T) {
	if os.Getenv("PGTEST_PRIVATE_PROBE") != "1" {
		t.Skip("helper for TestPrivateWithoutBinaries")
	}
	Private(t)
}

func TestPrivateWithoutBinaries(t *testing.T) {
	for _, c := range []struct {
		name, require string
		wantFail      bool
		wantOut       string
	}{
		{"skips", "", false, "skipping tests of a private PostgreSQL"},
		{"required fails", "1", true, EnvRequire + "=1: PostgreSQL server binaries not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPrivateProbe$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "PGTEST_PRIVATE_PROBE=1", EnvBin+"="+t.TempDir(), EnvRequire+"="+c.require)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.wantFail {
				t.Errorf("child failed = %v, want %v\n%s", failed, c.wantFail, out)
			}
			if !strings.Contains(string(out), c.wantOut) {
				t.Errorf("child output lacks %q:\n%s", c.wantOut, out)
			}
		})
	}
}

func connectWithin(dsn string, d time.Duration) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return pgx.Connect(ctx, dsn)
}

func TestPrivateLifecycle(t *testing.T) {
	s := Private(t)
	if !strings.HasPrefix(s.DSN(), "postgres://postgres@127.0.0.1:") {
		t.Fatalf("DSN %q", s.DSN())
	}
	if _, err := os.Stat(s.SocketDir() + "/.s.PGSQL." + strings.TrimPrefix(s.Addr(), "127.0.0.1:")); err != nil {
		t.Errorf("no Unix socket in %s: %v", s.SocketDir(), err)
	}
	conn := connect(t, s.DSN())
	var fsync string
	if err := conn.QueryRow(t.Context(), "SHOW fsync").Scan(&fsync); err != nil || fsync != "off" {
		t.Errorf("fsync = %q (%v), want off", fsync, err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())

	s.Stop()
	if c, err := connectWithin(s.DSN(), 5*time.Second); err == nil {
		c.Close(context.Background())
		t.Fatal("connected to a stopped server")
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("connect to a stopped server: %v, want connection refused", err)
	}
	s.Stop() // stopping a stopped server does nothing

	s.Start()
	conn = connect(t, s.DSN())
	var v int
	if err := conn.QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil || v != 1 {
		t.Fatalf("after Stop and Start: %d, %v", v, err)
	}
	if _, err := conn.Exec(t.Context(), "INSERT INTO kept VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	pids := s.tree(s.cmd)
	if len(pids) < 3 {
		t.Fatalf("postmaster tree %v: want the postmaster, its helpers and a backend", pids)
	}

	s.Kill()
	for _, p := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil && !strings.Contains(string(b), ") Z") {
			t.Errorf("process %d of the killed server still runs: %s", p, b)
		}
	}
	s.Start() // crash recovery
	conn = connect(t, s.DSN())
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM kept").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after Kill and Start: %d rows, %v; want 2", n, err)
	}
	conn.Close(context.Background())

	// A frozen server's processes cannot notice their postmaster died:
	// Kill must kill each.
	s.Freeze()
	pids = s.tree(s.cmd)
	s.Kill()
	for _, p := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil && !strings.Contains(string(b), ") Z") {
			t.Errorf("process %d of the killed frozen server still there: %s", p, b)
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	s.Start()
	conn = connect(t, s.DSN())
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM kept").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after Kill of the frozen server and Start: %d rows, %v; want 2", n, err)
	}
}

func TestPrivateFreeze(t *testing.T) {
	s := Private(t)
	conn := connect(t, s.DSN())
	s.Freeze()
	s.Freeze() // freezing a frozen server does nothing

	// A query on an open connection gets no answer.
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	start := time.Now()
	_, err := conn.Exec(ctx, "SELECT 1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("query on a frozen server: %v, want the deadline passed", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("query on a frozen server returned after %s", d)
	}
	// A new connection is accepted by the kernel, then gets no answer.
	if c, err := connectWithin(s.DSN(), time.Second); err == nil {
		c.Close(context.Background())
		t.Error("connected to a frozen server")
	} else if errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("connect to a frozen server: %v, want a timeout", err)
	}

	s.Thaw()
	c, err := connectWithin(s.DSN(), 10*time.Second)
	if err != nil {
		t.Fatalf("after Thaw: %v", err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatalf("after Thaw: %v", err)
	}
}

// TestPrivateCleanupThawsAndStops leaves a server frozen: its cleanup
// must still end it, which the next test (and goleak) would notice.
func TestPrivateCleanupThawsAndStops(t *testing.T) {
	var s *Server
	var pids []int
	t.Run("frozen at the end", func(t *testing.T) {
		s = Private(t)
		s.Freeze()
		pids = s.tree(s.cmd)
	})
	for _, p := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil && !strings.Contains(string(b), ") Z") {
			t.Errorf("process %d of a cleaned-up server still runs: %s", p, b)
		}
	}
	if c, err := connectWithin(s.DSN(), 2*time.Second); err == nil {
		c.Close(context.Background())
		t.Error("a cleaned-up server still answers")
	}
}
