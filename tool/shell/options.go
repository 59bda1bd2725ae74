package shell

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for this toolkit in tools lists.
const ToolkitName = "shell"

// Options are the keys of [toolkits.shell].
type Options struct {
	// Dir is the working directory (default: the config file's directory).
	Dir                  string            `toml:"dir"`
	TimeoutSeconds       float64           `toml:"timeout_seconds"`
	MaxOutputBytes       int               `toml:"max_output_bytes"`
	EnvAllowList         []string          `toml:"env_allow_list"`
	Env                  map[string]string `toml:"env"`
	AllowShell           bool              `toml:"allow_shell"`
	Shell                string            `toml:"shell"`
	RequiresConfirmation bool              `toml:"requires_confirmation"`
	Instructions         string            `toml:"instructions"`
	AddInstructions      bool              `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "runs commands in a working directory, with a timeout and an environment allow-list (agno's ShellTools)",
		Check: checkOptions,
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				Dir: o.Dir, Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxOutputBytes: o.MaxOutputBytes,
				EnvAllowList: o.EnvAllowList, Env: o.Env, AllowShell: o.AllowShell, Shell: o.Shell,
				RequiresConfirmation: o.RequiresConfirmation, Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				Logger: env.Logger,
			})
		},
	})
}

func checkOptions(env tool.ToolkitEnv, o *Options, defined func(string) bool) error {
	var errs []error
	if o.TimeoutSeconds < 0 || (o.TimeoutSeconds == 0 && defined("timeout_seconds")) {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds (default 60)", o.TimeoutSeconds))
	}
	if o.MaxOutputBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_output_bytes", "max_output_bytes = %d: use a positive number of bytes, or 0 for the default 64 KiB", o.MaxOutputBytes))
	}
	for i, v := range o.EnvAllowList {
		errs = append(errs, tool.CheckEnvName(fmt.Sprintf("env_allow_list[%d]", i), v))
	}
	o.Dir = tool.ResolvePath(env.Dir, o.Dir)
	if o.Dir == "" {
		o.Dir = env.Dir
	}
	if o.Shell != "" && filepath.Base(o.Shell) != o.Shell {
		o.Shell = tool.ResolvePath(env.Dir, o.Shell)
	}
	return errors.Join(errs...)
}
