package trafilatura

import (
	"errors"
	"slices"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// Options are the keys of [toolkits.trafilatura], agno's TrafilaturaTools
// arguments (max_tree_size 0 and target_language "" are agno's None),
// plus the fetches' bounds.
type Options struct {
	OutputFormat      string `toml:"output_format"`
	IncludeComments   bool   `toml:"include_comments"`
	IncludeTables     bool   `toml:"include_tables"`
	IncludeImages     bool   `toml:"include_images"`
	IncludeFormatting bool   `toml:"include_formatting"`
	IncludeLinks      bool   `toml:"include_links"`
	WithMetadata      bool   `toml:"with_metadata"`
	FavorPrecision    bool   `toml:"favor_precision"`
	FavorRecall       bool   `toml:"favor_recall"`
	TargetLanguage    string `toml:"target_language"`
	Deduplicate       bool   `toml:"deduplicate"`
	MaxTreeSize       int    `toml:"max_tree_size"`
	MaxCrawlURLs      int    `toml:"max_crawl_urls"`
	MaxKnownURLs      int    `toml:"max_known_urls"`

	EnableExtractText         bool `toml:"enable_extract_text"`
	EnableExtractMetadataOnly bool `toml:"enable_extract_metadata_only"`
	EnableHTMLToText          bool `toml:"enable_html_to_text"`
	EnableExtractBatch        bool `toml:"enable_extract_batch"`
	EnableCrawlWebsite        bool `toml:"enable_crawl_website"`
	All                       bool `toml:"all"`

	// Timeout bounds each page's request, in seconds.
	Timeout float64 `toml:"timeout"`
	// MaxBytes bounds each page's body, and html_to_text's input.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxOutputBytes bounds every result.
	MaxOutputBytes int `toml:"max_output_bytes"`
}

// Formats are the output formats extract_text writes.
var Formats = []string{"txt", "json", "markdown", "html"}

// agnoFormats are trafilatura's, for the refusal of the ones this port
// lacks.
var agnoFormats = []string{"txt", "json", "xml", "markdown", "csv", "html", "xmltei"}

// Defaults are agno's defaults and this port's bounds.
func Defaults() Options {
	return Options{
		OutputFormat: "txt", IncludeComments: true, IncludeTables: true, MaxCrawlURLs: 10, MaxKnownURLs: 100000,
		EnableExtractText: true, EnableExtractMetadataOnly: true, EnableHTMLToText: true, EnableExtractBatch: true, EnableCrawlWebsite: true,
		Timeout: 30, MaxBytes: 5 << 20, MaxOutputBytes: 200_000,
	}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "trafilatura",
		Summary:  "extract_text, extract_metadata_only, html_to_text, extract_batch and crawl_website: readable text and metadata of web pages (agno's TrafilaturaTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if !slices.Contains(Formats, o.OutputFormat) {
				errs = append(errs, tool.OptionErrorf("output_format", "output_format = %q: use one of %q (trafilatura's xml, csv and xmltei are not written by this port)", o.OutputFormat, Formats))
			}
			if o.MaxTreeSize < 0 {
				errs = append(errs, tool.OptionErrorf("max_tree_size", "max_tree_size = %d: use a positive number of elements, or leave it out", o.MaxTreeSize))
			}
			if o.MaxCrawlURLs < 1 {
				errs = append(errs, tool.OptionErrorf("max_crawl_urls", "max_crawl_urls = %d: use 1 or more pages (agno's default is 10)", o.MaxCrawlURLs))
			}
			if o.MaxKnownURLs < 1 {
				errs = append(errs, tool.OptionErrorf("max_known_urls", "max_known_urls = %d: use 1 or more (agno's default is 100000)", o.MaxKnownURLs))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds (default 30)", o.Timeout))
			}
			if o.MaxBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes (default 5242880)", o.MaxBytes))
			}
			if o.MaxOutputBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_output_bytes", "max_output_bytes = %d: use a positive number of bytes (default 200000)", o.MaxOutputBytes))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{Options: *o, Timeout: time.Duration(o.Timeout * float64(time.Second)), Client: webfetch.Client(env), Logger: env.Logger})
		},
	})
}
