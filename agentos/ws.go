package agentos

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// wsConn is one /workflows/ws connection.
type wsConn struct {
	o            *OS
	c            *websocket.Conn
	ctx          context.Context
	cancel       context.CancelFunc
	mu           sync.Mutex // serialises writes
	requiresAuth bool
	// authed and who are the read loop's alone; who is the token's
	// caller in JWT mode.
	authed bool
	who    *caller
	wg     sync.WaitGroup

	subMu sync.Mutex
	subs  map[string]*wsSub // runs a reconnect forwards live, by id
}

// wsSub is a reconnect's live forwarding of one run.
type wsSub struct {
	cancel context.CancelFunc
	done   chan struct{}
}

type wsMessage struct {
	Action           string          `json:"action"`
	Token            string          `json:"token"`
	WorkflowID       string          `json:"workflow_id"`
	RunID            string          `json:"run_id"`
	SessionID        string          `json:"session_id"`
	UserID           string          `json:"user_id"`
	Message          string          `json:"message"`
	LastEventIndex   *int            `json:"last_event_index"`
	StepRequirements json.RawMessage `json:"step_requirements"`
}

// agno's texts (os/middleware/user_scope.py and the WebSocket handlers).
const (
	wsWorkflowIDRequiredReconnect = "workflow_id is required to reconnect to a workflow run"
	wsSessionIDRequiredReconnect  = "session_id is required to reconnect to a workflow run"
	wsSessionIDRequired           = "session_id is required for this action"
	wsNoSub                       = "Invalid token: no sub claim. With user isolation on, a token must name its user in sub (or carry the admin scope)"
)

// handleWorkflowWS serves agno's workflow WebSocket: in-band auth, start,
// continue (HITL), reconnect. Runs started here survive the socket.
func (o *OS) handleWorkflowWS(w http.ResponseWriter, r *http.Request) {
	// A page of another site must not drive runs through a visitor's
	// browser: the origin is one protected mode would let in, or this
	// server's own (checked here, so the library's own check is off).
	if origin := r.Header.Get("Origin"); origin != "" && !o.originAllowed(origin) && !sameHost(origin, r.Host) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("WebSocket origin %q is not allowed: add it under [agentos] cors_allowed_origins", origin))
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.SetReadLimit(4 << 20)
	ctx, cancel := context.WithCancel(r.Context())
	// agno: auth is required with a JWT verifier or a security key.
	requiresAuth := o.jwtMode() || o.cfg.SecurityKey != ""
	conn := &wsConn{o: o, c: c, ctx: ctx, cancel: cancel, requiresAuth: requiresAuth, subs: map[string]*wsSub{}}
	defer func() {
		cancel()
		conn.wg.Wait()
		_ = c.CloseNow()
	}()
	hello := "Connected to AgentOS."
	if requiresAuth {
		hello = "Connected to AgentOS. Please authenticate to continue."
	}
	conn.sendJSON(struct {
		Event        string `json:"event"`
		Message      string `json:"message"`
		RequiresAuth bool   `json:"requires_auth"`
	}{"connected", hello, requiresAuth})
	gate := conn.startGate(o.cfg.WSAuthTimeout)
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		// Without auth any first message opens the gate; with auth only
		// a successful authenticate does (below).
		if !requiresAuth && !gate.pass() {
			return
		}
		var m wsMessage
		if err := json.Unmarshal(data, &m); err != nil {
			conn.sendJSON(map[string]any{"event": "error", "error": "Invalid JSON: " + err.Error()})
			continue
		}
		if gate.expired() {
			return // closing: nothing more is answered
		}
		if err := safe.Call(o.log, "WebSocket action "+m.Action, func() error { conn.handle(m); return nil }); err != nil {
			conn.errorf("%s", err.Error())
		}
		if conn.authed && !gate.pass() {
			return
		}
	}
}

// wsGate closes a socket that has not authenticated (key or JWT mode),
// or without auth sent a first message, within the timeout of opening:
// otherwise sockets that never say anything are kept forever. agno has
// no such deadline; the notice uses its frames (auth_error, error).
type wsGate struct {
	state  atomic.Int32 // 0 waiting, 1 passed, 2 expired
	passed chan struct{}
}

