package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
	slackapi "github.com/slack-go/slack"
)

// Host is what the interface needs of the OS; *agentos.Host is one.
type Host interface {
	Logger() *slog.Logger
	// DB keeps the claimed event ids (nil: this process keeps them).
	DB() *sqldb.DB
	// Store holds the runs the approval cards answer.
	Store() storage.Store
	// Executor is the served agent or team id (nil: not served now).
	Executor(kind, id string) run.Executor
	// Watch follows the runs' status changes, for the cards answered
	// elsewhere.
	Watch(fn func(runID string, status run.Status)) (stop func())
	// Detach runs fn in the background through the run engine (drained
	// at shutdown, cancellable by id).
	Detach(ctx context.Context, id, kind string, fn func(ctx context.Context)) error
	// Execute runs req on the served agent, team or workflow id now.
	Execute(ctx context.Context, kind, id string, req *run.Request, emit run.Emitter) agentos.Result
	// RegisterMigrations registers the event ids' table, which
	// /databases/{db_id}/migrate applies.
	RegisterMigrations(ms func(*sqldb.DB) []sqldb.Migration)
}

var (
	_ Host              = (*agentos.Host)(nil)
	_ agentos.Interface = (*Interface)(nil)
)

// refusal is the 403 of a Slack route whose signature is bad.
const refusal = "Invalid Slack signature"

// Interface is agno's Slack interface (interfaces=[Slack(...)]) for one
// Slack app: listed in /config, its manifest served under its prefix,
// events and approval cards answered in the thread.
type Interface struct {
	cfg  *Config
	host Host
	// api is the Web API client of cfg.
	api *slackapi.Client
	// cards follows the Slack approval cards posted here.
	cards *liveCards
	// claim claims Slack event ids, so a replayed event runs once.
	claim claimer
}

// New is the Slack interface of c, which it copies.
func New(c *Config) *Interface {
	s := *c
	return &Interface{cfg: &s}
}

// Config is the interface's configuration (normalized once New checked
// it).
func (s *Interface) Config() Config { return *s.cfg }

// Check validates the Slack interface against the catalog: its id must
// name one of the served agents, teams or workflows (agno passes the
// object itself, so it cannot name a missing one). It normalizes the
// config.
func (s *Interface) Check(served agentos.Catalog) error {
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
func (s *Interface) Start(h *agentos.Host) error { return s.start(h) }

func (s *Interface) start(h Host) error {
	s.host, s.api = h, s.cfg.Client()
	h.RegisterMigrations(eventMigrations)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	claim, err := newClaimer(ctx, h.DB(), time.Now)
	if err != nil {
		return err
	}
	s.claim = claim
	s.cards = s.startCards()
	return nil
}

func (s *Interface) Stop() {
	if s.cards != nil {
		s.cards.stop()
	}
}

func (s *Interface) Listing() []any { return []any{s.cfg.Listing()} }

// Routes are the Slack interface's: the manifest, events and
// interactions (approval cards).
func (s *Interface) Routes() []httpapi.Route {
	c := s.cfg
	ev := &Events{Config: c, Start: s.startRun, ThreadStarted: s.threadStarted, Claim: s.claim.claim}
	in := &Interactions{Config: c, Handle: s.interact}
	// Slack cannot send AgentOS's key: its signature is the auth (agno's
	// interface routes carry no key dependency either), and it calls from
	// outside, protected mode or not.
	signed := httpapi.Open("Slack signs it: slack.Events and slack.Interactions check the signing secret")
	const tag = "The Slack interface: app manifest, and the events and interactivity endpoints Slack calls, signed with the app's signing secret."
	return []httpapi.Route{
		{Pattern: c.ManifestRoute(), Handler: c.ServeManifest, Access: httpapi.CheckedBy("none: the app manifest holds no secret"), Tag: "Slack", TagDesc: tag, Summary: ManifestRouteSummary,
			Desc:   "agno's Slack app manifest with the events and interactions URLs of slack public_url, or of the URL this request came in on. Paste it into api.slack.com/apps → Create New App → From an app manifest.",
			Result: "Slack app manifest (JSON)"},
		{Pattern: c.EventsRoute(), Handler: ev.ServeHTTP, Access: signed, Remote: refusal, Tag: "Slack", Summary: EventsRouteSummary, JSON: eventParams,
			Desc:   "Slack Events API endpoint, signed with the app's signing secret (X-Slack-Signature, X-Slack-Request-Timestamp within 5 minutes); no AgentOS key. Answers url_verification with the challenge, acknowledges retries, and answers mentions and direct messages in their thread, streamed (chat.startStream/appendStream/stopStream) unless streaming is off.",
			Result: "{\"status\":\"ok\"} or {\"challenge\"}"},
		{Pattern: c.InteractionsRoute(), Handler: in.ServeHTTP, Access: signed, Remote: refusal, Tag: "Slack", Summary: InteractionsRouteSummary, Form: interactionParams,
			Desc:   "Slack interactivity endpoint for the approval cards of paused runs, signed like events; no AgentOS key. Approve / Deny redraw the card (approving the last pending row answers at once), Submit applies the answers (ephemeral message when one is invalid) and continues the run in the thread, exactly once.",
			Result: "{\"status\":\"ok\"}"},
	}
}
