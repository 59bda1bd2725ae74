// Package webapi is what the web-search toolkits share: requests through
// the host's guarded client with a timeout and a bounded body, errors
// that name the endpoint and the status, and results cut to the
// toolkit's max_result_bytes.
package webapi

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
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
)

// MaxResponseBytes bounds every response body read: a service answering
// more is an error, not a reason to hold it all in memory.
const MaxResponseBytes = 8 << 20

// DefaultMaxResultBytes is a toolkit's max_result_bytes unless set.
const DefaultMaxResultBytes = 64 << 10

// UserAgent is sent with every request.
const UserAgent = "agno-go (+https://github.com/agno-go/agno)"

// Client makes a toolkit's requests.
type Client struct {
	HTTP    *http.Client
	Timeout time.Duration
}

// NewClient is the client for a toolkit built with env: the host's
// guarded client, or a guard with the default policy when the host gives
// none, so no request ever bypasses netguard.
func NewClient(env tool.ToolkitEnv, timeout time.Duration) (Client, error) {
	c := env.HTTPClient
	if c == nil {
		g, err := netguard.New(netguard.Policy{})
		if err != nil {
			return Client{}, err
		}
		c = g.Client(0)
	}
	return Client{HTTP: c, Timeout: timeout}, nil
}

// StatusError is an answer outside 2xx.
type StatusError struct {
	Method, URL string
	Code        int
	Body        string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Code, http.StatusText(e.Code))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Do sends req within the client's timeout and returns the body of a
// 2xx answer, at most MaxResponseBytes.
func (c Client) Do(ctx context.Context, req *http.Request) ([]byte, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	req = req.WithContext(ctx)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", UserAgent)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s %s: no answer within %s (raise the toolkit's timeout option)", req.Method, redact(req.URL), c.Timeout)
		}
		// The URL's query may hold an API key (Google's): keep it out of
		// the text the model sees.
		var ue *url.Error
		if errors.As(err, &ue) {
			if u, perr := url.Parse(ue.URL); perr == nil {
				ue.URL = redact(u)
			}
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, redact(req.URL), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Method: req.Method, URL: redact(req.URL), Code: resp.StatusCode, Body: Cut(strings.TrimSpace(string(body)), 300)}
	}
	if len(body) > MaxResponseBytes {
		return nil, fmt.Errorf("%s %s: the answer is over %d bytes", req.Method, redact(req.URL), MaxResponseBytes)
	}
	return body, nil
}

// redact drops the query, where some services take their API key.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	return c.String()
}

// Get fetches u with the headers.
func (c Client) Get(ctx context.Context, u string, header http.Header) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return c.Do(ctx, req)
}

// GetJSON fetches u and decodes its JSON answer into out.
func (c Client) GetJSON(ctx context.Context, u string, header http.Header, out any) error {
	body, err := c.Get(ctx, u, header)
	if err != nil {
		return err
	}
	return decode(u, body, out)
}

// PostJSON posts in as JSON to u and decodes the JSON answer into out.
func (c Client) PostJSON(ctx context.Context, u string, header http.Header, in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	body, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	return decode(u, body, out)
}

func decode(u string, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		pu, _ := url.Parse(u)
		where := u
		if pu != nil {
			where = redact(pu)
		}
		return fmt.Errorf("%s answered something other than the JSON expected: %w", where, err)
	}
	return nil
}

// Cut shortens s to at most n bytes on a rune boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Bound is s as the model gets it: whole, or its first limit bytes with
// a note saying how much was dropped and which option raises the bound.
func Bound(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	return Cut(s, limit) + fmt.Sprintf("\n[result truncated: %d of %d bytes shown; raise max_result_bytes to see more]", len(Cut(s, limit)), len(s))
}

// CheckURL is the problem with a base URL option, or nil.
func CheckURL(key, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return tool.OptionErrorf(key, "%s = %q is not an http(s) URL: give the service's base URL, e.g. \"https://api.example.com\"", key, s)
	}
	return nil
}

// CheckCommon checks the options every web toolkit has.
func CheckCommon(timeout, maxResult int) error {
	var errs []error
	if timeout <= 0 {
		errs = append(errs, tool.OptionErrorf("timeout", "timeout = %d: use a positive number of seconds", timeout))
	}
	if maxResult <= 0 {
		errs = append(errs, tool.OptionErrorf("max_result_bytes", "max_result_bytes = %d: use a positive number of bytes (default %d)", maxResult, DefaultMaxResultBytes))
	}
	return errors.Join(errs...)
}

// Seconds turns a timeout option into a duration.
func Seconds(s int) time.Duration { return time.Duration(s) * time.Second }
