package config

import (
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/tool"
)

// newAGUI resolves [interfaces.agui] (when enabled) against the
// resources: agent or team must name a loaded or existing one.
func newAGUI(key string, a *AGUIInterfaceConfig, served agentos.Catalog) (agentos.Interface, error) {
	if !a.Enabled {
		return nil, nil
	}
	out := &agui.Config{AgentID: a.Agent, TeamID: a.Team, Prefix: a.Prefix}
	if (a.Agent == "") == (a.Team == "") {
		return nil, tool.OptionErrorf("", "%s needs exactly one of agent or team: set agent = \"<agent id>\" (or team = \"<team id>\") to what answers AG-UI clients", key)
	}
	if err := agui.CheckPrefix(a.Prefix); err != nil {
		return nil, tool.OptionErrorf("prefix", "%s.%s, or remove the key for agno's \"\" (routes at the root)", key, err)
	}
	kind, id := out.Entity()
	if err := namesServed(key, kind, id, served); err != nil {
		return nil, err
	}
	return agui.New(out), nil
}
