// Package shell is agno's ShellTools: a run_shell_command tool that runs a
// program on the host, in a fixed working directory, with a timeout, an
// output limit and an environment built only from an allow-list.
//
// By default the model gives the command as an argument list, like agno's
// run_shell_command(args: List[str]): the program is executed directly and
// no shell parses anything, so arguments are never reinterpreted. With
// Config.AllowShell the tool also takes a single command string, run with
// `sh -c` (pipes, redirections and globs then work, and so does anything
// else a shell can do). Either way this runs arbitrary programs on the
// host: gate it with Config.RequiresConfirmation where that matters.
//
// A command runs in its own process group. On timeout or cancellation the
// whole group is killed, and on Linux whatever the command leaves running
// in its group when it exits (background jobs) is killed too, so no
// process outlives the tool call.
package shell

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agno-go/agno/tool"
)

// DefaultEnvAllowList is the environment a command inherits when
// Config.EnvAllowList is nil.
var DefaultEnvAllowList = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

const (
	defaultTimeout   = 60 * time.Second
	defaultMaxOutput = 64 << 10
	defaultTail      = 100
	defaultShell     = "/bin/sh"
)

// Config configures the toolkit.
type Config struct {
	// Dir is the working directory of every command; empty means the
	// process's current directory. It must exist.
	Dir string
	// Timeout bounds each command; 0 means 60s.
	Timeout time.Duration
	// MaxOutputBytes is how much of stdout and of stderr is kept (the
	// end of each); 0 means 64 KiB. More is dropped with a note.
	MaxOutputBytes int
	// EnvAllowList names the variables a command inherits from this
	// process; nil means DefaultEnvAllowList, an empty non-nil list means
	// none.
	EnvAllowList []string
	// Env sets variables for every command, over inherited ones.
	Env map[string]string
	// AllowShell adds the `command` parameter: one command line run with
	// Shell -c.
	AllowShell bool
	// Shell runs `command`; empty means /bin/sh.
	Shell string
	// RequiresConfirmation pauses each call for a human's approval.
	RequiresConfirmation bool

	// Name of the toolkit; empty means "shell_tools".
	Name            string
	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

type argvArgs struct {
	Args []string `json:"args" description:"The command to run as a list of strings: the program, then each argument, e.g. [\"ls\", \"-la\"]. No shell is involved."`
	Tail *int     `json:"tail,omitempty" description:"The number of lines to return from the output (default 100)."`
}

type shellArgs struct {
	Args    []string `json:"args,omitempty" description:"The command to run as a list of strings: the program, then each argument, e.g. [\"ls\", \"-la\"]. No shell is involved."`
	Command *string  `json:"command,omitempty" description:"Instead of args: one shell command line, run with sh -c (pipes, redirections and globs work)."`
	Tail    *int     `json:"tail,omitempty" description:"The number of lines to return from the output (default 100)."`
}

// ErrInvalidArgs is returned by the tool for a call that names no command,
// or two.
var ErrInvalidArgs = errors.New("shell: invalid arguments")

// New validates the configuration and returns the toolkit with its
// run_shell_command tool.
func New(cfg Config) (*tool.Toolkit, error) {
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	const desc = "Runs a shell command and returns the output or error."
	var opts []tool.Option
	if cfg.RequiresConfirmation {
		opts = append(opts, tool.RequiresConfirmation())
	}
	var fn *tool.Function
	if cfg.AllowShell {
		fn, err = tool.New("run_shell_command", desc, func(ctx context.Context, a shellArgs) (string, error) {
			switch {
			case a.Command != nil && len(a.Args) > 0:
				return "", fmt.Errorf("%w: give either args or command, not both", ErrInvalidArgs)
			case a.Command != nil:
				if strings.TrimSpace(*a.Command) == "" {
					return "", fmt.Errorf("%w: command is empty", ErrInvalidArgs)
				}
				log.InfoContext(ctx, "shell: running command", "command", *a.Command)
				return r.call(ctx, []string{r.shell, "-c", *a.Command}, a.Tail)
			}
			return r.callArgs(ctx, log, a.Args, a.Tail)
		}, opts...)
	} else {
		fn, err = tool.New("run_shell_command", desc, func(ctx context.Context, a argvArgs) (string, error) {
			return r.callArgs(ctx, log, a.Args, a.Tail)
		}, opts...)
	}
	if err != nil {
		return nil, err
	}
	name := cfg.Name
	if name == "" {
		name = "shell_tools"
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: name, Functions: []*tool.Function{fn},
		Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
	})
}

