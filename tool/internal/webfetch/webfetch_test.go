package webfetch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool/internal/webfetch"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDoBoundsAndErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<p>hi</p>"))
		}
	}))
	defer srv.Close()
	c := webfetchtest.Client(t, "127.0.0.1")
	ctx := context.Background()

	var tl *webfetch.TooLargeError
	if _, err := webfetch.Do(ctx, c, webfetch.Request{URL: srv.URL + "/big", MaxBytes: 10}); !errors.As(err, &tl) || tl.Limit != 10 {
		t.Errorf("a body past MaxBytes: %v", err)
	}
	r, err := webfetch.Do(ctx, c, webfetch.Request{URL: srv.URL + "/big", MaxBytes: 10, Truncate: true})
	if err != nil || len(r.Body) != 10 || !r.Truncated {
		t.Errorf("Truncate: %v %d %v", err, len(r.Body), r)
	}
	if _, err := webfetch.Do(ctx, c, webfetch.Request{URL: srv.URL + "/slow", Timeout: 50 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Errorf("a slow answer: %v", err)
	}
	r, err = webfetch.Do(ctx, c, webfetch.Request{URL: srv.URL + "/teapot"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.StatusError().Error(); got != "Client error '418 I'm a teapot' for url '"+srv.URL+"/teapot'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/418" {
		t.Errorf("httpx's message: %q", got)
	}
	r, _ = webfetch.Do(ctx, c, webfetch.Request{URL: srv.URL + "/"})
	if !r.IsHTML() || r.ContentType != "text/html" || r.StatusError() != nil {
		t.Errorf("an HTML page: %+v", r)
	}
	if _, err := webfetch.Do(ctx, webfetchtest.Client(t), webfetch.Request{URL: srv.URL + "/"}); err == nil || !strings.HasPrefix(err.Error(), "netguard: refused to connect to 127.0.0.1") {
		t.Errorf("a refused address: %v", err)
	}
}

func TestCutAndBound(t *testing.T) {
	if s, cut := webfetch.Cut("héllo", 2); s != "h" || !cut {
		t.Errorf("Cut splits a character: %q", s)
	}
	if s, cut := webfetch.Cut("abc", 0); s != "abc" || cut {
		t.Errorf("Cut with no bound: %q", s)
	}
	if s := webfetch.CutRunes("héllo", 2); s != "hé" {
		t.Errorf("CutRunes: %q", s)
	}
	if s := webfetch.Bound(strings.Repeat("a", 50), 10); !strings.HasPrefix(s, "aaaaaaaaaa\n[output truncated: the first 10 of 50 bytes") {
		t.Errorf("Bound: %q", s)
	}
}

func TestLoads(t *testing.T) {
	v, err := webfetch.Loads([]byte(`{"b": 1, "a": [true, null, 1.5, "x"], "b": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := pyrepr.Repr(v); got != "{'b': 2, 'a': [True, None, 1.5, 'x']}" {
		t.Errorf("key order or values lost: %s", got)
	}
	for in, want := range map[string]string{
		"":               "Expecting value: line 1 column 1 (char 0)",
		"<html>":         "Expecting value: line 1 column 1 (char 0)",
		"\n  oops":       "Expecting value: line 2 column 3 (char 3)",
		`{"a": 1} extra`: "Extra data",
	} {
		if _, err := webfetch.Loads([]byte(in)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Loads(%q): %v, want %q", in, err, want)
		}
	}
}
