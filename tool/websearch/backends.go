package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// apiBackend is a search service with an API, answering in ddgs's
// result shapes so agents see the same keys whichever backend runs.
type apiBackend struct {
	// base is the default endpoint root; keyEnv the variables holding the
	// key (and, for Google, the engine id).
	base   string
	keyEnv string
	idEnv  string
	text   func(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error)
	news   func(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error)
}

// apiBackends are the backends besides DuckDuckGo, by name.
var apiBackends = map[string]apiBackend{
	// https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
	"brave": {base: "https://api.search.brave.com/res/v1", keyEnv: "BRAVE_API_KEY", text: braveText, news: braveNews},
	// https://developers.google.com/custom-search/v1/reference/rest/v1/cse/list
	"google": {base: "https://www.googleapis.com/customsearch/v1", keyEnv: "GOOGLE_API_KEY", idEnv: "GOOGLE_CSE_ID", text: googleText},
	// Bing Web Search API v7 and gateways answering its format:
	// https://learn.microsoft.com/en-us/previous-versions/bing/search-apis/bing-web-search/reference/response-objects
	"bing": {base: "https://api.bing.microsoft.com/v7.0", keyEnv: "BING_SUBSCRIPTION_KEY", text: bingText, news: bingNews},
	// https://docs.searxng.org/dev/search_api.html; base_url is the instance.
	"searxng": {text: searxText, news: searxNews},
	// https://serper.dev
	"serper": {base: "https://google.serper.dev", keyEnv: "SERPER_API_KEY", text: serperText, news: serperNews},
	// https://docs.tavily.com/documentation/api-reference/endpoint/search
	"tavily": {base: "https://api.tavily.com", keyEnv: "TAVILY_API_KEY", text: tavilyText, news: tavilyNews},
	// https://docs.exa.ai/reference/search
	"exa": {base: "https://api.exa.ai", keyEnv: "EXA_API_KEY", text: exaText},
	// Parallel's Search API (https://docs.parallel.ai, POST /v1/search):
	// results[].url/title/excerpts.
	"parallel": {base: "https://api.parallel.ai/v1", keyEnv: "PARALLEL_API_KEY", text: parallelText},
	// You.com's Search API (https://docs.you.com/get-started/quickstart):
	// results.web and results.news.
	"you": {base: "https://ydc-index.io/v1", keyEnv: "YDC_API_KEY", text: youText, news: youNews},
}

func (s *searcher) api() (*apiBackend, bool) { return s.backend, s.backend != nil }

func (s *searcher) base() string {
	if s.cfg.BaseURL != "" {
		return strings.TrimSuffix(s.cfg.BaseURL, "/")
	}
	return s.backend.base
}

// key is the backend's API key: the api_key option, else its variable.
func (s *searcher) key() (string, error) {
	b := s.backend
	if s.cfg.APIKey != "" {
		return s.cfg.APIKey, nil
	}
	if b.keyEnv == "" {
		return "", nil
	}
	if k := os.Getenv(b.keyEnv); k != "" {
		return k, nil
	}
	return "", fmt.Errorf("websearch: backend %q needs an API key: set %s, or api_key in [toolkits.websearch]", s.cfg.Backend, b.keyEnv)
}

func braveGet(ctx context.Context, s *searcher, path, q string, n int, out any) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	p := url.Values{"q": {q}, "count": {strconv.Itoa(n)}}
	if s.cfg.Region != "" {
		p.Set("country", regionCountry(s.cfg.Region))
	}
	if f := map[string]string{"d": "pd", "w": "pw", "m": "pm", "y": "py"}[s.cfg.Timelimit]; f != "" {
		p.Set("freshness", f)
	}
	return s.cfg.HTTP.GetJSON(ctx, s.base()+path+"?"+p.Encode(), http.Header{"X-Subscription-Token": {key}, "Accept": {"application/json"}}, out)
}

// regionCountry is the country of a DuckDuckGo region ("us-en" → "US").
func regionCountry(r string) string {
	c, _, _ := strings.Cut(r, "-")
	return strings.ToUpper(c)
}

