package slack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Slack's assistant_thread_started event (api.slack.com/events/assistant_thread_started).
const threadStartedBody = `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,
"event":{"type":"assistant_thread_started","assistant_thread":{"user_id":"U1","context":{"channel_id":"C9","team_id":"T2","enterprise_id":"E1"},
"channel_id":"D1","thread_ts":"1729999327.187299"},"event_ts":"1715873754.429808"}}`

// The event reaches ThreadStarted, which sets agno's default prompts in
// the thread through the Web API.
func TestThreadStartedSetsDefaultPrompts(t *testing.T) {
	f := newFakeSlack(t)
	c := &Config{AgentID: "a", SigningSecret: "s", Streaming: true, Token: fakeToken, APIURL: f.URL + "/api/"}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	var starts []ThreadStart
	e := &Events{Config: c, Start: func(Message) error { t.Error("a thread start was answered as a message"); return nil },
		ThreadStarted: func(ts ThreadStart) error {
			starts = append(starts, ts)
			return SetSuggestedPrompts(context.Background(), c.Client(), ts, c.Prompts())
		}}
	signedEvent(t, e, threadStartedBody)
	if want := []ThreadStart{{Channel: "D1", ThreadTS: "1729999327.187299", User: "U1", Team: "T1"}}; !reflect.DeepEqual(starts, want) {
		t.Fatalf("got %+v", starts)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.prompts) != 1 {
		t.Fatalf("setSuggestedPrompts called %d times", len(f.prompts))
	}
	v := f.prompts[0]
	if v.Get("channel_id") != "D1" || v.Get("thread_ts") != "1729999327.187299" || v.Has("title") {
		t.Fatalf("form %v", v)
	}
	var got []map[string]string
	if err := json.Unmarshal([]byte(v.Get("prompts")), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"title": "Help", "message": "What can you help me with?"},
		{"title": "Search", "message": "Search the web for..."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("prompts %v", got)
	}
}

func TestSetSuggestedPromptsCustom(t *testing.T) {
	f := newFakeSlack(t)
	prompts := []Prompt{{Title: "Plan", Message: "Plan my week"}, {Message: "Summarise the channel"}, {Title: "3", Message: "3"}, {Title: "4", Message: "4"}, {Title: "5", Message: "5"}}
	c := &Config{SuggestedPrompts: prompts}
	ts := ThreadStart{Channel: "D1", ThreadTS: "1.0"}
	if err := SetSuggestedPrompts(context.Background(), f.client(fakeToken), ts, c.Prompts()); err != nil {
		t.Fatal(err)
	}
	var got []Prompt
	f.mu.Lock()
	_ = json.Unmarshal([]byte(f.prompts[0].Get("prompts")), &got)
	f.mu.Unlock()
	// Slack shows four; a prompt without a title shows its message.
	want := []Prompt{{"Plan", "Plan my week"}, {"Summarise the channel", "Summarise the channel"}, {"3", "3"}, {"4", "4"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if err := SetSuggestedPrompts(context.Background(), f.client("xoxb-other"), ts, nil); err == nil || !strings.Contains(err.Error(), "invalid_auth") {
		t.Fatalf("wrong token: %v", err)
	}
	if err := SetSuggestedPrompts(context.Background(), f.client(fakeToken), ThreadStart{Channel: "D1"}, nil); err == nil {
		t.Fatal("no thread_ts accepted")
	}
}

// As agno: ignored when not streaming, without a callback, or without a
// thread to address; a busy server answers 503 for Slack to retry.
func TestThreadStartedIgnored(t *testing.T) {
	calls := 0
	cb := func(ThreadStart) error { calls++; return nil }
	start := func(Message) error { t.Error("answered as a message"); return nil }
	for name, e := range map[string]*Events{
		"not streaming": {Config: &Config{AgentID: "a", SigningSecret: "s"}, Start: start, ThreadStarted: cb},
		"no callback":   {Config: &Config{AgentID: "a", SigningSecret: "s", Streaming: true}, Start: start},
	} {
		signedEvent(t, e, threadStartedBody)
		if calls != 0 {
			t.Fatalf("%s: called", name)
		}
	}
	e := &Events{Config: &Config{AgentID: "a", SigningSecret: "s", Streaming: true}, Start: start, ThreadStarted: cb}
	signedEvent(t, e, `{"type":"event_callback","event":{"type":"assistant_thread_started","assistant_thread":{"user_id":"U1"}}}`)
	if calls != 0 {
		t.Fatal("called without a thread")
	}

	e.ThreadStarted = func(ThreadStart) error { return ErrBusy }
	send := func(sig func(ts string) string) int {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		r := httptest.NewRequest("POST", "/slack/events", strings.NewReader(threadStartedBody))
		r.Header.Set("X-Slack-Request-Timestamp", ts)
		r.Header.Set("X-Slack-Signature", sig(ts))
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w.Code
	}
	if code := send(func(ts string) string { return Sign("s", []byte(threadStartedBody), ts) }); code != http.StatusServiceUnavailable {
		t.Fatalf("busy: %d", code)
	}
	// Unsigned: refused before the callback.
	e.ThreadStarted = cb
	if code := send(func(string) string { return "v0=00" }); code != http.StatusForbidden || calls != 0 {
		t.Fatalf("unsigned: %d, %d calls", code, calls)
	}
}
