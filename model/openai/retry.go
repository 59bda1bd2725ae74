package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agno-go/agno/model"
)

const (
	// maxRetryWait: a provider asking for a longer pause gets its error
	// returned instead; the caller decides whether to wait that long.
	maxRetryWait   = 60 * time.Second
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
	// maxErrorBody bounds how much of an error response is read.
	maxErrorBody = 1 << 20
)

// attempt records the HTTP error response of one request attempt. The SDK
// only keeps bodies shaped {"error":{...}}; gateways answer with other
// shapes, or plain text, whose message we still want to report.
type attempt struct {
	status int
	header http.Header
	body   []byte
}

func (a *attempt) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res == nil || res.StatusCode < 400 {
			return res, err
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		a.status, a.header, a.body = res.StatusCode, res.Header, body
		return res, nil
	})
}

// withRetry runs one request attempt at a time until it succeeds, fails
// with an error that retrying cannot fix, or MaxRetries is spent.
func (m *Model) withRetry(ctx context.Context, do func(a *attempt) error) error {
	for n := 0; ; n++ {
		a := &attempt{}
		err := do(a)
		if err == nil {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		pe := m.providerError(err, a)
		if n >= m.maxRetries || !shouldRetry(pe, a, err) {
			return pe
		}
		wait := pe.RetryAfter
		if wait <= 0 {
			wait = backoff(n)
		}
		if wait > maxRetryWait {
			return pe
		}
		m.log.DebugContext(ctx, "retrying model request", "provider", m.info.Provider, "model", m.info.ID,
			"attempt", n+1, "status", pe.StatusCode, "wait", wait, "error", pe.Message)
		if err := m.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func shouldRetry(pe *model.ProviderError, a *attempt, err error) bool {
	if a.status == 0 {
		return isNetworkError(err)
	}
	// OpenAI tells clients explicitly at times.
	switch a.header.Get("X-Should-Retry") {
	case "true":
		return !pe.ContextOverflow
	case "false":
		return false
	}
	return pe.Retryable()
}

func isNetworkError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed)
}

// backoff is exponential from 0.5 s to 8 s with up to 25 % jitter, as the
// OpenAI SDKs do.
func backoff(n int) time.Duration {
	d := time.Duration(float64(initialBackoff) * math.Pow(2, float64(n)))
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// providerError turns whatever a request returned into a ProviderError that
// carries the provider's own message.
func (m *Model) providerError(err error, a *attempt) *model.ProviderError {
	pe := &model.ProviderError{Provider: m.info.Provider, Model: m.info.ID, Err: err}
	var se *ssestream.StreamError
	switch {
	case a != nil && a.status >= 400:
		pe.StatusCode = a.status
		msg, code := errorMessage(a.body)
		if msg == "" {
			msg = http.StatusText(a.status)
		}
		pe.Message = msg
		pe.RetryAfter = retryAfter(a.header)
		pe.ContextOverflow = a.status != http.StatusTooManyRequests && isContextOverflow(code, msg)
	case errors.As(err, &se):
		// An error event inside a 200 stream (OpenAI, OpenRouter do this).
		msg, code := errorMessage(se.Event.Data)
		if msg == "" {
			msg = se.Message
		}
		pe.Message = msg
		pe.ContextOverflow = isContextOverflow(code, msg)
	default:
		pe.Message = err.Error()
	}
	return pe
}

// errorMessage reads the message and code from the error body shapes seen
// in the wild: OpenAI's {"error":{"message","type","param","code"}},
// {"error":"text"}, {"message":...}, FastAPI's {"detail":...}, or text.
func errorMessage(body []byte) (msg, code string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", ""
	}
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return truncate(string(body), 1000), ""
	}
	if len(env.Error) > 0 && string(env.Error) != "null" {
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		}
		if json.Unmarshal(env.Error, &obj) == nil {
			code = rawString(obj.Code)
			if code == "" {
				code = obj.Type
			}
			if obj.Message != "" {
				return obj.Message, code
			}
		}
		var s string
		if json.Unmarshal(env.Error, &s) == nil && s != "" {
			return s, rawString(env.Code)
		}
	}
	if env.Message != "" {
		return env.Message, rawString(env.Code)
	}
	if len(env.Detail) > 0 {
		var s string
		if json.Unmarshal(env.Detail, &s) == nil {
			return s, ""
		}
		return truncate(string(env.Detail), 1000), ""
	}
	return truncate(string(body), 1000), ""
}

func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) > 0 && string(raw) != "null" {
		return string(raw)
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// isContextOverflow recognises "input too long" errors of OpenAI and the
// usual compatible servers (vLLM, Ollama, OpenRouter, llama.cpp).
func isContextOverflow(code, msg string) bool {
	switch code {
	case "context_length_exceeded", "context_window_exceeded", "exceed_context_size_error":
		return true
	}
	m := strings.ToLower(msg)
	for _, s := range []string{
		"context_length_exceeded",
		"maximum context length",
		"context length exceeded",
		"context window",
		"exceeds the context",
		"prompt is too long",
		"input is too long",
		"too many input tokens",
	} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// retryAfter reads Retry-After-Ms (OpenAI's) or Retry-After (seconds or an
// HTTP date).
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || math.IsNaN(s) || s > math.MaxInt64/float64(time.Second) {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
