// Package exa is agno's ExaTools (tools/exa.py): search_exa,
// get_contents, find_similar and exa_answer over Exa's API
// (https://docs.exa.ai/reference), the requests exa_py makes.
package exa

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list, and agno's toolkit name.
const RegisteredName = "exa"

// DefaultBaseURL is Exa's API.
const DefaultBaseURL = "https://api.exa.ai"

// Options are the keys of [toolkits.exa]: agno's ExaTools arguments
// (api_key defaults to $EXA_API_KEY), plus the API root and the result
// bound. research is not implemented: enable_research is refused.
type Options struct {
	EnableSearch       bool     `toml:"enable_search"`
	EnableGetContents  bool     `toml:"enable_get_contents"`
	EnableFindSimilar  bool     `toml:"enable_find_similar"`
	EnableAnswer       bool     `toml:"enable_answer"`
	EnableResearch     bool     `toml:"enable_research"`
	All                bool     `toml:"all"`
	Text               bool     `toml:"text"`
	TextLengthLimit    int      `toml:"text_length_limit"`
	Summary            bool     `toml:"summary"`
	APIKey             string   `toml:"api_key"`
	NumResults         int      `toml:"num_results"`
	Livecrawl          string   `toml:"livecrawl"`
	StartCrawlDate     string   `toml:"start_crawl_date"`
	EndCrawlDate       string   `toml:"end_crawl_date"`
	StartPublishedDate string   `toml:"start_published_date"`
	EndPublishedDate   string   `toml:"end_published_date"`
	Type               string   `toml:"type"`
	Category           string   `toml:"category"`
	IncludeDomains     []string `toml:"include_domains"`
	ExcludeDomains     []string `toml:"exclude_domains"`
	ShowResults        bool     `toml:"show_results"`
	Model              string   `toml:"model"`
	Timeout            int      `toml:"timeout"`
	ResearchModel      string   `toml:"research_model"`
	BaseURL            string   `toml:"base_url"`
	MaxResultBytes     int      `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "search, contents, similar links and answers through Exa (agno's ExaTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{
				EnableSearch: true, EnableGetContents: true, EnableFindSimilar: true, EnableAnswer: true, Text: true, TextLengthLimit: 1000,
				Livecrawl: "always", Timeout: 30, ResearchModel: "exa-research", BaseURL: DefaultBaseURL, MaxResultBytes: webapi.DefaultMaxResultBytes,
			}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.EnableResearch {
				errs = append(errs, tool.OptionErrorf("enable_research", "enable_research = true: Exa's research tasks are not implemented here; remove the key"))
			}
			if o.Model != "" && o.Model != "exa" && o.Model != "exa-pro" {
				errs = append(errs, tool.OptionErrorf("model", "model = %q: Model must be either 'exa' or 'exa-pro'", o.Model))
			}
			if o.NumResults < 0 || o.TextLengthLimit < 0 {
				errs = append(errs, tool.OptionErrorf("num_results", "num_results and text_length_limit must not be negative"))
			}
			errs = append(errs, webapi.CheckURL("base_url", o.BaseURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			cfg := *o
			if cfg.APIKey == "" {
				cfg.APIKey = os.Getenv("EXA_API_KEY")
			}
			if cfg.APIKey == "" && env.Logger != nil {
				env.Logger.Error("EXA_API_KEY not set. Please set the EXA_API_KEY environment variable.")
			}
			if cfg.All && env.Logger != nil {
				env.Logger.Warn("exa: all = true leaves out research, which is not implemented")
			}
			return New(cfg, c)
		},
	})
}

type searchArgs struct {
	Query      string  `json:"query" description:"(str) The query to search for."`
	NumResults *int    `json:"num_results,omitempty" description:"(int) Number of results to return. Defaults to 5."`
	Category   *string `json:"category,omitempty" description:"(Optional[str]) The category to filter search results.\nOptions are \"company\", \"research paper\", \"news\", \"pdf\", \"github\",\n\"tweet\", \"personal site\", \"linkedin profile\", \"financial report\"."`
}

type contentsArgs struct {
	URLs []string `json:"urls" description:"(list(str)) A list of URLs from which to fetch content."`
}

type similarArgs struct {
	URL        string `json:"url" description:"(str) The URL for which to find similar links."`
	NumResults *int   `json:"num_results,omitempty" description:"(int) The number of similar links to return. Defaults to 5."`
}

type answerArgs struct {
	Query string `json:"query" description:"(str) The question or query to answer."`
	Text  *bool  `json:"text,omitempty" description:"(bool) Include full text from citation. Default is False."`
}

// New builds agno's ExaTools from resolved options.
func New(o Options, c webapi.Client) (*tool.Toolkit, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if c.HTTP == nil {
		return nil, errors.New("exa: the client has no *http.Client: build it with webapi.NewClient")
	}
	e := &exa{o: o, c: c, base: strings.TrimSuffix(o.BaseURL, "/")}
	fns := tool.Enabled{All: o.All}
	fns.If(o.EnableSearch)(tool.New("search_exa", "Use this function to search the web using Exa for a query.", e.search))
	fns.If(o.EnableGetContents)(tool.New("get_contents", "Retrieve detailed content from specific URLs using the Exa API.", e.contents))
	fns.If(o.EnableFindSimilar)(tool.New("find_similar", "Find similar links to a given URL using the Exa API.", e.similar))
	fns.If(o.EnableAnswer)(tool.New("exa_answer", "Get an LLM answer to a question informed by Exa search results.", e.answer))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: RegisteredName, Functions: list})
}

type exa struct {
	o    Options
	c    webapi.Client
	base string
}

// post sends body as exa_py does and turns a failure into exa_py's
// message.
func (e *exa) post(ctx context.Context, path string, body map[string]any, out any) error {
	if e.o.APIKey == "" {
		return errors.New("API key must be provided as an argument or in EXA_API_KEY environment variable")
	}
	err := e.c.PostJSON(ctx, e.base+path, http.Header{"x-api-key": {e.o.APIKey}}, body, out)
	var se *webapi.StatusError
	if errors.As(err, &se) {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return fmt.Errorf("Request failed with status code %d: %s", se.Code, se.Body)
	}
	return err
}

// filters are the search options agno passes when set, in Exa's names.
func (e *exa) filters(body map[string]any) {
	set := func(k, v string) {
		if v != "" {
			body[k] = v
		}
	}
	set("startCrawlDate", e.o.StartCrawlDate)
	set("endCrawlDate", e.o.EndCrawlDate)
	set("startPublishedDate", e.o.StartPublishedDate)
	set("endPublishedDate", e.o.EndPublishedDate)
	if e.o.IncludeDomains != nil {
		body["includeDomains"] = e.o.IncludeDomains
	}
	if e.o.ExcludeDomains != nil {
		body["excludeDomains"] = e.o.ExcludeDomains
	}
}

func (e *exa) num(n *int) int {
	if e.o.NumResults > 0 {
		return e.o.NumResults
	}
	if n != nil {
		return *n
	}
	return 5
}

type result struct {
	URL           string  `json:"url"`
	Title         *string `json:"title"`
	Author        *string `json:"author"`
	PublishedDate *string `json:"publishedDate"`
	Text          *string `json:"text"`
}

// parsed is agno's _parse_results: url, then title, author,
// published_date and text when present, the text cut to
// text_length_limit characters; json.dumps(indent=4, ensure_ascii=False).
func (e *exa) parsed(results []result) (string, error) {
	type item struct {
		URL           string `json:"url"`
		Title         string `json:"title,omitempty"`
		Author        string `json:"author,omitempty"`
		PublishedDate string `json:"published_date,omitempty"`
		Text          string `json:"text,omitempty"`
	}
	out := []item{}
	for _, r := range results {
		it := item{URL: r.URL}
		if r.Title != nil {
			it.Title = *r.Title
		}
		if r.Author != nil {
			it.Author = *r.Author
		}
		if r.PublishedDate != nil {
			it.PublishedDate = *r.PublishedDate
		}
		if r.Text != nil {
			t := []rune(*r.Text)
			if e.o.TextLengthLimit > 0 && len(t) > e.o.TextLengthLimit {
				t = t[:e.o.TextLengthLimit]
			}
			it.Text = string(t)
		}
		out = append(out, it)
	}
	s, err := pyjson.DumpsOpts(out, pyjson.Options{Indent: 4, NoEnsureASCII: true})
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, e.o.MaxResultBytes), nil
}

func (e *exa) contentsOptions() map[string]any {
	return map[string]any{"text": e.o.Text, "summary": e.o.Summary}
}

func errText(err error) string { return "Error: " + err.Error() }

func (e *exa) search(ctx context.Context, a searchArgs) (string, error) {
	body := map[string]any{"query": a.Query, "numResults": e.num(a.NumResults), "contents": e.contentsOptions()}
	e.filters(body)
	if e.o.Type != "" {
		body["type"] = e.o.Type
	}
	// A category set in the options wins over the model's.
	if e.o.Category != "" {
		body["category"] = e.o.Category
	} else if a.Category != nil && *a.Category != "" {
		body["category"] = *a.Category
	}
	var resp struct {
		Results []result `json:"results"`
	}
	if err := e.post(ctx, "/search", body, &resp); err != nil {
		return errText(err), nil
	}
	return e.parsed(resp.Results)
}

func (e *exa) contents(ctx context.Context, a contentsArgs) (string, error) {
	body := e.contentsOptions()
	body["urls"] = a.URLs
	var resp struct {
		Results []result `json:"results"`
	}
	if err := e.post(ctx, "/contents", body, &resp); err != nil {
		return errText(err), nil
	}
	return e.parsed(resp.Results)
}

func (e *exa) similar(ctx context.Context, a similarArgs) (string, error) {
	body := map[string]any{"url": a.URL, "numResults": e.num(a.NumResults), "contents": e.contentsOptions()}
	e.filters(body)
	var resp struct {
		Results []result `json:"results"`
	}
	if err := e.post(ctx, "/findSimilar", body, &resp); err != nil {
		return errText(err), nil
	}
	return e.parsed(resp.Results)
}

func (e *exa) answer(ctx context.Context, a answerArgs) (string, error) {
	text := a.Text != nil && *a.Text
	body := map[string]any{"query": a.Query, "text": text}
	if e.o.Model != "" {
		body["model"] = e.o.Model
	}
	var resp struct {
		Answer    any `json:"answer"`
		Citations []struct {
			ID            *string `json:"id"`
			URL           *string `json:"url"`
			Title         *string `json:"title"`
			PublishedDate *string `json:"publishedDate"`
			Author        *string `json:"author"`
			Text          *string `json:"text"`
		} `json:"citations"`
	}
	if err := e.post(ctx, "/answer", body, &resp); err != nil {
		return errText(err), nil
	}
	type citation struct {
		ID            *string `json:"id"`
		URL           *string `json:"url"`
		Title         *string `json:"title"`
		PublishedDate *string `json:"published_date"`
		Author        *string `json:"author"`
		Text          *string `json:"text"`
	}
	out := struct {
		Answer    any        `json:"answer"`
		Citations []citation `json:"citations"`
	}{Answer: resp.Answer, Citations: []citation{}}
	for _, c := range resp.Citations {
		ci := citation{ID: c.ID, URL: c.URL, Title: c.Title, PublishedDate: c.PublishedDate, Author: c.Author}
		if text {
			ci.Text = c.Text
		}
		out.Citations = append(out.Citations, ci)
	}
	s, err := pyjson.DumpsOpts(out, pyjson.Options{Indent: 4})
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, e.o.MaxResultBytes), nil
}
