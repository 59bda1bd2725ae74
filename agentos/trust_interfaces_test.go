package agentos_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/slack"
)

// Every interface runs an agent only for a caller holding its run scope,
// as the run routes do: a valid token without agents:run is refused by
// the MCP server's run_agent, A2A and AG-UI alike, and one with
// agents:<id>:run is served. Slack takes no token: its signing secret is
// its authentication, and an unsigned event runs nothing.
func TestEveryInterfaceNeedsTheRunScope(t *testing.T) {
	srv := mcpOS(t, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
		c.Interfaces = append(c.Interfaces, a2a.New(&a2a.Config{}), agui.New(&agui.Config{AgentID: "mcp-agent"}),
			slack.New(&slack.Config{AgentID: "mcp-agent", SigningSecret: "slack-secret", Token: "xoxb-test"}))
	})
	j := &jwtOS{srv: srv}
	none := tokenFor(t, "bob", "sessions:read", "memories:read")
	runner := tokenFor(t, "bob", "agents:mcp-agent:run", "agents:mcp-agent:read")

	agui := `{"threadId": "t1", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {},
		"messages": [{"id": "m1", "role": "user", "content": "hi"}]}`
	a2a := func(id string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "method": "message/send", "params": map[string]any{"message": map[string]any{
			"kind": "message", "messageId": id, "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hi"}}}}}
	}
	for _, c := range []struct {
		name string
		send func(token string) (int, string)
	}{
		{"agui", func(token string) (int, string) {
			r := compAs(t, srv, token, "", "POST", "/agui", "application/json", agui)
			return r.status, string(r.body)
		}},
		{"a2a", func(token string) (int, string) {
			r := j.call(t, token, "POST", "/a2a/agents/mcp-agent/v1/message:send", a2a("m-"+token[len(token)-6:]))
			return r.status, r.body
		}},
		{"mcp", func(token string) (int, string) {
			text := callText(t, mcpSession(t, srv, token), "run_agent", map[string]any{"agent_id": "mcp-agent", "message": "hi"}, token == none)
			if token == none {
				return http.StatusForbidden, text
			}
			return http.StatusOK, text
		}},
	} {
		status, body := c.send(none)
		if status == http.StatusOK && !strings.Contains(body, "denied") && !strings.Contains(body, "Insufficient") || strings.Contains(body, "MCP answer") {
			t.Errorf("%s without agents:run: %d %s", c.name, status, body)
		}
		if !strings.Contains(body, "denied") && !strings.Contains(body, "Insufficient permissions") {
			t.Errorf("%s without agents:run is not refused for its scope: %d %s", c.name, status, body)
		}
		// AG-UI streams the answer in deltas: its run finishing is the answer.
		if status, body := c.send(runner); status != http.StatusOK || !strings.Contains(body, "MCP answer to: hi") && !strings.Contains(body, `"RUN_FINISHED"`) {
			t.Errorf("%s with agents:mcp-agent:run: %d %s", c.name, status, body)
		}
	}
	// Slack: no token at all, and an unsigned or badly signed event is
	// refused before anything runs.
	if r := compAs(t, srv, "", "", "POST", "/slack/events", "application/json", `{"type":"event_callback","event":{"type":"app_mention","text":"hi"}}`); r.status != http.StatusBadRequest {
		t.Errorf("slack without signature: %d %s", r.status, r.body)
	}
}
