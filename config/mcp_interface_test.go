package config_test

import (
	"testing"

	"github.com/agno-go/agno/agentos/mcpserver"
	"github.com/agno-go/agno/config"
)

// [interfaces.mcp] enabled turns on the MCP server (agno's
// enable_mcp_server); absent or false: off.
func TestMCPServerInterface(t *testing.T) {
	for src, on := range map[string]bool{
		"[interfaces.mcp]\nenabled = true\n":  true,
		"[interfaces.mcp]\nenabled = false\n": false,
		"[interfaces.mcp]\n":                  false,
		"":                                    false,
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n" + src})
		_, res := build(t, dir, config.Functions{}, config.Existing{})
		if _, got := built[*mcpserver.Interface](res); got != on {
			t.Errorf("%q: MCP server on = %v, want %v", src, got, on)
		}
	}
	if _, err := parseSlack(t, "[interfaces.mcp]\nenable = true\n"); err == nil {
		t.Error("a misspelt key is accepted")
	}
}
