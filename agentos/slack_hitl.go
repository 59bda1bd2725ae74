package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	slackapi "github.com/slack-go/slack"
)

// Texts of the approval flow beyond agno's (it has no answer for a card
// whose run moved on).
const (
	slackNotWaiting    = "This run is no longer waiting for an answer (it is %s)."
	slackAnsweredFirst = "This run was answered elsewhere first; nothing was changed."
	slackNotPending    = "This request is no longer pending: the run was answered."
	slackRunNotFound   = "This run was not found: it may have been deleted."
	slackElsewhere     = "_Answered outside Slack — the run is %s._"
	slackContinues     = "_Answered outside Slack; the run continues._"
	slackWorkflowHub   = "⏸ The workflow is waiting for a human answer: continue run `%s` from AgentOS (HTTP, WebSocket or the HITL socket)."
)

// slackCards are the approval cards this process posted whose runs are
// still paused. A pause answered anywhere else (HTTP, WebSocket, the
// HITL socket, another replica) makes its card read-only instead of
// leaving live buttons; a card answered in Slack is taken first.
type slackCards struct {
	mu   sync.Mutex
	live map[string]slackCard // run id → its card
	stop func()
}

type slackCard struct {
	channel, ts, awaitingTS string
}

func (c *slackCards) add(runID string, card slackCard) {
	c.mu.Lock()
	c.live[runID] = card
	c.mu.Unlock()
}

// take removes and returns the card of runID.
func (c *slackCards) take(runID string) (slackCard, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	card, ok := c.live[runID]
	delete(c.live, runID)
	return card, ok
}

// startSlackCards follows run status changes for the cards of s (its
// Start, through h); its Stop stops it.
func (o *OS) startSlackCards(h *Host, s *slack.Config) *slackCards {
	c := &slackCards{live: map[string]slackCard{}}
	api := s.Client()
	c.stop = h.Watch(func(runID string, status run.Status) {
		if status == run.StatusPaused {
			return
		}
		card, ok := c.take(runID)
		if !ok {
			return
		}
		// Watch callbacks must not block: the Web API calls run apart.
		_ = o.eng.Detach(context.Background(), "slack-card:"+runID, "slack", func(ctx context.Context) {
			o.slackAnsweredElsewhere(ctx, api, runID, card)
		})
	})
	return c
}

// slackAnsweredElsewhere makes a card read-only: its run was answered
// (or ended) outside this card.
func (o *OS) slackAnsweredElsewhere(ctx context.Context, api *slackapi.Client, runID string, card slackCard) {
	out, status, err := o.slackStoredRun(ctx, runID)
	if err != nil {
		o.log.Warn("Slack: could not read a run answered elsewhere", "run_id", runID, "err", err)
		return
	}
	var reqs []*run.Requirement
	if out != nil {
		reqs = out.Requirements
	}
	note := fmt.Sprintf(slackElsewhere, status)
	if status == run.StatusRunning || status == run.StatusPending {
		note = slackContinues
	}
	o.slackFreeze(ctx, api, card, reqs, note)
}

// slackFreeze replaces a card with its read-only summary and deletes
// its "⏸ Awaiting…" indicator.
func (o *OS) slackFreeze(ctx context.Context, api *slackapi.Client, card slackCard, reqs []*run.Requirement, note string) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), slackPostTimeout)
	defer cancel()
	if _, _, _, err := api.UpdateMessageContext(pctx, card.channel, card.ts, slackapi.MsgOptionText(slack.SubmittedText, false),
		slackapi.MsgOptionBlocks(slack.Answered(reqs, note)...)); err != nil {
		o.log.Warn("Slack: could not update the approval card", "channel", card.channel, "ts", card.ts, "err", err)
	}
	if card.awaitingTS == "" {
		return
	}
	if _, _, err := api.DeleteMessageContext(pctx, card.channel, card.awaitingTS); err != nil && !strings.Contains(err.Error(), "message_not_found") {
		o.log.Warn("Slack: could not delete the awaiting message", "channel", card.channel, "ts", card.awaitingTS, "err", err)
	}
}