// startGate arms the gate of c. Its goroutine ends with the socket.
func (c *wsConn) startGate(timeout time.Duration) *wsGate {
	g := &wsGate{passed: make(chan struct{})}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-g.passed:
			return
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		if !g.state.CompareAndSwap(0, 2) {
			return
		}
		if c.requiresAuth {
			kind := "bearer token"
			if c.o.jwtMode() {
				kind = "JWT"
			}
			c.sendJSON(wsNotice{Event: "auth_error", Error: fmt.Sprintf("Authentication timed out: send the authenticate action with a valid %s within %s of connecting.", kind, timeout), ErrorType: "timeout"})
		} else {
			c.sendJSON(wsNotice{Event: "error", Error: fmt.Sprintf("No message received within %s of connecting: closing the connection.", timeout)})
		}
		_ = c.c.Close(websocket.StatusPolicyViolation, "authentication timeout")
	}()
	return g
}

// pass opens the gate (once); false when it expired first.
func (g *wsGate) pass() bool {
	if g.state.CompareAndSwap(0, 1) {
		close(g.passed)
		return true
	}
	return g.state.Load() == 1
}

func (g *wsGate) expired() bool { return g.state.Load() == 2 }

func (c *wsConn) sendJSON(v any) bool {
	b, err := marshal(v)
	if err != nil {
		return false
	}
	return c.write(b)
}

// write sends one text frame. Always under the socket's context: a
// write cancelled mid-way closes the connection.
func (c *wsConn) write(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.Write(c.ctx, websocket.MessageText, b) == nil
}

