package agentos

// MCPServerConfig configures the MCP server at /mcp (agno's enable_mcp_server); nil: off.
type MCPServerConfig struct{}

func (o *OS) mcpServerRoutes(mux routeMux) {}

func (o *OS) mcpServerListing() []any { return nil }

func (o *OS) mcpServerAPIRoutes() []apiRoute { return nil }
