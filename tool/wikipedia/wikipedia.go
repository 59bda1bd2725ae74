// Package wikipedia is agno's WikipediaTools (tools/wikipedia.py)
// without a knowledge base: search_wikipedia, answering a page's summary
// as the wikipedia library's summary() finds it over the MediaWiki
// Action API (https://www.mediawiki.org/wiki/API:Main_page): the best
// search match (auto_suggest), the page's info, and its intro as plain
// text.
package wikipedia

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "wikipedia_tools".
const RegisteredName = "wikipedia"

// DefaultBaseURL is English Wikipedia's Action API, the wikipedia
// library's default.
const DefaultBaseURL = "https://en.wikipedia.org/w/api.php"

// Options are the keys of [toolkits.wikipedia]: agno's WikipediaTools
// arguments (knowledge excepted), plus the API endpoint, the timeout and
// the result bound.
type Options struct {
	AutoSuggest    bool   `toml:"auto_suggest"`
	All            bool   `toml:"all"`
	BaseURL        string `toml:"base_url"`
	Timeout        int    `toml:"timeout"`
	MaxResultBytes int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "Wikipedia page summaries (agno's WikipediaTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{AutoSuggest: true, BaseURL: DefaultBaseURL, Timeout: 10, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			return errors.Join(webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			return New(Config{AutoSuggest: o.AutoSuggest, BaseURL: o.BaseURL, HTTP: c, MaxResultBytes: o.MaxResultBytes})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	AutoSuggest    bool
	BaseURL        string
	HTTP           webapi.Client
	MaxResultBytes int
}

type searchArgs struct {
	Query string `json:"query" description:"The query to search for."`
}

// New builds agno's WikipediaTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if cfg.HTTP.HTTP == nil {
		return nil, errors.New("wikipedia: Config.HTTP has no client: build it with webapi.NewClient")
	}
	w := &wiki{cfg: cfg}
	f, err := tool.New("search_wikipedia", "Searches Wikipedia for a query.", w.search)
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "wikipedia_tools", Functions: []*tool.Function{f}})
}

type wiki struct{ cfg Config }

// pageError is the wikipedia library's PageError.
type pageError struct{ title string }

func (e pageError) Error() string {
	return fmt.Sprintf("Page id \"%s\" does not match any pages. Try another id!", e.title)
}

// disambiguation is the library's DisambiguationError.
type disambiguation struct{ options []string }

func (disambiguation) Error() string { return "disambiguation" }

// document is agno's Document(name=query, content=...).to_dict().
type document struct {
	Name     string         `json:"name"`
	MetaData map[string]any `json:"meta_data"`
	Content  string         `json:"content"`
}

func (w *wiki) search(ctx context.Context, a searchArgs) (string, error) {
	var out any
	content, err := w.summary(ctx, a.Query)
	var d disambiguation
	switch {
	case errors.As(err, &d):
		out = struct {
			Disambiguation string   `json:"disambiguation"`
			Options        []string `json:"options"`
		}{a.Query, d.options}
	case err != nil:
		out = struct {
			Error string `json:"error"`
		}{err.Error()}
	default:
		out = document{Name: a.Query, MetaData: map[string]any{}, Content: content}
	}
	s, err := pyjson.Dumps(out)
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, w.cfg.MaxResultBytes), nil
}

func (w *wiki) query(ctx context.Context, params url.Values, out any) error {
	params.Set("format", "json")
	params.Set("action", "query")
	return w.cfg.HTTP.GetJSON(ctx, w.cfg.BaseURL+"?"+params.Encode(), nil, out)
}

// summary is wikipedia.summary(query, auto_suggest).
func (w *wiki) summary(ctx context.Context, title string) (string, error) {
	if w.cfg.AutoSuggest {
		var s struct {
			Query struct {
				SearchInfo struct {
					Suggestion string `json:"suggestion"`
				} `json:"searchinfo"`
				Search []struct {
					Title string `json:"title"`
				} `json:"search"`
			} `json:"query"`
		}
		if err := w.query(ctx, url.Values{"list": {"search"}, "srprop": {""}, "srlimit": {"1"}, "srsearch": {title}, "srinfo": {"suggestion"}, "limit": {"1"}}, &s); err != nil {
			return "", err
		}
		switch {
		case s.Query.SearchInfo.Suggestion != "":
			title = s.Query.SearchInfo.Suggestion
		case len(s.Query.Search) > 0:
			title = s.Query.Search[0].Title
		default:
			return "", pageError{title}
		}
	}
	var info struct {
		Query struct {
			Pages map[string]struct {
				PageID    int               `json:"pageid"`
				Title     string            `json:"title"`
				Missing   *string           `json:"missing"`
				PageProps map[string]string `json:"pageprops"`
			} `json:"pages"`
		} `json:"query"`
	}
	if err := w.query(ctx, url.Values{"prop": {"info|pageprops"}, "inprop": {"url"}, "ppprop": {"disambiguation"}, "redirects": {""}, "titles": {title}}, &info); err != nil {
		return "", err
	}
	for id, p := range info.Query.Pages {
		if p.Missing != nil || id == "-1" {
			return "", pageError{title}
		}
		if _, ok := p.PageProps["disambiguation"]; ok {
			opts, err := w.options(ctx, id)
			if err != nil {
				return "", err
			}
			return "", disambiguation{opts}
		}
		var ex struct {
			Query struct {
				Pages map[string]struct {
					Extract string `json:"extract"`
				} `json:"pages"`
			} `json:"query"`
		}
		if err := w.query(ctx, url.Values{"prop": {"extracts"}, "explaintext": {""}, "exintro": {""}, "pageids": {id}}, &ex); err != nil {
			return "", err
		}
		return ex.Query.Pages[id].Extract, nil
	}
	return "", pageError{title}
}

// options are a disambiguation page's choices as the library reads
// them: the text of each list item's first link, table-of-contents
// items left out.
func (w *wiki) options(ctx context.Context, pageID string) ([]string, error) {
	var rev struct {
		Query struct {
			Pages map[string]struct {
				Revisions []map[string]string `json:"revisions"`
			} `json:"pages"`
		} `json:"query"`
	}
	if err := w.query(ctx, url.Values{"prop": {"revisions"}, "rvprop": {"content"}, "rvparse": {""}, "rvlimit": {"1"}, "pageids": {pageID}}, &rev); err != nil {
		return nil, err
	}
	revs := rev.Query.Pages[pageID].Revisions
	if len(revs) == 0 {
		return []string{}, nil
	}
	doc, err := html.Parse(strings.NewReader(revs[0]["*"]))
	if err != nil {
		return nil, err
	}
	opts := []string{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "li" && !strings.Contains(attr(n, "class"), "tocsection") {
			if a := firstA(n); a != nil {
				opts = append(opts, text(a))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return opts, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// firstA is BeautifulSoup's li.a: the first a below n, in document order.
func firstA(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "a" {
			return c
		}
		if a := firstA(c); a != nil {
			return a
		}
	}
	return nil
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(text(c))
	}
	return b.String()
}
