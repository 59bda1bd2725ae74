// Package yfinance is agno's YFinanceTools over Yahoo Finance's public
// JSON endpoints, read as the yfinance library reads them: the chart
// (/v8/finance/chart: prices and history), quoteSummary
// (/v10/finance/quoteSummary: the info dict, income statements,
// recommendation trend) and search (/v1/finance/search: news). Each
// function answers with the text agno builds from yfinance's objects:
// json.dumps of the same keys, and pandas' to_json(orient="index") for
// the tables.
//
//	[toolkits.yfinance]
//	all = true                      # or enable_company_info = true, ...
//	# base_url = "https://query2.finance.yahoo.com"
//
//	# an agent: tools = ["yfinance"]
package yfinance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "yfinance_tools".
const ToolkitName = "yfinance"

// Defaults of the options.
const (
	DefaultBaseURL        = "https://query2.finance.yahoo.com"
	DefaultCookieURL      = "https://fc.yahoo.com"
	DefaultMaxResultBytes = 64 << 10
	defaultTimeout        = 30 * time.Second
)

// infoModules are the quoteSummary modules yfinance merges into a
// ticker's info dict; "price" stands in for its v7 quote call (name,
// regularMarketPrice, currency, marketCap).
var infoModules = []string{"financialData", "quoteType", "defaultKeyStatistics", "assetProfile", "summaryDetail", "price"}

// Config configures New; the zero value enables nothing (Options holds
// agno's defaults).
type Config struct {
	EnableStockPrice, EnableCompanyInfo, EnableStockFundamentals, EnableIncomeStatements bool
	EnableKeyFinancialRatios, EnableAnalystRecommendations, EnableCompanyNews            bool
	EnableTechnicalIndicators, EnableHistoricalPrices, All                               bool
	// Include and Exclude are agno's include_tools and exclude_tools.
	Include, Exclude []string
	// BaseURL serves the chart, quoteSummary, getcrumb and search paths.
	BaseURL string
	// CookieURL sets the cookie Yahoo's crumb is tied to.
	CookieURL string
	Timeout   time.Duration
	// MaxResultBytes bounds each result (0: DefaultMaxResultBytes).
	MaxResultBytes int
	// HTTPClient makes the calls: the guarded client (nil: a plain one).
	HTTPClient *http.Client
}

type symbolArgs struct {
	Symbol string `json:"symbol" description:"(str) The stock symbol."`
}

type historyArgs struct {
	Symbol   string `json:"symbol" description:"(str) The stock symbol."`
	Period   string `json:"period,omitempty" description:"(str) The period for which to retrieve historical prices. Defaults to \"1mo\".\nValid periods: 1d,5d,1mo,3mo,6mo,1y,2y,5y,10y,ytd,max"`
	Interval string `json:"interval,omitempty" description:"(str) The interval between data points. Defaults to \"1d\".\nValid intervals: 1d,5d,1wk,1mo,3mo"`
}

type newsArgs struct {
	Symbol     string `json:"symbol" description:"(str) The stock symbol."`
	NumStories *int   `json:"num_stories,omitempty" description:"(int) The number of news stories to return. Defaults to 3."`
}

type indicatorArgs struct {
	Symbol string `json:"symbol" description:"(str) The stock symbol."`
	Period string `json:"period,omitempty" description:"(str) The time period for which to retrieve technical indicators.\nValid periods: 1d, 5d, 1mo, 3mo, 6mo, 1y, 2y, 5y, 10y, ytd, max. Defaults to 3mo."`
}

type toolkit struct {
	y   *yahoo
	max int
}

