package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
	_ "github.com/agno-go/agno/tool/workspace" // registers "workspace"
)

// TestConformance runs the toolkit suite on [toolkits.workspace] with
// its defaults, against agno v2.6.13's Workspace() (reads allowed,
// writes and commands confirmed).
func TestConformance(t *testing.T) {
	const escapes = "escapes workspace root"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "workspace",
		Name:    "workspace",
		Functions: []tooltest.Function{
			{Name: "read_file", Args: []string{"path", "start_line", "end_line", "encoding"}},
			{Name: "list_files", Args: []string{"directory", "pattern", "recursive", "max_depth"}},
			{Name: "search_content", Args: []string{"query", "directory", "limit"}},
			{Name: "write_file", Args: []string{"path", "content", "overwrite", "encoding"}},
			{Name: "edit_file", Args: []string{"path", "old_str", "new_str", "replace_all", "encoding"}},
			{Name: "move_file", Args: []string{"src", "dst", "overwrite"}},
			{Name: "delete_file", Args: []string{"path"}},
			{Name: "run_command", Args: []string{"args", "tail", "timeout"}},
		},
		Deviations: map[string]string{
			"read_file(encoding)":  "files are read as UTF-8 only",
			"write_file(encoding)": "files are written as UTF-8 only",
			"edit_file(encoding)":  "files are read and written as UTF-8 only",
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			if err := os.WriteFile(filepath.Join(env.Dir, "big.txt"), []byte(strings.Repeat("x", 5000)), 0o644); err != nil {
				t.Fatal(err)
			}
			return "max_file_length = 1000"
		},
		Failures: map[string][]tooltest.Call{
			"read_file":      {{Args: `{"path": "../x"}`, Want: "Error: path " + escapes}, {Args: `{"path": "nope"}`, Want: "Error: file not found: nope"}},
			"list_files":     {{Args: `{"directory": "/"}`, Want: "Error: directory " + escapes}},
			"search_content": {{Args: `{"query": " "}`, Want: "Error: query cannot be empty"}},
			"write_file":     {{Args: `{"path": "/etc/x", "content": "x"}`, Want: "Error: path " + escapes}},
			"edit_file":      {{Args: `{"path": "big.txt", "old_str": "x", "new_str": "y"}`, Want: "Error: old_str matches 5000 times in big.txt"}},
			"move_file":      {{Args: `{"src": "big.txt", "dst": "../big.txt"}`, Want: "Error: dst " + escapes}},
			"delete_file":    {{Args: `{"path": "."}`, Want: "Error: path is a directory, not a file: ."}},
			"run_command":    {{Args: `{"args": ["cat", "missing"]}`, Want: "Error (exit 1): cat: missing: No such file or directory"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_file", Option: "max_file_length", Limit: 1000,
			Call: tooltest.Call{Args: `{"path": "big.txt"}`, Want: "Error: file too long (5000 chars > 1000)"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_file_length = 0", Key: "max_file_length"},
			{Table: "max_file_lines = -1", Key: "max_file_lines"},
			{Table: `allowed = ["read", "fly"]`, Key: "allowed"},
			{Table: "allowed = [\"read\"]\nconfirm = [\"read\"]", Key: "allowed"},
		},
	})
}
