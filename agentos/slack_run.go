package agentos

import (
	"context"
	"errors"
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
	{Name: "event", Type: "object", Desc: "event_callback: the event (app_mention, message, assistant_thread_started)"},
}

// slackInteractionParams documents the interactions body.
var slackInteractionParams = []apiParam{
	{Name: "payload", Type: "string", Desc: "Slack's block_actions payload (JSON): the card clicked, its state and the action (row_approve, row_reject, submit_pause)", Required: true},
}

// slackReply answers in one Slack thread for the served agent, team or
// workflow: a new message, or a run continued from its approval card.
type slackReply struct {
	o    *OS
	s    *slack.Config
	api  *slackapi.Client
	m    slack.Message
	kind string
	id   string
	// title: set the thread's title from m.Text (a new conversation).
	title bool
	// cards follows the approval cards posted (slack_hitl.go).
	cards *slackCards
}

// bg is a context for a Web API call after the run: it outlives a
// cancelled run, within slackPostTimeout.
func (r *slackReply) bg(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), slackPostTimeout)
}

func (r *slackReply) post(ctx context.Context, text string) {
	pctx, cancel := r.bg(ctx)
	defer cancel()
	if err := slack.Post(pctx, r.api, r.m, text); err != nil {
		r.o.log.Warn("Slack: could not post the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", err)
	}
}

func (r *slackReply) status(ctx context.Context, thinking bool) {
	pctx, cancel := r.bg(ctx)
	defer cancel()
	slack.SetStatus(pctx, r.api, r.m, thinking)
}

// slackStart returns the Events' Start: it runs the message through the
// engine like a background HTTP run (drained at shutdown, cancellable)
// and posts the answer in the thread: streamed (agno's default) or whole.
func (o *OS) slackStart(s *slack.Config, cards *slackCards) func(slack.Message) error {
	api := s.Client()
	kind, id := s.Entity()
	return func(m slack.Message) error {
		req := &run.Request{Input: m.Text, RunID: run.NewID(), SessionID: m.SessionID, UserID: m.User,
			Metadata: map[string]any{"channel_id": m.Channel}}
		if s.Streaming && kind != "workflow" {
			req.Stream, req.StreamEvents = true, true // agno: stream=True, stream_events=True
		}
		err := o.eng.Detach(context.Background(), req.RunID, kind, func(ctx context.Context) {
			r := &slackReply{o: o, s: s, api: api, m: m, kind: kind, id: id, title: true, cards: cards}
			if len(m.Files) > 0 {
				// agno: the files go with the message; those it cannot
				// take are named to the model.
				in, err := slack.Download(ctx, api, m.Files, s.FileLimit())
				if err != nil {
					return // cancelled at shutdown before it began
				}
				req.Images, req.Files, req.Input = in.Images, in.Files, in.Notice(m.Text)
			}
			r.answer(ctx, nil, func(emit run.Emitter) Result {
				return o.execute(ctx, kind, id, req, emit)
			})
		})
		if errors.Is(err, runs.ErrRefused) {
			return slack.ErrBusy
		}
		return err
	}
}

func (o *OS) slackEntityName(kind, id string) string {
	if ex := o.servedExecutor(kind, id); ex != nil && ex.Name() != "" {
		return ex.Name()
	}
	return id
}

// answer runs exec and says its result in the thread, streamed or
// whole; pre are task cards to show first (a continuation's denials).
// A run that pauses gets agno's approval card.
func (r *slackReply) answer(ctx context.Context, pre []slackapi.StreamChunk, exec func(run.Emitter) Result) {
	r.status(ctx, true)
	if r.s.Streaming {
		r.stream(ctx, pre, exec) // Slack clears the status when the stream stops
		return
	}
	defer r.status(ctx, false)
	res := exec(nil)
	if r.failed(res) {
		r.post(ctx, errorText(res))
		return
	}
	if res.Status == run.StatusPaused {
		r.paused(ctx, res)
		return
	}
	if res.Output != nil && res.Output.ReasoningContent != "" {
		r.post(ctx, slack.Reasoning(res.Output.ReasoningContent))
	}
	r.post(ctx, res.Content)
	r.upload(ctx, res)
}

// upload sends the images the run made into the thread (agno's
// upload_response_media_async).
func (r *slackReply) upload(ctx context.Context, res Result) {
	if res.Output == nil || len(res.Output.Images) == 0 {
		return
	}
	pctx, cancel := r.bg(ctx)
	defer cancel()
	if err := slack.UploadOutputs(pctx, r.api, r.m, res.Output); err != nil {
		r.o.log.Warn("Slack: could not upload the run's images", "channel", r.m.Channel, "err", err)
	}
}

