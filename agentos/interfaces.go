package agentos

import (
	"fmt"

	"github.com/agno-go/agno/agentos/slack"
)

// checkSlack validates the Slack interface against the catalog: its id
// must name one of the served agents, teams or workflows (agno passes
// the object itself, so it cannot name a missing one). It returns a
// normalized copy.
func checkSlack(c *slack.Config, cat *catalog) (*slack.Config, error) {
	if c == nil {
		return nil, nil
	}
	s := *c
	if err := s.Normalize(); err != nil {
		return nil, fmt.Errorf("agentos: %w", err)
	}
	kind, id := s.Entity()
	var found bool
	switch kind {
	case "agent":
		_, found = cat.agents[id]
	case "team":
		_, found = cat.teams[id]
	default:
		_, found = cat.workflows[id]
	}
	if !found {
		return nil, fmt.Errorf("agentos: slack: %s %q is not served: give the id of one of the %ss AgentOS serves", kind, id, kind)
	}
	return &s, nil
}

// interfaceRoutes registers the interfaces' routes. Slack: only the
// manifest for now; events and interactions are not built yet.
func (o *OS) interfaceRoutes(mux routeMux) {
	if s := o.cfg.Slack; s != nil {
		mux.HandleFunc(s.ManifestRoute(), s.ServeManifest)
	}
}

// interfaces is /config interfaces: agno's [{type, version, route}].
func (o *OS) interfaces() []any {
	out := []any{}
	if s := o.cfg.Slack; s != nil {
		out = append(out, s.Listing())
	}
	return out
}

// interfaceAPIRoutes documents interfaceRoutes (their prefix is
// configured, so they are not in the static apiRoutes).
func (o *OS) interfaceAPIRoutes() []apiRoute {
	var out []apiRoute
	if s := o.cfg.Slack; s != nil {
		out = append(out, apiRoute{Pattern: s.ManifestRoute(), Tag: "Slack", Summary: slack.ManifestRouteSummary,
			Desc:   "agno's Slack app manifest with the events and interactions URLs of slack public_url, or of the URL this request came in on. Paste it into api.slack.com/apps → Create New App → From an app manifest.",
			Result: "Slack app manifest (JSON)"})
	}
	return out
}