// wsNotice is a control frame with agno's key order (event first).
type wsNotice struct {
	Event     string `json:"event"`
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"error_type,omitempty"`
	Message   string `json:"message,omitempty"`
}

func (c *wsConn) errorf(format string, a ...any) {
	c.sendJSON(wsNotice{Event: "error", Error: fmt.Sprintf(format, a...)})
}

// handle answers one action in agno's order: authenticate, then the auth
// gate (ping included), then the commands.
func (c *wsConn) handle(m wsMessage) {
	if m.Action == "authenticate" {
		c.authenticate(m.Token)
		return
	}
	if c.requiresAuth && !c.authed {
		kind := "bearer token"
		if c.o.jwtMode() {
			kind = "JWT"
		}
		c.sendJSON(wsNotice{Event: "auth_required", Error: "Authentication required. Send authenticate action with valid " + kind + "."})
		return
	}
	switch m.Action {
	case "ping":
		c.sendJSON(wsNotice{Event: "pong"})
	case "start-workflow":
		c.start(m)
	case "continue-workflow":
		c.continueRun(m)
	case "reconnect":
		c.reconnect(m)
	default:
		c.errorf("Unknown action: %s", m.Action)
	}
}

func (c *wsConn) authenticate(token string) {
	if token == "" {
		c.sendJSON(wsNotice{Event: "auth_error", Error: "Token is required"})
		return
	}
	if c.o.jwtMode() {
		// In JWT mode every token is a JWT: the security key is not one.
		who, err := c.o.callerFromToken(token)
		if err != nil {
			n := wsNotice{Event: "auth_error", Error: err.Error(), ErrorType: "invalid_token"}
			var ae *auth.Error
			if errors.As(err, &ae) {
				n.Error, n.ErrorType = cmp.Or(ae.Detail, "Invalid token"), cmp.Or(ae.Type, "invalid_token")
			}
			c.sendJSON(n)
			return
		}
		if who.Isolated && who.UserID == "" { // as the HTTP gate: isolation needs a user
			c.sendJSON(wsNotice{Event: "auth_error", Error: wsNoSub, ErrorType: "invalid_token"})
			return
		}
		c.authed, c.who = true, who
		c.sendJSON(wsNotice{Event: "authenticated", Message: "Authentication successful. You can now send commands."})
		var sub *string // agno sends the sub claim, null without one
		if who.UserID != "" {
			sub = &who.UserID
		}
		c.sendJSON(struct {
			Event   string  `json:"event"`
			Message string  `json:"message"`
			UserID  *string `json:"user_id"`
		}{"authenticated", "JWT authentication successful.", sub})
		return
	}
	key := c.o.cfg.SecurityKey
	if key != "" && subtle.ConstantTimeCompare([]byte(token), []byte(key)) != 1 {
		c.sendJSON(wsNotice{Event: "auth_error", Error: "Invalid token"})
		return
	}
	c.authed = true
	c.sendJSON(wsNotice{Event: "authenticated", Message: "Authentication successful. You can now send commands."})
}

// asCaller pins the message's user to the token's: a non-admin's is its
// sub whatever it sent; an admin's defaults to its sub.
func (c *wsConn) asCaller(m *wsMessage) {
	if c.who == nil {
		return
	}
	if !c.who.Admin || m.UserID == "" {
		m.UserID = c.who.UserID
	}
}

// mayRun checks workflows:run on the message's workflow (JWT mode only).
func (c *wsConn) mayRun(workflowID string) bool {
	return c.o.may(c.who, []string{"workflows:run"}, "workflows", workflowID)
}

// isolated reports a caller confined to its own runs.
func (c *wsConn) isolated() bool { return c.o.isolated(c.who) }

// owns reports whether runID is a run of workflowID in the caller's
// session sessionID (agno's verify_run_in_session_via_db).
func (c *wsConn) owns(runID, sessionID, workflowID string) bool {
	if !c.o.runOwnedBy(c.ctx, runID, sessionID, c.who.UserID) {
		return false
	}
	rec, err := c.o.cfg.Store.GetRun(c.ctx, runID)
	return err == nil && rec.ComponentID == workflowID
}

func (c *wsConn) lookup(id string) *workflow.Workflow {
	if id == "" {
		c.errorf("workflow_id is required")
		return nil
	}
	wf, ok := c.o.catalog().workflows[id]
	if !ok {
		c.errorf("Workflow %s not found", id)
		return nil
	}
	return wf
}

// start runs a workflow in the background with stream_events on and
// forwards its events to this socket.
func (c *wsConn) start(m wsMessage) {
	if !c.mayRun(m.WorkflowID) {
		c.errorf("Insufficient permissions to run this workflow")
		return
	}
	c.asCaller(&m)
	wf := c.lookup(m.WorkflowID)
	if wf == nil {
		return
	}
	if err := wf.ValidateInput(m.Message); err != nil {
		c.errorf("%s", err.Error())
		return
	}
	req := &run.Request{Input: m.Message, SessionID: m.SessionID, UserID: m.UserID, RunID: run.NewID(), Stream: true, StreamEvents: true, StoreEvents: true}
	if req.SessionID == "" {
		req.SessionID = run.NewID()
	} else if c.isolated() && !c.o.sessionOpenTo(c.ctx, req.SessionID, c.who.UserID) {
		// As the HTTP run routes: no runs into another user's session.
		c.errorf("Session not found")
		return
	}
	req.Prepared, req.Resumable = true, true
	err := c.o.eng.Launch(context.Background(), runs.Launch{
		Row: storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: storage.SessionWorkflow, ComponentID: wf.ID(), UserID: req.UserID,
			CreatedAt: run.Now(), Data: json.RawMessage(`{"run_id":"` + req.RunID + `","status":"PENDING"}`)},
		Exec: func(ctx context.Context) { _, _ = wf.Execute(ctx, req, nil) },
	})
	if err != nil {
		c.errorf("%s", launchError(err))
		return
	}
	c.follow(req.RunID, -1)
}

func launchError(err error) string {
	if errors.Is(err, runs.ErrRefused) {
		return refusedText(err)
	}
	return err.Error()
}

// follow sends a run's events after index last to the socket as SSE
// text frames (agno's WebSocketHandler), on whichever instance it runs.
func (c *wsConn) follow(runID string, last int64) {
	f, err := c.o.eng.Follow(c.ctx, runID, "", last)
	if err != nil {
		c.errorf("Run %s not found", runID)
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer safe.Recover(c.o.log, "WebSocket event forwarding", nil)
		for _, ev := range f.Missed {
			if !c.write(frame(ev.Name, ev.Payload)) {
				return
			}
		}
		for ev, err := range f.Live(c.ctx, 0, nil) {
			if err != nil || !c.write(frame(ev.Name, ev.Payload)) {
				return
			}
		}
	}()
}

// continueRun answers a paused run (agno's continue-workflow action).
// The continuation runs in the background (it outlives the socket) and
// is claimed in storage, so of two answers to one pause — from any
// instance or channel — exactly one goes on.
func (c *wsConn) continueRun(m wsMessage) {
	if !c.mayRun(m.WorkflowID) {
		c.errorf("Insufficient permissions to continue this workflow")
		return
	}
	c.asCaller(&m)
	if m.WorkflowID == "" {
		c.errorf("workflow_id is required")
		return
	}
	if m.RunID == "" {
		c.errorf("run_id is required")
		return
	}
	if c.isolated() {
		if m.SessionID == "" {
			c.errorf("%s", wsSessionIDRequired)
			return
		}
		if !c.owns(m.RunID, m.SessionID, m.WorkflowID) {
			c.errorf("Run %s not found", m.RunID)
			return
		}
	}
	wf := c.lookup(m.WorkflowID)
	if wf == nil {
		return
	}
	out, err := wf.GetRun(c.ctx, m.RunID)
	if err != nil || (m.SessionID != "" && out.SessionID != m.SessionID) {
		c.errorf("Run %s not found", m.RunID)
		return
	}
	if out.Status != run.StatusPaused {
		c.errorf("Run is not paused (status=%s)", out.Status)
		return
	}
	var reqs []*workflow.StepRequirement
	if len(m.StepRequirements) > 0 && string(m.StepRequirements) != "null" {
		if reqs, err = workflow.ParseStepRequirements(m.StepRequirements); err != nil {
			c.errorf("Invalid step_requirements: %s", err.Error())
			return
		}
	}
	creq := &workflow.ContinueRequest{RunID: m.RunID, SessionID: out.SessionID, UserID: m.UserID, StepRequirements: reqs,
		Stream: true, StreamEvents: true, Resumable: true, StoreEvents: true}
	// A reconnect of this socket forwarding the run (it waits for a
	// continuation while paused) delivers these events: once is enough.
	forwarded := c.subscribed(m.RunID)
	// The continuation is this socket's to follow only once it emits: a
	// client that lost the race for the pause must not follow the winner.
	started := make(chan int64, 1)
	failed := make(chan error, 1)
	err = c.o.eng.Detach(context.Background(), m.RunID, "workflow", func(ctx context.Context) {
		first := true
		_, err := wf.ExecuteContinue(ctx, creq, func(run.Event) bool {
			if first {
				first = false
				started <- c.o.eng.Next(m.RunID) - 1
			}
			return true
		})
		if first {
			failed <- err
		}
	})
	if err != nil {
		c.errorf("%s", launchError(err))
		return
	}
	select {
	case idx := <-started:
		if !forwarded {
			c.follow(m.RunID, idx-1)
		}
	case err := <-failed:
		switch {
		case err == nil:
		case errors.Is(err, run.ErrNotPaused):
			c.errorf("Run is not paused (status=RUNNING)")
		case errors.Is(err, run.ErrNotFound):
			c.errorf("Run %s not found", m.RunID)
		case errors.Is(err, run.ErrInvalidAnswer), errors.Is(err, run.ErrUnresolved), errors.Is(err, workflow.ErrInvalidUserInput):
			c.errorf("Invalid step_requirements: %s", strings.TrimPrefix(err.Error(), run.ErrInvalidAnswer.Error()+": "))
		default:
			c.errorf("%s", launchError(err))
		}
	}
}

// Reconnect frames, in agno's key order.
type (
	wsReplay struct {
		Event       string     `json:"event"`
		RunID       string     `json:"run_id"`
		Status      run.Status `json:"status"`
		TotalEvents int        `json:"total_events"`
		Message     string     `json:"message"`
	}
	wsCatchUp struct {
		Event             string `json:"event"`
		RunID             string `json:"run_id"`
		Status            string `json:"status"`
		MissedEvents      int    `json:"missed_events"`
		CurrentEventCount int64  `json:"current_event_count"`
		Message           string `json:"message"`
	}
	wsSubscribed struct {
		Event             string `json:"event"`
		RunID             string `json:"run_id"`
		Status            string `json:"status"`
		CurrentEventCount int64  `json:"current_event_count"`
		Message           string `json:"message"`
	}
)

// reconnect is agno's handle_workflow_subscription. A finished run is
// replayed whole: from this instance's buffer, else from the database
// (which needs workflow_id and session_id). A running or paused run is
// followed live: catch_up with the events missed after
// last_event_index (if any), subscribed, then its events as plain JSON
// for as long as the socket lives, continuations included.
func (c *wsConn) reconnect(m wsMessage) {
	if c.who != nil && !c.who.Admin {
		c.asCaller(&m)
		if c.isolated() && m.WorkflowID == "" {
			c.errorf("%s", wsWorkflowIDRequiredReconnect)
			return
		}
		if !c.mayRun(m.WorkflowID) {
			c.errorf("Insufficient permissions to reconnect to this workflow")
			return
		}
	}
	if m.RunID == "" {
		c.errorf("run_id is required for subscription")
		return
	}
	if c.isolated() {
		if m.SessionID == "" {
			c.errorf("%s", wsSessionIDRequiredReconnect)
			return
		}
		// Another user's run is answered as a missing one.
		if !c.owns(m.RunID, m.SessionID, m.WorkflowID) {
			c.errorf("Run %s not found", m.RunID)
			return
		}
	}
	last := int64(-1)
	if m.LastEventIndex != nil {
		last = max(int64(*m.LastEventIndex), -1)
	}
	// A second reconnect to the run replaces the first (agno keeps one
	// registration per run), so its events come once.
	c.unsubscribe(m.RunID)
	// Watch before the first look, so a continuation that starts in
	// between still wakes the forwarder.
	wake := make(chan struct{}, 1)
	stopWatch := c.o.eng.Watch(func(ch runs.Change) {
		if ch.RunID == m.RunID {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	f, err := c.o.eng.Follow(c.ctx, m.RunID, "", last)
	if err != nil {
		stopWatch()
		if errors.Is(err, run.ErrNotFound) {
			c.errorf("Run %s not found in buffer or database", m.RunID)
		} else {
			c.errorf("Subscription failed: %s", err.Error())
		}
		return
	}
	if f.Settled && f.Status != run.StatusPaused {
		stopWatch()
		c.replay(m, f, last)
		return
	}
	if len(f.Missed) > 0 {
		c.sendJSON(wsCatchUp{"catch_up", m.RunID, "running", len(f.Missed), f.Total, fmt.Sprintf("Catching up on %d missed events.", len(f.Missed))})
		for _, ev := range f.Missed {
			c.write(ev.Payload)
			last = ev.Index
		}
	}
	c.sendJSON(wsSubscribed{"subscribed", m.RunID, "running", f.Total, "Subscribed to workflow run. You will receive new events as they occur."})
	if f.Settled {
		f = nil // paused: its next events come with a continuation
	} else {
		f.Missed = nil
	}
	c.subscribe(m.RunID, f, last, wake, stopWatch)
}

// replay sends every event of a finished run, whatever index the client
// asked from (agno ignores it here), with agno's meta frame.
func (c *wsConn) replay(m wsMessage, f *runs.Follow, last int64) {
	if f.Local {
		if last >= 0 {
			var err error
			if f, err = c.o.eng.Follow(c.ctx, m.RunID, "", -1); err != nil {
				c.errorf("Subscription failed: %s", err.Error())
				return
			}
		}
		c.sendJSON(wsReplay{"replay", m.RunID, f.Status, len(f.Missed), fmt.Sprintf("Run %s. Replaying all events.", f.Status)})
		for _, ev := range f.Missed {
			if !c.write(ev.Payload) {
				return
			}
		}
		return
	}
	// The database: agno finds the run through its workflow and session.
	if c.o.cfg.Store == nil {
		c.errorf("Run %s not found in buffer or database", m.RunID)
		return
	}
	rec, err := c.o.cfg.Store.GetRun(c.ctx, m.RunID)
	if m.WorkflowID == "" || m.SessionID == "" || err != nil || rec.ComponentID != m.WorkflowID || rec.SessionID != m.SessionID ||
		c.o.catalog().workflows[m.WorkflowID] == nil {
		c.errorf("Run %s not found in buffer or database", m.RunID)
		return
	}
	if last >= 0 {
		if f, err = c.o.eng.Follow(c.ctx, m.RunID, "", -1); err != nil {
			c.errorf("Subscription failed: %s", err.Error())
			return
		}
	}
	if len(f.Missed) == 0 {
		c.sendJSON(wsReplay{"replay", m.RunID, f.Status, 0, "Run completed but no events stored."})
		return
	}
	c.sendJSON(wsReplay{"replay", m.RunID, f.Status, len(f.Missed), "Run completed. Replaying all events from database."})
	for i, ev := range f.Missed {
		if !c.write(atIndex(ev, i)) {
			return
		}
	}
}

// atIndex is an event's JSON with event_index i: agno numbers database
// replays by position.
func atIndex(ev runs.Event, i int) []byte {
	if ev.Index == int64(i) {
		return ev.Payload
	}
	doc := map[string]json.RawMessage{}
	if json.Unmarshal(ev.Payload, &doc) != nil {
		return ev.Payload
	}
	doc["event_index"] = json.RawMessage(strconv.Itoa(i))
	b, err := marshal(doc)
	if err != nil {
		return ev.Payload
	}
	return b
}

// subscribed reports whether a reconnect of this socket forwards runID.
func (c *wsConn) subscribed(runID string) bool {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	return c.subs[runID] != nil
}

// unsubscribe ends this socket's forwarding of runID, if any.
func (c *wsConn) unsubscribe(runID string) {
	c.subMu.Lock()
	old := c.subs[runID]
	delete(c.subs, runID)
	c.subMu.Unlock()
	if old != nil {
		old.cancel()
		<-old.done
	}
}

// subscribe forwards runID's events after index last as plain JSON until
// the run finishes or the socket closes, across pauses: agno keeps a
// reconnected socket registered for the run, so a continuation's events
// reach it too. f is the open follow, or nil to open one.
func (c *wsConn) subscribe(runID string, f *runs.Follow, last int64, wake <-chan struct{}, stopWatch func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	sub := &wsSub{cancel: cancel, done: make(chan struct{})}
	c.subMu.Lock()
	c.subs[runID] = sub
	c.subMu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(sub.done)
		defer func() {
			c.subMu.Lock()
			if c.subs[runID] == sub {
				delete(c.subs, runID)
			}
			c.subMu.Unlock()
		}()
		defer cancel()
		defer stopWatch()
		defer safe.Recover(c.o.log, "WebSocket event forwarding", nil)
		for {
			if f == nil {
				var err error
				if f, err = c.o.eng.Follow(ctx, runID, "", last); err != nil {
					return
				}
			}
			for _, ev := range f.Missed {
				if !c.write(ev.Payload) {
					return
				}
				last = ev.Index
			}
			for ev, err := range f.Live(ctx, 0, nil) {
				if err != nil || !c.write(ev.Payload) {
					return
				}
				last = ev.Index
			}
			if ctx.Err() != nil {
				return
			}
			settled, status := f.Settled, f.Status
			f = nil
			if !settled {
				continue // it was live: look again to learn how it ended
			}
			if status != run.StatusPaused {
				return
			}
			select { // paused: wait for a continuation
			case <-wake:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// sameHost reports an origin whose host is the request's Host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && host != "" && strings.EqualFold(u.Host, host)
}
