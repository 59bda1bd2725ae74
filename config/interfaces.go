package config

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agentos/slack"
)

// InterfacesConfig is [interfaces]: agno's AgentOS(interfaces=[...]).
type InterfacesConfig struct {
	// Slack is [interfaces.slack]; nil when absent.
	Slack *SlackConfig `toml:"slack"`
	// MCP is [interfaces.mcp]: AgentOS as an MCP server at /mcp.
	MCP *MCPInterfaceConfig `toml:"mcp"`
	// A2A is [interfaces.a2a]: the Agent-to-Agent protocol.
	A2A *A2AInterfaceConfig `toml:"a2a"`
	// AGUI is [interfaces.agui]: the AG-UI protocol for one agent or team.
	AGUI *AGUIInterfaceConfig `toml:"agui"`
}

// MCPInterfaceConfig is [interfaces.mcp]: agno's enable_mcp_server.
type MCPInterfaceConfig struct {
	// Enabled serves agno's MCP tools at /mcp (streamable HTTP), behind
	// the same key or JWT as the HTTP API; off by default.
	Enabled bool `toml:"enabled"`
}

// A2AInterfaceConfig is [interfaces.a2a], agno's A2A(agents, teams,
// workflows, prefix="/a2a"): per agent, team and workflow an agent card
// and A2A JSON-RPC endpoints; off unless enabled.
type A2AInterfaceConfig struct {
	Enabled bool `toml:"enabled"`
	// Prefix mounts the routes (agno's default "/a2a").
	Prefix string `toml:"prefix"`
	// Agents, Teams and Workflows list the ids served; all absent serve
	// every agent, team and workflow (agno's a2a_interface=True).
	Agents    []string `toml:"agents"`
	Teams     []string `toml:"teams"`
	Workflows []string `toml:"workflows"`
}

// AGUIInterfaceConfig is [interfaces.agui], agno's AGUI(agent=|team=,
// prefix=""): POST {prefix}/agui and GET {prefix}/status.
type AGUIInterfaceConfig struct {
	Enabled bool `toml:"enabled"`
	// Agent or Team: exactly one id, of what answers.
	Agent string `toml:"agent"`
	Team  string `toml:"team"`
	// Prefix mounts the routes (agno's default "": the root).
	Prefix string `toml:"prefix"`
}

// SlackConfig is [interfaces.slack], agno's Slack(...): the manifest, the
// /config entry and POST {prefix}/events (answered in the thread).
type SlackConfig struct {
	// Agent, Team or Workflow: exactly one id, of what answers in Slack.
	Agent    string `toml:"agent"`
	Team     string `toml:"team"`
	Workflow string `toml:"workflow"`
	// Prefix mounts the routes (agno's default "/slack").
	Prefix string `toml:"prefix"`
	// TokenEnv and SigningSecretEnv name the variables holding the bot
	// token and the signing secret (agno's SLACK_TOKEN and
	// SLACK_SIGNING_SECRET); the file never holds them.
	TokenEnv         string `toml:"token_env"`
	SigningSecretEnv string `toml:"signing_secret_env"`
	// ReplyToMentionsOnly and Streaming default to true, as in agno.
	ReplyToMentionsOnly bool `toml:"reply_to_mentions_only"`
	Streaming           bool `toml:"streaming"`
	// APIURL is the Slack Web API base URL (default
	// "https://slack.com/api/"); tests point it at a fake server.
	APIURL string `toml:"api_url"`
	// PublicURL is the https URL Slack reaches AgentOS at, for the served
	// manifest; empty: the URL the manifest request came in on.
	PublicURL string `toml:"public_url"`
	// SuggestedPrompts are set on each new assistant thread, at most 4
	// ([[interfaces.slack.suggested_prompts]] title/message); absent:
	// agno's defaults. A pointer keeps SlackConfig comparable.
	SuggestedPrompts *[]SlackPrompt `toml:"suggested_prompts"`
	// MaxFileSize bounds one file downloaded from a Slack message, in
	// bytes; 0 (absent): slack.DefaultMaxFileSize (32 MiB, not agno's
	// 1 GiB: files are read into memory).
	MaxFileSize int64 `toml:"max_file_size"`
}

// SlackPrompt is one suggested prompt: the message sent when picked and
// the short title shown (default: the message).
type SlackPrompt struct {
	Title   string `toml:"title"`
	Message string `toml:"message"`
}

