// Package jina is agno's JinaReaderTools: read_url reads a page through
// Jina Reader (https://r.jina.ai/<url>) and search_query searches the web
// through https://s.jina.ai/, both asking for JSON and returning what
// Python's str() makes of it, cut to max_content_length characters.
package jina

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

	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "jina".
const ToolkitName = "jina_reader_tools"

// APIKeyEnv is the variable agno reads the API key from.
const APIKeyEnv = "JINA_API_KEY"

// Options are the keys of [toolkits.jina], agno's JinaReaderTools
// arguments, plus the request's own bounds.
type Options struct {
	APIKey             string `toml:"api_key"`
	BaseURL            string `toml:"base_url"`
	SearchURL          string `toml:"search_url"`
	MaxContentLength   int    `toml:"max_content_length"`
	Timeout            int    `toml:"timeout"`
	SearchQueryContent bool   `toml:"search_query_content"`
	EnableReadURL      bool   `toml:"enable_read_url"`
	EnableSearchQuery  bool   `toml:"enable_search_query"`
	All                bool   `toml:"all"`
	// RequestTimeout bounds each HTTP request, in seconds; timeout is
	// agno's X-Timeout header, the time Jina gives the page.
	RequestTimeout float64 `toml:"request_timeout"`
	// MaxBytes bounds the response body read.
	MaxBytes int64 `toml:"max_bytes"`
}

// Defaults are agno's defaults.
func Defaults() Options {
	return Options{
		BaseURL: "https://r.jina.ai/", SearchURL: "https://s.jina.ai/", MaxContentLength: 10000,
		SearchQueryContent: true, EnableReadURL: true, RequestTimeout: 60, MaxBytes: 10 << 20,
	}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "jina",
		Summary:  "read_url and search_query through Jina Reader, r.jina.ai and s.jina.ai (agno's JinaReaderTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			for _, u := range []struct{ key, val string }{{"base_url", o.BaseURL}, {"search_url", o.SearchURL}} {
				if p, err := url.Parse(u.val); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					errs = append(errs, tool.OptionErrorf(u.key, "%s = %q: use an http or https URL (agno's default is %q)", u.key, u.val, map[string]string{"base_url": "https://r.jina.ai/", "search_url": "https://s.jina.ai/"}[u.key]))
				}
			}
			if o.MaxContentLength < 1 {
				errs = append(errs, tool.OptionErrorf("max_content_length", "max_content_length = %d: use a positive number of characters (agno's default is 10000)", o.MaxContentLength))
			}
			if o.Timeout < 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %d: use a positive number of seconds for Jina's X-Timeout, or leave it out", o.Timeout))
			}
			if o.RequestTimeout <= 0 {
				errs = append(errs, tool.OptionErrorf("request_timeout", "request_timeout = %g: use a positive number of seconds (default 60)", o.RequestTimeout))
			}
			if o.MaxBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes (default 10485760)", o.MaxBytes))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			key := o.APIKey
			if key == "" {
				key = os.Getenv(APIKeyEnv)
			}
			return New(Config{
				APIKey: key, BaseURL: o.BaseURL, SearchURL: o.SearchURL, MaxContentLength: o.MaxContentLength,
				Timeout: o.Timeout, SearchQueryContent: o.SearchQueryContent,
				EnableReadURL: o.EnableReadURL, EnableSearchQuery: o.EnableSearchQuery, All: o.All,
				RequestTimeout: time.Duration(o.RequestTimeout * float64(time.Second)), MaxBytes: o.MaxBytes,
				Client: webfetch.Client(env), Logger: env.Logger,
			})
		},
	})
}

// Config configures the toolkit; zero values are Defaults'.
type Config struct {
	APIKey                           string
	BaseURL, SearchURL               string
	MaxContentLength                 int
	Timeout                          int
	SearchQueryContent               bool
	EnableReadURL, EnableSearchQuery bool
	All                              bool
	RequestTimeout                   time.Duration
	MaxBytes                         int64
	// Client makes the requests: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type readArgs struct {
	URL string `json:"url"`
}

type searchArgs struct {
	Query string `json:"query"`
}

// New builds agno's JinaReaderTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("jina: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.BaseURL == "" {
		cfg.BaseURL = d.BaseURL
	}
	if cfg.SearchURL == "" {
		cfg.SearchURL = d.SearchURL
	}
	if cfg.MaxContentLength <= 0 {
		cfg.MaxContentLength = d.MaxContentLength
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = time.Duration(d.RequestTimeout) * time.Second
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = d.MaxBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	j := &reader{cfg: cfg}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableReadURL)(tool.New("read_url", "Reads a URL and returns the truncated content using Jina Reader API.",
		func(ctx context.Context, a readArgs) (string, error) { return j.readURL(ctx, a.URL), nil }))
	e.If(cfg.EnableSearchQuery)(tool.New("search_query", "Performs a web search using Jina Reader API and returns the truncated results.",
		func(ctx context.Context, a searchArgs) (string, error) { return j.searchQuery(ctx, a.Query), nil }))
	fns, err := e.Functions()
	if err != nil {
		return nil, fmt.Errorf("jina: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

type reader struct{ cfg Config }

// readURL is agno's read_url: GET base_url + url, verbatim (Jina takes
// the target URL as the path), the JSON answer as Python's str().
func (j *reader) readURL(ctx context.Context, u string) string {
	text, err := j.do(ctx, http.MethodGet, j.cfg.BaseURL+u, j.headers(), nil)
	if err != nil {
		msg := "Error reading URL: " + err.Error()
		j.cfg.Logger.Error(msg)
		return msg
	}
	return text
}

// searchQuery is agno's search_query: POST {"q": query} to search_url,
// without page contents unless search_query_content.
func (j *reader) searchQuery(ctx context.Context, q string) string {
	h := j.headers()
	if !j.cfg.SearchQueryContent {
		h.Set("X-Respond-With", "no-content")
	}
	h.Set("Content-Type", "application/json")
	body, _ := json.Marshal(map[string]string{"q": q})
	text, err := j.do(ctx, http.MethodPost, j.cfg.SearchURL, h, body)
	if err != nil {
		msg := "Error performing search: " + err.Error()
		j.cfg.Logger.Error(msg)
		return msg
	}
	return text
}

func (j *reader) headers() http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("X-With-Links-Summary", "true")
	h.Set("X-With-Images-Summary", "true")
	if j.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+j.cfg.APIKey)
	}
	if j.cfg.Timeout > 0 {
		h.Set("X-Timeout", strconv.Itoa(j.cfg.Timeout))
	}
	return h
}

func (j *reader) do(ctx context.Context, method, u string, h http.Header, body []byte) (string, error) {
	resp, err := webfetch.Do(ctx, j.cfg.Client, webfetch.Request{
		Method: method, URL: u, Header: h, Body: body, Timeout: j.cfg.RequestTimeout, MaxBytes: j.cfg.MaxBytes,
	})
	if err != nil {
		return "", err
	}
	if err := resp.StatusError(); err != nil {
		return "", err
	}
	v, err := webfetch.Loads(resp.Body)
	if err != nil {
		return "", err
	}
	return truncate(pyrepr.Repr(v), j.cfg.MaxContentLength), nil
}

// truncate is agno's _truncate_content: at most n characters, then a
// note.
func truncate(s string, n int) string {
	if cut := webfetch.CutRunes(s, n); len(cut) < len(s) {
		return cut + "... (content truncated)"
	}
	return s
}
