package openairesponses

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agno-go/agno/model"
)

// complete sends a non-streamed request and returns the response as one
// chunk.
func (m *Model) complete(ctx context.Context, params responses.ResponseNewParams, opts []option.RequestOption) (*model.Chunk, error) {
	start := time.Now()
	a := &attempt{}
	resp, err := m.svc.New(ctx, params, append(opts, a.option())...)
	if err != nil {
		return nil, m.convertError(ctx, err, a)
	}
	if pe := m.failed(resp); pe != nil {
		return nil, pe
	}
	var out turn
	for _, item := range resp.Output {
		out.item(item, m.storeOff())
	}
	c := out.chunk(resp)
	c.Content = out.text.String()
	c.ReasoningContent = out.reasoningText()
	c.Usage.TimeToFirstToken = time.Since(start)
	return c, nil
}

// failed is the error of a response whose status says it failed.
func (m *Model) failed(resp *responses.Response) *model.ProviderError {
	if resp.Status != responses.ResponseStatusFailed && resp.Status != responses.ResponseStatusCancelled && resp.Error.Message == "" {
		return nil
	}
	msg := resp.Error.Message
	if msg == "" {
		msg = "response " + resp.ID + " " + string(resp.Status)
	}
	return m.eventError(string(resp.Error.Code), msg, errors.New("response "+string(resp.Status)))
}

// turn collects one response's output items.
type turn struct {
	text      strings.Builder
	summary   strings.Builder
	reasoning strings.Builder // reasoning_text content (gpt-oss on Ollama, OpenRouter)
	calls     []model.ToolCall
	itemIDs   map[string]string
	kept      []any // reasoning items for the next stateless turn
}

// item folds one complete output item in.
func (t *turn) item(item responses.ResponseOutputItemUnion, keepReasoning bool) {
	switch item.Type {
	case "message":
		for _, c := range item.Content {
			if c.Type == "output_text" {
				t.text.WriteString(c.Text)
			}
		}
	case "function_call":
		t.call(item)
	case "reasoning":
		for _, s := range item.Summary {
			t.summary.WriteString(s.Text)
		}
		for _, c := range item.Content {
			if c.Type == "reasoning_text" {
				t.reasoning.WriteString(c.Text)
			}
		}
		if keepReasoning {
			var obj map[string]any
			if json.Unmarshal([]byte(item.RawJSON()), &obj) == nil {
				t.kept = append(t.kept, obj)
			}
		}
	}
}

// call adds a complete function call: its call_id is the tool call's id
// (what function_call_output names), its item id is kept for the replay.
func (t *turn) call(item responses.ResponseOutputItemUnion) {
	id := item.CallID
	if id == "" {
		id = item.ID
	}
	t.calls = append(t.calls, model.NewToolCall(id, item.Name, item.Arguments.OfString))
	if item.ID != "" && item.ID != id {
		if t.itemIDs == nil {
			t.itemIDs = map[string]string{}
		}
		t.itemIDs[id] = item.ID
	}
}

// reasoningText is the summary, or else the raw reasoning text some
// servers return instead.
func (t *turn) reasoningText() string {
	if t.summary.Len() > 0 {
		return t.summary.String()
	}
	return t.reasoning.String()
}

// chunk is the final chunk of resp: calls, finish reason, usage and the
// provider data the next turn needs.
func (t *turn) chunk(resp *responses.Response) *model.Chunk {
	c := &model.Chunk{ToolCalls: t.calls, FinishReason: finishReason(resp, len(t.calls) > 0), Usage: usage(resp)}
	pd := map[string]any{}
	if resp.ID != "" {
		pd[pdResponseID] = resp.ID
	}
	switch len(t.kept) {
	case 0:
	case 1:
		pd[pdReasoning] = t.kept[0] // one object, as agno stores it
	default:
		pd[pdReasoning] = t.kept
	}
	if len(t.itemIDs) > 0 {
		pd[pdCallItems] = t.itemIDs
	}
	if len(pd) > 0 {
		c.ProviderData = pd
	}
	return c
}

// finishReason names how the response ended in Chat Completions' terms,
// which the rest of the project uses.
func finishReason(resp *responses.Response, calls bool) string {
	switch {
	case resp.Status == responses.ResponseStatusIncomplete:
		switch resp.IncompleteDetails.Reason {
		case "content_filter":
			return "content_filter"
		default:
			return "length"
		}
	case calls:
		return "tool_calls"
	}
	return "stop"
}

