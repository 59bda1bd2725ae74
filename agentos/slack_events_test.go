package agentos_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

const slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// slackCall is one Web API call the fake Slack received.
type slackCall struct {
	Method string
	Form   map[string]string
	Auth   string
	// TS is the ts the fake gave a posted message.
	TS string
}

// fakeSlack is a Slack Web API speaking its JSON ({"ok":true,...}).
type fakeSlack struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []slackCall
	got   chan slackCall
	// refuseStream answers chat.startStream with Slack's error JSON.
	refuseStream atomic.Bool
	posted       atomic.Int64
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{got: make(chan slackCall, 64)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Files: downloads need the bot token; uploads go to the URL
		// files.getUploadURLExternal gave.
		if name, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
			if r.Header.Get("Authorization") != "Bearer xoxb-test" {
				http.Error(w, "not authed", http.StatusForbidden)
				return
			}
			_, _ = io.WriteString(w, "bytes of "+name)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/upload/") {
			b, _ := io.ReadAll(r.Body)
			f.mu.Lock()
			f.calls = append(f.calls, slackCall{Method: "upload", Form: map[string]string{"path": r.URL.Path, "body": string(b)}})
			f.mu.Unlock()
			_, _ = io.WriteString(w, "OK - "+strconv.Itoa(len(b)))
			return
		}
		_ = r.ParseForm()
		c := slackCall{Method: strings.TrimPrefix(r.URL.Path, "/api/"), Form: map[string]string{}, Auth: r.Header.Get("Authorization")}
		for k := range r.Form {
			c.Form[k] = r.Form.Get(k)
		}
		if c.Method == "chat.postMessage" {
			// Every message gets its own ts: 1700000999.000100, .000101, …
			c.TS = fmt.Sprintf("1700000999.%06d", 100+f.posted.Add(1)-1)
		}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		select {
		case f.got <- c:
		default: // nobody waits: the calls are kept above
		}
		w.Header().Set("Content-Type", "application/json")
		switch c.Method {
		case "chat.postMessage":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": c.Form["channel"], "ts": c.TS,
				"message": map[string]any{"type": "message", "text": c.Form["text"], "thread_ts": c.Form["thread_ts"]}})
		case "chat.postEphemeral":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "message_ts": "1700000999.900000"})
		case "chat.delete":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": c.Form["channel"], "ts": c.Form["ts"]})
		case "files.getUploadURLExternal":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "upload_url": f.srv.URL + "/upload/F1", "file_id": "F1"})
		case "files.completeUploadExternal":
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "files": []any{map[string]any{"id": "F1", "title": "image.png"}}})
		case "assistant.threads.setStatus", "assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts":
			_, _ = io.WriteString(w, `{"ok":true}`)
		case "chat.startStream":
			if f.refuseStream.Load() {
				_, _ = io.WriteString(w, `{"ok":false,"error":"not_allowed_token_type"}`)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": c.Form["channel"], "ts": "1700000999.000200"})
		case "chat.appendStream", "chat.stopStream", "chat.update":
			if c.Form["ts"] == "" {
				_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_arguments"}`)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": c.Form["channel"], "ts": c.Form["ts"]})
		default:
			_, _ = io.WriteString(w, `{"ok":false,"error":"unknown_method"}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) posts() []slackCall { return f.only("chat.postMessage") }

// only is the calls of the given methods, in order.
func (f *fakeSlack) only(methods ...string) []slackCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []slackCall
	for _, c := range f.calls {
		if slices.Contains(methods, c.Method) {
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
	o     *agentos.OS
	store storage.Store
	url   string
	slack *fakeSlack
	seen  chan string // inputs the model saw
}

// pendingSlack stands for the Slack interface in a test's Config until
// newSlackEnv builds it (slack.New copies its config), so that a mod can
// still edit the config (slackConf).
type pendingSlack struct {
	agentos.Interface
	cfg *slack.Config
}

// slackConf is the Slack config of c's Slack interface, for a test to
// change before New.
func slackConf(c *agentos.Config) *slack.Config {
	for _, i := range c.Interfaces {
		if s, ok := i.(*pendingSlack); ok {
			return s.cfg
		}
	}
	panic("no Slack interface")
}

// newSlackEnv serves an agent behind a security key with the Slack
// interface pointed at a fake Web API, over real HTTP.
func newSlackEnv(t *testing.T, mentionsOnly bool, mods ...func(*agentos.Config)) *slackEnv {
	t.Helper()
	fs := newFakeSlack(t)
	seen := make(chan string, 16)
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1].Content
		seen <- last
		if strings.Contains(last, "fail") {
			return modeltest.Response{Err: errors.New("model down")}
		}
		if strings.Contains(last, "stream") {
			return modeltest.Response{Content: "Echo: " + last + strings.Repeat(" streamed tokens arrive in batches.", 12)}
		}
		return modeltest.Response{Content: "Echo: " + last}
	})
	store := memory.New()
	a := agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Helper", Model: m, Store: store})
	cfg := agentos.Config{Agents: []*agent.Agent{a}, Store: store, SecurityKey: "os-key",
		Interfaces: []agentos.Interface{&pendingSlack{cfg: &slack.Config{AgentID: "helper", Token: "xoxb-test", SigningSecret: slackSecret, ReplyToMentionsOnly: mentionsOnly, APIURL: fs.srv.URL + "/api/"}}}}
	for _, m := range mods {
		m(&cfg)
	}
	for i, in := range cfg.Interfaces {
		if p, ok := in.(*pendingSlack); ok {
			cfg.Interfaces[i] = slack.New(p.cfg)
		}
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		agentos.Drain(ctx, o)
		_ = o.Close()
	})
	return &slackEnv{o: o, store: cfg.Store, url: srv.URL, slack: fs, seen: seen}
}

// drain waits for every answer started to end.
func (e *slackEnv) drain(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ids := agentos.Drain(ctx, e.o); len(ids) > 0 {
		t.Fatalf("runs still going: %v", ids)
	}
}

// send posts body to the events URL signed at ts (now when 0); mod
// edits the request.
func (e *slackEnv) send(t *testing.T, body string, ts time.Time, mod func(*http.Request)) (int, string) {
	t.Helper()
	return e.signedPost(t, "/slack/events", "application/json", body, ts, mod)
}

// signedPost posts body to path signed as Slack does at ts (now when
// 0); mod edits the request.
func (e *slackEnv) signedPost(t *testing.T, path, contentType, body string, ts time.Time, mod func(*http.Request)) (int, string) {
	t.Helper()
	if ts.IsZero() {
		ts = time.Now()
	}
	req, err := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sec := strconv.FormatInt(ts.Unix(), 10)
	req.Header.Set("Content-Type", contentType)
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
	s, err := e.store.GetSession(context.Background(), "helper:1700000000.000100")
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
	if s, err := e.store.GetSession(context.Background(), "helper:1700000050.000001"); err != nil || s.UserID != "U456" {
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
	for name, mod := range map[string]func(*agentos.Config){
		"jwt": func(c *agentos.Config) {
			c.Authorization = &auth.Config{VerificationKeys: []string{"jwt-secret-jwt-secret-jwt-secret"}, Algorithm: "HS256"}
		},
		"protected": func(c *agentos.Config) { c.SecurityKey = "" },
	} {
		e := newSlackEnv(t, true, mod)
		remote := func(r *http.Request) { r.Header.Set("X-Forwarded-For", "203.0.113.9") }
		if code, body := e.send(t, eventCallback(mentionEvent), time.Time{}, remote); code != 200 {
			t.Fatalf("%s: %d %s", name, code, body)
		}
		e.slack.waitCleared(t)
		// So is the interactions route: its signature is its auth.
		form := "payload=" + url.QueryEscape(`{"type":"block_actions","actions":[]}`)
		if code, body := e.signedPost(t, "/slack/interactions", "application/x-www-form-urlencoded", form, time.Time{}, remote); code != 200 || body != `{"status":"ok"}` {
			t.Fatalf("%s: interactions %d %s", name, code, body)
		}
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

func streaming(c *agentos.Config) { slackConf(c).Streaming = true }

const streamMention = `{"type":"app_mention","user":"U123","text":"<@UBOT> stream please","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}`

var streamedAnswer = "Echo: <@UBOT> stream please" + strings.Repeat(" streamed tokens arrive in batches.", 12)

// With streaming on (agno's default) the answer is streamed in the
// thread: chat.startStream with the first batch, chat.appendStream, then
// chat.stopStream, in batches of 100+ characters, not per token.
func TestSlackEventsStreamedReply(t *testing.T) {
	e := newSlackEnv(t, true, streaming)
	if code, body := e.send(t, eventCallback(streamMention), time.Time{}, nil); code != 200 || body != `{"status":"ok"}` {
		t.Fatal(code, body)
	}
	e.drain(t)
	calls := e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream")
	if len(calls) < 3 || calls[0].Method != "chat.startStream" || calls[len(calls)-1].Method != "chat.stopStream" {
		t.Fatalf("stream calls %+v", calls)
	}
	start := calls[0].Form
	if start["channel"] != "C1" || start["thread_ts"] != "1700000000.000100" || start["recipient_user_id"] != "U123" || start["recipient_team_id"] != "T1" {
		t.Fatalf("startStream %v", start)
	}
	var got strings.Builder
	for i, c := range calls {
		if i > 0 && (c.Form["ts"] != "1700000999.000200" || c.Form["channel"] != "C1") {
			t.Fatalf("%s not on the stream: %v", c.Method, c.Form)
		}
		if c.Method != "chat.stopStream" && len(c.Form["markdown_text"]) < slack.StreamBufferSize {
			t.Fatalf("%s sent a batch under %d characters: %q", c.Method, slack.StreamBufferSize, c.Form["markdown_text"])
		}
		got.WriteString(c.Form["markdown_text"])
	}
	if got.String() != streamedAnswer {
		t.Fatalf("streamed %q\nwant     %q", got.String(), streamedAnswer)
	}
	if len(calls) > len(streamedAnswer)/slack.StreamBufferSize+2 {
		t.Fatalf("%d stream calls for %d characters: not batched", len(calls), len(streamedAnswer))
	}
	if p := e.slack.posts(); len(p) != 0 {
		t.Fatalf("posted as well: %+v", p)
	}
	if st := e.slack.only("assistant.threads.setStatus"); len(st) == 0 || st[0].Form["status"] != "Thinking..." {
		t.Fatalf("status %+v", st)
	}
	if tt := e.slack.only("assistant.threads.setTitle"); len(tt) != 1 || tt[0].Form["title"] != "<@UBOT> stream please" {
		t.Fatalf("title %+v", tt)
	}
}

// A short answer (under one batch) is one chat.startStream with all of
// it, then chat.stopStream.
func TestSlackEventsStreamedShortReply(t *testing.T) {
	e := newSlackEnv(t, true, streaming)
	if code, _ := e.send(t, eventCallback(mentionEvent), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	calls := e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream", "chat.postMessage")
	if len(calls) != 2 || calls[0].Method != "chat.startStream" || calls[1].Method != "chat.stopStream" ||
		calls[0].Form["markdown_text"] != "Echo: <@UBOT> what is up?" || calls[1].Form["markdown_text"] != "" || calls[1].Form["ts"] != "1700000999.000200" {
		t.Fatalf("calls %+v", calls)
	}
}

// When Slack refuses chat.startStream ({"ok":false,"error":...}) the
// answer is posted with chat.postMessage and edited with chat.update as
// it grows; the last edit is the whole answer.
func TestSlackEventsStreamRefusedFallsBack(t *testing.T) {
	e := newSlackEnv(t, true, streaming)
	e.slack.refuseStream.Store(true)
	if code, _ := e.send(t, eventCallback(streamMention), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	if n := len(e.slack.only("chat.startStream")); n != 1 {
		t.Fatalf("startStream tried %d times", n)
	}
	if n := len(e.slack.only("chat.appendStream", "chat.stopStream")); n != 0 {
		t.Fatalf("streamed after the refusal: %d calls", n)
	}
	posts := e.slack.posts()
	if len(posts) != 1 || posts[0].Form["channel"] != "C1" || posts[0].Form["thread_ts"] != "1700000000.000100" ||
		!strings.HasPrefix(streamedAnswer, posts[0].Form["text"]) || len(posts[0].Form["text"]) < slack.StreamBufferSize {
		t.Fatalf("posts %+v", posts)
	}
	ups := e.slack.only("chat.update")
	if len(ups) == 0 {
		t.Fatal("never updated")
	}
	for _, u := range ups {
		if u.Form["channel"] != "C1" || u.Form["ts"] != "1700000999.000100" {
			t.Fatalf("update %v", u.Form)
		}
	}
	if last := ups[len(ups)-1].Form["text"]; last != streamedAnswer {
		t.Fatalf("final text %q", last)
	}
}

// A failed run clears the status and posts agno's error text; nothing is
// streamed.
func TestSlackEventsStreamedRunError(t *testing.T) {
	e := newSlackEnv(t, true, streaming)
	ev := `{"type":"app_mention","user":"U123","text":"<@UBOT> fail now","ts":"1700000000.000100","channel":"C1"}`
	if code, _ := e.send(t, eventCallback(ev), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	if n := len(e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream")); n != 0 {
		t.Fatalf("%d stream calls", n)
	}
	posts := e.slack.posts()
	if len(posts) != 1 || !strings.HasPrefix(posts[0].Form["text"], slack.ErrorText) || posts[0].Form["thread_ts"] != "1700000000.000100" {
		t.Fatalf("posts %+v", posts)
	}
	st := e.slack.only("assistant.threads.setStatus")
	if len(st) != 2 || st[1].Form["status"] != "" {
		t.Fatalf("status %+v", st)
	}
}

// A team streams its own content (TeamRunContent), in the thread.
func TestSlackEventsStreamedTeam(t *testing.T) {
	e := newSlackEnv(t, true, streaming, func(c *agentos.Config) {
		member := agentos.NewAgent(t, agent.Config{ID: "member", Name: "Member", Model: modeltest.NewFunc(func(*model.Request) modeltest.Response {
			return modeltest.Response{Content: "member says hi"}
		})})
		tm := agentos.NewTeam(t, team.Config{ID: "crew", Name: "Crew", Members: []run.Executor{member}, Store: c.Store,
			Model: modeltest.NewFunc(func(*model.Request) modeltest.Response {
				return modeltest.Response{Content: streamedAnswer}
			})})
		c.Teams = append(c.Teams, tm)
		slackConf(c).AgentID, slackConf(c).TeamID = "", "crew"
	})
	if code, _ := e.send(t, eventCallback(streamMention), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	calls := e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream")
	var got strings.Builder
	for _, c := range calls {
		got.WriteString(c.Form["markdown_text"])
	}
	if len(calls) < 3 || calls[0].Form["thread_ts"] != "1700000000.000100" || got.String() != streamedAnswer {
		t.Fatalf("calls %+v", calls)
	}
}

// A workflow sends its final content through the stream.
func TestSlackEventsStreamedWorkflow(t *testing.T) {
	e := newSlackEnv(t, true, streaming, func(c *agentos.Config) {
		wf, err := workflow.New(workflow.Config{ID: "flow", Name: "Flow", Store: c.Store, Steps: []workflow.Node{
			&workflow.Step{Name: "answer", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
				return &workflow.StepOutput{Content: "flow answer"}, nil
			}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c.Workflows = append(c.Workflows, wf)
		slackConf(c).AgentID, slackConf(c).WorkflowID = "", "flow"
	})
	if code, _ := e.send(t, eventCallback(mentionEvent), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.drain(t)
	calls := e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream", "chat.postMessage")
	if len(calls) != 2 || calls[0].Method != "chat.startStream" || calls[0].Form["markdown_text"] != "flow answer" || calls[1].Method != "chat.stopStream" {
		t.Fatalf("calls %+v", calls)
	}
}
