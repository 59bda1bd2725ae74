package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/agno-go/agno/model"
)

// finishReason maps Converse's stopReason onto the OpenAI names the rest
// of the project uses; the original stays in ProviderData["stop_reason"].
func finishReason(stop types.StopReason) string {
	switch stop {
	case types.StopReasonEndTurn, types.StopReasonStopSequence:
		return "stop"
	case types.StopReasonToolUse:
		return "tool_calls"
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return "length"
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return "content_filter"
	}
	return string(stop)
}

func usage(u *types.TokenUsage, ttft time.Duration) *model.Usage {
	out := &model.Usage{TimeToFirstToken: ttft}
	if u == nil {
		return out
	}
	out.InputTokens = int(deref(u.InputTokens))
	out.OutputTokens = int(deref(u.OutputTokens))
	out.CacheReadTokens = int(deref(u.CacheReadInputTokens))
	out.CacheWriteTokens = int(deref(u.CacheWriteInputTokens))
	// agno's total: input plus output.
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// reasoning gathers the reasoning of a response: its text (of a whole
// response; a stream yields it as it comes), the signature to send back,
// and redacted blocks (base64).
type reasoning struct {
	text, signature strings.Builder
	redacted        []string
}

func (r *reasoning) providerData(stop types.StopReason) map[string]any {
	pd := map[string]any{}
	if stop != "" {
		pd[pdStopReason] = string(stop)
	}
	if r.signature.Len() > 0 {
		pd[pdSignature] = r.signature.String()
	}
	if len(r.redacted) > 0 {
		pd[pdRedacted] = slices.Clone(r.redacted)
	}
	return pd
}

// outputChunk turns a whole Converse response into one chunk; latency,
// the whole wait, stands as time to first token.
func outputChunk(out *bedrockruntime.ConverseOutput, latency time.Duration, logger *slog.Logger) *model.Chunk {
	var content strings.Builder
	var r reasoning
	var calls []model.ToolCall
	if msg, ok := out.Output.(*types.ConverseOutputMemberMessage); ok {
		for _, b := range msg.Value.Content {
			switch b := b.(type) {
			case *types.ContentBlockMemberText:
				content.WriteString(b.Value)
			case *types.ContentBlockMemberReasoningContent:
				switch rc := b.Value.(type) {
				case *types.ReasoningContentBlockMemberReasoningText:
					r.text.WriteString(deref(rc.Value.Text))
					r.signature.WriteString(deref(rc.Value.Signature))
				case *types.ReasoningContentBlockMemberRedactedContent:
					r.redacted = append(r.redacted, base64.StdEncoding.EncodeToString(rc.Value))
				}
			case *types.ContentBlockMemberToolUse:
				calls = append(calls, model.NewToolCall(deref(b.Value.ToolUseId), deref(b.Value.Name), documentJSON(b.Value.Input, logger)))
			}
		}
	}
	return &model.Chunk{
		Content:          content.String(),
		ReasoningContent: r.text.String(),
		ToolCalls:        calls,
		FinishReason:     finishReason(out.StopReason),
		Usage:            usage(out.Usage, latency),
		ProviderData:     r.providerData(out.StopReason),
	}
}

// documentJSON is a toolUse input as arguments text; an absent input is
// "{}".
func documentJSON(d document.Interface, logger *slog.Logger) string {
	if d == nil {
		return "{}"
	}
	var v any
	if err := d.UnmarshalSmithyDocument(&v); err != nil {
		logger.Debug("aws-bedrock: unreadable toolUse input; sending {}", "error", err)
		return "{}"
	}
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// toolBlock is a toolUse content block being streamed.
type toolBlock struct {
	index    int32
	id, name string
	args     strings.Builder
}

// streamState folds the events of one ConverseStream response.
type streamState struct {
	logger *slog.Logger
	start  time.Time
	ttft   time.Duration
	r      reasoning
	tools  []*toolBlock
	stop   types.StopReason
	usage  *types.TokenUsage
	// stopped is set by messageStop.
	stopped bool
}

// handle folds one event in and returns the chunk to yield for it, if any.
func (s *streamState) handle(ev types.ConverseStreamOutput) *model.Chunk {
	switch ev := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if tu, ok := ev.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
			s.markFirstToken()
			s.tools = append(s.tools, &toolBlock{
				index: deref(ev.Value.ContentBlockIndex),
				id:    deref(tu.Value.ToolUseId),
				name:  deref(tu.Value.Name),
			})
		}

	case *types.ConverseStreamOutputMemberContentBlockDelta:
		switch d := ev.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			s.markFirstToken()
			if d.Value != "" {
				return &model.Chunk{Content: d.Value}
			}
		case *types.ContentBlockDeltaMemberToolUse:
			s.markFirstToken()
			if tb := s.tool(deref(ev.Value.ContentBlockIndex)); tb != nil {
				tb.args.WriteString(deref(d.Value.Input))
			} else {
				s.logger.Debug("aws-bedrock: toolUse delta for a block that is not a toolUse; ignored", "index", deref(ev.Value.ContentBlockIndex))
			}
		case *types.ContentBlockDeltaMemberReasoningContent:
			s.markFirstToken()
			switch rd := d.Value.(type) {
			case *types.ReasoningContentBlockDeltaMemberText:
				if rd.Value != "" {
					return &model.Chunk{ReasoningContent: rd.Value}
				}
			case *types.ReasoningContentBlockDeltaMemberSignature:
				s.r.signature.WriteString(rd.Value)
			case *types.ReasoningContentBlockDeltaMemberRedactedContent:
				s.r.redacted = append(s.r.redacted, base64.StdEncoding.EncodeToString(rd.Value))
			}
		}

	case *types.ConverseStreamOutputMemberMessageStop:
		s.stop = ev.Value.StopReason
		s.stopped = true

	case *types.ConverseStreamOutputMemberMetadata:
		s.usage = ev.Value.Usage
	}
	return nil
}

func (s *streamState) markFirstToken() {
	if s.ttft == 0 {
		s.ttft = max(time.Since(s.start), time.Nanosecond)
	}
}

func (s *streamState) tool(index int32) *toolBlock {
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
	slices.SortStableFunc(tools, func(a, b *toolBlock) int { return int(a.index) - int(b.index) })
	var calls []model.ToolCall
	for _, tb := range tools {
		args := strings.TrimSpace(tb.args.String())
		if args == "" {
			args = "{}"
		}
		calls = append(calls, model.NewToolCall(tb.id, tb.name, args))
	}
	return &model.Chunk{
		ToolCalls:    calls,
		FinishReason: finishReason(s.stop),
		Usage:        usage(s.usage, s.ttft),
		ProviderData: s.r.providerData(s.stop),
	}
}
