// Package openweather is agno's OpenWeatherTools: current weather,
// forecast, air pollution and geocoding from the OpenWeatherMap API.
//
// Differences from agno v2.6.13: every request has a timeout and every
// result a size bound (timeout_seconds, max_response_bytes; a result
// over the bound is an {"error": …} naming the key), and an HTTP error
// shows the URL with the appid masked (agno's showed the key to the
// model).
package openweather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// APIKeyEnv is the variable the key is read from, as in agno.
const APIKeyEnv = "OPENWEATHER_API_KEY"

// agno's endpoints.
const (
	DefaultBaseURL = "https://api.openweathermap.org/data/2.5"
	DefaultGeoURL  = "https://api.openweathermap.org/geo/1.0"
)

// ErrMissingAPIKey is agno's refusal to build without a key.
//
//lint:ignore ST1005 agno's message, word for word
var ErrMissingAPIKey = errors.New("OpenWeather API key is required. Provide it as an argument or set the OPENWEATHER_API_KEY environment variable.")

// Config configures the toolkit; the fields are agno's
// OpenWeatherTools arguments.
type Config struct {
	// APIKey authenticates; empty reads OPENWEATHER_API_KEY.
	APIKey string
	// Units is standard, metric (empty) or imperial.
	Units string

	EnableCurrentWeather, EnableForecast, EnableAirPollution, EnableGeocoding, All bool

	// BaseURL and GeoURL are the data and geocoding APIs; empty are
	// agno's.
	BaseURL, GeoURL string
	// HTTPClient sends the requests; nil is a guarded client reaching
	// public addresses only.
	HTTPClient *http.Client
	// Timeout bounds one request (0: 30s); MaxResponseBytes bounds an
	// answer and a result (0: 1 MiB).
	Timeout          time.Duration
	MaxResponseBytes int

	Instructions         string
	AddInstructions      bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

type locationArgs struct {
	Location string `json:"location" description:"(str) The name of the city, e.g., \"London\", \"Paris\", \"New York\"."`
}

type geocodeArgs struct {
	Location string `json:"location" description:"(str) The name of the city, e.g., \"London\", \"Paris\", \"New York\"."`
	Limit    *int   `json:"limit,omitempty" description:"(int) Maximum number of location results. Default is 1."`
}

type forecastArgs struct {
	Location string `json:"location" description:"(str) The name of the city, e.g., \"London\", \"Paris\", \"New York\"."`
	Days     *int   `json:"days,omitempty" description:"(int) Number of days for forecast (max 5). Default is 5."`
}

type weather struct {
	key, units, base, geo string
	client                *http.Client
	timeout               time.Duration
	max                   int
	log                   *slog.Logger
}

// New returns agno's "openweather_tools" toolkit.
func New(cfg Config) (*tool.Toolkit, error) {
	w := &weather{
		key: cfg.APIKey, units: cfg.Units, base: cfg.BaseURL, geo: cfg.GeoURL, client: serviceapi.Client(cfg.HTTPClient),
		timeout: cfg.Timeout, max: cfg.MaxResponseBytes, log: cfg.Logger,
	}
	if w.key == "" {
		w.key = os.Getenv(APIKeyEnv)
	}
	if w.key == "" {
		return nil, ErrMissingAPIKey
	}
	if w.units == "" {
		w.units = "metric"
	}
	if w.base == "" {
		w.base = DefaultBaseURL
	}
	if w.geo == "" {
		w.geo = DefaultGeoURL
	}
	if w.timeout <= 0 {
		w.timeout = serviceapi.DefaultTimeout
	}
	if w.max <= 0 {
		w.max = serviceapi.DefaultMaxResponseBytes
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableCurrentWeather)(tool.New("get_current_weather", "Get current weather data for a location.", w.currentWeather))
	e.If(cfg.EnableForecast)(tool.New("get_forecast", "Get weather forecast for a location.", w.forecast))
	e.If(cfg.EnableAirPollution)(tool.New("get_air_pollution", "Get current air pollution data for a location.", w.airPollution))
	e.If(cfg.EnableGeocoding)(tool.New("geocode_location", "Convert a location name to geographic coordinates.", w.geocode))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "openweather_tools", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: w.log,
	})
}

// errorJSON is agno's json.dumps({"error": str(e)}).
func errorJSON(msg string) string {
	s, _ := pyjson.Dumps(map[string]any{"error": msg})
	return s
}

