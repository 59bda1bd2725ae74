package slack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// agno's manifest defaults (libs/agno/agno/os/interfaces/slack/manifest.json).
const (
	DefaultAppName       = "Slack Agent"
	defaultDescription   = "An AI agent powered by Agno"
	assistantDescription = "Ask me anything."
	maxAppNameLen        = 35 // Slack refuses longer app names
	eventsPath           = "/events"
	interactionsPath     = "/interactions"
	manifestRoutePath    = "/manifest.json"
)

// BotScopes and BotEvents are agno's, in its order.
var (
	BotScopes = []string{
		"app_mentions:read", "assistant:write", "channels:history", "channels:read", "chat:write",
		"files:read", "files:write", "groups:history", "groups:read", "im:history", "users:read", "users:read.email",
	}
	BotEvents = []string{"app_mention", "assistant_thread_started", "message.im"}
)

// Manifest is a Slack app manifest; the field order is agno's file's.
type Manifest struct {
	DisplayInformation struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"display_information"`
	Features struct {
		AppHome struct {
			HomeTabEnabled             bool `json:"home_tab_enabled"`
			MessagesTabEnabled         bool `json:"messages_tab_enabled"`
			MessagesTabReadOnlyEnabled bool `json:"messages_tab_read_only_enabled"`
		} `json:"app_home"`
		BotUser struct {
			DisplayName  string `json:"display_name"`
			AlwaysOnline bool   `json:"always_online"`
		} `json:"bot_user"`
		AssistantView struct {
			AssistantDescription string   `json:"assistant_description"`
			SuggestedPrompts     []string `json:"suggested_prompts"`
		} `json:"assistant_view"`
	} `json:"features"`
	OAuthConfig struct {
		Scopes struct {
			Bot []string `json:"bot"`
		} `json:"scopes"`
	} `json:"oauth_config"`
	Settings struct {
		EventSubscriptions struct {
			RequestURL string   `json:"request_url"`
			BotEvents  []string `json:"bot_events"`
		} `json:"event_subscriptions"`
		Interactivity struct {
			IsEnabled  bool   `json:"is_enabled"`
			RequestURL string `json:"request_url"`
		} `json:"interactivity"`
		OrgDeployEnabled     bool `json:"org_deploy_enabled"`
		SocketModeEnabled    bool `json:"socket_mode_enabled"`
		TokenRotationEnabled bool `json:"token_rotation_enabled"`
	} `json:"settings"`
}

// NewManifest is agno's manifest for the server at base (a validated
// BaseURL), its routes under prefix, the app and bot called name
// (DefaultAppName when empty).
func NewManifest(base, prefix, name string) Manifest {
	if name == "" {
		name = DefaultAppName
	}
	var m Manifest
	m.DisplayInformation.Name = name
	m.DisplayInformation.Description = defaultDescription
	m.Features.AppHome.MessagesTabEnabled = true
	m.Features.BotUser.DisplayName = name
	m.Features.BotUser.AlwaysOnline = true
	m.Features.AssistantView.AssistantDescription = assistantDescription
	m.Features.AssistantView.SuggestedPrompts = []string{}
	m.OAuthConfig.Scopes.Bot = append([]string(nil), BotScopes...)
	m.Settings.EventSubscriptions.RequestURL = base + prefix + eventsPath
	m.Settings.EventSubscriptions.BotEvents = append([]string(nil), BotEvents...)
	m.Settings.Interactivity.IsEnabled = true
	// agno's router takes button clicks on {prefix}/interactions.
	m.Settings.Interactivity.RequestURL = base + prefix + interactionsPath
	return m
}

// JSON is the manifest as agno's file writes it: 4-space indent, URLs
// unescaped, a final newline.
func (m Manifest) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(m); err != nil {
		panic(err) // plain strings and bools always encode
	}
	return b.Bytes()
}

// CheckName validates an app name for the manifest.
func CheckName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("slack: the app name is empty: give one (default %q)", DefaultAppName)
	}
	if n := len([]rune(name)); n > maxAppNameLen {
		return fmt.Errorf("slack: the app name %q is %d characters; Slack takes at most %d: shorten it", name, n, maxAppNameLen)
	}
	return nil
}

// BaseURL validates the server's public URL and returns it without a
// trailing slash. Slack only delivers to https URLs.
func BaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Scheme == "" {
		return "", fmt.Errorf("slack: %q is not a URL: give the public https URL Slack reaches this server at, such as \"https://my-tunnel.ngrok.app\"", raw)
	}
	if u.Scheme != "https" {
		return "", fmt.Errorf("slack: %q is not https: Slack only sends events to https URLs; use a tunnel (ngrok http 7777) or a TLS proxy and give its https URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("slack: %q has a query, fragment or user: give scheme://host[:port][/path] only", raw)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// requestBase is the URL a request came in on: the proxy's
// X-Forwarded-Proto/Host when set (tunnels and TLS proxies set them),
// else the connection's scheme and Host.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
		scheme = p
	}
	host := r.Host
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); h != "" && !strings.ContainsAny(h, "/ @") {
		host = h
	}
	return scheme + "://" + host
}

func firstValue(h string) string {
	v, _, _ := strings.Cut(h, ",")
	return strings.TrimSpace(v)
}

// ManifestRoute is the pattern of the manifest route under c.Prefix.
func (c *Config) ManifestRoute() string { return "GET " + c.Prefix + manifestRoutePath }

// ManifestRouteSummary documents ManifestRoute.
const ManifestRouteSummary = "Slack app manifest with this server's URLs"

// ServeManifest answers GET {prefix}/manifest.json: the manifest with
// the events and interactions URLs of PublicURL, or of the URL the
// request came in on when none is configured.
func (c *Config) ServeManifest(w http.ResponseWriter, r *http.Request) {
	base := requestBase(r)
	if c.PublicURL != "" {
		if b, err := BaseURL(c.PublicURL); err == nil {
			base = b
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(NewManifest(base, c.Prefix, "").JSON())
}
