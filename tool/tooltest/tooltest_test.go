package tooltest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echoOptions are the options of a small toolkit that shows the suite
// what a conforming toolkit looks like, without any outside world.
type echoOptions struct {
	MaxBytes int `toml:"max_bytes"`
}

type echoArgs struct {
	Text  string `json:"text" description:"The text to echo."`
	Times *int   `json:"times,omitempty" description:"How many times (default 1)."`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[echoOptions]{
		Name: "tooltest_echo", Summary: "echoes text (the tooltest package's own example)",
		Defaults: func(tool.ToolkitEnv) echoOptions { return echoOptions{MaxBytes: 100} },
		Check: func(_ tool.ToolkitEnv, o *echoOptions, _ func(string) bool) error {
			if o.MaxBytes <= 0 {
				return tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes", o.MaxBytes)
			}
			return nil
		},
		New: func(_ tool.ToolkitEnv, o *echoOptions) (tool.Provider, error) {
			echo, err := tool.New("echo", "Echoes the text.", func(_ context.Context, a echoArgs) (string, error) {
				n := 1
				if a.Times != nil {
					n = *a.Times
				}
				if n < 0 {
					return "Error: times must not be negative", nil
				}
				out := strings.Repeat(a.Text, n)
				if len(out) > o.MaxBytes {
					out = fmt.Sprintf("[%d bytes cut]\n", len(out)-o.MaxBytes) + out[len(out)-o.MaxBytes:]
				}
				return out, nil
			})
			if err != nil {
				return nil, err
			}
			return tool.NewToolkit(tool.ToolkitConfig{Name: "echo_tools", Functions: []*tool.Function{echo}})
		},
	})
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "tooltest_echo",
		Name:      "echo_tools",
		Functions: []tooltest.Function{{Name: "echo", Args: []string{"text", "times"}}},
		Setup:     func(*testing.T, *tool.ToolkitEnv) string { return "max_bytes = 50" },
		Failures: map[string][]tooltest.Call{
			"echo": {{Args: `{"text": "x", "times": -1}`, Want: "must not be negative"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "echo", Option: "max_bytes", Limit: 50,
			Call: tooltest.Call{Args: `{"text": "abc", "times": 1000}`, Want: "bytes cut"},
		},
		BadOptions: []tooltest.BadOption{{Table: "max_bytes = 0", Key: "max_bytes"}},
	})
}
