package hitl

import (
	"context"
	"errors"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// maxQueuedChanges bounds the status changes waiting to be read; past it
// they are dropped and everything is listed from storage again.
const maxQueuedChanges = 1024

// watch follows the run engine's status changes (Start).
func (s *Server) watch() {
	eng := s.cfg.Runs
	if eng == nil {
		st := s.execStore()
		if st == nil {
			return
		}
		eng = runs.For(st)
	}
	s.mu.Lock()
	s.eng = eng
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.runCtx)
	changes := make(chan runs.Change, maxQueuedChanges)
	s.wg.Add(1)
	go s.changeLoop(ctx, changes)
	stop := eng.Watch(func(c runs.Change) {
		if c.ParentRunID != "" {
			return // nested runs are answered through their parent
		}
		if !s.relevant(c) {
			return // a run that never paused asks nothing of the socket
		}
		select {
		case changes <- c:
		default:
			s.settled(c)
			s.resync.Store(true)
			select {
			case changes <- runs.Change{}: // wakes the loop for the resync
			default:
			}
		}
	})
	s.mu.Lock()
	s.stopWatch = func() { stop(); cancel() }
	s.mu.Unlock()
}

// relevant reports a change the loop must read: a pause, or a change of
// a run that is pending or whose pause is on its way to being.
func (s *Server) relevant(c runs.Change) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Status == run.StatusPaused {
		s.pausing[c.RunID]++
		return true
	}
	_, pending := s.pending[c.RunID]
	return pending || s.pausing[c.RunID] > 0
}

// settled marks a pause change read (or dropped).
func (s *Server) settled(c runs.Change) {
	if c.Status != run.StatusPaused {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pausing[c.RunID]--; s.pausing[c.RunID] <= 0 {
		delete(s.pausing, c.RunID)
	}
}

// unwatch stops following changes.
func (s *Server) unwatch() {
	s.mu.Lock()
	stop := s.stopWatch
	s.stopWatch = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// watched reports a workflow whose pauses the engine announces (so the
// workflow's own notifications would repeat them).
func (s *Server) watched(w *workflow.Workflow) bool {
	s.mu.Lock()
	eng := s.eng
	s.mu.Unlock()
	return eng != nil && eng.Store() != nil && s.storeOf(w) == eng.Store()
}

// changeLoop reads each changed run from storage (the truth; a change
// is only a hint) and announces what it finds.
func (s *Server) changeLoop(ctx context.Context, changes <-chan runs.Change) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-changes:
			// A failure reading one change must not stop the others.
			_ = safe.Call(s.log, "HITL run change", func() error {
				if s.resync.Load() {
					s.resyncAll(ctx)
				} else if c.RunID != "" {
					s.onChange(ctx, c)
				}
				return nil
			})
			s.settled(c)
		}
	}
}

func (s *Server) resyncAll(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.reconcile(ctx, true); err != nil && ctx.Err() == nil {
		s.log.Warn("hitl: could not list paused runs after missed changes", "error", err)
	}
}

func (s *Server) onChange(ctx context.Context, c runs.Change) {
	s.mu.Lock()
	st := s.eng.Store()
	s.mu.Unlock()
	if st == nil || !s.serves(c.SessionType, c.ComponentID) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rec, err := st.GetRun(ctx, c.RunID)
	switch {
	case errors.Is(err, storage.ErrNotFound) || errors.Is(err, run.ErrNotFound):
		s.mu.Lock()
		s.drop(c.RunID, "")
		s.mu.Unlock()
		return
	case err != nil:
		if ctx.Err() == nil {
			s.log.Warn("hitl: could not read a changed run; it is listed at the next connect", "run_id", c.RunID, "error", err)
		}
		return
	}
	if rec.Status != run.StatusPaused {
		s.mu.Lock()
		s.drop(rec.RunID, rec.Status)
		s.mu.Unlock()
		return
	}
	if e := s.entryOf(rec, st); e != nil {
		s.mu.Lock()
		s.put(e)
		s.mu.Unlock()
	}
}

// serves reports a component this server answers pauses of.
func (s *Server) serves(t storage.SessionType, id string) bool {
	switch t {
	case storage.SessionWorkflow:
		return s.workflow(id) != nil
	case storage.SessionAgent, storage.SessionTeam:
		return s.executor(t, id) != nil
	}
	return false
}
