package config_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKeyEnv holds the fake model server's API key in the registry tests.
const (
	testKeyEnv = "AGNO_CONFIG_TEST_KEY"
	testKey    = "test-key-123"
)

// copyTree copies testdata/<name> into a temporary directory, replacing
// each old → new of repl in every file, and returns the directory.
func copyTree(t *testing.T, name string, repl ...string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	r := strings.NewReplacer(repl...)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, []byte(r.Replace(string(b))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// writeFiles writes name → content under dir (creating directories).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeModel starts the fake OpenAI-compatible server answering as the
// agents and teams of testdata/registry, told apart by the marker in
// their instructions.
func fakeModel(t *testing.T) *modeltest.Server {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: testKey, Responder: registryResponder})
	t.Cleanup(srv.Close)
	return srv
}

func systemText(req *model.Request) string {
	for _, m := range req.Messages {
		if m.Role == model.RoleSystem {
			return m.Content
		}
	}
	return ""
}

func registryResponder(req *model.Request) modeltest.Response {
	sys := systemText(req)
	last := req.Messages[len(req.Messages)-1]
	afterTool := last.Role == model.RoleTool
	call := func(name, args string) modeltest.Response {
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_"+name, name, args)}}
	}
	switch {
	case strings.Contains(sys, "[editorial]"):
		if afterTool {
			return modeltest.Response{Content: "editorial: " + last.Content}
		}
		return call("delegate_task_to_member", `{"member_id":"research-team","task":"research agno"}`)
	case strings.Contains(sys, "[research-team]"):
		if afterTool {
			return modeltest.Response{Content: "team: " + last.Content}
		}
		return call("delegate_task_to_member", `{"member_id":"researcher","task":"find facts"}`)
	case strings.Contains(sys, "[researcher]"):
		if afterTool {
			return modeltest.Response{Content: "facts: " + last.Content}
		}
		return call("lookup", `{"key":"agno"}`)
	case strings.Contains(sys, "[writer]"):
		if afterTool {
			return modeltest.Response{Content: "report: " + last.Content}
		}
		return call("ask_researcher", `{"task":"research agno"}`)
	case strings.Contains(sys, "[summarizer]"):
		return modeltest.Response{Content: `{"summary":"short","words":2}`}
	case strings.Contains(sys, "[echoer]"):
		if afterTool {
			return modeltest.Response{Content: "echoed: " + last.Content}
		}
		return call("echo", `{"message":"  hello MCP  "}`)
	}
	return modeltest.Response{Content: "plain answer"}
}

type lookupArgs struct {
	Key string `json:"key"`
}

// registryFunctions are the Go functions testdata/registry refers to.
func registryFunctions() config.Functions {
	text := func(in *workflow.StepInput) string {
		if in.PreviousStepContent != nil {
			return fmt.Sprint(in.PreviousStepContent)
		}
		return in.InputString()
	}
	step := func(fn func(in *workflow.StepInput) string) workflow.StepFunc {
		return func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: fn(in)}, nil
		}
	}
	return config.Functions{
		Tools: map[string]tool.Provider{
			"lookup": tool.Must(tool.New("lookup", "Look up a key.", func(_ context.Context, a lookupArgs) (string, error) {
				return "value-of-" + a.Key, nil
			})),
		},
		Steps: map[string]workflow.StepFunc{
			"normalize": step(func(in *workflow.StepInput) string { return "normalized(" + text(in) + ")" }),
			"escalate":  step(func(in *workflow.StepInput) string { return "escalated" }),
			"routine":   step(func(in *workflow.StepInput) string { return "routine" }),
			"trim":      step(func(in *workflow.StepInput) string { return "trimmed" }),
			"exclaim":   step(func(in *workflow.StepInput) string { return text(in) + "!" }),
			"spell":     step(func(in *workflow.StepInput) string { return "spelled" }),
			"brief":     step(func(in *workflow.StepInput) string { return "brief" }),
			"shout":     step(func(in *workflow.StepInput) string { return strings.ToUpper(text(in)) }),
			"collect": step(func(in *workflow.StepInput) string {
				return fmt.Sprintf("audience=%v", in.UserInput()["audience"])
			}),
		},
		Conditions: map[string]func(context.Context, *workflow.StepInput) (bool, error){
			"is_long": func(_ context.Context, in *workflow.StepInput) (bool, error) {
				return len(text(in)) > 1000, nil
			},
		},
	}
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLogger() (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// build loads the config at dir/config.toml and builds it.
func build(t *testing.T, dir string, fn config.Functions, existing config.Existing) (*config.Config, *config.Resources) {
	t.Helper()
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	logger, _ := newLogger()
	c.Logger = logger
	res, err := c.Build(context.Background(), fn, existing)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := res.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c, res
}

// configErrors splits a joined error into its *config.Error parts.
func configErrors(t *testing.T, err error) []*config.Error {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	var out []*config.Error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var ce *config.Error
		if errors.As(e, &ce) {
			out = append(out, ce)
		}
	}
	walk(err)
	if len(out) == 0 {
		t.Fatalf("no *config.Error in %v", err)
	}
	return out
}

// findError returns the error whose message contains every part.
func findError(t *testing.T, errs []*config.Error, parts ...string) *config.Error {
	t.Helper()
	for _, e := range errs {
		ok := true
		for _, p := range parts {
			if !strings.Contains(e.Error(), p) {
				ok = false
				break
			}
		}
		if ok {
			return e
		}
	}
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	t.Fatalf("no error contains %q; errors:\n%s", parts, strings.Join(all, "\n"))
	return nil
}
