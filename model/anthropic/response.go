package anthropic

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agno-go/agno/model"
)

// finishReason maps Anthropic's stop_reason onto the OpenAI names the rest
// of the project uses; the original stays in ProviderData["stop_reason"].
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

// tokens are Anthropic's usage counters. input excludes cached tokens, as
// the API counts them; agno reports it the same way.
type tokens struct {
	input, output, cacheRead, cacheWrite, thinking int64
}

func (t tokens) usage(ttft time.Duration) *model.Usage {
	return &model.Usage{
		InputTokens:      int(t.input),
		OutputTokens:     int(t.output),
		TotalTokens:      int(t.input + t.output),
		ReasoningTokens:  int(t.thinking),
		CacheReadTokens:  int(t.cacheRead),
		CacheWriteTokens: int(t.cacheWrite),
		TimeToFirstToken: ttft,
	}
}

// messageChunk turns a whole (non-streamed) response into one chunk;
// latency, the whole wait, stands as time to first token.
func messageChunk(msg *sdk.Message, latency time.Duration) *model.Chunk {
	var content, reasoning strings.Builder
	var signature string
	var redacted []string
	var calls []model.ToolCall
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			content.WriteString(b.Text)
		case "thinking":
			reasoning.WriteString(b.Thinking)
			// As agno: the last block's signature is the one kept.
			signature = b.Signature
		case "redacted_thinking":
			redacted = append(redacted, b.Data)
		case "tool_use":
			calls = append(calls, model.NewToolCall(b.ID, b.Name, argumentsText(b.Input)))
		}
	}
	u := msg.Usage
	t := tokens{
		input:      u.InputTokens,
		output:     u.OutputTokens,
		cacheRead:  u.CacheReadInputTokens,
		cacheWrite: u.CacheCreationInputTokens,
		thinking:   u.OutputTokensDetails.ThinkingTokens,
	}
	return &model.Chunk{
		Content:          content.String(),
		ReasoningContent: reasoning.String(),
		ToolCalls:        calls,
		FinishReason:     finishReason(string(msg.StopReason)),
		Usage:            t.usage(latency),
		ProviderData:     providerData(msg.ID, string(msg.Model), string(msg.StopReason), signature, redacted),
	}
}

// The ProviderData keys of what an assistant turn must send back: agno's
// provider_data["signature"], and its redacted_reasoning_content (a
// Message field in agno), here a list as a turn may hold several.
const (
	signatureKey = "signature"
	redactedKey  = "redacted_reasoning_content"
)

func providerData(id, modelID, stop, signature string, redacted []string) map[string]any {
	pd := map[string]any{}
	if id != "" {
		pd["id"] = id
	}
	if modelID != "" {
		pd["model"] = modelID
	}
	if stop != "" {
		pd["stop_reason"] = stop
	}
	if signature != "" {
		pd[signatureKey] = signature
	}
	if len(redacted) > 0 {
		pd[redactedKey] = redacted
	}
	return pd
}

// argumentsText is a tool_use input as arguments text; an absent or empty
// input is "{}".
func argumentsText(input []byte) string {
	input = bytes.TrimSpace(input)
	if len(input) == 0 || string(input) == "null" {
		return "{}"
	}
	return string(input)
}

// toolBlock is a tool_use content block being streamed.
type toolBlock struct {
	index int64
	id    string
	name  string
	// start is the input given in content_block_start, used when no
	// input_json_delta follows.
	start string
	args  strings.Builder
}

// streamState folds the events of one streamed response.
type streamState struct {
	logger    *slog.Logger
	id        string
	model     string
	stop      string
	signature string
	redacted  []string
	tokens    tokens
	tools     []*toolBlock
	ttft      time.Duration
	// stopped is set by message_stop, the last event of a response.
	stopped bool
}

func newStreamState(logger *slog.Logger) *streamState {
	return &streamState{logger: logger}
}

