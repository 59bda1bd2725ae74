package agentos_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

const payMention = `{"type":"app_mention","user":"U123","text":"<@UBOT> pay 42","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}`

// cashierEnv is the Slack env with "helper" a cashier: its pay tool
// needs a confirmation, its transfer tool needs the amount typed in.
type cashierEnv struct {
	*slackEnv
	paid *atomic.Int64
	// answers are the tool results the model saw, in order.
	answers chan string
}

func newCashierEnv(t *testing.T, mods ...func(*agentos.Config)) *cashierEnv {
	t.Helper()
	paid := &atomic.Int64{}
	answers := make(chan string, 16)
	pay := agentos.PayTool(paid)
	transfer := tool.Must(tool.New("transfer", "transfer an amount typed by the user", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int64(a.Amount))
		return "transferred " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresUserInput("amount")))
	lookup := tool.Must(tool.New("lookup", "look up the balance", func(context.Context, struct{}) (string, error) {
		return "balance 100", nil
	}))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			answers <- last.Content
			return modeltest.Response{Content: "Done: " + last.Content}
		}
		switch {
		case strings.Contains(last.Content, "transfer"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "transfer", `{}`)}}
		case strings.Contains(last.Content, "balance"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "lookup", `{}`)}}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":42}`)}}
	})
	env := newSlackEnv(t, true, append([]func(*agentos.Config){func(c *agentos.Config) {
		c.Agents = []*agent.Agent{agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Cashier", Model: m, Store: c.Store,
			Tools: []tool.Provider{pay, transfer, lookup}})}
	}}, mods...)...)
	return &cashierEnv{slackEnv: env, paid: paid, answers: answers}
}