// request is agno's _make_request: the decoded answer, or the error's
// text.
func (w *weather) request(ctx context.Context, endpoint string, params url.Values) (json.RawMessage, string) {
	params.Set("appid", w.key)
	body, err := serviceapi.Get(ctx, w.client, endpoint+"?"+params.Encode(), w.timeout, w.max, "appid")
	if err != nil {
		w.log.Error("openweather: request failed", "url", serviceapi.Mask(endpoint+"?"+params.Encode(), "appid"), "error", err)
		return nil, err.Error()
	}
	if !json.Valid(body) {
		return nil, "the answer is not JSON"
	}
	return body, ""
}

// indent is json.dumps(v, indent=2), bounded by max_response_bytes.
func (w *weather) indent(v any) string {
	s, err := pyjson.DumpsOpts(v, pyjson.Options{Indent: 2})
	if err != nil {
		return errorJSON(err.Error())
	}
	if len(s) > w.max {
		return errorJSON((&serviceapi.TooLargeError{Limit: w.max}).Error())
	}
	return s
}

// geocodeRaw is agno's geocode_location: a JSON text, the list of places
// or an {"error": …}.
func (w *weather) geocodeRaw(ctx context.Context, location string, limit int) string {
	body, msg := w.request(ctx, w.geo+"/direct", url.Values{"q": {location}, "limit": {strconv.Itoa(limit)}})
	if msg != "" {
		return errorJSON(msg)
	}
	var places []json.RawMessage
	if json.Unmarshal(body, &places) == nil && len(places) == 0 {
		return notFound(location)
	}
	if obj, err := serviceapi.DecodeObject(body); err == nil {
		if _, ok := obj.Get("error"); ok {
			return mustDumps(json.RawMessage(body))
		}
	}
	return w.indent(json.RawMessage(body))
}

func mustDumps(v any) string {
	s, err := pyjson.Dumps(v)
	if err != nil {
		return errorJSON(err.Error())
	}
	return s
}

func (w *weather) geocode(ctx context.Context, a geocodeArgs) (string, error) {
	limit := 1
	if a.Limit != nil {
		limit = *a.Limit
	}
	w.log.Info("Geocoding location: " + a.Location)
	return w.geocodeRaw(ctx, a.Location, limit), nil
}

type place struct {
	Lat     json.Number `json:"lat"`
	Lon     json.Number `json:"lon"`
	Name    *string     `json:"name"`
	Country *string     `json:"country"`
}

// atPlace geocodes location and asks endpoint about its first place,
// adding location_name and country to the answer, as agno does.
func (w *weather) atPlace(ctx context.Context, location, endpoint string, params url.Values) string {
	geo := w.geocodeRaw(ctx, location, 1)
	var places []place
	if err := json.Unmarshal([]byte(geo), &places); err != nil {
		if obj, oerr := serviceapi.DecodeObject([]byte(geo)); oerr == nil {
			if _, ok := obj.Get("error"); ok {
				// agno re-dumps the {"error": …} compactly: geo already is.
				return geo
			}
		}
		return errorJSON(err.Error())
	}
	if len(places) == 0 {
		return notFound(location)
	}
	p := places[0]
	params.Set("lat", pyrepr.Number(p.Lat))
	params.Set("lon", pyrepr.Number(p.Lon))
	body, msg := w.request(ctx, endpoint, params)
	if msg != "" {
		return errorJSON(msg)
	}
	obj, err := serviceapi.DecodeObject(body)
	if err != nil {
		return errorJSON(err.Error())
	}
	if _, isErr := obj.Get("error"); !isErr {
		name, country := location, ""
		if p.Name != nil {
			name = *p.Name
		}
		if p.Country != nil {
			country = *p.Country
		}
		obj.Set("location_name", name)
		obj.Set("country", country)
	}
	return w.indent(obj)
}

// notFound is agno's answer when geocoding finds no place.
func notFound(location string) string {
	return errorJSON(fmt.Sprintf("No location found for '%s'", location))
}

func (w *weather) currentWeather(ctx context.Context, a locationArgs) (string, error) {
	w.log.Info("Getting current weather for: " + a.Location)
	return w.atPlace(ctx, a.Location, w.base+"/weather", url.Values{"units": {w.units}}), nil
}

func (w *weather) forecast(ctx context.Context, a forecastArgs) (string, error) {
	days := 5
	if a.Days != nil {
		days = *a.Days
	}
	w.log.Info(fmt.Sprintf("Getting %d-day forecast for: %s", days, a.Location))
	// Each day has 8 three-hour forecasts; the API gives at most 40.
	return w.atPlace(ctx, a.Location, w.base+"/forecast", url.Values{"units": {w.units}, "cnt": {strconv.Itoa(min(days*8, 40))}}), nil
}

func (w *weather) airPollution(ctx context.Context, a locationArgs) (string, error) {
	w.log.Info("Getting air pollution data for: " + a.Location)
	return w.atPlace(ctx, a.Location, w.base+"/air_pollution", url.Values{}), nil
}
