package websearch

import (
	"errors"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
)

// Options are the keys of [toolkits.websearch] (and of
// [toolkits.duckduckgo]): agno's WebSearchTools arguments, plus
// DuckDuckGo's endpoints (html_url, news_url), an API backend's api_key,
// search_engine_id (Google's cx) and base_url, and the result bound.
type Options struct {
	EnableSearch    bool   `toml:"enable_search"`
	EnableNews      bool   `toml:"enable_news"`
	Backend         string `toml:"backend"`
	Modifier        string `toml:"modifier"`
	FixedMaxResults int    `toml:"fixed_max_results"`
	Proxy           string `toml:"proxy"`
	Timeout         int    `toml:"timeout"`
	VerifySSL       bool   `toml:"verify_ssl"`
	Timelimit       string `toml:"timelimit"`
	Region          string `toml:"region"`
	HTMLURL         string `toml:"html_url"`
	NewsURL         string `toml:"news_url"`
	APIKey          string `toml:"api_key"`
	SearchEngineID  string `toml:"search_engine_id"`
	BaseURL         string `toml:"base_url"`
	MaxResultBytes  int    `toml:"max_result_bytes"`
}

// DefaultOptions are agno's defaults with the given backend.
func DefaultOptions(backend string) Options {
	return Options{
		EnableSearch: true, EnableNews: true, Backend: backend, Timeout: 10, VerifySSL: true,
		HTMLURL: DefaultHTMLURL, NewsURL: DefaultNewsURL, MaxResultBytes: webapi.DefaultMaxResultBytes,
	}
}

// CheckOptions validates the options of websearch and duckduckgo.
func CheckOptions(o *Options) error {
	var errs []error
	if err := CheckBackend(o.Backend); err != nil {
		errs = append(errs, tool.OptionErrorf("backend", "backend = %q: %v", o.Backend, err))
	}
	if err := CheckTimelimit(o.Timelimit); err != nil {
		errs = append(errs, tool.OptionErrorf("timelimit", "timelimit = %q: %v", o.Timelimit, err))
	}
	if o.Proxy != "" {
		// Requests go through the host's guarded client; a proxy would
		// let them around its checks.
		errs = append(errs, tool.OptionErrorf("proxy", "proxy = %q: the toolkit's requests go through the host's guarded client ([outbound] in config.toml); remove proxy and set HTTPS_PROXY for the process if one is needed", o.Proxy))
	}
	if !o.VerifySSL {
		errs = append(errs, tool.OptionErrorf("verify_ssl", "verify_ssl = false: certificates are always verified; remove the key"))
	}
	if o.FixedMaxResults < 0 {
		errs = append(errs, tool.OptionErrorf("fixed_max_results", "fixed_max_results = %d: use a positive number, or leave it out", o.FixedMaxResults))
	}
	if err := webapi.CheckURL("html_url", o.HTMLURL); err != nil {
		errs = append(errs, err)
	}
	if err := webapi.CheckURL("news_url", o.NewsURL); err != nil {
		errs = append(errs, err)
	}
	if o.BaseURL != "" {
		errs = append(errs, webapi.CheckURL("base_url", o.BaseURL))
	}
	errs = append(errs, webapi.CheckCommon(o.Timeout, o.MaxResultBytes))
	return errors.Join(errs...)
}

// Build builds the toolkit from checked options.
func Build(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
	c, err := webapi.NewClient(env, webapi.Seconds(o.Timeout))
	if err != nil {
		return nil, err
	}
	return New(Config{
		EnableSearch: o.EnableSearch, EnableNews: o.EnableNews, Backend: o.Backend, Modifier: o.Modifier,
		FixedMaxResults: o.FixedMaxResults, Timelimit: o.Timelimit, Region: o.Region,
		HTMLURL: o.HTMLURL, NewsURL: o.NewsURL, APIKey: o.APIKey, SearchEngineID: o.SearchEngineID, BaseURL: o.BaseURL,
		HTTP: c, MaxResultBytes: o.MaxResultBytes,
	})
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "web_search and search_news through DuckDuckGo, or the search API backend names (agno's WebSearchTools)",
		Defaults: func(tool.ToolkitEnv) Options { return DefaultOptions("auto") },
		Check:    func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error { return CheckOptions(o) },
		New:      Build,
	})
}
