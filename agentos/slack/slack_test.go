package slack

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
)

// testdata/manifest.golden.json is agno's
// libs/agno/agno/os/interfaces/slack/manifest.json (v2.6.13, #8327) byte
// for byte, except interactivity.request_url: agno's file repeats
// /slack/events there, but its router takes clicks on
// /slack/interactions (spec A5).
func TestManifestMatchesAgno(t *testing.T) {
	want, err := os.ReadFile("testdata/manifest.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	got := NewManifest("https://YOUR-URL", DefaultPrefix, "").JSON()
	if string(got) != string(want) {
		t.Fatalf("manifest differs from agno's:\n%s", got)
	}
}

// spec A5's acceptance, on the decoded document.
func TestManifestAcceptance(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(NewManifest("https://h.example", "/slack", "").JSON(), &m); err != nil {
		t.Fatal(err)
	}
	settings := m["settings"].(map[string]any)
	ev := settings["event_subscriptions"].(map[string]any)
	in := settings["interactivity"].(map[string]any)
	if ev["request_url"] != "https://h.example/slack/events" || in["request_url"] != "https://h.example/slack/interactions" {
		t.Fatalf("urls %v %v", ev["request_url"], in["request_url"])
	}
	if settings["socket_mode_enabled"] != false || in["is_enabled"] != true {
		t.Fatalf("settings %v", settings)
	}
	scopes := m["oauth_config"].(map[string]any)["scopes"].(map[string]any)["bot"].([]any)
	if len(scopes) != 12 || scopes[0] != "app_mentions:read" || scopes[11] != "users:read.email" {
		t.Fatalf("scopes %v", scopes)
	}
	if !slices.Equal(BotEvents, []string{"app_mention", "assistant_thread_started", "message.im"}) {
		t.Fatal(BotEvents)
	}
}

func TestManifestNameAndPrefix(t *testing.T) {
	m := NewManifest("https://h.example/base", "/bots/research", "Research & Co")
	if m.DisplayInformation.Name != "Research & Co" || m.Features.BotUser.DisplayName != "Research & Co" {
		t.Fatal(m.DisplayInformation)
	}
	if m.Settings.EventSubscriptions.RequestURL != "https://h.example/base/bots/research/events" ||
		m.Settings.Interactivity.RequestURL != "https://h.example/base/bots/research/interactions" {
		t.Fatal(m.Settings)
	}
	if !strings.Contains(string(m.JSON()), `"Research & Co"`) {
		t.Fatal("& escaped: Slack would show \\u0026")
	}
	if CheckName("") == nil || CheckName(strings.Repeat("x", 36)) == nil || CheckName("Slack Agent") != nil {
		t.Fatal("CheckName")
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://host":            "https://host",
		"https://host/":           "https://host",
		"https://host:8443/agno/": "https://host:8443/agno",
		" https://x.ngrok.app ":   "https://x.ngrok.app",
	} {
		if got, err := BaseURL(in); err != nil || got != want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "host", "http://host", "https://", "https://host?x=1", "https://u@host", "ftp://host"} {
		if _, err := BaseURL(in); err == nil {
			t.Errorf("BaseURL(%q) accepted", in)
		}
	}
}

func TestConfigNormalize(t *testing.T) {
	c := Config{AgentID: "a"}
	if err := c.Normalize(); err != nil || c.Prefix != "/slack" || c.APIURL != DefaultAPIURL {
		t.Fatal(c, err)
	}
	if k, id := c.Entity(); k != "agent" || id != "a" {
		t.Fatal(k, id)
	}
	l := c.Listing()
	if l["type"] != "slack" || l["version"] != "1.0" || l["route"] != "/slack" || len(l) != 3 {
		t.Fatal(l)
	}
	for _, bad := range []Config{{}, {AgentID: "a", TeamID: "t"}, {AgentID: "a", Prefix: "slack"}, {AgentID: "a", Prefix: "/slack/"}, {AgentID: "a", PublicURL: "http://x"}} {
		if err := bad.Normalize(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestServeManifest(t *testing.T) {
	get := func(c *Config, mod func(*http.Request)) Manifest {
		t.Helper()
		r := httptest.NewRequest("GET", "http://127.0.0.1:7777/slack/manifest.json", nil)
		if mod != nil {
			mod(r)
		}
		w := httptest.NewRecorder()
		c.ServeManifest(w, r)
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
			t.Fatal(w.Code, w.Header())
		}
		var m Manifest
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	c := &Config{AgentID: "a"}
	_ = c.Normalize()
	if u := get(c, nil).Settings.EventSubscriptions.RequestURL; u != "http://127.0.0.1:7777/slack/events" {
		t.Fatal(u)
	}
	if u := get(c, func(r *http.Request) { r.TLS = &tls.ConnectionState{} }).Settings.Interactivity.RequestURL; u != "https://127.0.0.1:7777/slack/interactions" {
		t.Fatal(u)
	}
	fwd := func(r *http.Request) {
		r.Header.Set("X-Forwarded-Proto", "https")
		r.Header.Set("X-Forwarded-Host", "x.ngrok.app, inner")
	}
	if u := get(c, fwd).Settings.EventSubscriptions.RequestURL; u != "https://x.ngrok.app/slack/events" {
		t.Fatal(u)
	}
	c.PublicURL = "https://public.example/"
	if u := get(c, fwd).Settings.EventSubscriptions.RequestURL; u != "https://public.example/slack/events" {
		t.Fatal(u)
	}
}
