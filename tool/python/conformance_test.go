package python_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/python" // registers "python"
	"github.com/agno-go/agno/tool/tooltest"
)

// TestConformance runs the toolkit suite on [toolkits.python] as a config
// builds it, against agno v2.6.13's PythonTools with its defaults.
func TestConformance(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the python toolkit's runs need it (the refusal without it is TestMissingInterpreter)")
	}
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "python",
		Name:    "python_tools",
		Functions: []tooltest.Function{
			{Name: "save_to_file_and_run", Args: []string{"file_name", "code", "variable_to_return", "overwrite"}},
			{Name: "run_python_code", Args: []string{"code", "variable_to_return"}},
			{Name: "pip_install_package", Args: []string{"package_name"}},
			{Name: "uv_pip_install_package", Args: []string{"package_name"}},
			{Name: "run_python_file_return_variable", Args: []string{"file_name", "variable_to_return"}},
			{Name: "read_file", Args: []string{"file_name"}},
			{Name: "list_files"},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			if err := os.WriteFile(filepath.Join(env.Dir, "big.py"), []byte("x = 'y' * 5000\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for i := range 200 {
				if err := os.WriteFile(filepath.Join(env.Dir, fmt.Sprintf("file-%03d.txt", i)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return "max_result_length = 1000\ntimeout_seconds = 20"
		},
		Failures: map[string][]tooltest.Call{
			"save_to_file_and_run": {
				{Args: `{"file_name": "../x.py", "code": "x = 1"}`, Want: "Error: Path '../x.py' is outside the allowed base directory"},
				{Args: `{"file_name": "e.py", "code": "raise ValueError('boom')"}`, Want: "Error saving and running code: boom"},
			},
			"run_python_code":                 {{Args: `{"code": "1/0"}`, Want: "Error running python code: division by zero"}},
			"pip_install_package":             {{Args: `{"package_name": "requests"}`, Want: "Error installing package requests: installing packages is disabled"}},
			"uv_pip_install_package":          {{Args: `{"package_name": "requests"}`, Want: "Error installing package requests: installing packages is disabled"}},
			"run_python_file_return_variable": {{Args: `{"file_name": "missing.py"}`, Want: "Error running file: "}},
			"read_file":                       {{Args: `{"file_name": "/etc/passwd"}`, Want: "Error reading file: path outside allowed directory"}},
			"list_files":                      {{Args: `{}`, Want: "Error reading files: the list of "}},
		},
		Oversized: &tooltest.Oversized{
			Function: "run_python_file_return_variable", Option: "max_result_length", Limit: 1000,
			Call: tooltest.Call{Args: `{"file_name": "big.py", "variable_to_return": "x"}`, Want: "[truncated: the first 1000 of 5000 characters"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "timeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "max_result_length = -1", Key: "max_result_length"},
			{Table: `interpreter = ""`, Key: "interpreter"},
		},
	})
}
