package coding_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/coding" // registers "coding"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.coding] with all =
// true, against agno v2.6.13's CodingTools(all=True).
func TestConformance(t *testing.T) {
	const outside = "is outside the allowed base directory"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "coding",
		Name:    "coding_tools",
		Functions: []tooltest.Function{
			{Name: "read_file", Args: []string{"file_path", "offset", "limit"}},
			{Name: "edit_file", Args: []string{"file_path", "old_text", "new_text"}},
			{Name: "write_file", Args: []string{"file_path", "contents"}},
			{Name: "run_shell", Args: []string{"command", "timeout"}},
			{Name: "grep", Args: []string{"pattern", "path", "ignore_case", "include", "context", "limit"}},
			{Name: "find", Args: []string{"pattern", "path", "limit"}},
			{Name: "ls", Args: []string{"path", "limit"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			big := strings.Repeat("a line of text\n", 500)
			if err := os.WriteFile(filepath.Join(env.Dir, "big.txt"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
			return "all = true\nmax_bytes = 1000"
		},
		Failures: map[string][]tooltest.Call{
			"read_file":  {{Args: `{"file_path": "../etc/passwd"}`, Want: "Error: Path '../etc/passwd' " + outside}, {Args: `{"file_path": "nope.txt"}`, Want: "Error: File not found: nope.txt"}},
			"edit_file":  {{Args: `{"file_path": "big.txt", "old_text": "a line", "new_text": "x"}`, Want: "Error: old_text matches 500 locations in big.txt"}},
			"write_file": {{Args: `{"file_path": "/etc/x", "contents": "x"}`, Want: "Error: Path '/etc/x' " + outside}},
			"run_shell": {
				{Args: `{"command": "cat big.txt; rm -rf /"}`, Want: "Error: Shell operator ';' is not allowed in restricted mode."},
				{Args: `{"command": "curl http://example.com"}`, Want: "Error: Command 'curl' is not in the allowed commands list."},
				{Args: `{"command": "cat /etc/passwd"}`, Want: "Error: Command references path outside base directory: /etc/passwd"},
			},
			"grep": {{Args: `{"pattern": "x", "path": "../"}`, Want: "Error: Path '../' " + outside}},
			"find": {{Args: `{"pattern": "*", "path": "big.txt"}`, Want: "Error: Not a directory: big.txt"}},
			"ls":   {{Args: `{"path": "missing"}`, Want: "Error: Path not found: missing"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_file", Option: "max_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"file_path": "big.txt"}`, Want: "[Showing lines 1-"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_lines = 0", Key: "max_lines"},
			{Table: "max_bytes = -1", Key: "max_bytes"},
			{Table: "shell_timeout = 0", Key: "shell_timeout"},
			{Table: `allowed_commands = ["git", ""]`, Key: "allowed_commands[1]"},
		},
	})
}
