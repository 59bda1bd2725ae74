package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/tool"
)

// The built-in interfaces, in agno's order (the order of /config
// interfaces).
func init() {
	RegisterInterface(InterfaceSpec[SlackConfig]{Name: "slack", Summary: "a Slack app: mentions and direct messages answered in their thread, approval cards (agno's Slack)",
		Defaults: slackDefaults, Check: checkSlack, New: newSlack})
	RegisterInterface(InterfaceSpec[MCPInterfaceConfig]{Name: "mcp", Summary: "AgentOS as an MCP server at /mcp (agno's enable_mcp_server)", New: newMCPServer})
	RegisterInterface(InterfaceSpec[A2AInterfaceConfig]{Name: "a2a", Summary: "the Agent-to-Agent protocol: agent cards and JSON-RPC endpoints (agno's A2A)", New: newA2A})
	RegisterInterface(InterfaceSpec[AGUIInterfaceConfig]{Name: "agui", Summary: "the AG-UI protocol for one agent or team (agno's AGUI)", New: newAGUI})
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

// slackDefaults are agno's: prefix /slack, SLACK_TOKEN and
// SLACK_SIGNING_SECRET, mentions only, streamed.
func slackDefaults() SlackConfig {
	return SlackConfig{Prefix: slack.DefaultPrefix, TokenEnv: slack.DefaultTokenEnv, SigningSecretEnv: slack.DefaultSigningSecretEnv,
		ReplyToMentionsOnly: true, Streaming: true, APIURL: slack.DefaultAPIURL}
}

// checkSlack validates [interfaces.slack] at Load.
func checkSlack(key string, s *SlackConfig, defined func(string) bool) error {
	var errs []error
	at := func(rel, format string, a ...any) { errs = append(errs, tool.OptionErrorf(rel, format, a...)) }
	n := 0
	for _, id := range []string{s.Agent, s.Team, s.Workflow} {
		if id != "" {
			n++
		}
	}
	if n != 1 {
		at("", "%s needs exactly one of agent, team or workflow: set agent = \"<agent id>\" (or team = / workflow =) to the id that answers in Slack", key)
	}
	if defined("prefix") && slack.CheckPrefix(s.Prefix) != nil {
		at("prefix", "%s.prefix = %q: write a route prefix such as \"/slack\" (leading /, no trailing /), or remove the key for agno's \"/slack\"", key, s.Prefix)
	}
	if s.TokenEnv == "" {
		s.TokenEnv = slack.DefaultTokenEnv
	}
	if msg := envNameProblem(key+".token_env", s.TokenEnv); msg != "" {
		at("token_env", "%s", msg)
	}
	if s.SigningSecretEnv == "" {
		s.SigningSecretEnv = slack.DefaultSigningSecretEnv
	}
	if msg := envNameProblem(key+".signing_secret_env", s.SigningSecretEnv); msg != "" {
		at("signing_secret_env", "%s", msg)
	}
	if s.APIURL == "" {
		s.APIURL = slack.DefaultAPIURL
	} else if u, err := url.Parse(s.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		at("api_url", "%s.api_url = %q is not an http(s) URL: give the Slack Web API base such as \"https://slack.com/api/\", or remove the key", key, s.APIURL)
	}
	if s.PublicURL != "" {
		if _, err := slack.BaseURL(s.PublicURL); err != nil {
			at("public_url", "%s.public_url = %q: give the https URL Slack reaches AgentOS at (\"https://my-tunnel.ngrok.app\"), or remove the key to use the URL the manifest is requested on", key, s.PublicURL)
		}
	}
	if s.SuggestedPrompts != nil {
		errs = append(errs, checkSlackPrompts(key+".suggested_prompts", *s.SuggestedPrompts))
	}
	if defined("max_file_size") && s.MaxFileSize <= 0 {
		at("max_file_size", "%s.max_file_size = %d: give the largest Slack file to download, in bytes, above 0 (for example 10485760 for 10 MiB), or remove the key for %d (32 MiB)", key, s.MaxFileSize, slack.DefaultMaxFileSize)
	}
	return errors.Join(errs...)
}

// checkSlackPrompts validates suggested_prompts; a missing title becomes
// the message, which Slack shows when a prompt has no title.
func checkSlackPrompts(key string, prompts []SlackPrompt) error {
	var errs []error
	at := func(rel, format string, a ...any) { errs = append(errs, tool.OptionErrorf(rel, format, a...)) }
	switch {
	case len(prompts) == 0:
		at("suggested_prompts", "%s is empty: list up to %d prompts as [[%s]] tables with message = \"...\" (and title = \"...\"), or remove the key for agno's defaults", key, slack.MaxPrompts, key)
		return errors.Join(errs...)
	case len(prompts) > slack.MaxPrompts:
		at("suggested_prompts", "%s has %d prompts: Slack shows at most %d, remove the others", key, len(prompts), slack.MaxPrompts)
	}
	for i := range prompts {
		pr := &prompts[i]
		pr.Title, pr.Message = strings.TrimSpace(pr.Title), strings.TrimSpace(pr.Message)
		if pr.Message == "" {
			at(fmt.Sprintf("suggested_prompts[%d].message", i), "%s[%d] has no message: set message = \"<text sent when the prompt is picked>\"", key, i)
		}
		if pr.Title == "" {
			pr.Title = pr.Message
		}
	}
	return errors.Join(errs...)
}

// newSlack resolves [interfaces.slack] against the resources: its id
// must name a loaded or existing agent, team or workflow. The token and
// secret are read from their variables now; an unset one is an error.
func newSlack(key string, s *SlackConfig, served agentos.Catalog) (agentos.Interface, error) {
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
		return nil, err
	}
	kind, id := out.Entity()
	if err := namesServed(key, kind, id, served); err != nil {
		return nil, err
	}
	// Events cannot be verified or answered without them: refuse to start.
	for _, v := range [][3]string{{s.TokenEnv, out.Token, "token_env"}, {s.SigningSecretEnv, out.SigningSecret, "signing_secret_env"}} {
		if v[1] == "" {
			return nil, tool.OptionErrorf(v[2], "the Slack variable %s (%s.%s) is not set: export %s=<value from your Slack app> and restart AgentOS", v[0], key, v[2], v[0])
		}
	}
	return slack.New(out), nil
}

// namesServed is the error of an interface's kind = "id" key naming no
// loaded or code-defined agent, team or workflow.
func namesServed(key, kind, id string, served agentos.Catalog) error {
	ids := servedIDs(served, kind)
	if slices.Contains(ids, id) {
		return nil
	}
	msg := fmt.Sprintf("%s.%s = %q names no %s: give the id of a loaded or code-defined %s", key, kind, id, kind, kind)
	if len(ids) > 0 {
		msg += fmt.Sprintf(" (known: %v)", ids)
	}
	return &tool.OptionError{Key: kind, Msg: msg}
}
