package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// startMemory runs automatic memory extraction beside the main model call
// (agno §1.4 step 6); the returned wait joins it before the run ends.
func (st *runState) startMemory(input string) (wait func()) {
	s := st.spec
	if s.MemoryManager == nil || !s.EnableUserMemories || s.EnableAgenticMemory || input == "" {
		return func() {}
	}
	msgs := []model.Message{{Role: model.RoleUser, Content: input}}
	agentID, teamID := s.ID, ""
	if s.Team {
		agentID, teamID = "", s.ID
	}
	userID := st.rc.UserID
	ctx := context.WithoutCancel(st.ctx)
	type result struct {
		mems any
		err  error
	}
	done := make(chan result, 1)
	safe.Go(s.logger, "memory update of run "+st.out.RunID, func() {
		mems, err := s.MemoryManager.CreateUserMemories(ctx, userID, msgs, agentID, teamID)
		done <- result{mems, err}
	}, func(pe *safe.PanicError) { done <- result{nil, pe} })
	return func() {
		st.sendOptional(&run.MemoryUpdateStarted{EventBase: st.base()})
		r := <-done
		if r.err != nil {
			s.logger.Warn("memory update failed", "run_id", st.out.RunID, "error", r.err)
		}
		st.sendOptional(&run.MemoryUpdateCompleted{EventBase: st.base(), Memories: r.mems})
	}
}

// summarize updates the session summary after a completed run (agno §1.4
// step 14). Errors are logged, not fatal.
func (st *runState) summarize() {
	s := st.spec
	if s.SessionSummaryManager == nil || s.Store == nil || st.session == nil {
		return
	}
	st.sendOptional(&run.SessionSummaryStarted{EventBase: st.base()})
	if err := st.h.WriteStart(st.ctx); err != nil { // the summary goes to the stored session
		s.logger.Warn("session summary: could not store the run's start", "error", err)
		return
	}
	recs, err := s.Store.ListRuns(st.ctx, storage.RunQuery{SessionID: st.out.SessionID, ComponentID: s.ID, TopLevel: true, Status: []run.Status{run.StatusCompleted}})
	if err != nil {
		s.logger.Warn("session summary: could not read runs", "error", err)
		return
	}
	var runs [][]model.Message
	for _, r := range recs {
		if r.RunID == st.out.RunID {
			continue
		}
		var past struct {
			Messages []model.Message `json:"messages"`
		}
		if json.Unmarshal(r.Data, &past) == nil {
			runs = append(runs, past.Messages)
		}
	}
	runs = append(runs, st.storedMessages())
	sum, err := s.SessionSummaryManager.Summarize(st.ctx, s.SessionSummaryManager.Conversation(runs))
	if err != nil {
		s.logger.Warn("session summary failed", "session_id", st.out.SessionID, "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(st.ctx), 30*time.Second)
	defer cancel()
	if _, err := s.Store.UpdateSession(ctx, st.out.SessionID, func(sess *storage.Session) error {
		sess.Summary = sum
		return nil
	}); err != nil {
		s.logger.Warn("session summary: could not store", "error", err)
	}
	st.sendOptional(&run.SessionSummaryCompleted{EventBase: st.base(), SessionSummary: sum})
}
