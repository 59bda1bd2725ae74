package config

import "github.com/agno-go/agno/agentos/mcpserver"

// buildMCPServer resolves [interfaces.mcp]: the MCP server at /mcp when
// enabled (agno's enable_mcp_server=True), nil otherwise.
func (c *Config) buildMCPServer() *mcpserver.Config {
	if m := c.Interfaces.MCP; m != nil && m.Enabled {
		return &mcpserver.Config{}
	}
	return nil
}
