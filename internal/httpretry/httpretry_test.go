package httpretry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/internal/httpretry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRetryAfter(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		ms, s  string
		want   time.Duration
		wantOK bool
	}{
		{"", "", 0, false},
		{"250", "9", 250 * time.Millisecond, true}, // ms first
		{"", "3", 3 * time.Second, true},
		{"", "1.5", 1500 * time.Millisecond, true},
		{"", "0", 0, true},
		{"-5", "", 0, false},
		{"", "NaN", 0, false},
		{"", "soon", 0, false},
		{"", "1e300", math.MaxInt64, true},
		{"", past, 0, true},
	} {
		h := http.Header{}
		if tc.ms != "" {
			h.Set("Retry-After-Ms", tc.ms)
		}
		if tc.s != "" {
			h.Set("Retry-After", tc.s)
		}
		if got, ok := httpretry.RetryAfter(h); got != tc.want || ok != tc.wantOK {
			t.Errorf("ms %q s %q: got %v %v, want %v %v", tc.ms, tc.s, got, ok, tc.want, tc.wantOK)
		}
	}
	h := http.Header{"Retry-After": {future}}
	if got, ok := httpretry.RetryAfter(h); !ok || got < 85*time.Second || got > 90*time.Second {
		t.Errorf("date 90 s ahead: got %v %v", got, ok)
	}
}

func TestBackoff(t *testing.T) {
	for n, base := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		if d := httpretry.Backoff(n); d > base || d < base-base/4 {
			t.Errorf("Backoff(%d) = %v, want %v minus at most 25 %%", n, d, base)
		}
	}
	if d := httpretry.Backoff(100); d > 8*time.Second {
		t.Errorf("Backoff(100) = %v", d)
	}
}

// reply is one scripted answer of the test server.
type reply struct {
	status int
	header map[string]string
	body   string
	// drop closes the connection without answering; cut closes it half
	// way through the body.
	drop, cut bool
}

type server struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []reply
	bodies []string
	counts []string
	// arrived gets a value per request when set.
	arrived chan struct{}
}

func newServer(t *testing.T, script ...reply) *server {
	s := &server{t: t, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, string(body))
	s.counts = append(s.counts, r.Header.Get("X-Stainless-Retry-Count"))
	rp := s.script[min(n, len(s.script)-1)]
	s.mu.Unlock()
	if s.arrived != nil {
		s.arrived <- struct{}{}
	}
	if rp.drop {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.cut {
		w.Header().Set("Content-Length", strconv.Itoa(2*len(rp.body)))
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, rp.body)
		_ = http.NewResponseController(w).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(cmpStatus(rp.status))
	_, _ = io.WriteString(w, rp.body)
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

func (s *server) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// send runs one request through p the way an SDK does: its middleware in
// front of the client's Do.
func (s *server) send(ctx context.Context, p httpretry.Policy) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL, bytes.NewReader([]byte(`{"q":1}`)))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-Stainless-Retry-Count", "0")
	res, err := p.Middleware(req, s.srv.Client().Do)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// recorded is a Policy whose waits are recorded instead of spent.
func recorded(retries int) (httpretry.Policy, *[]time.Duration) {
	waits := &[]time.Duration{}
	return httpretry.Policy{MaxRetries: retries, Sleep: func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}}, waits
}