func braveText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	var resp struct {
		Web struct {
			Results []struct{ Title, URL, Description string }
		}
	}
	if err := braveGet(ctx, s, "/web/search", q, n, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.Web.Results {
		out = append(out, TextResult{Title: clean(r.Title), Href: r.URL, Body: clean(r.Description)})
	}
	return out, nil
}

func braveNews(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error) {
	var resp struct {
		Results []struct {
			Title, URL, Description string
			PageAge                 string                    `json:"page_age"`
			MetaURL                 struct{ Hostname string } `json:"meta_url"`
			Thumbnail               struct{ Src string }
		}
	}
	if err := braveGet(ctx, s, "/news/search", q, n, &resp); err != nil {
		return nil, err
	}
	var out []NewsResult
	for _, r := range resp.Results {
		out = append(out, NewsResult{Date: r.PageAge, Title: clean(r.Title), Body: clean(r.Description), URL: r.URL, Image: r.Thumbnail.Src, Source: r.MetaURL.Hostname})
	}
	return out, nil
}

func googleText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	cx := s.cfg.SearchEngineID
	if cx == "" {
		cx = os.Getenv("GOOGLE_CSE_ID")
	}
	if cx == "" {
		return nil, fmt.Errorf("websearch: backend \"google\" needs a Programmable Search engine id: set GOOGLE_CSE_ID, or search_engine_id in [toolkits.websearch]")
	}
	// The API answers at most 10 results a request.
	p := url.Values{"key": {key}, "cx": {cx}, "q": {q}, "num": {strconv.Itoa(min(max(n, 1), 10))}}
	if s.cfg.Timelimit != "" {
		p.Set("dateRestrict", s.cfg.Timelimit+"1")
	}
	if s.cfg.Region != "" {
		p.Set("gl", strings.ToLower(regionCountry(s.cfg.Region)))
	}
	var resp struct {
		Items []struct{ Title, Link, Snippet string }
	}
	if err := s.cfg.HTTP.GetJSON(ctx, s.base()+"?"+p.Encode(), nil, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.Items {
		out = append(out, TextResult{Title: clean(r.Title), Href: r.Link, Body: clean(r.Snippet)})
	}
	return out, nil
}

func bingGet(ctx context.Context, s *searcher, path, q string, n int, out any) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	p := url.Values{"q": {q}, "count": {strconv.Itoa(n)}}
	if s.cfg.Region != "" {
		c, l, _ := strings.Cut(s.cfg.Region, "-")
		p.Set("mkt", l+"-"+strings.ToUpper(c))
	}
	if f := map[string]string{"d": "Day", "w": "Week", "m": "Month"}[s.cfg.Timelimit]; f != "" {
		p.Set("freshness", f)
	}
	return s.cfg.HTTP.GetJSON(ctx, s.base()+path+"?"+p.Encode(), http.Header{"Ocp-Apim-Subscription-Key": {key}}, out)
}

func bingText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	var resp struct {
		WebPages struct {
			Value []struct{ Name, URL, Snippet string }
		}
	}
	if err := bingGet(ctx, s, "/search", q, n, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.WebPages.Value {
		out = append(out, TextResult{Title: clean(r.Name), Href: r.URL, Body: clean(r.Snippet)})
	}
	return out, nil
}

func bingNews(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error) {
	var resp struct {
		Value []struct {
			Name, URL, Description, DatePublished string
			Image                                 struct{ Thumbnail struct{ ContentURL string } }
			Provider                              []struct{ Name string }
		}
	}
	if err := bingGet(ctx, s, "/news/search", q, n, &resp); err != nil {
		return nil, err
	}
	var out []NewsResult
	for _, r := range resp.Value {
		src := ""
		if len(r.Provider) > 0 {
			src = r.Provider[0].Name
		}
		out = append(out, NewsResult{Date: r.DatePublished, Title: clean(r.Name), Body: clean(r.Description), URL: r.URL, Image: r.Image.Thumbnail.ContentURL, Source: src})
	}
	return out, nil
}

