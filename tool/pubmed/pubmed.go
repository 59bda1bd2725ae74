// Package pubmed is agno's PubmedTools (tools/pubmed.py): search_pubmed
// over NCBI's E-utilities (https://www.ncbi.nlm.nih.gov/books/NBK25499/):
// esearch for the ids, efetch for the articles' XML, read as agno reads
// it with ElementTree.
package pubmed

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list, and agno's toolkit name.
const RegisteredName = "pubmed"

// DefaultBaseURL is the E-utilities root.
const DefaultBaseURL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"

// Options are the keys of [toolkits.pubmed]: agno's PubmedTools
// arguments, plus the E-utilities root, the timeout and the result bound.
type Options struct {
	Email              string `toml:"email"`
	MaxResults         int    `toml:"max_results"`
	ResultsExpanded    bool   `toml:"results_expanded"`
	EnableSearchPubmed bool   `toml:"enable_search_pubmed"`
	All                bool   `toml:"all"`
	BaseURL            string `toml:"base_url"`
	Timeout            int    `toml:"timeout"`
	MaxResultBytes     int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "search PubMed's articles (agno's PubmedTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			// httpx's default timeout is 5 seconds.
			return Options{Email: "your_email@example.com", EnableSearchPubmed: true, BaseURL: DefaultBaseURL, Timeout: 5, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.MaxResults < 0 {
				errs = append(errs, tool.OptionErrorf("max_results", "max_results = %d: use a positive number, or leave it out (10)", o.MaxResults))
			}
			errs = append(errs, webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			return New(Config{Email: o.Email, MaxResults: o.MaxResults, ResultsExpanded: o.ResultsExpanded, EnableSearchPubmed: o.EnableSearchPubmed, All: o.All, BaseURL: o.BaseURL, HTTP: c, MaxResultBytes: o.MaxResultBytes})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	Email                               string
	MaxResults                          int
	ResultsExpanded, EnableSearchPubmed bool
	All                                 bool
	BaseURL                             string
	HTTP                                webapi.Client
	MaxResultBytes                      int
	// IncludeTools and ExcludeTools keep or drop functions by name.
	IncludeTools, ExcludeTools []string
}

type searchArgs struct {
	Query      string `json:"query" description:"(str) The search query."`
	MaxResults *int   `json:"max_results,omitempty" description:"(int) The maximum number of results to return (default 10)."`
}

// New builds agno's PubmedTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if cfg.HTTP.HTTP == nil {
		return nil, errors.New("pubmed: Config.HTTP has no client: build it with webapi.NewClient")
	}
	p := &pubmed{cfg: cfg, base: strings.TrimSuffix(cfg.BaseURL, "/")}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableSearchPubmed)(tool.New("search_pubmed", "Use this function to search PubMed for articles.", p.search))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: RegisteredName, Functions: list, Include: cfg.IncludeTools, Exclude: cfg.ExcludeTools})
}

type pubmed struct {
	cfg  Config
	base string
}

func (p *pubmed) search(ctx context.Context, a searchArgs) (string, error) {
	out, err := p.searchArticles(ctx, a)
	if err != nil {
		return "Could not fetch articles. Error: " + err.Error(), nil
	}
	return webapi.Bound(out, p.cfg.MaxResultBytes), nil
}

func (p *pubmed) searchArticles(ctx context.Context, a searchArgs) (string, error) {
	// agno's max_results or self.max_results or 10: zero counts as unset.
	n := 10
	switch {
	case a.MaxResults != nil && *a.MaxResults != 0:
		n = *a.MaxResults
	case p.cfg.MaxResults != 0:
		n = p.cfg.MaxResults
	}
	body, err := p.cfg.HTTP.Get(ctx, p.base+"/esearch.fcgi?"+url.Values{
		"db": {"pubmed"}, "term": {a.Query}, "retmax": {strconv.Itoa(n)}, "email": {p.cfg.Email}, "usehistory": {"y"},
	}.Encode(), nil)
	if err != nil {
		return "", err
	}
	root, err := parse(body)
	if err != nil {
		return "", err
	}
	var ids []string
	for _, e := range root.findAll("Id") {
		ids = append(ids, e.text())
	}
	body, err = p.cfg.HTTP.Get(ctx, p.base+"/efetch.fcgi?"+url.Values{"db": {"pubmed"}, "id": {strings.Join(ids, ",")}, "retmode": {"xml"}}.Encode(), nil)
	if err != nil {
		return "", err
	}
	if root, err = parse(body); err != nil {
		return "", err
	}
	results := []string{}
	for _, art := range root.findAll("PubmedArticle") {
		results = append(results, p.format(art))
	}
	return pyjson.Dumps(results)
}

