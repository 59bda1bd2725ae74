package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/model/modeltest"
)

// --host and --port override [agentos]; protected mode answers proxied
// (hence remote) clients 403 unless --insecure or protected_mode = false
// opts out.
func TestStartFlagsAndProtectedMode(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel})
	defer fake.Close()
	t.Setenv("OS_SECURITY_KEY", "") // a key would turn protected mode off
	for _, c := range []struct {
		name, tomlLine string
		flags          startFlags
		wantHost       string
		remoteStatus   int
	}{
		{"defaults: config host, protected", "", startFlags{}, "127.0.0.2", 403},
		{"--host overrides the config", "", startFlags{host: "127.0.0.1"}, "127.0.0.1", 403},
		{"--insecure", "", startFlags{insecure: true}, "127.0.0.2", 200},
		{"protected_mode = false", "protected_mode = false\n", startFlags{}, "127.0.0.2", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := "[agentos]\nname = \"flags\"\nhost = \"127.0.0.2\"\nport = 1\n" + c.tomlLine +
				"[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + fake.URL + "\"\nmodel = \"gpt-4o-mini\"\n"
			_ = os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.WriteFile(filepath.Join(dir, "agents", "echo.toml"), []byte("name = \"Echo\"\nmodel = \"default\"\n"), 0o644)
			f := c.flags
			f.config, f.port, f.logLevel = filepath.Join(dir, "config.toml"), freePort(t), "error"
			addr := startForTest(t, f)
			if host, port, _ := net.SplitHostPort(addr); host != c.wantHost || port != fmt.Sprint(f.port) {
				t.Fatalf("listening on %s, want %s:%d", addr, c.wantHost, f.port)
			}
			get := func(header ...string) int {
				req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/agents", nil)
				for i := 0; i+1 < len(header); i += 2 {
					req.Header.Set(header[i], header[i+1])
				}
				req.Close = true // no idle connection outlives the server
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := get(); got != 200 {
				t.Fatalf("loopback client: %d", got)
			}
			for _, h := range []string{"X-Forwarded-For", "Forwarded"} {
				if got := get(h, "for=203.0.113.9"); got != c.remoteStatus {
					t.Errorf("%s client: %d, want %d", h, got, c.remoteStatus)
				}
			}
		})
	}
}
