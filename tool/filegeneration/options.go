package filegeneration

import (
	"errors"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is agno's name for the toolkit.
const ToolkitName = "file_generation"

// Options are the keys of [toolkits.file_generation]: agno's
// FileGenerationTools arguments and the size bound of a file.
type Options struct {
	EnableJSONGeneration bool   `toml:"enable_json_generation"`
	EnableCSVGeneration  bool   `toml:"enable_csv_generation"`
	EnablePDFGeneration  bool   `toml:"enable_pdf_generation"`
	EnableDOCXGeneration bool   `toml:"enable_docx_generation"`
	EnableTXTGeneration  bool   `toml:"enable_txt_generation"`
	EnableHTMLGeneration bool   `toml:"enable_html_generation"`
	OutputDirectory      string `toml:"output_directory"`
	SaveFiles            bool   `toml:"save_files"`
	All                  bool   `toml:"all"`
	MaxFileSize          int    `toml:"max_file_size"`
	Instructions         string `toml:"instructions"`
	AddInstructions      bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "writes JSON, CSV, PDF, text and HTML files the run returns (agno's FileGenerationTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableJSONGeneration: true, EnableCSVGeneration: true, EnablePDFGeneration: true, EnableDOCXGeneration: true,
				EnableTXTGeneration: true, EnableHTMLGeneration: true, MaxFileSize: DefaultMaxFileSize}
		},
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			o.OutputDirectory = tool.ResolvePath(env.Dir, o.OutputDirectory)
			if o.SaveFiles && o.OutputDirectory == "" {
				o.OutputDirectory = env.Dir // agno: the current directory
			}
			var errs []error
			if o.MaxFileSize <= 0 {
				errs = append(errs, tool.OptionErrorf("max_file_size", "max_file_size = %d: use a positive number of bytes (default %d)", o.MaxFileSize, DefaultMaxFileSize))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				EnableJSON: o.EnableJSONGeneration, EnableCSV: o.EnableCSVGeneration, EnablePDF: o.EnablePDFGeneration,
				EnableDOCX: o.EnableDOCXGeneration, EnableTXT: o.EnableTXTGeneration, EnableHTML: o.EnableHTMLGeneration,
				All: o.All, SaveFiles: o.SaveFiles, OutputDirectory: o.OutputDirectory, MaxFileSize: o.MaxFileSize,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, Logger: env.Logger,
			})
		},
	})
}