// format is agno's text of one article, concise or expanded.
func (p *pubmed) format(art *node) string {
	get := func(path, missing string) string {
		if e := art.find(path); e != nil {
			return e.text()
		}
		return missing
	}
	summary := "No abstract available"
	if sections := art.findAll("AbstractText"); len(sections) > 0 {
		var b strings.Builder
		for _, s := range sections {
			if l := s.attr("Label"); l != "" {
				b.WriteString(l + ": ")
			}
			b.WriteString(s.text() + "\n\n")
		}
		summary = strings.TrimSpace(b.String())
	}
	title := get("ArticleTitle", "No title available")
	published := get("PubDate/Year", "No date available")
	if !p.cfg.ResultsExpanded {
		// Python's precedence in agno's expression: short abstracts get
		// the summary line alone.
		if r := []rune(summary); len(r) > 200 {
			return fmt.Sprintf("Title: %s\nPublished: %s\nSummary: %s...", title, published, string(r[:200]))
		}
		return "Summary: " + summary
	}
	author := "Unknown"
	if au := art.find("AuthorList/Author"); au != nil {
		last, fore := au.child("LastName"), au.child("ForeName")
		switch {
		case last != nil && fore != nil:
			author = last.text() + ", " + fore.text()
		case last != nil && last.text() != "":
			author = last.text()
		}
	}
	var doi, pmc *node
	for _, id := range art.findAll("ArticleIdList/ArticleId") {
		if id.attr("IdType") == "doi" && doi == nil {
			doi = id
		}
		if id.attr("IdType") == "pmc" && pmc == nil {
			pmc = id
		}
	}
	doiText := "No DOI available"
	if doi != nil {
		doiText = doi.text()
	}
	pubmedURL := "No URL available"
	if pmid := get("PMID", ""); pmid != "" {
		pubmedURL = "https://pubmed.ncbi.nlm.nih.gov/" + pmid + "/"
	}
	fullText := "Not available"
	if pmc != nil {
		fullText = "https://www.ncbi.nlm.nih.gov/pmc/articles/" + pmc.text() + "/"
	} else if doi != nil {
		fullText = "https://doi.org/" + doiText
	}
	list := func(path, none string) string {
		var out []string
		for _, e := range art.findAll(path) {
			if e.text() != "" {
				out = append(out, e.text())
			}
		}
		if len(out) == 0 {
			return none
		}
		return strings.Join(out, ", ")
	}
	return fmt.Sprintf("Published: %s\nTitle: %s\nFirst Author: %s\nJournal: %s\nPublication Type: %s\nDOI: %s\nPubMed URL: %s\nFull Text URL: %s\nKeywords: %s\nMeSH Terms: %s\nSummary:\n%s",
		published, title, author, get("Journal/Title", "Unknown Journal"), list("PublicationTypeList/PublicationType", "Not specified"),
		doiText, pubmedURL, fullText, list("KeywordList/Keyword", "No keywords available"), list("MeshHeading/DescriptorName", "No MeSH terms available"), summary)
}

// node is an XML element, enough of ElementTree for agno's queries.
type node struct {
	name     string
	attrs    []xml.Attr
	children []*node
	// parts are the element's text pieces and children in order.
	parts []any
}

// text is the element's text, its children's included, trimmed.
func (n *node) text() string {
	var b strings.Builder
	n.fullText(&b)
	return strings.TrimSpace(b.String())
}

func (n *node) fullText(b *strings.Builder) {
	for _, p := range n.parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case *node:
			p.fullText(b)
		}
	}
}

func (n *node) attr(k string) string {
	for _, a := range n.attrs {
		if a.Name.Local == k {
			return a.Value
		}
	}
	return ""
}

func (n *node) child(name string) *node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// findAll is ElementTree's findall(".//a/b"): every descendant named by
// the path's first step, then its children along the rest, in document
// order.
func (n *node) findAll(path string) []*node {
	steps := strings.Split(path, "/")
	var starts []*node
	var walk func(*node)
	walk = func(m *node) {
		for _, c := range m.children {
			if c.name == steps[0] {
				starts = append(starts, c)
			}
			walk(c)
		}
	}
	walk(n)
	for _, s := range steps[1:] {
		var next []*node
		for _, m := range starts {
			for _, c := range m.children {
				if c.name == s {
					next = append(next, c)
				}
			}
		}
		starts = next
	}
	return starts
}

func (n *node) find(path string) *node {
	if all := n.findAll(path); len(all) > 0 {
		return all[0]
	}
	return nil
}

func parse(data []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	// E-utilities answers carry a DOCTYPE naming NCBI's DTD; entities
	// beyond XML's own are not expanded.
	dec.Strict = false
	root := &node{}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the E-utilities answer is not XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, attrs: t.Attr}
			top := stack[len(stack)-1]
			top.children = append(top.children, n)
			top.parts = append(top.parts, n)
			stack = append(stack, n)
		case xml.CharData:
			top := stack[len(stack)-1]
			top.parts = append(top.parts, string(t))
		case xml.EndElement:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		}
	}

	if len(root.children) == 0 {
		return nil, errors.New("the E-utilities answer has no XML element")
	}
	return root, nil
}
