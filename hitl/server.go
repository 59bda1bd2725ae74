package hitl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// Config configures a Server.
type Config struct {
	// SocketPath is where the socket is created (mode 0600), e.g.
	// /tmp/agno-hitl.sock.
	SocketPath string
	// Workflows can be continued over the socket; their paused runs are
	// listed from storage when the server starts and when a client
	// connects or lists.
	Workflows []*workflow.Workflow
	// Lookup finds other workflows by id (AgentOS's registry); optional.
	Lookup func(id string) *workflow.Workflow
	// Store is where paused runs are listed from (default: each
	// workflow's own store). It should be the store the workflows use.
	Store storage.Store
	// Agents and Teams paused for a human (a tool call to confirm, user
	// input, an external result) can be continued over the socket too;
	// their paused runs are listed from Store (or Runs' store).
	Agents []run.Executor
	Teams  []run.Executor
	// LookupAgent and LookupTeam find others by id (AgentOS's registry);
	// optional.
	LookupAgent func(id string) run.Executor
	LookupTeam  func(id string) run.Executor
	// Runs is the run engine of the store: with it, every pause and
	// answer — of this process's agents, teams and workflows, and of other
	// processes sharing the database — is announced as it happens. Without
	// it, pauses of workflows configured here are announced, and the rest
	// are listed when a client connects or lists. Default: runs.For(Store)
	// at Start (attach AgentOS's engine before).
	Runs *runs.Engine
	// StoreEvents keeps the events of continuations made here with their
	// runs, whatever the workflow's store_events (AgentOS sets it, as agno
	// stores every run's events).
	StoreEvents bool
	Logger      *slog.Logger
}

// Server serves the HITL socket. It is a workflow.Notifier: after
// w.SetNotifier(server), every pause of w is announced to connected
// clients. Safe for concurrent use.
type Server struct {
	cfg      Config
	log      *slog.Logger
	byID     map[string]*workflow.Workflow
	hasStore bool

	runCtx    context.Context
	runCancel context.CancelFunc
	wg        sync.WaitGroup
	refreshMu sync.Mutex

	stores map[*workflow.Workflow]storage.Store // read-only after NewServer
	agents map[string]run.Executor
	teams  map[string]run.Executor

	eng       *runs.Engine // set at Start; needs mu
	stopWatch func()
	// resync: a change was dropped (the queue was full); list everything
	// from storage again.
	resync atomic.Bool

	mu      sync.Mutex
	ln      *net.UnixListener
	sock    *socketFile
	conns   map[*conn]struct{}
	pending map[string]*entry
	// pausing counts pause changes queued for the change loop, by run.
	pausing map[string]int
	// storeless is the last status of runs of workflows without a store
	// that this server continued (there is no stored row to ask).
	storeless      map[string]run.Status
	storelessOrder []string
	// notified are workflows that announced a pause without being
	// configured; they can be continued too.
	notified map[string]*workflow.Workflow
	// seq orders pause/resume notifications; touched[run] is the seq of
	// the last one, so a storage listing taken before it does not undo it.
	seq     uint64
	touched map[string]uint64
	started bool
	closed  bool
}

// entry is one pending pause.
type entry struct {
	pause *Pause
	line  []byte
	// output is the paused run, kept for workflows without a store (they
	// continue from it).
	output []byte
	// store is where the pause was read from (nil: announced by a
	// workflow without a store); a listing of it drops the entry once the
	// run is no longer paused there.
	store storage.Store
}

var _ workflow.Notifier = (*Server)(nil)

