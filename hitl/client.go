package hitl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

// ErrClosed is returned by a Client whose connection is gone.
var ErrClosed = errors.New("hitl: connection closed")

// Announcement is a message the server sent on its own: a new pause
// (Pause set), a pause answered elsewhere (Resumed set) or the end of a
// continued run (Finished set).
type Announcement struct {
	Event    string
	Pause    *Pause
	Resumed  *Resumed
	Finished *Finished
	// Raw is the line as received.
	Raw json.RawMessage
}

// Client is a connection to a HITL socket. Requests may be made from
// several goroutines; replies are matched to them in order.
type Client struct {
	nc     net.Conn
	sendMu sync.Mutex

	mu       sync.Mutex
	calls    []*call
	ann      []*Announcement
	finished map[string]*Finished
	finOrder []string
	changed  chan struct{} // closed and replaced when an announcement arrives
	err      error
	done     chan struct{}
	initial  []*Pause
}

// call is a request waiting for its reply. A list gathers the
// waiting_for_human lines that come before its pending line.
type call struct {
	list   bool
	pauses []*Pause
	reply  chan callResult
}

type callResult struct {
	msg    inbound
	pauses []*Pause
}

// inbound is the part of a server line used to route it.
type inbound struct {
	Event string `json:"event"`
	Error string `json:"error"`
	RunID string `json:"run_id"`
	Count int    `json:"count"`
}

const (
	maxAnnouncements = 1024
	maxFinished      = 1024
)

// Dial connects to the socket at path and reads the server's greeting
// (the pending pauses, see Initial).
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("hitl: connect to %s: %w (is the workflow process running with its HITL socket there? see --socket / AGNO_HITL_SOCKET)", path, err)
	}
	c := &Client{nc: nc, finished: map[string]*Finished{}, changed: make(chan struct{}), done: make(chan struct{})}
	greeting := &call{list: true, reply: make(chan callResult, 1)}
	c.calls = []*call{greeting}
	go c.readLoop()
	res, err := c.wait(ctx, greeting)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.initial = res.pauses
	return c, nil
}

// Initial returns the pauses the server listed when the client
// connected.
func (c *Client) Initial() []*Pause { return c.initial }

