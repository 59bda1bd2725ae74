package openai

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"

	"github.com/agno-go/agno/model"
)

// complete sends a non-streamed request and returns the whole response as
// one chunk. The body is read with gjson, like stream chunks: the SDK's
// reflective decoder costs more than the rest of the call.
func (m *Model) complete(ctx context.Context, params sdk.ChatCompletionNewParams, opts []option.RequestOption) (*model.Chunk, error) {
	start := time.Now()
	var body []byte
	err := m.call(ctx, func(a *attempt) error {
		body = nil
		_, err := m.chat.New(ctx, params, append(opts, a.option(), option.WithResponseBodyInto(&body))...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m.fromCompletion(body, start)
}

func (m *Model) fromCompletion(body []byte, start time.Time) (*model.Chunk, error) {
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return nil, m.providerError(fmt.Errorf("response is not a JSON object: %.200q", body), nil)
	}
	resp := gjson.ParseBytes(body)
	// OpenRouter and some gateways answer 200 with an error object.
	if e := resp.Get("error"); e.Exists() && e.Type != gjson.Null {
		pe := m.providerError(errResponseError, nil)
		var code string
		pe.Message, code = errorMessage([]byte(`{"error":` + e.Raw + `}`))
		pe.ContextOverflow = isContextOverflow(code, pe.Message)
		return nil, pe
	}
	out := &model.Chunk{ProviderData: providerData(resp.Get("id").String(), resp.Get("model").String())}
	var choice gjson.Result
	for _, ch := range resp.Get("choices").Array() {
		if ch.Get("index").Int() == 0 {
			choice = ch
			break
		}
	}
	if choice.Exists() {
		msg := choice.Get("message")
		out.Content, out.ReasoningContent = splitThink(msg.Get("content").String())
		r := reasoningText(rawField(msg.Get("reasoning_content")))
		if r == "" {
			r = reasoningText(rawField(msg.Get("reasoning")))
		}
		if r != "" {
			out.ReasoningContent = r
		}
		for _, tc := range msg.Get("tool_calls").Array() {
			if typ := tc.Get("type").String(); typ != "" && typ != "function" {
				continue // custom tools are never offered by this package
			}
			id := tc.Get("id").String()
			if id == "" {
				id = newCallID()
			}
			fn := tc.Get("function")
			out.ToolCalls = append(out.ToolCalls, model.NewToolCall(id, fn.Get("name").String(), fn.Get("arguments").String()))
		}
		out.FinishReason = choice.Get("finish_reason").String()
	}
	out.Usage = &model.Usage{}
	if u := resp.Get("usage"); u.IsObject() {
		out.Usage = &model.Usage{
			InputTokens:      int(u.Get("prompt_tokens").Int()),
			OutputTokens:     int(u.Get("completion_tokens").Int()),
			TotalTokens:      int(u.Get("total_tokens").Int()),
			ReasoningTokens:  int(u.Get("completion_tokens_details.reasoning_tokens").Int()),
			CacheReadTokens:  int(u.Get("prompt_tokens_details.cached_tokens").Int()),
			CacheWriteTokens: int(u.Get("prompt_tokens_details.cache_write_tokens").Int()),
		}
	}
	out.Usage.TimeToFirstToken = time.Since(start)
	return out, nil
}

// done is the data of the SSE event that ends a chat completion stream.
var done = []byte("[DONE]")

type responseError struct{}

func (responseError) Error() string { return "error object in a successful response" }

var errResponseError error = responseError{}

var errInvalidChunk = errors.New("stream chunk is not a JSON object")

// streamChunk is the part of a chat.completion.chunk this package reads.
type streamChunk struct {
	ID      string
	Model   string
	Choices []streamChoice
	Usage   *model.Usage
}

type streamChoice struct {
	Index        int64
	FinishReason string
	Content      string
	// DeepSeek and vLLM send reasoning_content; OpenRouter and Ollama send
	// reasoning, a string or an object.
	ReasoningContent json.RawMessage
	Reasoning        json.RawMessage
	ToolCalls        []toolCallDelta
}

type toolCallDelta struct {
	Index          int64
	ID, Name       string
	ArgumentsChunk string
}

// parseChunk reads a chunk with gjson (the SDK's own JSON reader). It picks
// the few fields needed and skips the rest without allocating: decoding
// the SDK's ChatCompletionChunk instead costs several times more per
// chunk (see BenchmarkStream), which shows when a fast local model streams
// thousands of tokens per second.
func parseChunk(data []byte) (streamChunk, error) {
	var c streamChunk
	if !gjson.ValidBytes(data) {
		return c, errInvalidChunk
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return c, errInvalidChunk
	}
	root.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "id":
			c.ID = v.Str
		case "model":
			c.Model = v.Str
		case "choices":
			v.ForEach(func(_, ch gjson.Result) bool {
				c.Choices = append(c.Choices, parseChoice(ch))
				return true
			})
		case "usage":
			if v.IsObject() {
				c.Usage = &model.Usage{
					InputTokens:      int(v.Get("prompt_tokens").Int()),
					OutputTokens:     int(v.Get("completion_tokens").Int()),
					TotalTokens:      int(v.Get("total_tokens").Int()),
					ReasoningTokens:  int(v.Get("completion_tokens_details.reasoning_tokens").Int()),
					CacheReadTokens:  int(v.Get("prompt_tokens_details.cached_tokens").Int()),
					CacheWriteTokens: int(v.Get("prompt_tokens_details.cache_write_tokens").Int()),
				}
			}
		}
		return true
	})
	return c, nil
}

