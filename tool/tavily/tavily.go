// Package tavily is agno's TavilyTools (tools/tavily.py):
// web_search_using_tavily (or web_search_with_tavily, the search
// context) and extract_url_content over Tavily's REST API
// (https://docs.tavily.com/documentation/api-reference), the requests
// tavily-python's TavilyClient makes.
package tavily

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// RegisteredName is the name agents list; the toolkit reports agno's
// name, "tavily_tools".
const RegisteredName = "tavily"

// DefaultBaseURL is Tavily's API.
const DefaultBaseURL = "https://api.tavily.com"

// Options are the keys of [toolkits.tavily]: agno's TavilyTools
// arguments, plus the timeout and the result bound. api_key defaults to
// $TAVILY_API_KEY, api_base_url to $TAVILY_API_BASE_URL.
type Options struct {
	APIKey              string `toml:"api_key"`
	APIBaseURL          string `toml:"api_base_url"`
	EnableSearch        bool   `toml:"enable_search"`
	EnableSearchContext bool   `toml:"enable_search_context"`
	EnableExtract       bool   `toml:"enable_extract"`
	All                 bool   `toml:"all"`
	MaxTokens           int    `toml:"max_tokens"`
	IncludeAnswer       bool   `toml:"include_answer"`
	SearchDepth         string `toml:"search_depth"`
	ExtractDepth        string `toml:"extract_depth"`
	IncludeImages       bool   `toml:"include_images"`
	IncludeFavicon      bool   `toml:"include_favicon"`
	ExtractTimeout      int    `toml:"extract_timeout"`
	ExtractFormat       string `toml:"extract_format"`
	Format              string `toml:"format"`
	Timeout             int    `toml:"timeout"`
	MaxResultBytes      int    `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: RegisteredName, Summary: "web search, search context and URL extraction through Tavily (agno's TavilyTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{
				EnableSearch: true, MaxTokens: 6000, IncludeAnswer: true, SearchDepth: "advanced", ExtractDepth: "basic",
				ExtractFormat: "markdown", Format: "markdown", Timeout: 60, MaxResultBytes: webapi.DefaultMaxResultBytes,
			}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			oneOf := func(key, v string, allowed ...string) {
				for _, a := range allowed {
					if v == a {
						return
					}
				}
				errs = append(errs, tool.OptionErrorf(key, "%s = %q: use one of %q", key, v, allowed))
			}
			oneOf("search_depth", o.SearchDepth, "basic", "advanced")
			oneOf("extract_depth", o.ExtractDepth, "basic", "advanced")
			oneOf("extract_format", o.ExtractFormat, "markdown", "text")
			oneOf("format", o.Format, "json", "markdown")
			if o.APIBaseURL != "" {
				errs = append(errs, webapi.CheckURL("api_base_url", o.APIBaseURL))
			}
			if o.MaxTokens <= 0 {
				errs = append(errs, tool.OptionErrorf("max_tokens", "max_tokens = %d: use a positive number (default 6000)", o.MaxTokens))
			}
			if o.ExtractTimeout < 0 {
				errs = append(errs, tool.OptionErrorf("extract_timeout", "extract_timeout = %d: use a positive number of seconds, or leave it out", o.ExtractTimeout))
			}
			errs = append(errs, webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
			if err != nil {
				return nil, err
			}
			key := o.APIKey
			if key == "" {
				key = os.Getenv("TAVILY_API_KEY")
			}
			if key == "" && env.Logger != nil {
				env.Logger.Error("TAVILY_API_KEY not provided")
			}
			base := o.APIBaseURL
			if base == "" {
				base = os.Getenv("TAVILY_API_BASE_URL")
			}
			cfg := Config(*o)
			cfg.APIKey, cfg.APIBaseURL = key, base
			return New(cfg, c)
		},
	})
}

// Config configures the toolkit: the options, the key and base resolved.
type Config Options

type searchArgs struct {
	Query      string `json:"query" description:"(str) Query to search for."`
	MaxResults *int   `json:"max_results,omitempty" description:"(int) Maximum number of results to return. Defaults to 5."`
}

type contextArgs struct {
	Query string `json:"query" description:"(str) Query to search for."`
}

type extractArgs struct {
	URLs string `json:"urls" description:"(str) Single URL or multiple comma-separated URLs to extract content from.\nExample: \"https://example.com\" or \"https://example.com,https://another.com\""`
}

const searchDesc = "Use this function to search the web for a given query.\nThis function uses the Tavily API to provide realtime online information about the query."

// New builds agno's TavilyTools.
func New(cfg Config, c webapi.Client) (*tool.Toolkit, error) {
	if cfg.APIBaseURL == "" {
		cfg.APIBaseURL = DefaultBaseURL
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = webapi.DefaultMaxResultBytes
	}
	if c.HTTP == nil {
		return nil, errors.New("tavily: the client has no *http.Client: build it with webapi.NewClient")
	}
	t := &tavily{cfg: cfg, c: c, base: strings.TrimSuffix(cfg.APIBaseURL, "/")}
	fns := tool.Enabled{All: cfg.All}
	if cfg.EnableSearchContext {
		fns.If(cfg.EnableSearch)(tool.New("web_search_with_tavily", searchDesc, t.searchContext))
	} else {
		fns.If(cfg.EnableSearch)(tool.New("web_search_using_tavily", searchDesc, t.search))
	}
	fns.If(cfg.EnableExtract)(tool.New("extract_url_content", "Extract content from one or more URLs using Tavily's Extract API.\nThis function retrieves the main content from web pages in markdown or text format.", t.extract))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "tavily_tools", Functions: list})
}

type tavily struct {
	cfg  Config
	c    webapi.Client
	base string
}

// errNoKey is tavily-python's MissingAPIKeyError.
//
//lint:ignore ST1005 agno's error text, which the model sees as it is
var errNoKey = errors.New("No API key provided. Please provide the api_key attribute or set the TAVILY_API_KEY environment variable.")

// post sends body to the endpoint as TavilyClient does (the key as a
// bearer token) and turns Tavily's error answers ({"detail": {"error":
// ...}}) into their message.
func (t *tavily) post(ctx context.Context, path string, body map[string]any, out any) error {
	if t.cfg.APIKey == "" {
		return errNoKey
	}
	h := http.Header{"Authorization": {"Bearer " + t.cfg.APIKey}}
	err := t.c.PostJSON(ctx, t.base+path, h, body, out)
	var se *webapi.StatusError
	if errors.As(err, &se) {
		var detail struct {
			Detail struct {
				Error string `json:"error"`
			} `json:"detail"`
		}
		if json.Unmarshal([]byte(se.Body), &detail) == nil && detail.Detail.Error != "" {
			return fmt.Errorf("%s (Tavily answered %d)", detail.Detail.Error, se.Code)
		}
	}
	return err
}

type result struct {
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

func (t *tavily) search(ctx context.Context, a searchArgs) (string, error) {
	n := 5
	if a.MaxResults != nil {
		n = *a.MaxResults
	}
	var resp struct {
		Answer  *string  `json:"answer"`
		Results []result `json:"results"`
	}
	body := map[string]any{"query": a.Query, "search_depth": t.cfg.SearchDepth, "include_answer": t.cfg.IncludeAnswer, "max_results": n}
	if err := t.post(ctx, "/search", body, &resp); err != nil {
		return "", err
	}
	// agno keeps results while the JSON text so far stays within
	// max_tokens characters.
	type clean struct {
		Query   string   `json:"query"`
		Answer  *string  `json:"answer,omitempty"`
		Results []result `json:"results"`
	}
	c := clean{Query: a.Query, Answer: resp.Answer, Results: []result{}}
	head, _ := pyjson.Dumps(struct {
		Query  string  `json:"query"`
		Answer *string `json:"answer,omitempty"`
	}{a.Query, resp.Answer})
	count := len(head)
	for _, r := range resp.Results {
		s, _ := pyjson.Dumps(r)
		count += len(s)
		if count > t.cfg.MaxTokens {
			break
		}
		c.Results = append(c.Results, r)
	}
	if t.cfg.Format == "json" {
		out, err := pyjson.Dumps(c)
		if err != nil {
			return "", err
		}
		return webapi.Bound(out, t.cfg.MaxResultBytes), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", a.Query)
	if c.Answer != nil {
		fmt.Fprintf(&b, "### Summary\n%s\n\n", *c.Answer)
	}
	for _, r := range c.Results {
		fmt.Fprintf(&b, "### [%s](%s)\n%s\n\n", r.Title, r.URL, r.Content)
	}
	return webapi.Bound(b.String(), t.cfg.MaxResultBytes), nil
}

// searchContext is TavilyClient.get_search_context: the results' url
// and content, as many as fit max_tokens, as JSON text.
func (t *tavily) searchContext(ctx context.Context, a contextArgs) (string, error) {
	var resp struct {
		Results []result `json:"results"`
	}
	body := map[string]any{
		"query": a.Query, "search_depth": t.cfg.SearchDepth, "topic": "general", "days": 3, "max_results": 5,
		"include_answer": false, "include_raw_content": false, "include_images": false,
	}
	if err := t.post(ctx, "/search", body, &resp); err != nil {
		return "", err
	}
	type source struct {
		URL     string `json:"url"`
		Content string `json:"content"`
	}
	items := []source{}
	tokens := 0
	for _, r := range resp.Results {
		s, _ := pyjson.Dumps(source{r.URL, r.Content})
		// tavily-python counts tiktoken tokens; four characters a token
		// is the usual estimate for English text.
		tokens += (len(s) + 3) / 4
		if tokens > t.cfg.MaxTokens {
			break
		}
		items = append(items, source{r.URL, r.Content})
	}
	out, err := pyjson.Dumps(items)
	if err != nil {
		return "", err
	}
	return webapi.Bound(out, t.cfg.MaxResultBytes), nil
}

func (t *tavily) extract(ctx context.Context, a extractArgs) (string, error) {
	var urls []string
	for _, u := range strings.Split(a.URLs, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return "Error: No valid URLs provided.", nil
	}
	body := map[string]any{"urls": urls, "extract_depth": t.cfg.ExtractDepth}
	if t.cfg.IncludeImages {
		body["include_images"] = true
	}
	if t.cfg.IncludeFavicon {
		body["include_favicon"] = true
	}
	if t.cfg.ExtractTimeout > 0 {
		body["timeout"] = t.cfg.ExtractTimeout
	}
	var resp struct {
		Results []struct {
			URL          *string `json:"url"`
			RawContent   string  `json:"raw_content"`
			FailedReason string  `json:"failed_reason"`
		} `json:"results"`
	}
	if err := t.post(ctx, "/extract", body, &resp); err != nil {
		return "Error extracting content: " + err.Error(), nil
	}
	if len(resp.Results) == 0 {
		return "Error: No content could be extracted from the provided URL(s).", nil
	}
	var b strings.Builder
	for _, r := range resp.Results {
		u := "Unknown URL"
		if r.URL != nil {
			u = *r.URL
		}
		if t.cfg.ExtractFormat == "markdown" {
			switch {
			case r.FailedReason != "":
				fmt.Fprintf(&b, "## %s\n\n **Extraction Failed**: %s\n\n", u, r.FailedReason)
			case r.RawContent != "":
				fmt.Fprintf(&b, "## %s\n\n%s\n\n", u, r.RawContent)
			default:
				fmt.Fprintf(&b, "## %s\n\n*No content available*\n\n", u)
			}
			continue
		}
		// agno's text format: lines joined by "\n", each result ending
		// in a "\n" item.
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "URL: %s\n%s\n", u, strings.Repeat("-", 80))
		switch {
		case r.FailedReason != "":
			b.WriteString("EXTRACTION FAILED: " + r.FailedReason)
		case r.RawContent != "":
			b.WriteString(r.RawContent)
		default:
			b.WriteString("No content available")
		}
		b.WriteString("\n\n")
	}
	return webapi.Bound(b.String(), t.cfg.MaxResultBytes), nil
}
