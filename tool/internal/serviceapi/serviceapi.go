// Package serviceapi holds what the service toolkits (giphy, openweather,
// …) share: a bounded GET through the guarded client, Python requests'
// wording of an HTTP error, and a JSON object that keeps its key order.
package serviceapi

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
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject is an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := t.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	default:
		return t, nil
	}
}

// Set sets k to v.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns k's value.
func (o *Object) Get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

// GetOr is Python's dict.get(k, def).
func (o *Object) GetOr(k string, def any) any {
	if o == nil {
		return def
	}
	if v, ok := o.vals[k]; ok {
		return v
	}
	return def
}

// Keys and Value make an Object a pyrepr.Ordered.
func (o *Object) Keys() []string       { return o.keys }
func (o *Object) Value(key string) any { return o.vals[key] }

// MarshalJSON writes the keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if f, ok := o.vals[k].(float64); ok {
			// A float stays one (50.0, not 50), as json.dumps writes it.
			r, err := pyjson.FloatRepr(f)
			if err != nil {
				return nil, err
			}
			b.WriteString(r)
			continue
		}
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
