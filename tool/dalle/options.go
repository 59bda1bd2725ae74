package dalle

import (
	"errors"
	"strconv"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// ToolkitName is agno's toolkit name, as agents list it in tools.
const ToolkitName = "dalle"

// Options are the keys of [toolkits.dalle], agno's DalleTools arguments
// and Toolkit keywords, plus the endpoint and the bounds.
type Options struct {
	Model                     string   `toml:"model"`
	N                         int      `toml:"n"`
	Size                      string   `toml:"size"`
	Quality                   string   `toml:"quality"`
	Style                     string   `toml:"style"`
	APIKey                    string   `toml:"api_key"`
	EnableCreateImage         bool     `toml:"enable_create_image"`
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
		Name: ToolkitName, Summary: "create_image with OpenAI's Images API (DALL·E), the image returned as the run's image (agno's DalleTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{Model: "dall-e-3", N: 1, Size: "1024x1024", Quality: "standard", Style: "vivid", EnableCreateImage: true}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			errs := []error{serviceapi.CheckCommon(o.BaseURL, o.TimeoutSeconds, o.MaxResponseBytes)}
			c := Config{Model: o.Model, N: o.N, Size: o.Size, Quality: o.Quality, Style: o.Style}
			if err := c.Check(); err != nil {
				var ae *ArgError
				if errors.As(err, &ae) {
					errs = append(errs, tool.OptionErrorf(ae.Arg, "%s = %s: %s", ae.Arg, optionValue(o, ae.Arg), ae.Msg))
				}
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				Model: o.Model, N: o.N, Size: o.Size, Quality: o.Quality, Style: o.Style, APIKey: o.APIKey,
				EnableCreateImage: o.EnableCreateImage, All: o.All, BaseURL: o.BaseURL, HTTPClient: env.HTTPClient,
				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResponseBytes: o.MaxResponseBytes,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}

func optionValue(o *Options, key string) string {
	switch key {
	case "size":
		return `"` + o.Size + `"`
	case "quality":
		return `"` + o.Quality + `"`
	case "style":
		return `"` + o.Style + `"`
	case "n":
		return strconv.Itoa(o.N)
	}
	return `"` + o.Model + `"`
}
