package agentos_test

import (
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/agentos/mcpserver"
	"github.com/agno-go/agno/agentos/slack"
)

// The route and docs tests of package agentos serve every built-in
// interface: their packages import agentos, so they join from this
// package, in agno's order.
func init() {
	agentos.ExtraInterfaces = append(agentos.ExtraInterfaces,
		agentos.ExtraInterface{New: func(agentID string) agentos.Interface {
			return slack.New(&slack.Config{AgentID: agentID, Token: "xoxb-test", SigningSecret: "secret"})
		}},
		agentos.ExtraInterface{New: func(string) agentos.Interface { return mcpserver.NewInterface(&mcpserver.Config{}) }},
		agentos.ExtraInterface{
			New: func(string) agentos.Interface { return a2a.New(&a2a.Config{}) },
			Open: []string{"GET /a2a/agents/{id}/.well-known/agent-card.json",
				"GET /a2a/teams/{id}/.well-known/agent-card.json", "GET /a2a/workflows/{id}/.well-known/agent-card.json"},
		},
		agentos.ExtraInterface{New: func(agentID string) agentos.Interface { return agui.New(&agui.Config{AgentID: agentID}) }})
}