// waitCall waits for the first call of method that ok accepts, from the
// nth such call on.
func (f *fakeSlack) waitCall(t *testing.T, method string, ok func(slackCall) bool) slackCall {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range f.only(method) {
			if ok == nil || ok(c) {
				return c
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s call came; calls: %+v", method, f.only(method))
	return slackCall{}
}

// blocks decodes a call's Block Kit blocks.
func blocksOf(t *testing.T, c slackCall) []map[string]any {
	t.Helper()
	var b []map[string]any
	if err := json.Unmarshal([]byte(c.Form["blocks"]), &b); err != nil {
		t.Fatalf("%s blocks %q: %v", c.Method, c.Form["blocks"], err)
	}
	return b
}

// button finds the button with actionID in blocks.
func button(blocks []map[string]any, actionID string) (blockID, value string, ok bool) {
	for _, b := range blocks {
		if b["type"] != "actions" {
			continue
		}
		for _, el := range b["elements"].([]any) {
			e := el.(map[string]any)
			if e["action_id"] == actionID {
				return b["block_id"].(string), e["value"].(string), true
			}
		}
	}
	return "", "", false
}

func blockIDs(blocks []map[string]any) []string {
	var ids []string
	for _, b := range blocks {
		if id, ok := b["block_id"].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// click sends Slack's block_actions payload for a click on the card
// message cardTS showing blocks, with the typed state values.
func (e *slackEnv) click(t *testing.T, cardTS string, blocks []map[string]any, actionID string, state map[string]any) (int, string) {
	t.Helper()
	return e.clickIn(t, "1700000000.000100", cardTS, blocks, actionID, state)
}

// clickIn is click on a card in the thread threadTS.
func (e *slackEnv) clickIn(t *testing.T, threadTS, cardTS string, blocks []map[string]any, actionID string, state map[string]any) (int, string) {
	t.Helper()
	blockID, value, ok := button(blocks, actionID)
	if !ok {
		t.Fatalf("no %s button on the card: %v", actionID, blockIDs(blocks))
	}
	if state == nil {
		state = map[string]any{}
	}
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": "U999", "name": "approver"}, "team": map[string]any{"id": "T1"},
		"channel": map[string]any{"id": "C1"}, "container": map[string]any{"type": "message", "message_ts": cardTS, "channel_id": "C1"},
		"message": map[string]any{"type": "message", "ts": cardTS, "thread_ts": threadTS, "blocks": blocks},
		"state":   map[string]any{"values": state},
		"actions": []any{map[string]any{"type": "button", "action_id": actionID, "block_id": blockID, "value": value, "action_ts": "1700000100.1"}},
	})
	return e.sendInteraction(t, "payload="+url.QueryEscape(string(payload)), time.Now(), "")
}

// sendInteraction posts a form body to the interactions route, signed
// at ts (sig, when set, replaces the signature).
func (e *slackEnv) sendInteraction(t *testing.T, body string, ts time.Time, sig string) (int, string) {
	t.Helper()
	return e.signedPost(t, "/slack/interactions", "application/x-www-form-urlencoded", body, ts, func(r *http.Request) {
		if sig != "" {
			r.Header.Set("X-Slack-Signature", sig)
		}
	})
}

// pausedCard waits for the mention's pause: the awaiting indicator and
// the card, which it returns.
func (e *cashierEnv) pausedCard(t *testing.T, event string) (awaiting, card slackCall) {
	t.Helper()
	if code, body := e.send(t, eventCallback(event), time.Time{}, nil); code != 200 {
		t.Fatal(code, body)
	}
	card = e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool { return c.Form["blocks"] != "" })
	for _, p := range e.slack.posts() {
		if strings.HasPrefix(p.Form["text"], "⏸") {
			awaiting = p
		}
	}
	if awaiting.Form == nil || card.Form["thread_ts"] != "1700000000.000100" || card.Form["text"] != slack.CardText {
		t.Fatalf("pause messages: awaiting %+v card %+v", awaiting, card)
	}
	return awaiting, card
}

func (e *slackEnv) storedStatus(t *testing.T, runID string) run.Status {
	t.Helper()
	rec, err := e.store.GetRun(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Status
}

// The full round trip: mention → paused card → Approve → the tool runs
// → the final answer in the thread; the card is frozen, the indicator
// deleted, and a second click changes nothing.
func TestSlackApprovalRoundTrip(t *testing.T) {
	e := newCashierEnv(t)
	awaiting, card := e.pausedCard(t, payMention)
	if awaiting.Form["text"] != "⏸ *Awaiting approval of* `pay`…" || awaiting.Form["thread_ts"] != "1700000000.000100" {
		t.Fatalf("awaiting %v", awaiting.Form)
	}
	blocks := blocksOf(t, card)
	ids := blockIDs(blocks)
	_, value, _ := button(blocks, slack.ActionApprove)
	parts := strings.Split(value, "|")
	if len(parts) != 3 || parts[2] != "1700000999.000100" {
		t.Fatalf("button value %q: want {req_id}|{run_id}|{awaiting_ts}", value)
	}
	reqID, runID := parts[0], parts[1]
	if !slices.Contains(ids, "row:"+reqID+":confirmation:pending") || !slices.Contains(ids, "rowact:"+reqID+":confirmation") {
		t.Fatalf("card block ids %v", ids)
	}
	if _, _, ok := button(blocks, slack.ActionSubmit); ok {
		t.Fatal("a confirmation-only card has no Submit")
	}
	if !strings.Contains(card.Form["blocks"], "amount") || !strings.Contains(card.Form["blocks"], "42") {
		t.Fatalf("card does not show the arguments: %s", card.Form["blocks"])
	}
	if e.paid.Load() != 0 || e.storedStatus(t, runID) != run.StatusPaused {
		t.Fatal("ran before approval")
	}

	if code, body := e.click(t, card.TS, blocks, slack.ActionApprove, nil); code != 200 || body != `{"status":"ok"}` {
		t.Fatal(code, body)
	}
	final := e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool { return strings.HasPrefix(c.Form["text"], "Done:") })
	if final.Form["text"] != "Done: paid 42" || final.Form["thread_ts"] != "1700000000.000100" || final.Form["channel"] != "C1" {
		t.Fatalf("final answer %v", final.Form)
	}
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d", e.paid.Load())
	}
	frozen := e.slack.waitCall(t, "chat.update", func(c slackCall) bool { return c.Form["text"] == slack.SubmittedText })
	if frozen.Form["ts"] != card.TS || strings.Contains(frozen.Form["blocks"], `"actions"`) || !strings.Contains(frozen.Form["blocks"], "Approved") {
		t.Fatalf("card not frozen: %v", frozen.Form)
	}
	del := e.slack.waitCall(t, "chat.delete", nil)
	if del.Form["ts"] != awaiting.TS {
		t.Fatalf("deleted %v, want the awaiting message %s", del.Form, awaiting.TS)
	}
	waitSlackStatus(t, e.slackEnv, runID, run.StatusCompleted)

	// A replayed click finds the run answered: an ephemeral note, no run.
	if code, _ := e.click(t, card.TS, blocks, slack.ActionApprove, nil); code != 200 {
		t.Fatal(code)
	}
	eph := e.slack.waitCall(t, "chat.postEphemeral", nil)
	if eph.Form["user"] != "U999" || !strings.Contains(eph.Form["text"], "no longer waiting") {
		t.Fatalf("ephemeral %v", eph.Form)
	}
	e.drain(t)
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d after a replay", e.paid.Load())
	}
}

