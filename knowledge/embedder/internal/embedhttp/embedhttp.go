// Package embedhttp posts JSON to the embedding APIs that have no Go SDK
// (Ollama's /api/embed, Voyage's /v1/embeddings), with the retry policy
// of package httpretry and the shared bounded transport.
package embedhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
)

// DefaultMaxRetries matches the model providers'.
const DefaultMaxRetries = 2

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(2*time.Minute, httptransport.Limits{})
	return hc
})

// Client posts JSON requests. The zero value uses the shared client and
// DefaultMaxRetries.
type Client struct {
	// HTTP sends the requests; nil uses a shared client.
	HTTP *http.Client
	// MaxRetries of a retryable failure: 0 is DefaultMaxRetries, negative
	// none.
	MaxRetries int
	// Headers are set on every request (Authorization among them).
	Headers map[string]string
}

// StatusError is an answer with a non-2xx status.
type StatusError struct {
	StatusCode int
	// Message is the API's error message, or the body's start.
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// PostJSON sends body as JSON to url and decodes a 2xx answer into out.
func (c Client) PostJSON(ctx context.Context, url string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	retries := c.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	hc := c.HTTP
	if hc == nil {
		hc = sharedHTTPClient()
	}
	res, err := httpretry.Policy{MaxRetries: retries}.Middleware(req, hc.Do)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return &StatusError{StatusCode: res.StatusCode, Message: errorMessage(data)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	return nil
}

// errorMessage is an error body's message: Ollama's {"error": "..."},
// Voyage's {"detail": "..."}, else the body's start.
func errorMessage(data []byte) string {
	var e struct {
		Error  any `json:"error"`
		Detail any `json:"detail"`
	}
	if json.Unmarshal(data, &e) == nil {
		for _, v := range []any{e.Error, e.Detail} {
			switch v := v.(type) {
			case string:
				return v
			case map[string]any:
				if m, ok := v["message"].(string); ok {
					return m
				}
			}
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
