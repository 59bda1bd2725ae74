package python

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrapper runs the code the way agno's PythonTools does in-process
// (runpy.run_path for a file, exec for code) and writes the outcome as
// JSON to the file named by its second argument, apart from the code's
// own output. Only an Exception is reported as the code's error, as in
// agno; SystemExit and the like end the interpreter.
const wrapper = `import json, runpy, sys
mode, result_path, var, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
target = sys.argv[5] if len(sys.argv) > 5 else None
def report(res):
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump(res, f, ensure_ascii=False)
def cut(s):
    return {"value": s[:limit], "length": len(s)}
try:
    if mode == "file":
        sys.argv = [target]
        g = runpy.run_path(target, run_name="__main__")
    else:
        code = sys.stdin.read()
        sys.argv = ["-c"]
        g = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(code, "<string>", "exec"), g)
    if var:
        v = g.get(var)
        report(dict(found=v is not None, **cut("" if v is None else str(v))))
    else:
        report({"found": True})
except Exception as e:
    report(dict(error=True, **cut(str(e))))
`

// stderrTail bounds the interpreter's error output kept for a message.
const stderrTail = 2048

// outcome is the wrapper's report: the variable's str (or the
// exception's), cut to maxResult characters, and its full length.
type outcome struct {
	Found  bool   `json:"found"`
	Error  bool   `json:"error"`
	Value  string `json:"value"`
	Length int    `json:"length"`
}

// text is the value, with a note when it was cut.
func (o *outcome) text(max int) string {
	if o.Length <= max {
		return o.Value
	}
	return fmt.Sprintf("%s\n[truncated: the first %d of %d characters (max_result_length in [toolkits.python])]", o.Value, max, o.Length)
}

// ErrNoInterpreter is wrapped by the refusal when the configured
// interpreter cannot be found.
var ErrNoInterpreter = errors.New("no Python interpreter")

// run runs file (mode "file") or code (mode "code", read from stdin) in a
// fresh interpreter in dir and returns what the wrapper reported. err is
// an interpreter that could not run or did not report.
func (p *pythonTools) run(ctx context.Context, mode, target, code, variable string) (*outcome, error) {
	interp, err := exec.LookPath(p.interpreter)
	if err != nil {
		return nil, fmt.Errorf("%w: %q was not found (%v); install Python 3 or set interpreter in [toolkits.python] to its path", ErrNoInterpreter, p.interpreter, err)
	}
	res, err := os.CreateTemp("", "agno-python-result-*.json")
	if err != nil {
		return nil, err
	}
	resPath := res.Name()
	res.Close()
	defer os.Remove(resPath)

	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	args := []string{"-c", wrapper, mode, resPath, variable, strconv.Itoa(p.maxResult)}
	if mode == "file" {
		args = append(args, target)
	}
	cmd := exec.CommandContext(ctx, interp, args...)
	cmd.Dir = p.base.Dir()
	cmd.Stdin = strings.NewReader(code)
	var stderr tail
	cmd.Stderr = &stderr
	// A child the code left running may hold stderr; do not wait for it.
	cmd.WaitDelay = 2 * time.Second
	inGroup(cmd)
	runErr := cmd.Run()
	if err := parent.Err(); err != nil {
		return nil, err // the run was cancelled, not timed out here
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("timed out after %s (timeout_seconds in [toolkits.python])", p.timeout)
		}
		return nil, ctx.Err()
	}
	f, err := os.Open(resPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(p.maxResult)*6+1024))
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		msg := "the interpreter ended without a result"
		if runErr != nil {
			msg += " (" + runErr.Error() + ")"
		}
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ": " + s
		}
		return nil, errors.New(msg)
	}
	var o outcome
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("the result is more than %d bytes or unreadable: %v", p.maxResult, err)
	}
	return &o, nil
}

// tail keeps the last stderrTail bytes written.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > stderrTail {
		t.b = t.b[len(t.b)-stderrTail:]
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.ToValidUTF8(string(t.b), "") }
