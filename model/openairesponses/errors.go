package openairesponses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// statusOfCode gives the HTTP status the API answers each error code
// with. A failure inside a stream (response.failed, an error event)
// arrives on a 200, so its status, and whether it is worth retrying,
// comes from its code (https://platform.openai.com/docs/guides/error-codes).
func statusOfCode(code string) int {
	switch {
	case code == "":
		return 0
	case code == "server_error", code == "vector_store_timeout":
		return http.StatusInternalServerError
	case code == "rate_limit_exceeded", code == "insufficient_quota":
		return http.StatusTooManyRequests
	case code == "context_length_exceeded", strings.HasPrefix(code, "invalid_"),
		strings.Contains(code, "image"), code == "unsupported_parameter", code == "unsupported_value":
		return http.StatusBadRequest
	}
	return 0
}

// attempt keeps the HTTP error response of a call's last attempt: the
// SDK decodes only {"error":{...}} bodies (a string under "error" even
// fails its decoding), and servers reached by base_url answer in other
// shapes whose status and text still matter.
type attempt struct {
	status int
	header http.Header
	body   []byte
}

// option records each attempt; it runs inside the retry middleware.
func (a *attempt) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		*a = attempt{}
		res, err := next(req)
		if err != nil || res == nil || res.StatusCode < 400 {
			return res, err
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		a.status, a.header, a.body = res.StatusCode, res.Header, body
		return res, nil
	})
}

// convertError turns what a call returned into a *model.ProviderError
// with the server's own message; a cancelled or expired ctx is returned
// as ctx.Err().
func (m *Model) convertError(ctx context.Context, err error, a *attempt) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	pe := &model.ProviderError{Provider: ProviderName, Model: m.info.ID, Endpoint: m.endpoint, Err: err}
	if a == nil || a.status < 400 {
		// A network failure, or a body that is not what the API sends.
		pe.Message = err.Error()
		return pe
	}
	pe.StatusCode = a.status
	msg, code := errorMessage(a.body)
	if msg == "" {
		msg = http.StatusText(a.status)
	}
	pe.Message = msg
	pe.RetryAfter, _ = httpretry.RetryAfter(a.header)
	pe.ContextOverflow = a.status != http.StatusTooManyRequests && isContextOverflow(code, msg)
	return pe
}

// eventError is the error of a failed response or an error event, with
// the status its code stands for.
func (m *Model) eventError(code, msg string, err error) *model.ProviderError {
	if code != "" {
		err = errors.Join(err, errors.New("code "+code))
	}
	return &model.ProviderError{
		Provider: ProviderName, Model: m.info.ID, Endpoint: m.endpoint, Err: err,
		StatusCode: statusOfCode(code), Message: msg, ContextOverflow: isContextOverflow(code, msg),
	}
}

// errorMessage reads the message and code of an error body: OpenAI's
// {"error":{"message","type","param","code"}}, or the shapes other servers
// use: {"error":"text"}, {"message":...}, {"detail":...}, plain text.
func errorMessage(body []byte) (msg, code string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", ""
	}
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    any             `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil {
		return truncate(string(body), 1000), ""
	}
	if c, ok := env.Code.(string); ok {
		code = c
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	if len(env.Error) > 0 && json.Unmarshal(env.Error, &obj) == nil && obj.Message != "" {
		c, _ := obj.Code.(string)
		if c == "" {
			c = obj.Type
		}
		return obj.Message, c
	}
	var s string
	switch {
	case len(env.Error) > 0 && json.Unmarshal(env.Error, &s) == nil && s != "":
		return s, code
	case env.Message != "":
		return env.Message, code
	case len(env.Detail) > 0:
		if json.Unmarshal(env.Detail, &s) == nil {
			return s, code
		}
		return truncate(string(env.Detail), 1000), code
	}
	return truncate(string(body), 1000), code
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// isContextOverflow recognises "input too long" errors of OpenAI and the
// servers reached by base_url.
func isContextOverflow(code, msg string) bool {
	if code == "context_length_exceeded" {
		return true
	}
	lower := strings.ToLower(msg)
	for _, s := range []string{"context_length_exceeded", "maximum context length", "context window", "exceeds the context", "prompt is too long", "input is too long", "too many input tokens"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}
