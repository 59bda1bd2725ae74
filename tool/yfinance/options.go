package yfinance

import (
	"errors"
	"net/url"
	"time"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.yfinance]: agno's YFinanceTools
// arguments (its session becomes base_url, cookie_url and the timeouts)
// and the Toolkit's include_tools and exclude_tools.
type Options struct {
	EnableStockPrice             bool    `toml:"enable_stock_price"`
	EnableCompanyInfo            bool    `toml:"enable_company_info"`
	EnableStockFundamentals      bool    `toml:"enable_stock_fundamentals"`
	EnableIncomeStatements       bool    `toml:"enable_income_statements"`
	EnableKeyFinancialRatios     bool    `toml:"enable_key_financial_ratios"`
	EnableAnalystRecommendations bool    `toml:"enable_analyst_recommendations"`
	EnableCompanyNews            bool    `toml:"enable_company_news"`
	EnableTechnicalIndicators    bool    `toml:"enable_technical_indicators"`
	EnableHistoricalPrices       bool    `toml:"enable_historical_prices"`
	All                          bool    `toml:"all"`
	BaseURL                      string  `toml:"base_url"`
	CookieURL                    string  `toml:"cookie_url"`
	TimeoutSeconds               float64 `toml:"timeout_seconds"`
	MaxResultBytes               int     `toml:"max_result_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "stock prices, company info, fundamentals, statements, recommendations, news and price history from Yahoo Finance (agno's YFinanceTools)",
		// agno enables only get_current_stock_price unless told otherwise.
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableStockPrice: true, BaseURL: DefaultBaseURL, CookieURL: DefaultCookieURL, TimeoutSeconds: 30}
		},
		Check: checkOptions,
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				EnableStockPrice: o.EnableStockPrice, EnableCompanyInfo: o.EnableCompanyInfo, EnableStockFundamentals: o.EnableStockFundamentals,
				EnableIncomeStatements: o.EnableIncomeStatements, EnableKeyFinancialRatios: o.EnableKeyFinancialRatios,
				EnableAnalystRecommendations: o.EnableAnalystRecommendations, EnableCompanyNews: o.EnableCompanyNews,
				EnableTechnicalIndicators: o.EnableTechnicalIndicators, EnableHistoricalPrices: o.EnableHistoricalPrices, All: o.All,

				BaseURL: o.BaseURL, CookieURL: o.CookieURL, Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)),
				MaxResultBytes: o.MaxResultBytes, HTTPClient: env.HTTPClient,
			})
		},
	})
}

func checkOptions(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
	var errs []error
	for _, u := range []struct{ key, v, def string }{{"base_url", o.BaseURL, DefaultBaseURL}, {"cookie_url", o.CookieURL, DefaultCookieURL}} {
		if p, err := url.Parse(u.v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, tool.OptionErrorf(u.key, "%s = %q: use an http(s) URL such as %q", u.key, u.v, u.def))
		}
	}
	if o.TimeoutSeconds <= 0 {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds (default 30)", o.TimeoutSeconds))
	}
	if o.MaxResultBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_result_bytes", "max_result_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxResultBytes, DefaultMaxResultBytes))
	}
	return errors.Join(errs...)
}
