package httptransport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestBoundedBody(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stall":
			_, _ = io.WriteString(w, "data: one\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/slow":
			// Steady chunks, each within the idle limit.
			for range 5 {
				_, _ = io.WriteString(w, "data: x\n\n")
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		default:
			_, _ = io.WriteString(w, strings.Repeat("a", len(r.URL.Path)*100))
		}
	}))
	defer srv.Close()
	defer close(release)
	get := func(path string, l Limits) ([]byte, error) {
		hc, tr := Client(time.Minute, l)
		defer tr.CloseIdleConnections()
		resp, err := hc.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}

	got, err := get("/stall", Limits{Idle: 200 * time.Millisecond})
	if !errors.Is(err, ErrStalled) || string(got) != "data: one\n\n" {
		t.Errorf("stalled body: %q %v", got, err)
	}
	if _, err := get("/slow", Limits{Idle: 2 * time.Second}); err != nil {
		t.Errorf("a steady body is not stalled: %v", err)
	}
	// "/0123456789" is 11 characters: a body of 1,100 bytes.
	if got, err := get("/0123456789", Limits{MaxBytes: 1100}); err != nil || len(got) != 1100 {
		t.Errorf("a body of exactly the limit: %d %v", len(got), err)
	}
	if got, err := get("/0123456789", Limits{MaxBytes: 1099}); !errors.Is(err, ErrTooLarge) || len(got) > 1099 {
		t.Errorf("a body over the limit: %d %v", len(got), err)
	}
	if _, err := get("/0123456789", Limits{MaxBytes: -1, Idle: -1}); err != nil {
		t.Errorf("bounds off: %v", err)
	}
}
