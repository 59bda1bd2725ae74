package csvtools

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.csv_toolkit]: agno's CsvTools
// arguments (csvs, relative to the config file; row_limit; the enable
// flags) and ours: the bounds and the query timeout.
type Options struct {
	CSVs               []string `toml:"csvs"`
	RowLimit           int      `toml:"row_limit"`
	EnableReadCSVFile  bool     `toml:"enable_read_csv_file"`
	EnableListCSVFiles bool     `toml:"enable_list_csv_files"`
	EnableGetColumns   bool     `toml:"enable_get_columns"`
	EnableQueryCSVFile bool     `toml:"enable_query_csv_file"`
	All                bool     `toml:"all"`
	TimeoutSeconds     float64  `toml:"timeout_seconds"`
	MaxResultBytes     int      `toml:"max_result_bytes"`
	MaxFileBytes       int64    `toml:"max_file_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "list, read, describe and query (SQL) the CSV files an operator lists (agno's CsvTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableReadCSVFile: true, EnableListCSVFiles: true, EnableGetColumns: true, EnableQueryCSVFile: true, TimeoutSeconds: 30}
		},
		Check: checkOptions,
		New: func(_ tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				CSVs: o.CSVs, RowLimit: o.RowLimit,
				EnableReadCSVFile: o.EnableReadCSVFile, EnableListCSVFiles: o.EnableListCSVFiles, EnableGetColumns: o.EnableGetColumns,
				EnableQueryCSVFile: o.EnableQueryCSVFile, All: o.All,
				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResultBytes: o.MaxResultBytes, MaxFileBytes: o.MaxFileBytes,
			})
		},
	})
}

func checkOptions(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
	var errs []error
	for i, p := range o.CSVs {
		key := fmt.Sprintf("csvs[%d]", i)
		if p == "" {
			errs = append(errs, tool.OptionErrorf(key, "%s is empty: give a CSV file's path (relative to the config file)", key))
			continue
		}
		o.CSVs[i] = tool.ResolvePath(env.Dir, p)
		if fi, err := os.Stat(o.CSVs[i]); err != nil || !fi.Mode().IsRegular() {
			errs = append(errs, tool.OptionErrorf(key, "%s = %q: no such file (%s): give a CSV file's path, relative to the config file", key, p, o.CSVs[i]))
		}
	}
	if o.RowLimit < 0 {
		errs = append(errs, tool.OptionErrorf("row_limit", "row_limit = %d: use a positive number of rows, or leave it out for all rows", o.RowLimit))
	}
	if o.TimeoutSeconds <= 0 {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds (default 30)", o.TimeoutSeconds))
	}
	if o.MaxResultBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_result_bytes", "max_result_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxResultBytes, DefaultMaxResultBytes))
	}
	if o.MaxFileBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_file_bytes", "max_file_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxFileBytes, DefaultMaxFileBytes))
	}
	return errors.Join(errs...)
}
