package agentos

import (
	"errors"
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
	// Without them every event is refused or no reply can be posted.
	if s.SigningSecret == "" || s.Token == "" {
		return nil, errors.New("agentos: slack: SigningSecret and Token are required: pass the app's signing secret and bot token (agno reads SLACK_SIGNING_SECRET and SLACK_TOKEN)")
	}
	if !found {
		return nil, fmt.Errorf("agentos: slack: %s %q is not served: give the id of one of the %ss AgentOS serves", kind, id, kind)
	}
	return &s, nil
}

// interfaceRoutes registers the interfaces' routes. Slack: the
// manifest, events and interactions (approval cards).
func (o *OS) interfaceRoutes(mux routeMux) {
	if s := o.cfg.Slack; s != nil {
		mux.HandleFunc(s.ManifestRoute(), s.ServeManifest)
		ev := &slack.Events{Config: s, Start: o.slackStart(s), ThreadStarted: o.slackThreadStarted(s)}
		if o.slackClaim != nil {
			ev.Claim = o.slackClaim.claim
		}
		mux.HandleFunc(s.EventsRoute(), ev.ServeHTTP)
		in := &slack.Interactions{Config: s, Handle: o.slackInteract(s)}
		mux.HandleFunc(s.InteractionsRoute(), in.ServeHTTP)
	}
	o.mcpServerRoutes(mux)
	o.a2aRoutes(mux)
	o.aguiRoutes(mux)
}

// keylessPath reports paths served without AgentOS's key or token: those
// carrying their own auth (Slack's signature) and public documents (an
// A2A agent card). Protected mode still applies to all but Slack's.
func (o *OS) keylessPath(p string) bool {
	return o.slackOpenPath(p) || o.a2aOpenPath(p)
}

// slackOpenPath reports the Slack events and interactions paths: Slack
// cannot send AgentOS's key, its signature is the auth (agno's interface
// routes carry no key dependency either).
func (o *OS) slackOpenPath(p string) bool {
	s := o.cfg.Slack
	return s != nil && (p == s.EventsPath() || p == s.InteractionsPath())
}

// interfaces is /config interfaces: agno's [{type, version, route}].
func (o *OS) interfaces() []any {
	out := []any{}
	if s := o.cfg.Slack; s != nil {
		out = append(out, s.Listing())
	}
	out = append(out, o.mcpServerListing()...)
	out = append(out, o.a2aListing()...)
	out = append(out, o.aguiListing()...)
	return out
}

// interfaceAPIRoutes documents interfaceRoutes (their prefix is
// configured, so they are not in the static apiRoutes).
func (o *OS) interfaceAPIRoutes() []apiRoute {
	var out []apiRoute
	if s := o.cfg.Slack; s != nil {
		out = append(out, apiRoute{Pattern: s.ManifestRoute(), Tag: "Slack", Summary: slack.ManifestRouteSummary,
			Desc:   "agno's Slack app manifest with the events and interactions URLs of slack public_url, or of the URL this request came in on. Paste it into api.slack.com/apps → Create New App → From an app manifest.",
			Result: "Slack app manifest (JSON)"},
			apiRoute{Pattern: s.EventsRoute(), Tag: "Slack", Summary: slack.EventsRouteSummary, Open: true, JSON: slackEventParams,
				Desc:   "Slack Events API endpoint, signed with the app's signing secret (X-Slack-Signature, X-Slack-Request-Timestamp within 5 minutes); no AgentOS key. Answers url_verification with the challenge, acknowledges retries, and answers mentions and direct messages in their thread, streamed (chat.startStream/appendStream/stopStream) unless streaming is off.",
				Result: "{\"status\":\"ok\"} or {\"challenge\"}"},
			apiRoute{Pattern: s.InteractionsRoute(), Tag: "Slack", Summary: slack.InteractionsRouteSummary, Open: true, Form: slackInteractionParams,
				Desc:   "Slack interactivity endpoint for the approval cards of paused runs, signed like events; no AgentOS key. Approve / Deny redraw the card (approving the last pending row answers at once), Submit applies the answers (ephemeral message when one is invalid) and continues the run in the thread, exactly once.",
				Result: "{\"status\":\"ok\"}"})
	}
	out = append(out, o.mcpServerAPIRoutes()...)
	out = append(out, o.a2aAPIRoutes()...)
	out = append(out, o.aguiAPIRoutes()...)
	return out
}
