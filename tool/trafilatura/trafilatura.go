// Package trafilatura is agno's TrafilaturaTools: the readable text and
// the metadata of web pages, one or a batch, plain text from HTML, and a
// bounded crawl of one site. agno runs the trafilatura library; this port
// finds the article with go-readability and writes trafilatura's output
// formats txt, markdown, json and html. Every page is fetched through the
// host's guarded client, one at a time, bounded in time and size.
package trafilatura

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/article"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "trafilatura".
const ToolkitName = "trafilatura_tools"

// Config configures the toolkit.
type Config struct {
	Options
	Timeout time.Duration
	// Client fetches the pages: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type extractTextArgs struct {
	URL          string  `json:"url" description:"(str) The URL to extract content from."`
	OutputFormat *string `json:"output_format,omitempty" description:"(Optional[str]) Output format. Options: 'txt', 'json', 'xml', 'markdown', 'csv', 'html', 'xmltei'."`
}

type metadataArgs struct {
	URL    string `json:"url" description:"(str) The URL to extract metadata from."`
	AsJSON *bool  `json:"as_json,omitempty" description:"(bool) Whether to return metadata as JSON string."`
}

type crawlArgs struct {
	HomepageURL    string `json:"homepage_url" description:"(str) The starting URL (preferably homepage) to crawl from."`
	ExtractContent *bool  `json:"extract_content,omitempty" description:"(bool) Whether to extract content from discovered URLs."`
}

type htmlArgs struct {
	HTMLContent string `json:"html_content" description:"(str) The HTML content to convert."`
	Clean       *bool  `json:"clean,omitempty" description:"(bool) Whether to remove potentially undesirable elements."`
}

type batchArgs struct {
	URLs []string `json:"urls" description:"(List[str]) List of URLs to extract content from."`
}

// Tools is the built toolkit's state.
type Tools struct {
	cfg Config
	log *slog.Logger
}

