package reader

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/netguard"
)

// DefaultMaxPageBytes bounds how much of one web page is read.
const DefaultMaxPageBytes = 10 << 20

// DefaultTimeout is agno's WebsiteReader timeout.
const DefaultTimeout = 10 * time.Second

func init() {
	Register(KeyHTML, Spec{
		Name: "HTML Reader", Description: "Extracts the main text content of HTML pages",
		ContentTypes: []string{"url", "file", ".html", ".htm", "text/html"},
		Chunkers:     []string{chunk.TypeDocument, chunk.TypeRecursive, chunk.TypeFixedSize},
		New: func(o FactoryOptions) (Reader, error) {
			return NewHTML(HTMLOptions{Options: o.Options, HTTPClient: o.HTTPClient, MaxBytes: o.MaxBytes})
		},
	})
	Register(KeyWebsite, Spec{
		Name: "Website Reader", Description: "Scrapes and extracts content from web pages with HTML parsing and text cleaning",
		ContentTypes: []string{"url"},
		Chunkers:     []string{chunk.TypeDocument, chunk.TypeRecursive, chunk.TypeFixedSize},
		New: func(o FactoryOptions) (Reader, error) {
			return NewWebsite(WebsiteOptions{Options: o.Options, HTTPClient: o.HTTPClient, MaxBytes: o.MaxBytes, Logger: o.Logger})
		},
	})
}

// HTMLOptions configures an HTML reader.
type HTMLOptions struct {
	Options
	// HTTPClient fetches Source.URL; nil uses DefaultClient.
	HTTPClient *http.Client
	// MaxBytes bounds a fetched page; zero means DefaultMaxPageBytes.
	MaxBytes int64
}

// HTML reads one HTML page from a file, bytes or a URL and keeps its main
// content the way agno's WebsiteReader does: the first <article>, <main>
// or <section> (or element with a content class or id), else the whole
// page, without script, style, nav, header and footer, as text pieces
// joined by spaces. A fetched page has its URL in "url" metadata. Chunked
// by FixedSize by default.
type HTML struct {
	chunking chunking
	client   *http.Client
	maxBytes int64
}

// NewHTML returns an HTML reader.
func NewHTML(o HTMLOptions) (*HTML, error) {
	c, err := newChunking(o.Options, fixedSize)
	return &HTML{chunking: c, client: clientOr(o.HTTPClient), maxBytes: maxOr(o.MaxBytes)}, err
}

// ClassName implements ClassNamer.
func (*HTML) ClassName() string { return "HTMLReader" }

// Read implements Reader.
func (r *HTML) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	var (
		data []byte
		meta = map[string]any{}
		name = src.name("html_file")
		err  error
	)
	if src.Data == nil && src.Path == "" && src.URL != "" {
		data, _, err = fetch(ctx, r.client, src.URL, r.maxBytes)
		meta["url"] = src.URL
		name = cmp.Or(src.Name, src.URL)
	} else {
		data, err = src.bytes()
	}
	if err != nil {
		return nil, err
	}
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reader: html %s: %w", name, err)
	}
	doc := &document.Document{Name: name, ID: uuid.NewString(), MetaData: meta, Content: MainText(root)}
	return r.chunking.apply(ctx, []*document.Document{doc})
}

// WebsiteOptions configures a Website reader.
type WebsiteOptions struct {
	Options
	// MaxDepth is how many links deep the crawl goes; zero means 3.
	MaxDepth int
	// MaxLinks is how many pages with content are kept; zero means 10.
	MaxLinks int
	// HTTPClient fetches pages; nil uses DefaultClient.
	HTTPClient *http.Client
	// MaxBytes bounds each page; zero means DefaultMaxPageBytes.
	MaxBytes int64
	Logger   *slog.Logger
}

// Website is agno's WebsiteReader: it crawls from a URL breadth-first,
// staying on the start URL's primary domain (its last two host labels),
// skipping links to .pdf, .jpg and .png files, and makes one document per
// page with content (id and "url" metadata are the page URL, name the
// Source name or the start URL). Chunked by FixedSize by default.
//
// Unlike agno, fragments are dropped from links, so "page#a" and "page#b"
// are one page.
type Website struct {
	chunking chunking
	client   *http.Client
	maxDepth int
	maxLinks int
	maxBytes int64
	log      *slog.Logger
}

// NewWebsite returns a website reader.
func NewWebsite(o WebsiteOptions) (*Website, error) {
	c, err := newChunking(o.Options, fixedSize)
	w := &Website{chunking: c, client: clientOr(o.HTTPClient), maxDepth: o.MaxDepth, maxLinks: o.MaxLinks, maxBytes: maxOr(o.MaxBytes), log: o.Logger}
	if w.maxDepth == 0 {
		w.maxDepth = 3
	}
	if w.maxLinks == 0 {
		w.maxLinks = 10
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	return w, err
}

// ClassName implements ClassNamer.
func (*Website) ClassName() string { return "WebsiteReader" }

// Read implements Reader.
func (w *Website) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	if src.URL == "" {
		return nil, fmt.Errorf("%w: the website reader needs a URL", ErrNoInput)
	}
	pages, err := w.crawl(ctx, src.URL)
	if err != nil {
		return nil, err
	}
	name := cmp.Or(src.Name, src.URL)
	var out []*document.Document
	for _, p := range pages {
		doc := &document.Document{Name: name, ID: p.url, MetaData: map[string]any{"url": p.url}, Content: p.text}
		chunks, err := w.chunking.apply(ctx, []*document.Document{doc})
		if err != nil {
			return nil, err
		}
		out = append(out, chunks...)
	}
	return out, nil
}

