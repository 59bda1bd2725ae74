package slack

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	slackapi "github.com/slack-go/slack"
)

// postTimeout bounds a Web API call made after the run, so a drained
// (cancelled) run still posts its error but cannot hold shutdown.
const postTimeout = 10 * time.Second

// eventParams documents the events body (Slack's envelope).
var eventParams = []httpapi.Param{
	{Name: "type", Type: "string", Desc: "url_verification or event_callback", Required: true},
	{Name: "challenge", Type: "string", Desc: "url_verification: echoed back"},
	{Name: "event", Type: "object", Desc: "event_callback: the event (app_mention, message, assistant_thread_started)"},
}

// interactionParams documents the interactions body.
var interactionParams = []httpapi.Param{
	{Name: "payload", Type: "string", Desc: "Slack's block_actions payload (JSON): the card clicked, its state and the action (row_approve, row_reject, submit_pause)", Required: true},
}

// threadReply answers in one Slack thread for the served agent, team or
// workflow: a new message, or a run continued from its approval card.
type threadReply struct {
	// s is the interface: its config, host and approval cards (hitl.go).
	s    *Interface
	m    Message
	kind string
	id   string
	// title: set the thread's title from m.Text (a new conversation).
	title bool
}

func (r *threadReply) log() *slog.Logger { return r.s.host.Logger() }

// bg is a context for a Web API call after the run: it outlives a
// cancelled run, within postTimeout.
func (r *threadReply) bg(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
}

func (r *threadReply) post(ctx context.Context, text string) {
	pctx, cancel := r.bg(ctx)
	defer cancel()
	if err := Post(pctx, r.s.api, r.m, text); err != nil {
		r.log().Warn("Slack: could not post the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", err)
	}
}

func (r *threadReply) status(ctx context.Context, thinking bool) {
	pctx, cancel := r.bg(ctx)
	defer cancel()
	SetStatus(pctx, r.s.api, r.m, thinking)
}

// startRun is the Events' Start: it runs the message through the engine
// like a background HTTP run (drained at shutdown, cancellable) and
// posts the answer in the thread: streamed (agno's default) or whole.
func (s *Interface) startRun(m Message) error {
	c := s.cfg
	kind, id := c.Entity()
	req := &run.Request{Input: m.Text, RunID: run.NewID(), SessionID: m.SessionID, UserID: m.User,
		Metadata: map[string]any{"channel_id": m.Channel}}
	if c.Streaming && kind != "workflow" {
		req.Stream, req.StreamEvents = true, true // agno: stream=True, stream_events=True
	}
	err := s.host.Detach(context.Background(), req.RunID, kind, func(ctx context.Context) {
		r := &threadReply{s: s, m: m, kind: kind, id: id, title: true}
		if len(m.Files) > 0 {
			// agno: the files go with the message; those it cannot
			// take are named to the model.
			in, err := Download(ctx, s.api, m.Files, c.FileLimit())
			if err != nil {
				return // cancelled at shutdown before it began
			}
			req.Images, req.Files, req.Input = in.Images, in.Files, in.Notice(m.Text)
		}
		r.answer(ctx, nil, func(emit run.Emitter) agentos.Result {
			return s.host.Execute(ctx, kind, id, req, emit)
		})
	})
	if errors.Is(err, runs.ErrRefused) {
		return ErrBusy
	}
	return err
}

func (s *Interface) entityName(kind, id string) string {
	if ex := s.host.Executor(kind, id); ex != nil && ex.Name() != "" {
		return ex.Name()
	}
	return id
}

// answer runs exec and says its result in the thread, streamed or
// whole; pre are task cards to show first (a continuation's denials).
// A run that pauses gets agno's approval card.
func (r *threadReply) answer(ctx context.Context, pre []slackapi.StreamChunk, exec func(run.Emitter) agentos.Result) {
	r.status(ctx, true)
	if r.s.cfg.Streaming {
		r.stream(ctx, pre, exec) // Slack clears the status when the stream stops
		return
	}
	defer r.status(ctx, false)
	res := exec(nil)
	if r.failed(res) {
		r.post(ctx, failureText(res))
		return
	}
	if res.Status == run.StatusPaused {
		r.paused(ctx, res)
		return
	}
	if res.Output != nil && res.Output.ReasoningContent != "" {
		r.post(ctx, Reasoning(res.Output.ReasoningContent))
	}
	r.post(ctx, res.Content)
	r.upload(ctx, res)
}