// waitSlackStatus waits for the stored run to have the status.
func waitSlackStatus(t *testing.T, e *slackEnv, runID string, want run.Status) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if e.storedStatus(t, runID) == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("run %s is %s, want %s", runID, e.storedStatus(t, runID), want)
}

// Deny adds a reason input and Submit; Submit continues the run with the
// rejection (the tool never runs), streamed with agno's "Denied:" card.
func TestSlackRejectWithReasonStreamed(t *testing.T) {
	e := newCashierEnv(t, streaming)
	_, card := e.pausedCard(t, payMention)
	// Nothing was streamed before the pause: the status is cleared.
	e.slack.waitCall(t, "assistant.threads.setStatus", func(c slackCall) bool { return c.Form["status"] == "" })
	blocks := blocksOf(t, card)
	if code, _ := e.click(t, card.TS, blocks, slack.ActionReject, nil); code != 200 {
		t.Fatal(code)
	}
	redrawn := e.slack.waitCall(t, "chat.update", func(c slackCall) bool { return c.Form["text"] == "Rejection pending" })
	rb := blocksOf(t, redrawn)
	_, value, _ := button(blocks, slack.ActionReject)
	reqID, runID := strings.Split(value, "|")[0], strings.Split(value, "|")[1]
	ids := blockIDs(rb)
	if !slices.Contains(ids, "row:"+reqID+":confirmation:decided:reject") || !slices.Contains(ids, "reject_reason:"+reqID) || !slices.Contains(ids, "pause:"+runID) {
		t.Fatalf("redrawn card ids %v", ids)
	}
	if _, v, _ := button(rb, slack.ActionSubmit); v != runID+"|1700000999.000100" {
		t.Fatalf("submit value %q: want {run_id}|{awaiting_ts}", v)
	}
	if e.storedStatus(t, runID) != run.StatusPaused {
		t.Fatal("a rejection click alone must not answer the run")
	}
	state := map[string]any{"reject_reason:" + reqID: map[string]any{"reject_reason": map[string]any{"type": "plain_text_input", "value": "too much"}}}
	if code, _ := e.click(t, redrawn.Form["ts"], rb, slack.ActionSubmit, state); code != 200 {
		t.Fatal(code)
	}
	if got := <-e.answers; !strings.Contains(got, "too much") {
		t.Fatalf("the model saw %q, want the rejection with its reason", got)
	}
	waitSlackStatus(t, e.slackEnv, runID, run.StatusCompleted)
	e.drain(t)
	if e.paid.Load() != 0 {
		t.Fatal("a rejected tool ran")
	}
	var denied bool
	for _, c := range e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream") {
		if strings.Contains(c.Form["chunks"], `"id":"approval:`+reqID+`"`) && strings.Contains(c.Form["chunks"], "Denied: pay(amount=42)") {
			denied = true
		}
	}
	if !denied {
		t.Fatalf("no Denied task card: %+v", e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream"))
	}
}

// A pause answered over HTTP makes the card read-only (no live
// buttons) and deletes the indicator; a click then only explains.
func TestSlackCardAnsweredElsewhere(t *testing.T) {
	e := newCashierEnv(t)
	awaiting, card := e.pausedCard(t, payMention)
	_, value, _ := button(blocksOf(t, card), slack.ActionApprove)
	runID := strings.Split(value, "|")[1]
	form := url.Values{"session_id": {"helper:1700000000.000100"}, "stream": {"false"},
		"tools": {`[{"tool_call_id":"c1","tool_name":"pay","tool_args":{"amount":42},"confirmed":true}]`}}
	req, _ := http.NewRequest(http.MethodPost, e.url+"/agents/helper/runs/"+runID+"/continue", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer os-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode, string(b))
	}
	frozen := e.slack.waitCall(t, "chat.update", func(c slackCall) bool { return c.Form["ts"] == card.TS })
	if strings.Contains(frozen.Form["blocks"], `"actions"`) || !strings.Contains(frozen.Form["blocks"], "Answered outside Slack") {
		t.Fatalf("card left live: %v", frozen.Form)
	}
	if del := e.slack.waitCall(t, "chat.delete", nil); del.Form["ts"] != awaiting.TS {
		t.Fatalf("deleted %v", del.Form)
	}
	if code, _ := e.click(t, card.TS, blocksOf(t, card), slack.ActionApprove, nil); code != 200 {
		t.Fatal(code)
	}
	if eph := e.slack.waitCall(t, "chat.postEphemeral", nil); !strings.Contains(eph.Form["text"], "COMPLETED") {
		t.Fatalf("ephemeral %v", eph.Form)
	}
	e.drain(t)
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d: want once", e.paid.Load())
	}
}