// Close closes the connection. Runs the client continued go on.
func (c *Client) Close() error {
	err := c.nc.Close()
	<-c.done
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Ping checks the server answers.
func (c *Client) Ping(ctx context.Context) error {
	res, err := c.do(ctx, map[string]string{"action": ActionPing}, false)
	if err != nil {
		return err
	}
	return expect(res.msg, EventPong)
}

// Pending asks the server for the pauses waiting for a human.
func (c *Client) Pending(ctx context.Context) ([]*Pause, error) {
	res, err := c.do(ctx, map[string]string{"action": ActionList}, true)
	if err != nil {
		return nil, err
	}
	if err := expect(res.msg, EventPending); err != nil {
		return nil, err
	}
	return res.pauses, nil
}

// Find returns the pending pause of a run; nil if the run is not
// waiting for a human.
func (c *Client) Find(ctx context.Context, runID string) (*Pause, error) {
	list, err := c.Pending(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		if p.RunID == runID {
			return p, nil
		}
	}
	return nil, nil
}

// ContinueRequest is a continue-workflow message.
type ContinueRequest struct {
	WorkflowID       string                      `json:"workflow_id"`
	RunID            string                      `json:"run_id"`
	SessionID        string                      `json:"session_id,omitempty"`
	UserID           string                      `json:"user_id,omitempty"`
	StepRequirements []*workflow.StepRequirement `json:"step_requirements"`
}

// Continue sends answers for a paused run. It returns once the server
// accepted them and the run is continuing (a *ServerError with agno's
// text when refused); Wait gives the run's end.
func (c *Client) Continue(ctx context.Context, req ContinueRequest) error {
	msg := struct {
		Action string `json:"action"`
		ContinueRequest
	}{ActionContinue, req}
	res, err := c.do(ctx, msg, false)
	if err != nil {
		return err
	}
	return expect(res.msg, EventContinued)
}

// ContinueRunRequest is a continue-run message: answers for a paused
// agent (AgentID) or team (TeamID).
type ContinueRunRequest struct {
	AgentID      string             `json:"agent_id,omitempty"`
	TeamID       string             `json:"team_id,omitempty"`
	RunID        string             `json:"run_id"`
	SessionID    string             `json:"session_id,omitempty"`
	UserID       string             `json:"user_id,omitempty"`
	Requirements []*run.Requirement `json:"requirements"`
}

// ContinueRun sends answers for a paused agent or team run; it returns
// as Continue does.
func (c *Client) ContinueRun(ctx context.Context, req ContinueRunRequest) error {
	msg := struct {
		Action string `json:"action"`
		ContinueRunRequest
	}{ActionContinueRun, req}
	res, err := c.do(ctx, msg, false)
	if err != nil {
		return err
	}
	return expect(res.msg, EventContinued)
}

// Answer continues p with answers (see Pause.Approve and friends). An
// agent's or team's answers are the executor requirements of the one
// step requirement Pause.Requirement gives for it.
func (c *Client) Answer(ctx context.Context, p *Pause, answers []*workflow.StepRequirement) error {
	if p.Kind() == kindWorkflow {
		return c.Continue(ctx, ContinueRequest{WorkflowID: p.WorkflowID, RunID: p.RunID, SessionID: p.SessionID, UserID: p.UserID, StepRequirements: answers})
	}
	var reqs []*run.Requirement
	for _, a := range answers {
		reqs = append(reqs, a.ExecutorRequirements...)
	}
	return c.ContinueRun(ctx, ContinueRunRequest{AgentID: p.AgentID, TeamID: p.TeamID, RunID: p.RunID, SessionID: p.SessionID, UserID: p.UserID, Requirements: reqs})
}

// Next returns the next announcement, waiting for one.
func (c *Client) Next(ctx context.Context) (*Announcement, error) {
	for {
		c.mu.Lock()
		if len(c.ann) > 0 {
			a := c.ann[0]
			c.ann = c.ann[1:]
			c.mu.Unlock()
			return a, nil
		}
		changed, err := c.changed, c.err
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Wait returns the end of a run this connection saw continue (its
// run_finished line), waiting for it. It does not consume announcements.
func (c *Client) Wait(ctx context.Context, runID string) (*Finished, error) {
	for {
		c.mu.Lock()
		f, changed, err := c.finished[runID], c.changed, c.err
		c.mu.Unlock()
		if f != nil {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func expect(m inbound, event string) error {
	switch m.Event {
	case event:
		return nil
	case EventError:
		return &ServerError{Message: m.Error}
	}
	return fmt.Errorf("hitl: server answered %q, expected %q", m.Event, event)
}

// do sends one request and waits for its reply.
func (c *Client) do(ctx context.Context, v any, list bool) (callResult, error) {
	line, err := json.Marshal(v)
	if err != nil {
		return callResult{}, err
	}
	cl := &call{list: list, reply: make(chan callResult, 1)}
	c.sendMu.Lock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.sendMu.Unlock()
		return callResult{}, err
	}
	c.calls = append(c.calls, cl)
	c.mu.Unlock()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(writeTimeout)
	}
	_ = c.nc.SetWriteDeadline(deadline)
	_, err = c.nc.Write(append(line, '\n'))
	c.sendMu.Unlock()
	if err != nil {
		// The request may be half written: the connection is unusable.
		c.nc.Close()
		return callResult{}, fmt.Errorf("hitl: send: %w", err)
	}
	return c.wait(ctx, cl)
}

func (c *Client) wait(ctx context.Context, cl *call) (callResult, error) {
	select {
	case r := <-cl.reply:
		return r, nil
	case <-ctx.Done():
		// The reply, when it comes, goes to the abandoned call.
		return callResult{}, ctx.Err()
	case <-c.done:
		select {
		case r := <-cl.reply:
			return r, nil
		default:
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return callResult{}, c.err
	}
}

func (c *Client) readLoop() {
	br := bufio.NewReader(c.nc)
	var err error
	for {
		var line []byte
		if line, err = readLine(br, maxServerLineBytes); err != nil {
			break
		}
		// A line the client cannot handle ends the connection with an
		// error, not the process.
		if err = safe.Call(nil, "HITL client message", func() error { return c.dispatch(line) }); err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = ErrClosed
	}
	c.mu.Lock()
	c.err = err
	close(c.changed)
	c.mu.Unlock()
	c.nc.Close()
	close(c.done)
}

// dispatch routes one server line: a reply to the oldest request, a
// pause listed for it, or an announcement.
func (c *Client) dispatch(line []byte) error {
	var m inbound
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("hitl: unreadable server message: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var head *call
	if len(c.calls) > 0 {
		head = c.calls[0]
	}
	switch m.Event {
	case EventWaitingForHuman:
		p := &Pause{}
		if err := run.DecodeJSON(line, p); err != nil {
			return fmt.Errorf("hitl: unreadable pause: %w", err)
		}
		if head != nil && head.list {
			head.pauses = appendPause(head.pauses, p)
			return nil
		}
		c.announce(&Announcement{Event: m.Event, Pause: p, Raw: line})
	case EventRunFinished:
		f := &Finished{}
		if err := run.DecodeJSON(line, f); err != nil {
			return fmt.Errorf("hitl: unreadable run_finished: %w", err)
		}
		if _, ok := c.finished[f.RunID]; !ok {
			c.finOrder = append(c.finOrder, f.RunID)
			if len(c.finOrder) > maxFinished {
				delete(c.finished, c.finOrder[0])
				c.finOrder = c.finOrder[1:]
			}
		}
		c.finished[f.RunID] = f
		c.announce(&Announcement{Event: m.Event, Finished: f, Raw: line})
	case EventResumed:
		r := &Resumed{}
		if err := run.DecodeJSON(line, r); err != nil {
			return fmt.Errorf("hitl: unreadable resumed: %w", err)
		}
		c.announce(&Announcement{Event: m.Event, Resumed: r, Raw: line})
	case EventPending, EventPong, EventContinued, EventError:
		if head == nil {
			// Nothing asked: keep it for Next rather than lose it.
			c.announce(&Announcement{Event: m.Event, Raw: line})
			return nil
		}
		c.calls = c.calls[1:]
		head.reply <- callResult{msg: m, pauses: head.pauses}
	default:
		c.announce(&Announcement{Event: m.Event, Raw: line})
	}
	return nil
}

// appendPause adds p, replacing an earlier line of the same run.
func appendPause(list []*Pause, p *Pause) []*Pause {
	for i, q := range list {
		if q.RunID == p.RunID {
			list[i] = p
			return list
		}
	}
	return append(list, p)
}

// announce queues an announcement; needs c.mu.
func (c *Client) announce(a *Announcement) {
	if len(c.ann) >= maxAnnouncements {
		c.ann = c.ann[1:] // nobody reads them: keep the newest
	}
	c.ann = append(c.ann, a)
	close(c.changed)
	c.changed = make(chan struct{})
}
