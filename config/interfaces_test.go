package config_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
)

func parseSlack(t *testing.T, src string) (*config.Config, error) {
	t.Helper()
	return config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte(src))
}

// slackOptions are c's [interfaces.slack] options; nil without the table.
func slackOptions(c *config.Config) *config.SlackConfig {
	s, _ := c.Interfaces["slack"].(*config.SlackConfig)
	return s
}

// built is res's interface of type T; ok false when it is off.
func built[T agentos.Interface](res *config.Resources) (i T, ok bool) {
	for _, x := range res.Interfaces {
		if i, ok = x.(T); ok {
			return i, true
		}
	}
	return i, false
}

// builtSlack is the Slack config res serves; nil when off.
func builtSlack(res *config.Resources) *slack.Config {
	if s, ok := built[*slack.Interface](res); ok {
		c := s.Config()
		return &c
	}
	return nil
}

// agno's defaults: prefix /slack, SLACK_TOKEN / SLACK_SIGNING_SECRET,
// reply_to_mentions_only and streaming on.
func TestSlackDefaults(t *testing.T) {
	c, err := parseSlack(t, "[interfaces.slack]\nagent = \"helper\"\n")
	if err != nil {
		t.Fatal(err)
	}
	s := slackOptions(c)
	want := config.SlackConfig{Agent: "helper", Prefix: "/slack", TokenEnv: "SLACK_TOKEN", SigningSecretEnv: "SLACK_SIGNING_SECRET",
		ReplyToMentionsOnly: true, Streaming: true, APIURL: "https://slack.com/api/"}
	if s == nil || *s != want {
		t.Fatalf("got %+v", s)
	}
	c, err = parseSlack(t, `
[interfaces.slack]
team = "support"
prefix = "/bots/support"
token_env = "SUPPORT_SLACK_TOKEN"
signing_secret_env = "SUPPORT_SLACK_SECRET"
reply_to_mentions_only = false
streaming = false
api_url = "http://127.0.0.1:9999/api/"
public_url = "https://x.ngrok.app"
`)
	if err != nil {
		t.Fatal(err)
	}
	if s := slackOptions(c); s.ReplyToMentionsOnly || s.Streaming || s.Prefix != "/bots/support" || s.APIURL != "http://127.0.0.1:9999/api/" {
		t.Fatalf("got %+v", s)
	}
	if c, err := parseSlack(t, ""); err != nil || slackOptions(c) != nil {
		t.Fatal(slackOptions(c), err)
	}
}

func TestSlackErrors(t *testing.T) {
	for src, parts := range map[string][]string{
		"[interfaces.slack]\n":                                                {"interfaces.slack", "exactly one of agent, team or workflow"},
		"[interfaces.slack]\nagent = \"a\"\nteam = \"t\"\n":                   {"exactly one"},
		"[interfaces.slack]\nagent = \"a\"\nprefix = \"slack/\"\n":            {"interfaces.slack.prefix", "\"/slack\""},
		"[interfaces.slack]\nagent = \"a\"\nprefix = \"\"\n":                  {"interfaces.slack.prefix"},
		"[interfaces.slack]\nagent = \"a\"\ntoken_env = \"xoxb-1234\"\n":      {"interfaces.slack.token_env", "environment variable"},
		"[interfaces.slack]\nagent = \"a\"\nsigning_secret_env = \"9 bad\"\n": {"interfaces.slack.signing_secret_env"},
		"[interfaces.slack]\nagent = \"a\"\napi_url = \"slack.com\"\n":        {"interfaces.slack.api_url", "https://slack.com/api/"},
		"[interfaces.slack]\nagent = \"a\"\npublic_url = \"http://x\"\n":      {"interfaces.slack.public_url", "https"},
		"[interfaces.slack]\nagent = \"a\"\ntoken = \"xoxb-1\"\n":             {"token", "token_env"},
		"[interfaces.slak]\nagent = \"a\"\n":                                  {"slak", "slack"},
	} {
		_, err := parseSlack(t, src)
		if findError(t, configErrors(t, err), parts...) == nil {
			t.Errorf("%q: no error with %q in %v", src, parts, err)
		}
	}
}

func TestSlackBuild(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.slack]\nagent = \"helper\"\ntoken_env = \"AGNO_TEST_SLACK_TOKEN\"\n"})
	t.Setenv("AGNO_TEST_SLACK_TOKEN", "xoxb-test")
	t.Setenv("SLACK_SIGNING_SECRET", "shh")
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	_, res := build(t, dir, config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	s := builtSlack(res)
	if s == nil || s.AgentID != "helper" || s.Token != "xoxb-test" || s.SigningSecret != "shh" || s.Prefix != "/slack" || !s.Streaming || !s.ReplyToMentionsOnly {
		t.Fatalf("got %+v", s)
	}

	// An id naming nothing is an error at build time.
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	logger, _ := newLogger()
	c.Logger = logger
	res2, err := c.Build(context.Background(), config.Functions{}, config.Existing{})
	if err == nil {
		res2.Close()
		t.Fatal("unknown agent accepted")
	}
	if !strings.Contains(err.Error(), `interfaces.slack.agent = "helper" names no agent`) {
		t.Fatal(err)
	}

	// An unset variable is a start-up error naming it.
	t.Setenv("SLACK_SIGNING_SECRET", "")
	res3, err := c.Build(context.Background(), config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	if err == nil {
		res3.Close()
		t.Fatal("unset signing secret accepted")
	}
	if !strings.Contains(err.Error(), "SLACK_SIGNING_SECRET") || !strings.Contains(err.Error(), "signing_secret_env") {
		t.Fatal(err)
	}
}
