package agentos

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
)

const slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// slackCall is one Web API call the fake Slack received.
type slackCall struct {
	Method string
	Form   map[string]string
	Auth   string
}

// fakeSlack is a Slack Web API speaking its JSON ({"ok":true,...}).
type fakeSlack struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []slackCall
	got   chan slackCall
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{got: make(chan slackCall, 64)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		c := slackCall{Method: strings.TrimPrefix(r.URL.Path, "/api/"), Form: map[string]string{}, Auth: r.Header.Get("Authorization")}
		for k := range r.Form {
			c.Form[k] = r.Form.Get(k)
		}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		f.got <- c
		w.Header().Set("Content-Type", "application/json")
		switch c.Method {
		case "chat.postMessage":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": c.Form["channel"], "ts": "1700000999.000100",
				"message": map[string]any{"type": "message", "text": c.Form["text"], "thread_ts": c.Form["thread_ts"]}})
		case "assistant.threads.setStatus":
			_, _ = io.WriteString(w, `{"ok":true}`)
		default:
			_, _ = io.WriteString(w, `{"ok":false,"error":"unknown_method"}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) posts() []slackCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []slackCall
	for _, c := range f.calls {
		if c.Method == "chat.postMessage" {
			out = append(out, c)
		}
	}
	return out
}

// waitCleared waits for the status clear that ends an answer.
func (f *fakeSlack) waitCleared(t *testing.T) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-f.got:
			if c.Method == "assistant.threads.setStatus" && c.Form["status"] == "" {
				return
			}
		case <-timeout:
			t.Fatal("no answer posted")
		}
	}
}

type slackEnv struct {
	o     *OS
	url   string
	slack *fakeSlack
	seen  chan string // inputs the model saw
}

// newSlackEnv serves an agent behind a security key with the Slack
// interface pointed at a fake Web API, over real HTTP.
func newSlackEnv(t *testing.T, mentionsOnly bool, mods ...func(*Config)) *slackEnv {
	t.Helper()
	fs := newFakeSlack(t)
	seen := make(chan string, 16)
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1].Content
		seen <- last
		return modeltest.Response{Content: "Echo: " + last}
	})
	store := memory.New()
	a := newAgent(t, agent.Config{ID: "helper", Name: "Helper", Model: m, Store: store})
	cfg := Config{Agents: []*agent.Agent{a}, Store: store, SecurityKey: "os-key",
		Slack: &slack.Config{AgentID: "helper", Token: "xoxb-test", SigningSecret: slackSecret, ReplyToMentionsOnly: mentionsOnly, APIURL: fs.srv.URL + "/api/"}}
	for _, m := range mods {
		m(&cfg)
	}
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		o.eng.Drain(ctx, errShutdown)
		_ = o.Close()
	})
	return &slackEnv{o: o, url: srv.URL, slack: fs, seen: seen}
}

// drain waits for every answer started to end.
func (e *slackEnv) drain(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ids := e.o.eng.Drain(ctx, errShutdown); len(ids) > 0 {
		t.Fatalf("runs still going: %v", ids)
	}
}

// send posts body to the events URL signed at ts (now when 0); mod
// edits the request.
func (e *slackEnv) send(t *testing.T, body string, ts time.Time, mod func(*http.Request)) (int, string) {
	t.Helper()
	if ts.IsZero() {
		ts = time.Now()
	}
	req, err := http.NewRequest(http.MethodPost, e.url+"/slack/events", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sec := strconv.FormatInt(ts.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slack-Request-Timestamp", sec)
	req.Header.Set("X-Slack-Signature", slack.Sign(slackSecret, []byte(body), sec))
	if mod != nil {
		mod(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func eventCallback(event string) string {
	return `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,"event":` + event + `}`
}

const (
	mentionEvent = `{"type":"app_mention","user":"U123","text":"<@UBOT> what is up?","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}`
	dmEvent      = `{"type":"message","channel_type":"im","user":"U456","text":"hello in DM","ts":"1700000100.000200","thread_ts":"1700000050.000001","channel":"D1"}`
)

func TestSlackEventsURLVerification(t *testing.T) {
	e := newSlackEnv(t, true)
	code, body := e.send(t, `{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`, time.Time{}, nil)
	if code != 200 || body != `{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}` {
		t.Fatal(code, body)
	}
}

