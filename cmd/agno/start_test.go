package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's first command passes relative paths:
// `agno agentos start --config examples/agentos/config.toml`. The config,
// its settings.json beside it, and a --settings path given on the command
// line are all read relative to the working directory.
func TestStartWithRelativePaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"config.toml", "settings.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "agentos", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "examples", "agentos"), 0o755); err != nil {
			t.Fatal(err)
		}
		// The users' socket path is fixed (/tmp/agno-hitl.sock); another
		// AgentOS on this machine may hold it.
		b = []byte(strings.Replace(string(b), `socket_path = "/tmp/agno-hitl.sock"`, `socket_path = "`+shortSocket(t)+`"`, 1))
		if err := os.WriteFile(filepath.Join(dir, "examples", "agentos", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, c := range []struct {
		name     string
		settings string
	}{
		{"settings.json beside the config", ""},
		{"--settings relative to the working directory", "examples/agentos/settings.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- startAgentOS(ctx, startFlags{config: "examples/agentos/config.toml", settings: c.settings,
					host: "127.0.0.1", port: freePort(t), logLevel: "error"}, ready)
			}()
			select {
			case <-ready:
			case err := <-done:
				t.Fatalf("agentos start: %v", err)
			case <-time.After(30 * time.Second):
				t.Fatal("agentos did not start")
			}
			cancel()
			if err := <-done; err != nil && err != context.Canceled {
				t.Fatalf("stop: %v", err)
			}
		})
	}
}
