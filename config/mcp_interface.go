package config

import (
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/mcpserver"
)

// newMCPServer resolves [interfaces.mcp]: the MCP server at /mcp when
// enabled (agno's enable_mcp_server=True), nil otherwise.
func newMCPServer(_ string, m *MCPInterfaceConfig, _ agentos.Catalog) (agentos.Interface, error) {
	if !m.Enabled {
		return nil, nil
	}
	return mcpserver.NewInterface(&mcpserver.Config{}), nil
}