func TestSlackEventsMentionAnsweredInThread(t *testing.T) {
	e := newSlackEnv(t, true)
	// No AgentOS key: the signature is the auth.
	code, body := e.send(t, eventCallback(mentionEvent), time.Time{}, nil)
	if code != 200 || body != `{"status":"ok"}` {
		t.Fatal(code, body)
	}
	e.slack.waitCleared(t)
	e.drain(t)
	if in := <-e.seen; in != "<@UBOT> what is up?" {
		t.Fatalf("model saw %q", in)
	}
	posts := e.slack.posts()
	if len(posts) != 1 {
		t.Fatalf("posts %+v", posts)
	}
	p := posts[0].Form
	if p["channel"] != "C1" || p["thread_ts"] != "1700000000.000100" || p["text"] != "Echo: <@UBOT> what is up?" {
		t.Fatalf("posted %v", p)
	}
	if posts[0].Auth != "Bearer xoxb-test" && posts[0].Form["token"] != "xoxb-test" {
		t.Fatalf("token not sent: %+v", posts[0])
	}
	s, err := e.o.cfg.Store.GetSession(context.Background(), "helper:1700000000.000100")
	if err != nil || s.UserID != "U123" {
		t.Fatalf("session %+v, %v", s, err)
	}
}

func TestSlackEventsDirectMessage(t *testing.T) {
	e := newSlackEnv(t, true)
	if code, _ := e.send(t, eventCallback(dmEvent), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.slack.waitCleared(t)
	e.drain(t)
	posts := e.slack.posts()
	if len(posts) != 1 || posts[0].Form["channel"] != "D1" || posts[0].Form["thread_ts"] != "1700000050.000001" || posts[0].Form["text"] != "Echo: hello in DM" {
		t.Fatalf("posts %+v", posts)
	}
	if s, err := e.o.cfg.Store.GetSession(context.Background(), "helper:1700000050.000001"); err != nil || s.UserID != "U456" {
		t.Fatalf("session %+v, %v", s, err)
	}
}

// Bot messages, edits, channel messages (mentions only) and retries are
// acknowledged and never run.
func TestSlackEventsIgnoredAndRetries(t *testing.T) {
	e := newSlackEnv(t, true)
	for name, ev := range map[string]string{
		"bot":         `{"type":"message","channel_type":"im","bot_id":"B1","user":"UBOT","text":"my own reply","ts":"1.1","channel":"D1"}`,
		"edit":        `{"type":"message","subtype":"message_changed","channel_type":"im","channel":"D1","ts":"1.2","message":{"user":"U1","text":"edited"}}`,
		"bot edit":    `{"type":"message","subtype":"message_changed","channel":"D1","ts":"1.3","message":{"bot_id":"B1","text":"edited"}}`,
		"deleted":     `{"type":"message","subtype":"message_deleted","channel_type":"im","channel":"D1","ts":"1.4"}`,
		"channel msg": `{"type":"message","channel_type":"channel","user":"U1","text":"chatter","ts":"1.5","channel":"C1"}`,
		"thread":      `{"type":"assistant_thread_started","assistant_thread":{"channel_id":"D1","thread_ts":"1.6"}}`,
	} {
		if code, body := e.send(t, eventCallback(ev), time.Time{}, nil); code != 200 || body != `{"status":"ok"}` {
			t.Fatalf("%s: %d %s", name, code, body)
		}
	}
	retry := func(r *http.Request) {
		r.Header.Set("X-Slack-Retry-Num", "1")
		r.Header.Set("X-Slack-Retry-Reason", "http_timeout")
	}
	if code, body := e.send(t, eventCallback(mentionEvent), time.Time{}, retry); code != 200 || body != `{"status":"ok"}` {
		t.Fatal(code, body)
	}
	e.drain(t)
	e.slack.mu.Lock()
	defer e.slack.mu.Unlock()
	if len(e.slack.calls) != 0 {
		t.Fatalf("Slack called: %+v", e.slack.calls)
	}
}

func TestSlackEventsSignature(t *testing.T) {
	e := newSlackEnv(t, true)
	body := eventCallback(mentionEvent)
	for name, c := range map[string]struct {
		ts     time.Time
		mod    func(*http.Request)
		status int
		detail string
	}{
		"bad signature": {mod: func(r *http.Request) { r.Header.Set("X-Slack-Signature", "v0="+strings.Repeat("0", 64)) }, status: 403, detail: "Invalid signature"},
		"other secret": {mod: func(r *http.Request) {
			r.Header.Set("X-Slack-Signature", slack.Sign("other", []byte(body), r.Header.Get("X-Slack-Request-Timestamp")))
		}, status: 403, detail: "Invalid signature"},
		"stale":         {ts: time.Now().Add(-6 * time.Minute), status: 403, detail: "Invalid signature"},
		"future":        {ts: time.Now().Add(6 * time.Minute), status: 403, detail: "Invalid signature"},
		"bad timestamp": {mod: func(r *http.Request) { r.Header.Set("X-Slack-Request-Timestamp", "soon") }, status: 403, detail: "Invalid signature"},
		"no timestamp":  {mod: func(r *http.Request) { r.Header.Del("X-Slack-Request-Timestamp") }, status: 400, detail: "Missing Slack headers"},
		"no signature":  {mod: func(r *http.Request) { r.Header.Del("X-Slack-Signature") }, status: 400, detail: "Missing Slack headers"},
		"AgentOS key too": {mod: func(r *http.Request) {
			r.Header.Set("X-Slack-Signature", "v0=00")
			r.Header.Set("Authorization", "Bearer os-key")
		}, status: 403, detail: "Invalid signature"},
	} {
		code, got := e.send(t, body, c.ts, c.mod)
		if code != c.status || got != `{"detail":"`+c.detail+`"}` {
			t.Errorf("%s: %d %s", name, code, got)
		}
	}
	// Within the window either way is fine.
	if code, _ := e.send(t, `{"type":"url_verification","challenge":"c"}`, time.Now().Add(-4*time.Minute), nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	if p := e.slack.posts(); len(p) != 0 {
		t.Fatalf("refused events ran: %+v", p)
	}
	// Only the events route is open: the manifest still needs the key.
	resp, err := http.Get(e.url + "/slack/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatal("manifest without key:", resp.StatusCode)
	}
}

// With reply_to_mentions_only off, channel messages are answered and a
// channel app_mention is left to its message event (no double answer).
func TestSlackEventsAllMessages(t *testing.T) {
	e := newSlackEnv(t, false)
	if code, _ := e.send(t, eventCallback(mentionEvent), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	ch := `{"type":"message","channel_type":"channel","user":"U1","text":"chatter","ts":"1700000200.000300","channel":"C2"}`
	if code, _ := e.send(t, eventCallback(ch), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.slack.waitCleared(t)
	e.drain(t)
	posts := e.slack.posts()
	if len(posts) != 1 || posts[0].Form["channel"] != "C2" || posts[0].Form["thread_ts"] != "1700000200.000300" {
		t.Fatalf("posts %+v", posts)
	}
}

// After shutdown began, an event is refused (503) rather than dropped
// silently.
func TestSlackEventsWhileDraining(t *testing.T) {
	e := newSlackEnv(t, true)
	e.drain(t)
	if code, body := e.send(t, eventCallback(mentionEvent), time.Time{}, nil); code != http.StatusServiceUnavailable {
		t.Fatal(code, body)
	}
}

// JWT mode and protected mode (no key) leave the events route to its
// signature too.
func TestSlackEventsOpenInJWTAndProtectedMode(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"jwt": func(c *Config) {
			c.Authorization = &auth.Config{VerificationKeys: []string{"jwt-secret-jwt-secret-jwt-secret"}, Algorithm: "HS256"}
		},
		"protected": func(c *Config) { c.SecurityKey = "" },
	} {
		e := newSlackEnv(t, true, mod)
		remote := func(r *http.Request) { r.Header.Set("X-Forwarded-For", "203.0.113.9") }
		if code, body := e.send(t, eventCallback(mentionEvent), time.Time{}, remote); code != 200 {
			t.Fatalf("%s: %d %s", name, code, body)
		}
		e.slack.waitCleared(t)
		e.drain(t)
		if p := e.slack.posts(); len(p) != 1 {
			t.Fatalf("%s: posts %+v", name, p)
		}
		resp, err := http.Get(e.url + "/slack/manifest.json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if name == "jwt" && resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("jwt: manifest %d", resp.StatusCode)
		}
		// Protected mode: a remote (forwarded) client still gets 403 there.
		req, _ := http.NewRequest(http.MethodGet, e.url+"/slack/manifest.json", nil)
		remote(req)
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if name == "protected" && resp.StatusCode != http.StatusForbidden {
			t.Fatalf("protected: remote manifest %d", resp.StatusCode)
		}
	}
}
