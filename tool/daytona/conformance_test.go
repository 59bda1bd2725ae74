package daytona

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.daytona] as a config
// builds it, against the fake Daytona whose sandbox runs commands with the
// host's sh in a temporary directory.
func TestConformance(t *testing.T) {
	const gone = "/tooltest-no-such-dir"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: ToolkitName,
		Name:    "daytona_tools",
		Functions: []tooltest.Function{
			{Name: "run_code", Args: []string{"code"}},
			{Name: "run_shell_command", Args: []string{"command"}},
			{Name: "create_file", Args: []string{"file_path", "content"}},
			{Name: "read_file", Args: []string{"file_path"}},
			{Name: "list_files", Args: []string{"directory"}},
			{Name: "delete_file", Args: []string{"file_path"}},
			{Name: "change_directory", Args: []string{"directory"}},
		},
		Setup: func(t *testing.T, _ *tool.ToolkitEnv) string {
			f := newFake(t)
			run := shellExec(t.TempDir())
			f.onExec = func(cmd string, cwd *string) (int, string) {
				// A file the sandbox will not let go: rm -f fails on
				// nothing a root test run can make.
				if strings.HasPrefix(cmd, "rm ") && strings.Contains(cmd, "/protected") {
					return 1, "rm: cannot remove '/protected': Operation not permitted\n"
				}
				return run(cmd, cwd)
			}
			f.onCodeRun = func(string, string) (int, int, string) { return 500, 0, "" }
			t.Setenv(APIKeyEnv, testKey)
			// add_instructions puts agno's instructions in the golden file.
			return fmt.Sprintf("api_url = %q\nadd_instructions = true", f.srv.URL+"/api")
		},
		Failures: map[string][]tooltest.Call{
			"run_code":          {{Args: `{"code": "print(1)"}`, Want: `"Error executing code: daytona POST`}},
			"run_shell_command": {{Args: `{"command": "cd ` + gone + `"}`, Want: "Error: Directory " + gone + " not found"}},
			"create_file":       {{Args: `{"file_path": "a.txt", "content": "a\u0000b"}`, Want: "Error creating file: the content contains a NUL byte"}},
			"read_file":         {{Args: `{"file_path": "` + gone + `/a.txt"}`, Want: `"Error reading file: cat: `}},
			"list_files":        {{Args: `{"directory": "` + gone + `"}`, Want: `"Error listing directory: ls: `}},
			"delete_file":       {{Args: `{"file_path": "/protected"}`, Want: `"Failed to delete: rm: cannot remove`}},
			"change_directory":  {{Args: `{"directory": "` + gone + `"}`, Want: "Error: Directory " + gone + " not found"}},
		},
		Unbounded: "agno's DaytonaTools hands the model the sandbox's output whole; the client reads at most 64 MiB of a response",
		BadOptions: []tooltest.BadOption{
			{Table: `api_key_env = "1BAD"`, Key: "api_key_env"},
			{Table: `language = "cobol"`, Key: "language"},
			{Table: "auto_stop_interval = -1", Key: "auto_stop_interval"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
			{Table: `api_url = "ftp://example.com"`, Key: "api_url"},
		},
	})
}
