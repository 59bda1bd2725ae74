package config_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
)

func TestAGUIBuild(t *testing.T) {
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	existing := config.Existing{Agents: []*agent.Agent{helper}}
	buildErr := func(src string) error {
		t.Helper()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n" + src})
		c, err := config.Load(filepath.Join(dir, "config.toml"))
		if err != nil {
			return err
		}
		logger, _ := newLogger()
		c.Logger = logger
		res, err := c.Build(context.Background(), config.Functions{}, existing)
		if err == nil {
			res.Close()
		}
		return err
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.agui]\nenabled = true\nagent = \"helper\"\n"})
	_, res := build(t, dir, config.Functions{}, existing)
	if i, ok := built[*agui.Interface](res); !ok || i.Config().AgentID != "helper" || i.Config().TeamID != "" || i.Config().Prefix != "" {
		t.Fatalf("got %+v", res.Interfaces)
	}
	// Off unless enabled.
	dir = t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.agui]\nagent = \"helper\"\n"})
	if _, res := build(t, dir, config.Functions{}, existing); len(res.Interfaces) != 0 {
		t.Fatalf("disabled interface built: %+v", res.Interfaces)
	}

	for src, want := range map[string]string{
		"[interfaces.agui]\nenabled = true\n":                                         "needs exactly one of agent or team",
		"[interfaces.agui]\nenabled = true\nagent = \"helper\"\nteam = \"crew\"\n":    "needs exactly one of agent or team",
		"[interfaces.agui]\nenabled = true\nagent = \"nobody\"\n":                     `interfaces.agui.agent = "nobody" names no agent`,
		"[interfaces.agui]\nenabled = true\nteam = \"crew\"\n":                        `interfaces.agui.team = "crew" names no team`,
		"[interfaces.agui]\nenabled = true\nagent = \"helper\"\nprefix = \"chat/\"\n": `prefix "chat/"`,
	} {
		err := buildErr(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}
