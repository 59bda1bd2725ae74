package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
)

func TestTransportResolution(t *testing.T) {
	cases := []struct {
		cfg  Config
		kind Transport
		read time.Duration
	}{
		{Config{Command: "npx -y x"}, TransportStdio, 10 * time.Second},
		{Config{Command: "npx -y x", Timeout: 3 * time.Second}, TransportStdio, 3 * time.Second},
		{Config{URL: "http://127.0.0.1:1/mcp"}, TransportStreamableHTTP, 10 * time.Second},
		{Config{URL: "http://127.0.0.1:1/mcp", Transport: TransportStdio}, TransportStreamableHTTP, 10 * time.Second},
		{Config{URL: "http://127.0.0.1:1/mcp", Timeout: 60 * time.Second}, TransportStreamableHTTP, 30 * time.Second},
		{Config{URL: "http://127.0.0.1:1/sse", Transport: TransportSSE}, TransportSSE, 5 * time.Second},
		{Config{URL: "http://127.0.0.1:1/sse", Transport: TransportSSE, Timeout: 2 * time.Second}, TransportSSE, 2 * time.Second},
		{Config{URL: "http://127.0.0.1:1/sse", Transport: TransportSSE, HTTPTimeout: 20 * time.Second}, TransportSSE, 10 * time.Second},
	}
	for _, c := range cases {
		s, err := resolve(c.cfg)
		if err != nil {
			t.Errorf("%+v: %v", c.cfg, err)
			continue
		}
		if s.kind != c.kind || s.readTimeout != c.read {
			t.Errorf("%+v: got %s read %v, want %s read %v", c.cfg, s.kind, s.readTimeout, c.kind, c.read)
		}
	}
}

func TestConfigErrorsUseAgnoMessages(t *testing.T) {
	hp := func(context.Context, *run.Context) map[string]string { return nil }
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "One of 'command' or 'server_params' parameters must be provided when using stdio transport"},
		{Config{Transport: TransportSSE}, "One of 'url' or 'server_params' parameters must be provided when using SSE transport"},
		{Config{Transport: TransportStreamableHTTP}, "One of 'url' or 'server_params' parameters must be provided when using Streamable HTTP transport"},
		{Config{Command: "npx x", HeaderProvider: hp}, "header_provider is not supported with 'stdio' transport. Use 'sse' or 'streamable-http' transport instead."},
		{Config{Command: "npx x; rm"}, "MCP command can't contain shell metacharacters"},
		{Config{Transport: "websocket", URL: "ws://x"}, `Transport "websocket" is not one of`},
		{Config{Command: "npx x", Timeout: -time.Second}, "must not be negative"},
		{Config{URL: "http://x", Command: "npx y"}, "Command/Args are for the stdio transport"},
	}
	for _, c := range cases {
		_, err := New(c.cfg)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want ErrConfig containing %q", c.cfg, err, c.want)
		}
	}
}

func TestStdioEnvironmentIsDefaultPlusEnv(t *testing.T) {
	t.Setenv("AGNO_MCP_SECRET_FROM_PARENT", "x")
	t.Setenv("PATH", "/usr/bin:/bin")
	s, err := resolve(Config{Command: "npx x", Env: map[string]string{"API_KEY": "k", "PATH": "/opt/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(s.env, "\n")
	if strings.Contains(env, "AGNO_MCP_SECRET_FROM_PARENT") {
		t.Errorf("the parent's environment leaked: %s", env)
	}
	if !strings.Contains(env, "API_KEY=k") || !strings.Contains(env, "PATH=/opt/bin") {
		t.Errorf("Env not merged over the default environment: %s", env)
	}
}

func TestDescribeHidesSecrets(t *testing.T) {
	tools, err := New(Config{URL: "https://user:secret@mcp.example.com/mcp?token=abc", Headers: map[string]string{"Authorization": "Bearer xyz"}})
	if err != nil {
		t.Fatal(err)
	}
	s := tools.String()
	if strings.Contains(s, "secret") || strings.Contains(s, "abc") || strings.Contains(s, "xyz") || !strings.Contains(s, "mcp.example.com/mcp") {
		t.Fatalf("String() = %s", s)
	}
}
