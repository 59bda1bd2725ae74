package coding

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// run runs argv in dir, in its own process group (killed whole at the
// timeout), writing into stdout and stderr. code is the exit status;
// err is a command that could not start, or a cancelled ctx.
func run(ctx context.Context, dir string, timeout time.Duration, argv []string, stdout, stderr *capped) (code int, timedOut bool, err error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, false, err
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, path, argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	inGroup(cmd)
	// A process the command left behind may hold the pipes; do not wait.
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	if runCtx.Err() != nil {
		return 0, true, nil
	}
	var ee *exec.ExitError
	if errors.As(runErr, &ee) {
		return ee.ExitCode(), false, nil
	}
	if runErr != nil {
		return 0, false, fmt.Errorf("%s: %w", argv[0], runErr)
	}
	return 0, false, nil
}

// capped keeps the first captureLimit bytes written and notes the rest.
type capped struct {
	b       []byte
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := captureLimit - len(c.b); room < len(p) {
		c.b = append(c.b, p[:max(room, 0)]...)
		c.dropped = true
		return len(p), nil
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

func (c *capped) String() string { return strings.ToValidUTF8(string(c.b), "\uFFFD") }