// upload sends the images the run made into the thread (agno's
// upload_response_media_async).
func (r *threadReply) upload(ctx context.Context, res agentos.Result) {
	if res.Output == nil || len(res.Output.Images) == 0 {
		return
	}
	pctx, cancel := r.bg(ctx)
	defer cancel()
	if err := UploadOutputs(pctx, r.s.api, r.m, res.Output); err != nil {
		r.log().Warn("Slack: could not upload the run's images", "channel", r.m.Channel, "err", err)
	}
}

// threadStarted is the Events' ThreadStarted: agno's suggested prompts
// for a new assistant thread, set in the background.
func (s *Interface) threadStarted(t ThreadStart) error {
	err := s.host.Detach(context.Background(), "slack-thread:"+run.NewID(), "slack", func(ctx context.Context) {
		pctx, cancel := context.WithTimeout(ctx, postTimeout)
		defer cancel()
		if err := SetSuggestedPrompts(pctx, s.api, t, s.cfg.Prompts()); err != nil {
			s.host.Logger().Warn("Slack: could not set the suggested prompts", "channel", t.Channel, "err", err)
		}
	})
	if errors.Is(err, runs.ErrRefused) {
		return ErrBusy
	}
	return err
}

// failed logs a failed run; the caller posts agno's error text.
func (r *threadReply) failed(res agentos.Result) bool {
	switch {
	case res.Status == run.StatusError:
		r.log().Error("Slack: the run failed", "kind", r.kind, "id", r.id, "err", res.Err)
	case res.Err != nil:
		r.log().Error("Slack: could not run", "kind", r.kind, "id", r.id, "err", res.Err)
	default:
		return false
	}
	return true
}

// failureText is what the thread is told of a failed run.
func failureText(res agentos.Result) string {
	switch {
	case res.Status == run.StatusError:
		return RunErrorText
	case errors.Is(res.Err, run.ErrNotPaused):
		// A continuation raced with another channel, which won.
		return answeredFirstText
	}
	return ErrorText
}

// stream is agno's _stream_slack_response: the run's own content deltas
// (RunContent of the agent, TeamRunContent of the team; not a member's)
// are streamed in the thread in batches of StreamBufferSize
// characters, tool calls (a member's labelled with the member) and
// reasoning as task cards; a workflow, or a run that streamed nothing,
// sends its final content. A failure stops the open stream, clears the
// status and posts agno's error text.
func (r *threadReply) stream(ctx context.Context, pre []slackapi.StreamChunk, exec func(run.Emitter) agentos.Result) {
	st := NewStream(r.s.api, r.m)
	st.Titled = !r.title
	tasks := NewTasks(r.s.entityName(r.kind, r.id))
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
			SetTitle(pctx, r.s.api, r.m)
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
		SetStatus(pctx, r.s.api, r.m, false)
		st.Abort(pctx)
		if err := Post(pctx, r.s.api, r.m, text); err != nil {
			r.log().Warn("Slack: could not post the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", err)
		}
	}
	if r.failed(res) {
		fail(failureText(res))
		return
	}
	if !streamed && res.Status != run.StatusPaused {
		send(res.Content, nil)
	}
	final := TaskComplete
	if res.Status == run.StatusPaused {
		final = TaskPending
	}
	if sendErr == nil {
		pctx, cancel := r.bg(ctx)
		sendErr = st.Stop(pctx, tasks.Settle(final)...)
		cancel()
	}
	if sendErr != nil {
		r.log().Warn("Slack: could not stream the reply", "channel", r.m.Channel, "thread_ts", r.m.ThreadTS, "err", sendErr)
		fail(ErrorText)
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