// A user-input pause gets input fields and Submit; an invalid value is
// answered with an ephemeral error and leaves the run paused; a valid
// one continues it.
func TestSlackUserInputValidated(t *testing.T) {
	e := newCashierEnv(t)
	_, card := e.pausedCard(t, strings.Replace(payMention, "pay 42", "transfer please", 1))
	blocks := blocksOf(t, card)
	_, value, ok := button(blocks, slack.ActionSubmit)
	if !ok {
		t.Fatalf("no Submit on a user-input card: %v", blockIDs(blocks))
	}
	runID := strings.Split(value, "|")[0]
	var fieldBlock string
	for _, id := range blockIDs(blocks) {
		if strings.HasSuffix(id, ":user_input:pending:amount") {
			fieldBlock = id
		}
	}
	if fieldBlock == "" || !strings.Contains(card.Form["blocks"], `"action_id":"input_field:amount"`) {
		t.Fatalf("no amount field: %v", blockIDs(blocks))
	}
	typed := func(v string) map[string]any {
		return map[string]any{fieldBlock: map[string]any{"input_field:amount": map[string]any{"type": "plain_text_input", "value": v}}}
	}
	if code, _ := e.click(t, card.TS, blocks, slack.ActionSubmit, typed("forty")); code != 200 {
		t.Fatal(code)
	}
	eph := e.slack.waitCall(t, "chat.postEphemeral", nil)
	if !strings.HasPrefix(eph.Form["text"], "Please fix the following and submit again:\n* amount: ") {
		t.Fatalf("ephemeral %q", eph.Form["text"])
	}
	if e.storedStatus(t, runID) != run.StatusPaused {
		t.Fatal("an invalid answer moved the run")
	}
	if code, _ := e.click(t, card.TS, blocks, slack.ActionSubmit, typed("7")); code != 200 {
		t.Fatal(code)
	}
	if got := <-e.answers; got != "transferred 7" {
		t.Fatalf("tool result %q", got)
	}
	waitSlackStatus(t, e.slackEnv, runID, run.StatusCompleted)
	e.drain(t)
}

