// Package httpretry is the one retry policy for requests to model and
// embedding providers. It runs as SDK middleware (the openai-go and
// anthropic-sdk-go middleware types are the same func type), so each
// provider package keeps its SDK's own retries off and every provider
// retries alike:
//
//   - retried: a transport error (no response, or a dropped body), 408,
//     409, 429 and every 5xx (Anthropic's 529 included); an
//     X-Should-Retry header overrides the status either way;
//   - attempts: 1 + MaxRetries;
//   - wait: Retry-After-Ms, else Retry-After (seconds or an HTTP date),
//     else 0.5 s doubling to 8 s, minus up to 25 % jitter;
//   - a server asking for more than MaxWait gets its response returned at
//     once: the caller (the agent, a fallback model) decides whether to
//     wait that long;
//   - the request's context ends the wait and the call.
//
// Why not the SDKs' own retries: both honour Retry-After and the context,
// but the Anthropic SDK waits for any Retry-After, even an hour (it needed
// a middleware faking X-Should-Retry to cap it), openai-go waits up to two
// minutes, and neither's wait can be observed: the openai tests record
// each chosen wait. Otherwise the policy is theirs.
//
// The agent's retries (agno's Agent.retries, delay_between_retries,
// exponential_backoff; internal/engine) are another layer and compose by
// multiplication: the engine reruns a failed run, and each model call in
// it makes up to 1+MaxRetries requests. A model call that keeps failing
// with a 5xx costs (R+1)·(1+MaxRetries) requests for retries=R (3 with
// the defaults R=0, MaxRetries=2); a 400 costs R+1, since the engine,
// like agno, reruns whatever failed.
package httpretry

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Policy bounds.
const (
	// MaxWait is the longest Retry-After the policy waits for.
	MaxWait        = 60 * time.Second
	initialBackoff = 500 * time.Millisecond
	maxBackoff     = 8 * time.Second
	// drainLimit bounds what is read from a retried response to reuse its
	// connection.
	drainLimit = 64 << 10
	// maxSized is the largest Content-Length read into a buffer of that
	// size up front; longer bodies grow as they arrive.
	maxSized = 32 << 20
)

// Policy retries a request as the package documents.
type Policy struct {
	// MaxRetries is how many times a failed request is sent again; zero or
	// less sends it once.
	MaxRetries int
	// Sleep waits between attempts and returns ctx's error if it ends
	// first; nil is the package's Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger gets a debug line for each retry; nil logs nothing.
	Logger *slog.Logger
	// LogAttrs are added to each line (provider, model).
	LogAttrs []any
}

// Middleware is p in the form option.WithMiddleware of both SDKs takes.
func (p Policy) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	ctx := req.Context()
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for n := 0; ; n++ {
		try := req
		if n > 0 {
			try = req.Clone(ctx)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				try.Body = body
			}
			if try.Header.Get("X-Stainless-Retry-Count") != "" {
				try.Header.Set("X-Stainless-Retry-Count", strconv.Itoa(n))
			}
		}
		res, err := next(try)
		if err == nil {
			err = bufferBody(res)
		}
		if n >= p.MaxRetries || !replayable {
			return final(res, err)
		}
		wait, retry := decide(res, err, n)
		if !retry {
			return final(res, err)
		}
		if ctx.Err() != nil {
			// Cancelled with a retry due: the caller's error, not the
			// failure it would have retried.
			if res != nil {
				drain(res)
			}
			return nil, ctx.Err()
		}
		status := 0
		if res != nil {
			status = res.StatusCode
			drain(res)
		}
		if p.Logger != nil {
			p.Logger.DebugContext(ctx, "retrying provider request", append([]any{
				"attempt", n + 1, "status", status, "wait", wait, "error", err}, p.LogAttrs...)...)
		}
		if err := p.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// final is an attempt's outcome as the SDK expects it: a response or an
// error, not both (a dropped body keeps its response only for decide).
func final(res *http.Response, err error) (*http.Response, error) {
	if err != nil {
		return nil, err
	}
	return res, nil
}

// decide reports whether the outcome of attempt n is retried and after
// how long.
func decide(res *http.Response, err error, n int) (time.Duration, bool) {
	if err != nil {
		if res != nil && res.Header.Get("X-Should-Retry") == "false" {
			return 0, false
		}
		return Backoff(n), true
	}
	switch res.Header.Get("X-Should-Retry") {
	case "false":
		return 0, false
	case "true":
	default:
		if !retryableStatus(res.StatusCode) {
			return 0, false
		}
	}
	if d, ok := RetryAfter(res.Header); ok {
		return d, d <= MaxWait
	}
	return Backoff(n), true
}

func retryableStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// bufferBody reads a successful response that is not an event stream, so
// that a connection dropped mid-body is retried like one dropped before
// the headers; the SDK reads such bodies whole anyway.
func bufferBody(res *http.Response) error {
	if res.StatusCode >= 300 || res.Body == nil || res.Body == http.NoBody {
		return nil
	}
	// Not mime.ParseMediaType: it allocates a map on every response.
	mt, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
		return nil
	}
	var data []byte
	var err error
	if n := res.ContentLength; n > 0 && n <= maxSized {
		data = make([]byte, n)
		_, err = io.ReadFull(res.Body, data)
	} else {
		data, err = io.ReadAll(res.Body)
	}
	_ = res.Body.Close()
	if err != nil {
		return err
	}
	b := &bufferedBody{}
	b.Reset(data)
	res.Body = b
	return nil
}

// bufferedBody is a body already read; one allocation, not a reader and
// a NopCloser.
type bufferedBody struct{ bytes.Reader }

func (*bufferedBody) Close() error { return nil }

func drain(res *http.Response) {
	if res.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, drainLimit))
		_ = res.Body.Close()
	}
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx ends, whose error it then returns.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Backoff is the wait before retry n+1 when the server names none:
// exponential from 0.5 s to 8 s with up to 25 % jitter, as both SDKs do.
func Backoff(n int) time.Duration {
	d := maxBackoff
	if n < 5 {
		d = initialBackoff << n
	}
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// RetryAfter reads the wait a response asks for: Retry-After-Ms (OpenAI's
// and Anthropic's), else Retry-After in seconds or as an HTTP date. ok is
// false when neither header holds a usable value; a date in the past is
// a zero wait.
func RetryAfter(h http.Header) (d time.Duration, ok bool) {
	if ms, ok := number(h.Get("Retry-After-Ms")); ok {
		return scale(ms, time.Millisecond), true
	}
	v := h.Get("Retry-After")
	if s, ok := number(v); ok {
		return scale(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t)), true
	}
	return 0, false
}

func number(v string) (float64, bool) {
	if v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !math.IsInf(f, 1) {
		return 0, false
	}
	return f, f >= 0 // NaN and negatives are unusable
}

// scale converts without overflowing: an absurd wait becomes the longest
// Duration, which no retry waits for.
func scale(v float64, unit time.Duration) time.Duration {
	if v*float64(unit) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(v * float64(unit))
}
