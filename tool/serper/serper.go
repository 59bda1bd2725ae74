// Package serper is agno's SerperTools (tools/serper.py): search_web,
// search_news, search_scholar and scrape_webpage over Serper's API
// (https://serper.dev), answering Serper's JSON text as it comes.
package serper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "serper_tools".
const RegisteredName = "serper"

// Serper's endpoints.
const (
	DefaultBaseURL   = "https://google.serper.dev"
	DefaultScrapeURL = "https://scrape.serper.dev"
)

// Options are the keys of [toolkits.serper]: agno's SerperTools
// arguments (api_key defaults to $SERPER_API_KEY), plus the endpoints,
// the timeout and the result bound.
type Options struct {
	APIKey              string `toml:"api_key"`
	Location            string `toml:"location"`
	Language            string `toml:"language"`
	NumResults          int    `toml:"num_results"`
	DateRange           string `toml:"date_range"`
	EnableSearch        bool   `toml:"enable_search"`
	EnableSearchNews    bool   `toml:"enable_search_news"`
	EnableSearchScholar bool   `toml:"enable_search_scholar"`
	EnableScrapeWebpage bool   `toml:"enable_scrape_webpage"`
	All                 bool   `toml:"all"`
	BaseURL             string `toml:"base_url"`
	ScrapeURL           string `toml:"scrape_url"`
	Timeout             int    `toml:"timeout"`
	MaxResultBytes      int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "Google web, news and scholar search and page scraping through Serper (agno's SerperTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{
				Location: "us", Language: "en", NumResults: 10, EnableSearch: true, EnableSearchNews: true, EnableSearchScholar: true,
				EnableScrapeWebpage: true, BaseURL: DefaultBaseURL, ScrapeURL: DefaultScrapeURL, Timeout: 30, MaxResultBytes: webapi.DefaultMaxResultBytes,
			}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.NumResults <= 0 {
				errs = append(errs, tool.OptionErrorf("num_results", "num_results = %d: use a positive number (default 10)", o.NumResults))
			}
			errs = append(errs, webapi.CheckURL("base_url", o.BaseURL), webapi.CheckURL("scrape_url", o.ScrapeURL), webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			cfg := *o
			if cfg.APIKey == "" {
				cfg.APIKey = os.Getenv("SERPER_API_KEY")
			}
			return New(cfg, c)
		},
	})
}

type searchArgs struct {
	Query      string `json:"query" description:"(str) The search query to search for on Google."`
	NumResults *int   `json:"num_results,omitempty" description:"(int) Number of search results to retrieve."`
}

type newsArgs struct {
	Query      string `json:"query" description:"(str) The search query for news articles."`
	NumResults *int   `json:"num_results,omitempty" description:"(int) Number of news results to retrieve."`
}

type scholarArgs struct {
	Query      string `json:"query" description:"(str) The search query for academic papers."`
	NumResults *int   `json:"num_results,omitempty" description:"(int) Number of academic papers to retrieve."`
}

type scrapeArgs struct {
	URL      string `json:"url" description:"(str) The URL of the webpage to scrape."`
	Markdown *bool  `json:"markdown,omitempty" description:"(bool) Return content in markdown format (default: False)."`
}

// New builds agno's SerperTools from resolved options.
func New(o Options, c webapi.Client) (*tool.Toolkit, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.ScrapeURL == "" {
		o.ScrapeURL = DefaultScrapeURL
	}
	if o.NumResults <= 0 {
		o.NumResults = 10
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if c.HTTP == nil {
		return nil, errors.New("serper: the client has no *http.Client: build it with webapi.NewClient")
	}
	s := &serper{o: o, c: c}
	fns := tool.Enabled{All: o.All}
	fns.If(o.EnableSearch)(tool.New("search_web", "Searches Google for the provided query using the Serper API.", func(ctx context.Context, a searchArgs) (string, error) {
		return s.search(ctx, "search", a.Query, a.NumResults, "Please provide a query to search for")
	}))
	fns.If(o.EnableSearchNews)(tool.New("search_news", "Searches for news articles using the Serper News API.", func(ctx context.Context, a newsArgs) (string, error) {
		return s.search(ctx, "news", a.Query, a.NumResults, "Please provide a query to search for news")
	}))
	fns.If(o.EnableSearchScholar)(tool.New("search_scholar", "Searches for academic papers using Google Scholar via Serper API.", func(ctx context.Context, a scholarArgs) (string, error) {
		return s.search(ctx, "scholar", a.Query, a.NumResults, "Please provide a query to search for academic papers")
	}))
	fns.If(o.EnableScrapeWebpage)(tool.New("scrape_webpage", "Scrapes and extracts content from a webpage using the Serper scraping API.", s.scrape))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "serper_tools", Functions: list})
}

type serper struct {
	o Options
	c webapi.Client
}

// errorJSON is agno's json.dumps({"error": msg}, indent=2).
func errorJSON(msg string) string {
	s, _ := pyjson.DumpsOpts(map[string]any{"error": msg}, pyjson.Options{Indent: 2})
	return s
}

func (s *serper) search(ctx context.Context, endpoint, query string, n *int, empty string) (string, error) {
	if query == "" {
		return errorJSON(empty), nil
	}
	num := s.o.NumResults
	if n != nil && *n != 0 {
		num = *n
	}
	return s.request(ctx, endpoint, map[string]any{"q": query, "num": num}), nil
}

func (s *serper) scrape(ctx context.Context, a scrapeArgs) (string, error) {
	if a.URL == "" {
		return errorJSON("Please provide a URL to scrape"), nil
	}
	return s.request(ctx, "scrape", map[string]any{"url": a.URL, "includeMarkdown": a.Markdown != nil && *a.Markdown}), nil
}

// request is agno's _make_request: the answer's text as Serper sent it,
// or the error as JSON.
func (s *serper) request(ctx context.Context, endpoint string, params map[string]any) string {
	if s.o.APIKey == "" {
		return errorJSON("Please provide a Serper API key")
	}
	u := strings.TrimSuffix(s.o.BaseURL, "/") + "/" + endpoint
	if endpoint == "scrape" {
		u = s.o.ScrapeURL
	}
	if s.o.DateRange != "" {
		params["tbs"] = s.o.DateRange
	}
	if s.o.Location != "" {
		params["gl"] = s.o.Location
	}
	if s.o.Language != "" {
		params["hl"] = s.o.Language
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return errorJSON(err.Error())
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(raw))
	if err != nil {
		return errorJSON(err.Error())
	}
	req.Header.Set("X-API-KEY", s.o.APIKey)
	req.Header.Set("Content-Type", "application/json")
	body, err := s.c.Do(ctx, req)
	if err != nil {
		return errorJSON(err.Error())
	}
	if !json.Valid(body) {
		return errorJSON("Serper answered something other than JSON from " + u)
	}
	return webapi.Bound(string(body), s.o.MaxResultBytes)
}
