// Package crawl4ai is agno's Crawl4aiTools: crawl reads one URL or a list
// of them and returns each page's main content as Markdown, filtered to
// the passages matching search_query (BM25) when one is given, cut to
// max_length characters. agno drives a headless browser through crawl4ai;
// this port fetches through the host's guarded client and finds the
// content with go-readability, so pages that need JavaScript come back
// without it. With max_depth above 0 it also follows links on the same
// host, politely: one request at a time, at most max_pages pages.
package crawl4ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/article"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "crawl4ai".
const ToolkitName = "crawl4ai_tools"

// Options are the keys of [toolkits.crawl4ai]: agno's Crawl4aiTools
// arguments that apply without a browser (max_length 0 is agno's None),
// and the crawl's bounds.
type Options struct {
	MaxLength        int     `toml:"max_length"`
	Timeout          float64 `toml:"timeout"`
	UsePruning       bool    `toml:"use_pruning"`
	PruningThreshold float64 `toml:"pruning_threshold"`
	BM25Threshold    float64 `toml:"bm25_threshold"`
	EnableCrawl      bool    `toml:"enable_crawl"`
	All              bool    `toml:"all"`
	// MaxDepth is how many links deep crawl follows from each URL on the
	// same host; 0 (agno's behaviour) reads only the URLs given.
	MaxDepth int `toml:"max_depth"`
	// MaxPages bounds the pages one call fetches.
	MaxPages int `toml:"max_pages"`
	// MaxBytes bounds each page's body.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxOutputBytes bounds the result when max_length is 0.
	MaxOutputBytes int `toml:"max_output_bytes"`
}

// Defaults are agno's defaults and this port's bounds.
func Defaults() Options {
	return Options{MaxLength: 5000, Timeout: 60, PruningThreshold: 0.48, BM25Threshold: 1.0, EnableCrawl: true,
		MaxPages: 10, MaxBytes: 5 << 20, MaxOutputBytes: 200_000}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "crawl4ai",
		Summary:  "crawl: pages as Markdown, optionally filtered by a query and following same-host links within bounds (agno's Crawl4aiTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.MaxLength < 0 {
				errs = append(errs, tool.OptionErrorf("max_length", "max_length = %d: use a positive number of characters, or 0 for no cut (agno's default is 5000)", o.MaxLength))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds (agno's default is 60)", o.Timeout))
			}
			if o.PruningThreshold < 0 || o.PruningThreshold > 1 {
				errs = append(errs, tool.OptionErrorf("pruning_threshold", "pruning_threshold = %g: use a value from 0 to 1 (agno's default is 0.48)", o.PruningThreshold))
			}
			if o.BM25Threshold < 0 {
				errs = append(errs, tool.OptionErrorf("bm25_threshold", "bm25_threshold = %g: use 0 or more (agno's default is 1.0)", o.BM25Threshold))
			}
			if o.MaxDepth < 0 || o.MaxDepth > 5 {
				errs = append(errs, tool.OptionErrorf("max_depth", "max_depth = %d: use 0 (only the URLs given) to 5", o.MaxDepth))
			}
			if o.MaxPages < 1 || o.MaxPages > 100 {
				errs = append(errs, tool.OptionErrorf("max_pages", "max_pages = %d: use 1 to 100 pages per call (default 10)", o.MaxPages))
			}
			if o.MaxBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_bytes", "max_bytes = %d: use a positive number of bytes (default 5242880)", o.MaxBytes))
			}
			if o.MaxOutputBytes < 1 {
				errs = append(errs, tool.OptionErrorf("max_output_bytes", "max_output_bytes = %d: use a positive number of bytes (default 200000)", o.MaxOutputBytes))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{Options: *o, Client: webfetch.Client(env), Logger: env.Logger})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	Options
	// Client fetches the pages: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

// URLs is agno's url argument, Union[str, List[str]].
type URLs struct {
	List   []string
	Single bool
}