func usage(resp *responses.Response) *model.Usage {
	u := resp.Usage
	out := &model.Usage{
		InputTokens:     int(u.InputTokens),
		OutputTokens:    int(u.OutputTokens),
		TotalTokens:     int(u.TotalTokens),
		ReasoningTokens: int(u.OutputTokensDetails.ReasoningTokens),
		CacheReadTokens: int(u.InputTokensDetails.CachedTokens),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// stream sends a streamed request and yields its deltas as the typed
// events bring them (https://platform.openai.com/docs/api-reference/responses-streaming).
func (m *Model) stream(ctx context.Context, params responses.ResponseNewParams, opts []option.RequestOption, yield func(*model.Chunk, error) bool) {
	start := time.Now()
	a := &attempt{}
	s := m.svc.NewStreaming(ctx, params, append(opts, a.option())...)
	// Close drops the connection when the caller stops early.
	defer s.Close()

	var (
		t    turn
		ttft time.Duration
		// Function calls being streamed, by item id.
		open     = map[string]*responses.ResponseOutputItemUnion{}
		args     = map[string]*strings.Builder{}
		final    *responses.Response
		streamed bool // reasoning deltas came (not to be taken again from items)
	)
	first := func() {
		if ttft == 0 {
			ttft = time.Since(start)
		}
	}
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			if ev.Delta == "" {
				continue
			}
			first()
			t.text.WriteString(ev.Delta)
			if !yield(&model.Chunk{Content: ev.Delta}, nil) {
				return
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			if ev.Delta == "" {
				continue
			}
			first()
			streamed = true
			if !yield(&model.Chunk{ReasoningContent: ev.Delta}, nil) {
				return
			}
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				first()
				item := ev.Item
				open[item.ID] = &item
				b := &strings.Builder{}
				b.WriteString(item.Arguments.OfString)
				args[item.ID] = b
			}
		case "response.function_call_arguments.delta":
			if b := args[ev.ItemID]; b != nil {
				b.WriteString(ev.Delta)
			}
		case "response.function_call_arguments.done":
			if b := args[ev.ItemID]; b != nil {
				b.Reset()
				b.WriteString(ev.Arguments)
			}
		case "response.output_item.done":
			item := ev.Item
			switch item.Type {
			case "function_call":
				// The done item is complete; the deltas stand in for a
				// server that sends it without arguments.
				if item.Arguments.OfString == "" {
					if b := args[item.ID]; b != nil {
						item.Arguments.OfString = b.String()
					}
				}
				if started := open[item.ID]; started != nil {
					item.CallID = firstNonEmpty(item.CallID, started.CallID)
					item.Name = firstNonEmpty(item.Name, started.Name)
				}
				delete(open, item.ID)
				delete(args, item.ID)
				t.call(item)
			case "reasoning":
				if !streamed {
					// No deltas came: take the item's text now.
					var r turn
					r.item(item, false)
					if txt := r.reasoningText(); txt != "" {
						first()
						if !yield(&model.Chunk{ReasoningContent: txt}, nil) {
							return
						}
					}
				}
				if m.storeOff() {
					var obj map[string]any
					if json.Unmarshal([]byte(item.RawJSON()), &obj) == nil {
						t.kept = append(t.kept, obj)
					}
				}
			}
		case "response.completed", "response.incomplete":
			resp := ev.Response
			final = &resp
		case "response.failed":
			resp := ev.Response
			pe := m.failed(&resp)
			if pe == nil {
				pe = m.eventError("", "response failed", errors.New("response.failed"))
			}
			yield(nil, pe)
			return
		case "error":
			yield(nil, m.eventError(ev.Code, ev.Message, errors.New("error event")))
			return
		}
		if final != nil {
			break
		}
	}
	if err := s.Err(); err != nil {
		yield(nil, m.convertError(ctx, err, a))
		return
	}
	if final == nil {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		yield(nil, m.eventError("", "the event stream ended before response.completed", errors.New("stream ended early")))
		return
	}
	// Calls still open (no output_item.done) are complete once the
	// response is.
	for _, item := range final.Output {
		if item.Type == "function_call" && open[item.ID] != nil {
			t.call(item)
		}
	}
	if m.storeOff() && len(t.kept) == 0 {
		// response.completed carries the reasoning items too, as agno reads them.
		for _, item := range final.Output {
			if item.Type == "reasoning" {
				var obj map[string]any
				if json.Unmarshal([]byte(item.RawJSON()), &obj) == nil {
					t.kept = append(t.kept, obj)
				}
			}
		}
	}
	c := t.chunk(final)
	c.Usage.TimeToFirstToken = ttft
	yield(c, nil)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
