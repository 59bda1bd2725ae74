package openweather

import (
	"errors"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// ToolkitName is the name agents list in tools.
const ToolkitName = "openweather"

// Options are the keys of [toolkits.openweather], agno's
// OpenWeatherTools arguments and Toolkit keywords, plus the endpoints and
// the bounds.
type Options struct {
	APIKey                    string   `toml:"api_key"`
	Units                     string   `toml:"units"`
	EnableCurrentWeather      bool     `toml:"enable_current_weather"`
	EnableForecast            bool     `toml:"enable_forecast"`
	EnableAirPollution        bool     `toml:"enable_air_pollution"`
	EnableGeocoding           bool     `toml:"enable_geocoding"`
	All                       bool     `toml:"all"`
	BaseURL                   string   `toml:"base_url"`
	GeoURL                    string   `toml:"geo_url"`
	TimeoutSeconds            float64  `toml:"timeout_seconds"`
	MaxResponseBytes          int      `toml:"max_response_bytes"`
	Instructions              string   `toml:"instructions"`
	AddInstructions           bool     `toml:"add_instructions"`
	RequiresConfirmationTools []string `toml:"requires_confirmation_tools"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "current weather, forecast, air pollution and geocoding from OpenWeatherMap (agno's OpenWeatherTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{Units: "metric", EnableCurrentWeather: true, EnableForecast: true, EnableAirPollution: true, EnableGeocoding: true}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			switch o.Units {
			case "standard", "metric", "imperial":
			default:
				errs = append(errs, tool.OptionErrorf("units", "units = %q: use \"standard\", \"metric\" (default) or \"imperial\"", o.Units))
			}
			errs = append(errs, serviceapi.CheckCommon(o.BaseURL, o.TimeoutSeconds, o.MaxResponseBytes))
			if o.GeoURL != "" {
				if err := serviceapi.CheckCommon(o.GeoURL, 0, 0); err != nil {
					errs = append(errs, tool.OptionErrorf("geo_url", "geo_url = %q is not an http(s) URL: write it like %q", o.GeoURL, DefaultGeoURL))
				}
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				APIKey: o.APIKey, Units: o.Units, EnableCurrentWeather: o.EnableCurrentWeather, EnableForecast: o.EnableForecast,
				EnableAirPollution: o.EnableAirPollution, EnableGeocoding: o.EnableGeocoding, All: o.All,
				BaseURL: o.BaseURL, GeoURL: o.GeoURL, HTTPClient: env.HTTPClient,
				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxResponseBytes: o.MaxResponseBytes,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}
