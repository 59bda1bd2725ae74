package agentos_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/interfacetest"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/tool"
)

// The Slack interface passes the interface conformance suite.

func TestSlackConformance(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		e := newSlackEnv(t, true, func(c *agentos.Config) {
			c.Agents = []*agent.Agent{agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Helper", Model: f.Model, Store: c.Store, Tools: []tool.Provider{f.Pay}})}
		})
		return &slackDriver{e: e, sent: map[string]string{}, threads: map[string]string{}, cards: map[string]slackCall{}}
	})
}

// slackDriver mentions the bot in a new thread per message and answers
// pauses with the card's Approve button.
type slackDriver struct {
	e       *slackEnv
	n       int
	sent    map[string]string    // delivery id → its event body
	threads map[string]string    // card ts → its thread
	cards   map[string]slackCall // card ts → the card
}

func (d *slackDriver) event(id, text, ts string) string {
	ev, _ := json.Marshal(map[string]any{"type": "app_mention", "user": "U123", "text": "<@UBOT> " + text, "ts": ts, "channel": "C1", "event_ts": ts})
	return `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"` + id + `","event_time":1700000000,"event":` + string(ev) + `}`
}

func (d *slackDriver) Refuse(t *testing.T, text string) int {
	code, _ := d.e.send(t, d.event("Ev-bad", text, "1700000200.000100"), time.Time{}, func(r *http.Request) { r.Header.Set("X-Slack-Signature", "v0=00") })
	return code
}

// replies are the text messages posted in the thread (not the pause's).
func (d *slackDriver) replies(thread string) []slackCall {
	var out []slackCall
	for _, c := range d.e.slack.posts() {
		if c.Form["thread_ts"] == thread && c.Form["blocks"] == "" && !strings.HasPrefix(c.Form["text"], "⏸") {
			out = append(out, c)
		}
	}
	return out
}

func (d *slackDriver) Send(t *testing.T, id, text string) interfacetest.Reply {
	t.Helper()
	d.n++
	ts := fmt.Sprintf("17000003%02d.000100", d.n)
	body := d.event(id, text, ts)
	d.sent[id] = body
	if code, out := d.e.send(t, body, time.Time{}, nil); code != http.StatusOK {
		t.Fatal(code, out)
	}
	c := d.e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool {
		return c.Form["thread_ts"] == ts && !strings.HasPrefix(c.Form["text"], "⏸")
	})
	if c.Form["blocks"] != "" {
		d.cards[c.TS], d.threads[c.TS] = c, ts
		return interfacetest.Reply{Paused: true, Ref: c.TS}
	}
	return interfacetest.Reply{Text: c.Form["text"]}
}

func (d *slackDriver) Redeliver(t *testing.T, id, _ string) bool {
	t.Helper()
	if code, out := d.e.send(t, d.sent[id], time.Time{}, nil); code != http.StatusOK {
		t.Fatal(code, out)
	}
	return true
}

func (d *slackDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	t.Helper()
	card, thread := d.cards[p.Ref], d.threads[p.Ref]
	posted, notes := len(d.replies(thread)), len(d.e.slack.only("chat.postEphemeral"))
	if code, out := d.e.clickIn(t, thread, card.TS, blocksOf(t, card), slack.ActionApprove, nil); code != http.StatusOK {
		t.Fatal(code, out)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if r := d.replies(thread); len(r) > posted {
			return interfacetest.Reply{Text: r[posted].Form["text"]}
		}
		if n := d.e.slack.only("chat.postEphemeral"); len(n) > notes {
			return interfacetest.Reply{Text: n[notes].Form["text"]}
		}
	}
	t.Fatal("the click was not answered")
	return interfacetest.Reply{}
}