type page struct{ url, text string }

type queued struct {
	url   string
	depth int
}

func (w *Website) crawl(ctx context.Context, start string) ([]page, error) {
	startURL, err := url.Parse(start)
	if err != nil || startURL.Host == "" {
		return nil, fmt.Errorf("reader: invalid URL %q", start)
	}
	domain := primaryDomain(startURL.Host)
	visited := map[string]bool{}
	queue := []queued{{start, 1}}
	var pages []page
	for len(queue) > 0 && len(pages) < w.maxLinks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cur := queue[0]
		queue = queue[1:]
		u, err := url.Parse(cur.url)
		if err != nil || visited[cur.url] || !strings.HasSuffix(u.Host, domain) || (cur.depth > w.maxDepth && cur.url != start) {
			continue
		}
		visited[cur.url] = true
		body, finalURL, err := fetch(ctx, w.client, cur.url, w.maxBytes)
		if err != nil {
			if cur.url == start {
				return nil, err
			}
			w.log.Warn("knowledge: crawling a page failed", "url", cur.url, "error", err)
			continue
		}
		root, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			w.log.Warn("knowledge: parsing a page failed", "url", cur.url, "error", err)
			continue
		}
		if text := MainText(root); text != "" {
			pages = append(pages, page{cur.url, text})
		}
		for _, href := range links(root) {
			ref, err := url.Parse(href)
			if err != nil {
				continue
			}
			next := finalURL.ResolveReference(ref)
			next.Fragment, next.RawFragment = "", ""
			if !strings.HasSuffix(next.Host, domain) || skippedFile(next.Path) {
				continue
			}
			s := next.String()
			q := queued{s, cur.depth + 1}
			if !visited[s] && !slices.Contains(queue, q) {
				queue = append(queue, q)
			}
		}
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("reader: failed to extract any content from %s", start)
	}
	return pages, nil
}

// primaryDomain is agno's _get_primary_domain: the last two dot-separated
// labels of the host (port included, as in urlparse's netloc).
func primaryDomain(host string) string {
	parts := strings.Split(host, ".")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ".")
}

func skippedFile(p string) bool {
	return strings.HasSuffix(p, ".pdf") || strings.HasSuffix(p, ".jpg") || strings.HasSuffix(p, ".png")
}

// DefaultClient returns the client readers fetch with when given none: a
// netguard client with DefaultTimeout that refuses every internal
// address, since the URLs readers fetch come from callers and models.
// It is one client for all, so connections are pooled across readers.
func DefaultClient() *http.Client { return defaultClient() }

var defaultClient = sync.OnceValue(func() *http.Client {
	g, err := netguard.New(netguard.Policy{})
	if err != nil {
		panic(err) // a Policy without Allow entries always compiles
	}
	return g.Client(DefaultTimeout)
})

func clientOr(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return DefaultClient()
}

func maxOr(n int64) int64 {
	if n > 0 {
		return n
	}
	return DefaultMaxPageBytes
}

// fetch GETs u and returns at most limit bytes of the body and the URL
// after redirects. Statuses of 400 and above are errors.
func fetch(ctx context.Context, c *http.Client, u string, limit int64) ([]byte, *url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("reader: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		// A *url.Error of u itself would name u twice; one of a redirect
		// target stays, to say where the redirect led.
		if ue := (*url.Error)(nil); errors.As(err, &ue) && ue.URL == u {
			err = ue.Err
		}
		return nil, nil, fmt.Errorf("reader: fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, nil, fmt.Errorf("reader: fetching %s: HTTP %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reader: reading %s: %w", u, err)
	}
	if int64(len(body)) > limit {
		return nil, nil, fmt.Errorf("reader: %s is larger than %d bytes", u, limit)
	}
	return body, resp.Request.URL, nil
}

// Fetch downloads a URL with the same limits the readers use; a Knowledge
// uses it for URLs that name a file. A nil c is DefaultClient.
func Fetch(ctx context.Context, c *http.Client, u string, maxBytes int64) ([]byte, error) {
	b, _, err := fetch(ctx, clientOr(c), u, maxOr(maxBytes))
	return b, err
}

var contentClasses = []string{"content", "main-content", "post-content", "entry-content", "article-body"}

// MainText is agno's WebsiteReader._extract_main_content on a parsed
// page: the text of the first main-content element, else of the whole
// page, leaving out script, style, nav, header and footer; text pieces
// are stripped and joined by one space (BeautifulSoup's
// get_text(strip=True, separator=" ")).
func MainText(root *html.Node) string {
	node := find(root, isMainContent)
	if node == nil {
		node = root
	}
	var parts []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if s := strings.TrimFunc(n.Data, textutil.IsSpace); s != "" {
				parts = append(parts, s)
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Nav, atom.Header, atom.Footer:
				return
			}
		case html.CommentNode, html.DoctypeNode:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(node)
	return strings.Join(parts, " ")
}

func isMainContent(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.Article, atom.Main, atom.Section:
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			for _, c := range strings.Fields(a.Val) {
				if slices.Contains(contentClasses, c) {
					return true
				}
			}
		case "id":
			if a.Val == "content" || a.Val == "main" || a.Val == "article" {
				return true
			}
		}
	}
	return false
}

// find returns the first node in document order that matches.
func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := find(c, match); found != nil {
			return found
		}
	}
	return nil
}

func links(root *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			for _, a := range n.Attr {
				if a.Key == "href" {
					out = append(out, a.Val)
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
