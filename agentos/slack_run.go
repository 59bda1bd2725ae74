package agentos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	slackapi "github.com/slack-go/slack"
)

// slackPostTimeout bounds a Web API call made after the run, so a
// drained (cancelled) run still posts its error but cannot hold shutdown.
const slackPostTimeout = 10 * time.Second

// slackEventParams documents the events body (Slack's envelope).
var slackEventParams = []apiParam{
	{Name: "type", Type: "string", Desc: "url_verification or event_callback", Required: true},
	{Name: "challenge", Type: "string", Desc: "url_verification: echoed back"},
	{Name: "event", Type: "object", Desc: "event_callback: the event (app_mention, message)"},
}

// slackStart returns the Events' Start: it runs the message through the
// engine like a background HTTP run (drained at shutdown, cancellable)
// and posts the answer in the thread: streamed (agno's default) or whole.
func (o *OS) slackStart(s *slack.Config) func(slack.Message) error {
	api := s.Client()
	kind, id := s.Entity()
	return func(m slack.Message) error {
		req := &run.Request{Input: m.Text, RunID: run.NewID(), SessionID: m.SessionID, UserID: m.User,
			Metadata: map[string]any{"channel_id": m.Channel}}
		err := o.eng.Detach(context.Background(), req.RunID, kind, func(ctx context.Context) {
			bg := func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.WithoutCancel(ctx), slackPostTimeout)
			}
			post := func(text string) {
				pctx, cancel := bg()
				defer cancel()
				if err := slack.Post(pctx, api, m, text); err != nil {
					o.log.Warn("Slack: could not post the reply", "channel", m.Channel, "thread_ts", m.ThreadTS, "err", err)
				}
			}
			sctx, cancel := bg()
			slack.SetStatus(sctx, api, m, true)
			cancel()
			if s.Streaming {
				// Slack clears the status when the stream stops.
				o.slackStream(ctx, api, m, kind, id, req, bg)
				return
			}
			defer func() {
				sctx, cancel := bg()
				defer cancel()
				slack.SetStatus(sctx, api, m, false)
			}()
			content, reasoning, status, err := o.runForSlack(ctx, kind, id, req, nil)
			switch {
			case status == run.StatusError:
				o.log.Error("Slack: the run failed", "run_id", req.RunID, "err", err)
				post(slack.RunErrorText)
			case err != nil:
				o.log.Error("Slack: could not run", "run_id", req.RunID, "err", err)
				post(slack.ErrorText)
			default:
				if reasoning != "" {
					post(slack.Reasoning(reasoning))
				}
				post(content)
			}
		})
		if errors.Is(err, runs.ErrShuttingDown) {
			return slack.ErrBusy
		}
		return err
	}
}

// runForSlack executes req on the served agent, team or workflow id and
// returns its text, reasoning and status.
func (o *OS) runForSlack(ctx context.Context, kind, id string, req *run.Request, emit run.Emitter) (content, reasoning string, status run.Status, err error) {
	cat := o.catalog()
	var ex run.Executor
	switch kind {
	case "agent":
		if a, ok := cat.agents[id]; ok {
			ex = a
		}
	case "team":
		if t, ok := cat.teams[id]; ok {
			ex = t
		}
	default:
		wf, ok := cat.workflows[id]
		if !ok {
			return "", "", "", fmt.Errorf("workflow %q is no longer served", id)
		}
		out, err := wf.Execute(ctx, req, emit)
		if out == nil {
			return "", "", "", err
		}
		return run.ContentText(out.Content), "", out.Status, err
	}
	if ex == nil {
		return "", "", "", fmt.Errorf("%s %q is no longer served", kind, id)
	}
	out, err := ex.Execute(ctx, req, emit)
	if out == nil {
		return "", "", "", err
	}
	return run.ContentText(out.Content), out.ReasoningContent, out.Status, err
}

// slackStream is agno's _stream_slack_response: the run's own content
// deltas (RunContent of the agent, TeamRunContent of the team; not a
// member's) are streamed in the thread in batches of
// slack.StreamBufferSize characters; a workflow, or a run that streamed
// nothing, sends its final content. A failure stops the open stream,
// clears the status and posts agno's error text.
func (o *OS) slackStream(ctx context.Context, api *slackapi.Client, m slack.Message, kind, id string, req *run.Request,
	bg func() (context.Context, context.CancelFunc)) {
	st := slack.NewStream(api, m)
	var (
		mu       sync.Mutex
		streamed bool
		sendErr  error
	)
	send := func(text string) {
		if sendErr != nil || text == "" {
			return
		}
		pctx, cancel := bg()
		defer cancel()
		if !st.Titled {
			st.Titled = true
			slack.SetTitle(pctx, api, m)
		}
		sendErr = st.Append(pctx, text)
	}
	emit := func(ev run.Event) bool {
		rc, ok := ev.(*run.RunContent)
		if !ok {
			return true
		}
		own := (kind == "agent" && ev.Kind() == "RunContent" && rc.AgentID == id) ||
			(kind == "team" && ev.Kind() == "TeamRunContent" && rc.TeamID == id)
		if !own {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		if text := run.ContentText(rc.Content); text != "" {
			streamed = true
			send(text)
		}
		return true
	}
	var em run.Emitter
	if kind != "workflow" {
		// agno runs with stream=True, stream_events=True.
		req.Stream, req.StreamEvents = true, true
		em = emit
	}
	content, _, status, err := o.runForSlack(ctx, kind, id, req, em)
	mu.Lock()
	defer mu.Unlock()
	if err == nil && status != run.StatusError && !streamed {
		send(content)
	}
	fail := func(text string) {
		pctx, cancel := bg()
		defer cancel()
		slack.SetStatus(pctx, api, m, false)
		st.Abort(pctx)
		if err := slack.Post(pctx, api, m, text); err != nil {
			o.log.Warn("Slack: could not post the reply", "channel", m.Channel, "thread_ts", m.ThreadTS, "err", err)
		}
	}
	switch {
	case status == run.StatusError:
		o.log.Error("Slack: the run failed", "run_id", req.RunID, "err", err)
		fail(slack.RunErrorText)
		return
	case err != nil:
		o.log.Error("Slack: could not run", "run_id", req.RunID, "err", err)
		fail(slack.ErrorText)
		return
	}
	if sendErr == nil {
		pctx, cancel := bg()
		sendErr = st.Stop(pctx)
		cancel()
	}
	if sendErr != nil {
		o.log.Warn("Slack: could not stream the reply", "channel", m.Channel, "thread_ts", m.ThreadTS, "err", sendErr)
		fail(slack.ErrorText)
		return
	}
	if !st.Started() {
		// Nothing to say: Slack did not see a message, clear the status.
		pctx, cancel := bg()
		slack.SetStatus(pctx, api, m, false)
		cancel()
	}
}
