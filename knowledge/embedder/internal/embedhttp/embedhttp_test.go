package embedhttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPostJSON(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch r.URL.Path {
		case "/ok":
			if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-Key") != "k" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte(`{"n": 3}`))
		case "/error":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error": "model \"x\" not found"}`))
		case "/detail":
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"detail": "input must not be empty"}`))
		case "/nested":
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error": {"message": "no access"}}`))
		case "/plain":
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(strings.Repeat("x", 300)))
		case "/garbage":
			_, _ = w.Write([]byte(`{"n":`))
		}
	}))
	defer srv.Close()
	c := Client{HTTP: srv.Client(), MaxRetries: -1, Headers: map[string]string{"X-Key": "k"}}
	var out struct{ N int }
	if err := c.PostJSON(t.Context(), srv.URL+"/ok", map[string]any{"a": 1}, &out); err != nil || out.N != 3 {
		t.Errorf("ok: %v %+v", err, out)
	}
	for path, want := range map[string]string{
		"/error":  `HTTP 400 Bad Request: model "x" not found`,
		"/detail": "HTTP 422 Unprocessable Entity: input must not be empty",
		"/nested": "HTTP 403 Forbidden: no access",
		"/plain":  "HTTP 502 Bad Gateway: " + strings.Repeat("x", 200) + "...",
	} {
		err := c.PostJSON(t.Context(), srv.URL+path, nil, &out)
		var se *StatusError
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if err := c.PostJSON(t.Context(), srv.URL+"/garbage", nil, &out); err == nil || !strings.Contains(err.Error(), "decoding the answer") {
		t.Errorf("garbage: %v", err)
	}
	// A 502 is retried MaxRetries times.
	calls = 0
	c.MaxRetries = 1
	_ = c.PostJSON(t.Context(), srv.URL+"/plain", nil, &out)
	if calls != 2 {
		t.Errorf("%d calls for a 502 with one retry", calls)
	}
}