// New builds agno's TrafilaturaTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("trafilatura: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.OutputFormat == "" {
		cfg.OutputFormat = d.OutputFormat
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Duration(d.Timeout) * time.Second
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = d.MaxBytes
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = d.MaxOutputBytes
	}
	if cfg.MaxCrawlURLs <= 0 {
		cfg.MaxCrawlURLs = d.MaxCrawlURLs
	}
	if cfg.MaxKnownURLs <= 0 {
		cfg.MaxKnownURLs = d.MaxKnownURLs
	}
	t := &Tools{cfg: cfg, log: cfg.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	// go-readability decides what the article is; these trafilatura
	// switches have nothing to act on, and saying so beats ignoring them.
	for _, s := range []struct {
		key      string
		set, def bool
	}{
		{"include_comments", cfg.IncludeComments, true}, {"include_tables", cfg.IncludeTables, true},
		{"include_images", cfg.IncludeImages, false}, {"include_formatting", cfg.IncludeFormatting, false},
		{"include_links", cfg.IncludeLinks, false}, {"favor_precision", cfg.FavorPrecision, false},
		{"favor_recall", cfg.FavorRecall, false}, {"deduplicate", cfg.Deduplicate, false},
	} {
		if s.set != s.def {
			t.log.Warn("trafilatura: the option has no effect in this port: go-readability chooses the article's content", "option", s.key, "value", s.set)
		}
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableExtractText)(tool.New("extract_text", "Extract main text content from a web page URL using Trafilatura.",
		func(ctx context.Context, a extractTextArgs) (string, error) {
			f := cfg.OutputFormat
			if a.OutputFormat != nil {
				f = *a.OutputFormat
			}
			return t.bound(t.ExtractText(ctx, a.URL, f)), nil
		}))
	e.If(cfg.EnableExtractMetadataOnly)(tool.New("extract_metadata_only", "Extract only metadata from a web page URL.",
		func(ctx context.Context, a metadataArgs) (string, error) {
			return t.bound(t.ExtractMetadataOnly(ctx, a.URL, a.AsJSON == nil || *a.AsJSON)), nil
		}))
	e.If(cfg.EnableHTMLToText)(tool.New("html_to_text", "Convert HTML content to plain text using Trafilatura's html2txt function.",
		func(_ context.Context, a htmlArgs) (string, error) {
			return t.bound(t.HTMLToText(a.HTMLContent, a.Clean == nil || *a.Clean)), nil
		}))
	e.If(cfg.EnableExtractBatch)(tool.New("extract_batch", "Extract content from multiple URLs in batch.",
		func(ctx context.Context, a batchArgs) (string, error) {
			return t.bound(t.ExtractBatch(ctx, a.URLs)), nil
		}))
	e.If(cfg.EnableCrawlWebsite)(tool.New("crawl_website", "Crawl a website and optionally extract content from discovered pages.",
		func(ctx context.Context, a crawlArgs) (string, error) {
			return t.bound(t.CrawlWebsite(ctx, a.HomepageURL, a.ExtractContent != nil && *a.ExtractContent)), nil
		}))
	fns, err := e.Functions()
	if err != nil {
		return nil, fmt.Errorf("trafilatura: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

func (t *Tools) bound(s string) string { return webfetch.Bound(s, t.cfg.MaxOutputBytes) }

// page is a fetched page: trafilatura's fetch_url gives one only for a
// 200 answer.
type page struct {
	url  *url.URL
	resp *webfetch.Response
}

func (t *Tools) fetch(ctx context.Context, u string) (*page, error) {
	resp, err := webfetch.Do(ctx, t.cfg.Client, webfetch.Request{URL: u, Timeout: t.cfg.Timeout, MaxBytes: t.cfg.MaxBytes})
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, resp.StatusError()
	}
	if len(resp.Body) == 0 {
		return nil, fmt.Errorf("%s answered with an empty body", u)
	}
	return &page{url: resp.URL, resp: resp}, nil
}

// extracted is trafilatura's document: metadata and text.
type extracted struct {
	a        *article.Article
	url      *url.URL
	text     string
	isPlain  bool
	filedate string
}

// extract is trafilatura's extract on a fetched page: nil when the page
// has no readable content (or not in target_language).
func (t *Tools) extract(p *page) *extracted {
	x := &extracted{url: p.url, filedate: time.Now().Format("2006-01-02")}
	switch {
	case p.resp.IsHTML():
		a, err := article.Parse(p.resp.Body, p.url)
		if err != nil || strings.TrimSpace(a.Text) == "" {
			return nil
		}
		if lang := t.cfg.TargetLanguage; lang != "" && a.Language != "" && !strings.EqualFold(strings.SplitN(a.Language, "-", 2)[0], lang) {
			return nil
		}
		x.a, x.text = a, a.Text
	case p.resp.IsText():
		x.a, x.text, x.isPlain = &article.Article{}, strings.TrimSpace(string(p.resp.Body)), true
		if x.text == "" {
			return nil
		}
	default:
		return nil
	}
	return x
}

func (x *extracted) date() string {
	if x.a.Published.IsZero() {
		return ""
	}
	return x.a.Published.Format("2006-01-02")
}

func (x *extracted) author() string { return strings.Join(x.a.Authors, "; ") }

// render writes the document in one of trafilatura's output formats.
func (t *Tools) render(x *extracted, format string) (string, error) {
	switch format {
	case "txt", "markdown":
		if !t.cfg.WithMetadata {
			return x.text, nil
		}
		var b strings.Builder
		b.WriteString("---\n")
		for _, kv := range [][2]string{{"title", x.a.Title}, {"author", x.author()}, {"url", x.url.String()}, {"hostname", x.url.Hostname()},
			{"description", x.a.Excerpt}, {"sitename", x.a.SiteName}, {"date", x.date()}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
			}
		}
		b.WriteString("---\n")
		b.WriteString(x.text)
		return b.String(), nil
	case "html":
		body := x.a.HTML
		if x.isPlain || body == "" {
			body = "<p>" + html.EscapeString(x.text) + "</p>"
		}
		head := ""
		if t.cfg.WithMetadata {
			head = "<head><title>" + html.EscapeString(x.a.Title) + "</title></head>"
		}
		return "<html>" + head + "<body>" + body + "</body></html>", nil
	case "json":
		return pyjson.DumpsOpts(jsonDoc{
			Title: nullable(x.a.Title), Author: nullable(x.author()), Hostname: nullable(x.url.Hostname()), Date: nullable(x.date()),
			RawText: nullable(x.text), Text: x.text, Language: nullable(x.a.Language), Image: nullable(x.a.Image),
			Filedate: x.filedate, Source: x.url.String(), SourceHostname: nullable(x.a.SiteName), Excerpt: nullable(x.a.Excerpt),
			Categories: "", Tags: "",
		}, pyjson.Options{NoEnsureASCII: true})
	}
	return "", fmt.Errorf("output format %q is not supported here: use one of %s (trafilatura also writes %s)",
		format, strings.Join(Formats, ", "), strings.Join(slices.DeleteFunc(slices.Clone(agnoFormats), func(f string) bool { return slices.Contains(Formats, f) }), ", "))
}

// jsonDoc is trafilatura's JSON output, its keys in trafilatura's order.
type jsonDoc struct {
	Title          *string `json:"title"`
	Author         *string `json:"author"`
	Hostname       *string `json:"hostname"`
	Date           *string `json:"date"`
	Fingerprint    *string `json:"fingerprint"`
	ID             *string `json:"id"`
	License        *string `json:"license"`
	Comments       string  `json:"comments"`
	RawText        *string `json:"raw_text"`
	Text           string  `json:"text"`
	Language       *string `json:"language"`
	Image          *string `json:"image"`
	Pagetype       *string `json:"pagetype"`
	Filedate       string  `json:"filedate"`
	Source         string  `json:"source"`
	SourceHostname *string `json:"source-hostname"`
	Excerpt        *string `json:"excerpt"`
	Categories     string  `json:"categories"`
	Tags           string  `json:"tags"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ExtractText is agno's extract_text.
func (t *Tools) ExtractText(ctx context.Context, u, format string) string {
	t.log.Debug("Extracting text from URL: " + u)
	p, err := t.fetch(ctx, u)
	if err != nil {
		t.log.Warn("trafilatura: fetching failed", "url", u, "error", err)
		return "Error: Could not fetch content from URL: " + u
	}
	x := t.extract(p)
	if x == nil {
		return "Error: Could not extract readable content from URL: " + u
	}
	out, err := t.render(x, format)
	if err != nil {
		t.log.Warn(fmt.Sprintf("Error extracting text from %s: %v", u, err))
		return fmt.Sprintf("Error extracting text from %s: %v", u, err)
	}
	return out
}

// metaKeys are trafilatura's Document slots, the keys of as_dict().
var metaKeys = []string{"title", "author", "url", "hostname", "description", "sitename", "date", "categories", "tags",
	"fingerprint", "id", "license", "body", "comments", "commentsbody", "raw_text", "text", "language", "image", "pagetype", "filedate"}

// ExtractMetadataOnly is agno's extract_metadata_only.
func (t *Tools) ExtractMetadataOnly(ctx context.Context, u string, asJSON bool) string {
	t.log.Debug("Extracting metadata from URL: " + u)
	p, err := t.fetch(ctx, u)
	if err != nil {
		t.log.Warn("trafilatura: fetching failed", "url", u, "error", err)
		return "Error: Could not fetch content from URL: " + u
	}
	if !p.resp.IsHTML() {
		return "Error: Could not extract metadata from URL: " + u
	}
	a, err := article.Parse(p.resp.Body, p.url)
	if err != nil {
		return "Error: Could not extract metadata from URL: " + u
	}
	x := &extracted{a: a, url: p.url}
	vals := map[string]any{
		"title": nullableAny(a.Title), "author": nullableAny(x.author()), "url": u, "hostname": nullableAny(p.url.Hostname()),
		"description": nullableAny(a.Excerpt), "sitename": nullableAny(a.SiteName), "date": nullableAny(x.date()),
		"categories": []any{}, "tags": []any{}, "language": nullableAny(a.Language), "image": nullableAny(a.Image),
		"filedate": time.Now().Format("2006-01-02"),
	}
	// as_dict(): every slot, in order, null when unset.
	m := newOrdered()
	for _, k := range metaKeys {
		m.set(k, vals[k])
	}
	if asJSON {
		out, err := pyjson.DumpsOpts(m, pyjson.Options{Indent: 2})
		if err != nil {
			return fmt.Sprintf("Error extracting metadata from %s: %v", u, err)
		}
		return out
	}
	lines := make([]string, len(metaKeys))
	for i, k := range metaKeys {
		lines[i] = k + ": " + pyStr(vals[k])
	}
	return strings.Join(lines, "\n")
}

func nullableAny(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// pyStr is Python's str() in an f-string: strings as they are, the rest
// as repr.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyrepr.Repr(v)
}

// cleaned are the elements html2txt's clean=True drops (trafilatura's
// MANUALLY_CLEANED): page furniture, media and forms, never article text.
var cleaned = map[atom.Atom]bool{
	atom.Aside: true, atom.Embed: true, atom.Footer: true, atom.Form: true, atom.Head: true, atom.Iframe: true, atom.Menu: true,
	atom.Object: true, atom.Script: true, atom.Applet: true, atom.Audio: true, atom.Canvas: true, atom.Figure: true, atom.Map: true,
	atom.Picture: true, atom.Svg: true, atom.Video: true, atom.Area: true, atom.Blink: true, atom.Button: true, atom.Datalist: true,
	atom.Dialog: true, atom.Frame: true, atom.Frameset: true, atom.Fieldset: true, atom.Link: true, atom.Input: true, atom.Ins: true,
	atom.Label: true, atom.Legend: true, atom.Marquee: true, atom.Math: true, atom.Menuitem: true, atom.Nav: true, atom.Noscript: true,
	atom.Optgroup: true, atom.Option: true, atom.Output: true, atom.Param: true, atom.Progress: true, atom.Rp: true, atom.Rt: true,
	atom.Rtc: true, atom.Select: true, atom.Source: true, atom.Style: true, atom.Track: true, atom.Textarea: true, atom.Time: true,
}

// HTMLToText is agno's html_to_text: html2txt, the body's text with its
// whitespace collapsed.
func (t *Tools) HTMLToText(content string, clean bool) string {
	t.log.Debug("Converting HTML to text")
	if int64(len(content)) > t.cfg.MaxBytes {
		return fmt.Sprintf("Error converting HTML to text: the HTML is %d bytes, more than max_bytes (%d)", len(content), t.cfg.MaxBytes)
	}
	root, err := html.Parse(strings.NewReader(content))
	if err != nil {
		return "Error converting HTML to text: " + err.Error()
	}
	body := find(root, func(n *html.Node) bool { return n.Type == html.ElementNode && n.DataAtom == atom.Body })
	if body == nil {
		body = root
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		case html.ElementNode:
			if clean && cleaned[n.DataAtom] {
				return
			}
		case html.CommentNode:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(body)
	if out := strings.Join(strings.Fields(b.String()), " "); out != "" {
		return out
	}
	return "Error: Could not extract text from HTML content"
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, match); f != nil {
			return f
		}
	}
	return nil
}

// orderedMap is a Python dict built in insertion order.
type orderedMap struct {
	keys []string
	vals map[string]any
}

func newOrdered() *orderedMap { return &orderedMap{vals: map[string]any{}} }

func (m *orderedMap) set(k string, v any) *orderedMap {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
	return m
}

func (m *orderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := jsonMarshal(k)
		vb, err := jsonMarshal(m.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// extractOne fetches and extracts u in the toolkit's output format: the
// content, or "" when there is none.
func (t *Tools) extractOne(ctx context.Context, u string) (string, error) {
	p, err := t.fetch(ctx, u)
	if err != nil {
		t.log.Warn("trafilatura: fetching failed", "url", u, "error", err)
		return "", nil
	}
	x := t.extract(p)
	if x == nil {
		return "", nil
	}
	return t.render(x, t.cfg.OutputFormat)
}

// ExtractBatch is agno's extract_batch, the URLs read one after another.
func (t *Tools) ExtractBatch(ctx context.Context, urls []string) string {
	t.log.Debug(fmt.Sprintf("Starting batch extraction for %d URLs", len(urls)))
	results := newOrdered()
	failed := []any{}
	errorsN := 0
	for _, u := range urls {
		content, err := t.extractOne(ctx, u)
		switch {
		case err != nil:
			failed = append(failed, u)
			results.set(u, "Error: "+err.Error())
			errorsN++
		case content == "":
			failed = append(failed, u)
		default:
			results.set(u, content)
		}
	}
	out, err := pyjson.DumpsOpts(newOrdered().
		set("successful_extractions", len(results.keys)-errorsN).
		set("failed_extractions", len(failed)).
		set("total_urls", len(urls)).
		set("results", results).
		set("failed_urls", failed), pyjson.Options{Indent: 2})
	if err != nil {
		return "Error in batch extraction: " + err.Error()
	}
	return out
}

// CrawlWebsite is agno's crawl_website, trafilatura's focused_crawler
// as a bounded crawl: pages of the homepage's host only, one request at
// a time, at most max_crawl_urls pages visited and max_known_urls links
// kept; to_visit are the known links not visited.
func (t *Tools) CrawlWebsite(ctx context.Context, homepage string, extractContent bool) string {
	t.log.Debug("Starting website crawl from: " + homepage)
	start, err := url.Parse(homepage)
	if err != nil || (start.Scheme != "http" && start.Scheme != "https") || start.Host == "" {
		return fmt.Sprintf("Error crawling website %s: not an http or https URL", homepage)
	}
	start.Fragment = ""
	known := []string{start.String()}
	isKnown := map[string]bool{start.String(): true}
	visited := map[string]bool{}
	var firstErr error
	for i := 0; i < len(known) && len(visited) < t.cfg.MaxCrawlURLs; i++ {
		if ctx.Err() != nil {
			break
		}
		u := known[i]
		visited[u] = true
		p, err := t.fetch(ctx, u)
		if err != nil {
			if i == 0 {
				firstErr = err
			}
			t.log.Warn("trafilatura: crawling a page failed", "url", u, "error", err)
			continue
		}
		if !p.resp.IsHTML() {
			continue
		}
		for _, l := range links(p.resp.Body, p.url) {
			if l.Host != start.Host || isKnown[l.String()] || len(known) >= t.cfg.MaxKnownURLs || skipped(l.Path) {
				continue
			}
			isKnown[l.String()] = true
			known = append(known, l.String())
		}
	}
	if firstErr != nil {
		return fmt.Sprintf("Error crawling website %s: %v", homepage, firstErr)
	}
	toVisit := []any{}
	knownAny := make([]any, len(known))
	for i, k := range known {
		knownAny[i] = k
		if !visited[k] {
			toVisit = append(toVisit, k)
		}
	}
	res := newOrdered().set("homepage", homepage).set("to_visit", toVisit).set("known_links", knownAny).
		set("stats", newOrdered().set("urls_to_visit", len(toVisit)).set("known_links_count", len(known)))
	if extractContent && len(known) > 0 {
		content := newOrdered()
		for _, u := range known[:min(10, len(known))] {
			c, err := t.extractOne(ctx, u)
			switch {
			case err != nil:
				content.set(u, "Error extracting content: "+err.Error())
			case c != "":
				content.set(u, c)
			}
		}
		res.set("extracted_content", content)
	}
	out, err := pyjson.DumpsOpts(res, pyjson.Options{Indent: 2})
	if err != nil {
		return fmt.Sprintf("Error crawling website %s: %v", homepage, err)
	}
	return out
}

func skipped(p string) bool {
	p = strings.ToLower(p)
	for _, ext := range []string{".pdf", ".jpg", ".jpeg", ".png", ".gif", ".svg", ".webp", ".zip", ".gz", ".mp3", ".mp4", ".css", ".js", ".xml", ".ico"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// links are a page's <a href> targets, absolute, without fragments.
func links(page []byte, base *url.URL) []*url.URL {
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
				if ref, err := url.Parse(strings.TrimSpace(a.Val)); err == nil {
					l := base.ResolveReference(ref)
					l.Fragment, l.RawFragment = "", ""
					if l.Scheme == "http" || l.Scheme == "https" {
						out = append(out, l)
					}
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

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
