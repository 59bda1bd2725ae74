package agentos_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/internal/testlog"
)

// With the access log on, each request is one line with its method,
// path, status, size, duration and run; a stream still flushes and the
// WebSocket still upgrades through it.
func TestAccessLog(t *testing.T) {
	var logs testlog.Buffer
	o, _ := fixture(t, agentos.Config{AccessLog: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	var out map[string]any
	decode(t, postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "run_id": {"logged-run"}}), &out)
	if evs := readSSE(t, postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}})); len(evs) < 2 {
		t.Fatalf("a stream through the access log: %d events", len(evs))
	}
	_ = postForm(t, srv, "/agents/nope/runs/r9/cancel", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/workflows/ws", nil)
	if err != nil {
		t.Fatalf("the WebSocket through the access log: %v", err)
	}
	c.Close(websocket.StatusNormalClosure, "")

	want := []struct {
		path   string
		status float64
		runID  string
	}{
		{"/agents/main-agent/runs", 200, "logged-run"},
		{"/agents/main-agent/runs", 200, ""},
		{"/agents/nope/runs/r9/cancel", 404, "r9"},
	}
	var lines []map[string]any
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if lines = logs.Messages("request"); len(lines) >= len(want) {
			break
		}
	}
	if len(lines) < len(want) {
		t.Fatalf("access log: %v", lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["method"] != "POST" || l["path"] != w.path || l["status"] != w.status || l["duration_ms"] == nil || l["bytes"] == nil {
			t.Errorf("line %d: %v, want %+v", i, l, w)
		}
		if w.runID != "" && l["run_id"] != w.runID || i == 1 && l["run_id"] == nil {
			t.Errorf("line %d run_id: %v, want %q (or a new one)", i, l["run_id"], w.runID)
		}
	}
}
