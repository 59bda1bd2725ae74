package yfinance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxResponseBytes bounds what is read of one Yahoo answer.
const maxResponseBytes = 16 << 20

// yahoo calls Yahoo Finance's public JSON endpoints as yfinance does:
// the chart and search endpoints plainly, quoteSummary with the cookie
// from cookieURL and the crumb from /v1/test/getcrumb.
type yahoo struct {
	http      *http.Client
	base      string
	cookieURL string
	timeout   time.Duration

	mu    sync.Mutex
	crumb string
}

// errorBody is Yahoo's error shape: {"chart": {"result": null, "error":
// {"code": "Not Found", "description": "..."}}} under each endpoint's key.
type errorBody map[string]struct {
	Error *struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	} `json:"error"`
}

func (y *yahoo) get(ctx context.Context, path string, q url.Values) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, y.timeout)
	defer cancel()
	u := y.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	// Yahoo refuses requests without a browser-like agent.
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; agno-go yfinance)")
	resp, err := y.http.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, 0, fmt.Errorf("no answer from Yahoo Finance within %s", y.timeout)
		}
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	if len(body) > maxResponseBytes {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, resp.StatusCode, fmt.Errorf("Yahoo Finance's answer is larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return body, resp.StatusCode, httpError(resp.StatusCode, body)
	}
	return body, resp.StatusCode, nil
}

func httpError(status int, body []byte) error {
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		for _, v := range eb {
			if v.Error != nil && v.Error.Description != "" {
				return fmt.Errorf("HTTP %d from Yahoo Finance: %s", status, v.Error.Description)
			}
		}
	}
	return fmt.Errorf("HTTP %d from Yahoo Finance", status)
}

// getCrumb fetches the cookie, then the crumb that quoteSummary wants.
func (y *yahoo) getCrumb(ctx context.Context, refresh bool) (string, error) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.crumb != "" && !refresh {
		return y.crumb, nil
	}
	cctx, cancel := context.WithTimeout(ctx, y.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, y.cookieURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; agno-go yfinance)")
	resp, err := y.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("getting Yahoo's cookie: %w", err)
	}
	// The cookie comes with any status (fc.yahoo.com answers 404).
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	body, _, err := y.get(ctx, "/v1/test/getcrumb", nil)
	if err != nil {
		return "", fmt.Errorf("getting Yahoo's crumb: %w", err)
	}
	crumb := strings.TrimSpace(string(body))
	if crumb == "" || strings.ContainsAny(crumb, "<{ ") {
		return "", errors.New("getting Yahoo's crumb: the answer is not a crumb")
	}
	y.crumb = crumb
	return crumb, nil
}

// quoteSummary returns the modules' objects of
// /v10/finance/quoteSummary/{symbol}?modules=a,b.
func (y *yahoo) quoteSummary(ctx context.Context, symbol string, modules ...string) (map[string]json.RawMessage, error) {
	var body []byte
	for attempt := 0; ; attempt++ {
		crumb, err := y.getCrumb(ctx, attempt > 0)
		if err != nil {
			return nil, err
		}
		q := url.Values{"modules": {strings.Join(modules, ",")}, "crumb": {crumb}, "corsDomain": {"finance.yahoo.com"}, "formatted": {"false"}}
		var status int
		body, status, err = y.get(ctx, "/v10/finance/quoteSummary/"+url.PathEscape(symbol), q)
		if status == http.StatusUnauthorized && attempt == 0 {
			continue // an expired crumb: fetch a new one once
		}
		if err != nil {
			return nil, err
		}
		break
	}
	var out struct {
		QuoteSummary struct {
			Result []map[string]json.RawMessage `json:"result"`
		} `json:"quoteSummary"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance's quoteSummary answer is not JSON: %w", err)
	}
	if len(out.QuoteSummary.Result) == 0 {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance has no data for %s", symbol)
	}
	return out.QuoteSummary.Result[0], nil
}

// chartResult is what yfinance reads of /v8/finance/chart/{symbol}.
type chartResult struct {
	Meta struct {
		Currency             string   `json:"currency"`
		Symbol               string   `json:"symbol"`
		RegularMarketPrice   *float64 `json:"regularMarketPrice"`
		ExchangeTimezoneName string   `json:"exchangeTimezoneName"`
		GMTOffset            int      `json:"gmtoffset"`
	} `json:"meta"`
	Timestamp  []int64 `json:"timestamp"`
	Indicators struct {
		Quote []struct {
			Open   []*float64 `json:"open"`
			High   []*float64 `json:"high"`
			Low    []*float64 `json:"low"`
			Close  []*float64 `json:"close"`
			Volume []*float64 `json:"volume"`
		} `json:"quote"`
		AdjClose []struct {
			AdjClose []*float64 `json:"adjclose"`
		} `json:"adjclose"`
	} `json:"indicators"`
	Events struct {
		Dividends map[string]struct {
			Amount float64 `json:"amount"`
			Date   int64   `json:"date"`
		} `json:"dividends"`
		Splits map[string]struct {
			Date        int64   `json:"date"`
			Numerator   float64 `json:"numerator"`
			Denominator float64 `json:"denominator"`
		} `json:"splits"`
	} `json:"events"`
}

func (y *yahoo) chart(ctx context.Context, symbol string, q url.Values) (*chartResult, error) {
	body, _, err := y.get(ctx, "/v8/finance/chart/"+url.PathEscape(symbol), q)
	if err != nil {
		return nil, err
	}
	var out struct {
		Chart struct {
			Result []chartResult `json:"result"`
		} `json:"chart"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance's chart answer is not JSON: %w", err)
	}
	if len(out.Chart.Result) == 0 {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance has no chart for %s", symbol)
	}
	return &out.Chart.Result[0], nil
}

// news returns the news items of /v1/finance/search, each as Yahoo wrote it.
func (y *yahoo) news(ctx context.Context, symbol string, count int) ([]json.RawMessage, error) {
	q := url.Values{"q": {symbol}, "quotesCount": {"0"}, "newsCount": {fmt.Sprint(count)}, "enableFuzzyQuery": {"false"}}
	body, _, err := y.get(ctx, "/v1/finance/search", q)
	if err != nil {
		return nil, err
	}
	var out struct {
		News []json.RawMessage `json:"news"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&out); err != nil {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Yahoo Finance's search answer is not JSON: %w", err)
	}
	return out.News, nil
}
