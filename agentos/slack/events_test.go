package slack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Slack's documented example (api.slack.com/authentication/verifying-requests-from-slack).
func TestVerifySlackExample(t *testing.T) {
	const (
		secret = "8f742231b10e8888abcd99yyyzzz85a5"
		ts     = "1531420618"
		body   = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
		sig    = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
	)
	at := time.Unix(1531420618, 0)
	if Sign(secret, []byte(body), ts) != sig || !Verify(secret, []byte(body), ts, sig, at) {
		t.Fatal("Slack's example does not verify")
	}
	for name, ok := range map[string]bool{
		"stale":  Verify(secret, []byte(body), ts, sig, at.Add(5*time.Minute+time.Second)),
		"future": Verify(secret, []byte(body), ts, sig, at.Add(-5*time.Minute-time.Second)),
		"body":   Verify(secret, []byte(body+"x"), ts, sig, at),
		"secret": Verify("other", []byte(body), ts, sig, at),
		"empty":  Verify("", []byte(body), ts, Sign("", []byte(body), ts), at),
		"ts":     Verify(secret, []byte(body), "1531420618.5", sig, at),
	} {
		if ok {
			t.Errorf("%s verified", name)
		}
	}
	if !Verify(secret, []byte(body), ts, sig, at.Add(5*time.Minute)) {
		t.Fatal("edge of the window refused")
	}
}

// agno's helpers.should_respond truth table.
func TestShouldRespond(t *testing.T) {
	for _, c := range []struct {
		typ, channel string
		only, want   bool
	}{
		{"app_mention", "channel", true, true},
		{"message", "im", true, true},
		{"message", "channel", true, false},
		{"message", "channel", false, true},
		{"app_mention", "channel", false, false},
		{"app_mention", "im", false, true},
		{"reaction_added", "im", true, false},
	} {
		if got := shouldRespond(c.typ, c.channel, c.only); got != c.want {
			t.Errorf("%+v: %v", c, got)
		}
	}
}

func TestEventsHandler(t *testing.T) {
	c := &Config{WorkflowID: "wf", SigningSecret: "s", ReplyToMentionsOnly: true}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	var got []Message
	e := &Events{Config: c, Start: func(m Message) error { got = append(got, m); return nil }}
	send := func(body string) *httptest.ResponseRecorder {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		r := httptest.NewRequest("POST", "/slack/events", strings.NewReader(body))
		r.Header.Set("X-Slack-Request-Timestamp", ts)
		r.Header.Set("X-Slack-Signature", Sign("s", []byte(body), ts))
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w
	}
	w := send(`{"type":"event_callback","event":{"type":"app_mention","user":"U1","text":"hi","ts":"2.0","thread_ts":"1.0","channel":"C1"}}`)
	if w.Code != 200 || w.Body.String() != `{"status":"ok"}` {
		t.Fatal(w.Code, w.Body)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], Message{Text: "hi", Channel: "C1", User: "U1", ThreadTS: "1.0", SessionID: "wf:1.0"}) {
		t.Fatalf("%+v", got)
	}
	if w := send(`{not json`); w.Code != 400 {
		t.Fatal(w.Code)
	}
	if w := send(`{"type":"x","pad":"` + strings.Repeat("a", maxEventBytes) + `"}`); w.Code != http.StatusRequestEntityTooLarge {
		t.Fatal(w.Code)
	}
	e.Start = func(Message) error { return ErrBusy }
	if w := send(`{"event":{"type":"app_mention","ts":"3.0","channel":"C1"}}`); w.Code != 503 {
		t.Fatal(w.Code)
	}
}

// Post speaks chat.postMessage and splits long text as agno does.
func TestPostSplits(t *testing.T) {
	var mu sync.Mutex
	var texts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		if r.URL.Path == "/api/chat.postMessage" && r.Form.Get("thread_ts") == "1.0" && r.Form.Get("channel") == "C1" {
			texts = append(texts, r.Form.Get("text"))
		}
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": "C1", "ts": "9.0"})
	}))
	defer srv.Close()
	c := &Config{AgentID: "a", Token: "xoxb", APIURL: srv.URL + "/api"}
	api, m := c.Client(), Message{Channel: "C1", ThreadTS: "1.0"}
	ctx := context.Background()
	if err := Post(ctx, api, m, "  \n"); err != nil {
		t.Fatal(err)
	}
	if err := Post(ctx, api, m, "short"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", maxMessageRune+5)
	if err := Post(ctx, api, m, long); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != 3 || texts[0] != "short" || texts[1] != "[1/2] "+strings.Repeat("é", maxMessageRune) || texts[2] != "[2/2] ééééé" {
		t.Fatalf("%d posts", len(texts))
	}
	if Reasoning("a\nb") != "*Reasoning:*\n> a\n> b" {
		t.Fatal(Reasoning("a\nb"))
	}
}
