package github

import (
	"errors"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// ToolkitName is agno's toolkit name, as agents list it in tools.
const ToolkitName = "github"

// Options are the keys of [toolkits.github]: agno's GithubTools
// arguments (access_token, base_url) and Toolkit keywords, plus the
// bounds.
type Options struct {
	AccessToken               string   `toml:"access_token"`
	BaseURL                   string   `toml:"base_url"`
	TimeoutSeconds            float64  `toml:"timeout_seconds"`
	MaxResponseBytes          int      `toml:"max_response_bytes"`
	MaxPages                  int      `toml:"max_pages"`
	Instructions              string   `toml:"instructions"`
	AddInstructions           bool     `toml:"add_instructions"`
	RequiresConfirmationTools []string `toml:"requires_confirmation_tools"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "repositories, pull requests, issues, branches, files and search over the GitHub REST API (agno's GithubTools)",
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			errs := []error{serviceapi.CheckCommon(o.BaseURL, o.TimeoutSeconds, o.MaxResponseBytes)}
			if o.MaxPages < 0 {
				errs = append(errs, tool.OptionErrorf("max_pages", "max_pages = %d: use a positive number of 100-item pages, or leave it out for %d", o.MaxPages, DefaultMaxPages))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				AccessToken: o.AccessToken, BaseURL: o.BaseURL, HTTPClient: env.HTTPClient,
				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResponseBytes: o.MaxResponseBytes, MaxPages: o.MaxPages,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}
