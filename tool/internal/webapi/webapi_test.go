package webapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func client(t *testing.T, timeout time.Duration) webapi.Client {
	c, err := webapi.NewClient(tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A status outside 2xx names the method, the URL without its query (where
// keys travel) and the body; a slow service the timeout and the option;
// an answer over MaxResponseBytes is refused.
func TestDoErrors(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/denied":
			http.Error(w, "quota exceeded", http.StatusTooManyRequests)
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/huge":
			chunk := strings.Repeat("x", 1<<20)
			for range webapi.MaxResponseBytes>>20 + 1 {
				_, _ = w.Write([]byte(chunk))
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	c := client(t, 200*time.Millisecond)
	ctx := context.Background()
	if _, err := c.Get(ctx, srv.URL+"/denied?key=secret", nil); err == nil || err.Error() != "GET "+srv.URL+"/denied: 429 Too Many Requests: quota exceeded" {
		t.Errorf("status: %v", err)
	}
	if _, err := c.Get(ctx, srv.URL+"/slow", nil); err == nil || !strings.Contains(err.Error(), "no answer within 200ms (raise the toolkit's timeout option)") {
		t.Errorf("timeout: %v", err)
	}
	if _, err := client(t, 10*time.Second).Get(ctx, srv.URL+"/huge", nil); err == nil || !strings.Contains(err.Error(), "the answer is over") {
		t.Errorf("huge: %v", err)
	}
	var v map[string]any
	if err := c.GetJSON(ctx, srv.URL+"/?key=secret", nil, &v); err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "other than the JSON expected") {
		t.Errorf("not JSON: %v", err)
	}
}

// Without a host client the requests still go through netguard.
func TestDefaultClientIsGuarded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	c, err := webapi.NewClient(tool.ToolkitEnv{}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), srv.URL+"?key=secret", nil); err == nil || !strings.Contains(err.Error(), "netguard") || strings.Contains(err.Error(), "secret") {
		t.Errorf("got %v", err)
	}
	c.HTTP.CloseIdleConnections()
}

// Bound keeps short texts and cuts long ones on a rune boundary with a
// note naming max_result_bytes.
func TestBound(t *testing.T) {
	if got := webapi.Bound("short", 10); got != "short" {
		t.Errorf("%q", got)
	}
	got := webapi.Bound(strings.Repeat("é", 10), 5)
	if want := "éé\n[result truncated: 4 of 20 bytes shown; raise max_result_bytes to see more]"; got != want {
		t.Errorf("%q", got)
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://api.example.com", "http://127.0.0.1:8080/x"} {
		if err := webapi.CheckURL("base_url", ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "api.example.com", "ftp://x", "http://"} {
		if err := webapi.CheckURL("base_url", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
