package config

import (
	"fmt"
	"slices"

	"github.com/agno-go/agno/agentos/agui"
)

// buildAGUI resolves [interfaces.agui] (when enabled) against the
// resources: agent or team must name a loaded or existing one.
func (c *Config) buildAGUI(r *Resources) (*agui.Config, error) {
	a := c.Interfaces.AGUI
	if a == nil || !a.Enabled {
		return nil, nil
	}
	const key = "interfaces.agui"
	out := &agui.Config{AgentID: a.Agent, TeamID: a.Team, Prefix: a.Prefix}
	if (a.Agent == "") == (a.Team == "") {
		return nil, &Error{File: c.Path, Key: key, Msg: "interfaces.agui needs exactly one of agent or team: set agent = \"<agent id>\" (or team = \"<team id>\") to what answers AG-UI clients"}
	}
	if err := agui.CheckPrefix(a.Prefix); err != nil {
		return nil, &Error{File: c.Path, Key: key + ".prefix", Msg: fmt.Sprintf("interfaces.agui.%s, or remove the key for agno's \"\" (routes at the root)", err)}
	}
	kind, id := out.Entity()
	var ids []string
	if kind == "agent" {
		for _, x := range slices.Concat(r.Agents, r.existing.Agents) {
			ids = append(ids, x.ID())
		}
	} else {
		for _, x := range slices.Concat(r.Teams, r.existing.Teams) {
			ids = append(ids, x.ID())
		}
	}
	if !slices.Contains(ids, id) {
		msg := fmt.Sprintf("interfaces.agui.%s = %q names no %s: give the id of a loaded or code-defined %s", kind, id, kind, kind)
		if len(ids) > 0 {
			msg += fmt.Sprintf(" (known: %v)", ids)
		}
		return nil, &Error{File: c.Path, Key: key + "." + kind, Msg: msg}
	}
	return out, nil
}