// NewServer validates cfg and returns a server; Start opens the socket.
func NewServer(cfg Config) (*Server, error) {
	if cfg.SocketPath == "" {
		return nil, fmt.Errorf("%w: Config.SocketPath is empty; set it (e.g. /tmp/agno-hitl.sock)", ErrSocketPath)
	}
	if len(cfg.SocketPath) > maxSocketPath() {
		return nil, fmt.Errorf("%w: Config.SocketPath %q is %d bytes; Unix socket paths are limited to %d, choose a shorter one", ErrSocketPath, cfg.SocketPath, len(cfg.SocketPath), maxSocketPath())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, byID: map[string]*workflow.Workflow{}, conns: map[*conn]struct{}{},
		pending: map[string]*entry{}, pausing: map[string]int{}, storeless: map[string]run.Status{}, notified: map[string]*workflow.Workflow{},
		touched: map[string]uint64{}, stores: map[*workflow.Workflow]storage.Store{},
		agents: map[string]run.Executor{}, teams: map[string]run.Executor{}}
	for i, w := range cfg.Workflows {
		if w == nil {
			return nil, fmt.Errorf("hitl: Config.Workflows[%d] is nil", i)
		}
		if _, dup := s.byID[w.ID()]; dup {
			return nil, fmt.Errorf("hitl: Config.Workflows has two workflows with id %q; ids must be unique", w.ID())
		}
		s.byID[w.ID()] = w
		s.stores[w] = w.Config().Store
		if s.storeOf(w) != nil {
			s.hasStore = true
		}
	}
	for field, list := range map[string][]run.Executor{"Agents": cfg.Agents, "Teams": cfg.Teams} {
		into := s.agents
		if field == "Teams" {
			into = s.teams
		}
		for i, ex := range list {
			if ex == nil {
				return nil, fmt.Errorf("hitl: Config.%s[%d] is nil", field, i)
			}
			if _, dup := into[ex.ID()]; dup {
				return nil, fmt.Errorf("hitl: Config.%s has two with id %q; ids must be unique", field, ex.ID())
			}
			into[ex.ID()] = ex
		}
	}
	if s.execStore() != nil {
		s.hasStore = true
	}
	s.runCtx, s.runCancel = context.WithCancel(context.Background())
	return s, nil
}

// SocketPath returns the socket's path.
func (s *Server) SocketPath() string { return s.cfg.SocketPath }

// Start creates the socket, lists paused runs from storage and serves
// clients in the background until Close. ctx bounds the start only.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("hitl: Start called twice or after Close")
	}
	s.started = true
	s.mu.Unlock()

	ln, sock, err := listenUnix(s.cfg.SocketPath)
	if err != nil {
		return err
	}
	// Watch before listing: a change during the listing is not missed.
	s.watch()
	if err := s.refresh(ctx); err != nil {
		s.unwatch()
		ln.Close()
		_ = sock.remove()
		return fmt.Errorf("hitl: list paused runs: %w", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.unwatch()
		ln.Close()
		return sock.remove()
	}
	s.ln, s.sock = ln, sock
	n := len(s.pending)
	s.wg.Add(1)
	s.mu.Unlock()
	// Logged before the first client can be served (as AgentOS's line).
	s.log.Info("HITL socket listening", "socket", s.cfg.SocketPath, "pending", n)
	go s.acceptLoop(ln)
	return nil
}

// Close stops the server: the socket file is removed, clients are
// disconnected, continuations still running are cancelled (they end
// CANCELLED and are stored so), and Close returns once every goroutine
// of the server has ended. Use Shutdown to let running continuations
// finish first.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return s.Shutdown(ctx)
}

// Shutdown is Close that waits for running continuations until ctx ends
// before cancelling them.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ln, sock := s.ln, s.sock
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	s.unwatch()
	var err error
	if ln != nil {
		ln.Close()
		err = sock.remove()
	}
	for _, c := range conns {
		c.close()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.runCancel()
		<-done
	}
	s.runCancel()
	return err
}

// Paused announces a paused run (workflow.Notifier).
func (s *Server) Paused(w *workflow.Workflow, out *workflow.RunOutput) {
	if out == nil || out.ParentRunID != "" || s.watched(w) {
		return // nested runs are continued through their parent; watched ones announce from storage
	}
	s.announce(w, out, false)
}

