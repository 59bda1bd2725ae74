package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// attempt records the HTTP error response of the last request attempt. The
// SDK only keeps bodies shaped {"error":{...}}; gateways answer with other
// shapes, or plain text, whose message we still want to report.
type attempt struct {
	status int
	header http.Header
	body   []byte
}

// option runs inside the retry middleware, so it sees every attempt and
// keeps only the last one's response.
func (a *attempt) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		*a = attempt{}
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

// call makes one SDK call (its retries happen inside, see New) and turns
// its error into a ProviderError, or ctx's error once ctx is done.
func (m *Model) call(ctx context.Context, do func(a *attempt) error) error {
	a := &attempt{}
	err := do(a)
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return m.providerError(err, a)
}

// providerError turns whatever a request returned into a ProviderError that
// carries the provider's own message.
func (m *Model) providerError(err error, a *attempt) *model.ProviderError {
	pe := &model.ProviderError{Provider: m.info.Provider, Model: m.info.ID, Endpoint: m.endpoint, Err: err}
	var se *ssestream.StreamError
	switch {
	case a != nil && a.status >= 400:
		pe.StatusCode = a.status
		msg, code := errorMessage(a.body)
		if msg == "" {
			msg = http.StatusText(a.status)
		}
		pe.Message = msg
		pe.RetryAfter, _ = httpretry.RetryAfter(a.header)
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
