package workspace

import (
	"errors"
	"fmt"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for the toolkit.
const ToolkitName = "workspace"

// Options are the keys of [toolkits.workspace], agno's Workspace arguments.
type Options struct {
	Root                   string   `toml:"root"`
	Allowed                []string `toml:"allowed"`
	Confirm                []string `toml:"confirm"`
	RequireReadBeforeWrite bool     `toml:"require_read_before_write"`
	MaxFileLines           int      `toml:"max_file_lines"`
	MaxFileLength          int      `toml:"max_file_length"`
	ExcludePatterns        []string `toml:"exclude_patterns"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "reads, searches, writes, edits, moves and deletes files and runs commands in a root directory, writes confirmed by a human (agno's Workspace)",
		Defaults: func(tool.ToolkitEnv) Options { return Options{MaxFileLines: 100_000, MaxFileLength: 10_000_000} },
		Check: func(env tool.ToolkitEnv, o *Options, defined func(string) bool) error {
			o.Root = tool.ResolvePath(env.Dir, o.Root)
			if o.Root == "" {
				o.Root = env.Dir
			}
			// A list set in the table, even empty, is the operator's choice.
			if defined("allowed") && o.Allowed == nil {
				o.Allowed = []string{}
			}
			if defined("confirm") && o.Confirm == nil {
				o.Confirm = []string{}
			}
			if defined("exclude_patterns") && o.ExcludePatterns == nil {
				o.ExcludePatterns = []string{}
			}
			var errs []error
			if o.MaxFileLines <= 0 {
				errs = append(errs, tool.OptionErrorf("max_file_lines", "max_file_lines = %d: use a positive number of lines (default 100,000)", o.MaxFileLines))
			}
			if o.MaxFileLength <= 0 {
				errs = append(errs, tool.OptionErrorf("max_file_length", "max_file_length = %d: use a positive number of characters (default 10,000,000)", o.MaxFileLength))
			}
			if _, _, err := Partitions(o.Allowed, o.Confirm); err != nil {
				key := "allowed"
				if !defined("allowed") {
					key = "confirm"
				}
				errs = append(errs, tool.OptionErrorf(key, "%s", fmt.Sprintf("%s: %v", key, err)))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{Root: o.Root, Allowed: o.Allowed, Confirm: o.Confirm, RequireReadBeforeWrite: o.RequireReadBeforeWrite,
				MaxFileLines: o.MaxFileLines, MaxFileLength: o.MaxFileLength, ExcludePatterns: o.ExcludePatterns, Logger: env.Logger})
		},
	})
}
