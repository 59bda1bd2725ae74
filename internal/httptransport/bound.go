package httptransport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Defaults of a model answer's bounds.
const (
	// DefaultFirstByte is the wait for a provider's response headers: a
	// non-streamed answer of a reasoning model may rightly take minutes.
	DefaultFirstByte = 10 * time.Minute
	// DefaultIdle is the longest silence allowed once an answer started.
	DefaultIdle = 5 * time.Minute
	// DefaultMaxBytes bounds an answer's body (SSE framing included).
	DefaultMaxBytes = 32 << 20
)

// ErrStalled is matched by the error of an answer whose provider went
// silent for longer than its idle limit.
var ErrStalled = errors.New("model answer stalled")

// ErrTooLarge is matched by the error of an answer longer than its limit.
var ErrTooLarge = errors.New("model answer too large")

// Limits bound an answer once its headers arrived. Zero fields take the
// defaults; negative ones turn the bound off.
type Limits struct {
	// Idle is the longest wait for the next bytes of the body.
	Idle time.Duration
	// MaxBytes is the most body bytes read before the answer fails.
	MaxBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.Idle == 0 {
		l.Idle = DefaultIdle
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Client returns a client with its own pool, the firstByte wait for
// headers (DefaultFirstByte if not positive) and the body bounds of l.
// The transport is returned too, so its owner can close idle connections.
func Client(firstByte time.Duration, l Limits) (*http.Client, *http.Transport) {
	if firstByte <= 0 {
		firstByte = DefaultFirstByte
	}
	t := New(firstByte)
	return &http.Client{Transport: Bound(t, l)}, t
}

// Bound wraps base so that every response body honours l: a read that
// waits longer than l.Idle, or a body longer than l.MaxBytes, fails with
// ErrStalled or ErrTooLarge and the connection is closed, so a provider
// or proxy that stops mid-answer cannot hold a run forever.
func Bound(base http.RoundTripper, l Limits) http.RoundTripper {
	return &bounded{base: base, l: l.withDefaults()}
}

type bounded struct {
	base http.RoundTripper
	l    Limits
}

func (b *bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	resp.Body = &boundedBody{body: resp.Body, l: b.l}
	return resp, nil
}

type boundedBody struct {
	body io.ReadCloser
	l    Limits
	read int64

	mu      sync.Mutex
	stalled bool
	err     error // sticky once a bound is hit
}

func (r *boundedBody) Read(p []byte) (int, error) {
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if r.l.MaxBytes > 0 {
		// One byte past the limit tells a body of exactly MaxBytes from a
		// longer one.
		if room := r.l.MaxBytes + 1 - r.read; int64(len(p)) > room {
			p = p[:room]
		}
	}
	var timer *time.Timer
	if r.l.Idle > 0 {
		// Closing the body is what unblocks a read stuck on the network.
		timer = time.AfterFunc(r.l.Idle, func() {
			r.mu.Lock()
			r.stalled = true
			r.mu.Unlock()
			_ = r.body.Close()
		})
	}
	n, err := r.body.Read(p)
	if timer != nil {
		timer.Stop()
	}
	r.read += int64(n)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.stalled:
		r.err = fmt.Errorf("%w: the provider sent nothing for %s mid-answer (after %d bytes); raise the model's idle_timeout if it thinks that long", ErrStalled, r.l.Idle, r.read)
		return n, r.err
	case r.l.MaxBytes > 0 && r.read > r.l.MaxBytes:
		r.err = fmt.Errorf("%w: the answer exceeded %d bytes; raise the model's max_response_bytes to allow longer answers", ErrTooLarge, r.l.MaxBytes)
		_ = r.body.Close()
		return 0, r.err
	}
	return n, err
}

func (r *boundedBody) Close() error { return r.body.Close() }
