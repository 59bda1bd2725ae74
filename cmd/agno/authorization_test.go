package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
)

func authConfigFrom(t *testing.T, toml string) (*config.Config, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse(filepath.Join(dir, "config.toml"), []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

func TestAuthorizationConfigFromEnv(t *testing.T) {
	t.Setenv("JWT_VERIFICATION_KEY", "")
	t.Setenv("JWT_JWKS_FILE", "")

	cfg, _ := authConfigFrom(t, "[agentos]\nname = \"x\"\n")
	if a, err := authorizationConfig(cfg, agentOSID(cfg)); a != nil || err != nil {
		t.Errorf("without the table: %+v %v", a, err)
	}

	cfg, _ = authConfigFrom(t, "[agentos.authorization]\n")
	_, err := authorizationConfig(cfg, "os")
	if err == nil || !strings.Contains(err.Error(), "[agentos.authorization] has no verification key: export JWT_VERIFICATION_KEY=") {
		t.Errorf("no key: %v", err)
	}

	// The default variable may be unset when JWT_JWKS_FILE names the keys.
	t.Setenv("JWT_JWKS_FILE", "jwks.json")
	a, err := authorizationConfig(cfg, "os")
	if err != nil {
		t.Fatal(err)
	}
	if wd, _ := os.Getwd(); a.JWKSFile != filepath.Join(wd, "jwks.json") || len(a.VerificationKeys) != 0 || !a.UserIsolation || a.Algorithm != "RS256" || a.Leeway != 10*time.Second {
		t.Errorf("JWT_JWKS_FILE: %+v", a)
	}
	t.Setenv("JWT_JWKS_FILE", "")

	// A variable listed by name must be set.
	cfg, _ = authConfigFrom(t, "[agentos.authorization]\nverification_keys_env = [\"ISSUER_KEY\"]\nalgorithm = \"HS256\"\n")
	t.Setenv("ISSUER_KEY", "")
	_, err = authorizationConfig(cfg, "os")
	if err == nil || !strings.Contains(err.Error(), "verification_keys_env names ISSUER_KEY, which is not set: export ISSUER_KEY=") {
		t.Errorf("unset ISSUER_KEY: %v", err)
	}
	t.Setenv("ISSUER_KEY", "s3cret")
	a, err = authorizationConfig(cfg, "os")
	if err != nil || len(a.VerificationKeys) != 1 || a.VerificationKeys[0] != "s3cret" || a.KeyNames[0] != "ISSUER_KEY" {
		t.Errorf("ISSUER_KEY: %+v %v", a, err)
	}

	// verify_audience without audience expects the AgentOS id.
	cfg, _ = authConfigFrom(t, "[agentos]\nname = \"My OS\"\n[agentos.authorization]\nverification_keys_env = [\"ISSUER_KEY\"]\nverify_audience = true\n")
	if id := agentOSID(cfg); id != "my-os" {
		t.Errorf("id %q", id)
	}
	if a, err = authorizationConfig(cfg, agentOSID(cfg)); err != nil || a.Audience != "my-os" {
		t.Errorf("audience: %+v %v", a, err)
	}
}

// AgentOS started with [agentos.authorization]: tokens are verified and
// scoped, and OS_SECURITY_KEY no longer opens anything.
func TestStartWithJWTAuthorization(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel})
	defer fake.Close()
	const secret = "a-test-secret-of-at-least-32-bytes"
	t.Setenv("JWT_VERIFICATION_KEY", secret)
	t.Setenv("JWT_JWKS_FILE", "")
	t.Setenv("OS_SECURITY_KEY", "the-old-key")
	dir := t.TempDir()
	cfg := "[agentos]\nname = \"JWT OS\"\n[agentos.authorization]\nalgorithm = \"HS256\"\nverify_audience = true\n" +
		"[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + fake.URL + "\"\nmodel = \"gpt-4o-mini\"\n"
	_ = os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "agents", "echo.toml"), []byte("name = \"Echo\"\nmodel = \"default\"\n"), 0o644)
	f := startFlags{config: filepath.Join(dir, "config.toml"), host: "127.0.0.1", port: freePort(t), logLevel: "error"}
	addr := startForTest(t, f)
	token := func(aud string, scopes ...string) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "alice", "aud": aud, "scopes": scopes,
			"exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	get := func(path, bearer string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		req.Close = true
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var body struct {
			Detail string `json:"detail"`
		}
		_ = json.Unmarshal(b, &body)
		return resp.StatusCode, body.Detail
	}
	for _, tc := range []struct {
		name, path, bearer string
		status             int
		detail             string
	}{
		{"no token", "/agents", "", 401, "Authorization header missing"},
		{"OS_SECURITY_KEY is not a token", "/agents", "the-old-key", 401, "Invalid token: Not enough segments"},
		{"another AgentOS's token", "/agents", token("other-os", "agents:read"), 401, "Invalid token audience - token not valid for this AgentOS instance"},
		{"scoped token", "/agents", token("jwt-os", "agents:read"), 200, ""},
		{"missing scope", "/config", token("jwt-os", "agents:read"), 403, "Insufficient permissions. Required scope(s): config:read"},
		{"health is open", "/health", "", 200, ""},
	} {
		if status, detail := get(tc.path, tc.bearer); status != tc.status || detail != tc.detail {
			t.Errorf("%s: GET %s = %d %q, want %d %q", tc.name, tc.path, status, detail, tc.status, tc.detail)
		}
	}
}

func TestStartRefusesUnsetKeyVariable(t *testing.T) {
	t.Setenv("MISSING_ISSUER_KEY", "")
	dir := t.TempDir()
	cfg := "[agentos]\nname = \"x\"\n[agentos.authorization]\nverification_keys_env = [\"MISSING_ISSUER_KEY\"]\n"
	_ = os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	err := startAgentOS(context.Background(), startFlags{config: filepath.Join(dir, "config.toml"), host: "127.0.0.1", port: freePort(t), logLevel: "error"}, nil)
	if err == nil || !strings.Contains(err.Error(), "MISSING_ISSUER_KEY, which is not set") {
		t.Errorf("start: %v", err)
	}
}
