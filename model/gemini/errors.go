package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// statusOfCode gives the HTTP status of each google.rpc.Code name, for an
// error that arrives inside a 200 stream with a status but no code
// (https://cloud.google.com/apis/design/errors#handling_errors).
var statusOfCode = map[string]int{
	"INVALID_ARGUMENT":    http.StatusBadRequest,
	"FAILED_PRECONDITION": http.StatusBadRequest,
	"OUT_OF_RANGE":        http.StatusBadRequest,
	"UNAUTHENTICATED":     http.StatusUnauthorized,
	"PERMISSION_DENIED":   http.StatusForbidden,
	"NOT_FOUND":           http.StatusNotFound,
	"ABORTED":             http.StatusConflict,
	"ALREADY_EXISTS":      http.StatusConflict,
	"RESOURCE_EXHAUSTED":  http.StatusTooManyRequests,
	"CANCELLED":           499,
	"INTERNAL":            http.StatusInternalServerError,
	"UNKNOWN":             http.StatusInternalServerError,
	"DATA_LOSS":           http.StatusInternalServerError,
	"UNIMPLEMENTED":       http.StatusNotImplemented,
	"UNAVAILABLE":         http.StatusServiceUnavailable,
	"DEADLINE_EXCEEDED":   http.StatusGatewayTimeout,
}

// contextOverflowPhrases are how the API words an input longer than the
// context window ("The input token count (1200000) exceeds the maximum
// number of tokens allowed (1048576).").
var contextOverflowPhrases = []string{
	"exceeds the maximum number of tokens",
	"input token count",
	"context window",
	"too many tokens",
}

// convertError turns an SDK error into a *model.ProviderError; a cancelled
// or expired ctx is returned as ctx.Err().
func (m *Model) convertError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return m.apiError(apiErr, err)
	}
	return &model.ProviderError{Provider: ProviderName, Model: m.id, Message: err.Error(), Err: err}
}

func (m *Model) apiError(e genai.APIError, err error) *model.ProviderError {
	status := e.Code
	if status == 0 {
		status = statusOfCode[e.Status]
	}
	msg := strings.TrimSpace(e.Message)
	if len(msg) > 1024 {
		msg = msg[:1024] + "…"
	}
	if msg == "" {
		msg = cmpOr(e.Status, http.StatusText(status))
	}
	pe := &model.ProviderError{Provider: ProviderName, Model: m.id, StatusCode: status, Message: msg, Err: err}
	pe.RetryAfter, _ = retryDelay(e.Details)
	if status == http.StatusBadRequest {
		lower := strings.ToLower(msg)
		for _, p := range contextOverflowPhrases {
			if strings.Contains(lower, p) {
				pe.ContextOverflow = true
				break
			}
		}
	}
	return pe
}

const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

// retryDelay reads the google.rpc.RetryInfo detail Google's errors carry
// instead of a Retry-After header ({"@type": ".../google.rpc.RetryInfo",
// "retryDelay": "37s"}).
func retryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if d["@type"] != retryInfoType {
			continue
		}
		s, _ := d["retryDelay"].(string)
		secs, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
		if err != nil || !strings.HasSuffix(s, "s") || secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	return 0, false
}

// retryTransport runs every request through the shared retry policy. A
// failed response without a Retry-After header but with a RetryInfo delay
// in its body gets the delay as Retry-After-Ms, so that the policy waits
// as long as Google asked.
type retryTransport struct {
	base   http.RoundTripper
	policy httpretry.Policy
}

// RetryTransport sends through base under policy, reading Google's
// RetryInfo delay as the server's Retry-After. Exported for the
// google-interactions provider, whose errors are the same Google bodies.
func RetryTransport(base http.RoundTripper, policy httpretry.Policy) http.RoundTripper {
	return retryTransport{base: base, policy: policy}
}

// maxErrorBody bounds what is read of an error body to find its delay.
const maxErrorBody = 64 << 10

func (t retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.policy.Middleware(req, func(r *http.Request) (*http.Response, error) {
		res, err := t.base.RoundTrip(r)
		if err != nil || res.StatusCode < 400 || res.Body == nil {
			return res, err
		}
		if _, ok := httpretry.RetryAfter(res.Header); ok {
			return res, nil
		}
		body, rerr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		rest := res.Body
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		if rerr != nil {
			return res, nil
		}
		var wire struct {
			Error struct {
				Details []map[string]any `json:"details"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &wire) == nil {
			if d, ok := retryDelay(wire.Error.Details); ok {
				res.Header.Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
			}
		}
		return res, nil
	})
}
