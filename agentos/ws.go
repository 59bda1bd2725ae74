package agentos

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// wsConn is one /workflows/ws connection.
type wsConn struct {
	o      *OS
	c      *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // serialises writes
	authed bool
	wg     sync.WaitGroup
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
	conn := &wsConn{o: o, c: c, ctx: ctx, cancel: cancel, authed: o.cfg.SecurityKey == ""}
	defer func() {
		cancel()
		conn.wg.Wait()
		_ = c.CloseNow()
	}()
	conn.sendJSON(struct {
		Event        string `json:"event"`
		Message      string `json:"message"`
		RequiresAuth bool   `json:"requires_auth"`
	}{"connected", "Connected to AgentOS. Please authenticate to continue.", o.cfg.SecurityKey != ""})
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m wsMessage
		if err := json.Unmarshal(data, &m); err != nil {
			conn.sendJSON(map[string]any{"event": "error", "error": "Invalid JSON: " + err.Error()})
			continue
		}
		if err := safe.Call(o.log, "WebSocket action "+m.Action, func() error { conn.handle(m); return nil }); err != nil {
			conn.errorf("%s", err.Error())
		}
	}
}

func (c *wsConn) sendJSON(v any) bool {
	b, err := marshal(v)
	if err != nil {
		return false
	}
	return c.write(b)
}

func (c *wsConn) write(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c.Write(c.ctx, websocket.MessageText, b) == nil
}

// wsNotice is a control frame with agno's key order (event first).
type wsNotice struct {
	Event   string `json:"event"`
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

func (c *wsConn) errorf(format string, a ...any) {
	c.sendJSON(wsNotice{Event: "error", Error: fmt.Sprintf(format, a...)})
}

func (c *wsConn) handle(m wsMessage) {
	switch m.Action {
	case "authenticate":
		c.authenticate(m.Token)
		return
	case "ping":
		c.sendJSON(wsNotice{Event: "pong"})
		return
	}
	if !c.authed {
		c.sendJSON(wsNotice{Event: "auth_required", Error: "Authentication required. Send authenticate action with valid bearer token."})
		return
	}
	switch m.Action {
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
	key := c.o.cfg.SecurityKey
	switch {
	case token == "":
		c.sendJSON(wsNotice{Event: "auth_error", Error: "Token is required"})
	case key != "" && subtle.ConstantTimeCompare([]byte(token), []byte(key)) != 1:
		c.sendJSON(wsNotice{Event: "auth_error", Error: "Invalid token"})
	default:
		c.authed = true
		c.sendJSON(wsNotice{Event: "authenticated", Message: "Authentication successful. You can now send commands."})
	}
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
	c.follow(req.RunID, -1, false)
}

func launchError(err error) string {
	if errors.Is(err, runs.ErrShuttingDown) {
		return shuttingDown
	}
	return err.Error()
}

// follow sends a run's events to the socket from after index last, on
// whichever instance it runs: SSE text frames for live events, plain
// JSON for replays.
func (c *wsConn) follow(runID string, last int64, plain bool) {
	f, err := c.o.eng.Follow(c.ctx, runID, "", last)
	if err != nil {
		c.errorf("Run %s not found", runID)
		return
	}
	c.forward(f, plain)
}

// forward writes a follow's missed and live events in the background.
func (c *wsConn) forward(f *runs.Follow, plain bool) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer safe.Recover(c.o.log, "WebSocket event forwarding", nil)
		send := func(ev runs.Event) bool {
			if plain {
				return c.write(ev.Payload)
			}
			return c.write(frame(ev.Name, ev.Payload))
		}
		for _, ev := range f.Missed {
			if !send(ev) {
				return
			}
		}
		for ev, err := range f.Live(c.ctx, 0, nil) {
			if err != nil || !send(ev) {
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
	wf := c.lookup(m.WorkflowID)
	if wf == nil {
		return
	}
	if m.RunID == "" {
		c.errorf("run_id is required")
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
		c.follow(m.RunID, idx-1, false)
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

// reconnect replays a run's events after last_event_index, then keeps
// forwarding live events (plain JSON) while it runs — on any instance.
func (c *wsConn) reconnect(m wsMessage) {
	if m.RunID == "" {
		c.errorf("run_id is required")
		return
	}
	last := int64(-1)
	if m.LastEventIndex != nil {
		last = int64(*m.LastEventIndex)
	}
	f, err := c.o.eng.Follow(c.ctx, m.RunID, "", last)
	if err != nil {
		c.errorf("Run %s not found", m.RunID)
		return
	}
	if f.Settled {
		msg := "Run completed. Replaying all events from database."
		if f.Local {
			msg = "Run completed. Replaying all events."
		}
		c.sendJSON(map[string]any{"event": "replay", "run_id": m.RunID, "status": f.Status, "total_events": f.Total, "message": msg})
		for _, ev := range f.Missed {
			c.write(ev.Payload)
		}
		return
	}
	c.sendJSON(map[string]any{"event": "catch_up", "run_id": m.RunID, "status": "running", "missed_events": len(f.Missed), "current_event_count": f.Total, "message": "Catching up on missed events."})
	for _, ev := range f.Missed {
		c.write(ev.Payload)
	}
	c.sendJSON(map[string]any{"event": "subscribed", "run_id": m.RunID, "status": "running", "current_event_count": f.Total, "message": "Subscribed to live events."})
	f.Missed = nil
	c.forward(f, true)
}

// sameHost reports an origin whose host is the request's Host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && host != "" && strings.EqualFold(u.Host, host)
}

var _ storage.Store
