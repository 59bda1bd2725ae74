// Package websearch is agno's WebSearchTools (tools/websearch.py):
// web_search and search_news. agno runs them through the ddgs
// meta-search library; this port implements ddgs's DuckDuckGo engines —
// the HTML endpoint for text results and news.js for news — and answers
// with ddgs's result dicts (title, href, body; date, title, body, url,
// image, source) as agno's json.dumps(results, indent=2).
package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// ToolkitName is agno's WebSearchTools name, and the name agents list.
const ToolkitName = "websearch"

// Default endpoints of ddgs's DuckDuckGo engines.
const (
	DefaultHTMLURL = "https://html.duckduckgo.com/html/"
	DefaultNewsURL = "https://duckduckgo.com"
)

// Backends this port implements: "auto" and "duckduckgo" are ddgs's
// DuckDuckGo engines (auto: the one engine of ddgs's automatic choice
// this port has, needing no key); the others are search APIs (see
// backends.go) answering in ddgs's result shapes.
var Backends = []string{"auto", "duckduckgo", "bing", "brave", "exa", "google", "searxng", "parallel", "serper", "tavily", "you"}

// Config configures the toolkit.
type Config struct {
	EnableSearch, EnableNews bool
	Backend                  string
	// Modifier is put before web_search queries.
	Modifier        string
	FixedMaxResults int
	// Timelimit is "", "d", "w", "m" or "y"; Region a DuckDuckGo region
	// ("us-en").
	Timelimit, Region string
	// HTMLURL and NewsURL are the DuckDuckGo endpoints (Default*).
	HTMLURL, NewsURL string
	// APIKey is an API backend's key ("" reads its variable);
	// SearchEngineID Google's cx; BaseURL an API backend's endpoint
	// ("" is the service's own; searxng's instance).
	APIKey, SearchEngineID, BaseURL string
	// HTTP makes the requests (webapi.NewClient).
	HTTP webapi.Client
	// MaxResultBytes bounds a result; 0 is webapi.DefaultMaxResultBytes.
	MaxResultBytes int
	// IncludeTools and ExcludeTools keep or drop functions by name.
	IncludeTools, ExcludeTools []string
}

type searchArgs struct {
	Query      string `json:"query" description:"(str) The query to search for."`
	MaxResults *int   `json:"max_results,omitempty" description:"(optional, default=5) The maximum number of results to return."`
}

// Toolkit builds agno's WebSearchTools (name "websearch").
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.HTMLURL == "" {
		cfg.HTMLURL = DefaultHTMLURL
	}
	if cfg.NewsURL == "" {
		cfg.NewsURL = DefaultNewsURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if cfg.Backend == "" {
		cfg.Backend = "auto"
	}
	if err := CheckBackend(cfg.Backend); err != nil {
		return nil, err
	}
	if cfg.HTTP.HTTP == nil {
		return nil, errors.New("websearch: Config.HTTP has no client: build it with webapi.NewClient")
	}
	s := &searcher{cfg: cfg}
	if b, ok := apiBackends[cfg.Backend]; ok {
		s.backend = &b
	}
	fns := tool.Enabled{}
	fns.If(cfg.EnableSearch)(tool.New("web_search", "Use this function to search the web for a query.", s.webSearch))
	fns.If(cfg.EnableNews)(tool.New("search_news", "Use this function to get the latest news from the web.", s.searchNews))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: list, Include: cfg.IncludeTools, Exclude: cfg.ExcludeTools})
}

// CheckBackend is the problem with a backend name, or nil.
func CheckBackend(b string) error {
	for _, ok := range Backends {
		if b == ok {
			return nil
		}
	}
	return fmt.Errorf("websearch: backend %q is not implemented: use one of %s (ddgs's scraping engines yahoo, yandex, mojeek and wikipedia are not ported)", b, strings.Join(Backends, ", "))
}

// CheckTimelimit is agno's check of timelimit.
func CheckTimelimit(t string) error {
	switch t {
	case "", "d", "w", "m", "y":
		return nil
	}
	//lint:ignore ST1005 agno's error text, which the model sees as it is
	return fmt.Errorf("Invalid timelimit '%s'. Must be one of: 'd' (day), 'w' (week), 'm' (month), 'y' (year).", t)
}

type searcher struct {
	cfg Config
	// backend is the API backend, nil for DuckDuckGo.
	backend *apiBackend
}

func (s *searcher) maxResults(n *int) int {
	if s.cfg.FixedMaxResults > 0 {
		return s.cfg.FixedMaxResults
	}
	if n == nil {
		return 5
	}
	return *n
}

// TextResult is ddgs's text result.
type TextResult struct {
	Title string `json:"title"`
	Href  string `json:"href"`
	Body  string `json:"body"`
}