// Resumed drops a run from the pending pauses (workflow.Notifier).
func (s *Server) Resumed(w *workflow.Workflow, runID string) {
	if s.watched(w) {
		return
	}
	s.mu.Lock()
	delete(s.pending, runID)
	s.touch(runID)
	s.mu.Unlock()
}

// Pending returns the pauses the server knows of, oldest first.
func (s *Server) Pending() []*Pause {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Pause
	for _, e := range s.sorted() {
		var p *Pause
		if clone(e.pause, &p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// announce records a pause and tells every client. onlyIfMissing keeps
// an entry the notifier already made.
func (s *Server) announce(w *workflow.Workflow, out *workflow.RunOutput, onlyIfMissing bool) {
	p, err := pauseOf(out)
	if err != nil {
		s.log.Error("hitl: cannot announce paused run", "run_id", out.RunID, "error", err)
		return
	}
	if p.WorkflowID == "" {
		p.WorkflowID = w.ID()
	}
	e := &entry{pause: p, line: encodeLine(pauseLine{Event: EventWaitingForHuman, Pause: p}), store: s.storeOf(w)}
	if s.ownStore(w) == nil {
		if e.output, err = json.Marshal(out); err != nil {
			s.log.Error("hitl: cannot keep paused run", "run_id", out.RunID, "error", err)
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[w.ID()]; !ok {
		s.notified[w.ID()] = w
	}
	if _, ok := s.pending[p.RunID]; ok && onlyIfMissing {
		return
	}
	s.put(e)
}

// put records a pending pause and tells every client; the same pause
// again is not repeated. Needs s.mu.
func (s *Server) put(e *entry) {
	p := e.pause
	s.touch(p.RunID)
	if old := s.pending[p.RunID]; old != nil && bytes.Equal(old.line, e.line) {
		return
	}
	s.pending[p.RunID] = e
	for c := range s.conns {
		c.send(e.line)
	}
	s.log.Info(p.Kind()+" run waiting for a human", "run_id", p.RunID, p.Kind()+"_id", p.ComponentID(),
		"step", p.PausedStepName, "pause_kind", p.PauseKind, "clients", len(s.conns))
}

// drop removes a pending pause answered elsewhere and tells every
// client. Needs s.mu.
func (s *Server) drop(runID string, status run.Status) {
	s.touch(runID)
	if _, ok := s.pending[runID]; !ok {
		return
	}
	delete(s.pending, runID)
	line := encodeLine(resumedLine{Event: EventResumed, Resumed: &Resumed{RunID: runID, Status: status}})
	for c := range s.conns {
		c.send(line)
	}
}

// touch marks a notification; needs s.mu.
func (s *Server) touch(runID string) {
	if !s.hasStore {
		return
	}
	s.seq++
	s.touched[runID] = s.seq
}

// sorted returns pending entries oldest first; needs s.mu.
func (s *Server) sorted() []*entry {
	list := make([]*entry, 0, len(s.pending))
	for _, e := range s.pending {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i].pause, list[j].pause
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.RunID < b.RunID
	})
	return list
}

// storeOf is where w's paused runs are listed from.
func (s *Server) storeOf(w *workflow.Workflow) storage.Store {
	if s.cfg.Store != nil {
		return s.cfg.Store
	}
	return s.ownStore(w)
}

// ownStore is w's own store. For the configured workflows it was read in
// NewServer: w.Config() copies the whole configuration, which races with
// the w.SetNotifier(server) that usually follows. Other workflows (from
// Lookup, which may build fresh values) are read when used.
func (s *Server) ownStore(w *workflow.Workflow) storage.Store {
	if st, ok := s.stores[w]; ok {
		return st
	}
	return w.Config().Store
}

func (s *Server) workflow(id string) *workflow.Workflow {
	if w := s.byID[id]; w != nil {
		return w
	}
	if s.cfg.Lookup != nil {
		if w := s.cfg.Lookup(id); w != nil {
			return w
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notified[id]
}

// refresh replaces the pending pauses with what storage says, so pauses
// made or answered by another process (or before a restart) are listed
// right. Notifications newer than the listing win over it.
func (s *Server) refresh(ctx context.Context) error { return s.reconcile(ctx, false) }

// reconcile is refresh; with announce, what the listing changed is told
// to every client (a pause found, a pause answered elsewhere).
func (s *Server) reconcile(ctx context.Context, announce bool) error {
	if !s.hasStore {
		return nil
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.resync.Store(false)
	s.mu.Lock()
	since := s.seq
	s.mu.Unlock()

	found := map[string]*entry{}
	listed := map[storage.Store]bool{}
	for _, st := range s.listedStores() {
		recs, err := st.ListRuns(ctx, storage.RunQuery{Status: []run.Status{run.StatusPaused}, TopLevel: true})
		if err != nil {
			return err
		}
		listed[st] = true
		for _, rec := range recs {
			if e := s.entryOf(rec, st); e != nil {
				found[rec.RunID] = e
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.pending {
		if e.store != nil && listed[e.store] && found[id] == nil && s.touched[id] <= since {
			if announce {
				s.drop(id, "")
			} else {
				delete(s.pending, id)
			}
		}
	}
	for id, e := range found {
		if s.touched[id] <= since {
			if announce {
				s.put(e)
			} else {
				s.pending[id] = e
			}
		}
	}
	clear(s.touched) // the next listing starts after every notification so far
	return nil
}

// listedStores are the stores paused runs are listed from.
func (s *Server) listedStores() []storage.Store {
	var list []storage.Store
	add := func(st storage.Store) {
		if st != nil && !slices.Contains(list, st) {
			list = append(list, st)
		}
	}
	add(s.execStore())
	for _, w := range s.cfg.Workflows {
		add(s.storeOf(w))
	}
	return list
}

// entryOf is the pending pause of a stored paused run, nil for a run of
// nothing this server serves (or one it cannot read).
func (s *Server) entryOf(rec *storage.Run, st storage.Store) *entry {
	if rec.ParentRunID != "" || rec.Status != run.StatusPaused {
		return nil
	}
	var p *Pause
	var err error
	switch rec.SessionType {
	case storage.SessionWorkflow:
		w := s.workflow(rec.ComponentID)
		if w == nil || s.storeOf(w) != st {
			return nil
		}
		out := &workflow.RunOutput{}
		if err = json.Unmarshal(rec.Data, out); err == nil {
			out.Status = rec.Status
			if out.WorkflowID == "" {
				out.WorkflowID = w.ID()
			}
			p, err = pauseOf(out)
		}
	case storage.SessionAgent, storage.SessionTeam:
		if s.executor(rec.SessionType, rec.ComponentID) == nil || s.execStore() != st {
			return nil
		}
		p, err = pauseOfExecutor(rec)
	default:
		return nil
	}
	if err != nil {
		s.log.Warn("hitl: skipping unreadable paused run", "run_id", rec.RunID, "error", err)
		return nil
	}
	return &entry{pause: p, line: encodeLine(pauseLine{Event: EventWaitingForHuman, Pause: p}), store: st}
}

func (s *Server) acceptLoop(ln *net.UnixListener) {
	defer s.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		nc, err := ln.AcceptUnix()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait and retry.
			s.log.Warn("hitl: accept failed", "error", err)
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		c := &conn{s: s, nc: nc, wake: make(chan struct{}, 1), done: make(chan struct{})}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.conns[c] = struct{}{}
		c.live.Store(2)
		s.wg.Add(2)
		s.mu.Unlock()
		go c.writeLoop()
		go c.serve()
	}
}

// sendListing sends the pending pauses and their count as one block.
func (s *Server) sendListing(c *conn) {
	ctx, cancel := context.WithTimeout(s.runCtx, 10*time.Second)
	defer cancel()
	if err := s.refresh(ctx); err != nil {
		s.log.Warn("hitl: could not list paused runs from storage; listing what this process saw", "error", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.sorted()
	lines := make([][]byte, 0, len(list)+1)
	for _, e := range list {
		lines = append(lines, e.line)
	}
	lines = append(lines, encodeLine(pendingLine{Event: EventPending, Count: len(list)}))
	c.send(lines...)
}

// handle answers one client line.
func (s *Server) handle(c *conn, line []byte) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			c.send(errLine("Invalid JSON: " + err.Error()))
		} else {
			c.send(errLine(`Invalid message: expected a JSON object such as {"action":"ping"}`))
		}
		return
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			c.send(errLine(fmt.Sprintf("Invalid message: field %q must be a %s, not a JSON %s", te.Field, jsonKind(te.Field), te.Value)))
		} else {
			c.send(errLine("Invalid message: " + err.Error()))
		}
		return
	}
	if req.Action == nil {
		c.send(errLine("Unknown action: None"))
		return
	}
	switch *req.Action {
	case ActionPing:
		c.send(encodeLine(struct {
			Event string `json:"event"`
		}{EventPong}))
	case ActionList:
		s.sendListing(c)
	case ActionContinue:
		s.handleContinue(c, &req)
	case ActionContinueRun:
		s.handleContinueRun(c, &req)
	default:
		c.send(errLine("Unknown action: " + *req.Action))
	}
}

func jsonKind(field string) string {
	if field == "step_requirements" || field == "requirements" {
		return "list"
	}
	return "string"
}

// continueResult is what a continuation returned: what to do at its
// end, or why it did not start.
type continueResult struct {
	ended func()
	err   error
}

// handleContinue validates a continue-workflow message, starts the
// continuation in the background and answers once the run is claimed.
func (s *Server) handleContinue(c *conn, req *request) {
	if req.WorkflowID == "" {
		c.send(errLine("workflow_id is required"))
		return
	}
	if req.RunID == "" {
		c.send(errLine("run_id is required"))
		return
	}
	w := s.workflow(req.WorkflowID)
	if w == nil {
		c.send(errLine(fmt.Sprintf("Workflow %s not found", req.WorkflowID)))
		return
	}
	ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
	paused, msg := s.pausedRun(ctx, w, req)
	cancel()
	if msg != "" {
		c.send(errLine(msg))
		return
	}
	var answers []*workflow.StepRequirement
	if raw := bytes.TrimSpace(req.StepRequirements); len(raw) > 0 && string(raw) != "null" {
		var err error
		if answers, err = workflow.ParseStepRequirements(raw); err != nil {
			c.send(errLine("Invalid step_requirements: " + detail(err)))
			return
		}
	}
	creq := &workflow.ContinueRequest{RunID: req.RunID, SessionID: req.SessionID, UserID: req.UserID,
		StepRequirements: answers, Stream: true, StreamEvents: true, StoreEvents: s.cfg.StoreEvents}
	if s.ownStore(w) == nil {
		creq.Output = paused
	}

	s.spawn(c, continuedLine{Event: EventContinued, RunID: req.RunID, WorkflowID: w.ID(), SessionID: req.SessionID},
		func() { s.claimed(w, req.RunID) },
		func(err error) string { return continueError(req.RunID, err) },
		func(ctx context.Context, accept func()) (func(), error) {
			out, err := w.ExecuteContinue(ctx, creq, func(run.Event) bool { accept(); return true })
			if out == nil {
				return nil, err
			}
			return func() { s.finished(w, out, err) }, nil
		})
}

// spawn runs a continuation in the background, not tied to the client's
// connection (agno #8910), and answers the client with continued once
// the run is claimed — its first event comes after the claim — or with
// refuse's text when it was not. exec returns what to do when the run
// ends (nil when it never started).
func (s *Server) spawn(c *conn, continued continuedLine, claimed func(), refuse func(error) string, exec func(ctx context.Context, accept func()) (ended func(), err error)) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.send(errLine("The HITL server is shutting down; try again when it is back"))
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()

	accepted, replied := make(chan struct{}), make(chan struct{})
	results := make(chan continueResult, 1)
	var once sync.Once
	accept := func() {
		once.Do(func() {
			claimed()
			close(accepted)
		})
	}
	go func() {
		defer s.wg.Done()
		reported := false
		defer safe.Recover(s.log, "HITL continuation of run "+continued.RunID, func(pe *safe.PanicError) {
			if !reported {
				results <- continueResult{nil, pe}
			}
		})
		ended, err := exec(s.runCtx, accept)
		results <- continueResult{ended, err}
		reported = true
		if ended == nil {
			return
		}
		accept()
		<-replied
		ended()
	}()
	select {
	case <-accepted:
	case r := <-results:
		if r.ended == nil {
			c.send(errLine(refuse(r.err)))
			close(replied)
			return
		}
		accept()
	}
	c.send(encodeLine(continued))
	close(replied)
}

// pausedRun loads the run a continue-workflow message names and checks it
// is paused; msg is the error to answer with.
func (s *Server) pausedRun(ctx context.Context, w *workflow.Workflow, req *request) (out *workflow.RunOutput, msg string) {
	notFound := fmt.Sprintf("Run %s not found", req.RunID)
	if s.ownStore(w) != nil {
		out, err := w.GetRun(ctx, req.RunID)
		switch {
		case errors.Is(err, run.ErrNotFound):
			return nil, notFound
		case err != nil:
			return nil, fmt.Sprintf("Failed to load run %s: %v", req.RunID, err)
		case req.SessionID != "" && out.SessionID != req.SessionID:
			return nil, notFound
		case out.Status != run.StatusPaused:
			return nil, fmt.Sprintf("Run is not paused (status=%s)", out.Status)
		}
		return out, ""
	}
	s.mu.Lock()
	e := s.pending[req.RunID]
	status, seen := s.storeless[req.RunID]
	s.mu.Unlock()
	if e == nil || e.pause.WorkflowID != w.ID() || e.output == nil {
		if seen {
			return nil, fmt.Sprintf("Run is not paused (status=%s)", status)
		}
		return nil, notFound
	}
	if req.SessionID != "" && e.pause.SessionID != req.SessionID {
		return nil, notFound
	}
	out = &workflow.RunOutput{}
	if err := json.Unmarshal(e.output, out); err != nil {
		return nil, fmt.Sprintf("Failed to load run %s: %v", req.RunID, err)
	}
	return out, ""
}

// claimed records that a continuation took the run.
func (s *Server) claimed(w *workflow.Workflow, runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, runID)
	s.touch(runID)
	if s.ownStore(w) == nil {
		s.setStoreless(runID, run.StatusRunning)
	}
}

// maxStoreless bounds the statuses kept for runs without a store.
const maxStoreless = 4096

// setStoreless records the status of a run without a store; needs s.mu.
func (s *Server) setStoreless(runID string, st run.Status) {
	if _, ok := s.storeless[runID]; !ok {
		s.storelessOrder = append(s.storelessOrder, runID)
		if len(s.storelessOrder) > maxStoreless {
			delete(s.storeless, s.storelessOrder[0])
			s.storelessOrder = s.storelessOrder[1:]
		}
	}
	s.storeless[runID] = st
}

// finished announces the end of a continuation (and a new pause, when
// the workflow's notifier is not this server).
func (s *Server) finished(w *workflow.Workflow, out *workflow.RunOutput, err error) {
	if out.Status == run.StatusPaused && !s.watched(w) {
		s.announce(w, out, true)
	}
	s.mu.Lock()
	if s.ownStore(w) == nil && out.Status != run.StatusPaused {
		s.setStoreless(out.RunID, out.Status)
	}
	s.mu.Unlock()
	s.broadcastFinished(&Finished{RunID: out.RunID, WorkflowID: w.ID(), SessionID: out.SessionID, Status: out.Status, Content: out.Content})
	if err != nil {
		s.log.Warn("workflow run continued over the HITL socket failed", "run_id", out.RunID, "status", out.Status, "error", err)
		return
	}
	s.log.Info("workflow run continued over the HITL socket ended", "run_id", out.RunID, "status", out.Status)
}

// broadcastFinished tells every client a continued run ended.
func (s *Server) broadcastFinished(f *Finished) {
	line := encodeLine(finishedLine{Event: EventRunFinished, Finished: f})
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.send(line)
	}
}

var statusRe = regexp.MustCompile(`\(status=[A-Z_]+\)`)

// continueError renders a refused continuation with agno's texts.
func continueError(runID string, err error) string {
	switch {
	case errors.Is(err, run.ErrNotPaused):
		if st := statusRe.FindString(err.Error()); st != "" {
			return "Run is not paused " + st
		}
		return "Run is not paused"
	case errors.Is(err, run.ErrNotFound):
		return fmt.Sprintf("Run %s not found", runID)
	case errors.Is(err, workflow.ErrInvalidUserInput), errors.Is(err, workflow.ErrNotAsked), errors.Is(err, run.ErrUnresolved), errors.Is(err, run.ErrInvalidAnswer):
		return "Invalid step_requirements: " + detail(err)
	}
	return err.Error()
}

// detail strips our sentinel prefixes so the text after agno's
// "Invalid step_requirements: " reads as agno's does.
func detail(err error) string {
	msg := err.Error()
	for _, p := range []string{"invalid step_requirements: ", workflow.ErrInvalidUserInput.Error() + ": ", run.ErrInvalidAnswer.Error() + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// conn is one client connection: a reader that handles requests in
// order and a writer draining an outbound queue, so announcing a pause
// never waits for a slow client.
type conn struct {
	s  *Server
	nc net.Conn

	mu      sync.Mutex
	queue   [][]byte
	queued  int
	closing bool // close once the queue is written
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	live    atomic.Int32 // goroutines left; the last one unregisters
}

const (
	maxQueuedBytes = 64 << 20
	writeTimeout   = 30 * time.Second
)

// send queues lines without blocking; a client that lets too much pile up
// is disconnected.
func (c *conn) send(lines ...[]byte) {
	c.mu.Lock()
	if c.closed || c.closing {
		c.mu.Unlock()
		return
	}
	for _, l := range lines {
		c.queue = append(c.queue, l)
		c.queued += len(l)
	}
	over := c.queued > maxQueuedBytes
	c.mu.Unlock()
	if over {
		c.s.log.Warn("hitl: client does not read its messages; disconnecting it")
		c.close()
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// sendAndClose queues a last line and closes once it is written.
func (c *conn) sendAndClose(line []byte) {
	c.send(line)
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	close(c.done)
	c.nc.Close()
}

func (c *conn) exit() {
	c.s.wg.Done()
	if c.live.Add(-1) == 0 {
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	}
}

func (c *conn) writeLoop() {
	defer c.exit()
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		c.mu.Lock()
		q, closing := c.queue, c.closing
		c.queue, c.queued = nil, 0
		c.mu.Unlock()
		if len(q) > 0 {
			_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
			bufs := net.Buffers(q)
			if _, err := bufs.WriteTo(c.nc); err != nil {
				c.close()
				return
			}
		}
		if closing {
			c.close()
			return
		}
	}
}

func (c *conn) serve() {
	defer c.exit()
	c.s.sendListing(c)
	br := bufio.NewReader(c.nc)
	for {
		line, err := readLine(br, MaxLineBytes)
		if errors.Is(err, errLineTooLong) {
			c.sendAndClose(errLine(fmt.Sprintf("Message too long: a line may hold at most %d bytes; closing the connection", MaxLineBytes)))
			return
		}
		if err != nil {
			c.close()
			return
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if err := safe.Call(c.s.log, "HITL socket message", func() error { c.s.handle(c, line); return nil }); err != nil {
				c.send(errLine(err.Error()))
			}
		}
	}
}

var errLineTooLong = errors.New("hitl: line too long")

// readLine reads one line (without its newline) of at most max bytes; a
// last line without a newline counts.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		n := len(buf)
		if err == nil {
			n--
		}
		if n > max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return buf[:n], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		}
		return nil, err
	}
}
