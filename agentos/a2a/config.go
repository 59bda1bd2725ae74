package a2a

import (
	"fmt"
	"slices"
	"strings"
)

// Interface metadata as agno's A2A(BaseInterface) lists it in /config.
const (
	Type          = "a2a"
	Version       = "1.0"
	DefaultPrefix = "/a2a"
)

// Config configures the A2A interface (agno's A2A(agents, teams,
// workflows, prefix) or a2a_interface=True).
type Config struct {
	// Prefix mounts the routes; "" is agno's "/a2a".
	Prefix string
	// Agents, Teams and Workflows list the ids served over A2A; all
	// three empty serve every agent, team and workflow of AgentOS (agno's
	// a2a_interface=True).
	Agents, Teams, Workflows []string
}

// Normalize applies the default prefix and checks it.
func (c *Config) Normalize() error {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if !strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/") || strings.ContainsAny(c.Prefix, "{}? \t") {
		return fmt.Errorf("a2a: prefix %q: write a route prefix such as \"/a2a\" (leading /, no trailing /)", c.Prefix)
	}
	return nil
}

// Serves reports whether kind ("agent", "team", "workflow") id is
// served over A2A.
func (c *Config) Serves(kind, id string) bool {
	if len(c.Agents)+len(c.Teams)+len(c.Workflows) == 0 {
		return true
	}
	switch kind {
	case "agent":
		return slices.Contains(c.Agents, id)
	case "team":
		return slices.Contains(c.Teams, id)
	}
	return slices.Contains(c.Workflows, id)
}

// Listing is the /config interfaces entry.
func (c *Config) Listing() map[string]any {
	return map[string]any{"type": Type, "version": Version, "route": c.Prefix}
}
