// Package slack is agno's Slack interface (agno.os.interfaces.slack):
// its configuration, its /config entry, the Slack app manifest, POST
// {prefix}/events (signed events; replies streamed in the thread with
// chat.startStream/appendStream/stopStream and task cards, or posted
// whole; files in and out; suggested prompts) and POST
// {prefix}/interactions (the approval cards of paused runs: Card,
// Action). Interface (New) serves them in AgentOS, as one of its
// interfaces: it builds on the core (agentos/internal/httpapi) and on
// Host, what it needs of the OS, through which it runs and continues
// the runs in the run engine.
package slack

import (
	"errors"
	"fmt"
	"strings"
)

// agno's defaults (Slack.__init__ and SlackTools).
const (
	Type          = "slack"
	Version       = "1.0" // BaseInterface.version
	DefaultPrefix = "/slack"
	// DefaultTokenEnv and DefaultSigningSecretEnv are the variables agno
	// reads when token= and signing_secret= are not given.
	DefaultTokenEnv         = "SLACK_TOKEN"
	DefaultSigningSecretEnv = "SLACK_SIGNING_SECRET"
	// DefaultAPIURL is the Slack Web API base URL (slack-go's APIURL).
	DefaultAPIURL = "https://slack.com/api/"
)

// Config is one Slack interface, agno's Slack(...). Exactly one of
// AgentID, TeamID and WorkflowID names what answers in Slack.
type Config struct {
	AgentID    string
	TeamID     string
	WorkflowID string
	// Prefix mounts the routes (default "/slack").
	Prefix string
	// Token and SigningSecret are the values, not variable names: the
	// caller reads them (config does, from token_env and
	// signing_secret_env).
	Token         string
	SigningSecret string
	// ReplyToMentionsOnly and Streaming default to true in agno; Config
	// callers set them explicitly (config applies agno's defaults).
	// Streaming streams replies (see Stream); off, they are posted whole.
	ReplyToMentionsOnly bool
	Streaming           bool
	// APIURL is the Slack Web API base (default DefaultAPIURL); tests
	// point it at a fake server.
	APIURL string
	// PublicURL is the server's public base URL for the manifest; empty:
	// the URL the manifest request came in on.
	PublicURL string
	// SuggestedPrompts are set on each new assistant thread (see
	// Prompts); empty: agno's DefaultPrompts.
	SuggestedPrompts []Prompt
	// MaxFileSize bounds one downloaded Slack file, in bytes (see
	// FileLimit); 0: DefaultMaxFileSize.
	MaxFileSize int64
}

// Normalize fills the defaults and validates c.
func (c *Config) Normalize() error {
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	var errs []error
	n := 0
	for _, id := range []string{c.AgentID, c.TeamID, c.WorkflowID} {
		if id != "" {
			n++
		}
	}
	if n != 1 {
		errs = append(errs, errors.New("slack: give exactly one of agent, team or workflow (the id that answers in Slack)"))
	}
	if err := CheckPrefix(c.Prefix); err != nil {
		errs = append(errs, err)
	}
	if c.PublicURL != "" {
		if _, err := BaseURL(c.PublicURL); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CheckPrefix validates a route prefix ("/slack", "/bots/research").
func CheckPrefix(p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsAny(p, " {}?#") || strings.Contains(p, "//") {
		return fmt.Errorf("slack: prefix %q is not a route prefix: write it as \"/slack\" (leading /, no trailing /, no spaces, braces, ? or #)", p)
	}
	return nil
}

// Entity is the kind and id of what answers ("agent", "team" or
// "workflow").
func (c *Config) Entity() (kind, id string) {
	switch {
	case c.AgentID != "":
		return "agent", c.AgentID
	case c.TeamID != "":
		return "team", c.TeamID
	default:
		return "workflow", c.WorkflowID
	}
}

// Listing is the interface's entry in /config interfaces, agno's
// InterfaceResponse{type, version, route=prefix}.
func (c *Config) Listing() map[string]any {
	return map[string]any{"type": Type, "version": Version, "route": c.Prefix}
}