type searxResult struct {
	URL, Title, Content, Thumbnail, Engine string
	PublishedDate                          *string `json:"publishedDate"`
}

func searxGet(ctx context.Context, s *searcher, q, category string) ([]searxResult, error) {
	if s.cfg.BaseURL == "" {
		return nil, fmt.Errorf("websearch: backend \"searxng\" needs the instance: set base_url in [toolkits.websearch]")
	}
	p := url.Values{"q": {q}, "format": {"json"}}
	if category != "" {
		p.Set("categories", category)
	}
	if f := map[string]string{"d": "day", "w": "week", "m": "month", "y": "year"}[s.cfg.Timelimit]; f != "" {
		p.Set("time_range", f)
	}
	var resp struct{ Results []searxResult }
	if err := s.cfg.HTTP.GetJSON(ctx, s.base()+"/search?"+p.Encode(), nil, &resp); err != nil {
		return nil, err
	}
	return resp.Results, nil
}

func searxText(ctx context.Context, s *searcher, q string, _ int) ([]TextResult, error) {
	rs, err := searxGet(ctx, s, q, "")
	var out []TextResult
	for _, r := range rs {
		out = append(out, TextResult{Title: clean(r.Title), Href: r.URL, Body: clean(r.Content)})
	}
	return out, err
}

func searxNews(ctx context.Context, s *searcher, q string, _ int) ([]NewsResult, error) {
	rs, err := searxGet(ctx, s, q, "news")
	var out []NewsResult
	for _, r := range rs {
		d := ""
		if r.PublishedDate != nil {
			d = *r.PublishedDate
		}
		out = append(out, NewsResult{Date: d, Title: clean(r.Title), Body: clean(r.Content), URL: r.URL, Image: r.Thumbnail, Source: r.Engine})
	}
	return out, err
}

func serperPost(ctx context.Context, s *searcher, path, q string, n int, out any) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	body := map[string]any{"q": q, "num": n}
	if s.cfg.Region != "" {
		c, l, _ := strings.Cut(s.cfg.Region, "-")
		body["gl"], body["hl"] = c, l
	}
	if s.cfg.Timelimit != "" {
		body["tbs"] = "qdr:" + s.cfg.Timelimit
	}
	return s.cfg.HTTP.PostJSON(ctx, s.base()+path, http.Header{"X-API-KEY": {key}}, body, out)
}

func serperText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	var resp struct {
		Organic []struct{ Title, Link, Snippet string }
	}
	if err := serperPost(ctx, s, "/search", q, n, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.Organic {
		out = append(out, TextResult{Title: r.Title, Href: r.Link, Body: r.Snippet})
	}
	return out, nil
}

func serperNews(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error) {
	var resp struct {
		News []struct{ Title, Link, Snippet, Date, Source, ImageURL string }
	}
	if err := serperPost(ctx, s, "/news", q, n, &resp); err != nil {
		return nil, err
	}
	var out []NewsResult
	for _, r := range resp.News {
		out = append(out, NewsResult{Date: r.Date, Title: r.Title, Body: r.Snippet, URL: r.Link, Image: r.ImageURL, Source: r.Source})
	}
	return out, nil
}

type tavilyResult struct {
	Title, URL, Content string
	PublishedDate       string `json:"published_date"`
}

func tavilySearch(ctx context.Context, s *searcher, q string, n int, topic string) ([]tavilyResult, error) {
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	body := map[string]any{"query": q, "max_results": n, "topic": topic}
	if f := map[string]string{"d": "day", "w": "week", "m": "month", "y": "year"}[s.cfg.Timelimit]; f != "" {
		body["time_range"] = f
	}
	var resp struct{ Results []tavilyResult }
	err = s.cfg.HTTP.PostJSON(ctx, s.base()+"/search", http.Header{"Authorization": {"Bearer " + key}}, body, &resp)
	return resp.Results, err
}

func tavilyText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	rs, err := tavilySearch(ctx, s, q, n, "general")
	var out []TextResult
	for _, r := range rs {
		out = append(out, TextResult{Title: r.Title, Href: r.URL, Body: r.Content})
	}
	return out, err
}