// slackThreadStarted returns the Events' ThreadStarted: agno's
// suggested prompts for a new assistant thread, set in the background.
func (o *OS) slackThreadStarted(s *slack.Config) func(slack.ThreadStart) error {
	api := s.Client()
	return func(t slack.ThreadStart) error {
		err := o.eng.Detach(context.Background(), "slack-thread:"+run.NewID(), "slack", func(ctx context.Context) {
			pctx, cancel := context.WithTimeout(ctx, slackPostTimeout)
			defer cancel()
			if err := slack.SetSuggestedPrompts(pctx, api, t, s.Prompts()); err != nil {
				o.log.Warn("Slack: could not set the suggested prompts", "channel", t.Channel, "err", err)
			}
		})
		if errors.Is(err, runs.ErrRefused) {
			return slack.ErrBusy
		}
		return err
	}
}

// failed logs a failed run; the caller posts agno's error text.
func (r *slackReply) failed(res Result) bool {
	switch {
	case res.Status == run.StatusError:
		r.o.log.Error("Slack: the run failed", "kind", r.kind, "id", r.id, "err", res.Err)
	case res.Err != nil:
		r.o.log.Error("Slack: could not run", "kind", r.kind, "id", r.id, "err", res.Err)
	default:
		return false
	}
	return true
}

func errorText(res Result) string {
	switch {
	case res.Status == run.StatusError:
		return slack.RunErrorText
	case errors.Is(res.Err, run.ErrNotPaused):
		// A continuation raced with another channel, which won.
		return slackAnsweredFirst
	}
	return slack.ErrorText
}

// stream is agno's _stream_slack_response: the run's own content deltas
// (RunContent of the agent, TeamRunContent of the team; not a member's)
// are streamed in the thread in batches of slack.StreamBufferSize
// characters, tool calls (a member's labelled with the member) and
// reasoning as task cards; a workflow, or a run that streamed nothing,
// sends its final content. A failure stops the open stream, clears the
// status and posts agno's error text.
func (r *slackReply) stream(ctx context.Context, pre []slackapi.StreamChunk, exec func(run.Emitter) Result) {
	st := slack.NewStream(r.api, r.m)
	st.Titled = !r.title
	tasks := slack.NewTasks(r.o.slackEntityName(r.kind, r.id))
	var (
		mu       sync.Mutex
		streamed bool
		sendErr  error
	)
	// send is called with mu held.
	send := func(text string, chunks []slackapi.StreamChunk) {
		if sendErr != nil || (text == "" && len(chunks) == 0) {
			return
		}
		pctx, cancel := r.bg(ctx)
		defer cancel()
		if !st.Titled {
			st.Titled = true
			slack.SetTitle(pctx, r.api, r.m)
		}
		if text != "" {
			sendErr = st.Append(pctx, text)
		}
		if sendErr == nil && len(chunks) > 0 {
			sendErr = st.Tasks(pctx, chunks...)
		}
	}
	mu.Lock()
	send("", pre)
	mu.Unlock()
	emit := func(ev run.Event) bool {
		mu.Lock()
		defer mu.Unlock()
		chunks := tasks.Update(ev)
		text := ""
		if rc, ok := ev.(*run.RunContent); ok {
			own := (r.kind == "agent" && ev.Kind() == "RunContent" && rc.AgentID == r.id) ||
				(r.kind == "team" && ev.Kind() == "TeamRunContent" && rc.TeamID == r.id)
			if own {
				text = run.ContentText(rc.Content)
			}
		}
		if text != "" {
			streamed = true
		}
		send(text, chunks)
		return true
	}
	var em run.Emitter
	if r.kind != "workflow" {
		em = emit
	}
	res := exec(em)
	mu.Lock()
	defer mu.Unlock()
	fail := func(text string) {
		pctx, cancel := r.bg(ctx)
		defer cancel()
		slack.SetStatus(pctx, r.api, r.m, false)
		st.Abort(pctx)
		if err := slack.Post(pctx, r.api, r.m, text); err != nil {
			r.o.log.Warn("Slack: could not post the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", err)
		}
	}
	if r.failed(res) {
		fail(errorText(res))
		return
	}
	if !streamed && res.Status != run.StatusPaused {
		send(res.Content, nil)
	}
	final := slack.TaskComplete
	if res.Status == run.StatusPaused {
		final = slack.TaskPending
	}
	if sendErr == nil {
		pctx, cancel := r.bg(ctx)
		sendErr = st.Stop(pctx, tasks.Settle(final)...)
		cancel()
	}
	if sendErr != nil {
		r.o.log.Warn("Slack: could not stream the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", sendErr)
		fail(slack.ErrorText)
		return
	}
	if res.Status == run.StatusPaused {
		if !st.Started() {
			r.status(ctx, false) // no stream to clear it
		}
		r.paused(ctx, res)
		return
	}
	if !st.Started() {
		// Nothing to say: Slack did not see a message, clear the status.
		r.status(ctx, false)
	}
	r.upload(ctx, res)
}
