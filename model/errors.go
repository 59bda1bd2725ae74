package model

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ProviderError is an error answered by a model provider.
type ProviderError struct {
	Provider   string
	Model      string
	StatusCode int
	// Message is the provider's own error message.
	Message string
	// RetryAfter is the delay the provider asked for, if any.
	RetryAfter time.Duration
	// ContextOverflow marks "input too long" errors.
	ContextOverflow bool
	// Endpoint is the server asked, when it is not the provider's own
	// (an OpenAI-compatible one): the message names it, since Provider
	// keeps agno's value ("OpenAI" for OpenAILike).
	Endpoint string
	Err      error
}

func (e *ProviderError) Error() string {
	who := e.Provider
	switch {
	case e.Endpoint != "" && (e.Provider == "" || e.Provider == "OpenAI"):
		who = "OpenAI-compatible endpoint " + e.Endpoint
	case e.Endpoint != "":
		// A named vendor (a preset): its name, then where it was reached.
		who = e.Provider + " at " + e.Endpoint
	}
	if e.StatusCode != 0 {
		return fmt.Sprintf("%s: status %d: %s", who, e.StatusCode, e.Message)
	}
	return fmt.Sprintf("%s: %s", who, e.Message)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// RateLimited reports a 429 or Anthropic's 529 overload.
func (e *ProviderError) RateLimited() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == 529
}

// Retryable reports whether retrying the same request may succeed: network
// errors, 408, 409, 429 and 5xx — never 400/401/403/404/413/422 or a context
// overflow, as agno decides.
func (e *ProviderError) Retryable() bool {
	if e.ContextOverflow {
		return false
	}
	switch {
	case e.StatusCode == 0:
		return true
	case e.StatusCode == http.StatusRequestTimeout, e.StatusCode == http.StatusConflict:
		return true
	case e.RateLimited():
		return true
	case e.StatusCode >= 500:
		return true
	}
	return false
}

// AsProviderError returns the ProviderError in err's chain, if any.
func AsProviderError(err error) (*ProviderError, bool) {
	var pe *ProviderError
	ok := errors.As(err, &pe)
	return pe, ok
}
