package yfinance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
	_ "github.com/agno-go/agno/tool/yfinance" // registers "yfinance"
)

// fakeYahoo answers as Yahoo Finance's public endpoints do, in the shapes
// the yfinance library parses (github.com/ranaroussi/yfinance:
// yfinance/scrapers/history.py reads chart.result[0].meta, timestamp,
// indicators.quote[0], indicators.adjclose[0] and events; scrapers/quote.py
// reads quoteSummary.result[0].<module> with formatted=false after the
// fc.yahoo.com cookie and /v1/test/getcrumb; the news come from
// /v1/finance/search's "news" list). Errors carry Yahoo's body
// {"chart": {"result": null, "error": {"code": ..., "description": ...}}}.
type fakeYahoo struct {
	srv         *httptest.Server
	crumb       atomic.Value // the crumb getcrumb hands out
	staleCrumbs atomic.Int32 // answer 401 to this many quoteSummary calls
	crumbCalls  atomic.Int32
}

const (
	// 2024-12-02 and 2024-12-03, 09:30 New York (14:30 UTC).
	day1 = 1733149800
	day2 = 1733236200
	// Their midnights in New York, in milliseconds: yfinance's index.
	day1Key = "1733115600000"
	day2Key = "1733202000000"
)

func newFakeYahoo(t *testing.T) *fakeYahoo {
	f := &fakeYahoo{}
	f.crumb.Store("Xy7.crumb")
	mux := http.NewServeMux()
	mux.HandleFunc("/cookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "A3", Value: "d=AQABBK", Path: "/"})
		w.WriteHeader(http.StatusNotFound) // as fc.yahoo.com does
	})
	mux.HandleFunc("/v1/test/getcrumb", func(w http.ResponseWriter, r *http.Request) {
		f.crumbCalls.Add(1)
		if c, err := r.Cookie("A3"); err != nil || c.Value != "d=AQABBK" {
			http.Error(w, `{"finance":{"result":null,"error":{"code":"Unauthorized","description":"Invalid Cookie"}}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, f.crumb.Load())
	})
	mux.HandleFunc("/v10/finance/quoteSummary/{symbol}", func(w http.ResponseWriter, r *http.Request) {
		if f.staleCrumbs.Load() > 0 {
			f.staleCrumbs.Add(-1)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"finance":{"result":null,"error":{"code":"Unauthorized","description":"Invalid Crumb"}}}`)
			return
		}
		if _, err := r.Cookie("A3"); err != nil || r.URL.Query().Get("crumb") != f.crumb.Load() {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"finance":{"result":null,"error":{"code":"Unauthorized","description":"Invalid Crumb"}}}`)
			return
		}
		sym := r.PathValue("symbol")
		if sym != "AAPL" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"quoteSummary":{"result":null,"error":{"code":"Not Found","description":"Quote not found for symbol: %s"}}}`, sym)
			return
		}
		var parts []string
		for _, m := range strings.Split(r.URL.Query().Get("modules"), ",") {
			if body, ok := summaryModules[m]; ok {
				parts = append(parts, fmt.Sprintf("%q:%s", m, body))
			}
		}
		fmt.Fprintf(w, `{"quoteSummary":{"result":[{%s}],"error":null}}`, strings.Join(parts, ","))
	})
	mux.HandleFunc("/v8/finance/chart/{symbol}", func(w http.ResponseWriter, r *http.Request) {
		switch sym := r.PathValue("symbol"); sym {
		case "AAPL":
			fmt.Fprint(w, chartAAPL)
		case "BIG":
			var ts, px []string
			for i := range 300 {
				ts = append(ts, fmt.Sprint(day1+86400*i))
				px = append(px, "100.5")
			}
			fmt.Fprintf(w, `{"chart":{"result":[{"meta":{"currency":"USD","symbol":"BIG","exchangeTimezoneName":"America/New_York","gmtoffset":-18000,"regularMarketPrice":100.5},"timestamp":[%[1]s],"indicators":{"quote":[{"open":[%[2]s],"high":[%[2]s],"low":[%[2]s],"close":[%[2]s],"volume":[%[2]s]}]}}],"error":null}}`,
				strings.Join(ts, ","), strings.Join(px, ","))
		case "BOOM":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "upstream failure")
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found, symbol may be delisted"}}}`)
		}
	})
	mux.HandleFunc("/v1/finance/search", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") != "AAPL" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"finance":{"result":null,"error":{"code":"Bad Request","description":"Invalid Search Query"}}}`)
			return
		}
		var news []string
		for i := 1; i <= 5; i++ {
			news = append(news, fmt.Sprintf(`{"uuid":"u%d","title":"Apple story %d \u2014 caf\u00e9","publisher":"Reuters","link":"https://finance.yahoo.com/news/%d","providerPublishTime":%d,"type":"STORY","relatedTickers":["AAPL"]}`, i, i, i, day1+i))
		}
		fmt.Fprintf(w, `{"explains":[],"count":5,"quotes":[],"news":[%s],"nav":[],"lists":[]}`, strings.Join(news, ","))
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

