// Package bravesearch is agno's BraveSearchTools (tools/bravesearch.py):
// brave_search over Brave's Web Search API
// (https://api-dashboard.search.brave.com/app/documentation/web-search/get-started),
// the request the brave-search library makes.
package bravesearch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strconv"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "brave_search".
const RegisteredName = "bravesearch"

// DefaultBaseURL is Brave's web search endpoint.
const DefaultBaseURL = "https://api.search.brave.com/res/v1/web/search"

// Options are the keys of [toolkits.bravesearch]: agno's
// BraveSearchTools arguments (api_key defaults to $BRAVE_API_KEY), plus
// the endpoint, the timeout and the result bound.
type Options struct {
	APIKey            string `toml:"api_key"`
	FixedMaxResults   *int   `toml:"fixed_max_results"`
	FixedLanguage     string `toml:"fixed_language"`
	EnableBraveSearch bool   `toml:"enable_brave_search"`
	All               bool   `toml:"all"`
	BaseURL           string `toml:"base_url"`
	Timeout           int    `toml:"timeout"`
	MaxResultBytes    int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "web search through Brave's Search API (agno's BraveSearchTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableBraveSearch: true, BaseURL: DefaultBaseURL, Timeout: 30, MaxResultBytes: webapi.DefaultMaxResultBytes}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.FixedMaxResults != nil && *o.FixedMaxResults <= 0 {
				errs = append(errs, tool.OptionErrorf("fixed_max_results", "fixed_max_results = %d: use a positive number, or leave it out", *o.FixedMaxResults))
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
				cfg.APIKey = os.Getenv("BRAVE_API_KEY")
			}
			return New(cfg, c)
		},
	})
}

type searchArgs struct {
	Query      string  `json:"query" description:"(str) The query to search for."`
	MaxResults *int    `json:"max_results,omitempty" description:"(int) The maximum number of results to return. Default is 5."`
	Country    *string `json:"country,omitempty" description:"(str) The country code for search results. Default is \"US\"."`
	SearchLang *string `json:"search_lang,omitempty" description:"(str) The language of the search results. Default is \"en\"."`
}

// ErrNoKey is agno's refusal to build without a key.
//
//lint:ignore ST1005 agno's error text, which the model sees as it is
var ErrNoKey = errors.New("BRAVE_API_KEY is required. Please set the BRAVE_API_KEY environment variable.")

// New builds agno's BraveSearchTools from resolved options.
func New(o Options, c webapi.Client) (*tool.Toolkit, error) {
	if o.APIKey == "" {
		return nil, ErrNoKey
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if c.HTTP == nil {
		return nil, errors.New("bravesearch: the client has no *http.Client: build it with webapi.NewClient")
	}
	b := &brave{o: o, c: c}
	fns := tool.Enabled{All: o.All}
	fns.If(o.EnableBraveSearch)(tool.New("brave_search", "Search Brave for the specified query and return the results.", b.search))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "brave_search", Functions: list})
}

type brave struct {
	o Options
	c webapi.Client
}

type webResult struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
}

func (b *brave) search(ctx context.Context, a searchArgs) (string, error) {
	n := 5
	if a.MaxResults != nil {
		n = *a.MaxResults
	}
	if b.o.FixedMaxResults != nil {
		n = *b.o.FixedMaxResults
	}
	country, lang := "US", "en"
	if a.Country != nil {
		country = *a.Country
	}
	if a.SearchLang != nil {
		lang = *a.SearchLang
	}
	if b.o.FixedLanguage != "" {
		lang = b.o.FixedLanguage
	}
	if a.Query == "" {
		return pyjson.Dumps(map[string]any{"error": "Please provide a query to search for"})
	}
	params := url.Values{"q": {a.Query}, "count": {strconv.Itoa(n)}, "country": {country}, "search_lang": {lang}, "result_filter": {"web"}}
	var resp struct {
		Web *struct {
			Results []webResult `json:"results"`
		} `json:"web"`
	}
	h := http.Header{"X-Subscription-Token": {b.o.APIKey}, "Accept": {"application/json"}}
	if err := b.c.GetJSON(ctx, b.o.BaseURL+"?"+params.Encode(), h, &resp); err != nil {
		return "", err
	}
	out := struct {
		WebResults   []webResult `json:"web_results"`
		Query        string      `json:"query"`
		TotalResults int         `json:"total_results"`
	}{WebResults: []webResult{}, Query: a.Query}
	if resp.Web != nil && len(resp.Web.Results) > 0 {
		out.WebResults = resp.Web.Results
		out.TotalResults = len(resp.Web.Results)
	}
	s, err := pyjson.DumpsOpts(out, pyjson.Options{Indent: 2})
	if err != nil {
		return "", err
	}
	return webapi.Bound(s, b.o.MaxResultBytes), nil
}
