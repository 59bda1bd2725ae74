package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport starts the server as a child process in its own process
// group and speaks newline-delimited JSON over its stdin/stdout. Closing
// the connection closes stdin, waits TerminateGrace for the server to
// exit, then signals the group with SIGTERM and SIGKILL, and always reaps
// the child.
type stdioTransport struct {
	argv   []string
	env    []string
	stderr io.Writer // nil: each line to log, attributed to name
	log    *slog.Logger
	name   string
	grace  time.Duration
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = t.env
	cmd.Stderr = t.stderr
	var lines *stderrLog
	if t.stderr == nil {
		// One per process: the lines of concurrent sessions stay whole.
		lines = &stderrLog{log: t.log, server: t.name}
		cmd.Stderr = lines
	}
	// A stderr writer that is not a file is fed by a goroutine; WaitDelay
	// stops Wait from hanging on grandchildren that keep the pipe open.
	cmd.WaitDelay = t.grace
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("starting %q: %w", t.argv[0], err)
	}
	p := &childProcess{cmd: cmd, stdin: stdin, grace: t.grace, stderr: lines}
	return (&sdk.IOTransport{Reader: stdout, Writer: p}).Connect(ctx)
}

// childProcess is the write side of the connection; closing it ends and
// reaps the process.
type childProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	grace  time.Duration
	stderr *stderrLog

	once    sync.Once
	waitErr error
}

func (p *childProcess) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *childProcess) Close() error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		wait := func() bool {
			t := time.NewTimer(p.grace)
			defer t.Stop()
			select {
			case p.waitErr = <-done:
				return true
			case <-t.C:
				return false
			}
		}
		if wait() {
			return
		}
		signalGroup(p.cmd, false)
		if wait() {
			return
		}
		signalGroup(p.cmd, true)
		p.waitErr = <-done
	})
	p.stderr.flush() // Wait has copied the last of it
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) {
		// A server killed or failing on the way out has still been reaped;
		// that is all closing needs.
		return nil
	}
	return p.waitErr
}

// maxStderrLine bounds one logged line; a longer one is logged in parts.
const maxStderrLine = 16 << 10

// stderrLog logs a server's standard error line by line.
type stderrLog struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	buf    []byte
}

func (l *stderrLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) >= maxStderrLine {
				l.emit(l.buf[:maxStderrLine])
				l.buf = l.buf[maxStderrLine:]
				continue
			}
			return len(b), nil
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

func (l *stderrLog) emit(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(line) > maxStderrLine {
		line = line[:maxStderrLine]
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	l.log.Info("MCP server stderr", "server", l.server, "line", string(line))
}

// flush logs a last line that had no newline.
func (l *stderrLog) flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = nil
	}
}
