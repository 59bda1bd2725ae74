package bedrock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// statusOfCode is the HTTP status Bedrock answers each error code with
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors).
// An exception event inside a stream arrives on a 200 response, so its
// status comes from its code.
var statusOfCode = map[string]int{
	"ValidationException":           http.StatusBadRequest,
	"ServiceQuotaExceededException": http.StatusBadRequest,
	"AccessDeniedException":         http.StatusForbidden,
	"UnrecognizedClientException":   http.StatusForbidden,
	"ResourceNotFoundException":     http.StatusNotFound,
	"ModelTimeoutException":         http.StatusRequestTimeout,
	"ModelErrorException":           http.StatusFailedDependency,
	"ModelStreamErrorException":     http.StatusFailedDependency,
	"ModelNotReadyException":        http.StatusTooManyRequests,
	"ThrottlingException":           http.StatusTooManyRequests,
	"InternalServerException":       http.StatusInternalServerError,
	"ServiceUnavailableException":   http.StatusServiceUnavailable,
}

// contextOverflowPhrases are how Bedrock's models word an input longer
// than the context window ("Input is too long for requested model",
// "prompt is too long: 210000 tokens > 200000 maximum", "too many input
// tokens").
var contextOverflowPhrases = []string{
	"input is too long",
	"prompt is too long",
	"too many input tokens",
	"too many tokens",
	"context window",
	"context length",
	"exceed context limit",
	"maximum context length",
}

// convertError turns an SDK error into a *model.ProviderError; a cancelled
// or expired ctx is returned as ctx.Err(), and a failure before anything
// was sent (no credentials, a request that cannot be signed) as itself.
func (m *Model) convertError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if pe := m.providerError(err); pe != nil {
		return pe
	}
	return fmt.Errorf("aws-bedrock: %s: %w", m.id, err)
}

// providerError classifies err: Bedrock's own errors by their status (or,
// inside a stream, their code), a failed connection or answer as a network
// error; nil for errors of this side (credentials, signing).
func (m *Model) providerError(err error) *model.ProviderError {
	var pe *model.ProviderError
	if errors.As(err, &pe) {
		return pe
	}
	out := &model.ProviderError{Provider: ProviderName, Model: m.id, Message: err.Error(), Err: err}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		out.StatusCode = respErr.HTTPStatusCode()
		if r := respErr.Response; r != nil && r.Response != nil {
			out.RetryAfter, _ = httpretry.RetryAfter(r.Header)
		}
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code := apiErr.ErrorCode()
		if out.StatusCode == 0 || out.StatusCode < 400 {
			out.StatusCode = statusOfCode[code]
			if out.StatusCode == 0 {
				out.StatusCode = faultStatus(apiErr.ErrorFault())
			}
		}
		out.Message = code
		if msg := apiErr.ErrorMessage(); msg != "" {
			out.Message = code + ": " + msg
		}
		if out.StatusCode == http.StatusBadRequest || out.StatusCode == http.StatusRequestEntityTooLarge {
			lower := strings.ToLower(apiErr.ErrorMessage())
			for _, p := range contextOverflowPhrases {
				if strings.Contains(lower, p) {
					out.ContextOverflow = true
					break
				}
			}
		}
		return out
	}
	if out.StatusCode == 0 {
		if isNetwork(err) {
			return out
		}
		return nil
	}
	// A status without Bedrock's error body (a proxy's page).
	out.Message = http.StatusText(out.StatusCode) + ": " + err.Error()
	return out
}

// isNetwork reports a request that could not be sent or an answer that
// broke off or came garbled: the connection, not the request, failed.
func isNetwork(err error) bool {
	var sendErr *smithyhttp.RequestSendError
	var netErr net.Error
	var deserErr *smithy.DeserializationError
	return errors.As(err, &sendErr) || errors.As(err, &netErr) || errors.As(err, &deserErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

func faultStatus(f smithy.ErrorFault) int {
	if f == smithy.FaultServer {
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// retryer is the SDK's retry loop driven by this package: it retries what
// model.ProviderError calls retryable (the one classification every
// provider shares), waits as package httpretry does and keeps no retry
// quota, so that concurrent runs do not starve each other of retries.
type retryer struct {
	m           *Model
	maxAttempts int
}

func (r *retryer) IsErrorRetryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var opErr *smithy.OperationError
	if errors.As(err, &opErr) {
		err = opErr.Err
	}
	pe := r.m.providerError(err)
	if pe == nil {
		return false
	}
	// A server asking for a longer wait than the policy's gets its error
	// back at once: the caller decides whether to wait that long.
	return pe.Retryable() && pe.RetryAfter <= httpretry.MaxWait
}

func (r *retryer) MaxAttempts() int { return r.maxAttempts }

func (r *retryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	if pe := r.m.providerError(err); pe != nil && pe.RetryAfter > 0 {
		return pe.RetryAfter, nil
	}
	return httpretry.Backoff(attempt - 1), nil
}

func (r *retryer) GetRetryToken(context.Context, error) (func(error) error, error) {
	return nopRelease, nil
}

func (r *retryer) GetInitialToken() func(error) error { return nopRelease }

func (r *retryer) GetAttemptToken(context.Context) (func(error) error, error) {
	return nopRelease, nil
}

func nopRelease(error) error { return nil }
