package file_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/file" // registers "file"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.file] as a config
// builds it, against agno v2.6.13's FileTools with its defaults.
func TestConformance(t *testing.T) {
	const outside = "outside the base directory"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "file",
		Name:    "file_tools",
		Functions: []tooltest.Function{
			{Name: "save_file", Args: []string{"contents", "file_name", "overwrite", "encoding"}},
			{Name: "read_file", Args: []string{"file_name", "encoding"}},
			// agno's list_files(**kwargs) reaches the model as one
			// required parameter named "kwargs".
			{Name: "list_files", Args: []string{"kwargs"}},
			{Name: "search_files", Args: []string{"pattern"}},
			{Name: "read_file_chunk", Args: []string{"file_name", "start_line", "end_line", "encoding"}},
			{Name: "replace_file_chunk", Args: []string{"file_name", "start_line", "end_line", "chunk", "encoding"}},
			{Name: "search_content", Args: []string{"query", "directory", "limit"}},
		},
		Deviations: map[string]string{
			"read_file_chunk(encoding)":    "files are read as UTF-8 only",
			"replace_file_chunk(encoding)": "files are read and written as UTF-8 only",
			"save_file(encoding)":          "files are written as UTF-8 only",
			"read_file(encoding)":          "files are read as UTF-8 only",
			"list_files(kwargs)":           "agno's **kwargs shows the model a required \"kwargs\"; this toolkit takes the \"directory\" agno's docstring documents",
			"list_files(directory)":        "the parameter agno's list_files reads from **kwargs",
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			// base_dir defaults to env.Dir, the config file's directory.
			if err := os.WriteFile(filepath.Join(env.Dir, "big.txt"), []byte(strings.Repeat("x", 5000)), 0o644); err != nil {
				t.Fatal(err)
			}
			return "max_file_length = 1000"
		},
		Failures: map[string][]tooltest.Call{
			"save_file":    {{Args: `{"contents": "x", "file_name": "../escape.txt"}`, Want: outside}},
			"read_file":    {{Args: `{"file_name": "../../etc/passwd"}`, Want: outside}, {Args: `{"file_name": "missing.txt"}`, Want: "no such file"}},
			"list_files":   {{Args: `{"directory": "/"}`, Want: outside}},
			"search_files": {{Args: `{"pattern": "../*"}`, Want: "leaves the base directory"}},
			"read_file_chunk": {
				{Args: `{"file_name": "../x.txt", "start_line": 0, "end_line": 1}`, Want: outside},
				{Args: `{"file_name": "big.txt", "start_line": 0, "end_line": 0}`, Want: "too long to return"},
			},
			"replace_file_chunk": {{Args: `{"file_name": "missing.txt", "start_line": 0, "end_line": 0, "chunk": "x"}`, Want: "no such file"}},
			"search_content": {
				{Args: `{"query": "x", "directory": "/"}`, Want: outside},
				{Args: `{"query": " "}`, Want: "Error: Query cannot be empty"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_file", Option: "max_file_length", Limit: 1000,
			Call: tooltest.Call{Args: `{"file_name": "big.txt"}`, Want: "too long to read whole"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "max_file_length = -1", Key: "max_file_length"},
			{Table: "max_file_lines = -1", Key: "max_file_lines"},
		},
	})
}