var summaryModules = map[string]string{
	"financialData":        `{"maxAge":86400,"currentPrice":237.33,"totalCash":65171001344,"ebitda":134660997120,"freeCashflow":110846001152,"operatingCashflow":118254002176,"revenueGrowth":0.061,"grossMargins":0.46206,"ebitdaMargins":0.34437,"recommendationKey":"buy","numberOfAnalystOpinions":40,"financialCurrency":"USD"}`,
	"quoteType":            `{"exchange":"NMS","quoteType":"EQUITY","symbol":"AAPL","shortName":"Apple Inc.","longName":"Apple Inc.","timeZoneFullName":"America/New_York"}`,
	"defaultKeyStatistics": `{"maxAge":1,"priceToBook":53.5,"trailingEps":6.08,"beta":1.24,"sharesOutstanding":15115799552,"lastSplitDate":{}}`,
	"assetProfile":         `{"address1":"One Apple Park Way","city":"Cupertino","state":"CA","zip":"95014","country":"United States","website":"https://www.apple.com","industry":"Consumer Electronics","sector":"Technology","longBusinessSummary":"Apple Inc. designs smartphones.","fullTimeEmployees":164000,"maxAge":86400}`,
	"summaryDetail":        `{"maxAge":1,"dividendYield":0.0042,"trailingPE":39.03,"forwardPE":28.6,"fiftyTwoWeekLow":164.08,"fiftyTwoWeekHigh":237.81,"fiftyDayAverage":228.2,"twoHundredDayAverage":206.5,"marketCap":3587369680896,"currency":"USD"}`,
	"price":                `{"maxAge":1,"regularMarketPrice":237.33,"currency":"USD","shortName":"Apple Inc.","longName":"Apple Inc.","marketCap":3587369680896,"symbol":"AAPL"}`,
	// With formatted=false Yahoo sends plain numbers; older answers wrap
	// them as {"raw": x, "fmt": "..."}, which yfinance unwraps too.
	"incomeStatementHistory": `{"incomeStatementHistory":[{"maxAge":1,"endDate":{"raw":1727654400,"fmt":"2024-09-30"},"totalRevenue":{"raw":391035000000,"fmt":"391.04B"},"netIncome":93736000000,"grossProfit":180683000000},{"maxAge":1,"endDate":1696032000,"totalRevenue":383285000000,"netIncome":96995000000,"grossProfit":{}}],"maxAge":86400}`,
	"recommendationTrend":    `{"trend":[{"period":"0m","strongBuy":11,"buy":21,"hold":6,"sell":0,"strongSell":0},{"period":"-1m","strongBuy":12,"buy":22,"hold":5,"sell":1,"strongSell":0}],"maxAge":86400}`,
}

// chartAAPL has two daily bars, a dividend on the second and adjclose
// below close (auto_adjust scales Open, High and Low by adjclose/close).
const chartAAPL = `{"chart":{"result":[{"meta":{"currency":"USD","symbol":"AAPL","exchangeName":"NMS","instrumentType":"EQUITY","gmtoffset":-18000,"timezone":"EST","exchangeTimezoneName":"America/New_York","regularMarketPrice":237.33,"dataGranularity":"1d","range":"1mo"},
"timestamp":[1733149800,1733236200],
"events":{"dividends":{"1733236200":{"amount":0.25,"date":1733236200}}},
"indicators":{"quote":[{"open":[237.27,239.81],"high":[240.79,242.76],"low":[237.16,238.9],"close":[239.59,242.65],"volume":[48137100,38861000]}],"adjclose":[{"adjclose":[239.59,241.0]}]}}],"error":null}}`