// Streamed replies show tool calls as task cards, in progress then
// complete, in agno's plan display mode.
func TestSlackStreamedToolTaskCards(t *testing.T) {
	e := newCashierEnv(t, streaming)
	if code, _ := e.send(t, eventCallback(strings.Replace(payMention, "pay 42", "balance?", 1)), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.slack.waitCall(t, "chat.stopStream", nil)
	e.drain(t)
	calls := e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream")
	if calls[0].Form["task_display_mode"] != "plan" {
		t.Fatalf("startStream %v", calls[0].Form)
	}
	var statuses []string
	var text strings.Builder
	for _, c := range calls {
		text.WriteString(c.Form["markdown_text"])
		if c.Form["chunks"] == "" {
			continue
		}
		var chunks []map[string]any
		if err := json.Unmarshal([]byte(c.Form["chunks"]), &chunks); err != nil {
			t.Fatal(err)
		}
		for _, ch := range chunks {
			if ch["type"] != "task_update" || ch["id"] != "c1" || ch["title"] != "lookup" {
				t.Fatalf("chunk %v", ch)
			}
			statuses = append(statuses, ch["status"].(string))
		}
	}
	if !slices.Equal(statuses, []string{"in_progress", "complete"}) {
		t.Fatalf("task statuses %v", statuses)
	}
	if text.String() != "Done: balance 100" {
		t.Fatalf("streamed %q", text.String())
	}
}

// The interactions route is signed like events and open only to Slack.
func TestSlackInteractionsSignature(t *testing.T) {
	e := newCashierEnv(t)
	body := "payload=" + url.QueryEscape(`{"type":"block_actions","actions":[]}`)
	if code, _ := e.sendInteraction(t, body, time.Now(), "v0=bad"); code != http.StatusForbidden {
		t.Fatalf("bad signature: %d", code)
	}
	if code, _ := e.sendInteraction(t, body, time.Now().Add(-6*time.Minute), ""); code != http.StatusForbidden {
		t.Fatalf("stale: %d", code)
	}
	req, _ := http.NewRequest(http.MethodPost, e.url+"/slack/interactions", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no headers: %d", resp.StatusCode)
	}
	if code, b := e.sendInteraction(t, body, time.Now(), ""); code != 200 || b != `{"status":"ok"}` {
		t.Fatalf("signed, no action: %d %s", code, b)
	}
	if code, _ := e.sendInteraction(t, "nothing=here", time.Now(), ""); code != http.StatusBadRequest {
		t.Fatalf("no payload: %d", code)
	}
}

// Files shared with a mention reach the model as media (one too large
// is named to it instead); images the run makes are uploaded into the
// thread.
func TestSlackFilesInAndOut(t *testing.T) {
	seen := make(chan model.Message, 4)
	draw := tool.Must(tool.New("draw", "draw a picture", func(context.Context, struct{}) (tool.Result, error) {
		return tool.Result{Content: "drawn", Images: []model.Image{{Content: []byte("\x89PNG fake"), MimeType: "image/png"}}}, nil
	}))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleUser && len(req.Messages) <= 2 {
			seen <- last
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "draw", `{}`)}}
		}
		return modeltest.Response{Content: "Here is your picture"}
	})
	e := newSlackEnv(t, true, func(c *agentos.Config) {
		c.Agents = []*agent.Agent{agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Artist", Model: m, Store: c.Store, Tools: []tool.Provider{draw}})}
		slackConf(c).MaxFileSize = 1 << 20
	})
	files := `[{"id":"F0","name":"cat.png","mimetype":"image/png","size":16,"url_private_download":"` + e.slack.srv.URL + `/files/cat.png"},` +
		`{"id":"F2","name":"notes.txt","mimetype":"text/plain","size":18,"url_private":"` + e.slack.srv.URL + `/files/notes.txt"},` +
		`{"id":"F3","name":"huge.bin","mimetype":"application/octet-stream","size":1099511627776,"url_private":"` + e.slack.srv.URL + `/files/huge.bin"}]`
	event := strings.Replace(payMention, `"channel":"C1"`, `"channel":"C1","files":`+files, 1)
	if code, body := e.send(t, eventCallback(event), time.Time{}, nil); code != 200 {
		t.Fatal(code, body)
	}
	var msg model.Message
	select {
	case msg = <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was not called")
	}
	if len(msg.Images) != 1 || string(msg.Images[0].Content) != "bytes of cat.png" || msg.Images[0].MimeType != "image/png" {
		t.Fatalf("images %+v", msg.Images)
	}
	if len(msg.Files) != 1 || !strings.Contains(msg.Content, "huge.bin") || !strings.Contains(msg.Content, "pay 42") {
		t.Fatalf("files %+v, text %q", msg.Files, msg.Content)
	}
	done := e.slack.waitCall(t, "files.completeUploadExternal", nil)
	if !strings.Contains(done.Form["files"], "F1") || done.Form["channel_id"] != "C1" || done.Form["thread_ts"] != "1700000000.000100" {
		t.Fatalf("upload completed %v", done.Form)
	}
	if up := e.slack.waitCall(t, "upload", nil); !strings.Contains(up.Form["body"], "\x89PNG fake") {
		t.Fatalf("uploaded %q", up.Form["body"])
	}
	e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool { return c.Form["text"] == "Here is your picture" })
	e.drain(t)
}

// A new assistant thread gets agno's suggested prompts (streaming on).
func TestSlackSuggestedPrompts(t *testing.T) {
	e := newSlackEnv(t, true, streaming)
	ev := `{"type":"assistant_thread_started","assistant_thread":{"user_id":"U1","channel_id":"D1","thread_ts":"1700000300.000001","context":{}},"event_ts":"1700000300.000002"}`
	if code, body := e.send(t, eventCallback(ev), time.Time{}, nil); code != 200 || body != `{"status":"ok"}` {
		t.Fatal(code, body)
	}
	c := e.slack.waitCall(t, "assistant.threads.setSuggestedPrompts", nil)
	if c.Form["channel_id"] != "D1" || c.Form["thread_ts"] != "1700000300.000001" || !strings.Contains(c.Form["prompts"], "What can you help me with?") {
		t.Fatalf("prompts %v", c.Form)
	}
	e.drain(t)
	if len(e.slack.posts()) != 0 {
		t.Fatal("a thread start is not a message to answer")
	}
}

