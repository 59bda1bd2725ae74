// Package newspaper4k is agno's Newspaper4kTools: read_article fetches a
// page through the host's guarded client and returns its article's
// title, authors, text and publish date as JSON. agno reads the article
// with newspaper4k; this port finds it with go-readability.
package newspaper4k

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/article"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "newspaper4k".
const ToolkitName = "newspaper4k_tools"

// Options are the keys of [toolkits.newspaper4k], agno's
// Newspaper4kTools arguments (article_length 0 is agno's None) plus the
// fetch's bounds.
type Options struct {
	IncludeSummary    bool `toml:"include_summary"`
	ArticleLength     int  `toml:"article_length"`
	EnableReadArticle bool `toml:"enable_read_article"`
	All               bool `toml:"all"`
	// Timeout bounds the page's request, in seconds.
	Timeout float64 `toml:"timeout"`
	// MaxBytes bounds the page's body.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxOutputBytes bounds the JSON read_article returns; past it the
	// text is cut.
	MaxOutputBytes int `toml:"max_output_bytes"`
}

// Defaults are agno's defaults and this port's bounds.
func Defaults() Options {
	return Options{EnableReadArticle: true, Timeout: 30, MaxBytes: 5 << 20, MaxOutputBytes: 200_000}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "newspaper4k",
		Summary:  "read_article: an article's title, authors, text and publish date from its URL (agno's Newspaper4kTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.ArticleLength < 0 {
				errs = append(errs, tool.OptionErrorf("article_length", "article_length = %d: use a positive number of characters, or leave it out for the whole text", o.ArticleLength))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds (default 30)", o.Timeout))
			}
			if o.MaxBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes (default 5242880)", o.MaxBytes))
			}
			if o.MaxOutputBytes < 256 {
				errs = append(errs, tool.OptionErrorf("max_output_bytes", "max_output_bytes = %d: use 256 bytes or more (default 200000)", o.MaxOutputBytes))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				IncludeSummary: o.IncludeSummary, ArticleLength: o.ArticleLength, EnableReadArticle: o.EnableReadArticle, All: o.All,
				Timeout: time.Duration(o.Timeout * float64(time.Second)), MaxBytes: o.MaxBytes, MaxOutputBytes: o.MaxOutputBytes,
				Client: webfetch.Client(env), Logger: env.Logger,
			})
		},
	})
}

// Config configures the toolkit; zero bounds are Defaults'.
type Config struct {
	// IncludeSummary adds "summary": the page's description or first
	// paragraph (newspaper's summary needs its NLP step, which agno's
	// newspaper.article() does not run).
	IncludeSummary bool
	// ArticleLength cuts the text to that many characters; 0 keeps it.
	ArticleLength     int
	EnableReadArticle bool
	All               bool
	Timeout           time.Duration
	MaxBytes          int64
	MaxOutputBytes    int
	// Client fetches the page: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type readArgs struct {
	URL string `json:"url" description:"(str) The URL of the article."`
}

// Tools is the built toolkit's state.
type Tools struct {
	cfg Config
	log *slog.Logger
}

// New builds agno's Newspaper4kTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("newspaper4k: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Duration(d.Timeout) * time.Second
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = d.MaxBytes
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = d.MaxOutputBytes
	}
	t := &Tools{cfg: cfg, log: cfg.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableReadArticle)(tool.New("read_article", "Use this function to read an article from a URL.",
		func(ctx context.Context, a readArgs) (string, error) { return t.ReadArticle(ctx, a.URL), nil }))
	fns, err := e.Functions()
	if err != nil {
		return nil, fmt.Errorf("newspaper4k: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

// Data is agno's article data: only the fields the article has, in
// agno's order.
type Data struct {
	Title       string   `json:"title,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	Text        string   `json:"text,omitempty"`
	Summary     string   `json:"summary,omitempty"`
	PublishDate string   `json:"publish_date,omitempty"`
}

func (d *Data) empty() bool {
	return d.Title == "" && len(d.Authors) == 0 && d.Text == "" && d.Summary == "" && d.PublishDate == ""
}

// GetArticleData is agno's get_article_data: the article at u, or nil
// when it cannot be read (the reason logged, as agno does).
func (t *Tools) GetArticleData(ctx context.Context, u string) *Data {
	d, err := t.articleData(ctx, u)
	if err != nil {
		t.log.Warn(fmt.Sprintf("Error reading article from %s: %v", u, err))
		return nil
	}
	return d
}

func (t *Tools) articleData(ctx context.Context, u string) (*Data, error) {
	resp, err := webfetch.Do(ctx, t.cfg.Client, webfetch.Request{URL: u, Timeout: t.cfg.Timeout, MaxBytes: t.cfg.MaxBytes})
	if err != nil {
		return nil, err
	}
	if err := resp.StatusError(); err != nil {
		return nil, err
	}
	d := &Data{}
	switch {
	case resp.IsHTML():
		a, err := article.Parse(resp.Body, resp.URL)
		if err != nil {
			return nil, err
		}
		d.Title, d.Authors, d.Text = a.Title, a.Authors, a.Text
		if t.cfg.IncludeSummary {
			d.Summary = a.Excerpt
		}
		if !a.Published.IsZero() {
			d.PublishDate = article.ISOFormat(a.Published)
		}
	case resp.IsText():
		// newspaper parses any text it downloads; plain text is its own
		// article text.
		d.Text = string(resp.Body)
	default:
		return nil, fmt.Errorf("the page is %s, not an HTML article", resp.ContentType)
	}
	return d, nil
}

// ReadArticle is agno's read_article.
func (t *Tools) ReadArticle(ctx context.Context, u string) string {
	t.log.Debug("Reading news: " + u)
	d := t.GetArticleData(ctx, u)
	if d == nil || d.empty() {
		return fmt.Sprintf("Error reading article from %s: No data found.", u)
	}
	if t.cfg.ArticleLength > 0 && d.Text != "" {
		d.Text = webfetch.CutRunes(d.Text, t.cfg.ArticleLength)
	}
	out, err := t.dump(d)
	if err != nil {
		return fmt.Sprintf("Error reading article from %s: %v", u, err)
	}
	return out
}

// dump is json.dumps(data, indent=2), the text cut until it fits
// MaxOutputBytes, so the answer stays JSON.
func (t *Tools) dump(d *Data) (string, error) {
	const note = " [text truncated]"
	for {
		out, err := pyjson.DumpsOpts(d, pyjson.Options{Indent: 2})
		if err != nil || len(out) <= t.cfg.MaxOutputBytes {
			return out, err
		}
		over := len(out) - t.cfg.MaxOutputBytes + len(note)
		if d.Text == "" || over >= len(d.Text) {
			d.Text = ""
			d.Summary, _ = webfetch.Cut(d.Summary, len(d.Summary)/2)
			if d.Summary == "" {
				cut, _ := webfetch.Cut(out, t.cfg.MaxOutputBytes)
				return cut, nil
			}
			continue
		}
		cut, _ := webfetch.Cut(d.Text, len(d.Text)-over)
		d.Text = cut + note
	}
}
