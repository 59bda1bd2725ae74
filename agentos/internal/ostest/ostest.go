// Package ostest holds what the tests of the interface packages
// (agentos/a2a, agentos/agui) share: serving an OS on a local port, and
// building agents and reading the served API document. The tests of
// package agentos itself cannot import it (it imports agentos).
package ostest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
)

// Serve serves o on a local port until the test ends, then shuts it
// down: its runs drained (up to its ShutdownTimeout), then closed. It
// answers the base URL.
func Serve(t *testing.T, o *agentos.OS) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- o.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-served
	})
	return "http://" + ln.Addr().String()
}

// NewAgent is agent.New, failing the test on an error.
func NewAgent(t *testing.T, cfg agent.Config) *agent.Agent {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// OpenAPIPaths are the paths of the OS's /openapi.json at url.
func OpenAPIPaths(t *testing.T, url string) map[string]map[string]json.RawMessage {
	t.Helper()
	resp, err := http.Get(url + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET /openapi.json = %d %v", resp.StatusCode, err)
	}
	return doc.Paths
}
