package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBin names the directory of the PostgreSQL server binaries Private
// runs (default DefaultBin).
const EnvBin = "AGNO_TEST_POSTGRES_BIN"

// DefaultBin is where Debian and Ubuntu install PostgreSQL 15's server
// binaries.
const DefaultBin = "/usr/lib/postgresql/15/bin"

// Server is a PostgreSQL server of one test's own, so the test can stop,
// kill or freeze it (an outage) without touching anyone else's database.
// Its data survives Stop and Kill: Start brings the same cluster back on
// the same port.
type Server struct {
	t          testing.TB
	bin        string
	data, sock string
	logPath    string
	port       int
	settings   []string
	cred       *syscall.Credential

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	frozen []int         // the pids Freeze stopped, postmaster first
}

// Private initdbs a cluster into a temporary directory and starts
// PostgreSQL on a free loopback port, its Unix socket in a temporary
// directory too, with fsync off; settings are more "name=value" server
// settings (-c). It runs as the current user, or as user postgres when
// that is root (the server refuses root). The server is thawed and
// stopped when the test ends.
//
// Without the server binaries the test is skipped, unless
// AGNO_TEST_REQUIRE_POSTGRES=1, which makes it a failure.
func Private(t testing.TB, settings ...string) *Server {
	t.Helper()
	bin := os.Getenv(EnvBin)
	if bin == "" {
		bin = DefaultBin
	}
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			msg := fmt.Sprintf("PostgreSQL server binaries not found in %s (install postgresql-15, or set %s to their directory): %v", bin, EnvBin, err)
			if os.Getenv(EnvRequire) == "1" {
				t.Fatalf("%s=1: %s", EnvRequire, msg)
			}
			t.Skip(msg + ": skipping tests of a private PostgreSQL")
		}
	}
	s := &Server{t: t, bin: bin, settings: settings}
	root := t.TempDir()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: PostgreSQL refuses to run as root, and there is no user postgres to run it as (useradd postgres, or run the tests as another user): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		// t.TempDir's parent is private to root: let postgres through
		// (not read it), and give it the directory itself.
		if err := os.Chmod(filepath.Dir(root), 0o711); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(root, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	s.data = filepath.Join(root, "data")
	s.sock = root
	// A Unix socket path has at most 107 bytes: fall back to a shorter
	// directory when the test's is too long.
	if len(s.sock)+len("/.s.PGSQL.65535") > 100 {
		dir, err := os.MkdirTemp("/tmp", "pgs")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if s.cred != nil {
			if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
		s.sock = dir
	}
	s.logPath = filepath.Join(root, "postgres.log")

	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", s.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: initdb %s: %v\n%s", s.data, err, out)
	}
	// A port another process takes between freePort and the server's
	// bind fails the start: try a few.
	var err error
	for range 3 {
		s.port, err = freePort()
		if err != nil {
			t.Fatal(err)
		}
		if err = s.start(); err == nil || !strings.Contains(s.Log(), "could not bind") {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.cleanup)
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// DSN is the server's URL (TCP on 127.0.0.1, database postgres, user
// postgres, no password); params are more query parameters
// ("application_name=x").
func (s *Server) DSN(params ...string) string {
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
	for _, p := range params {
		dsn += "&" + p
	}
	return dsn
}

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// SocketDir is the directory of the server's Unix socket.
func (s *Server) SocketDir() string { return s.sock }

// Log is what the server wrote to its log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// Start starts the stopped or killed server again (same data, same
// port) and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("pgtest: Start: the server is running")
	}
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the server has its own descriptor
	args := []string{"-D", s.data, "-p", strconv.Itoa(s.port), "-k", s.sock,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=100"}
	for _, kv := range s.settings {
		args = append(args, "-c", kv)
	}
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so a signal to the test's group does not
	// reach it, and Kill can reach what it leaves.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited

	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, s.DSN())
		if err == nil {
			_ = conn.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		select {
		case <-exited:
			s.cmd = nil
			return fmt.Errorf("pgtest: postgres exited at start (%v); its log:\n%s", cmd.ProcessState, s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.killLocked()
			return fmt.Errorf("pgtest: postgres did not answer on %s within 60s: %v; its log:\n%s", s.Addr(), err, s.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop shuts the server down (fast: sessions are cut, what they
// committed is kept) and waits until it has exited; the port refuses
// connections then. A frozen server is thawed first.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.thawLocked()
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited: // the postmaster exits after its children
		s.cmd = nil
	case <-time.After(60 * time.Second):
		s.killLocked()
		s.t.Errorf("pgtest: postgres did not stop within 60s: killed it")
	}
}

// Kill kills the server and every process it started (SIGKILL: a crash,
// the next Start recovers from the WAL) and waits until they are gone.
func (s *Server) Kill() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

func (s *Server) killLocked() {
	if s.cmd == nil {
		return
	}
	pid := s.cmd.Process.Pid
	// Stopped, the postmaster forks no more: then its tree is complete.
	// (Backends make themselves process group leaders, so the group
	// alone would miss them.)
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	pids := s.tree(s.cmd)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-s.exited
	s.cmd, s.frozen = nil, nil
	s.waitGone(pids[1:])
}

// Freeze stops the server and every process it started (SIGSTOP):
// connections stay open and new ones are accepted by the kernel, but
// nothing answers — a hung database. Thaw resumes it.
func (s *Server) Freeze() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatal("pgtest: Freeze: the server is not running")
	}
	if s.frozen != nil {
		return
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	// Twice: a child forked just before the postmaster stopped may not
	// have been listed the first time.
	for range 2 {
		for _, p := range s.tree(s.cmd) {
			_ = syscall.Kill(p, syscall.SIGSTOP)
		}
	}
	s.frozen = s.tree(s.cmd)
}

// Thaw resumes a frozen server (SIGCONT).
func (s *Server) Thaw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.thawLocked()
}

func (s *Server) thawLocked() {
	if s.frozen == nil {
		return
	}
	for _, p := range s.frozen {
		_ = syscall.Kill(p, syscall.SIGCONT)
	}
	if s.cmd != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT)
	}
	s.frozen = nil
}

func (s *Server) cleanup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.thawLocked()
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
		s.cmd = nil
	case <-time.After(60 * time.Second):
		s.killLocked()
	}
}

// tree is the postmaster's pid followed by its descendants' (from
// /proc; nil without a running server).
func (s *Server) tree(cmd *exec.Cmd) []int {
	if cmd == nil {
		return nil
	}
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{cmd.Process.Pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// parentOf reads a process's parent pid from /proc/<pid>/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// waitGone waits (up to 10s) until pids have exited (gone, or zombies
// waiting for a parent to reap them), so a Start after Stop or Kill does
// not meet the old server's processes.
func (s *Server) waitGone(pids []int) {
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for time.Now().Before(deadline) {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
			if err != nil {
				break
			}
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 && strings.HasPrefix(string(b[i+1:]), " Z") {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
