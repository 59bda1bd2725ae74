// Package serviceapi holds what the service toolkits (giphy, openweather,
// …) share: a bounded GET through the guarded client, Python requests'
// wording of an HTTP error, and a JSON object that keeps its key order.
package serviceapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
)

// Defaults of the toolkits' timeout_seconds and max_response_bytes.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 1 << 20
)

// Client returns c, or a guarded client that reaches only public
// addresses when the host gives none (a program building a toolkit by
// hand): a model-chosen query never reaches an internal service.
func Client(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	g, err := netguard.New(netguard.Policy{})
	if err != nil {
		// The empty policy always builds; a failure is a bug.
		panic(err)
	}
	return g.Client(0)
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Status int
	// URL is the request's URL with the secret parameters masked.
	URL string
}

// Error is Python requests' raise_for_status message, which agno hands
// to the model.
func (e *StatusError) Error() string {
	kind := "Client"
	if e.Status >= 500 {
		kind = "Server"
	}
	return fmt.Sprintf("%d %s Error: %s for url: %s", e.Status, kind, http.StatusText(e.Status), e.URL)
}

// TooLargeError is an answer longer than the toolkit's bound.
type TooLargeError struct{ Limit int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the response is larger than %d bytes (max_response_bytes); ask for fewer results", e.Limit)
}

// Get fetches u and returns its body, at most limit bytes, within
// timeout. secret names query parameters masked in errors (the API key).
func Get(ctx context.Context, c *http.Client, u string, timeout time.Duration, limit int, secret ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			// url.Error repeats the URL, key included.
			return nil, fmt.Errorf("%s %s: %w", ue.Op, Mask(u, secret...), ue.Err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", Mask(u, secret...), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Status: resp.StatusCode, URL: Mask(u, secret...)}
	}
	if len(body) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return body, nil
}

// Mask replaces the values of the named query parameters with "***".
func Mask(u string, secret ...string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	q := p.Query()
	for _, k := range secret {
		if q.Has(k) {
			q.Set(k, "***")
		}
	}
	p.RawQuery = strings.ReplaceAll(q.Encode(), "%2A%2A%2A", "***")
	return p.String()
}

// Object is a JSON object in its document order, as json.loads gives a
// dict; Set on a present key keeps its place, as a dict assignment does.
// Values are nil, bool, string, json.Number, []any or *Object.
type Object = pyjson.Object

// NewObject is an empty object.
func NewObject() *Object { return pyjson.NewObject() }

// DecodeObject reads a JSON object keeping its key order, nested ones
// too.
func DecodeObject(raw []byte) (*Object, error) {
	v, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", kind(v))
	}
	return o, nil
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a scalar"
}

// Decode reads any JSON value, objects as *Object.
func Decode(raw []byte) (any, error) {
	v, err := pyjson.Loads(raw)
	if errors.Is(err, pyjson.ErrExtraData) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, err
}

// CheckCommon checks the base_url, timeout_seconds and
// max_response_bytes keys the service toolkits share.
func CheckCommon(baseURL string, timeoutSeconds float64, maxResponseBytes int) error {
	var errs []error
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, tool.OptionErrorf("base_url", "base_url = %q is not an http(s) URL: write the endpoint like \"https://api.example.com/v1\"", baseURL))
		}
	}
	if timeoutSeconds < 0 {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds, or leave it out for 30", timeoutSeconds))
	}
	if maxResponseBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_response_bytes", "max_response_bytes = %d: use a positive number of bytes, or leave it out for 1 MiB", maxResponseBytes))
	}
	return errors.Join(errs...)
}
