package giphy

import (
	"errors"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// ToolkitName is the name agents list in tools.
const ToolkitName = "giphy"

// Options are the keys of [toolkits.giphy], agno's GiphyTools arguments
// and Toolkit keywords, plus the endpoint and the bounds.
type Options struct {
	APIKey                    string   `toml:"api_key"`
	Limit                     int      `toml:"limit"`
	EnableSearchGifs          bool     `toml:"enable_search_gifs"`
	All                       bool     `toml:"all"`
	BaseURL                   string   `toml:"base_url"`
	TimeoutSeconds            float64  `toml:"timeout_seconds"`
	MaxResponseBytes          int      `toml:"max_response_bytes"`
	Instructions              string   `toml:"instructions"`
	AddInstructions           bool     `toml:"add_instructions"`
	RequiresConfirmationTools []string `toml:"requires_confirmation_tools"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "search_gifs on GIPHY, the GIFs returned as the run's images (agno's GiphyTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Options{Limit: 1, EnableSearchGifs: true} },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.Limit < 1 || o.Limit > 50 {
				errs = append(errs, tool.OptionErrorf("limit", "limit = %d: use 1 to 50 GIFs (GIPHY's range; default 1)", o.Limit))
			}
			errs = append(errs, serviceapi.CheckCommon(o.BaseURL, o.TimeoutSeconds, o.MaxResponseBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				APIKey: o.APIKey, Limit: o.Limit, EnableSearchGifs: o.EnableSearchGifs, All: o.All, BaseURL: o.BaseURL,
				HTTPClient: env.HTTPClient, Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResponseBytes: o.MaxResponseBytes,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}
