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

// interfaceAPIRoutes are the configured interfaces' routes: each
// interface's own code declares them, under its configured prefix.
func (o *OS) interfaceAPIRoutes() []apiRoute {
	var out []apiRoute
	out = append(out, o.slackAPIRoutes()...)
	out = append(out, o.mcpServerAPIRoutes()...)
	out = append(out, o.a2aAPIRoutes()...)
	out = append(out, o.aguiAPIRoutes()...)
	return out
}

// slackAPIRoutes are the Slack interface's: the manifest, events and
// interactions (approval cards).
func (o *OS) slackAPIRoutes() []apiRoute {
	s := o.cfg.Slack
	if s == nil {
		return nil
	}
	ev := &slack.Events{Config: s, Start: o.slackStart(s), ThreadStarted: o.slackThreadStarted(s)}
	if o.slackClaim != nil {
		ev.Claim = o.slackClaim.claim
	}
	in := &slack.Interactions{Config: s, Handle: o.slackInteract(s)}
	// Slack cannot send AgentOS's key: its signature is the auth (agno's
	// interface routes carry no key dependency either).
	signed := open("Slack signs it: slack.Events and slack.Interactions check the signing secret")
	return []apiRoute{
		{Pattern: s.ManifestRoute(), Handler: s.ServeManifest, Access: checkedBy("none: the app manifest holds no secret"), Tag: "Slack", Summary: slack.ManifestRouteSummary,
			Desc:   "agno's Slack app manifest with the events and interactions URLs of slack public_url, or of the URL this request came in on. Paste it into api.slack.com/apps → Create New App → From an app manifest.",
			Result: "Slack app manifest (JSON)"},
		{Pattern: s.EventsRoute(), Handler: ev.ServeHTTP, Access: signed, Tag: "Slack", Summary: slack.EventsRouteSummary, JSON: slackEventParams,
			Desc:   "Slack Events API endpoint, signed with the app's signing secret (X-Slack-Signature, X-Slack-Request-Timestamp within 5 minutes); no AgentOS key. Answers url_verification with the challenge, acknowledges retries, and answers mentions and direct messages in their thread, streamed (chat.startStream/appendStream/stopStream) unless streaming is off.",
			Result: "{\"status\":\"ok\"} or {\"challenge\"}"},
		{Pattern: s.InteractionsRoute(), Handler: in.ServeHTTP, Access: signed, Tag: "Slack", Summary: slack.InteractionsRouteSummary, Form: slackInteractionParams,
			Desc:   "Slack interactivity endpoint for the approval cards of paused runs, signed like events; no AgentOS key. Approve / Deny redraw the card (approving the last pending row answers at once), Submit applies the answers (ephemeral message when one is invalid) and continues the run in the thread, exactly once.",
			Result: "{\"status\":\"ok\"}"},
	}
}