// slackStoredRun reads a run of any kind: the agent's or team's output
// (nil for a workflow) and the row's status, the truth.
func (o *OS) slackStoredRun(ctx context.Context, runID string) (*run.Output, run.Status, error) {
	if o.cfg.Store == nil {
		return nil, "", fmt.Errorf("%w: approvals need storage", run.ErrNoStorage)
	}
	rec, err := o.cfg.Store.GetRun(ctx, runID)
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
func (r *slackReply) paused(ctx context.Context, res Result) {
	if res.Output == nil {
		// A workflow's step pause: agno's Slack cards answer agents and
		// teams; say where to answer it.
		r.post(ctx, fmt.Sprintf(slackWorkflowHub, res.RunID))
		return
	}
	reqs := res.Output.ActiveRequirements()
	if len(reqs) == 0 {
		return
	}
	pctx, cancel := r.bg(ctx)
	defer cancel()
	_, awaitingTS, err := r.api.PostMessageContext(pctx, r.m.Channel, slackapi.MsgOptionText(slack.PauseLabels(reqs), false), slackapi.MsgOptionTS(r.m.ThreadTS))
	if err != nil {
		r.o.log.Warn("Slack: could not post the awaiting message", "run_id", res.RunID, "err", err)
	}
	card := &slack.Card{RunID: res.RunID, AwaitingTS: awaitingTS, Requirements: reqs}
	_, cardTS, err := r.api.PostMessageContext(pctx, r.m.Channel, slackapi.MsgOptionText(slack.CardText, false),
		slackapi.MsgOptionBlocks(card.Blocks()...), slackapi.MsgOptionTS(r.m.ThreadTS))
	if err != nil {
		r.o.log.Error("Slack: could not post the approval card", "run_id", res.RunID, "err", err)
		return
	}
	live := slackCard{channel: r.m.Channel, ts: cardTS, awaitingTS: awaitingTS}
	r.cards.add(res.RunID, live)
	// Answered while the card was being posted: no change will come.
	if _, status, err := r.o.slackStoredRun(pctx, res.RunID); err == nil && status != run.StatusPaused {
		if c, ok := r.cards.take(res.RunID); ok {
			r.o.slackAnsweredElsewhere(ctx, r.api, res.RunID, c)
		}
	}
}

// slackInteract returns the Interactions' Handle: each click is handled
// in the background (Slack wants its answer at once), drained at
// shutdown.
func (o *OS) slackInteract(s *slack.Config, cards *slackCards) func(slack.Action) error {
	api := s.Client()
	return func(a slack.Action) error {
		err := o.eng.Detach(context.Background(), "slack-action:"+run.NewID(), "slack", func(ctx context.Context) {
			o.slackAct(ctx, s, cards, api, a)
		})
		if errors.Is(err, runs.ErrRefused) {
			return slack.ErrBusy
		}
		return err
	}
}

// slackAct is agno's handle_row_approve / handle_row_reject /
// handle_submit: the card is redrawn with the decision, and a complete
// card continues the run in the thread, exactly once whatever other
// channel answers at the same time.
func (o *OS) slackAct(ctx context.Context, s *slack.Config, cards *slackCards, api *slackapi.Client, a slack.Action) {
	kind, id := s.Entity()
	pctx, cancel := context.WithTimeout(ctx, slackPostTimeout)
	defer cancel()
	ephemeral := func(text string) {
		if _, err := api.PostEphemeralContext(pctx, a.Channel, a.User, slackapi.MsgOptionText(text, false), slackapi.MsgOptionTS(a.ThreadTS)); err != nil {
			o.log.Warn("Slack: could not post an ephemeral message", "channel", a.Channel, "err", err)
		}
	}
	sessionID := id + ":" + a.ThreadTS
	card := slackCard{channel: a.Channel, ts: a.MessageTS, awaitingTS: a.AwaitingTS}
	out, status, err := o.slackStoredRun(pctx, a.RunID)
	switch {
	case errors.Is(err, run.ErrNotFound):
		ephemeral(slackRunNotFound)
		return
	case err != nil:
		o.log.Error("Slack: could not read the paused run", "run_id", a.RunID, "err", err)
		ephemeral(slack.ErrorText)
		return
	case out == nil || out.AgentID+out.TeamID == "" || (kind == "agent" && out.AgentID != id) || (kind == "team" && out.TeamID != id) ||
		out.SessionID != sessionID:
		// Not a run of this interface's thread: Slack only sends back
		// what was posted, so this is a stale or foreign card.
		ephemeral(slackRunNotFound)
		return
	case status != run.StatusPaused:
		cards.take(a.RunID)
		ephemeral(fmt.Sprintf(slackNotWaiting, status))
		o.slackFreeze(ctx, api, card, out.Requirements, fmt.Sprintf(slackElsewhere, status))
		return
	}
	c := a.Card(out.ActiveRequirements())
	if a.ID != slack.ActionSubmit {
		found := false
		for _, r := range c.Requirements {
			found = found || r.ID == a.RequirementID
		}
		if !found {
			ephemeral(slackNotPending)
			return
		}
		text := "Approval pending"
		if a.ID == slack.ActionReject {
			text = "Rejection pending"
		}
		if _, _, _, err := api.UpdateMessageContext(pctx, a.Channel, a.MessageTS, slackapi.MsgOptionText(text, false), slackapi.MsgOptionBlocks(c.Blocks()...)); err != nil {
			o.log.Warn("Slack: could not update the approval card", "run_id", a.RunID, "err", err)
		}
		if a.ID != slack.ActionApprove || !c.AutoSubmit() {
			return
		}
	}
	if errs := c.Apply(); len(errs) > 0 {
		ephemeral(slack.FixText(errs))
		return
	}
	cards.take(a.RunID)
	o.slackFreeze(ctx, api, card, c.Requirements, "Submitted by <@"+a.User+">")
	ex := o.servedExecutor(kind, id)
	if ex == nil {
		o.log.Error("Slack: the answering "+kind+" is no longer served", "id", id)
		ephemeral(slack.ErrorText)
		return
	}
	m := slack.Message{Channel: a.Channel, User: a.User, ThreadTS: a.ThreadTS, SessionID: sessionID, Team: a.Team}
	err = o.eng.Detach(ctx, a.RunID, kind, func(ctx context.Context) {
		r := &slackReply{o: o, s: s, api: api, m: m, kind: kind, id: id, cards: cards}
		r.answer(ctx, slack.DeniedTasks(c.Requirements), func(emit run.Emitter) Result {
			creq := &run.ContinueRequest{RunID: a.RunID, SessionID: sessionID, Requirements: c.Requirements,
				Stream: s.Streaming, StreamEvents: s.Streaming, StoreEvents: true}
			return outputResultOf(ex.ExecuteContinue(ctx, creq, emit))
		})
	})
	if err != nil {
		o.log.Warn("Slack: could not continue the run", "run_id", a.RunID, "err", err)
		ephemeral(slack.ErrorText)
	}
}
