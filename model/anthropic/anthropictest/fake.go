package anthropictest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// Platform is how a cloud platform frames the Messages API (Bedrock,
// Vertex AI): where requests go and how they authenticate, how it
// reports errors and how it frames a stream. StartFake serves the
// conformance suite's turns through it.
type Platform struct {
	// Route checks a request's method, path and credentials (body is the
	// request's, already read). It returns the model id and whether a
	// stream was asked for, or writes the platform's error and returns ok
	// false.
	Route func(w http.ResponseWriter, r *http.Request, body []byte) (modelID string, stream, ok bool)
	// WriteError answers a failing turn in the platform's error format.
	WriteError func(w http.ResponseWriter, turn providertest.Turn)
	// StreamContentType is the Content-Type of a streamed response.
	StreamContentType string
	// WriteEvent writes one event of a stream in the platform's framing.
	WriteEvent func(w io.Writer, ev Event) error
	// ModelInBody: the platform takes the model from the body, as
	// Anthropic's API does, rather than from the URL.
	ModelInBody bool
}

// Fake is a fake platform server answering the suite's turns in order,
// repeating the last one. It implements providertest.Fake.
type Fake struct {
	t   *testing.T
	p   Platform
	srv *httptest.Server

	mu       sync.Mutex
	turns    []providertest.Turn
	served   int
	requests []providertest.Request

	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
	stopOnce sync.Once
}

// StartFake starts a fake of platform p answering turns; the test's
// cleanup closes it.
func StartFake(t *testing.T, p Platform, turns ...providertest.Turn) *Fake {
	t.Helper()
	if len(turns) == 0 {
		t.Fatal("anthropictest: StartFake needs at least one turn")
	}
	f := &Fake{t: t, p: p, turns: turns, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *Fake) URL() string                   { return f.srv.URL }
func (f *Fake) Disconnected() <-chan struct{} { return f.gone }

// Close releases held streams, then shuts the server down.
func (f *Fake) Close() {
	f.stopOnce.Do(func() { close(f.release) })
	f.srv.Close()
}

// Requests are the requests received, read from the Messages API bodies
// with the model and stream the platform's URL named.
func (f *Fake) Requests() []providertest.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providertest.Request(nil), f.requests...)
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	modelID, stream, ok := f.p.Route(w, r, raw)
	f.mu.Lock()
	req := ReadRequest(r.Header.Clone(), raw)
	req.Model, req.Stream = modelID, stream
	f.requests = append(f.requests, req)
	n := len(f.requests)
	turn := f.turns[min(f.served, len(f.turns)-1)]
	if ok {
		f.served++
	}
	f.mu.Unlock()
	if !ok {
		return
	}
	// Most platforms take the model from the URL and refuse it in the body.
	if msg := Validate(raw, f.p.ModelInBody); msg != "" {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if turn.Status != 0 {
		f.p.WriteError(w, turn)
		return
	}
	id := fmt.Sprintf("msg_fake_%d", n)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(TurnMessage(turn, id))
		return
	}
	w.Header().Set("Content-Type", f.p.StreamContentType)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range TurnEvents(turn, id) {
		if f.p.WriteEvent(w, ev) != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	switch turn.End {
	case providertest.Cut:
		panic(http.ErrAbortHandler) // drops the connection mid-body
	case providertest.Stall:
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}