// handle folds one event in and returns the chunk to yield for it, if any.
func (s *streamState) handle(ev sdk.MessageStreamEventUnion, start time.Time) *model.Chunk {
	switch ev.Type {
	case "message_start":
		msg := ev.Message
		s.id, s.model = msg.ID, string(msg.Model)
		s.tokens.raise(tokens{
			input:      msg.Usage.InputTokens,
			output:     msg.Usage.OutputTokens,
			cacheRead:  msg.Usage.CacheReadInputTokens,
			cacheWrite: msg.Usage.CacheCreationInputTokens,
			thinking:   msg.Usage.OutputTokensDetails.ThinkingTokens,
		})

	case "content_block_start":
		b := ev.ContentBlock
		switch b.Type {
		case "tool_use":
			s.markFirstToken(start)
			tb := &toolBlock{index: ev.Index, id: b.ID, name: b.Name}
			if raw := b.JSON.Input.Raw(); raw != "" && raw != "null" && raw != "{}" {
				tb.start = raw
			}
			s.tools = append(s.tools, tb)
		case "text":
			if b.Text != "" {
				s.markFirstToken(start)
				return &model.Chunk{Content: b.Text}
			}
		case "thinking":
			s.signature = b.Signature // a new block's signature replaces the last
			if b.Thinking != "" {
				s.markFirstToken(start)
				return &model.Chunk{ReasoningContent: b.Thinking}
			}
		case "redacted_thinking":
			s.redacted = append(s.redacted, b.Data)
		}

	case "content_block_delta":
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			s.markFirstToken(start)
			return &model.Chunk{Content: d.Text}
		case "thinking_delta":
			s.markFirstToken(start)
			return &model.Chunk{ReasoningContent: d.Thinking}
		case "signature_delta":
			s.signature += d.Signature
		case "input_json_delta":
			s.markFirstToken(start)
			if tb := s.tool(ev.Index); tb != nil {
				tb.args.WriteString(d.PartialJSON)
			} else {
				s.logger.Debug("anthropic: input_json_delta for a block that is not a tool_use; ignored", "index", ev.Index)
			}
		}

	case "message_delta":
		if ev.Delta.StopReason != "" {
			s.stop = string(ev.Delta.StopReason)
		}
		u := ev.Usage
		s.tokens.raise(tokens{
			input:      u.InputTokens,
			output:     u.OutputTokens,
			cacheRead:  u.CacheReadInputTokens,
			cacheWrite: u.CacheCreationInputTokens,
			thinking:   u.OutputTokensDetails.ThinkingTokens,
		})

	case "message_stop":
		s.stopped = true
	}
	return nil
}

// raise keeps the larger of each counter: the API's counts are cumulative,
// and message_delta may leave out (zero) what message_start gave.
func (t *tokens) raise(o tokens) {
	t.input = max(t.input, o.input)
	t.output = max(t.output, o.output)
	t.cacheRead = max(t.cacheRead, o.cacheRead)
	t.cacheWrite = max(t.cacheWrite, o.cacheWrite)
	t.thinking = max(t.thinking, o.thinking)
}

func (s *streamState) markFirstToken(start time.Time) {
	if s.ttft == 0 {
		s.ttft = max(time.Since(start), time.Nanosecond)
	}
}

func (s *streamState) tool(index int64) *toolBlock {
	for _, tb := range s.tools {
		if tb.index == index {
			return tb
		}
	}
	return nil
}

// final is the last chunk: complete tool calls, finish reason and usage.
func (s *streamState) final() *model.Chunk {
	tools := slices.Clone(s.tools)
	slices.SortStableFunc(tools, func(a, b *toolBlock) int { return int(a.index - b.index) })
	var calls []model.ToolCall
	for _, tb := range tools {
		args := tb.args.String()
		if strings.TrimSpace(args) == "" {
			args = tb.start
		}
		calls = append(calls, model.NewToolCall(tb.id, tb.name, argumentsText([]byte(args))))
	}
	return &model.Chunk{
		ToolCalls:    calls,
		FinishReason: finishReason(s.stop),
		Usage:        s.tokens.usage(s.ttft),
		ProviderData: providerData(s.id, s.model, s.stop, s.signature, s.redacted),
	}
}
