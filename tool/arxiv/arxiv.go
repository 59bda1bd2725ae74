// Package arxiv is agno's ArxivTools (tools/arxiv.py):
// search_arxiv_and_return_articles and read_arxiv_papers over the arXiv
// API's Atom feed (https://info.arxiv.org/help/api/user-manual.html), the
// requests the arxiv library makes, with the papers' PDFs read page by
// page.
package arxiv

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "arxiv_tools".
const RegisteredName = "arxiv"

// DefaultBaseURL is the arXiv API's query endpoint.
const DefaultBaseURL = "https://export.arxiv.org/api/query"

// Options are the keys of [toolkits.arxiv]: agno's ArxivTools
// arguments, plus the endpoint, the timeout and the result bound. With
// download_dir set the PDFs read are kept there as <id>.pdf; without it
// they are read in memory.
type Options struct {
	EnableSearchArxiv     bool   `toml:"enable_search_arxiv"`
	EnableReadArxivPapers bool   `toml:"enable_read_arxiv_papers"`
	All                   bool   `toml:"all"`
	DownloadDir           string `toml:"download_dir"`
	BaseURL               string `toml:"base_url"`
	Timeout               int    `toml:"timeout"`
	MaxResultBytes        int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "search arXiv and read its papers (agno's ArxivTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableSearchArxiv: true, EnableReadArxivPapers: true, BaseURL: DefaultBaseURL, Timeout: 30, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			o.DownloadDir = tool.ResolvePath(env.Dir, o.DownloadDir)
			return errors.Join(webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			return New(Config{
				EnableSearchArxiv: o.EnableSearchArxiv, EnableReadArxivPapers: o.EnableReadArxivPapers, All: o.All,
				DownloadDir: o.DownloadDir, BaseURL: o.BaseURL, HTTP: c, MaxResultBytes: o.MaxResultBytes,
			})
		},
	})
}

// Config configures the toolkit.
type Config struct {
	EnableSearchArxiv, EnableReadArxivPapers, All bool
	DownloadDir, BaseURL                          string
	HTTP                                          webapi.Client
	MaxResultBytes                                int
	// IncludeTools and ExcludeTools keep or drop functions by name.
	IncludeTools, ExcludeTools []string
}

type searchArgs struct {
	Query       string `json:"query" description:"(str) The query to search arXiv for."`
	NumArticles *int   `json:"num_articles,omitempty" description:"(int) The number of articles to return. Defaults to 10."`
}

type readArgs struct {
	IDList      []string "json:\"id_list\" description:\"(list, str) The list of `id` of the papers to add to the knowledge base.\\nShould be of the format: [\\\"2103.03404v1\\\", \\\"2103.03404v2\\\"]\""
	PagesToRead *int     `json:"pages_to_read,omitempty" description:"(int) The number of pages to read from the paper.\nNone means read all pages. Defaults to None."`
}

// New builds agno's ArxivTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if cfg.HTTP.HTTP == nil {
		return nil, errors.New("arxiv: Config.HTTP has no client: build it with webapi.NewClient")
	}
	x := &arxiv{cfg: cfg}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableSearchArxiv)(tool.New("search_arxiv_and_return_articles", "Use this function to search arXiv for a query and return the top articles.", x.search))
	fns.If(cfg.EnableReadArxivPapers)(tool.New("read_arxiv_papers", "Use this function to read a list of arxiv papers and return the content.", x.read))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "arxiv_tools", Functions: list, Include: cfg.IncludeTools, Exclude: cfg.ExcludeTools})
}

type arxiv struct{ cfg Config }

