package config_test

import (
	"reflect"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
)

func TestSlackPromptsAndFileSize(t *testing.T) {
	c, err := parseSlack(t, `
[interfaces.slack]
agent = "helper"
max_file_size = 10485760

[[interfaces.slack.suggested_prompts]]
title = "Plan"
message = "Plan my week"

[[interfaces.slack.suggested_prompts]]
message = "  Summarise this channel "
`)
	if err != nil {
		t.Fatal(err)
	}
	s := slackOptions(c)
	want := []config.SlackPrompt{{Title: "Plan", Message: "Plan my week"}, {Title: "Summarise this channel", Message: "Summarise this channel"}}
	if s.MaxFileSize != 10<<20 || s.SuggestedPrompts == nil || !reflect.DeepEqual(*s.SuggestedPrompts, want) {
		t.Fatalf("got %+v %v", s, s.SuggestedPrompts)
	}

	// Absent: zero values, which slack fills with agno's prompts and
	// AgentOS's file bound.
	c, err = parseSlack(t, "[interfaces.slack]\nagent = \"helper\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := slackOptions(c); s.SuggestedPrompts != nil || s.MaxFileSize != 0 {
		t.Fatalf("got %+v", s)
	}
}

func TestSlackPromptsAndFileSizeErrors(t *testing.T) {
	const head = "[interfaces.slack]\nagent = \"a\"\n"
	five := ""
	for range 5 {
		five += "[[interfaces.slack.suggested_prompts]]\nmessage = \"m\"\n"
	}
	for src, parts := range map[string][]string{
		head + "max_file_size = 0\n":        {"interfaces.slack.max_file_size", "above 0", "remove the key"},
		head + "max_file_size = -5\n":       {"interfaces.slack.max_file_size = -5"},
		head + "max_file_size = \"10MB\"\n": {"interfaces.slack.max_file_size", "integer"},
		head + "suggested_prompts = []\n":   {"interfaces.slack.suggested_prompts is empty", "remove the key"},
		head + five:                         {"interfaces.slack.suggested_prompts has 5 prompts", "at most 4"},
		head + "[[interfaces.slack.suggested_prompts]]\ntitle = \"t\"\n":          {"interfaces.slack.suggested_prompts[0]", "message ="},
		head + "[[interfaces.slack.suggested_prompts]]\nmessage = \"m\"\nx = 1\n": {`unknown key "interfaces.slack.suggested_prompts[0].x"`, "title, message"},
		head + "suggested_prompts = [\"just text\"]\n":                            {"interfaces.slack.suggested_prompts", "expected table"},
	} {
		_, err := parseSlack(t, src)
		findError(t, configErrors(t, err), parts...)
	}
}

// The keys reach slack.Config.
func TestSlackKeysBuild(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `[storage]
driver = "memory"
[interfaces.slack]
agent = "helper"
max_file_size = 1024
[[interfaces.slack.suggested_prompts]]
title = "Help"
message = "What can you do?"
`})
	t.Setenv("SLACK_TOKEN", "xoxb-test")
	t.Setenv("SLACK_SIGNING_SECRET", "shh")
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	_, res := build(t, dir, config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	s := builtSlack(res)
	if s == nil || s.MaxFileSize != 1024 || s.FileLimit() != 1024 || !reflect.DeepEqual(s.Prompts(), []slack.Prompt{{Title: "Help", Message: "What can you do?"}}) {
		t.Fatalf("got %+v", s)
	}

	// Without the keys: agno's prompts and the 32 MiB bound.
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.slack]\nagent = \"helper\"\n"})
	_, res = build(t, dir, config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	if s := builtSlack(res); !reflect.DeepEqual(s.Prompts(), slack.DefaultPrompts) || s.FileLimit() != 32<<20 {
		t.Fatalf("got %+v", s)
	}
}
