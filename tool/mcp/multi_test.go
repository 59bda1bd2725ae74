package mcp

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A2 cases 1–2: one server connects, the next fails: Connect reports which
// and why, closes the first, and a retry starts from a clean state.
func TestMultiConnectFailureCleansUp(t *testing.T) {
	settle(t, 0)
	before := TotalOpenSessions()
	flaky := startHTTP(t)
	flaky.down.Store(true)
	m, err := NewMulti(MultiConfig{Servers: []Config{
		stdioConfig(t),
		{URL: flaky.URL, ToolNamePrefix: "b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	err = m.Connect(ctx)
	if err == nil || !strings.HasPrefix(err.Error(), "MCP connection failed: server 1: ") ||
		!strings.Contains(err.Error(), flaky.URL) || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("Connect: %v", err)
	}
	if m.OpenSessions() != 0 || TotalOpenSessions() != before {
		t.Fatalf("a failed Connect left %d sessions (total %d, before %d)", m.OpenSessions(), TotalOpenSessions(), before)
	}
	for i, s := range m.Servers() {
		if s.Connected() {
			t.Fatalf("server %d still marked connected", i)
		}
	}
	settle(t, 0) // server 0's process is gone
	if _, err := m.Functions(ctx); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Functions after a failed Connect: %v", err)
	}
	if flaky.Sessions() != 0 {
		t.Fatalf("the failing server holds %d sessions", flaky.Sessions())
	}

	// The server comes back: a reconnect on the same toolkit works.
	flaky.down.Store(false)
	if err := m.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	fns, err := m.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(fns), "search") || !slices.Contains(names(fns), "b_search") {
		t.Fatalf("functions %v", names(fns))
	}
	if r, err := m.Call(ctx, "b_search", map[string]any{"query": "back"}); err != nil || r.Content != "results for back" {
		t.Fatalf("%+v %v", r, err)
	}
	_ = m.Close()
	_ = m.Close()
	if m.OpenSessions() != 0 || TotalOpenSessions() != before {
		t.Fatalf("after Close: %d open", m.OpenSessions())
	}
	settle(t, 0)
}

func TestMultiAllFail(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	m, err := NewMulti(MultiConfig{AllowPartialFailure: true, Servers: []Config{
		{URL: "http://127.0.0.1:" + port + "/a"},
		{URL: "http://127.0.0.1:" + port + "/b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Connect(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "All MCP connections failed: ") ||
		!strings.Contains(err.Error(), "server 0") || !strings.Contains(err.Error(), "server 1") {
		t.Fatalf("Connect: %v", err)
	}
	if m.OpenSessions() != 0 {
		t.Fatal("sessions left open")
	}
	if _, err := NewMulti(MultiConfig{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("no servers: %v", err)
	}
	if _, err := NewMulti(MultiConfig{Servers: []Config{{}}}); err == nil || !strings.Contains(err.Error(), "Servers[0]") {
		t.Fatalf("bad server config: %v", err)
	}
}

// A2 case 3 with the failing server in the middle of three: the others
// work, and each tool — including per-run sessions — reaches its own
// server (agno's index drift sent the third server's per-run sessions to
// the second).
func TestMultiPartialFailureRoutesToOwnServer(t *testing.T) {
	first := inMemory(t)
	first.IncludeTools = []string{"search", "headers"}
	third := startHTTP(t)
	m, err := NewMulti(MultiConfig{AllowPartialFailure: true, Servers: []Config{
		first,
		{URL: "http://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/mcp"},
		{URL: third.URL, IncludeTools: []string{"pid", "headers"}, HeaderProvider: bearer, Headers: map[string]string{"X-Server": "third"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if err := m.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if f := m.Failures(); len(f) != 1 || !strings.Contains(f[0].Error(), "server 1") {
		t.Fatalf("failures %v", f)
	}
	fns, err := m.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// "headers" is on both: the later server's wins (keeping its place), as
	// in agno; the call below shows it reaches the third server.
	if got := names(fns); !slices.Equal(got, []string{"headers", "search", "pid"}) {
		t.Fatalf("functions %v", got)
	}
	if r, err := m.Call(ctx, "search", map[string]any{"query": "one"}); err != nil || r.Content != "results for one" {
		t.Fatalf("search: %+v %v", r, err)
	}
	r, err := m.Call(runCtx("run-x", "tx"), "headers", nil)
	if err != nil || !strings.Contains(r.Content, `"X-Server":"third"`) || !strings.Contains(r.Content, `"Authorization":"Bearer tx"`) {
		t.Fatalf("headers in a run: %q %v", r.Content, err)
	}
	if m.OpenSessions() != 3 { // first default, third default, third's run session
		t.Fatalf("OpenSessions %d", m.OpenSessions())
	}
	m.ReleaseRun("run-x")
	if m.OpenSessions() != 2 {
		t.Fatalf("after ReleaseRun: %d", m.OpenSessions())
	}
	if _, err := m.Call(ctx, "nope", nil); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown: %v", err)
	}
	_ = m.Close()
	if m.OpenSessions() != 0 {
		t.Fatalf("after Close: %d", m.OpenSessions())
	}
}

// A server whose refresh fails is left out of Functions; the others stay.
func TestMultiFunctionsSkipsAServerThatFailsToRefresh(t *testing.T) {
	flaky := startHTTP(t)
	m, err := NewMulti(MultiConfig{Servers: []Config{
		{URL: flaky.URL, ToolNamePrefix: "a", RefreshConnection: true, IncludeTools: []string{"search"}},
		func() Config { c := inMemory(t); c.ToolNamePrefix = "b"; c.IncludeTools = []string{"search"}; return c }(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if err := m.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	flaky.down.Store(true)
	fns, err := m.Functions(ctx)
	if err != nil || !slices.Equal(names(fns), []string{"b_search"}) {
		t.Fatalf("with server a down: %v %v", names(fns), err)
	}
	flaky.down.Store(false)
	fns, err = m.Functions(ctx)
	if err != nil || !slices.Equal(names(fns), []string{"a_search", "b_search"}) {
		t.Fatalf("with server a back: %v %v", names(fns), err)
	}
	if r, err := m.Call(ctx, "a_search", map[string]any{"query": "q"}); err != nil || r.Content != "results for q" {
		t.Fatalf("%+v %v", r, err)
	}
}
