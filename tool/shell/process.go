package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// drainTimeout bounds the wait for output once the command's process
// group is gone: only a process that escaped the group (setsid) can still
// hold the pipes then, and it is not waited for.
const drainTimeout = 2 * time.Second

type runner struct {
	dir     string
	timeout time.Duration
	max     int
	env     []string
	shell   string
}

type outcome struct {
	stdout, stderr *tailBuffer
	exitCode       int
	timedOut       bool
}

// run executes argv in its own process group and collects its output.
// The error is for a command that could not be started, or a cancelled
// ctx; exit statuses and timeouts are in the outcome.
func (r *runner) run(ctx context.Context, argv []string) (*outcome, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := r.lookPath(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: r.dir, Env: r.env}
	startInGroup(cmd)

	// The command writes into pipes we own (not exec's copying
	// goroutines), so its exit can be observed before its output ends.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	startErr := cmd.Start()
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		return nil, startErr
	}

	o := &outcome{stdout: newTailBuffer(r.max), stderr: newTailBuffer(r.max)}
	var readers sync.WaitGroup
	readers.Go(func() { _, _ = io.Copy(o.stdout, outR) })
	readers.Go(func() { _, _ = io.Copy(o.stderr, errR) })

	runCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	exited := make(chan error, 1)
	go func() {
		if canAwaitExit {
			exited <- awaitExit(cmd.Process.Pid)
		} else {
			exited <- cmd.Wait()
		}
	}()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-runCtx.Done():
		killGroup(cmd.Process)
		waitErr = <-exited
		o.timedOut = ctx.Err() == nil
	}
	if canAwaitExit {
		// The command has exited but is not reaped, so its process group
		// id cannot have been reused: kill what it left behind, then reap.
		killGroup(cmd.Process)
		waitErr = cmd.Wait()
	}

	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		o.exitCode = exitErr.ExitCode()
		if o.exitCode == 0 { // killed by a signal reports -1; keep it non-zero
			o.exitCode = -1
		}
	case !o.timedOut:
		return nil, waitErr
	}
	return o, nil
}

// lookPath finds a program in the command's own PATH (not this
// process's), skipping relative PATH entries.
func (r *runner) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(r.dir, name)
		}
		return name, nil
	}
	pathEnv, ok := "", false
	for _, kv := range r.env {
		if v, found := strings.CutPrefix(kv, "PATH="); found {
			pathEnv, ok = v, true
		}
	}
	if !ok {
		return "", fmt.Errorf("%q: the command environment has no PATH: give an absolute path, or allow PATH in EnvAllowList", name)
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q: executable file not found in PATH %q", name, pathEnv)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max   int
	buf   []byte
	total int64
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if n >= t.max {
		t.buf = append(t.buf[:0], p[n-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + n - t.max; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// text is the kept output as valid UTF-8, starting at a whole character
// when the beginning was dropped.
func (t *tailBuffer) text() string {
	b := t.buf
	if t.total > int64(len(b)) {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// note says how much was dropped, or is empty.
func (t *tailBuffer) note() string {
	if t.total <= int64(len(t.buf)) {
		return ""
	}
	return fmt.Sprintf("[output truncated: the first %d of %d bytes were dropped (MaxOutputBytes is %d)]\n", t.total-int64(len(t.buf)), t.total, t.max)
}