func parseChoice(ch gjson.Result) streamChoice {
	var out streamChoice
	ch.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "index":
			out.Index = v.Int()
		case "finish_reason":
			out.FinishReason = v.Str
		case "delta":
			v.ForEach(func(key, v gjson.Result) bool {
				switch key.Str {
				case "content":
					out.Content = v.Str
				case "reasoning_content":
					out.ReasoningContent = rawField(v)
				case "reasoning":
					out.Reasoning = rawField(v)
				case "tool_calls":
					v.ForEach(func(_, tc gjson.Result) bool {
						out.ToolCalls = append(out.ToolCalls, toolCallDelta{
							Index:          tc.Get("index").Int(),
							ID:             tc.Get("id").Str,
							Name:           tc.Get("function.name").Str,
							ArgumentsChunk: tc.Get("function.arguments").Str,
						})
						return true
					})
				}
				return true
			})
		}
		return true
	})
	return out
}

func rawField(v gjson.Result) json.RawMessage {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// open starts a streamed request and returns its SSE events, or, for a
// server that ignored "stream" and answered JSON, the whole response.
func (m *Model) open(ctx context.Context, params sdk.ChatCompletionNewParams, opts []option.RequestOption) (ssestream.Decoder, []byte, error) {
	var raw *http.Response
	err := m.call(ctx, func(a *attempt) error {
		raw = nil
		_, err := m.chat.New(ctx, params, append(opts,
			option.WithJSONSet("stream", true),
			option.WithResponseBodyInto(&raw),
			a.option())...)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if mt, _, _ := mime.ParseMediaType(raw.Header.Get("Content-Type")); mt == "application/json" {
		defer raw.Body.Close()
		body, err := io.ReadAll(raw.Body)
		if err != nil {
			return nil, nil, m.providerError(err, nil)
		}
		return nil, body, nil
	}
	return ssestream.NewDecoder(raw), nil, nil
}

// stream sends a streamed request and yields its deltas.
func (m *Model) stream(ctx context.Context, params sdk.ChatCompletionNewParams, opts []option.RequestOption, yield func(*model.Chunk, error) bool) {
	start := time.Now()
	events, whole, err := m.open(ctx, params, opts)
	if err == nil && whole != nil {
		var c *model.Chunk
		if c, err = m.fromCompletion(whole, start); err == nil {
			yield(c, nil)
			return
		}
	}
	if err != nil {
		yield(nil, err)
		return
	}
	// Close drops the connection when the caller stops early or ctx ends.
	defer events.Close()

	var (
		think       thinkStream
		calls       toolCallMerger
		finish      string
		use         *model.Usage
		ttft        time.Duration
		id, modelID string
	)
	for events.Next() {
		ev := events.Event()
		data := bytes.TrimSpace(ev.Data)
		if bytes.Equal(data, done) {
			break
		}
		ck, err := parseChunk(data)
		if err != nil {
			yield(nil, m.providerError(fmt.Errorf("%w: %q", err, truncate(string(data), 200)), nil))
			return
		}
		// An error event inside a 200 stream (OpenAI, OpenRouter do this).
		if e := gjson.GetBytes(data, "error"); e.Exists() && e.Type != gjson.Null {
			yield(nil, m.providerError(&ssestream.StreamError{Message: "received error while streaming: " + e.Raw, Event: ev}, nil))
			return
		}
		if id == "" {
			id, modelID = ck.ID, ck.Model
		}
		if ck.Usage != nil {
			use = ck.Usage
		}
		ch := firstChoice(ck.Choices)
		if ch == nil {
			continue
		}
		if ch.FinishReason != "" {
			finish = ch.FinishReason
		}
		var out model.Chunk
		if ch.Content != "" {
			out.Content, out.ReasoningContent = think.push(ch.Content)
		}
		r := reasoningText(ch.ReasoningContent)
		if r == "" {
			r = reasoningText(ch.Reasoning)
		}
		out.ReasoningContent += r
		for i := range ch.ToolCalls {
			calls.add(&ch.ToolCalls[i])
		}
		if ttft == 0 && (ch.Content != "" || r != "" || len(ch.ToolCalls) > 0) {
			ttft = time.Since(start)
		}
		if out.Content != "" || out.ReasoningContent != "" {
			if !yield(&out, nil) {
				return
			}
		}
	}
	if err := events.Err(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			yield(nil, ctxErr)
			return
		}
		yield(nil, m.providerError(err, nil))
		return
	}
	final := &model.Chunk{ToolCalls: calls.result(), FinishReason: finish, ProviderData: providerData(id, modelID)}
	final.Content, final.ReasoningContent = think.flush()
	if use == nil {
		use = &model.Usage{}
	}
	use.TimeToFirstToken = ttft
	final.Usage = use
	yield(final, nil)
}

func firstChoice(choices []streamChoice) *streamChoice {
	for i := range choices {
		if choices[i].Index == 0 {
			return &choices[i]
		}
	}
	return nil
}

func providerData(id, modelID string) map[string]any {
	pd := map[string]any{}
	if id != "" {
		pd["id"] = id
	}
	if modelID != "" {
		pd["model"] = modelID
	}
	if len(pd) == 0 {
		return nil
	}
	return pd
}

// reasoningText reads a reasoning field: a string, or an object with the
// text under "content" or "text".
func reasoningText(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] == 'n' {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	var obj struct {
		Content string `json:"content"`
		Text    string `json:"text"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return cmp.Or(obj.Content, obj.Text)
	}
	return ""
}

// toolCallMerger folds streamed tool-call deltas into whole calls. Deltas
// of one call share an index; the first carries id, type and name, the
// rest carry pieces of the arguments.
type toolCallMerger struct {
	calls []*mergedCall
	// byIndex points at the call currently receiving deltas for an index.
	byIndex map[int64]*mergedCall
}

type mergedCall struct {
	order    int
	index    int64
	id, name string
	args     []byte
}

func (t *toolCallMerger) add(d *toolCallDelta) {
	cur := t.byIndex[d.Index]
	// A new id under a known index is a new call: servers that omit the
	// index send every call as index 0.
	if cur == nil || (d.ID != "" && cur.id != "" && d.ID != cur.id) {
		cur = &mergedCall{order: len(t.calls), index: d.Index, id: d.ID, name: d.Name}
		t.calls = append(t.calls, cur)
		if t.byIndex == nil {
			t.byIndex = map[int64]*mergedCall{}
		}
		t.byIndex[d.Index] = cur
	} else {
		if cur.id == "" {
			cur.id = d.ID
		}
		if cur.name == "" {
			cur.name = d.Name
		}
	}
	cur.args = append(cur.args, d.ArgumentsChunk...)
}

func (t *toolCallMerger) result() []model.ToolCall {
	if len(t.calls) == 0 {
		return nil
	}
	calls := slices.Clone(t.calls)
	slices.SortStableFunc(calls, func(a, b *mergedCall) int {
		return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.order, b.order))
	})
	out := make([]model.ToolCall, len(calls))
	for i, c := range calls {
		id := c.id
		if id == "" {
			id = newCallID()
		}
		out[i] = model.NewToolCall(id, c.name, string(c.args))
	}
	return out
}

// newCallID makes an id in OpenAI's style for a call that came without one.
func newCallID() string { return "call_" + rand.Text()[:24] }
