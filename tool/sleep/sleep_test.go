package sleep_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/sleep"
	"github.com/agno-go/agno/tool/tooltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConformance runs the toolkit suite on [toolkits.sleep], against
// agno v2.6.13's SleepTools with its defaults.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "sleep",
		Name:      "sleep",
		Functions: []tooltest.Function{{Name: "sleep", Args: []string{"seconds"}}},
		Setup:     func(*testing.T, *tool.ToolkitEnv) string { return "max_seconds = 2" },
		Failures: map[string][]tooltest.Call{
			"sleep": {{Args: `{"seconds": 3}`, Want: "longer than the 2 seconds allowed"}, {Args: `{"seconds": -1}`, Want: "sleep length must be non-negative"}},
		},
		Unbounded:  "the result is one short sentence (\"Slept for N seconds\")",
		BadOptions: []tooltest.BadOption{{Table: "max_seconds = 0", Key: "max_seconds"}},
	})
}

func sleepFn(t *testing.T, cfg sleep.Config) *tool.Function {
	t.Helper()
	tk, err := sleep.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 1 {
		t.Fatalf("%d functions", len(fns))
	}
	return fns[0]
}

func TestSleepAndCancel(t *testing.T) {
	fn := sleepFn(t, sleep.Config{EnableSleep: true, MaxSeconds: 5})
	start := time.Now()
	res, err := fn.Invoke(context.Background(), &tool.Call{Function: fn}, map[string]any{"seconds": 1})
	if err != nil || res.Content != "Slept for 1 seconds" || time.Since(start) < time.Second {
		t.Fatalf("sleep(1) = %q, %v after %s", res.Content, err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = fn.Invoke(ctx, &tool.Call{Function: fn}, map[string]any{"seconds": 5})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled sleep: %v after %s", err, time.Since(start))
	}
	if res, err := fn.Invoke(context.Background(), &tool.Call{Function: fn}, map[string]any{"seconds": 0}); err != nil || res.Content != "Slept for 0 seconds" {
		t.Fatalf("sleep(0) = %q, %v", res.Content, err)
	}
}

func TestEnableFlags(t *testing.T) {
	tk, err := sleep.New(sleep.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if fns, _ := tk.Functions(context.Background()); len(fns) != 0 || tk.Name() != "sleep" {
		t.Fatalf("enable_sleep = false: %d functions", len(fns))
	}
	if fn := sleepFn(t, sleep.Config{All: true}); fn.Name != "sleep" {
		t.Fatal(fn.Name)
	}
	if _, err := sleep.New(sleep.Config{MaxSeconds: -1}); err == nil {
		t.Fatal("negative MaxSeconds accepted")
	}
}