func (c *Config) validateInterfaces(p *problems, md *toml.MetaData) {
	s := c.Interfaces.Slack
	if s == nil {
		return
	}
	const key = "interfaces.slack"
	defined := func(k string) bool { return md.IsDefined("interfaces", "slack", k) }
	if !defined("reply_to_mentions_only") {
		s.ReplyToMentionsOnly = true
	}
	if !defined("streaming") {
		s.Streaming = true
	}
	n := 0
	for _, id := range []string{s.Agent, s.Team, s.Workflow} {
		if id != "" {
			n++
		}
	}
	if n != 1 {
		p.at(key, "interfaces.slack needs exactly one of agent, team or workflow: set agent = \"<agent id>\" (or team = / workflow =) to the id that answers in Slack")
	}
	if defined("prefix") || s.Prefix != "" {
		if err := slack.CheckPrefix(s.Prefix); err != nil {
			p.at(key+".prefix", "interfaces.slack.prefix = %q: write a route prefix such as \"/slack\" (leading /, no trailing /), or remove the key for agno's \"/slack\"", s.Prefix)
		}
	} else {
		s.Prefix = slack.DefaultPrefix
	}
	if s.TokenEnv == "" {
		s.TokenEnv = slack.DefaultTokenEnv
	}
	checkEnvName(p, key+".token_env", s.TokenEnv)
	if s.SigningSecretEnv == "" {
		s.SigningSecretEnv = slack.DefaultSigningSecretEnv
	}
	checkEnvName(p, key+".signing_secret_env", s.SigningSecretEnv)
	if s.APIURL == "" {
		s.APIURL = slack.DefaultAPIURL
	} else if u, err := url.Parse(s.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.at(key+".api_url", "interfaces.slack.api_url = %q is not an http(s) URL: give the Slack Web API base such as \"https://slack.com/api/\", or remove the key", s.APIURL)
	}
	if s.PublicURL != "" {
		if _, err := slack.BaseURL(s.PublicURL); err != nil {
			p.at(key+".public_url", "interfaces.slack.public_url = %q: give the https URL Slack reaches AgentOS at (\"https://my-tunnel.ngrok.app\"), or remove the key to use the URL the manifest is requested on", s.PublicURL)
		}
	}
	if s.SuggestedPrompts != nil {
		checkSlackPrompts(p, key+".suggested_prompts", *s.SuggestedPrompts)
	}
	if defined("max_file_size") && s.MaxFileSize <= 0 {
		p.at(key+".max_file_size", "interfaces.slack.max_file_size = %d: give the largest Slack file to download, in bytes, above 0 (for example 10485760 for 10 MiB), or remove the key for %d (32 MiB)", s.MaxFileSize, slack.DefaultMaxFileSize)
	}
}

// checkSlackPrompts validates suggested_prompts; a missing title becomes
// the message, which Slack shows when a prompt has no title.
func checkSlackPrompts(p *problems, key string, prompts []SlackPrompt) {
	switch {
	case len(prompts) == 0:
		p.at(key, "%s is empty: list up to %d prompts as [[%s]] tables with message = \"...\" (and title = \"...\"), or remove the key for agno's defaults", key, slack.MaxPrompts, key)
		return
	case len(prompts) > slack.MaxPrompts:
		p.at(key, "%s has %d prompts: Slack shows at most %d, remove the others", key, len(prompts), slack.MaxPrompts)
	}
	for i := range prompts {
		pr := &prompts[i]
		pr.Title, pr.Message = strings.TrimSpace(pr.Title), strings.TrimSpace(pr.Message)
		if pr.Message == "" {
			p.at(fmt.Sprintf("%s[%d].message", key, i), "%s[%d] has no message: set message = \"<text sent when the prompt is picked>\"", key, i)
		}
		if pr.Title == "" {
			pr.Title = pr.Message
		}
	}
}

// buildSlack resolves [interfaces.slack] against the resources: its id
// must name a loaded or existing agent, team or workflow. The token and
// secret are read from their variables now; an unset one is an error.
func (c *Config) buildSlack(r *Resources) (*slack.Config, error) {
	s := c.Interfaces.Slack
	if s == nil {
		return nil, nil
	}
	out := &slack.Config{
		AgentID: s.Agent, TeamID: s.Team, WorkflowID: s.Workflow, Prefix: s.Prefix,
		Token: os.Getenv(s.TokenEnv), SigningSecret: os.Getenv(s.SigningSecretEnv),
		ReplyToMentionsOnly: s.ReplyToMentionsOnly, Streaming: s.Streaming, APIURL: s.APIURL, PublicURL: s.PublicURL,
		MaxFileSize: s.MaxFileSize,
	}
	if s.SuggestedPrompts != nil {
		for _, pr := range *s.SuggestedPrompts {
			out.SuggestedPrompts = append(out.SuggestedPrompts, slack.Prompt{Title: pr.Title, Message: pr.Message})
		}
	}
	if err := out.Normalize(); err != nil {
		return nil, fmt.Errorf("config: %s: interfaces.slack: %w", c.Path, err)
	}
	kind, id := out.Entity()
	var ids []string
	switch kind {
	case "agent":
		for _, a := range slices.Concat(r.Agents, r.existing.Agents) {
			ids = append(ids, a.ID())
		}
	case "team":
		for _, t := range slices.Concat(r.Teams, r.existing.Teams) {
			ids = append(ids, t.ID())
		}
	default:
		for _, w := range slices.Concat(r.Workflows, r.existing.Workflows) {
			ids = append(ids, w.ID())
		}
	}
	found := slices.Contains(ids, id)
	if !found {
		msg := fmt.Sprintf("interfaces.slack.%s = %q names no %s: give the id of a loaded or code-defined %s", kind, id, kind, kind)
		if len(ids) > 0 {
			msg += fmt.Sprintf(" (known: %v)", ids)
		}
		return nil, &Error{File: c.Path, Key: "interfaces.slack." + kind, Msg: msg}
	}
	// Events cannot be verified or answered without them: refuse to start.
	for _, v := range [][3]string{{s.TokenEnv, out.Token, "token_env"}, {s.SigningSecretEnv, out.SigningSecret, "signing_secret_env"}} {
		if v[1] == "" {
			return nil, &Error{File: c.Path, Key: "interfaces.slack." + v[2], Msg: fmt.Sprintf("the Slack variable %s (interfaces.slack.%s) is not set: export %s=<value from your Slack app> and restart AgentOS", v[0], v[2], v[0])}
		}
	}
	return out, nil
}
