package main

import (
	"context"
	"testing"
	"time"
)

// startForTest runs agno agentos start with f until the test ends and
// returns the address it listens on.
func startForTest(t *testing.T, f startFlags) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- startAgentOS(ctx, f, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("agentos did not start")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return addr
}
