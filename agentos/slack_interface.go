package agentos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agno-go/agno/agentos/slack"
)

// Slack is agno's Slack interface (interfaces=[Slack(...)]): listed in
// /config, its manifest served under its prefix, events and approval
// cards answered in the thread.
func Slack(c *slack.Config) *SlackInterface {
	s := *c
	return &SlackInterface{cfg: &s}
}

// slackRefusal is the 403 of a Slack route whose signature is bad.
const slackRefusal = "Invalid Slack signature"

// SlackInterface serves one Slack app.
type SlackInterface struct {
	cfg *slack.Config
	o   *OS
	// cards follows the Slack approval cards posted here.
	cards *slackCards
	// claim claims Slack event ids, so a replayed event runs once.
	claim slackClaimer
}

// Config is the interface's configuration (normalized once New checked
// it).
func (s *SlackInterface) Config() slack.Config { return *s.cfg }

// Check validates the Slack interface against the catalog: its id must
// name one of the served agents, teams or workflows (agno passes the
// object itself, so it cannot name a missing one). It normalizes the
// config.
func (s *SlackInterface) Check(served Catalog) error {
	if err := s.cfg.Normalize(); err != nil {
		return fmt.Errorf("agentos: %w", err)
	}
	kind, id := s.cfg.Entity()
	// Without them every event is refused or no reply can be posted.
	if s.cfg.SigningSecret == "" || s.cfg.Token == "" {
		return errors.New("agentos: slack: SigningSecret and Token are required: pass the app's signing secret and bot token (agno reads SLACK_SIGNING_SECRET and SLACK_TOKEN)")
	}
	if !served.Has(kind, id) {
		return fmt.Errorf("agentos: slack: %s %q is not served: give the id of one of the %ss AgentOS serves", kind, id, kind)
	}
	return nil
}

// Start makes the event claimer (migrating its table in the DB) and
// follows the approval cards.
func (s *SlackInterface) Start(h *Host) error {
	s.o = h.o
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	claim, err := newSlackClaimer(ctx, h.DB(), time.Now)
	if err != nil {
		return err
	}
	s.claim = claim
	s.cards = s.o.startSlackCards(h, s.cfg)
	return nil
}

func (s *SlackInterface) Stop() {
	if s.cards != nil {
		s.cards.stop()
	}
}

func (s *SlackInterface) Listing() []any { return []any{s.cfg.Listing()} }

// Routes are the Slack interface's: the manifest, events and
// interactions (approval cards).
func (s *SlackInterface) Routes() []Route {
	o, c := s.o, s.cfg
	ev := &slack.Events{Config: c, Start: o.slackStart(c, s.cards), ThreadStarted: o.slackThreadStarted(c), Claim: s.claim.claim}
	in := &slack.Interactions{Config: c, Handle: o.slackInteract(c, s.cards)}
	// Slack cannot send AgentOS's key: its signature is the auth (agno's
	// interface routes carry no key dependency either), and it calls from
	// outside, protected mode or not.
	signed := Open("Slack signs it: slack.Events and slack.Interactions check the signing secret")
	const tag = "The Slack interface: app manifest, and the events and interactivity endpoints Slack calls, signed with the app's signing secret."
	return []Route{
		{Pattern: c.ManifestRoute(), Handler: c.ServeManifest, Access: CheckedBy("none: the app manifest holds no secret"), Tag: "Slack", TagDesc: tag, Summary: slack.ManifestRouteSummary,
			Desc:   "agno's Slack app manifest with the events and interactions URLs of slack public_url, or of the URL this request came in on. Paste it into api.slack.com/apps → Create New App → From an app manifest.",
			Result: "Slack app manifest (JSON)"},
		{Pattern: c.EventsRoute(), Handler: ev.ServeHTTP, Access: signed, Remote: slackRefusal, Tag: "Slack", Summary: slack.EventsRouteSummary, JSON: slackEventParams,
			Desc:   "Slack Events API endpoint, signed with the app's signing secret (X-Slack-Signature, X-Slack-Request-Timestamp within 5 minutes); no AgentOS key. Answers url_verification with the challenge, acknowledges retries, and answers mentions and direct messages in their thread, streamed (chat.startStream/appendStream/stopStream) unless streaming is off.",
			Result: "{\"status\":\"ok\"} or {\"challenge\"}"},
		{Pattern: c.InteractionsRoute(), Handler: in.ServeHTTP, Access: signed, Remote: slackRefusal, Tag: "Slack", Summary: slack.InteractionsRouteSummary, Form: slackInteractionParams,
			Desc:   "Slack interactivity endpoint for the approval cards of paused runs, signed like events; no AgentOS key. Approve / Deny redraw the card (approving the last pending row answers at once), Submit applies the answers (ephemeral message when one is invalid) and continues the run in the thread, exactly once.",
			Result: "{\"status\":\"ok\"}"},
	}
}