// New builds agno's YFinanceTools.
func New(cfg Config) (*tool.Toolkit, error) {
	hc := http.DefaultClient
	if cfg.HTTPClient != nil {
		hc = cfg.HTTPClient
	}
	// Our own cookie jar for Yahoo's crumb, on the same (guarded) transport.
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	c := *hc
	c.Jar = jar
	base, cookie := cfg.BaseURL, cfg.CookieURL
	if base == "" {
		base = DefaultBaseURL
	}
	if cookie == "" {
		cookie = DefaultCookieURL
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	tk := &toolkit{y: &yahoo{http: &c, base: strings.TrimRight(base, "/"), cookieURL: cookie, timeout: timeout}, max: cfg.MaxResultBytes}
	if tk.max <= 0 {
		tk.max = DefaultMaxResultBytes
	}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableStockPrice)(tool.New("get_current_stock_price", "Use this function to get the current stock price for a given symbol.", tk.currentPrice))
	fns.If(cfg.EnableCompanyInfo)(tool.New("get_company_info", "Use this function to get company information and overview for a given stock symbol.", tk.companyInfo))
	fns.If(cfg.EnableStockFundamentals)(tool.New("get_stock_fundamentals", "Use this function to get fundamental data for a given stock symbol yfinance API.", tk.fundamentals))
	fns.If(cfg.EnableIncomeStatements)(tool.New("get_income_statements", "Use this function to get income statements for a given stock symbol.", tk.incomeStatements))
	fns.If(cfg.EnableKeyFinancialRatios)(tool.New("get_key_financial_ratios", "Use this function to get key financial ratios for a given stock symbol.", tk.keyRatios))
	fns.If(cfg.EnableAnalystRecommendations)(tool.New("get_analyst_recommendations", "Use this function to get analyst recommendations for a given stock symbol.", tk.recommendations))
	fns.If(cfg.EnableCompanyNews)(tool.New("get_company_news", "Use this function to get company news and press releases for a given stock symbol.", tk.companyNews))
	fns.If(cfg.EnableTechnicalIndicators)(tool.New("get_technical_indicators", "Use this function to get technical indicators for a given stock symbol.", tk.technicalIndicators))
	fns.If(cfg.EnableHistoricalPrices)(tool.New("get_historical_stock_prices", "Use this function to get the historical stock price for a given symbol.", tk.historicalPrices))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "yfinance_tools", Functions: list, Include: cfg.Include, Exclude: cfg.Exclude})
}

// bound cuts a result at the toolkit's limit, on a character boundary,
// saying so.
func (tk *toolkit) bound(s string) string {
	if len(s) <= tk.max {
		return s
	}
	cut := tk.max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown (max_result_bytes is %d)]", cut, len(s), tk.max)
}

func (tk *toolkit) currentPrice(ctx context.Context, a symbolArgs) (string, error) {
	ch, err := tk.y.chart(ctx, a.Symbol, url.Values{"range": {"1d"}, "interval": {"1d"}})
	if err != nil {
		return fmt.Sprintf("Error fetching current price for %s: %v", a.Symbol, err), nil
	}
	if p := ch.Meta.RegularMarketPrice; p != nil && *p != 0 {
		return strconv.FormatFloat(*p, 'f', 4, 64), nil
	}
	return "Could not fetch current price for " + a.Symbol, nil
}

// info is yfinance's Ticker.info: the info modules' values flattened
// into one dict, in module order, maxAge and empty values dropped.
func (tk *toolkit) info(ctx context.Context, symbol string) (*object, error) {
	mods, err := tk.y.quoteSummary(ctx, symbol, infoModules...)
	if err != nil {
		return nil, err
	}
	info := newObject()
	for _, m := range infoModules {
		raw, ok := mods[m]
		if !ok {
			continue
		}
		f := fields(raw)
		for _, k := range f.keys {
			if k == "maxAge" {
				continue
			}
			if v, ok := plain(f.vals[k]); ok {
				info.set(k, v)
			}
		}
	}
	if len(info.keys) == 0 {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance has no data for %s", symbol)
	}
	return info, nil
}

// pyValue is str(value) in an f-string: None when absent, numbers in
// Python's repr.
func pyValue(v json.RawMessage, ok bool) string {
	if !ok {
		return "None"
	}
	var x any
	d := json.NewDecoder(strings.NewReader(string(v)))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return string(v)
	}
	switch t := x.(type) {
	case nil:
		return "None"
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return "False"
	case json.Number:
		return pyrepr.Number(t)
	}
	return pyrepr.Repr(x)
}

// or is info.get(a, info.get(b)).
func or(info *object, a, b string) (json.RawMessage, bool) {
	if v, ok := info.get(a); ok {
		return v, true
	}
	return info.get(b)
}

func orDefault(info *object, k string, def json.RawMessage) json.RawMessage {
	if v, ok := info.get(k); ok {
		return v
	}
	return def
}

