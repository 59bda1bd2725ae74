package file

import (
	"errors"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for this toolkit in tools lists.
const ToolkitName = "file"

// Options are the keys of [toolkits.file].
type Options struct {
	// BaseDir confines every path (default: the config file's directory).
	BaseDir         string `toml:"base_dir"`
	MaxFileLength   int    `toml:"max_file_length"`
	MaxFileLines    int    `toml:"max_file_lines"`
	ReadOnly        bool   `toml:"read_only"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "reads, writes and lists files under a base directory (agno's FileTools)",
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			o.BaseDir = tool.ResolvePath(env.Dir, o.BaseDir)
			if o.BaseDir == "" {
				o.BaseDir = env.Dir
			}
			// One problem per key, so a config reports each at its key.
			var errs []error
			if o.MaxFileLength < 0 {
				errs = append(errs, tool.OptionErrorf("max_file_length", "max_file_length = %d: use a positive number of characters, or 0 for the default 10,000,000", o.MaxFileLength))
			}
			if o.MaxFileLines < 0 {
				errs = append(errs, tool.OptionErrorf("max_file_lines", "max_file_lines = %d: use a positive number of lines, or 0 for the default 100,000", o.MaxFileLines))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				BaseDir: o.BaseDir, MaxFileLength: o.MaxFileLength, MaxFileLines: o.MaxFileLines, ReadOnly: o.ReadOnly,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, Logger: env.Logger,
			})
		},
	})
}
