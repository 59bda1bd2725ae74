// Package llmstxt is agno's LLMsTxtTools: an llms.txt file
// (https://llmstxt.org) as an index of documentation pages a model reads
// one by one, or, with a knowledge base, every linked page loaded into
// it. Every fetch goes through the host's guarded client, bounded in time
// and size; allowed_hosts narrows the hosts further, redirects included.
package llmstxt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch"
)

// ToolkitName is agno's name of the built toolkit; agents list it as
// "llms_txt".
const ToolkitName = "llms_txt_tools"

// Options are the keys of [toolkits.llms_txt], agno's LLMsTxtTools
// arguments (knowledge names a [knowledge.<name>] table; allowed_hosts
// unset is agno's None, every host), plus the bounds of what is read.
type Options struct {
	Knowledge    string   `toml:"knowledge"`
	MaxURLs      int      `toml:"max_urls"`
	Timeout      float64  `toml:"timeout"`
	SkipOptional bool     `toml:"skip_optional"`
	AllowedHosts []string `toml:"allowed_hosts"`
	// MaxBytes bounds each fetched body.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxOutputBytes bounds what a tool returns.
	MaxOutputBytes int `toml:"max_output_bytes"`
}

// Defaults are agno's defaults and this port's bounds.
func Defaults() Options {
	return Options{MaxURLs: 20, Timeout: 60, MaxBytes: 5 << 20, MaxOutputBytes: 200_000}
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name:     "llms_txt",
		Summary:  "get_llms_txt_index and read_llms_txt_url, or read_llms_txt_and_load_knowledge with knowledge set: documentation through llms.txt (agno's LLMsTxtTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Defaults() },
		Check: func(_ tool.ToolkitEnv, o *Options, defined func(string) bool) error {
			var errs []error
			if o.MaxURLs < 1 {
				errs = append(errs, tool.OptionErrorf("max_urls", "max_urls = %d: use 1 or more pages (agno's default is 20)", o.MaxURLs))
			}
			if o.Timeout <= 0 {
				errs = append(errs, tool.OptionErrorf("timeout", "timeout = %g: use a positive number of seconds (agno's default is 60)", o.Timeout))
			}
			for i, h := range o.AllowedHosts {
				if h == "" || strings.ContainsAny(h, "/:@ ") {
					errs = append(errs, tool.OptionErrorf(fmt.Sprintf("allowed_hosts[%d]", i), "allowed_hosts[%d] = %q: give a host name (\"docs.example.com\"), not a URL", i, h))
				}
			}
			if defined("allowed_hosts") && o.AllowedHosts == nil {
				o.AllowedHosts = []string{}
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
			cfg := Config{Options: *o, Client: webfetch.Client(env), Logger: env.Logger}
			if o.Knowledge != "" {
				v, err := env.Lookup(tool.ResourceKnowledge, o.Knowledge)
				if err != nil {
					return nil, tool.OptionErrorf("knowledge", "knowledge = %q: %v", o.Knowledge, err)
				}
				kb, ok := v.(Inserter)
				if !ok || v == (*knowledge.Knowledge)(nil) {
					return nil, tool.OptionErrorf("knowledge", "knowledge = %q: the host gave a %T, not a knowledge base", o.Knowledge, v)
				}
				cfg.KnowledgeBase = kb
			}
			return New(cfg)
		},
	})
}

// Inserter is the knowledge base pages are loaded into;
// *knowledge.Knowledge is one.
type Inserter interface {
	Insert(ctx context.Context, in knowledge.Input) ([]*knowledge.Content, error)
}

// Config configures the toolkit.
type Config struct {
	Options
	// KnowledgeBase, when set, makes the toolkit offer
	// read_llms_txt_and_load_knowledge instead of the two reading tools.
	KnowledgeBase Inserter
	// Client fetches: the guarded client.
	Client *http.Client
	Logger *slog.Logger
}

type indexArgs struct {
	URL string `json:"url" description:"(str) The URL of the llms.txt file (e.g. https://docs.example.com/llms.txt)"`
}