func newRunner(cfg Config) (*runner, error) {
	dir := cfg.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("shell: Dir is empty and the current directory is unknown: %w", err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("shell: Dir %q: %w", cfg.Dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("shell: Dir %q is not an existing directory: create it or point Dir elsewhere", dir)
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	if timeout < 0 {
		return nil, fmt.Errorf("shell: Timeout %s is negative: use a positive duration, or 0 for the default %s", cfg.Timeout, defaultTimeout)
	}
	max := cfg.MaxOutputBytes
	if max == 0 {
		max = defaultMaxOutput
	}
	if max < 0 {
		return nil, fmt.Errorf("shell: MaxOutputBytes %d is negative: use a positive size, or 0 for the default %d", cfg.MaxOutputBytes, defaultMaxOutput)
	}
	env, err := buildEnv(cfg.EnvAllowList, cfg.Env)
	if err != nil {
		return nil, err
	}
	sh := cfg.Shell
	if sh == "" {
		sh = defaultShell
	}
	return &runner{dir: dir, timeout: timeout, max: max, env: env, shell: sh}, nil
}

// buildEnv is the allow-listed part of this process's environment with
// extra set over it.
func buildEnv(allow []string, extra map[string]string) ([]string, error) {
	if allow == nil {
		allow = DefaultEnvAllowList
	}
	vals := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, k := range allow {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("shell: EnvAllowList entry %q is not a variable name", k)
		}
		if v, ok := os.LookupEnv(k); ok {
			set(k, v)
		}
	}
	for k, v := range extra {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("shell: Env entry %q cannot be set: names must be non-empty without '=' and values without NUL", k)
		}
		set(k, v)
	}
	env := make([]string, 0, len(order))
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	return env, nil
}

func (r *runner) callArgs(ctx context.Context, log *slog.Logger, args []string, tail *int) (string, error) {
	if len(args) == 0 || args[0] == "" {
		return "", fmt.Errorf("%w: args is empty: give the program and its arguments as a list, e.g. [\"ls\", \"-la\"]", ErrInvalidArgs)
	}
	log.InfoContext(ctx, "shell: running command", "args", args)
	return r.call(ctx, args, tail)
}

// call runs argv and renders the result as agno does: stdout's last tail
// lines, or "Error: " and stderr on a non-zero exit.
func (r *runner) call(ctx context.Context, argv []string, tail *int) (string, error) {
	n := defaultTail
	if tail != nil {
		n = *tail
	}
	out, err := r.run(ctx, argv)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "Error: " + err.Error(), nil
	}
	if out.timedOut {
		msg := fmt.Sprintf("Error: command timed out after %s; its process group was killed", r.timeout)
		if s := out.stdout.text(); s != "" {
			msg += "\nOutput before the timeout:\n" + out.stdout.note() + lastLines(s, n)
		}
		return msg, nil
	}
	if out.exitCode != 0 {
		if s := out.stderr.text(); s != "" {
			return "Error: " + out.stderr.note() + s, nil
		}
		return fmt.Sprintf("Error: command exited with status %d", out.exitCode), nil
	}
	return out.stdout.note() + lastLines(out.stdout.text(), n), nil
}

// lastLines is agno's "\n".join(out.split("\n")[-tail:]), and "" for
// tail <= 0.
func lastLines(s string, tail int) string {
	if tail <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > tail {
		lines = lines[len(lines)-tail:]
	}
	return strings.Join(lines, "\n")
}
