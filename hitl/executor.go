package hitl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// execStore is where paused agent and team runs are read from.
func (s *Server) execStore() storage.Store {
	if s.cfg.Store != nil {
		return s.cfg.Store
	}
	if s.cfg.Runs != nil {
		return s.cfg.Runs.Store()
	}
	return nil
}

// executor finds a served agent (t agent) or team (t team) by id.
func (s *Server) executor(t storage.SessionType, id string) run.Executor {
	known, lookup := s.agents, s.cfg.LookupAgent
	if t == storage.SessionTeam {
		known, lookup = s.teams, s.cfg.LookupTeam
	}
	if ex := known[id]; ex != nil {
		return ex
	}
	if lookup != nil {
		return lookup(id)
	}
	return nil
}

// pausedExecutorRun is the part of a stored agent or team run a pause
// shows.
type pausedExecutorRun struct {
	RunID        string             `json:"run_id"`
	AgentID      string             `json:"agent_id"`
	AgentName    string             `json:"agent_name"`
	TeamID       string             `json:"team_id"`
	TeamName     string             `json:"team_name"`
	SessionID    string             `json:"session_id"`
	UserID       string             `json:"user_id"`
	CreatedAt    int64              `json:"created_at"`
	Requirements []*run.Requirement `json:"requirements"`
}

// pauseOfExecutor builds the announcement of a paused agent or team run.
func pauseOfExecutor(rec *storage.Run) (*Pause, error) {
	var doc pausedExecutorRun
	if err := run.DecodeJSON(rec.Data, &doc); err != nil {
		return nil, fmt.Errorf("run %s: %w", rec.RunID, err)
	}
	p := &Pause{RunID: rec.RunID, SessionID: rec.SessionID, UserID: rec.UserID, CreatedAt: rec.CreatedAt,
		PauseKind: "executor", Requirements: run.Active(doc.Requirements)}
	if rec.SessionType == storage.SessionTeam {
		p.TeamID, p.TeamName = rec.ComponentID, doc.TeamName
	} else {
		p.AgentID, p.AgentName = rec.ComponentID, doc.AgentName
	}
	if len(p.Requirements) == 0 {
		return nil, fmt.Errorf("run %s is paused but lists no open requirement", rec.RunID)
	}
	return p, nil
}

// handleContinueRun validates a continue-run message (an agent's or a
// team's answers) and continues the run in the background.
func (s *Server) handleContinueRun(c *conn, req *request) {
	kind, id := storage.SessionAgent, req.AgentID
	switch {
	case req.AgentID != "" && req.TeamID != "":
		c.send(errLine("Give agent_id or team_id, not both"))
		return
	case req.TeamID != "":
		kind, id = storage.SessionTeam, req.TeamID
	case req.AgentID == "":
		c.send(errLine("agent_id or team_id is required"))
		return
	}
	if req.RunID == "" {
		c.send(errLine("run_id is required"))
		return
	}
	ex := s.executor(kind, id)
	if ex == nil {
		c.send(errLine(fmt.Sprintf("%s %s not found", titled(kind), id)))
		return
	}
	st := s.execStore()
	if st == nil {
		c.send(errLine(fmt.Sprintf("Run %s not found", req.RunID)))
		return
	}
	ctx, cancel := context.WithTimeout(s.runCtx, 30*time.Second)
	rec, err := st.GetRun(ctx, req.RunID)
	cancel()
	switch {
	case errors.Is(err, storage.ErrNotFound) || errors.Is(err, run.ErrNotFound) || err == nil && (rec.ComponentID != ex.ID() || rec.SessionType != kind || rec.ParentRunID != "" ||
		req.SessionID != "" && rec.SessionID != req.SessionID):
		c.send(errLine(fmt.Sprintf("Run %s not found", req.RunID)))
		return
	case err != nil:
		c.send(errLine(fmt.Sprintf("Failed to load run %s: %v", req.RunID, err)))
		return
	case rec.Status != run.StatusPaused:
		c.send(errLine(fmt.Sprintf("Run is not paused (status=%s)", rec.Status)))
		return
	}
	var answers []*run.Requirement
	if raw := bytes.TrimSpace(req.Requirements); len(raw) > 0 && string(raw) != "null" {
		if err := run.DecodeJSON(raw, &answers); err != nil {
			c.send(errLine("Invalid requirements: " + err.Error()))
			return
		}
	}
	creq := &run.ContinueRequest{RunID: rec.RunID, SessionID: rec.SessionID, UserID: req.UserID, Requirements: answers,
		Stream: true, StreamEvents: true, StoreEvents: s.cfg.StoreEvents}
	continued := continuedLine{Event: EventContinued, RunID: rec.RunID, SessionID: rec.SessionID}
	if kind == storage.SessionTeam {
		continued.TeamID = ex.ID()
	} else {
		continued.AgentID = ex.ID()
	}
	s.spawn(c, continued,
		func() {
			s.mu.Lock()
			delete(s.pending, rec.RunID)
			s.touch(rec.RunID)
			s.mu.Unlock()
		},
		func(err error) string { return continueRunError(rec.RunID, err) },
		func(ctx context.Context, accept func()) (func(), error) {
			out, err := ex.ExecuteContinue(ctx, creq, func(run.Event) bool { accept(); return true })
			if out == nil {
				return nil, err
			}
			return func() { s.executorFinished(kind, ex.ID(), out, err) }, nil
		})
}

// executorFinished announces the end of an agent's or team's
// continuation (and its new pause when nothing watches the engine).
func (s *Server) executorFinished(kind storage.SessionType, id string, out *run.Output, err error) {
	if out.Status == run.StatusPaused && !s.watching() {
		if data, merr := json.Marshal(out); merr == nil {
			rec := &storage.Run{RunID: out.RunID, SessionID: out.SessionID, SessionType: kind, ComponentID: id, UserID: out.UserID,
				Status: out.Status, CreatedAt: out.CreatedAt, Data: data}
			if e := s.entryOf(rec, s.execStore()); e != nil {
				s.mu.Lock()
				s.put(e)
				s.mu.Unlock()
			}
		}
	}
	f := &Finished{RunID: out.RunID, SessionID: out.SessionID, Status: out.Status, Content: out.Content}
	if kind == storage.SessionTeam {
		f.TeamID = id
	} else {
		f.AgentID = id
	}
	s.broadcastFinished(f)
	if err != nil {
		s.log.Warn(string(kind)+" run continued over the HITL socket failed", "run_id", out.RunID, "status", out.Status, "error", err)
		return
	}
	s.log.Info(string(kind)+" run continued over the HITL socket ended", "run_id", out.RunID, "status", out.Status)
}

// watching reports that the run engine's changes are followed.
func (s *Server) watching() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopWatch != nil
}

// continueRunError renders a refused agent or team continuation.
func continueRunError(runID string, err error) string {
	switch {
	case errors.Is(err, run.ErrNotPaused):
		if st := statusRe.FindString(err.Error()); st != "" {
			return "Run is not paused " + st
		}
		return "Run is not paused"
	case errors.Is(err, run.ErrNotFound):
		return fmt.Sprintf("Run %s not found", runID)
	case errors.Is(err, run.ErrUnresolved), errors.Is(err, run.ErrInvalidAnswer):
		return "Invalid requirements: " + strings.TrimPrefix(err.Error(), run.ErrInvalidAnswer.Error()+": ")
	}
	return err.Error()
}

func titled(t storage.SessionType) string {
	if t == storage.SessionTeam {
		return "Team"
	}
	return "Agent"
}
