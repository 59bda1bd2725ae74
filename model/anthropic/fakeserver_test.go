package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/model/anthropic/anthropictest"
)

// fakeAPI is an Anthropic Messages API server for tests. It checks what the
// real API checks (key, version header, required fields, role alternation,
// tool_use/tool_result pairing, non-empty text) and answers with scripted
// replies in the real wire format: JSON bodies, or server-sent events
// "event: <type>\ndata: <json>\n\n", as package anthropictest writes them
// after https://docs.anthropic.com/en/api/messages,
// https://docs.anthropic.com/en/api/messages-streaming and
// https://docs.anthropic.com/en/api/errors.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server
	key string

	mu       sync.Mutex
	replies  []reply
	requests []recorded

	// arrived receives the attempt number of every request, if set.
	arrived chan int
	// gone is closed when a stream sees its client disconnect, while
	// sending or held.
	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
}

// reply is one scripted answer.
type reply struct {
	status int
	header map[string]string
	// body is a JSON body (a message or an error).
	body string
	// sse is a raw event stream. With body also set, a request gets the
	// one it asked for ("stream"); else whichever is set.
	sse string
	// hold keeps the stream open after sse until the client goes away.
	hold bool
	// cut drops the connection after sse without ending the HTTP body, as
	// a failing network does.
	cut bool
	// drop closes the connection without answering.
	drop bool
}

// recorded is a request the server received.
type recorded struct {
	header http.Header
	body   []byte
}

const testKey = "sk-ant-test-key"

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	return newFakeAPIWithKey(t, testKey, replies...)
}

func newFakeAPIWithKey(t *testing.T, key string, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, key: key, replies: replies, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.close)
	return f
}

// close releases held streams, then shuts the server down. Safe to call
// more than once.
func (f *fakeAPI) close() {
	f.mu.Lock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
	f.mu.Unlock()
	f.srv.Close()
}

func (f *fakeAPI) attempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// body returns the decoded JSON body of request i.
func (f *fakeAPI) body(i int) map[string]any {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.requests) {
		f.t.Fatalf("request %d not received (got %d)", i, len(f.requests))
	}
	var m map[string]any
	if err := json.Unmarshal(f.requests[i].body, &m); err != nil {
		f.t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

// received returns the requests received so far.
func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeAPI) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i].header
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), body: raw})
	attempt := len(f.requests)
	var rp reply
	scripted := len(f.replies) > 0
	if scripted {
		rp = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()
	if f.arrived != nil {
		f.arrived <- attempt
	}

	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeError(w, http.StatusNotFound, "not_found_error", "Not found")
		return
	}
	if sentKey(r.Header) != f.key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	if msg := anthropictest.Validate(raw, true); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "api_error", "fake server: no reply scripted")
		return
	}

	if rp.drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	if rp.sse == "" || (rp.body != "" && !asksForStream(raw)) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", fmt.Sprintf("req_fake_%d", attempt))
		w.WriteHeader(status)
		io.WriteString(w, rp.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	// Send event by event, flushing each, as the API does.
	for _, ev := range strings.SplitAfter(rp.sse, "\n\n") {
		if ev == "" {
			continue
		}
		if _, err := io.WriteString(w, ev); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	if rp.cut {
		// The server then closes the connection mid-body.
		panic(http.ErrAbortHandler)
	}
	if rp.hold {
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}

func asksForStream(raw []byte) bool {
	var req struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(raw, &req) == nil && req.Stream
}

// sentKey is the API key a request carries: the x-api-key header, or a
// bearer token, which is how anthropic-sdk-go v2 sends it.
func sentKey(h http.Header) string {
	if k := h.Get("x-api-key"); k != "" {
		return k
	}
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	anthropictest.WriteError(w, status, typ, msg)
}