func tavilyNews(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error) {
	rs, err := tavilySearch(ctx, s, q, n, "news")
	var out []NewsResult
	for _, r := range rs {
		src := ""
		if u, err := url.Parse(r.URL); err == nil {
			src = u.Hostname()
		}
		out = append(out, NewsResult{Date: r.PublishedDate, Title: r.Title, Body: r.Content, URL: r.URL, Source: src})
	}
	return out, err
}

func exaText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	body := map[string]any{"query": q, "numResults": n, "contents": map[string]any{"text": map[string]any{"maxCharacters": 1000}}}
	var resp struct {
		Results []struct {
			Title *string
			URL   string
			Text  *string
		}
	}
	if err := s.cfg.HTTP.PostJSON(ctx, s.base()+"/search", http.Header{"x-api-key": {key}}, body, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.Results {
		t := TextResult{Href: r.URL}
		if r.Title != nil {
			t.Title = *r.Title
		}
		if r.Text != nil {
			t.Body = strings.Join(strings.Fields(*r.Text), " ")
		}
		out = append(out, t)
	}
	return out, nil
}

type youResults struct {
	Results struct {
		Web []struct {
			URL, Title, Description string
			Snippets                []string
		}
		News []struct {
			URL, Title, Description string
			PageAge                 string `json:"page_age"`
			ThumbnailURL            string `json:"thumbnail_url"`
		}
	}
}

func youGet(ctx context.Context, s *searcher, q string, n int) (youResults, error) {
	var resp youResults
	key, err := s.key()
	if err != nil {
		return resp, err
	}
	p := url.Values{"query": {q}, "count": {strconv.Itoa(n)}}
	if s.cfg.Region != "" {
		p.Set("country", regionCountry(s.cfg.Region))
	}
	if f := map[string]string{"d": "day", "w": "week", "m": "month", "y": "year"}[s.cfg.Timelimit]; f != "" {
		p.Set("freshness", f)
	}
	err = s.cfg.HTTP.GetJSON(ctx, s.base()+"/search?"+p.Encode(), http.Header{"X-API-Key": {key}}, &resp)
	return resp, err
}

func youText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	resp, err := youGet(ctx, s, q, n)
	var out []TextResult
	for _, r := range resp.Results.Web {
		body := r.Description
		if body == "" && len(r.Snippets) > 0 {
			body = r.Snippets[0]
		}
		out = append(out, TextResult{Title: clean(r.Title), Href: r.URL, Body: clean(body)})
	}
	return out, err
}

func youNews(ctx context.Context, s *searcher, q string, n int) ([]NewsResult, error) {
	resp, err := youGet(ctx, s, q, n)
	var out []NewsResult
	for _, r := range resp.Results.News {
		src := ""
		if u, err := url.Parse(r.URL); err == nil {
			src = u.Hostname()
		}
		out = append(out, NewsResult{Date: r.PageAge, Title: clean(r.Title), Body: clean(r.Description), URL: r.URL, Image: r.ThumbnailURL, Source: src})
	}
	return out, err
}

func parallelText(ctx context.Context, s *searcher, q string, n int) ([]TextResult, error) {
	key, err := s.key()
	if err != nil {
		return nil, err
	}
	body := map[string]any{"objective": q, "search_queries": []string{q}, "advanced_settings": map[string]any{"max_results": n}}
	var resp struct {
		Results []struct {
			URL      string
			Title    *string
			Excerpts []string
		}
	}
	if err := s.cfg.HTTP.PostJSON(ctx, s.base()+"/search", http.Header{"x-api-key": {key}}, body, &resp); err != nil {
		return nil, err
	}
	var out []TextResult
	for _, r := range resp.Results {
		t := TextResult{Href: r.URL, Body: strings.Join(strings.Fields(strings.Join(r.Excerpts, " ")), " ")}
		if r.Title != nil {
			t.Title = *r.Title
		}
		out = append(out, t)
	}
	return out, nil
}
