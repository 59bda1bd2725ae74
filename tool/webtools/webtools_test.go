package webtools_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	"github.com/agno-go/agno/tool/tooltest"
	"github.com/agno-go/agno/tool/webtools"
)

// shortener is a link shortener as bit.ly and t.co answer: a HEAD of the
// short link is a 301 with Location, which may lead to another redirect
// (https://dev.bitly.com/ documents the 301 to the long URL).
func shortener(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/s/abc", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/r/1", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/r/1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/articles/go-1-26?utm_source=short", http.StatusFound)
	})
	mux.HandleFunc("/articles/go-1-26", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			t.Errorf("expand_url made a %s request, want HEAD", r.Method)
		}
		w.Header().Set("Content-Type", "text/html")
	})
	mux.HandleFunc("/s/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/missing", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/s/internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.20.30.40/admin", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "webtools",
		Name:      "web_tools",
		Functions: []tooltest.Function{{Name: "expand_url", Args: []string{"url"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t)
			return "retries = 2\ntimeout = 2"
		},
		Failures: map[string][]tooltest.Call{
			// agno returns the URL as given when every attempt fails.
			"expand_url": {{Args: `{"url": "http://10.20.30.40/s/x"}`, Want: "http://10.20.30.40/s/x"}},
		},
		Unbounded: "the result is a URL from a Location header, which net/http bounds (1 MB of headers)",
		BadOptions: []tooltest.BadOption{
			{Table: "retries = 0", Key: "retries"},
			{Table: "timeout = -1", Key: "timeout"},
		},
	})
}

func build(t *testing.T, c *http.Client, log *slog.Logger) *tool.Function {
	t.Helper()
	tk, err := webtools.New(webtools.Config{Retries: 3, EnableExpandURL: true, Client: c, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 1 {
		t.Fatalf("functions: %d", len(fns))
	}
	return fns[0]
}

func expand(t *testing.T, f *tool.Function, u string) string {
	t.Helper()
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"url": u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestExpandURLFollowsRedirectChain(t *testing.T) {
	srv := shortener(t)
	f := build(t, webfetchtest.Client(t, "127.0.0.1"), nil)
	if got, want := expand(t, f, srv.URL+"/s/abc"), srv.URL+"/articles/go-1-26?utm_source=short"; got != want {
		t.Errorf("expand_url = %q, want %q", got, want)
	}
	// httpx does not raise on a 404 at the end: the URL is still the
	// destination.
	if got, want := expand(t, f, srv.URL+"/s/gone"), srv.URL+"/missing"; got != want {
		t.Errorf("expand_url to a 404 = %q, want %q", got, want)
	}
}

func TestExpandURLRefusesInternalAddresses(t *testing.T) {
	srv := shortener(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))

	// The redirect leads to a private address the guard refuses: every
	// attempt fails and the URL comes back as given, as agno's does on
	// an exception.
	f := build(t, webfetchtest.Client(t, "127.0.0.1"), log)
	if got := expand(t, f, srv.URL+"/s/internal"); got != srv.URL+"/s/internal" {
		t.Errorf("expand_url through a refused redirect = %q, want the URL as given", got)
	}
	if n := strings.Count(logs.String(), "refused to connect to 10.20.30.40"); n != 3 {
		t.Errorf("%d logged refusals, want one per attempt (3):\n%s", n, logs.String())
	}

	// Without loopback allowed, the shortener itself is refused.
	logs.Reset()
	f = build(t, webfetchtest.Client(t), log)
	if got := expand(t, f, srv.URL+"/s/abc"); got != srv.URL+"/s/abc" {
		t.Errorf("expand_url of a refused host = %q, want the URL as given", got)
	}
	if !strings.Contains(logs.String(), "refused to connect to 127.0.0.1") {
		t.Errorf("the refusal is not logged:\n%s", logs.String())
	}
}