type pageArgs struct {
	URL string `json:"url" description:"(str) The URL of the documentation page to read"`
}

// New builds agno's LLMsTxtTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Client == nil {
		return nil, errors.New("llmstxt: Config.Client is nil: give the guarded client (tool.ToolkitEnv.HTTPClient)")
	}
	d := Defaults()
	if cfg.MaxURLs <= 0 {
		cfg.MaxURLs = d.MaxURLs
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = d.Timeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = d.MaxBytes
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = d.MaxOutputBytes
	}
	r, err := NewReader(ReaderConfig{
		MaxURLs: cfg.MaxURLs, Timeout: time.Duration(cfg.Timeout * float64(time.Second)), SkipOptional: cfg.SkipOptional,
		AllowedHosts: cfg.AllowedHosts, MaxBytes: cfg.MaxBytes, Client: cfg.Client, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	bound := func(s string) string { return webfetch.Bound(s, cfg.MaxOutputBytes) }
	var fns []*tool.Function
	var all []error
	if cfg.KnowledgeBase == nil {
		f1, e1 := tool.New("get_llms_txt_index", "Reads an llms.txt file and returns the index of all available documentation pages.\nUse this to discover what pages are available, then use read_llms_txt_url to fetch specific pages.",
			func(ctx context.Context, a indexArgs) (string, error) { return bound(r.index(ctx, a.URL)), nil })
		f2, e2 := tool.New("read_llms_txt_url", "Fetches and returns the content of a specific documentation page.\nUse this after calling get_llms_txt_index to read pages relevant to the user's question.",
			func(ctx context.Context, a pageArgs) (string, error) { return bound(r.readPage(ctx, a.URL)), nil })
		fns, all = []*tool.Function{f1, f2}, []error{e1, e2}
	} else {
		f, e := tool.New("read_llms_txt_and_load_knowledge", "Reads an llms.txt file, fetches all linked pages, and loads them into the knowledge base.",
			func(ctx context.Context, a indexArgs) (string, error) {
				return r.load(ctx, cfg.KnowledgeBase, a.URL), nil
			})
		fns, all = []*tool.Function{f}, []error{e}
	}
	if err := errors.Join(all...); err != nil {
		return nil, fmt.Errorf("llmstxt: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Logger: cfg.Logger})
}

func (r *Reader) hostAllowed(u string) bool {
	if r.cfg.AllowedHosts == nil {
		return true
	}
	p, err := url.Parse(u)
	if err != nil || p.Hostname() == "" {
		return false
	}
	for _, h := range r.cfg.AllowedHosts {
		if strings.EqualFold(p.Hostname(), h) {
			return true
		}
	}
	return false
}

func refusal(u string) string { return "Host is not in allowed_hosts; refusing to fetch " + u }

// index is agno's get_llms_txt_index.
func (r *Reader) index(ctx context.Context, u string) string {
	if !r.hostAllowed(u) {
		return refusal(u)
	}
	r.log.Info("Reading llms.txt index from " + u)
	content := r.FetchURL(ctx, u)
	if content == "" {
		return "Failed to fetch llms.txt from " + u
	}
	overview, entries := r.ParseLLMsTxt(content, u)
	out, err := pyjson.Dumps(indexJSON{Overview: overview, Pages: entries, TotalPages: len(entries)})
	if err != nil {
		return fmt.Sprintf("Error reading llms.txt index from %s: %v", u, err)
	}
	return out
}

type indexJSON struct {
	Overview   string  `json:"overview"`
	Pages      []Entry `json:"pages"`
	TotalPages int     `json:"total_pages"`
}

// readPage is agno's read_llms_txt_url.
func (r *Reader) readPage(ctx context.Context, u string) string {
	if !r.hostAllowed(u) {
		return refusal(u)
	}
	r.log.Debug("Fetching URL: " + u)
	content := r.FetchURL(ctx, u)
	if content == "" {
		return "Failed to fetch content from " + u
	}
	return content
}

// load is agno's read_llms_txt_and_load_knowledge.
func (r *Reader) load(ctx context.Context, kb Inserter, u string) string {
	if !r.hostAllowed(u) {
		return refusal(u)
	}
	r.log.Info("Reading llms.txt from " + u)
	if _, err := kb.Insert(ctx, knowledge.Input{URL: u, Reader: r}); err != nil {
		return fmt.Sprintf("Error loading knowledge from %s: %v", u, err)
	}
	return fmt.Sprintf("Successfully loaded documentation from %s into the knowledge base", u)
}

// Entry is one link of an llms.txt file.
type Entry struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Section     string `json:"section"`
}

// ReaderConfig configures a Reader.
type ReaderConfig struct {
	MaxURLs      int
	Timeout      time.Duration
	SkipOptional bool
	// AllowedHosts nil allows every host the client reaches.
	AllowedHosts []string
	MaxBytes     int64
	Client       *http.Client
	Logger       *slog.Logger
	// ChunkSize sizes the fixed-size chunks; zero is 5000.
	ChunkSize int
}

// Reader is agno's LLMsTxtReader: the llms.txt file's overview and the
// pages it links, as documents.
type Reader struct {
	cfg     ReaderConfig
	client  *http.Client
	log     *slog.Logger
	chunker chunk.Chunker
}

// NewReader returns an llms.txt reader.
func NewReader(cfg ReaderConfig) (*Reader, error) {
	if cfg.Client == nil {
		return nil, errors.New("llmstxt: ReaderConfig.Client is nil: give the guarded client")
	}
	r := &Reader{cfg: cfg, log: cfg.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	c, err := chunk.NewFixedSize(chunk.Config{Size: cfg.ChunkSize})
	if err != nil {
		return nil, fmt.Errorf("llmstxt: %w", err)
	}
	r.chunker = c
	// Every redirect hop's host is checked against allowed_hosts, as
	// agno's redirect guard does, after the guarded client's own check.
	cc := *cfg.Client
	inner := cfg.Client.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !r.hostAllowed(req.URL.String()) {
			//lint:ignore ST1005 agno's error text, which the model sees as it is
			return fmt.Errorf("Host not in allowed_hosts: %s", req.URL.Hostname())
		}
		if inner != nil {
			return inner(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	r.client = &cc
	return r, nil
}

// ClassName implements reader.ClassNamer.
func (*Reader) ClassName() string { return "LLMsTxtReader" }

var (
	linkRE    = regexp.MustCompile(`^-\s+\[([^\]]+)\]\(([^)]+)\)(?::\s*(.+))?`)
	sectionRE = regexp.MustCompile(`^##\s+(.+)$`)
)

// ParseLLMsTxt is agno's parse_llms_txt: the text before the first "##"
// section is the overview; each "- [title](url): description" line of a
// section is an entry, its URL resolved against baseURL.
func (r *Reader) ParseLLMsTxt(content, baseURL string) (string, []Entry) {
	var entries []Entry
	var overview []string
	section := ""
	base, _ := url.Parse(baseURL)
	for _, line := range strings.Split(content, "\n") {
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			section = strings.TrimSpace(m[1])
			continue
		}
		if section == "" {
			overview = append(overview, line)
			continue
		}
		if r.cfg.SkipOptional && strings.ToLower(section) == "optional" {
			continue
		}
		m := linkRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		u := strings.TrimSpace(m[2])
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && base != nil {
			if ref, err := url.Parse(u); err == nil {
				u = base.ResolveReference(ref).String()
			}
		}
		entries = append(entries, Entry{Title: strings.TrimSpace(m[1]), URL: u, Description: strings.TrimSpace(m[3]), Section: section})
	}
	if entries == nil {
		entries = []Entry{}
	}
	return strings.TrimSpace(strings.Join(overview, "\n")), entries
}

// FetchURL is agno's fetch_url: the page's text (HTML reduced to its main
// content's text), or "" when it cannot be read (the reason logged).
func (r *Reader) FetchURL(ctx context.Context, u string) string {
	if !r.hostAllowed(u) {
		r.log.Debug("Host not in allowed_hosts: " + u)
		return ""
	}
	resp, err := webfetch.Do(ctx, r.client, webfetch.Request{URL: u, Timeout: r.cfg.Timeout, MaxBytes: r.cfg.MaxBytes})
	if err == nil {
		err = resp.StatusError()
	}
	if err != nil {
		r.log.Warn(fmt.Sprintf("Failed to fetch %s: %v", u, err))
		return ""
	}
	text := string(resp.Body)
	switch {
	case resp.ContentType == "text/plain" || resp.ContentType == "text/markdown":
		return text
	case resp.IsHTML() || strings.HasPrefix(strings.TrimSpace(text), "<!DOCTYPE") || strings.HasPrefix(strings.TrimSpace(text), "<html") || strings.HasPrefix(strings.TrimSpace(text), "<HTML"):
		return mainText(resp.Body)
	case resp.IsText():
		return text
	}
	r.log.Warn(fmt.Sprintf("Failed to fetch %s: %s is not text", u, resp.ContentType))
	return ""
}

// mainText is agno's _process_response for HTML: without script, style,
// nav, header, footer and aside, the text of <main>, <article> or the
// role=main element (else the body), its pieces stripped and one a line.
func mainText(page []byte) string {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return ""
	}
	el := func(a atom.Atom) func(*html.Node) bool {
		return func(n *html.Node) bool { return n.Type == html.ElementNode && n.DataAtom == a }
	}
	node := find(root, el(atom.Main))
	if node == nil {
		node = find(root, el(atom.Article))
	}
	if node == nil {
		node = find(root, func(n *html.Node) bool {
			for _, a := range n.Attr {
				if n.Type == html.ElementNode && a.Key == "role" && a.Val == "main" {
					return true
				}
			}
			return false
		})
	}
	if node == nil {
		node = find(root, el(atom.Body))
	}
	if node == nil {
		node = root
	}
	var parts []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if s := strings.TrimSpace(n.Data); s != "" {
				parts = append(parts, s)
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Nav, atom.Header, atom.Footer, atom.Aside:
				return
			}
		case html.CommentNode:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(node)
	return strings.Join(parts, "\n")
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

// Read implements reader.Reader, agno's LLMsTxtReader.read: the
// overview and the first max_urls linked pages, fetched one at a time,
// each a document cut into fixed-size chunks.
func (r *Reader) Read(ctx context.Context, src reader.Source) ([]*document.Document, error) {
	u := src.URL
	content := r.FetchURL(ctx, u)
	if content == "" {
		r.log.Error("Failed to fetch llms.txt from " + u)
		return nil, nil
	}
	overview, entries := r.ParseLLMsTxt(content, u)
	if len(entries) > r.cfg.MaxURLs {
		r.log.Warn(fmt.Sprintf("Limiting to %d URLs (found %d)", r.cfg.MaxURLs, len(entries)))
		entries = entries[:r.cfg.MaxURLs]
	}
	var docs []*document.Document
	add := func(d *document.Document) error {
		chunks, err := r.chunker.Chunk(ctx, d)
		docs = append(docs, chunks...)
		return err
	}
	if overview != "" {
		name := src.Name
		if name == "" {
			name = u
		}
		if err := add(&document.Document{Name: name, ID: uuid.NewString(), MetaData: map[string]any{"url": u, "type": "llms_txt_overview"}, Content: overview}); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		page := r.FetchURL(ctx, e.URL)
		if page == "" {
			continue
		}
		if err := add(&document.Document{Name: e.Title, ID: uuid.NewString(), MetaData: map[string]any{
			"url": e.URL, "section": e.Section, "description": e.Description, "type": "llms_txt_linked_doc",
		}, Content: page}); err != nil {
			return nil, err
		}
	}
	return docs, nil
}
