package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	slackapi "github.com/slack-go/slack"
)

// Texts of the approval flow beyond agno's (it has no answer for a card
// whose run moved on).
const (
	notWaitingText    = "This run is no longer waiting for an answer (it is %s)."
	answeredFirstText = "This run was answered elsewhere first; nothing was changed."
	notPendingText    = "This request is no longer pending: the run was answered."
	runNotFoundText   = "This run was not found: it may have been deleted."
	elsewhereText     = "_Answered outside Slack — the run is %s._"
	continuesText     = "_Answered outside Slack; the run continues._"
	workflowHubText   = "⏸ The workflow is waiting for a human answer: continue run `%s` from AgentOS (HTTP, WebSocket or the HITL socket)."
)

// liveCards are the approval cards this process posted whose runs are
// still paused. A pause answered anywhere else (HTTP, WebSocket, the
// HITL socket, another replica) makes its card read-only instead of
// leaving live buttons; a card answered in Slack is taken first.
type liveCards struct {
	mu   sync.Mutex
	live map[string]liveCard // run id → its card
	stop func()
}

type liveCard struct {
	channel, ts, awaitingTS string
}

func (c *liveCards) add(runID string, card liveCard) {
	c.mu.Lock()
	c.live[runID] = card
	c.mu.Unlock()
}

// take removes and returns the card of runID.
func (c *liveCards) take(runID string) (liveCard, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	card, ok := c.live[runID]
	delete(c.live, runID)
	return card, ok
}

// startCards follows run status changes for the cards posted (at
// Start); Stop stops it.
func (s *Interface) startCards() *liveCards {
	c := &liveCards{live: map[string]liveCard{}}
	c.stop = s.host.Watch(func(runID string, status run.Status) {
		if status == run.StatusPaused {
			return
		}
		card, ok := c.take(runID)
		if !ok {
			return
		}
		// Watch callbacks must not block: the Web API calls run apart.
		_ = s.host.Detach(context.Background(), "slack-card:"+runID, "slack", func(ctx context.Context) {
			s.answeredElsewhere(ctx, runID, card)
		})
	})
	return c
}

// answeredElsewhere makes a card read-only: its run was answered (or
// ended) outside this card.
func (s *Interface) answeredElsewhere(ctx context.Context, runID string, card liveCard) {
	out, status, err := s.storedRun(ctx, runID)
	if err != nil {
		s.host.Logger().Warn("Slack: could not read a run answered elsewhere", "run_id", runID, "err", err)
		return
	}
	var reqs []*run.Requirement
	if out != nil {
		reqs = out.Requirements
	}
	note := fmt.Sprintf(elsewhereText, status)
	if status == run.StatusRunning || status == run.StatusPending {
		note = continuesText
	}
	s.freeze(ctx, card, reqs, note)
}

// freeze replaces a card with its read-only summary and deletes its
// "⏸ Awaiting…" indicator.
func (s *Interface) freeze(ctx context.Context, card liveCard, reqs []*run.Requirement, note string) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
	defer cancel()
	if _, _, _, err := s.api.UpdateMessageContext(pctx, card.channel, card.ts, slackapi.MsgOptionText(SubmittedText, false),
		slackapi.MsgOptionBlocks(Answered(reqs, note)...)); err != nil {
		s.host.Logger().Warn("Slack: could not update the approval card", "channel", card.channel, "ts", card.ts, "err", err)
	}
	if card.awaitingTS == "" {
		return
	}
	if _, _, err := s.api.DeleteMessageContext(pctx, card.channel, card.awaitingTS); err != nil && !strings.Contains(err.Error(), "message_not_found") {
		s.host.Logger().Warn("Slack: could not delete the awaiting message", "channel", card.channel, "ts", card.awaitingTS, "err", err)
	}
}

// storedRun reads a run of any kind: the agent's or team's output (nil
// for a workflow) and the row's status, the truth.
func (s *Interface) storedRun(ctx context.Context, runID string) (*run.Output, run.Status, error) {
	store := s.host.Store()
	if store == nil {
		return nil, "", fmt.Errorf("%w: approvals need storage", run.ErrNoStorage)
	}
	rec, err := store.GetRun(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, "", run.ErrNotFound
	}
	if err != nil {
		return nil, "", err
	}
	if rec.SessionType == storage.SessionWorkflow {
		return nil, rec.Status, nil
	}
	out := &run.Output{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, "", fmt.Errorf("stored run %s is unreadable: %w", runID, err)
	}
	out.Status = rec.Status
	return out, rec.Status, nil
}

