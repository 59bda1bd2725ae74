package python

import (
	"errors"
	"time"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list the toolkit under.
const ToolkitName = "python"

// Options are the keys of [toolkits.python]: agno's PythonTools arguments
// (base_dir, restrict_to_base_dir) and the subprocess's bounds.
type Options struct {
	BaseDir           string `toml:"base_dir"`
	RestrictToBaseDir bool   `toml:"restrict_to_base_dir"`
	// Interpreter is the Python to run: a name in PATH or a path.
	Interpreter     string `toml:"interpreter"`
	TimeoutSeconds  int    `toml:"timeout_seconds"`
	MaxResultLength int    `toml:"max_result_length"`
	AllowPipInstall bool   `toml:"allow_pip_install"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "runs Python code and files in a subprocess, in a base directory (agno's PythonTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{RestrictToBaseDir: true, Interpreter: DefaultInterpreter, TimeoutSeconds: int(DefaultTimeout / time.Second), MaxResultLength: DefaultMaxResultLength}
		},
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			o.BaseDir = tool.ResolvePath(env.Dir, o.BaseDir)
			if o.BaseDir == "" {
				o.BaseDir = env.Dir
			}
			var errs []error
			if o.Interpreter == "" {
				errs = append(errs, tool.OptionErrorf("interpreter", `interpreter = "": name a Python 3 interpreter ("python3") or give its path`))
			}
			if o.TimeoutSeconds <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %d: use a positive number of seconds (default 60)", o.TimeoutSeconds))
			}
			if o.MaxResultLength <= 0 {
				errs = append(errs, tool.OptionErrorf("max_result_length", "max_result_length = %d: use a positive number of characters (default 100,000)", o.MaxResultLength))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				BaseDir: o.BaseDir, RestrictToBaseDir: o.RestrictToBaseDir, Interpreter: o.Interpreter,
				Timeout: time.Duration(o.TimeoutSeconds) * time.Second, MaxResultLength: o.MaxResultLength,
				AllowPipInstall: o.AllowPipInstall, Instructions: o.Instructions, AddInstructions: o.AddInstructions, Logger: env.Logger,
			})
		},
	})
}
