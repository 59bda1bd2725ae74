// Package wikipedia is agno's WikipediaTools (tools/wikipedia.py):
// search_wikipedia, answering a page's summary as the wikipedia
// library's summary() finds it over the MediaWiki Action API
// (https://www.mediawiki.org/wiki/API:Main_page): the best search match
// (auto_suggest), the page's info, and its intro as plain text. With a
// knowledge base it is search_wikipedia_and_update_knowledge_base
// instead, which inserts the topic through agno's WikipediaReader and
// answers the knowledge base's search.
package wikipedia

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
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
	// Knowledge names a [knowledge.<name>] table (agno's knowledge
	// argument, the object).
	Knowledge      string `toml:"knowledge"`
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
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			errs := []error{webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes)}
			if o.Knowledge != "" {
				_, err := lookup(env, o.Knowledge)
				errs = append(errs, err)
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			cfg := Config{AutoSuggest: o.AutoSuggest, BaseURL: o.BaseURL, HTTP: c, MaxResultBytes: o.MaxResultBytes}
			if o.Knowledge != "" {
				if cfg.Knowledge, err = lookup(env, o.Knowledge); err != nil {
					return nil, err
				}
			}
			return New(cfg)
		},
	})
}

// lookup finds the knowledge base the knowledge key names.
func lookup(env tool.ToolkitEnv, name string) (KnowledgeBase, error) {
	v, err := env.Lookup(tool.ResourceKnowledge, name)
	if err != nil {
		return nil, tool.OptionErrorf("knowledge", "knowledge = %q: %v", name, err)
	}
	kb, ok := v.(KnowledgeBase)
	if !ok || kb == nil || v == (*knowledge.Knowledge)(nil) {
		return nil, tool.OptionErrorf("knowledge", "knowledge = %q: the host gave a %T, not a knowledge base", name, v)
	}
	return kb, nil
}

// KnowledgeBase is what search_wikipedia_and_update_knowledge_base
// needs of a knowledge base; *knowledge.Knowledge is one.
type KnowledgeBase interface {
	Insert(ctx context.Context, in knowledge.Input) ([]*knowledge.Content, error)
	Search(ctx context.Context, query string, opts knowledge.SearchOptions) ([]*document.Document, error)
}

// Config configures the toolkit.
type Config struct {
	// Knowledge, when set, swaps search_wikipedia for
	// search_wikipedia_and_update_knowledge_base.
	Knowledge      KnowledgeBase
	AutoSuggest    bool
	BaseURL        string
	HTTP           webapi.Client
	MaxResultBytes int
	// IncludeTools and ExcludeTools keep or drop functions by name.
	IncludeTools, ExcludeTools []string
}

type searchArgs struct {
	Query string `json:"query" description:"The query to search for."`
}

type topicArgs struct {
	Topic string `json:"topic" description:"The topic to search Wikipedia and add to knowledge base."`
}

// searchAndUpdate inserts the topic through the WikipediaReader, then
// answers the knowledge base's search for it as agno's
// json.dumps([doc.to_dict() ...]).
func (w *wiki) searchAndUpdate(ctx context.Context, a topicArgs) (string, error) {
	// agno's insert logs a failed read and goes on to the search.
	_, _ = w.cfg.Knowledge.Insert(ctx, knowledge.Input{Topics: []string{a.Topic}, Reader: Reader{w}})
	docs, err := w.cfg.Knowledge.Search(ctx, a.Topic, knowledge.SearchOptions{})
	if err != nil {
		return "", err
	}
	dicts := make([]document.Dict, len(docs))
	for i, d := range docs {
		dicts[i] = d.ToDict()
	}
	s, err := pyjson.Dumps(dicts)
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, w.cfg.MaxResultBytes), nil
}

// Reader is agno's WikipediaReader: a topic's summary as one document
// with meta_data {"topic": topic}, none for a page not found.
type Reader struct{ w *wiki }

// ClassName is agno's reader class, part of a topic's content hash.
func (Reader) ClassName() string { return "WikipediaReader" }

// Read implements reader.Reader.
func (r Reader) Read(ctx context.Context, src reader.Source) ([]*document.Document, error) {
	summary, err := r.w.summary(ctx, src.Topic)
	var pe pageError
	if errors.As(err, &pe) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if summary == "" {
		return nil, nil
	}
	return []*document.Document{{Name: src.Topic, MetaData: map[string]any{"topic": src.Topic}, Content: summary}}, nil
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
	var f *tool.Function
	var err error
	if cfg.Knowledge != nil {
		f, err = tool.New("search_wikipedia_and_update_knowledge_base", "This function searches wikipedia for a topic, adds the results to the knowledge base and returns them.\nUSE THIS FUNCTION TO GET INFORMATION WHICH DOES NOT EXIST.", w.searchAndUpdate)
	} else {
		f, err = tool.New("search_wikipedia", "Searches Wikipedia for a query.", w.search)
	}
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "wikipedia_tools", Functions: []*tool.Function{f}, Include: cfg.IncludeTools, Exclude: cfg.ExcludeTools})
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
		// agno's Document(name=query, content=content).to_dict().
		out = (&document.Document{Name: a.Query, Content: content}).ToDict()
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
