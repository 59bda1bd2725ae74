// Package website is agno's WebsiteTools: read_url crawls a site the way
// agno's WebsiteReader does (the start page and the links under its
// domain, breadth-first, at most max_depth deep and max_links pages) and
// returns the pages' documents as JSON; with a knowledge base it offers
// add_website_to_knowledge instead. Every page is fetched through the
// host's guarded client, one at a time, each bounded in time and size.
package website

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "website".
const ToolkitName = "website_tools"

// Options are the keys of [toolkits.website]: agno's WebsiteTools
// argument (knowledge, here the name of a [knowledge.<name>] table) and
// the bounds of its WebsiteReader, which agno leaves at the reader's
// defaults.
type Options struct {
	Knowledge string `toml:"knowledge"`
	// MaxDepth and MaxLinks are WebsiteReader's max_depth and max_links.
	MaxDepth int `toml:"max_depth"`
	MaxLinks int `toml:"max_links"`
	// Timeout bounds each page's request, in seconds (WebsiteReader's
	// timeout).
	Timeout float64 `toml:"timeout"`
	// MaxBytes bounds each page's body.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxOutputBytes bounds the text read_url returns.
	MaxOutputBytes int `toml:"max_output_bytes"`
}

// Defaults are agno's WebsiteReader defaults and this port's bounds.
func Defaults() Options {
	return Options{MaxDepth: 3, MaxLinks: 10, Timeout: 10, MaxBytes: 5 << 20, MaxOutputBytes: 200_000}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "website",
		Summary:  "read_url: a site's pages as documents, crawled as agno's WebsiteReader does; add_website_to_knowledge with knowledge set (agno's WebsiteTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.MaxDepth < 1 {
				errs = append(errs, tool.OptionErrorf("max_depth", "max_depth = %d: use 1 or more (1 reads only the given page; agno's default is 3)", o.MaxDepth))
			}
			if o.MaxLinks < 1 {
				errs = append(errs, tool.OptionErrorf("max_links", "max_links = %d: use 1 or more pages (agno's default is 10)", o.MaxLinks))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds per page (agno's is 10)", o.Timeout))
			}
			if o.MaxBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes per page (default 5242880)", o.MaxBytes))
			}
			if o.MaxOutputBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_output_bytes", "max_output_bytes = %d: use a positive number of bytes (default 200000)", o.MaxOutputBytes))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			cfg := Config{
				MaxDepth: o.MaxDepth, MaxLinks: o.MaxLinks, Timeout: time.Duration(o.Timeout * float64(time.Second)),
				MaxBytes: o.MaxBytes, MaxOutputBytes: o.MaxOutputBytes, Client: webfetch.Client(env), Logger: env.Logger,
			}
			if o.Knowledge != "" {
				v, err := env.Lookup(tool.ResourceKnowledge, o.Knowledge)
				if err != nil {
					return nil, tool.OptionErrorf("knowledge", "knowledge = %q: %v", o.Knowledge, err)
				}
				kb, ok := v.(Inserter)
				if !ok || v == (*knowledge.Knowledge)(nil) {
					return nil, tool.OptionErrorf("knowledge", "knowledge = %q: the host gave a %T, not a knowledge base", o.Knowledge, v)
				}
				cfg.Knowledge = kb
			}
			return New(cfg)
		},
	})
}

// Inserter is the knowledge base add_website_to_knowledge adds to;
// *knowledge.Knowledge is one.
type Inserter interface {
	Insert(ctx context.Context, in knowledge.Input) ([]*knowledge.Content, error)
}

// Config configures the toolkit.
type Config struct {
	// Knowledge, when set, makes the toolkit offer
	// add_website_to_knowledge instead of read_url, as agno's does.
	Knowledge Inserter
	// MaxDepth, MaxLinks: zero is agno's 3 and 10.
	MaxDepth, MaxLinks int
	// Timeout bounds each page; zero is 10 seconds.
	Timeout time.Duration
	// MaxBytes bounds each page; zero is 5 MiB.
	MaxBytes int64
	// MaxOutputBytes bounds read_url's result; zero is 200000.
	MaxOutputBytes int
	// Client fetches the pages: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type addArgs struct {
	URL string `json:"url" description:"The url of the website to add."`
}

type readArgs struct {
	URL string `json:"url" description:"The url of the website to read."`
}

// New builds agno's WebsiteTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("website: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Duration(d.Timeout) * time.Second
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = d.MaxOutputBytes
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = d.MaxBytes
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var fn *tool.Function
	var err error
	if cfg.Knowledge != nil {
		fn, err = tool.New("add_website_to_knowledge", "This function adds a websites content to the knowledge base.\nNOTE: The website must start with https:// and should be a valid website.\n\nUSE THIS FUNCTION TO GET INFORMATION ABOUT PRODUCTS FROM THE INTERNET.",
			func(ctx context.Context, a addArgs) (string, error) {
				log.Debug("website: adding to knowledge base", "url", a.URL)
				if _, err := cfg.Knowledge.Insert(ctx, knowledge.Input{URL: a.URL}); err != nil {
					return "", err
				}
				return "Success", nil
			})
	} else {
		rd, rerr := reader.NewWebsite(reader.WebsiteOptions{
			MaxDepth: cfg.MaxDepth, MaxLinks: cfg.MaxLinks, MaxBytes: cfg.MaxBytes,
			HTTPClient: webfetch.WithTimeout(cfg.Client, cfg.Timeout), Logger: log,
		})
		if rerr != nil {
			return nil, fmt.Errorf("website: %w", rerr)
		}
		fn, err = tool.New("read_url", "This function reads a url and returns the content.",
			func(ctx context.Context, a readArgs) (string, error) {
				return read(ctx, rd, log, cfg.MaxOutputBytes, a.URL)
			})
	}
	if err != nil {
		return nil, fmt.Errorf("website: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: []*tool.Function{fn}, Logger: cfg.Logger})
}

// read is agno's read_url: the reader's documents as json.dumps of their
// to_dict(). A failure is the tool's error, which the model reads, as an
// exception in agno's read_url is.
func read(ctx context.Context, rd *reader.Website, log *slog.Logger, limit int, u string) (string, error) {
	log.Debug("website: reading", "url", u)
	docs, err := rd.Read(ctx, reader.Source{URL: u})
	if err != nil {
		return "", err
	}
	dicts := make([]document.Dict, len(docs))
	for i, d := range docs {
		dicts[i] = d.ToDict()
	}
	text, err := pyjson.Dumps(dicts)
	if err != nil {
		return "", err
	}
	return webfetch.Bound(text, limit), nil
}
