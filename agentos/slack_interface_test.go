package agentos_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/slack"
)

// slackInterfaces are the interfaces of a Slack config (none for nil).
func slackInterfaces(s *slack.Config) []agentos.Interface {
	if s == nil {
		return nil
	}
	return []agentos.Interface{slack.New(s)}
}

func slackOS(t *testing.T, s *slack.Config) (*agentos.OS, error) {
	t.Helper()
	if s != nil && s.Token == "" && s.SigningSecret == "" {
		c := *s
		c.Token, c.SigningSecret = "xoxb-test", "secret"
		s = &c
	}
	return agentos.New(agentos.Config{Agents: []*agent.Agent{agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Helper"})}, Interfaces: slackInterfaces(s)})
}

func TestSlackConfigAndManifest(t *testing.T) {
	in := &slack.Config{AgentID: "helper", ReplyToMentionsOnly: true, Streaming: true}
	o, err := slackOS(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if in.Prefix != "" || in.Token != "" {
		t.Fatal("New changed the caller's config")
	}
	h := o.Handler()
	var cfg struct {
		Interfaces []map[string]any `json:"interfaces"`
	}
	rec := agentos.GetLocal(t, h, "/config")
	if err := json.Unmarshal(rec.Body.Bytes(), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Interfaces) != 1 || cfg.Interfaces[0]["type"] != "slack" || cfg.Interfaces[0]["version"] != "1.0" || cfg.Interfaces[0]["route"] != "/slack" {
		t.Fatalf("interfaces %v", cfg.Interfaces)
	}
	rec = agentos.GetLocal(t, h, "/slack/manifest.json")
	if rec.Code != http.StatusOK {
		t.Fatal(rec.Code, rec.Body)
	}
	var m slack.Manifest
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Settings.EventSubscriptions.RequestURL != "http://localhost:7777/slack/events" || m.Settings.Interactivity.RequestURL != "http://localhost:7777/slack/interactions" {
		t.Fatal(m.Settings)
	}
	// Interactions are open to Slack, not to unsigned callers.
	req, _ := http.NewRequest(http.MethodPost, "/slack/interactions", strings.NewReader("payload=%7B%7D"))
	req.RemoteAddr, req.Host = "127.0.0.1:40000", "localhost:7777"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "Missing Slack headers") {
		t.Fatalf("unsigned POST /slack/interactions = %d %s", w.Code, w.Body)
	}
	doc, _ := agentos.FetchOpenAPI(t, h)
	if _, ok := doc.Paths["/slack/manifest.json"]["get"]; !ok {
		t.Fatal("manifest route not documented")
	}
	if _, ok := doc.Paths["/slack/events"]["post"]; !ok {
		t.Fatal("events route not documented")
	}
	if _, ok := doc.Paths["/slack/interactions"]["post"]; !ok {
		t.Fatal("interactions route not documented")
	}
}

func TestSlackPrefixAndPublicURL(t *testing.T) {
	o, err := slackOS(t, &slack.Config{AgentID: "helper", Prefix: "/bots/helper", PublicURL: "https://pub.example/"})
	if err != nil {
		t.Fatal(err)
	}
	h := o.Handler()
	rec := agentos.GetLocal(t, h, "/bots/helper/manifest.json")
	if !strings.Contains(rec.Body.String(), `"https://pub.example/bots/helper/interactions"`) {
		t.Fatal(rec.Code, rec.Body)
	}
	if rec := agentos.GetLocal(t, h, "/slack/manifest.json"); rec.Code != http.StatusNotFound {
		t.Fatal(rec.Code)
	}
}

func TestSlackRefusedConfigs(t *testing.T) {
	for _, c := range []*slack.Config{
		{AgentID: "nobody"},
		{TeamID: "helper"},
		{},
		{AgentID: "helper", WorkflowID: "w"},
		{AgentID: "helper", Token: "xoxb-test"}, // no signing secret
		{AgentID: "helper", SigningSecret: "s"}, // no token
	} {
		if _, err := slackOS(t, c); err == nil || !strings.Contains(err.Error(), "slack") {
			t.Errorf("%+v: err %v", c, err)
		}
	}
}
