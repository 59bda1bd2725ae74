package slack

import (
	"context"
	"errors"
	"strings"

	slackapi "github.com/slack-go/slack"
)

// StreamBufferSize is agno's buffer_size (slack_sdk's chat_stream): text
// is sent once this many characters are buffered, not per token.
const StreamBufferSize = 100

// Stream is agno's streamed reply (slack_sdk's chat_stream): text is
// buffered and sent with chat.startStream (the first batch, in m's
// thread), chat.appendStream, then chat.stopStream. When Slack refuses
// chat.startStream (no assistant scope, streaming off for the app), it
// falls back to chat.postMessage of the first batch and chat.update of
// the whole text so far for each later batch.
type Stream struct {
	api        *slackapi.Client
	m          Message
	BufferSize int
	buf        strings.Builder
	all        strings.Builder // everything sent or buffered (the fallback's update)
	ts         string          // the streamed (or posted) message
	fallback   bool
	Titled     bool
}

// NewStream opens nothing yet: like agno it starts the stream with the
// first batch, so "Thinking..." stays visible until there is text.
func NewStream(api *slackapi.Client, m Message) *Stream {
	return &Stream{api: api, m: m, BufferSize: StreamBufferSize}
}

// Started reports whether a message was started (streamed or posted).
func (s *Stream) Started() bool { return s.ts != "" }

// Append buffers text and sends the buffer once it reaches BufferSize.
func (s *Stream) Append(ctx context.Context, text string) error {
	if text == "" {
		return nil
	}
	s.buf.WriteString(text)
	s.all.WriteString(text)
	if s.buf.Len() < s.BufferSize {
		return nil
	}
	return s.flush(ctx)
}

// Tasks sends task card updates with the text buffered so far (agno's
// stream.append(chunks=...)); the fallback message cannot show cards, so
// there they are dropped.
func (s *Stream) Tasks(ctx context.Context, chunks ...slackapi.StreamChunk) error {
	if len(chunks) == 0 {
		return nil
	}
	return s.flush(ctx, chunks...)
}

// content is the markdown_text and chunks options of a streaming call.
func (s *Stream) content(text string, chunks []slackapi.StreamChunk) []slackapi.MsgOption {
	var opts []slackapi.MsgOption
	if text != "" {
		opts = append(opts, slackapi.MsgOptionMarkdownText(text))
	}
	if len(chunks) > 0 {
		opts = append(opts, slackapi.MsgOptionChunks(chunks...))
	}
	return opts
}

func (s *Stream) flush(ctx context.Context, chunks ...slackapi.StreamChunk) error {
	if s.fallback {
		chunks = nil
	}
	if s.buf.Len() == 0 && len(chunks) == 0 {
		return nil
	}
	text := s.buf.String()
	switch {
	case s.ts == "" && !s.fallback:
		opts := append([]slackapi.MsgOption{slackapi.MsgOptionTS(s.m.ThreadTS), slackapi.MsgOptionRecipientUserID(s.m.User),
			slackapi.MsgOptionTaskDisplayMode(slackapi.TaskDisplayModePlan)}, s.content(text, chunks)...)
		if s.m.Team != "" {
			opts = append(opts, slackapi.MsgOptionRecipientTeamID(s.m.Team))
		}
		_, ts, err := s.api.StartStreamContext(ctx, s.m.Channel, opts...)
		if err != nil {
			var se slackapi.SlackErrorResponse
			if !errors.As(err, &se) {
				return err // not Slack's {"ok":false}: a network failure
			}
			// Refused: post, then edit.
			s.fallback = true
			return s.flush(ctx)
		}
		s.ts = ts
	case s.fallback && s.ts == "":
		_, ts, err := s.api.PostMessageContext(ctx, s.m.Channel, slackapi.MsgOptionText(s.all.String(), false), slackapi.MsgOptionTS(s.m.ThreadTS))
		if err != nil {
			return err
		}
		s.ts = ts
	case s.fallback:
		if _, _, _, err := s.api.UpdateMessageContext(ctx, s.m.Channel, s.ts, slackapi.MsgOptionText(s.all.String(), false)); err != nil {
			return err
		}
	default:
		if _, _, err := s.api.AppendStreamContext(ctx, s.m.Channel, s.ts, s.content(text, chunks)...); err != nil {
			return err
		}
	}
	s.buf.Reset()
	return nil
}

// Stop sends what is buffered and ends the stream (chat.stopStream with
// the rest as markdown_text and the last card updates, as agno's
// stream.stop). Nothing was ever written: nothing is sent.
func (s *Stream) Stop(ctx context.Context, chunks ...slackapi.StreamChunk) error {
	if s.fallback {
		chunks = nil
	}
	if s.ts == "" {
		if s.buf.Len() == 0 && len(chunks) == 0 {
			return nil
		}
		if err := s.flush(ctx, chunks...); err != nil {
			return err
		}
		if s.fallback {
			return nil
		}
		chunks = nil
	}
	if s.fallback {
		return s.flush(ctx)
	}
	_, _, err := s.api.StopStreamContext(ctx, s.m.Channel, s.ts, s.content(s.buf.String(), chunks)...)
	s.buf.Reset()
	return err
}

// Abort ends an open stream after a failure, ignoring errors (agno's
// clean-up so Slack shows no stuck progress).
func (s *Stream) Abort(ctx context.Context) {
	if s.ts != "" && !s.fallback {
		_, _, _ = s.api.StopStreamContext(ctx, s.m.Channel, s.ts)
	}
}

// SetTitle is agno's thread title, set when the first text arrives: the
// message's first 50 characters (errors ignored).
func SetTitle(ctx context.Context, api *slackapi.Client, m Message) {
	r := []rune(m.Text)
	title := strings.TrimSpace(string(r[:min(len(r), 50)]))
	if title == "" {
		title = "New conversation"
	}
	_ = api.SetAssistantThreadsTitleContext(ctx, slackapi.AssistantThreadsSetTitleParameters{ChannelID: m.Channel, ThreadTS: m.ThreadTS, Title: title})
}
