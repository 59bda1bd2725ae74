package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	stderr io.Writer
	grace  time.Duration
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = t.env
	cmd.Stderr = t.stderr
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
	p := &childProcess{cmd: cmd, stdin: stdin, grace: t.grace}
	return (&sdk.IOTransport{Reader: stdout, Writer: p}).Connect(ctx)
}

// childProcess is the write side of the connection; closing it ends and
// reaps the process.
type childProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	grace time.Duration

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
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) {
		// A server killed or failing on the way out has still been reaped;
		// that is all closing needs.
		return nil
	}
	return p.waitErr
}
