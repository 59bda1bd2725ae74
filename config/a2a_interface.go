package config

import (
	"fmt"
	"slices"

	"github.com/agno-go/agno/agentos/a2a"
)

// buildA2A resolves [interfaces.a2a]: nil unless enabled; every listed
// id must name a loaded or code-defined agent, team or workflow.
func (c *Config) buildA2A(r *Resources) (*a2a.Config, error) {
	s := c.Interfaces.A2A
	if s == nil || !s.Enabled {
		return nil, nil
	}
	out := &a2a.Config{Prefix: s.Prefix, Agents: s.Agents, Teams: s.Teams, Workflows: s.Workflows}
	if err := out.Normalize(); err != nil {
		return nil, &Error{File: c.Path, Key: "interfaces.a2a.prefix", Msg: fmt.Sprintf("interfaces.a2a.prefix = %q: write a route prefix such as \"/a2a\" (leading /, no trailing /), or remove the key for agno's \"/a2a\"", s.Prefix)}
	}
	var agents, teams, workflows []string
	for _, a := range slices.Concat(r.Agents, r.existing.Agents) {
		agents = append(agents, a.ID())
	}
	for _, t := range slices.Concat(r.Teams, r.existing.Teams) {
		teams = append(teams, t.ID())
	}
	for _, w := range slices.Concat(r.Workflows, r.existing.Workflows) {
		workflows = append(workflows, w.ID())
	}
	for _, l := range []struct {
		key        string
		ids, known []string
	}{{"agents", s.Agents, agents}, {"teams", s.Teams, teams}, {"workflows", s.Workflows, workflows}} {
		for _, id := range l.ids {
			if !slices.Contains(l.known, id) {
				return nil, &Error{File: c.Path, Key: "interfaces.a2a." + l.key,
					Msg: fmt.Sprintf("interfaces.a2a.%s names %q, which is not loaded or code-defined: give the ids to serve over A2A (known: %v), or remove the key to serve all", l.key, id, l.known)}
			}
		}
	}
	return out, nil
}