// JSONSchema implements tool.Schemer: agno's schema of the union.
func (URLs) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}`)
}

// UnmarshalJSON takes a string or a list of strings.
func (u *URLs) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*u = URLs{List: []string{s}, Single: true}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("url must be a string or a list of strings")
	}
	*u = URLs{List: l}
	return nil
}

// MarshalJSON writes what was given.
func (u URLs) MarshalJSON() ([]byte, error) {
	if u.Single && len(u.List) == 1 {
		return json.Marshal(u.List[0])
	}
	return json.Marshal(u.List)
}

type crawlArgs struct {
	URL         URLs    `json:"url" description:"Single URL string or list of URLs to crawl"`
	SearchQuery *string `json:"search_query,omitempty" description:"Optional query string to filter content using BM25 algorithm"`
}

// Tools is the built toolkit's state.
type Tools struct {
	cfg Config
	log *slog.Logger
}

// New builds agno's Crawl4aiTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("crawl4ai: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.Timeout <= 0 {
		cfg.Timeout = d.Timeout
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = d.MaxPages
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
	e.If(cfg.EnableCrawl)(tool.New("crawl", "Crawl URLs and extract their text content.",
		func(ctx context.Context, a crawlArgs) (string, error) {
			q := ""
			if a.SearchQuery != nil {
				q = *a.SearchQuery
			}
			return t.Crawl(ctx, a.URL, q), nil
		}))
	fns, err := e.Functions()
	if err != nil {
		return nil, fmt.Errorf("crawl4ai: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

// Crawl is agno's crawl: one URL's content, or for a list a dict of each
// URL's, written as Python's str() of it.
func (t *Tools) Crawl(ctx context.Context, u URLs, query string) string {
	if len(u.List) == 0 || (u.Single && u.List[0] == "") {
		return "Error: No URL provided"
	}
	budget := t.cfg.MaxPages
	if u.Single {
		return webfetch.Bound(t.crawlOne(ctx, u.List[0], query, &budget), t.cfg.MaxOutputBytes)
	}
	res := &dict{vals: map[string]any{}}
	for _, one := range u.List {
		if _, dup := res.vals[one]; !dup {
			res.keys = append(res.keys, one)
		}
		if budget <= 0 {
			res.vals[one] = fmt.Sprintf("Error crawling %s: max_pages (%d) pages were read in this call", one, t.cfg.MaxPages)
			continue
		}
		res.vals[one] = t.crawlOne(ctx, one, query, &budget)
	}
	return webfetch.Bound(pyrepr.Repr(res), t.cfg.MaxOutputBytes)
}

type dict struct {
	keys []string
	vals map[string]any
}

func (d *dict) Keys() []string     { return d.keys }
func (d *dict) Value(k string) any { return d.vals[k] }

// crawlOne is agno's _async_crawl for one URL, and with max_depth the
// same-host pages its links lead to, breadth-first.
func (t *Tools) crawlOne(ctx context.Context, start, query string, budget *int) string {
	base, err := url.Parse(start)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return fmt.Sprintf("Error crawling %s: not an http or https URL", start)
	}
	type item struct {
		u     string
		depth int
	}
	queue := []item{{start, 0}}
	seen := map[string]bool{start: true}
	var sections []string
	for len(queue) > 0 && *budget > 0 && ctx.Err() == nil {
		it := queue[0]
		queue = queue[1:]
		*budget--
		content, links, err := t.page(ctx, it.u, query)
		if err != nil {
			if it.depth == 0 {
				t.log.Warn("Exception during crawl: " + err.Error())
				return fmt.Sprintf("Error crawling %s: %v", start, err)
			}
			t.log.Warn("crawl4ai: a linked page failed", "url", it.u, "error", err)
			continue
		}
		if content != "" {
			if t.cfg.MaxDepth > 0 {
				content = "## " + it.u + "\n\n" + content
			}
			sections = append(sections, content)
		}
		if it.depth >= t.cfg.MaxDepth {
			continue
		}
		for _, l := range links {
			if l.Host != base.Host || seen[l.String()] {
				continue
			}
			seen[l.String()] = true
			queue = append(queue, item{l.String(), it.depth + 1})
		}
	}
	content := strings.Join(sections, "\n\n")
	if content == "" {
		t.log.Warn("No content extracted", "url", start)
		return "Error: No readable content extracted"
	}
	if t.cfg.MaxLength > 0 {
		if cut := webfetch.CutRunes(content, t.cfg.MaxLength); len(cut) < len(content) {
			content = cut + "..."
		}
	}
	return content
}

// page fetches one page: its Markdown (filtered) and its links.
func (t *Tools) page(ctx context.Context, u, query string) (string, []*url.URL, error) {
	resp, err := webfetch.Do(ctx, t.cfg.Client, webfetch.Request{URL: u, Timeout: time.Duration(t.cfg.Timeout * float64(time.Second)), MaxBytes: t.cfg.MaxBytes})
	if err != nil {
		return "", nil, err
	}
	if err := resp.StatusError(); err != nil {
		return "", nil, err
	}
	if !resp.IsHTML() {
		if resp.IsText() {
			return t.filter(string(resp.Body), query), nil, nil
		}
		return "", nil, fmt.Errorf("the page is %s, which has no text to read", resp.ContentType)
	}
	links := pageLinks(resp.Body, resp.URL)
	a, err := article.Parse(resp.Body, resp.URL)
	if err != nil {
		return "", links, nil
	}
	md := article.Markdown(a.Node)
	// Readability takes the title out of the content; crawl4ai's
	// Markdown of the page starts with it.
	if a.Title != "" && !strings.HasPrefix(md, "# ") {
		md = "# " + a.Title + "\n\n" + md
	}
	return t.filter(md, query), links, nil
}

// filter is crawl4ai's content filtering: with a query, BM25 keeps the
// blocks scoring at least bm25_threshold; with use_pruning, blocks of
// fewer than two words or mostly links are dropped (blocks whose share of
// words in link text exceeds 1 - pruning_threshold).
func (t *Tools) filter(md, query string) string {
	if query == "" && !t.cfg.UsePruning {
		return md
	}
	blocks := strings.Split(md, "\n\n")
	var kept []string
	if query != "" {
		scores := bm25(blocks, tokens(query))
		for i, b := range blocks {
			if scores[i] >= t.cfg.BM25Threshold {
				kept = append(kept, b)
			}
		}
		return strings.Join(kept, "\n\n")
	}
	for _, b := range blocks {
		words := len(strings.Fields(b))
		linkWords := 0
		for _, m := range mdLink.FindAllStringSubmatch(b, -1) {
			linkWords += len(strings.Fields(m[1]))
		}
		if words >= 2 && float64(linkWords)/float64(words) <= 1-t.cfg.PruningThreshold {
			kept = append(kept, b)
		}
	}
	return strings.Join(kept, "\n\n")
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// bm25 scores each block against the query terms (k1 1.2, b 0.75).
func bm25(blocks []string, query []string) []float64 {
	const k1, b = 1.2, 0.75
	docs := make([][]string, len(blocks))
	df := map[string]int{}
	total := 0
	for i, blk := range blocks {
		docs[i] = tokens(blk)
		total += len(docs[i])
		seen := map[string]bool{}
		for _, w := range docs[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	avg := float64(total) / float64(max(len(blocks), 1))
	n := float64(len(blocks))
	scores := make([]float64, len(blocks))
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		for _, q := range query {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
	}
	return scores
}

// pageLinks are a page's <a href> targets, absolute, without fragments,
// skipping files a crawl has no text in.
func pageLinks(page []byte, base *url.URL) []*url.URL {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil
	}
	var out []*url.URL
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			for _, a := range n.Attr {
				if a.Key != "href" {
					continue
				}
				ref, err := url.Parse(strings.TrimSpace(a.Val))
				if err != nil {
					continue
				}
				l := base.ResolveReference(ref)
				l.Fragment, l.RawFragment = "", ""
				p := strings.ToLower(l.Path)
				if (l.Scheme == "http" || l.Scheme == "https") && !strings.HasSuffix(p, ".pdf") && !strings.HasSuffix(p, ".jpg") &&
					!strings.HasSuffix(p, ".png") && !strings.HasSuffix(p, ".zip") {
					out = append(out, l)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