// client is the guarded client with the fake's address allowed, as
// [outbound] allow = ["127.0.0.1"] builds it.
func client(t *testing.T) *http.Client {
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func options(f *fakeYahoo, extra string) string {
	return fmt.Sprintf("all = true\nbase_url = %q\ncookie_url = %q\n%s", f.srv.URL, f.srv.URL+"/cookie", extra)
}

// TestConformance checks YFinanceTools against agno v2.6.13's
// tools/yfinance.py with every function enabled.
func TestConformance(t *testing.T) {
	sym := `{"symbol": "NOPE"}`
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "yfinance",
		Name:    "yfinance_tools",
		Functions: []tooltest.Function{
			{Name: "get_current_stock_price", Args: []string{"symbol"}},
			{Name: "get_company_info", Args: []string{"symbol"}},
			{Name: "get_stock_fundamentals", Args: []string{"symbol"}},
			{Name: "get_income_statements", Args: []string{"symbol"}},
			{Name: "get_key_financial_ratios", Args: []string{"symbol"}},
			{Name: "get_analyst_recommendations", Args: []string{"symbol"}},
			{Name: "get_company_news", Args: []string{"symbol", "num_stories"}},
			{Name: "get_technical_indicators", Args: []string{"symbol", "period"}},
			{Name: "get_historical_stock_prices", Args: []string{"symbol", "period", "interval"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFakeYahoo(t)
			env.HTTPClient = client(t)
			return options(f, "max_result_bytes = 2000")
		},
		Failures: map[string][]tooltest.Call{
			"get_current_stock_price": {
				{Args: sym, Want: "Error fetching current price for NOPE: HTTP 404 from Yahoo Finance: No data found, symbol may be delisted"},
				{Args: `{"symbol": "BOOM"}`, Want: "Error fetching current price for BOOM: HTTP 500 from Yahoo Finance"},
			},
			"get_company_info":            {{Args: sym, Want: "Error fetching company profile for NOPE: HTTP 404 from Yahoo Finance: Quote not found for symbol: NOPE"}},
			"get_stock_fundamentals":      {{Args: sym, Want: "Error getting fundamentals for NOPE: HTTP 404"}},
			"get_income_statements":       {{Args: sym, Want: "Error fetching income statements for NOPE: HTTP 404"}},
			"get_key_financial_ratios":    {{Args: sym, Want: "Error fetching key financial ratios for NOPE: HTTP 404"}},
			"get_analyst_recommendations": {{Args: sym, Want: "Error fetching analyst recommendations for NOPE: HTTP 404"}},
			"get_company_news":            {{Args: sym, Want: "Error fetching company news for NOPE: HTTP 400 from Yahoo Finance: Invalid Search Query"}},
			"get_technical_indicators": {
				{Args: sym, Want: "Error fetching technical indicators for NOPE: HTTP 404"},
				{Args: `{"symbol": "AAPL", "period": "7w"}`, Want: "Error fetching technical indicators for AAPL: Period '7w' is invalid"},
			},
			"get_historical_stock_prices": {{Args: sym, Want: "Error fetching historical prices for NOPE: HTTP 404"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "get_historical_stock_prices", Option: "max_result_bytes", Limit: 2000,
			Call: tooltest.Call{Args: `{"symbol": "BIG", "period": "1y"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "ftp://x"`, Key: "base_url"},
			{Table: `cookie_url = ""`, Key: "cookie_url"},
			{Table: "timeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "max_result_bytes = -1", Key: "max_result_bytes"},
		},
	})
}

func build(t *testing.T, f *fakeYahoo, extra string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("yfinance")
	opts := rt.DefaultOptions(tool.ToolkitEnv{})
	if _, err := tomlDecode(options(f, extra), opts); err != nil {
		t.Fatal(err)
	}
	env := tool.ToolkitEnv{HTTPClient: client(t)}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	out := map[string]*tool.Function{}
	for _, fn := range fns {
		out[fn.Name] = fn
	}
	return out
}

func invoke(t *testing.T, f *tool.Function, raw string) string {
	t.Helper()
	args := f.DecodeArguments(raw)
	if args.Error != "" {
		t.Fatalf("%s(%s): %s", f.Name, raw, args.Error)
	}
	res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", f.Name, raw, err)
	}
	return res.Content
}

// TestDefaultsEnableOnlyPrice: agno's YFinanceTools() has only
// get_current_stock_price.
func TestDefaultsEnableOnlyPrice(t *testing.T) {
	rt, _ := tool.LookupToolkit("yfinance")
	p, err := rt.New(tool.ToolkitEnv{HTTPClient: client(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := p.Functions(context.Background())
	if len(list) != 1 || list[0].Name != "get_current_stock_price" {
		t.Fatalf("default functions %v, want get_current_stock_price alone", list)
	}
}

func TestResults(t *testing.T) {
	f := newFakeYahoo(t)
	fns := build(t, f, "")
	cases := []struct{ fn, args, want string }{
		{"get_current_stock_price", `{"symbol": "AAPL"}`, "237.3300"},
		{"get_stock_fundamentals", `{"symbol": "AAPL"}`, `{
  "symbol": "AAPL",
  "company_name": "Apple Inc.",
  "sector": "Technology",
  "industry": "Consumer Electronics",
  "market_cap": 3587369680896,
  "pe_ratio": 28.6,
  "pb_ratio": 53.5,
  "dividend_yield": 0.0042,
  "eps": 6.08,
  "beta": 1.24,
  "52_week_high": 237.81,
  "52_week_low": 164.08
}`},
		// Open, High, Low scaled by adjclose/close (241.0/242.65) on the
		// second day; bars at New York midnight.
		{"get_historical_stock_prices", `{"symbol": "AAPL"}`,
			`{"` + day1Key + `":{"Open":237.27,"High":240.79,"Low":237.16,"Close":239.59,"Volume":48137100,"Dividends":0.0,"Stock Splits":0.0},"` +
				day2Key + `":{"Open":238.1793117659,"High":241.1092520091,"Low":237.2754996909,"Close":241.0,"Volume":38861000,"Dividends":0.25,"Stock Splits":0.0}}`},
		{"get_analyst_recommendations", `{"symbol": "AAPL"}`,
			`{"0":{"period":"0m","strongBuy":11,"buy":21,"hold":6,"sell":0,"strongSell":0},"1":{"period":"-1m","strongBuy":12,"buy":22,"hold":5,"sell":1,"strongSell":0}}`},
		{"get_income_statements", `{"symbol": "AAPL"}`,
			`{"Total Revenue":{"1727654400000":391035000000.0,"1696032000000":383285000000.0},"Net Income":{"1727654400000":93736000000.0,"1696032000000":96995000000.0},"Gross Profit":{"1727654400000":180683000000.0,"1696032000000":null}}`},
	}
	for _, c := range cases {
		if got := invoke(t, fns[c.fn], c.args); got != c.want {
			t.Errorf("%s(%s) =\n%s\nwant\n%s", c.fn, c.args, got, c.want)
		}
	}

	var info map[string]any
	if err := json.Unmarshal([]byte(invoke(t, fns["get_company_info"], `{"symbol": "AAPL"}`)), &info); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"Name": "Apple Inc.", "Symbol": "AAPL", "Current Stock Price": "237.33 USD", "Market Cap": "3587369680896 USD",
		"City": "Cupertino", "EPS": 6.08, "P/E Ratio": 39.03, "Employees": 164000.0, "Analyst Recommendation": "buy", "Gross Margins": 0.46206,
	} {
		if info[k] != want {
			t.Errorf("company info %q = %v, want %v", k, info[k], want)
		}
	}
	if len(info) != 29 {
		t.Errorf("company info has %d keys, agno's has 29", len(info))
	}
	ratios := invoke(t, fns["get_key_financial_ratios"], `{"symbol": "AAPL"}`)
	if !strings.HasPrefix(ratios, "{\n  \"currentPrice\": 237.33,\n  \"totalCash\": 65171001344,") || strings.Contains(ratios, "maxAge") || strings.Contains(ratios, "lastSplitDate") {
		t.Errorf("key ratios: want the info dict in module order without maxAge and empty values, got\n%s", ratios)
	}

	news := invoke(t, fns["get_company_news"], `{"symbol": "AAPL"}`)
	var items []map[string]any
	if err := json.Unmarshal([]byte(news), &items); err != nil || len(items) != 3 || items[0]["uuid"] != "u1" {
		t.Fatalf("news: want agno's first 3 stories, got %s (%v)", news, err)
	}
	// json.dumps(indent=2) with ensure_ascii.
	if !strings.Contains(news, `"title": "Apple story 1 \u2014 caf\u00e9",`) || !strings.HasPrefix(news, "[\n  {\n    \"uuid\": \"u1\",") {
		t.Errorf("news not in json.dumps(indent=2) form:\n%s", news)
	}
	if got := invoke(t, fns["get_company_news"], `{"symbol": "AAPL", "num_stories": -1}`); strings.Count(got, `"uuid"`) != 4 {
		t.Errorf("num_stories -1 is Python's news[:-1] (4 of 5), got %s", got)
	}
}

// A crumb Yahoo no longer accepts (401) is fetched again once.
func TestCrumbRefresh(t *testing.T) {
	f := newFakeYahoo(t)
	fns := build(t, f, "")
	if got := invoke(t, fns["get_stock_fundamentals"], `{"symbol": "AAPL"}`); !strings.Contains(got, `"company_name": "Apple Inc."`) {
		t.Fatalf("first call: %s", got)
	}
	f.crumb.Store("new.crumb")
	f.staleCrumbs.Store(1)
	if got := invoke(t, fns["get_stock_fundamentals"], `{"symbol": "AAPL"}`); !strings.Contains(got, `"company_name": "Apple Inc."`) {
		t.Fatalf("after the crumb expired: %s", got)
	}
	if n := f.crumbCalls.Load(); n != 2 {
		t.Errorf("getcrumb called %d times, want 2 (once, then once after the 401)", n)
	}
}

// A Yahoo that does not answer within timeout_seconds is an error result.
func TestTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	fns := build(t, &fakeYahoo{srv: srv}, "timeout_seconds = 0.2")
	got := invoke(t, fns["get_current_stock_price"], `{"symbol": "AAPL"}`)
	if !strings.HasPrefix(got, "Error fetching current price for AAPL: no answer from Yahoo Finance within 200ms") {
		t.Errorf("got %q", got)
	}
}