func (tk *toolkit) companyInfo(ctx context.Context, a symbolArgs) (string, error) {
	info, err := tk.info(ctx, a.Symbol)
	if err != nil {
		return fmt.Sprintf("Error fetching company profile for %s: %v", a.Symbol, err), nil
	}
	currency := "USD"
	if v, ok := info.get("currency"); ok {
		currency = pyValue(v, true)
	}
	out := newObject()
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	null := json.RawMessage("null")
	get := func(k string) json.RawMessage { return orDefault(info, k, null) }
	out.set("Name", get("shortName"))
	out.set("Symbol", get("symbol"))
	price, pok := or(info, "regularMarketPrice", "currentPrice")
	out.set("Current Stock Price", str(pyValue(price, pok)+" "+currency))
	mcap, mok := or(info, "marketCap", "enterpriseValue")
	out.set("Market Cap", str(pyValue(mcap, mok)+" "+currency))
	for _, kv := range [][2]string{
		{"Sector", "sector"}, {"Industry", "industry"}, {"Address", "address1"}, {"City", "city"}, {"State", "state"},
		{"Zip", "zip"}, {"Country", "country"}, {"EPS", "trailingEps"}, {"P/E Ratio", "trailingPE"},
		{"52 Week Low", "fiftyTwoWeekLow"}, {"52 Week High", "fiftyTwoWeekHigh"}, {"50 Day Average", "fiftyDayAverage"},
		{"200 Day Average", "twoHundredDayAverage"}, {"Website", "website"}, {"Summary", "longBusinessSummary"},
		{"Analyst Recommendation", "recommendationKey"}, {"Number Of Analyst Opinions", "numberOfAnalystOpinions"},
		{"Employees", "fullTimeEmployees"}, {"Total Cash", "totalCash"}, {"Free Cash flow", "freeCashflow"},
		{"Operating Cash flow", "operatingCashflow"}, {"EBITDA", "ebitda"}, {"Revenue Growth", "revenueGrowth"},
		{"Gross Margins", "grossMargins"}, {"Ebitda Margins", "ebitdaMargins"},
	} {
		out.set(kv[0], get(kv[1]))
	}
	return tk.dumps(out, "Error fetching company profile for "+a.Symbol)
}

func (tk *toolkit) dumps(v any, errPrefix string) (string, error) {
	s, err := pyjson.DumpsOpts(v, pyjson.Options{Indent: 2})
	if err != nil {
		return fmt.Sprintf("%s: %v", errPrefix, err), nil
	}
	return tk.bound(s), nil
}

func (tk *toolkit) fundamentals(ctx context.Context, a symbolArgs) (string, error) {
	info, err := tk.info(ctx, a.Symbol)
	if err != nil {
		return fmt.Sprintf("Error getting fundamentals for %s: %v", a.Symbol, err), nil
	}
	sym, _ := json.Marshal(a.Symbol)
	empty, na := json.RawMessage(`""`), json.RawMessage(`"N/A"`)
	out := newObject()
	out.set("symbol", sym)
	out.set("company_name", orDefault(info, "longName", empty))
	out.set("sector", orDefault(info, "sector", empty))
	out.set("industry", orDefault(info, "industry", empty))
	for _, kv := range [][2]string{
		{"market_cap", "marketCap"}, {"pe_ratio", "forwardPE"}, {"pb_ratio", "priceToBook"}, {"dividend_yield", "dividendYield"},
		{"eps", "trailingEps"}, {"beta", "beta"}, {"52_week_high", "fiftyTwoWeekHigh"}, {"52_week_low", "fiftyTwoWeekLow"},
	} {
		out.set(kv[0], orDefault(info, kv[1], na))
	}
	return tk.dumps(out, "Error getting fundamentals for "+a.Symbol)
}

func (tk *toolkit) keyRatios(ctx context.Context, a symbolArgs) (string, error) {
	info, err := tk.info(ctx, a.Symbol)
	if err != nil {
		return fmt.Sprintf("Error fetching key financial ratios for %s: %v", a.Symbol, err), nil
	}
	return tk.dumps(info, "Error fetching key financial ratios for "+a.Symbol)
}

