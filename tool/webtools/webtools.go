// Package webtools is agno's WebTools: expand_url follows a shortened
// URL's redirects with HEAD requests through the host's guarded client
// and returns where they end.
package webtools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "webtools".
const ToolkitName = "web_tools"

// Options are the keys of [toolkits.webtools], agno's WebTools arguments
// plus timeout (agno's fixed 5 seconds per attempt).
type Options struct {
	Retries         int     `toml:"retries"`
	EnableExpandURL bool    `toml:"enable_expand_url"`
	All             bool    `toml:"all"`
	Timeout         float64 `toml:"timeout"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:    "webtools",
		Summary: "expand_url: follow a shortened URL's redirects to its destination (agno's WebTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{Retries: 3, EnableExpandURL: true, Timeout: 5}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.Retries < 1 {
				errs = append(errs, tool.OptionErrorf("retries", "retries = %d: use 1 or more attempts (agno's default is 3)", o.Retries))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds per attempt (agno's is 5)", o.Timeout))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				Retries: o.Retries, EnableExpandURL: o.EnableExpandURL, All: o.All,
				Timeout: time.Duration(o.Timeout * float64(time.Second)), Client: webfetch.Client(env), Logger: env.Logger,
			})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	Retries         int
	EnableExpandURL bool
	All             bool
	// Timeout bounds each attempt; zero is 5 seconds.
	Timeout time.Duration
	// Client makes the requests: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type expandArgs struct {
	URL string `json:"url" description:"The URL to expand."`
}

// New builds agno's WebTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("webtools: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	if cfg.Retries < 1 {
		cfg.Retries = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableExpandURL)(tool.New("expand_url", "Expands a shortened URL to its final destination using HTTP HEAD requests with retries.",
		func(ctx context.Context, a expandArgs) (string, error) {
			return expand(ctx, cfg, log, a.URL), nil
		}))
	fns, err := e.Functions()
	if err != nil {
		return nil, fmt.Errorf("webtools: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

// expand is agno's expand_url: HEAD, redirects followed, up to Retries
// attempts; the URL the last redirect reached, whatever its status, or
// the URL as given when every attempt failed (a refused address too:
// agno logs the failure and the model gets the URL back).
func expand(ctx context.Context, cfg Config, log *slog.Logger, u string) string {
	for attempt := 1; attempt <= cfg.Retries; attempt++ {
		resp, err := webfetch.Do(ctx, cfg.Client, webfetch.Request{Method: http.MethodHead, URL: u, Timeout: cfg.Timeout, MaxBytes: 1})
		if err == nil {
			log.Info("expand_url: expanded", "url", u, "final_url", resp.URL.String(), "attempt", attempt)
			return resp.URL.String()
		}
		log.Error("expand_url: expanding failed", "url", u, "attempt", attempt, "error", err)
		if ctx.Err() != nil {
			break
		}
	}
	return u
}