// NewsResult is ddgs's news result.
type NewsResult struct {
	Date   string `json:"date"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	URL    string `json:"url"`
	Image  string `json:"image"`
	Source string `json:"source"`
}

// errNoResults is ddgs's exception when no engine found anything, which
// agno lets through to the model.
//
//lint:ignore ST1005 agno's error text, which the model sees as it is
var errNoResults = errors.New("No results found.")

func (s *searcher) webSearch(ctx context.Context, a searchArgs) (string, error) {
	q := a.Query
	if s.cfg.Modifier != "" {
		q = s.cfg.Modifier + " " + q
	}
	n := s.maxResults(a.MaxResults)
	if b, ok := s.api(); ok {
		results, err := b.text(ctx, s, q, n)
		if err != nil {
			return "", err
		}
		return s.dumpText(results, n)
	}
	form := url.Values{"q": {q}, "b": {""}, "kl": {s.region()}}
	if s.cfg.Timelimit != "" {
		form.Set("df", s.cfg.Timelimit)
	}
	req, err := http.NewRequest(http.MethodPost, s.cfg.HTMLURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	body, err := s.cfg.HTTP.Do(ctx, req)
	if err != nil {
		return "", err
	}
	results, err := ParseHTML(string(body))
	if err != nil {
		return "", err
	}
	if len(results) == 0 && bytes.Contains(body, []byte("anomaly-modal")) {
		// DuckDuckGo answers a challenge page instead of results when it
		// rate-limits (ddgs's RatelimitException).
		return "", errors.New("DuckDuckGo rate-limited the search (it answered a challenge page): retry later, or set backend to a search API")
	}
	return s.dumpText(results, n)
}

func (s *searcher) dumpText(results []TextResult, n int) (string, error) {
	if len(results) == 0 {
		return "", errNoResults
	}
	if n >= 0 && len(results) > n {
		results = results[:n]
	}
	return s.dump(results)
}

func (s *searcher) region() string {
	if s.cfg.Region != "" {
		return s.cfg.Region
	}
	return "wt-wt"
}

func (s *searcher) dump(v any) (string, error) {
	out, err := pyjson.DumpsOpts(v, pyjson.Options{Indent: 2})
	if err != nil {
		return "", err
	}
	return webapi.Bound(out, s.cfg.MaxResultBytes), nil
}

var vqdRE = regexp.MustCompile(`vqd=["']?([0-9-]+)`)

func (s *searcher) searchNews(ctx context.Context, a searchArgs) (string, error) {
	n := s.maxResults(a.MaxResults)
	if b, ok := s.api(); ok {
		if b.news == nil {
			return "", fmt.Errorf("websearch: backend %q has no news search: use duckduckgo, bing, brave, searxng, serper, tavily or you for search_news", s.cfg.Backend)
		}
		out, err := b.news(ctx, s, a.Query, n)
		if err != nil {
			return "", err
		}
		if len(out) == 0 {
			return "", errNoResults
		}
		if n >= 0 && len(out) > n {
			out = out[:n]
		}
		return s.dump(out)
	}
	base := strings.TrimSuffix(s.cfg.NewsURL, "/")
	// news.js wants the vqd token DuckDuckGo's search page carries.
	page, err := s.cfg.HTTP.Get(ctx, base+"/?"+url.Values{"q": {a.Query}}.Encode(), nil)
	if err != nil {
		return "", err
	}
	m := vqdRE.FindSubmatch(page)
	if m == nil {
		//lint:ignore ST1005 ddgs's error text, which agno hands the model as it is
		return "", fmt.Errorf("_get_vqd() keywords=%s Could not extract vqd.", a.Query)
	}
	params := url.Values{"l": {s.region()}, "o": {"json"}, "noamp": {"1"}, "q": {a.Query}, "vqd": {string(m[1])}, "p": {"-1"}}
	if s.cfg.Timelimit != "" {
		params.Set("df", s.cfg.Timelimit)
	}
	var resp struct {
		Results []struct {
			Date    json.Number `json:"date"`
			Title   string      `json:"title"`
			Excerpt string      `json:"excerpt"`
			URL     string      `json:"url"`
			Image   string      `json:"image"`
			Source  string      `json:"source"`
		} `json:"results"`
	}
	if err := s.cfg.HTTP.GetJSON(ctx, base+"/news.js?"+params.Encode(), nil, &resp); err != nil {
		return "", err
	}
	var out []NewsResult
	for _, r := range resp.Results {
		if r.URL == "" {
			continue
		}
		out = append(out, NewsResult{Date: isoDate(r.Date), Title: clean(r.Title), Body: clean(r.Excerpt), URL: r.URL, Image: r.Image, Source: r.Source})
		if len(out) == n {
			break
		}
	}
	if len(out) == 0 {
		return "", errNoResults
	}
	return s.dump(out)
}

// isoDate is ddgs's date: the epoch seconds as UTC ISO 8601.
func isoDate(n json.Number) string {
	sec, err := n.Int64()
	if err != nil {
		return n.String()
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05+00:00")
}

// clean is ddgs's normalisation of a text: tags dropped, entities
// unescaped, whitespace collapsed.
func clean(s string) string {
	if strings.ContainsAny(s, "<&") {
		if doc, err := html.Parse(strings.NewReader("<body>" + s)); err == nil {
			s = text(doc)
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// ParseHTML reads the results of DuckDuckGo's HTML endpoint as ddgs
// does: each div whose class contains "body" is one, its title the h2's
// text, its href and body the direct child link's. Ads (y.js links) and
// results without a link are dropped, duplicates kept once, and
// DuckDuckGo's /l/?uddg= redirects resolved to their target.
func ParseHTML(page string) ([]TextResult, error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: the HTML answer does not parse: %w", err)
	}
	var out []TextResult
	seen := map[string]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "div" && strings.Contains(attr(n, "class"), "body") {
			r := TextResult{}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type != html.ElementNode {
					continue
				}
				switch c.Data {
				case "a":
					if r.Href == "" {
						r.Href = resolve(attr(c, "href"))
						r.Body = clean(text(c))
					}
				}
			}
			r.Title = clean(h2Text(n))
			if r.Href != "" && !strings.Contains(r.Href, "duckduckgo.com/y.js") && !seen[r.Href] {
				seen[r.Href] = true
				out = append(out, r)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out, nil
}

func h2Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "h2" {
			b.WriteString(text(n))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// resolve turns DuckDuckGo's redirect link into its target.
func resolve(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") && u.Path == "/l/" {
		if t := u.Query().Get("uddg"); t != "" {
			return t
		}
	}
	return href
}
