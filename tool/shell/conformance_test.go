package shell_test

import (
	"testing"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/shell" // registers "shell"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.shell] as a config
// builds it; agno v2.6.13's ShellTools is run_shell_command(args, tail).
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "shell",
		Name:      "shell_tools",
		Functions: []tooltest.Function{{Name: "run_shell_command", Args: []string{"args", "tail"}}},
		Setup:     func(*testing.T, *tool.ToolkitEnv) string { return "max_output_bytes = 1000" },
		Failures: map[string][]tooltest.Call{
			"run_shell_command": {
				// agno's result for a non-zero exit: "Error: " and stderr.
				{Args: `{"args": ["sh", "-c", "echo boom >&2; exit 3"]}`, Want: "Error: boom"},
				{Args: `{"args": ["tooltest-no-such-program"]}`, Want: "Error: "},
				{Args: `{"args": []}`, Want: "args is empty"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "run_shell_command", Option: "max_output_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"args": ["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x"]}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
			{Table: "timeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "max_output_bytes = -1", Key: "max_output_bytes"},
			{Table: `env_allow_list = ["PATH", "1BAD"]`, Key: "env_allow_list[1]"},
		},
	})
}
