package httpretry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"

	embedopenai "github.com/agno-go/agno/knowledge/embedder/openai"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/openai"
)

// step is one scripted error answer, written in each provider's own wire
// format.
type step struct {
	status     int
	retryAfter string
	message    string
}

// providerFake answers POST /v1/chat/completions as OpenAI and
// POST /v1/messages as Anthropic, with the same script, and records when
// each attempt arrived.
type providerFake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script []step
	times  []time.Time
}

func newProviderFake(t *testing.T, script ...step) *providerFake {
	f := &providerFake{script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		st := f.script[min(len(f.times), len(f.script)-1)]
		f.times = append(f.times, time.Now())
		f.mu.Unlock()
		if st.retryAfter != "" {
			w.Header().Set("Retry-After", st.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st.status)
		switch r.URL.Path {
		case "/v1/chat/completions", "/v1/embeddings":
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"error","param":null,"code":null}}`, st.message)
		case "/v1/messages":
			types := map[int]string{400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
			fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_1"}`, types[st.status], st.message)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *providerFake) arrivals() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.times...)
}

type newModel func(f *providerFake, retries int) (model.Model, error)

var providers = map[string]newModel{
	"openai": func(f *providerFake, retries int) (model.Model, error) {
		return openai.New(openai.Config{ID: "gpt-test", BaseURL: f.srv.URL + "/v1", APIKey: "k", HTTPClient: f.srv.Client(), MaxRetries: retries})
	},
	"anthropic": func(f *providerFake, retries int) (model.Model, error) {
		return anthropic.New(anthropic.Config{ID: "claude-test", BaseURL: f.srv.URL, APIKey: "k", HTTPClient: f.srv.Client(), MaxRetries: retries})
	},
}

// TestOnePolicyForBothProviders sends the same failing sequence to both
// providers: each waits the 429's Retry-After, backs off after the 500
// and stops at the 400, so each makes the same attempts and reports the
// same error.
func TestOnePolicyForBothProviders(t *testing.T) {
	script := []step{
		{status: 429, retryAfter: "1", message: "rate limited"},
		{status: 500, message: "server error"},
		{status: 400, message: "bad request"},
		{status: 500, message: "never reached"},
	}
	for _, tc := range []struct {
		name         string
		retries      int
		wantAttempts int
		wantStatus   int
	}{
		{"default retries", 0, 3, 400},
		{"five retries", 5, 3, 400},
		{"one retry", 1, 2, 500},
		{"retries off", -1, 1, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Every provider and mode at once: the waits overlap.
			var wg sync.WaitGroup
			var mu sync.Mutex
			attempts := map[string]int{}
			for name, build := range providers {
				for _, stream := range []bool{false, true} {
					wg.Go(func() {
						n := runScript(t, build, script, tc.retries, tc.wantStatus, stream)
						mu.Lock()
						attempts[fmt.Sprintf("%s stream=%v", name, stream)] = n
						mu.Unlock()
					})
				}
			}
			wg.Wait()
			for k, n := range attempts {
				if n != tc.wantAttempts {
					t.Errorf("%s: %d attempts, want %d (all: %v)", k, n, tc.wantAttempts, attempts)
				}
			}
		})
	}
}

// runScript makes one call against a fresh fake and returns its attempts.
func runScript(t *testing.T, build newModel, script []step, retries, wantStatus int, stream bool) int {
	f := newProviderFake(t, script...)
	m, err := build(f, retries)
	if err != nil {
		t.Error(err)
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, Stream: stream}
	_, err = model.Collect(m.Generate(ctx, req))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != wantStatus {
		t.Errorf("%s stream=%v: err = %v, want status %d", m.Info().Provider, stream, err, wantStatus)
	} else if pe.StatusCode == 429 && pe.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v", pe.RetryAfter)
	}
	at := f.arrivals()
	if len(at) > 1 && at[1].Sub(at[0]) < time.Second {
		t.Errorf("%s: retried the 429 after %v, before its Retry-After of 1 s", m.Info().Provider, at[1].Sub(at[0]))
	}
	if len(at) > 2 && at[2].Sub(at[1]) < 375*time.Millisecond {
		t.Errorf("%s: retried the 500 after %v, want a backoff of at least 375 ms", m.Info().Provider, at[2].Sub(at[1]))
	}
	return len(at)
}

// A wait longer than MaxWait is the caller's to decide, for both.
func TestLongRetryAfterReturnedByBothProviders(t *testing.T) {
	for name, build := range providers {
		t.Run(name, func(t *testing.T) {
			f := newProviderFake(t, step{status: 429, retryAfter: "600", message: "daily limit"})
			m, err := build(f, 3)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = model.Collect(m.Generate(ctx, &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
			pe, ok := model.AsProviderError(err)
			if !ok || pe.StatusCode != 429 || pe.RetryAfter != 10*time.Minute || pe.Message != "daily limit" {
				t.Fatalf("err = %#v", err)
			}
			if n := len(f.arrivals()); n != 1 {
				t.Errorf("attempts = %d, want 1", n)
			}
		})
	}
}

// The OpenAI embedder follows the same policy: the same attempts for the
// sequence, and a Retry-After between MaxWait and the SDK's own 2 min
// limit is returned rather than waited for.
func TestEmbedderSamePolicy(t *testing.T) {
	for _, tc := range []struct {
		name         string
		script       []step
		wantAttempts int
		wantStatus   int
	}{
		{"sequence", []step{{status: 429, retryAfter: "1", message: "rate limited"}, {status: 500, message: "server error"}, {status: 400, message: "bad request"}}, 3, 400},
		{"90 s retry-after", []step{{status: 429, retryAfter: "90", message: "slow down"}}, 1, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newProviderFake(t, tc.script...)
			e, err := embedopenai.New(embedopenai.Config{BaseURL: f.srv.URL + "/v1", APIKey: "k", HTTPClient: f.srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, err = e.Embed(ctx, []string{"hi"})
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.wantStatus {
				t.Fatalf("err = %v, want status %d", err, tc.wantStatus)
			}
			if n := len(f.arrivals()); n != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", n, tc.wantAttempts)
			}
		})
	}
}
