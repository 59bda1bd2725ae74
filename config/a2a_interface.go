package config

import (
	"slices"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/tool"
)

// newA2A resolves [interfaces.a2a]: nil unless enabled; every listed id
// must name a loaded or code-defined agent, team or workflow.
func newA2A(key string, s *A2AInterfaceConfig, served agentos.Catalog) (agentos.Interface, error) {
	if !s.Enabled {
		return nil, nil
	}
	out := &a2a.Config{Prefix: s.Prefix, Agents: s.Agents, Teams: s.Teams, Workflows: s.Workflows}
	if err := out.Normalize(); err != nil {
		return nil, tool.OptionErrorf("prefix", "%s.prefix = %q: write a route prefix such as \"/a2a\" (leading /, no trailing /), or remove the key for agno's \"/a2a\"", key, s.Prefix)
	}
	for _, l := range []struct {
		key, kind string
		ids       []string
	}{{"agents", "agent", s.Agents}, {"teams", "team", s.Teams}, {"workflows", "workflow", s.Workflows}} {
		known := servedIDs(served, l.kind)
		for _, id := range l.ids {
			if !slices.Contains(known, id) {
				return nil, tool.OptionErrorf(l.key, "%s.%s names %q, which is not loaded or code-defined: give the ids to serve over A2A (known: %v), or remove the key to serve all", key, l.key, id, known)
			}
		}
	}
	return a2a.New(out), nil
}
