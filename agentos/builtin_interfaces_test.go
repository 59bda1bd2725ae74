package agentos_test

import (
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/mcpserver"
	"github.com/agno-go/agno/agentos/slack"
)

// The tests of package agentos that serve every interface (everyRouteOS,
// fullDocsOS) cannot import the Slack and MCP server packages, which
// import agentos: they get them from here.
func init() {
	agentos.NewSlackInterface = func(agentID string) agentos.Interface {
		return slack.New(&slack.Config{AgentID: agentID, Token: "xoxb-test", SigningSecret: "secret"})
	}
	agentos.NewMCPServerInterface = func() agentos.Interface { return mcpserver.NewInterface(&mcpserver.Config{}) }
}