// paused posts agno's pause messages for a paused run: the "⏸ Awaiting…"
// indicator, then the approval card, which this process follows until
// the run is answered.
func (r *threadReply) paused(ctx context.Context, res agentos.Result) {
	if res.Output == nil {
		// A workflow's step pause: agno's Slack cards answer agents and
		// teams; say where to answer it.
		r.post(ctx, fmt.Sprintf(workflowHubText, res.RunID))
		return
	}
	reqs := res.Output.ActiveRequirements()
	if len(reqs) == 0 {
		return
	}
	pctx, cancel := r.bg(ctx)
	defer cancel()
	_, awaitingTS, err := r.s.api.PostMessageContext(pctx, r.m.Channel, slackapi.MsgOptionText(PauseLabels(reqs), false), slackapi.MsgOptionTS(r.m.ThreadTS))
	if err != nil {
		r.log().Warn("Slack: could not post the awaiting message", "run_id", res.RunID, "err", err)
	}
	card := &Card{RunID: res.RunID, AwaitingTS: awaitingTS, Requirements: reqs}
	_, cardTS, err := r.s.api.PostMessageContext(pctx, r.m.Channel, slackapi.MsgOptionText(CardText, false),
		slackapi.MsgOptionBlocks(card.Blocks()...), slackapi.MsgOptionTS(r.m.ThreadTS))
	if err != nil {
		r.log().Error("Slack: could not post the approval card", "run_id", res.RunID, "err", err)
		return
	}
	live := liveCard{channel: r.m.Channel, ts: cardTS, awaitingTS: awaitingTS}
	r.s.cards.add(res.RunID, live)
	// Answered while the card was being posted: no change will come.
	if _, status, err := r.s.storedRun(pctx, res.RunID); err == nil && status != run.StatusPaused {
		if c, ok := r.s.cards.take(res.RunID); ok {
			r.s.answeredElsewhere(ctx, res.RunID, c)
		}
	}
}

// interact is the Interactions' Handle: each click is handled in the
// background (Slack wants its answer at once), drained at shutdown.
func (s *Interface) interact(a Action) error {
	err := s.host.Detach(context.Background(), "slack-action:"+run.NewID(), "slack", func(ctx context.Context) {
		s.act(ctx, a)
	})
	if errors.Is(err, runs.ErrRefused) {
		return ErrBusy
	}
	return err
}

// act is agno's handle_row_approve / handle_row_reject / handle_submit:
// the card is redrawn with the decision, and a complete card continues
// the run in the thread, exactly once whatever other channel answers at
// the same time.
func (s *Interface) act(ctx context.Context, a Action) {
	api, log := s.api, s.host.Logger()
	kind, id := s.cfg.Entity()
	pctx, cancel := context.WithTimeout(ctx, postTimeout)
	defer cancel()
	ephemeral := func(text string) {
		if _, err := api.PostEphemeralContext(pctx, a.Channel, a.User, slackapi.MsgOptionText(text, false), slackapi.MsgOptionTS(a.ThreadTS)); err != nil {
			log.Warn("Slack: could not post an ephemeral message", "channel", a.Channel, "err", err)
		}
	}
	sessionID := id + ":" + a.ThreadTS
	card := liveCard{channel: a.Channel, ts: a.MessageTS, awaitingTS: a.AwaitingTS}
	out, status, err := s.storedRun(pctx, a.RunID)
	switch {
	case errors.Is(err, run.ErrNotFound):
		ephemeral(runNotFoundText)
		return
	case err != nil:
		log.Error("Slack: could not read the paused run", "run_id", a.RunID, "err", err)
		ephemeral(ErrorText)
		return
	case out == nil || out.AgentID+out.TeamID == "" || (kind == "agent" && out.AgentID != id) || (kind == "team" && out.TeamID != id) ||
		out.SessionID != sessionID:
		// Not a run of this interface's thread: Slack only sends back
		// what was posted, so this is a stale or foreign card.
		ephemeral(runNotFoundText)
		return
	case status != run.StatusPaused:
		s.cards.take(a.RunID)
		ephemeral(fmt.Sprintf(notWaitingText, status))
		s.freeze(ctx, card, out.Requirements, fmt.Sprintf(elsewhereText, status))
		return
	}
	c := a.Card(out.ActiveRequirements())
	if a.ID != ActionSubmit {
		found := false
		for _, r := range c.Requirements {
			found = found || r.ID == a.RequirementID
		}
		if !found {
			ephemeral(notPendingText)
			return
		}
		text := "Approval pending"
		if a.ID == ActionReject {
			text = "Rejection pending"
		}
		if _, _, _, err := api.UpdateMessageContext(pctx, a.Channel, a.MessageTS, slackapi.MsgOptionText(text, false), slackapi.MsgOptionBlocks(c.Blocks()...)); err != nil {
			log.Warn("Slack: could not update the approval card", "run_id", a.RunID, "err", err)
		}
		if a.ID != ActionApprove || !c.AutoSubmit() {
			return
		}
	}
	if errs := c.Apply(); len(errs) > 0 {
		ephemeral(FixText(errs))
		return
	}
	s.cards.take(a.RunID)
	s.freeze(ctx, card, c.Requirements, "Submitted by <@"+a.User+">")
	ex := s.host.Executor(kind, id)
	if ex == nil {
		log.Error("Slack: the answering "+kind+" is no longer served", "id", id)
		ephemeral(ErrorText)
		return
	}
	m := Message{Channel: a.Channel, User: a.User, ThreadTS: a.ThreadTS, SessionID: sessionID, Team: a.Team}
	err = s.host.Detach(ctx, a.RunID, kind, func(ctx context.Context) {
		r := &threadReply{s: s, m: m, kind: kind, id: id}
		r.answer(ctx, DeniedTasks(c.Requirements), func(emit run.Emitter) agentos.Result {
			creq := &run.ContinueRequest{RunID: a.RunID, SessionID: sessionID, Requirements: c.Requirements,
				Stream: s.cfg.Streaming, StreamEvents: s.cfg.Streaming, StoreEvents: true}
			return agentos.OutputResult(ex.ExecuteContinue(ctx, creq, emit))
		})
	})
	if err != nil {
		log.Warn("Slack: could not continue the run", "run_id", a.RunID, "err", err)
		ephemeral(ErrorText)
	}
}
