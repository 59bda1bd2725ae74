package coding

import (
	"errors"
	"fmt"
	"time"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list the toolkit under.
const ToolkitName = "coding"

// Options are the keys of [toolkits.coding], agno's CodingTools arguments.
type Options struct {
	BaseDir                string   `toml:"base_dir"`
	RestrictToBaseDir      bool     `toml:"restrict_to_base_dir"`
	MaxLines               int      `toml:"max_lines"`
	MaxBytes               int      `toml:"max_bytes"`
	ShellTimeout           int      `toml:"shell_timeout"`
	EnableReadFile         bool     `toml:"enable_read_file"`
	EnableEditFile         bool     `toml:"enable_edit_file"`
	EnableWriteFile        bool     `toml:"enable_write_file"`
	EnableRunShell         bool     `toml:"enable_run_shell"`
	EnableGrep             bool     `toml:"enable_grep"`
	EnableFind             bool     `toml:"enable_find"`
	EnableLs               bool     `toml:"enable_ls"`
	Instructions           string   `toml:"instructions"`
	AddInstructions        bool     `toml:"add_instructions"`
	All                    bool     `toml:"all"`
	AllowedCommands        []string `toml:"allowed_commands"`
	instructionsConfigured bool
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "reads, edits and writes files and runs shell commands in a base directory (agno's CodingTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{RestrictToBaseDir: true, MaxLines: 2000, MaxBytes: 50_000, ShellTimeout: 120,
				EnableReadFile: true, EnableEditFile: true, EnableWriteFile: true, EnableRunShell: true, AddInstructions: true}
		},
		Check: func(env tool.ToolkitEnv, o *Options, defined func(string) bool) error {
			o.BaseDir = tool.ResolvePath(env.Dir, o.BaseDir)
			if o.BaseDir == "" {
				o.BaseDir = env.Dir
			}
			o.instructionsConfigured = defined("instructions")
			var errs []error
			for _, k := range []struct {
				key string
				v   int
			}{{"max_lines", o.MaxLines}, {"max_bytes", o.MaxBytes}, {"shell_timeout", o.ShellTimeout}} {
				if k.v <= 0 {
					errs = append(errs, tool.OptionErrorf(k.key, "%s = %d: use a positive number", k.key, k.v))
				}
			}
			for i, c := range o.AllowedCommands {
				if c == "" {
					key := fmt.Sprintf("allowed_commands[%d]", i)
					errs = append(errs, tool.OptionErrorf(key, "%s is empty: name a command, such as \"git\"", key))
				}
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			var instr *string
			if o.instructionsConfigured {
				instr = &o.Instructions
			}
			return New(Config{
				BaseDir: o.BaseDir, RestrictToBaseDir: o.RestrictToBaseDir, MaxLines: o.MaxLines, MaxBytes: o.MaxBytes,
				ShellTimeout:   time.Duration(o.ShellTimeout) * time.Second,
				EnableReadFile: o.EnableReadFile, EnableEditFile: o.EnableEditFile, EnableWriteFile: o.EnableWriteFile,
				EnableRunShell: o.EnableRunShell, EnableGrep: o.EnableGrep, EnableFind: o.EnableFind, EnableLs: o.EnableLs,
				All: o.All, AllowedCommands: o.AllowedCommands, Instructions: instr, AddInstructions: o.AddInstructions, Logger: env.Logger,
			})
		},
	})
}
