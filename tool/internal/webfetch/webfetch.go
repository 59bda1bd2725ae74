// Package webfetch is what the web fetch toolkits (website, webtools,
// jina, newspaper4k, trafilatura) share: one bounded GET or POST through
// the host's guarded client, httpx's status errors, and cutting text to a
// bound without splitting a character.
package webfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/tool"
)

// DefaultMaxBytes bounds a fetched body when a toolkit sets no bound.
const DefaultMaxBytes = 5 << 20

// DefaultTimeout bounds one request when a toolkit sets no timeout.
const DefaultTimeout = 30 * time.Second

// UserAgent is sent with every request: some sites refuse Go's default.
const UserAgent = "Mozilla/5.0 (compatible; agno-go/1.0; +https://github.com/agno-go/agno)"

// Client is the host's guarded client, or a guarded client refusing every
// internal address when the host gives none: the URLs these toolkits
// fetch come from models.
func Client(env tool.ToolkitEnv) *http.Client {
	if env.HTTPClient != nil {
		return env.HTTPClient
	}
	return reader.DefaultClient()
}

// Request is one fetch.
type Request struct {
	Method string // "" is GET
	URL    string
	Header http.Header
	Body   []byte
	// Timeout bounds the request, body included; zero is DefaultTimeout.
	Timeout time.Duration
	// MaxBytes bounds the body read; zero is DefaultMaxBytes. A longer
	// body is an error (*TooLargeError) unless Truncate is set.
	MaxBytes int64
	Truncate bool
}

// Response is what came back.
type Response struct {
	Status     int
	StatusText string // "404 Not Found"
	// URL is where the request ended, after redirects.
	URL         *url.URL
	ContentType string // the media type, lower case, without parameters
	Body        []byte
	// Truncated says the body was cut at MaxBytes.
	Truncated bool
}

// TooLargeError is a body past the bound.
type TooLargeError struct {
	URL   string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the response from %s is larger than %d bytes (the toolkit's max_bytes)", e.URL, e.Limit)
}

// Do makes the request. Any status is a Response; transport failures
// (a refused address among them) are errors.
func Do(ctx context.Context, c *http.Client, r Request) (*Response, error) {
	timeout, limit := r.Timeout, r.MaxBytes
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range r.Header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		// The *url.Error of r.URL itself repeats the URL the caller
		// already names; its cause is the message.
		var ue *url.Error
		if errors.As(err, &ue) && ue.URL == r.URL {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s", timeout)
		}
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("timed out after %s reading the body", timeout)
		}
		return nil, err
	}
	out := &Response{Status: resp.StatusCode, StatusText: resp.Status, URL: resp.Request.URL, Body: b}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		out.ContentType = strings.ToLower(mt)
	}
	if int64(len(b)) > limit {
		if !r.Truncate {
			return nil, &TooLargeError{URL: r.URL, Limit: limit}
		}
		out.Body, out.Truncated = b[:limit], true
	}
	return out, nil
}

// StatusError is httpx's raise_for_status message for a response that is
// not 2xx, the text agno's toolkits put after their own prefix.
func (r *Response) StatusError() error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	kind := map[int]string{1: "Informational response", 3: "Redirect response", 4: "Client error", 5: "Server error"}[r.Status/100]
	if kind == "" {
		kind = "Invalid status code"
	}
	return fmt.Errorf("%s '%s' for url '%s'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/%d",
		kind, r.StatusText, r.URL, r.Status)
}

// IsHTML reports whether the body is HTML: by its content type, or by
// its first bytes when the server names none.
func (r *Response) IsHTML() bool {
	switch r.ContentType {
	case "text/html", "application/xhtml+xml":
		return true
	case "":
		return strings.HasPrefix(http.DetectContentType(r.Body), "text/html")
	}
	return false
}

// IsText reports whether the body is text a model can read as is.
func (r *Response) IsText() bool {
	ct := r.ContentType
	if ct == "" {
		ct, _, _ = strings.Cut(http.DetectContentType(r.Body), ";")
	}
	return strings.HasPrefix(ct, "text/") || ct == "application/json" || strings.HasSuffix(ct, "+json") ||
		ct == "application/xml" || strings.HasSuffix(ct, "+xml") || ct == "application/javascript"
}

// Cut returns s cut to at most n bytes on a character boundary, and
// whether it was cut. n <= 0 leaves s whole.
func Cut(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// CutRunes is Python's s[:n] on characters.
func CutRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// WithTimeout is c with every request bounded by d, for code that
// fetches through a client rather than through Do (the knowledge
// readers). c is copied, its transport shared.
func WithTimeout(c *http.Client, d time.Duration) *http.Client {
	cc := *c
	if d > 0 && (cc.Timeout == 0 || d < cc.Timeout) {
		cc.Timeout = d
	}
	return &cc
}

// Bound cuts text to n bytes on a character boundary and says so, for
// results whose shape a cut cannot break further (text, or JSON that
// agno's model would read as text anyway).
func Bound(s string, n int) string {
	cut, ok := Cut(s, n)
	if !ok {
		return s
	}
	return cut + fmt.Sprintf("\n[output truncated: the first %d of %d bytes are shown (max_output_bytes is %d)]", len(cut), len(s), n)
}
