package agentos_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// wsFixture is an OS with two workflows: "gated", whose second step
// waits for release, and "hitl", which pauses for a confirmation.
type wsFixture struct {
	srv     *httptest.Server
	store   storage.Store
	flows   []*workflow.Workflow
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (fx *wsFixture) open() { fx.once.Do(func() { close(fx.release) }) }

func newWSFixture(t *testing.T, cfg agentos.Config) *wsFixture {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	store := memory.New()
	fx := &wsFixture{store: store, entered: make(chan struct{}, 8), release: make(chan struct{})}
	gated, err := workflow.New(workflow.Config{ID: "gated", Name: "Gated", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "first", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "one"}, nil
		}},
		&workflow.Step{Name: "gate", Func: func(ctx context.Context, _ *workflow.StepInput) (*workflow.StepOutput, error) {
			fx.entered <- struct{}{}
			select {
			case <-fx.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &workflow.StepOutput{Content: "two"}, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hitl, err := workflow.New(workflow.Config{ID: "hitl", Name: "HITL", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "data"}, nil
		}},
		&workflow.Step{Name: "process", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "processed " + fmt.Sprint(in.PreviousStepContent)}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Go on?"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	fx.flows = []*workflow.Workflow{gated, hitl}
	cfg.Workflows, cfg.Store = fx.flows, store
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	t.Cleanup(fx.open) // a gate left shut must not hold up Close
	fx.srv = httptest.NewServer(o.Handler())
	t.Cleanup(fx.srv.Close)
	return fx
}

// wsClient is a test's end of /workflows/ws.
type wsClient struct {
	t   *testing.T
	c   *websocket.Conn
	ctx context.Context
}

func dialWS(t *testing.T, srv *httptest.Server) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/workflows/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &wsClient{t: t, c: c, ctx: ctx}
}

// connect dials and reads the connected frame.
func connectWS(t *testing.T, srv *httptest.Server) *wsClient {
	t.Helper()
	w := dialWS(t, srv)
	if f := w.next(); f.name != "connected" {
		t.Fatalf("hello %s", f.raw)
	}
	return w
}

func (w *wsClient) send(v any) {
	w.t.Helper()
	b, _ := json.Marshal(v)
	if err := w.c.Write(w.ctx, websocket.MessageText, b); err != nil {
		w.t.Fatal(err)
	}
}

// wsFrame is one server frame: an SSE-formatted event or plain JSON.
type wsFrame struct {
	raw  string
	sse  bool
	name string
	data map[string]any
}

func (f wsFrame) index() int {
	v, ok := f.data["event_index"].(float64)
	if !ok {
		return -1
	}
	return int(v)
}

func (w *wsClient) next() wsFrame {
	w.t.Helper()
	_, b, err := w.c.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	f := wsFrame{raw: string(b)}
	body := f.raw
	if rest, ok := strings.CutPrefix(body, "event: "); ok {
		name, data, ok := strings.Cut(rest, "\ndata: ")
		if !ok {
			w.t.Fatalf("SSE frame without data: %q", f.raw)
		}
		f.sse, f.name, body = true, name, strings.TrimSpace(data)
	}
	if err := json.Unmarshal([]byte(body), &f.data); err != nil {
		w.t.Fatalf("frame %q: %v", f.raw, err)
	}
	if !f.sse {
		f.name, _ = f.data["event"].(string)
	}
	return f
}

func (w *wsClient) expect(want string) {
	w.t.Helper()
	if got := w.next().raw; got != want {
		w.t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// until reads run events until one named name; an error frame fails.
func (w *wsClient) until(name string) []wsFrame {
	w.t.Helper()
	var out []wsFrame
	for {
		f := w.next()
		if f.name == "error" || f.name == "WorkflowError" {
			w.t.Fatalf("after %d events: %s", len(out), f.raw)
		}
		out = append(out, f)
		if f.name == name {
			return out
		}
	}
}

// streamEnded waits until the paused run's stream has ended (the
// resume route replays it). The pausing writer ends it just after
// storing PAUSED; a continuation claimed in between joins the paused
// generation (a runs/ race), so its followers would see odd ends.
func streamEnded(t *testing.T, srv *httptest.Server, runID string, last int, token string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/workflows/hitl/runs/"+runID+"/resume",
			strings.NewReader(url.Values{"last_event_index": {fmt.Sprint(last)}, "session_id": {"sa"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fr := frameReader{bufio.NewReader(resp.Body)}
		name, _ := fr.next(t)
		fr.rest(t)
		resp.Body.Close()
		if name == "replay" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the paused run's stream never ended: %d %s", resp.StatusCode, name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// consecutive checks frames carry event_index from, from+1, … of runID,
// as plain JSON (sse false) or SSE text.
func consecutive(t *testing.T, frames []wsFrame, from int, runID string, sse bool) {
	t.Helper()
	for i, f := range frames {
		if f.index() != from+i || f.data["run_id"] != runID || f.sse != sse || f.data["event"] != f.name {
			t.Fatalf("frame %d: want event_index %d of %s (sse %v): %s", i, from+i, runID, sse, f.raw)
		}
	}
}

// agno's connected frame says "Connected to AgentOS." when no auth is
// required; with a key a ping before authenticate is refused like any
// other action (router.py: the auth gate precedes ping).
func TestWSConnectedAndAuthGate(t *testing.T) {
	open := newWSFixture(t, agentos.Config{})
	w := dialWS(t, open.srv)
	w.expect(`{"event":"connected","message":"Connected to AgentOS.","requires_auth":false}`)
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"pong"}`)

	keyed := newWSFixture(t, agentos.Config{SecurityKey: "sk-ws"})
	w = dialWS(t, keyed.srv)
	w.expect(`{"event":"connected","message":"Connected to AgentOS. Please authenticate to continue.","requires_auth":true}`)
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"auth_required","error":"Authentication required. Send authenticate action with valid bearer token."}`)
	w.send(map[string]any{"action": "authenticate"})
	w.expect(`{"event":"auth_error","error":"Token is required"}`)
	w.send(map[string]any{"action": "authenticate", "token": "sk-other"})
	w.expect(`{"event":"auth_error","error":"Invalid token"}`)
	w.send(map[string]any{"action": "reconnect", "run_id": "r"})
	w.expect(`{"event":"auth_required","error":"Authentication required. Send authenticate action with valid bearer token."}`)
	w.send(map[string]any{"action": "authenticate", "token": "sk-ws"})
	w.expect(`{"event":"authenticated","message":"Authentication successful. You can now send commands."}`)
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"pong"}`)
}

// handle_workflow_subscription's texts for a missing and an unknown run.
func TestWSReconnectUnknownRun(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{})
	w := connectWS(t, fx.srv)
	w.send(map[string]any{"action": "reconnect"})
	w.expect(`{"event":"error","error":"run_id is required for subscription"}`)
	w.send(map[string]any{"action": "reconnect", "run_id": "nope", "workflow_id": "gated", "session_id": "s1", "last_event_index": 3})
	w.expect(`{"event":"error","error":"Run nope not found in buffer or database"}`)
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"pong"}`)
}

// A running run: catch_up only when events were missed (with their
// count), then subscribed, then the live events as plain JSON.
func TestWSReconnectRunningRun(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{})
	a := connectWS(t, fx.srv)
	a.send(map[string]any{"action": "start-workflow", "workflow_id": "gated", "message": "go", "session_id": "s1"})
	var started []wsFrame
	for {
		f := a.next()
		if f.name == "error" || !f.sse {
			t.Fatalf("start: %s", f.raw)
		}
		started = append(started, f)
		if f.name == "StepStarted" && f.data["step_name"] == "gate" {
			break
		}
	}
	<-fx.entered
	runID := started[0].data["run_id"].(string)
	lastIdx := started[len(started)-1].index()
	consecutive(t, started, 0, runID, true)

	// Up to date: no catch_up.
	b := connectWS(t, fx.srv)
	b.send(map[string]any{"action": "reconnect", "run_id": runID, "last_event_index": lastIdx})
	subscribed := fmt.Sprintf(`{"event":"subscribed","run_id":%q,"status":"running","current_event_count":%d,"message":"Subscribed to workflow run. You will receive new events as they occur."}`, runID, lastIdx+1)
	b.expect(subscribed)
	// Again: the second replaces the first, so events still come once.
	b.send(map[string]any{"action": "reconnect", "run_id": runID, "last_event_index": lastIdx})
	b.expect(subscribed)

	// Nothing received yet: every event, counted.
	c := connectWS(t, fx.srv)
	c.send(map[string]any{"action": "reconnect", "run_id": runID})
	c.expect(fmt.Sprintf(`{"event":"catch_up","run_id":%q,"status":"running","missed_events":%d,"current_event_count":%d,"message":"Catching up on %d missed events."}`,
		runID, lastIdx+1, lastIdx+1, lastIdx+1))
	missed := make([]wsFrame, lastIdx+1)
	for i := range missed {
		missed[i] = c.next()
	}
	consecutive(t, missed, 0, runID, false)
	c.expect(subscribed)

	fx.open()
	rest := a.until("WorkflowCompleted")
	consecutive(t, rest, lastIdx+1, runID, true)
	for _, w := range []*wsClient{b, c} {
		live := w.until("WorkflowCompleted")
		consecutive(t, live, lastIdx+1, runID, false)
		if len(live) != len(rest) {
			t.Fatalf("reconnected socket got %d live events, the starter %d", len(live), len(rest))
		}
		w.send(map[string]any{"action": "ping"})
		w.expect(`{"event":"pong"}`)
	}
}

// A finished run is replayed whole, whatever last_event_index says: from
// the buffer ("Run COMPLETED. Replaying all events."), and from the
// database on an instance without it — which needs workflow_id and
// session_id, and numbers the events by position from 0.
func TestWSReplayFinishedRun(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{})
	fx.open()
	a := connectWS(t, fx.srv)
	a.send(map[string]any{"action": "start-workflow", "workflow_id": "gated", "message": "go", "session_id": "s1"})
	all := a.until("WorkflowCompleted")
	runID := all[0].data["run_id"].(string)
	total := len(all)
	if total < 5 {
		t.Fatalf("only %d events", total)
	}

	// The run's last events precede its end: until it ends it is live.
	var meta wsFrame
	var w *wsClient
	for deadline := time.Now().Add(10 * time.Second); ; {
		w = connectWS(t, fx.srv)
		w.send(map[string]any{"action": "reconnect", "run_id": runID, "last_event_index": 2})
		if meta = w.next(); meta.name == "replay" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never replayed: %s", meta.raw)
		}
		_ = w.c.CloseNow()
		time.Sleep(10 * time.Millisecond)
	}
	if want := fmt.Sprintf(`{"event":"replay","run_id":%q,"status":"COMPLETED","total_events":%d,"message":"Run COMPLETED. Replaying all events."}`, runID, total); meta.raw != want {
		t.Fatalf("buffer replay\ngot  %s\nwant %s", meta.raw, want)
	}
	replayed := make([]wsFrame, total)
	for i := range replayed {
		replayed[i] = w.next()
	}
	consecutive(t, replayed, 0, runID, false)
	if replayed[total-1].name != "WorkflowCompleted" {
		t.Fatalf("buffer replay ends with %s", replayed[total-1].name)
	}
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"pong"}`)

	// Another instance: no buffer, only the database.
	other, err := runs.New(runs.Config{Store: fx.store})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := agentos.New(agentos.Config{Workflows: fx.flows, Store: fx.store, Runs: other})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(o2.Handler())
	t.Cleanup(srv2.Close)
	waitStatus(t, fx.store, runID, run.StatusCompleted)
	d := connectWS(t, srv2)
	d.send(map[string]any{"action": "reconnect", "run_id": runID, "last_event_index": 3})
	d.expect(fmt.Sprintf(`{"event":"error","error":"Run %s not found in buffer or database"}`, runID))
	d.send(map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "gated", "session_id": "other", "last_event_index": 3})
	d.expect(fmt.Sprintf(`{"event":"error","error":"Run %s not found in buffer or database"}`, runID))
	d.send(map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "gated", "session_id": "s1", "last_event_index": 3})
	d.expect(fmt.Sprintf(`{"event":"replay","run_id":%q,"status":"COMPLETED","total_events":%d,"message":"Run completed. Replaying all events from database."}`, runID, total))
	stored := make([]wsFrame, total)
	for i := range stored {
		stored[i] = d.next()
		if stored[i].name != replayed[i].name {
			t.Fatalf("database event %d is %s, the buffer's %s", i, stored[i].name, replayed[i].name)
		}
	}
	consecutive(t, stored, 0, runID, false)
	d.send(map[string]any{"action": "ping"})
	d.expect(`{"event":"pong"}`)
}

// A paused run is reconnected live, not replayed: catch_up, subscribed,
// and the continuation's events once it is continued — once each, even
// when this socket sends the continue.
func TestWSReconnectPausedRun(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{})
	a := connectWS(t, fx.srv)
	a.send(map[string]any{"action": "start-workflow", "workflow_id": "hitl", "message": "go", "session_id": "s1"})
	upToPause := a.until("WorkflowPaused")
	paused := upToPause[len(upToPause)-1]
	runID := paused.data["run_id"].(string)
	pausedIdx := paused.index()
	waitStatus(t, fx.store, runID, run.StatusPaused)
	streamEnded(t, fx.srv, runID, pausedIdx, "")

	b := connectWS(t, fx.srv)
	b.send(map[string]any{"action": "reconnect", "run_id": runID, "last_event_index": 1})
	b.expect(fmt.Sprintf(`{"event":"catch_up","run_id":%q,"status":"running","missed_events":%d,"current_event_count":%d,"message":"Catching up on %d missed events."}`,
		runID, pausedIdx-1, pausedIdx+1, pausedIdx-1))
	missed := make([]wsFrame, pausedIdx-1)
	for i := range missed {
		missed[i] = b.next()
	}
	consecutive(t, missed, 2, runID, false)
	if missed[len(missed)-1].name != "WorkflowPaused" {
		t.Fatalf("catch_up ends with %s", missed[len(missed)-1].name)
	}
	b.expect(fmt.Sprintf(`{"event":"subscribed","run_id":%q,"status":"running","current_event_count":%d,"message":"Subscribed to workflow run. You will receive new events as they occur."}`, runID, pausedIdx+1))

	reqs := paused.data["step_requirements"].([]any)
	reqs[0].(map[string]any)["confirmed"] = true
	b.send(map[string]any{"action": "continue-workflow", "workflow_id": "hitl", "run_id": runID, "session_id": "s1", "step_requirements": reqs})
	cont := b.until("WorkflowCompleted")
	consecutive(t, cont, pausedIdx+1, runID, false)
	if !strings.Contains(cont[len(cont)-1].raw, "processed data") {
		t.Fatalf("completed %s", cont[len(cont)-1].raw)
	}
	b.send(map[string]any{"action": "ping"})
	b.expect(`{"event":"pong"}`)
	// The starter's stream ended at the pause.
	a.send(map[string]any{"action": "ping"})
	a.expect(`{"event":"pong"}`)
}

const wsSecret = "ws-protocol-test-secret-0123456789abcdef"

func wsToken(t *testing.T, sub string, scopes []string, exp time.Time) string {
	t.Helper()
	claims := jwt.MapClaims{"scopes": scopes, "exp": exp.Unix()}
	if sub != "" {
		claims["sub"] = sub
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(wsSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jwtFixture(t *testing.T) *wsFixture {
	return newWSFixture(t, agentos.Config{SecurityKey: "sk-key", Authorization: &auth.Config{VerificationKeys: []string{wsSecret}, Algorithm: "HS256", UserIsolation: true}})
}

// login authenticates w with a token and checks agno's two frames.
func (w *wsClient) login(token, sub string) {
	w.t.Helper()
	w.send(map[string]any{"action": "authenticate", "token": token})
	w.expect(`{"event":"authenticated","message":"Authentication successful. You can now send commands."}`)
	w.expect(`{"event":"authenticated","message":"JWT authentication successful.","user_id":"` + sub + `"}`)
}

// JWT mode: auth is required, only a JWT authenticates (not the security
// key), and a refusal says why in error_type.
func TestWSJWTAuthenticate(t *testing.T) {
	fx := jwtFixture(t)
	w := dialWS(t, fx.srv)
	w.expect(`{"event":"connected","message":"Connected to AgentOS. Please authenticate to continue.","requires_auth":true}`)
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"auth_required","error":"Authentication required. Send authenticate action with valid JWT."}`)
	refused := func(token, errorType string) {
		t.Helper()
		w.send(map[string]any{"action": "authenticate", "token": token})
		f := w.next()
		if f.name != "auth_error" || f.data["error_type"] != errorType || f.data["error"] == "" || len(f.data) != 3 {
			t.Fatalf("token %.20q: %s, want error_type %s", token, f.raw, errorType)
		}
	}
	refused("sk-key", "invalid_token")
	refused("not.a.jwt", "invalid_token")
	refused(wsToken(t, "alice", []string{"workflows:run"}, time.Now().Add(-time.Hour)), "expired")
	refused(wsToken(t, "", []string{"workflows:run"}, time.Now().Add(time.Hour)), "invalid_token") // isolation needs a sub
	w.send(map[string]any{"action": "start-workflow", "workflow_id": "gated"})
	w.expect(`{"event":"auth_required","error":"Authentication required. Send authenticate action with valid JWT."}`)
	w.login(wsToken(t, "alice", []string{"workflows:run"}, time.Now().Add(time.Hour)), "alice")
	w.send(map[string]any{"action": "ping"})
	w.expect(`{"event":"pong"}`)
}

