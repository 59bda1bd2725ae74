package agentos_test

import (
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/agentos/agui"
)

// The route and docs tests serve the A2A and AG-UI interfaces too: their
// packages import agentos, so they join from this package.
func init() {
	agentos.ExtraInterfaces = append(agentos.ExtraInterfaces,
		agentos.ExtraInterface{
			New: func(string) agentos.Interface { return a2a.New(&a2a.Config{}) },
			Open: []string{"GET /a2a/agents/{id}/.well-known/agent-card.json",
				"GET /a2a/teams/{id}/.well-known/agent-card.json", "GET /a2a/workflows/{id}/.well-known/agent-card.json"},
		},
		agentos.ExtraInterface{New: func(agentID string) agentos.Interface { return agui.New(&agui.Config{AgentID: agentID}) }})
}
