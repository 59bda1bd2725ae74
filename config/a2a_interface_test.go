package config_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
)

func TestA2AInterfaceBuild(t *testing.T) {
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	existing := config.Existing{Agents: []*agent.Agent{helper}}
	for body, want := range map[string]string{
		"":                                    "off",
		"[interfaces.a2a]\nenabled = false\n": "off",
		"[interfaces.a2a]\nenabled = true\n":  "/a2a",
		"[interfaces.a2a]\nenabled = true\nprefix = \"/agents-a2a\"\nagents = [\"helper\"]\n": "/agents-a2a",
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n" + body})
		_, res := build(t, dir, config.Functions{}, existing)
		got := "off"
		if i, ok := built[*a2a.Interface](res); ok {
			a := i.Config()
			got = a.Prefix
			if !a.Serves("agent", "helper") {
				t.Errorf("%q: helper not served", body)
			}
		}
		if got != want {
			t.Errorf("%q: prefix %q, want %q", body, got, want)
		}
	}
	for body, want := range map[string]string{
		"[interfaces.a2a]\nenabled = true\nprefix = \"a2a/\"\n":        `interfaces.a2a.prefix = "a2a/"`,
		"[interfaces.a2a]\nenabled = true\nagents = [\"nobody\"]\n":    `interfaces.a2a.agents names "nobody"`,
		"[interfaces.a2a]\nenabled = true\nworkflows = [\"helper\"]\n": `interfaces.a2a.workflows names "helper"`,
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n" + body})
		c, err := config.Load(filepath.Join(dir, "config.toml"))
		if err != nil {
			t.Fatal(err)
		}
		logger, _ := newLogger()
		c.Logger = logger
		res, err := c.Build(context.Background(), config.Functions{}, existing)
		if err == nil {
			res.Close()
			t.Fatalf("%q accepted", body)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
