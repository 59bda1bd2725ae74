package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// statusOfErrorType gives the HTTP status the API uses for each error type.
// An error event inside a stream arrives on a 200 response, so its status
// comes from its type.
var statusOfErrorType = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"timeout_error":         http.StatusGatewayTimeout,
	"overloaded_error":      529,
	// Bedrock's exceptions inside a response stream, which the SDK turns
	// into error events of these types
	// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html).
	"validationException":         http.StatusBadRequest,
	"modelTimeoutException":       http.StatusRequestTimeout,
	"modelStreamErrorException":   http.StatusFailedDependency,
	"throttlingException":         http.StatusTooManyRequests,
	"internalServerException":     http.StatusInternalServerError,
	"serviceUnavailableException": http.StatusServiceUnavailable,
}

// contextOverflowPhrases are how the API words an input that does not fit
// the context window ("prompt is too long: 210000 tokens > 200000 maximum",
// "input length and `max_tokens` exceed context limit: ...").
var contextOverflowPhrases = []string{
	"prompt is too long",
	"exceed context limit",
	"context window",
	"context length",
	"too many tokens",
	"input is too long",
}

// convertError turns an SDK error into a *model.ProviderError; a cancelled
// or expired ctx is returned as ctx.Err().
func (m *Model) convertError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return m.apiError(apiErr)
	}
	return &model.ProviderError{Provider: m.provider, Model: m.id, Message: err.Error(), Err: err}
}

func (m *Model) apiError(e *sdk.Error) *model.ProviderError {
	status := e.StatusCode
	errType := string(e.Type())
	if status < 400 {
		if s, ok := statusOfErrorType[errType]; ok {
			status = s
		}
	}
	msg := e.Message
	if msg == "" {
		// Not Anthropic's JSON (a proxy's page, say): show what came.
		msg = strings.TrimSpace(e.RawJSON())
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	pe := &model.ProviderError{
		Provider:   m.provider,
		Model:      m.id,
		StatusCode: status,
		Message:    msg,
		Err:        e,
	}
	if e.Response != nil {
		pe.RetryAfter, _ = httpretry.RetryAfter(e.Response.Header)
	}
	if status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge {
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
