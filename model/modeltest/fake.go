// Package modeltest provides test doubles for model.Model: a scripted
// in-process Fake, and (server.go) a fake OpenAI-compatible HTTP server that
// speaks the real wire format, for tests of the real providers.
package modeltest

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/agno-go/agno/model"
)

// Response is one scripted model response.
type Response struct {
	// Content is the assistant text. In a streamed response it is sent in
	// Tokens pieces (default: split on word boundaries).
	Content   string
	Reasoning string
	ToolCalls []model.ToolCall
	Usage     *model.Usage
	// ProviderData is returned with the response's last chunk (Fake only).
	ProviderData map[string]any
	// Tokens overrides how Content is split into streamed deltas.
	Tokens []string
	// ReasoningTokens overrides how Reasoning is split into streamed
	// deltas (default: the fake server splits it after each space, Fake
	// sends it whole).
	ReasoningTokens []string
	// Err fails the request (the fake server answers 500 with its text).
	Err error
	// Status, when non-zero, fails the request as an HTTP error: the fake
	// server answers with OpenAI's error body, Fake returns a
	// *model.ProviderError. ErrorMessage, ErrorType and ErrorCode fill the
	// body (defaults follow the status); RetryAfter is sent as Retry-After.
	Status       int
	ErrorMessage string
	ErrorType    string
	ErrorCode    string
	RetryAfter   time.Duration
	// FinishReason overrides "stop" / "tool_calls".
	FinishReason string
	// Delay is waited before the first chunk (time to first token);
	// TokenDelay between chunks.
	Delay      time.Duration
	TokenDelay time.Duration
	// Hang and Cut apply to a streamed response of the fake server, after
	// its deltas and before finish_reason. Hang holds the stream open,
	// silent, until the client goes away (Handler.Abandoned then fires) or
	// Server.Close: a stalled model. Cut drops the connection without
	// finishing the stream: a network failure mid-stream.
	Hang bool
	Cut  bool
}

// Responder chooses the response for a request; it must be safe for
// concurrent use.
type Responder func(req *model.Request) Response

// Fake is a scripted model.Model. It answers from a fixed script (in order,
// repeating the last entry) or from a Responder, and records requests.
type Fake struct {
	ModelID      string
	ProviderName string
	Structured   bool
	// NativeReasoning makes the fake a native reasoning model.
	NativeReasoning model.NativeReasoning
	// NoRecord keeps no copy of the requests (Requests returns nil; Calls
	// still counts), so a benchmark measures the framework, not the fake.
	// Set it before the first request.
	NoRecord bool

	mu        sync.Mutex
	script    []Response
	next      int
	calls     int
	responder Responder
	requests  []*model.Request
}

// New returns a fake answering the responses in order; after the last one
// it repeats it.
func New(script ...Response) *Fake {
	return &Fake{ModelID: "fake-model", ProviderName: "Fake", script: script}
}

// NewFunc returns a fake answering with fn.
func NewFunc(fn Responder) *Fake {
	return &Fake{ModelID: "fake-model", ProviderName: "Fake", responder: fn}
}

// Info implements model.Model.
func (f *Fake) Info() model.Info {
	return model.Info{ID: f.ModelID, Provider: f.ProviderName, Name: "Fake", NativeStructuredOutputs: f.Structured, JSONMode: true, NativeReasoning: f.NativeReasoning}
}

// Requests returns the requests received so far.
func (f *Fake) Requests() []*model.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*model.Request(nil), f.requests...)
}

// Calls returns how many requests were received.
func (f *Fake) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *Fake) pick(req *model.Request) Response {
	f.mu.Lock()
	f.calls++
	if !f.NoRecord {
		cp := *req
		cp.Messages = append([]model.Message(nil), req.Messages...)
		f.requests = append(f.requests, &cp)
	}
	if f.responder != nil {
		fn := f.responder
		f.mu.Unlock()
		return fn(req)
	}
	defer f.mu.Unlock()
	if len(f.script) == 0 {
		return Response{Content: "ok"}
	}
	r := f.script[min(f.next, len(f.script)-1)]
	f.next++
	return r
}

// Generate implements model.Model.
func (f *Fake) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		r := f.pick(req)
		if err := f.wait(ctx, r.Delay); err != nil {
			yield(nil, err)
			return
		}
		if r.Err != nil {
			yield(nil, r.Err)
			return
		}
		if r.Status != 0 {
			yield(nil, f.providerError(r))
			return
		}
		usage := r.Usage
		if usage == nil {
			usage = &model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
		}
		if !req.Stream {
			yield(&model.Chunk{Content: r.Content, ReasoningContent: r.Reasoning, ToolCalls: r.ToolCalls, Usage: usage, FinishReason: finish(r), ProviderData: r.ProviderData}, nil)
			return
		}
		reasoning := r.ReasoningTokens
		if reasoning == nil && r.Reasoning != "" {
			reasoning = []string{r.Reasoning}
		}
		for _, piece := range reasoning {
			if !yield(&model.Chunk{ReasoningContent: piece}, nil) {
				return
			}
		}
		for i, tok := range Tokens(r) {
			if i > 0 {
				if err := f.wait(ctx, r.TokenDelay); err != nil {
					yield(nil, err)
					return
				}
			}
			if !yield(&model.Chunk{Content: tok}, nil) {
				return
			}
		}
		yield(&model.Chunk{ToolCalls: r.ToolCalls, Usage: usage, FinishReason: finish(r), ProviderData: r.ProviderData}, nil)
	}
}

func finish(r Response) string {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (f *Fake) providerError(r Response) *model.ProviderError {
	e := errorFor(r)
	return &model.ProviderError{
		Provider:        f.ProviderName,
		Model:           f.ModelID,
		StatusCode:      r.Status,
		Message:         e.Message,
		RetryAfter:      r.RetryAfter,
		ContextOverflow: e.Code == "context_length_exceeded",
	}
}

func (f *Fake) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Tokens returns the streamed pieces of a response's content: Tokens if
// set, else the content split after each space.
func Tokens(r Response) []string {
	if r.Tokens != nil {
		return r.Tokens
	}
	if r.Content == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i < len(r.Content); i++ {
		if r.Content[i] == ' ' {
			out = append(out, r.Content[start:i+1])
			start = i + 1
		}
	}
	if start < len(r.Content) {
		out = append(out, r.Content[start:])
	}
	return out
}

// ToolCall is a shorthand for a function tool call.
func ToolCall(id, name, args string) model.ToolCall { return model.NewToolCall(id, name, args) }