// A team's reply shows its delegation and its member's tool call as
// task cards, the member's labelled with the member's name.
func TestSlackStreamedTeamMemberTaskCards(t *testing.T) {
	e := newSlackEnv(t, true, streaming, func(c *agentos.Config) {
		lookup := tool.Must(tool.New("lookup", "look up", func(context.Context, struct{}) (string, error) { return "found", nil }))
		member := agentos.NewAgent(t, agent.Config{ID: "researcher", Name: "Researcher", Tools: []tool.Provider{lookup},
			Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
				if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
					return modeltest.Response{Content: "research done"}
				}
				return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("m1", "lookup", `{}`)}}
			})})
		tm := agentos.NewTeam(t, team.Config{ID: "crew", Name: "Crew", Members: []run.Executor{member}, Store: c.Store,
			Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
				if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
					return modeltest.Response{Content: "The team answers."}
				}
				return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"researcher","task":"look"}`)}}
			})})
		c.Teams = append(c.Teams, tm)
		slackConf(c).AgentID, slackConf(c).TeamID = "", "crew"
	})
	if code, _ := e.send(t, eventCallback(mentionEvent), time.Time{}, nil); code != 200 {
		t.Fatal(code)
	}
	e.slack.waitCall(t, "chat.stopStream", nil)
	e.drain(t)
	last := map[string]string{} // card id → title and last status
	var text strings.Builder
	for _, c := range e.slack.only("chat.startStream", "chat.appendStream", "chat.stopStream") {
		text.WriteString(c.Form["markdown_text"])
		var chunks []map[string]any
		_ = json.Unmarshal([]byte(c.Form["chunks"]), &chunks)
		for _, ch := range chunks {
			last[ch["id"].(string)] = ch["title"].(string) + " " + ch["status"].(string)
		}
	}
	if last["d1"] != "delegate_task_to_member complete" || last["researcher_m1"] != "Researcher: lookup complete" {
		t.Fatalf("task cards %v", last)
	}
	if text.String() != "The team answers." {
		t.Fatalf("streamed %q", text.String())
	}
}

// A continued run that pauses again posts a new card; answering it
// finishes the run.
func TestSlackRepause(t *testing.T) {
	paid := &atomic.Int64{}
	pay := agentos.PayTool(paid)
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		results := 0
		for _, msg := range req.Messages {
			if msg.Role == model.RoleTool {
				results++
			}
		}
		switch results {
		case 0:
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":42}`)}}
		case 1:
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c2", "pay", `{"amount":8}`)}}
		}
		return modeltest.Response{Content: "Both paid"}
	})
	e := newSlackEnv(t, true, func(c *agentos.Config) {
		c.Agents = []*agent.Agent{agentos.NewAgent(t, agent.Config{ID: "helper", Name: "Cashier", Model: m, Store: c.Store, Tools: []tool.Provider{pay}})}
	})
	env := &cashierEnv{slackEnv: e, paid: paid}
	_, first := env.pausedCard(t, payMention)
	if code, _ := e.click(t, first.TS, blocksOf(t, first), slack.ActionApprove, nil); code != 200 {
		t.Fatal(code)
	}
	second := e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool { return c.Form["blocks"] != "" && c.TS != first.TS })
	if !strings.Contains(second.Form["blocks"], `"text":"*Approval required:* `+"`pay`"+`\n• amount: `+"`8`"+`"`) {
		t.Fatalf("second card %s", second.Form["blocks"])
	}
	if paid.Load() != 42 {
		t.Fatalf("paid %d before the second approval", paid.Load())
	}
	if code, _ := e.click(t, second.TS, blocksOf(t, second), slack.ActionApprove, nil); code != 200 {
		t.Fatal(code)
	}
	e.slack.waitCall(t, "chat.postMessage", func(c slackCall) bool { return c.Form["text"] == "Both paid" })
	e.drain(t)
	if paid.Load() != 50 {
		t.Fatalf("paid %d", paid.Load())
	}
}
