package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// [agentos] idle_timeout_seconds reaches the server agno agentos start
// runs: a keep-alive connection left idle is closed by the server.
func TestStartIdleTimeoutSeconds(t *testing.T) {
	dir := t.TempDir()
	cfg := "[agentos]\nname = \"idle\"\nidle_timeout_seconds = 1\n[storage]\ndriver = \"memory\"\n[workflows.hitl]\ntransport = \"websocket\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startForTest(t, startFlags{config: filepath.Join(dir, "config.toml"), host: "127.0.0.1", port: freePort(t), logLevel: "error"})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health: %d, close %v", resp.StatusCode, resp.Close)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.Copy(io.Discard, br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the idle keep-alive connection is still open: idle_timeout_seconds was not applied")
	}
}

// [agentos.authorization] require_exp reaches the verifier's config.
func TestAuthorizationConfigRequireExp(t *testing.T) {
	t.Setenv("JWT_VERIFICATION_KEY", "a-test-secret-of-at-least-32-bytes")
	t.Setenv("JWT_JWKS_FILE", "")
	for src, want := range map[string]bool{
		"[agentos.authorization]\nalgorithm = \"HS256\"\n":                     false,
		"[agentos.authorization]\nalgorithm = \"HS256\"\nrequire_exp = true\n": true,
	} {
		cfg, _ := authConfigFrom(t, src)
		a, err := authorizationConfig(cfg, "os")
		if err != nil || a.RequireExp != want {
			t.Errorf("%q: RequireExp %v (%v), want %v", src, a != nil && a.RequireExp, err, want)
		}
	}
}