// feed is the API's Atom answer.
type feed struct {
	Entries []struct {
		ID        string `xml:"http://www.w3.org/2005/Atom id"`
		Published string `xml:"http://www.w3.org/2005/Atom published"`
		Title     string `xml:"http://www.w3.org/2005/Atom title"`
		Summary   string `xml:"http://www.w3.org/2005/Atom summary"`
		Authors   []struct {
			Name string `xml:"http://www.w3.org/2005/Atom name"`
		} `xml:"http://www.w3.org/2005/Atom author"`
		Comment *string `xml:"http://arxiv.org/schemas/atom comment"`
		Links   []struct {
			Href  string `xml:"href,attr"`
			Title string `xml:"title,attr"`
		} `xml:"http://www.w3.org/2005/Atom link"`
		Primary struct {
			Term string `xml:"term,attr"`
		} `xml:"http://arxiv.org/schemas/atom primary_category"`
		Categories []struct {
			Term string `xml:"term,attr"`
		} `xml:"http://www.w3.org/2005/Atom category"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

// Article is agno's article dict, in its key order.
type Article struct {
	Title           string   `json:"title"`
	ID              string   `json:"id"`
	EntryID         string   `json:"entry_id"`
	Authors         []string `json:"authors"`
	PrimaryCategory string   `json:"primary_category"`
	Categories      []string `json:"categories"`
	Published       *string  `json:"published"`
	PDFURL          *string  `json:"pdf_url"`
	Links           []string `json:"links"`
	Summary         string   `json:"summary"`
	Comment         *string  `json:"comment"`
	Content         []Page   `json:"content,omitempty"`
}

// Page is one page of a paper read.
type Page struct {
	Page int    `json:"page"`
	Text string `json:"text"`
}

var spaces = regexp.MustCompile(`\s+`)

func (x *arxiv) query(ctx context.Context, params url.Values) ([]Article, error) {
	body, err := x.cfg.HTTP.Get(ctx, x.cfg.BaseURL+"?"+params.Encode(), nil)
	if err != nil {
		return nil, err
	}
	var f feed
	if err := xml.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("arXiv answered something other than an Atom feed: %w", err)
	}
	out := []Article{}
	for _, e := range f.Entries {
		a := Article{
			Title: spaces.ReplaceAllString(strings.TrimSpace(e.Title), " "), EntryID: strings.TrimSpace(e.ID),
			Authors: []string{}, PrimaryCategory: e.Primary.Term, Categories: []string{}, Links: []string{},
			Summary: strings.TrimSpace(e.Summary), Comment: e.Comment,
		}
		// The arxiv library's get_short_id.
		a.ID = a.EntryID[strings.LastIndex(a.EntryID, "arxiv.org/abs/")+len("arxiv.org/abs/"):]
		if !strings.Contains(a.EntryID, "arxiv.org/abs/") {
			a.ID = a.EntryID
		}
		for _, au := range e.Authors {
			a.Authors = append(a.Authors, au.Name)
		}
		for _, c := range e.Categories {
			a.Categories = append(a.Categories, c.Term)
		}
		for _, l := range e.Links {
			a.Links = append(a.Links, l.Href)
			if l.Title == "pdf" && a.PDFURL == nil {
				a.PDFURL = &l.Href
			}
		}
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Published)); err == nil {
			s := t.UTC().Format("2006-01-02T15:04:05+00:00")
			a.Published = &s
		}
		out = append(out, a)
	}
	return out, nil
}

func (x *arxiv) dump(v any) (string, error) {
	s, err := pyjson.DumpsOpts(v, pyjson.Options{Indent: 4})
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, x.cfg.MaxResultBytes), nil
}

func (x *arxiv) search(ctx context.Context, a searchArgs) (string, error) {
	n := 10
	if a.NumArticles != nil {
		n = *a.NumArticles
	}
	if n <= 0 {
		return x.dump([]Article{})
	}
	arts, err := x.query(ctx, url.Values{
		"search_query": {a.Query}, "id_list": {""}, "sortBy": {"relevance"}, "sortOrder": {"descending"},
		"start": {"0"}, "max_results": {strconv.Itoa(n)},
	})
	if err != nil {
		return "", err
	}
	if len(arts) > n {
		arts = arts[:n]
	}
	return x.dump(arts)
}

func (x *arxiv) read(ctx context.Context, a readArgs) (string, error) {
	arts, err := x.query(ctx, url.Values{
		"search_query": {""}, "id_list": {strings.Join(a.IDList, ",")}, "sortBy": {"relevance"}, "sortOrder": {"descending"},
		"start": {"0"}, "max_results": {"100"},
	})
	if err != nil {
		return "", err
	}
	if x.cfg.DownloadDir != "" {
		if err := os.MkdirAll(x.cfg.DownloadDir, 0o755); err != nil {
			return "", err
		}
	}
	out := []Article{}
	size := 0
	for _, art := range arts {
		if art.PDFURL != nil {
			pages, err := x.pages(ctx, art, a.PagesToRead)
			if err != nil {
				// agno logs the failure and leaves the article out.
				continue
			}
			art.Content = pages
			for _, p := range pages {
				size += len(p.Text)
			}
		}
		out = append(out, art)
		// Past the bound further papers would only be cut off.
		if size > x.cfg.MaxResultBytes {
			break
		}
	}
	return x.dump(out)
}

// pages downloads the paper's PDF and extracts its pages' text.
func (x *arxiv) pages(ctx context.Context, art Article, limit *int) (pages []Page, err error) {
	data, err := x.cfg.HTTP.Get(ctx, *art.PDFURL, nil)
	if err != nil {
		return nil, err
	}
	if x.cfg.DownloadDir != "" {
		name := strings.NewReplacer("/", "_", "\\", "_").Replace(art.ID) + ".pdf"
		if err := os.WriteFile(filepath.Join(x.cfg.DownloadDir, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	// The extractor panics on some malformed files.
	defer func() {
		if p := recover(); p != nil {
			pages, err = nil, fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	pages = []Page{}
	for i := 1; i <= r.NumPage(); i++ {
		if limit != nil && *limit > 0 && i > *limit {
			break
		}
		text, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i, err)
		}
		pages = append(pages, Page{Page: i, Text: text})
	}
	return pages, nil
}
