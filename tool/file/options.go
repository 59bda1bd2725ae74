package file

import (
	"errors"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for this toolkit in tools lists.
const ToolkitName = "file"

// Options are the keys of [toolkits.file], agno's FileTools arguments.
type Options struct {
	// BaseDir confines every path (default: the config file's directory).
	BaseDir                string `toml:"base_dir"`
	EnableSaveFile         bool   `toml:"enable_save_file"`
	EnableReadFile         bool   `toml:"enable_read_file"`
	EnableDeleteFile       bool   `toml:"enable_delete_file"`
	EnableListFiles        bool   `toml:"enable_list_files"`
	EnableSearchFiles      bool   `toml:"enable_search_files"`
	EnableReadFileChunk    bool   `toml:"enable_read_file_chunk"`
	EnableReplaceFileChunk bool   `toml:"enable_replace_file_chunk"`
	EnableSearchContent    bool   `toml:"enable_search_content"`
	All                    bool   `toml:"all"`
	MaxFileLength          int    `toml:"max_file_length"`
	MaxFileLines           int    `toml:"max_file_lines"`
	LineSeparator          string `toml:"line_separator"`
	// ExcludePatterns default to agno's DEFAULT_EXCLUDE_PATTERNS; [] lists everything.
	ExcludePatterns []string `toml:"exclude_patterns"`
	// ReadOnly leaves out the functions that write, whatever the flags say.
	ReadOnly        bool   `toml:"read_only"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "reads, writes, searches and lists files under a base directory (agno's FileTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			d := DefaultFunctions()
			return Options{
				EnableSaveFile: d.SaveFile, EnableReadFile: d.ReadFile, EnableDeleteFile: d.DeleteFile,
				EnableListFiles: d.ListFiles, EnableSearchFiles: d.SearchFiles, EnableReadFileChunk: d.ReadFileChunk,
				EnableReplaceFileChunk: d.ReplaceFileChunk, EnableSearchContent: d.SearchContent,
			}
		},
		Check: func(env tool.ToolkitEnv, o *Options, defined func(string) bool) error {
			o.BaseDir = tool.ResolvePath(env.Dir, o.BaseDir)
			if o.BaseDir == "" {
				o.BaseDir = env.Dir
			}
			if defined("exclude_patterns") && o.ExcludePatterns == nil {
				o.ExcludePatterns = []string{} // the operator's empty list: exclude nothing
			}
			// One problem per key, so a config reports each at its key.
			var errs []error
			if o.MaxFileLength < 0 {
				errs = append(errs, tool.OptionErrorf("max_file_length", "max_file_length = %d: use a positive number of characters, or 0 for the default 10,000,000", o.MaxFileLength))
			}
			if o.MaxFileLines < 0 {
				errs = append(errs, tool.OptionErrorf("max_file_lines", "max_file_lines = %d: use a positive number of lines, or 0 for the default 100,000", o.MaxFileLines))
			}
			if defined("line_separator") && o.LineSeparator == "" {
				errs = append(errs, tool.OptionErrorf("line_separator", `line_separator = "": lines cannot be split at nothing; leave the key out for agno's "\n"`))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				BaseDir: o.BaseDir, MaxFileLength: o.MaxFileLength, MaxFileLines: o.MaxFileLines, LineSeparator: o.LineSeparator,
				Functions: &Functions{
					SaveFile: o.EnableSaveFile, ReadFile: o.EnableReadFile, DeleteFile: o.EnableDeleteFile,
					ListFiles: o.EnableListFiles, SearchFiles: o.EnableSearchFiles, ReadFileChunk: o.EnableReadFileChunk,
					ReplaceFileChunk: o.EnableReplaceFileChunk, SearchContent: o.EnableSearchContent, All: o.All,
				},
				ExcludePatterns: o.ExcludePatterns, ReadOnly: o.ReadOnly, Instructions: o.Instructions, AddInstructions: o.AddInstructions, Logger: env.Logger,
			})
		},
	})
}