func TestPolicy(t *testing.T) {
	ok := reply{body: `{"ok":true}`}
	for _, tc := range []struct {
		name         string
		retries      int
		script       []reply
		wantAttempts int
		wantStatus   int
		// wantWaits are exact waits; a negative one is the backoff of
		// that retry.
		wantWaits []time.Duration
	}{
		{"success", 2, []reply{ok}, 1, 200, nil},
		{"5xx then success", 2, []reply{{status: 503}, {status: 500}, ok}, 3, 200, []time.Duration{-1, -2}},
		{"529 overloaded", 2, []reply{{status: 529}, ok}, 2, 200, []time.Duration{-1}},
		{"408 and 409", 2, []reply{{status: 408}, {status: 409}, ok}, 3, 200, []time.Duration{-1, -2}},
		{"retries bounded", 1, []reply{{status: 502}}, 2, 502, []time.Duration{-1}},
		{"retries off", 0, []reply{{status: 429}}, 1, 429, nil},
		{"429 retry-after", 2, []reply{{status: 429, header: map[string]string{"Retry-After": "2"}}, ok}, 2, 200, []time.Duration{2 * time.Second}},
		{"retry-after-ms", 2, []reply{{status: 429, header: map[string]string{"Retry-After-Ms": "40", "Retry-After": "1"}}, ok}, 2, 200, []time.Duration{40 * time.Millisecond}},
		{"retry-after 0 is now", 2, []reply{{status: 503, header: map[string]string{"Retry-After": "0"}}, ok}, 2, 200, []time.Duration{0}},
		{"retry-after over a minute", 2, []reply{{status: 429, header: map[string]string{"Retry-After": "120"}}, ok}, 1, 429, nil},
		{"400", 5, []reply{{status: 400}, ok}, 1, 400, nil},
		{"401", 5, []reply{{status: 401}, ok}, 1, 401, nil},
		{"404", 5, []reply{{status: 404}, ok}, 1, 404, nil},
		{"422", 5, []reply{{status: 422}, ok}, 1, 422, nil},
		{"x-should-retry false", 2, []reply{{status: 503, header: map[string]string{"X-Should-Retry": "false"}}, ok}, 1, 503, nil},
		{"x-should-retry true", 2, []reply{{status: 400, header: map[string]string{"X-Should-Retry": "true"}}, ok}, 2, 200, []time.Duration{-1}},
		{"dropped connection", 2, []reply{{drop: true}, ok}, 2, 200, []time.Duration{-1}},
		{"dropped body", 2, []reply{{cut: true, body: `{"partial"`}, ok}, 2, 200, []time.Duration{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.script...)
			p, waits := recorded(tc.retries)
			res, body, err := s.send(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.wantStatus || (tc.wantStatus == 200 && string(body) != `{"ok":true}`) {
				t.Errorf("got %d %q, want %d", res.StatusCode, body, tc.wantStatus)
			}
			if n := s.attempts(); n != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", n, tc.wantAttempts)
			}
			if len(*waits) != len(tc.wantWaits) {
				t.Fatalf("waits = %v, want %v", *waits, tc.wantWaits)
			}
			for i, w := range tc.wantWaits {
				got := (*waits)[i]
				if w < 0 {
					base := 250 * time.Millisecond << -w
					if got > base || got < base-base/4 {
						t.Errorf("wait %d = %v, want a backoff of %v minus jitter", i, got, base)
					}
				} else if got != w {
					t.Errorf("wait %d = %v, want %v", i, got, w)
				}
			}
			for i, b := range s.bodies {
				if b != `{"q":1}` {
					t.Errorf("attempt %d sent body %q", i+1, b)
				}
				if s.counts[i] != strconv.Itoa(i) {
					t.Errorf("attempt %d sent X-Stainless-Retry-Count %q", i+1, s.counts[i])
				}
			}
		})
	}
}

func TestDroppedBodyOnLastAttemptIsAnError(t *testing.T) {
	s := newServer(t, reply{cut: true, body: `{"partial"`})
	p, _ := recorded(1)
	if _, _, err := s.send(context.Background(), p); err == nil {
		t.Fatal("want the read error")
	}
	if n := s.attempts(); n != 2 {
		t.Errorf("attempts = %d", n)
	}
}

func TestCancelDuringWait(t *testing.T) {
	s := newServer(t, reply{status: 503, header: map[string]string{"Retry-After": "30"}})
	s.arrived = make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := s.send(ctx, httpretry.Policy{MaxRetries: 3})
		done <- err
	}()
	<-s.arrived
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end with the context")
	}
	if n := s.attempts(); n != 1 || time.Since(start) > time.Second {
		t.Errorf("attempts = %d after %v", n, time.Since(start))
	}
}

// An event stream is handed over as it arrives, not read to its end.
func TestStreamIsNotBuffered(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: 1\n\n")
		_ = http.NewResponseController(w).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	done := make(chan error, 1)
	go func() {
		res, err := httpretry.Policy{MaxRetries: 2}.Middleware(req, srv.Client().Do)
		if err == nil {
			buf := make([]byte, 9)
			_, err = io.ReadFull(res.Body, buf)
			res.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the middleware waited for the stream to end")
	}
}

// A cancel that lands between a retryable answer and the wait is the
// caller's error, not the answer it would have retried.
func TestCancelledWithARetryDue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://model.invalid/v1/chat/completions", nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	next := func(*http.Request) (*http.Response, error) {
		calls++
		cancel()
		return &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"30"}}, Body: io.NopCloser(strings.NewReader("busy"))}, nil
	}
	res, err := httpretry.Policy{MaxRetries: 3}.Middleware(req, next)
	if !errors.Is(err, context.Canceled) || res != nil || calls != 1 {
		t.Fatalf("res %v, err %v after %d calls; want context.Canceled after 1", res, err, calls)
	}
}