// title is yfinance's camel2title: "totalRevenue" → "Total Revenue".
func title(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i == 0 {
			b.WriteRune(unicode.ToUpper(r))
			continue
		}
		if unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// number reads a quoteSummary number (plain or {"raw": x}).
func number(v json.RawMessage) (float64, bool) {
	p, ok := plain(v)
	if !ok {
		return 0, false
	}
	var f float64
	if json.Unmarshal(p, &f) != nil {
		return 0, false
	}
	return f, true
}

// incomeStatements is Ticker.financials.to_json(orient="index"): a row
// per line item, a column per fiscal year's end (epoch milliseconds).
func (tk *toolkit) incomeStatements(ctx context.Context, a symbolArgs) (string, error) {
	fail := func(err error) (string, error) {
		return fmt.Sprintf("Error fetching income statements for %s: %v", a.Symbol, err), nil
	}
	mods, err := tk.y.quoteSummary(ctx, a.Symbol, "incomeStatementHistory")
	if err != nil {
		return fail(err)
	}
	var hist struct {
		Statements []json.RawMessage `json:"incomeStatementHistory"`
	}
	if raw, ok := mods["incomeStatementHistory"]; ok {
		if err := json.Unmarshal(raw, &hist); err != nil {
			return fail(err)
		}
	}
	var cols []string
	var rows []string
	cells := map[string]map[string]string{}
	for _, st := range hist.Statements {
		f := fields(st)
		end, ok := number(f.vals["endDate"])
		if !ok {
			continue
		}
		col := strconv.FormatInt(int64(end)*1000, 10)
		cols = append(cols, col)
		for _, k := range f.keys {
			if k == "maxAge" || k == "endDate" {
				continue
			}
			row := title(k)
			if cells[row] == nil {
				cells[row] = map[string]string{}
				rows = append(rows, row)
			}
			if n, ok := number(f.vals[k]); ok {
				cells[row][col] = pandasFloat(n)
			}
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, row)
		b.WriteByte('{')
		for j, col := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			writeKey(&b, col)
			if v, ok := cells[row][col]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("null")
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return tk.bound(b.String()), nil
}

// writeKey writes a JSON key as pandas does (no ASCII escaping, "/"
// escaped as ujson does).
func writeKey(b *strings.Builder, k string) {
	kb, _ := json.Marshal(k)
	b.WriteString(strings.ReplaceAll(string(kb), "/", `\/`))
	b.WriteByte(':')
}

// recommendations is Ticker.recommendations.to_json(orient="index"): the
// recommendationTrend module's rows by position.
func (tk *toolkit) recommendations(ctx context.Context, a symbolArgs) (string, error) {
	fail := func(err error) (string, error) {
		return fmt.Sprintf("Error fetching analyst recommendations for %s: %v", a.Symbol, err), nil
	}
	mods, err := tk.y.quoteSummary(ctx, a.Symbol, "recommendationTrend")
	if err != nil {
		return fail(err)
	}
	var trend struct {
		Trend []json.RawMessage `json:"trend"`
	}
	if raw, ok := mods["recommendationTrend"]; ok {
		if err := json.Unmarshal(raw, &trend); err != nil {
			return fail(err)
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, row := range trend.Trend {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, strconv.Itoa(i))
		b.WriteByte('{')
		f := fields(row)
		n := 0
		for _, k := range f.keys {
			if k == "maxAge" {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			writeKey(&b, k)
			v, ok := plain(f.vals[k])
			if !ok {
				v = json.RawMessage("null")
			}
			b.Write(v)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return tk.bound(b.String()), nil
}

func (tk *toolkit) companyNews(ctx context.Context, a newsArgs) (string, error) {
	n := 3
	if a.NumStories != nil {
		n = *a.NumStories
	}
	count := max(n, 10) // yfinance's own count; a negative n slices from its end
	news, err := tk.y.news(ctx, a.Symbol, min(count, 100))
	if err != nil {
		return fmt.Sprintf("Error fetching company news for %s: %v", a.Symbol, err), nil
	}
	items := pySlice(news, n)
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	return tk.dumps(list, "Error fetching company news for "+a.Symbol)
}

// pySlice is Python's l[:n].
func pySlice[T any](l []T, n int) []T {
	if n < 0 {
		n = max(len(l)+n, 0)
	}
	return l[:min(n, len(l))]
}

func (tk *toolkit) historicalPrices(ctx context.Context, a historyArgs) (string, error) {
	period, interval := cmpOr(a.Period, "1mo"), cmpOr(a.Interval, "1d")
	s, err := tk.history(ctx, a.Symbol, period, interval)
	if err != nil {
		return fmt.Sprintf("Error fetching historical prices for %s: %v", a.Symbol, err), nil
	}
	return tk.bound(s), nil
}

func (tk *toolkit) technicalIndicators(ctx context.Context, a indicatorArgs) (string, error) {
	s, err := tk.history(ctx, a.Symbol, cmpOr(a.Period, "3mo"), "1d")
	if err != nil {
		return fmt.Sprintf("Error fetching technical indicators for %s: %v", a.Symbol, err), nil
	}
	return tk.bound(s), nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

var validPeriods = []string{"1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"}

// history is Ticker.history(period, interval).to_json(orient="index"):
// rows by timestamp (epoch milliseconds; daily and longer bars at
// midnight of the exchange's day, as yfinance puts them), columns Open,
// High, Low, Close, Volume, Dividends, Stock Splits, prices adjusted for
// splits and dividends (yfinance's auto_adjust=True).
func (tk *toolkit) history(ctx context.Context, symbol, period, interval string) (string, error) {
	if !slices.Contains(validPeriods, period) {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return "", fmt.Errorf("Period '%s' is invalid, must be one of: %s", period, strings.Join(validPeriods, ", "))
	}
	ch, err := tk.y.chart(ctx, symbol, url.Values{"range": {period}, "interval": {interval}, "includePrePost": {"false"}, "events": {"div,splits,capitalGains"}})
	if err != nil {
		return "", err
	}
	loc := time.FixedZone("", ch.Meta.GMTOffset)
	if ch.Meta.ExchangeTimezoneName != "" {
		if l, err := time.LoadLocation(ch.Meta.ExchangeTimezoneName); err == nil {
			loc = l
		}
	}
	daily := !strings.HasSuffix(interval, "m") && !strings.HasSuffix(interval, "h")
	key := func(ts int64) int64 {
		t := time.Unix(ts, 0).In(loc)
		if daily {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		}
		return t.UnixMilli()
	}
	divs, splits := map[int64]float64{}, map[int64]float64{}
	for _, d := range ch.Events.Dividends {
		divs[key(d.Date)] += d.Amount
	}
	for _, s := range ch.Events.Splits {
		if s.Denominator != 0 {
			splits[key(s.Date)] = s.Numerator / s.Denominator
		}
	}
	at := func(l []*float64, i int) (float64, bool) {
		if i < len(l) && l[i] != nil {
			return *l[i], true
		}
		return 0, false
	}
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	if len(ch.Indicators.Quote) > 0 {
		q := ch.Indicators.Quote[0]
		var adj []*float64
		if len(ch.Indicators.AdjClose) > 0 {
			adj = ch.Indicators.AdjClose[0].AdjClose
		}
		seen := map[int64]bool{}
		for i, ts := range ch.Timestamp {
			o, ook := at(q.Open, i)
			h, hok := at(q.High, i)
			l, lok := at(q.Low, i)
			c, cok := at(q.Close, i)
			k := key(ts)
			if (!ook && !hok && !lok && !cok) || seen[k] {
				continue // yfinance drops empty bars and repeated days
			}
			seen[k] = true
			if ac, ok := at(adj, i); ok && cok && c != 0 {
				r := ac / c
				o, h, l, c = o*r, h*r, l*r, ac
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			writeKey(&b, strconv.FormatInt(k, 10))
			cell := func(v float64, ok bool) string {
				if !ok {
					return "null"
				}
				return pandasFloat(v)
			}
			vol := "0"
			if v, ok := at(q.Volume, i); ok {
				vol = strconv.FormatInt(int64(v), 10)
			}
			fmt.Fprintf(&b, `{"Open":%s,"High":%s,"Low":%s,"Close":%s,"Volume":%s,"Dividends":%s,"Stock Splits":%s}`,
				cell(o, ook), cell(h, hok), cell(l, lok), cell(c, cok), vol, pandasFloat(divs[k]), pandasFloat(splits[k]))
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}