// workflows:run, per resource, on start, continue and reconnect; the
// run is the token's user's whatever user_id says; under isolation
// another user learns nothing of it — the answers are a missing run's.
func TestWSJWTScopesAndIsolation(t *testing.T) {
	fx := jwtFixture(t)
	hour := time.Now().Add(time.Hour)
	alice := connectWS(t, fx.srv)
	alice.login(wsToken(t, "alice", []string{"workflows:hitl:run"}, hour), "alice")
	alice.send(map[string]any{"action": "start-workflow", "workflow_id": "gated", "message": "go"})
	alice.expect(`{"event":"error","error":"Insufficient permissions to run this workflow"}`)
	alice.send(map[string]any{"action": "continue-workflow", "workflow_id": "gated", "run_id": "r", "session_id": "sa"})
	alice.expect(`{"event":"error","error":"Insufficient permissions to continue this workflow"}`)
	alice.send(map[string]any{"action": "reconnect", "workflow_id": "gated", "run_id": "r", "session_id": "sa"})
	alice.expect(`{"event":"error","error":"Insufficient permissions to reconnect to this workflow"}`)

	alice.send(map[string]any{"action": "start-workflow", "workflow_id": "hitl", "message": "go", "session_id": "sa", "user_id": "mallory"})
	upToPause := alice.until("WorkflowPaused")
	paused := upToPause[len(upToPause)-1]
	runID := paused.data["run_id"].(string)
	waitStatus(t, fx.store, runID, run.StatusPaused)
	if rec, err := fx.store.GetRun(context.Background(), runID); err != nil || rec.UserID != "alice" {
		t.Fatalf("the run's user: %+v %v", rec, err)
	}
	streamEnded(t, fx.srv, runID, paused.index(), wsToken(t, "root", []string{"agent_os:admin"}, hour))

	mallory := connectWS(t, fx.srv)
	mallory.login(wsToken(t, "mallory", []string{"workflows:run"}, hour), "mallory")
	for _, tc := range []struct {
		msg  map[string]any
		want string
	}{
		{map[string]any{"action": "reconnect", "run_id": runID}, "workflow_id is required to reconnect to a workflow run"},
		{map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "hitl"}, "session_id is required to reconnect to a workflow run"},
		{map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "hitl", "session_id": "sa"}, "Run " + runID + " not found"},
		{map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "hitl", "session_id": "sa", "user_id": "alice"}, "Run " + runID + " not found"},
		{map[string]any{"action": "reconnect", "run_id": "nope", "workflow_id": "hitl", "session_id": "sa"}, "Run nope not found"},
		{map[string]any{"action": "continue-workflow", "workflow_id": "hitl", "run_id": runID}, "session_id is required for this action"},
		{map[string]any{"action": "continue-workflow", "workflow_id": "hitl", "run_id": runID, "session_id": "sa", "step_requirements": paused.data["step_requirements"]}, "Run " + runID + " not found"},
		{map[string]any{"action": "continue-workflow", "workflow_id": "hitl", "run_id": "nope", "session_id": "sa"}, "Run nope not found"},
		{map[string]any{"action": "start-workflow", "workflow_id": "hitl", "message": "go", "session_id": "sa"}, "Session not found"},
	} {
		mallory.send(tc.msg)
		mallory.expect(`{"event":"error","error":"` + tc.want + `"}`)
	}
	waitStatus(t, fx.store, runID, run.StatusPaused)

	// Its owner reconnects live and continues it.
	owner := connectWS(t, fx.srv)
	owner.login(wsToken(t, "alice", []string{"workflows:hitl:run"}, hour), "alice")
	owner.send(map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "hitl", "session_id": "sa", "last_event_index": paused.index()})
	owner.expect(fmt.Sprintf(`{"event":"subscribed","run_id":%q,"status":"running","current_event_count":%d,"message":"Subscribed to workflow run. You will receive new events as they occur."}`, runID, paused.index()+1))
	reqs := paused.data["step_requirements"].([]any)
	reqs[0].(map[string]any)["confirmed"] = true
	owner.send(map[string]any{"action": "continue-workflow", "workflow_id": "hitl", "run_id": runID, "session_id": "sa", "step_requirements": reqs})
	consecutive(t, owner.until("WorkflowCompleted"), paused.index()+1, runID, false)

	// An admin is not confined: no session or workflow needed.
	admin := connectWS(t, fx.srv)
	admin.login(wsToken(t, "root", []string{"agent_os:admin"}, hour), "root")
	admin.send(map[string]any{"action": "reconnect", "run_id": runID})
	if f := admin.next(); f.name != "replay" && f.name != "catch_up" {
		t.Fatalf("admin reconnect: %s", f.raw)
	}
}
