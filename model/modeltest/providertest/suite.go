package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
)

// Bounds of the suite's waits. A call gets callTimeout to finish; what
// must happen promptly (cancellation, the server seeing a disconnect)
// gets promptly.
const (
	callTimeout = 20 * time.Second
	promptly    = 5 * time.Second
)

// Run runs every check against the provider h describes, each as a
// subtest that fails on leaked goroutines.
func Run(t *testing.T, h Harness) {
	p, ok := model.LookupProvider(h.Provider)
	if !ok {
		t.Fatalf("provider %q is not registered (registered: %s): import its package", h.Provider, strings.Join(model.ProviderNames(), ", "))
	}
	if h.Start == nil {
		t.Fatal("Harness.Start is nil")
	}
	for f := range h.Unsupported {
		if !slices.Contains(features, f) {
			t.Fatalf("Harness.Unsupported names %q; known features are %q", f, features)
		}
	}
	s := &suite{h: h, p: p}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if reason, ok := h.Unsupported[c.needs]; c.needs != "" && ok {
				t.Skipf("%s: %s does not support %s: %s", c.name, h.Provider, c.needs, reason)
			}
			ignore := goleak.IgnoreCurrent()
			e := &checkEnv{T: t, s: s}
			defer func() {
				e.closeAll()
				if !t.Failed() {
					goleak.VerifyNone(t, ignore)
				}
			}()
			c.run(e)
		})
	}
}

// checks are the suite, in the order it runs them. needs is the feature
// a check needs, if any.
var checks = []struct {
	name  string
	needs Feature
	run   func(e *checkEnv)
}{
	{"Text", "", checkText},
	{"TextStream", "", checkTextStream},
	{"Usage", "", checkUsage},
	{"ParallelToolCalls", ToolCalls, checkToolCalls},
	{"StructuredOutput", "", checkStructuredOutput},
	{"Reasoning", Reasoning, checkReasoning},
	{"ImagesIn", Images, checkImages},
	{"RetryableErrors", "", checkRetryableErrors},
	{"ClientErrorsNotRetried", "", checkClientErrors},
	{"RetryThenSuccess", "", checkRetryThenSuccess},
	{"StreamCut", "", checkStreamCut},
	{"CancelMidStream", "", checkCancelMidStream},
	{"DeadlineMidStream", "", checkDeadlineMidStream},
	{"ConsumerStopsEarly", "", checkConsumerStopsEarly},
	{"Concurrent", "", checkConcurrent},
}

type suite struct {
	h Harness
	p model.RegisteredProvider
}

// checkEnv is one check's testing.T and what it started.
type checkEnv struct {
	*testing.T
	s       *suite
	closers []func()
}

// env is a fake and a model of the provider pointed at it.
type env struct {
	fake  Fake
	model model.Model
	info  model.Info
}

// start runs a fake answering turns and builds the model through the
// registry. Its own transport lets the check close every connection
// before looking for leaked goroutines.
func (e *checkEnv) start(turns ...Turn) *env {
	e.Helper()
	fake := e.s.h.Start(e.T, turns...)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	e.closers = append(e.closers, fake.Close, tr.CloseIdleConnections)
	m, err := e.s.p.New(model.ProviderSettings{
		ID:         e.s.h.ID,
		BaseURL:    fake.URL(),
		APIKey:     APIKey,
		HTTPClient: &http.Client{Transport: tr},
		MaxRetries: MaxRetries,
	}, e.s.h.Options)
	if err != nil {
		e.Fatalf("%s: New: %v", e.s.h.Provider, err)
	}
	return &env{fake: fake, model: m, info: m.Info()}
}

func (e *checkEnv) closeAll() {
	for _, c := range e.closers {
		c()
	}
	e.closers = nil
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

func userRequest(text string, stream bool) *model.Request {
	return &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: text}}}
}

// generate drains one call and checks what the model contract promises
// of every response: no nil chunk, tool calls on at most one chunk, usage
// on the final chunk only (Response.Append adds up every chunk's).
func (e *checkEnv) generate(ctx context.Context, en *env, req *model.Request) ([]*model.Chunk, error) {
	e.Helper()
	var chunks []*model.Chunk
	for c, err := range en.model.Generate(ctx, req) {
		if err != nil {
			return chunks, err
		}
		if c == nil {
			e.Fatalf("Generate yielded a nil chunk without an error")
		}
		chunks = append(chunks, c)
	}
	if len(chunks) == 0 {
		e.Fatalf("Generate yielded nothing and no error")
	}
	withCalls := 0
	for i, c := range chunks {
		if len(c.ToolCalls) > 0 {
			withCalls++
		}
		if c.Usage != nil && i != len(chunks)-1 {
			e.Errorf("chunk %d of %d carries usage %+v: usage belongs to the final chunk only", i+1, len(chunks), *c.Usage)
		}
	}
	if withCalls > 1 {
		e.Errorf("%d chunks carry tool calls: complete calls come once, in the final chunk", withCalls)
	}
	if chunks[len(chunks)-1].Usage == nil {
		e.Errorf("the final chunk carries no usage")
	}
	return chunks, nil
}

// mustGenerate is generate for a call that must succeed.
func (e *checkEnv) mustGenerate(en *env, req *model.Request) []*model.Chunk {
	e.Helper()
	chunks, err := e.generate(callCtx(e.T), en, req)
	if err != nil {
		e.Fatalf("Generate (stream=%v): %v", req.Stream, err)
	}
	return chunks
}

// onlyRequest is the single request a fake received.
func (e *checkEnv) onlyRequest(en *env) Request {
	e.Helper()
	reqs := en.fake.Requests()
	if len(reqs) != 1 {
		e.Fatalf("the server received %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

func collected(chunks []*model.Chunk) *model.Response {
	r := &model.Response{}
	for _, c := range chunks {
		r.Append(c)
	}
	return r
}

func last(chunks []*model.Chunk) *model.Chunk { return chunks[len(chunks)-1] }

func modes(f func(stream bool)) {
	for _, stream := range []bool{false, true} {
		f(stream)
	}
}

func mode(stream bool) string {
	if stream {
		return "streamed"
	}
	return "non-streamed"
}

// Text: a non-streamed answer is one chunk with the text, finish reason
// "stop" and usage; the request names the model and carries the prompt.
func checkText(e *checkEnv) {
	const answer = "Paris is the capital of France."
	en := e.start(Turn{Text: []string{answer}, InputTokens: 12, OutputTokens: 7})
	chunks := e.mustGenerate(en, userRequest("What is the capital of France?", false))
	if len(chunks) != 1 {
		e.Fatalf("a non-streamed answer came in %d chunks, want 1", len(chunks))
	}
	c := chunks[0]
	if c.Content != answer || c.ReasoningContent != "" || len(c.ToolCalls) != 0 {
		e.Errorf("chunk = %+v, want content %q only", c, answer)
	}
	if c.FinishReason != "stop" {
		e.Errorf("finish reason = %q, want stop", c.FinishReason)
	}
	req := e.onlyRequest(en)
	if req.Stream {
		e.Errorf("a non-streamed call asked for a stream")
	}
	if en.info.ID == "" || en.info.Provider == "" || en.info.Name == "" {
		e.Errorf("Info() = %+v: want the model id, provider and name", en.info)
	}
	if req.Model != en.info.ID {
		e.Errorf("request names model %q, Info().ID is %q", req.Model, en.info.ID)
	}
	if !slices.Equal(req.UserText, []string{"What is the capital of France?"}) {
		e.Errorf("user text on the wire = %q", req.UserText)
	}
}

// TextStream: text split across several wire deltas arrives as several
// content chunks, before the final chunk, and joins up to the text.
func checkTextStream(e *checkEnv) {
	pieces := []string{"Par", "is is the ", "capi", "tal of Fr", "ance. ", "Ça va ? ✓"}
	en := e.start(Turn{Text: pieces, InputTokens: 12, OutputTokens: 9})
	chunks := e.mustGenerate(en, userRequest("What is the capital of France?", true))
	var deltas []string
	for _, c := range chunks[:len(chunks)-1] {
		if c.Content != "" {
			deltas = append(deltas, c.Content)
		}
		if c.FinishReason != "" {
			e.Errorf("a delta chunk carries finish reason %q", c.FinishReason)
		}
	}
	if len(deltas) < 2 {
		e.Errorf("text came in %d delta chunks before the final one, want it streamed as it arrives (%d deltas on the wire)", len(deltas), len(pieces))
	}
	if got, want := collected(chunks).Content, strings.Join(pieces, ""); got != want {
		e.Errorf("streamed text = %q, want %q (deltas %q)", got, want, deltas)
	}
	if f := last(chunks).FinishReason; f != "stop" {
		e.Errorf("final finish reason = %q, want stop", f)
	}
	if req := e.onlyRequest(en); !req.Stream {
		e.Errorf("a streamed call did not ask for a stream")
	}
}

// Usage: the vendor's token counts arrive in the final chunk, with their
// total, streamed or not.
func checkUsage(e *checkEnv) {
	modes(func(stream bool) {
		en := e.start(Turn{Text: []string{"Four", "."}, InputTokens: 31, OutputTokens: 7})
		chunks := e.mustGenerate(en, userRequest("2+2?", stream))
		u := last(chunks).Usage
		if u == nil {
			return // reported by generate
		}
		if u.InputTokens != 31 || u.OutputTokens != 7 || u.TotalTokens != 38 {
			e.Errorf("%s: usage = in %d, out %d, total %d; want 31, 7, 38", mode(stream), u.InputTokens, u.OutputTokens, u.TotalTokens)
		}
	})
}

var weatherTools = []model.ToolDefinition{
	{Name: "get_weather", Description: "Current weather in a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`)},
	{Name: "get_time", Description: "Local time in a time zone.", Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`)},
}

// ParallelToolCalls: two calls in one turn arrive complete (ids, names,
// whole arguments JSON) in the final chunk, with finish reason
// "tool_calls", after the text that came with them.
func checkToolCalls(e *checkEnv) {
	calls := []ToolCall{
		{ID: "call_w1", Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`},
		{ID: "call_t2", Name: "get_time", Arguments: `{"zone":"Europe/Paris"}`},
	}
	modes(func(stream bool) {
		en := e.start(Turn{Text: []string{"Checking ", "both."}, ToolCalls: calls, InputTokens: 40, OutputTokens: 30})
		req := userRequest("Weather and time in Paris?", stream)
		req.Tools = weatherTools
		chunks := e.mustGenerate(en, req)
		fin := last(chunks)
		if len(fin.ToolCalls) == 0 {
			e.Errorf("%s: the final chunk carries no tool calls", mode(stream))
		} else {
			if len(fin.ToolCalls) != len(calls) {
				e.Errorf("%s: %d tool calls, want %d: %+v", mode(stream), len(fin.ToolCalls), len(calls), fin.ToolCalls)
			}
			for i, want := range calls[:min(len(calls), len(fin.ToolCalls))] {
				got := fin.ToolCalls[i]
				if got.ID != want.ID || got.Function.Name != want.Name || got.Type != "function" {
					e.Errorf("%s: call %d = id %q name %q type %q, want id %q name %q type function", mode(stream), i, got.ID, got.Function.Name, got.Type, want.ID, want.Name)
				}
				if !jsonEqual(got.Function.Arguments, want.Arguments) {
					e.Errorf("%s: call %d arguments = %q, want %s", mode(stream), i, got.Function.Arguments, want.Arguments)
				}
			}
		}
		if fin.FinishReason != "tool_calls" {
			e.Errorf("%s: finish reason = %q, want tool_calls", mode(stream), fin.FinishReason)
		}
		if got := collected(chunks).Content; got != "Checking both." {
			e.Errorf("%s: text beside the calls = %q", mode(stream), got)
		}
		if tools := e.onlyRequest(en).Tools; !slices.Equal(tools, []string{"get_weather", "get_time"}) {
			e.Errorf("%s: tools on the wire = %q", mode(stream), tools)
		}
	})
}

// StructuredOutput: a provider claiming NativeStructuredOutputs sends the
// response schema the vendor's way; one that does not sends none (its
// Info would be wrong otherwise, and the agent prompts for JSON instead).
func checkStructuredOutput(e *checkEnv) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	const answer = `{"city":"Paris"}`
	en := e.start(Turn{Text: []string{answer}, InputTokens: 20, OutputTokens: 6})
	req := userRequest("Which city is the capital of France? Answer in JSON.", false)
	req.ResponseFormat = &model.ResponseFormat{Type: "json_schema", Name: "capital", Schema: schema, Strict: true}
	chunks := e.mustGenerate(en, req)
	if got := collected(chunks).Content; got != answer {
		e.Errorf("content = %q, want %q", got, answer)
	}
	sent := e.onlyRequest(en).ResponseSchema
	switch {
	case en.info.NativeStructuredOutputs && sent == nil:
		e.Errorf("Info().NativeStructuredOutputs is true but the request carries no response schema")
	case en.info.NativeStructuredOutputs && !jsonEqual(string(sent), string(schema)):
		e.Errorf("response schema on the wire = %s, want %s", sent, schema)
	case !en.info.NativeStructuredOutputs && sent != nil:
		e.Errorf("Info().NativeStructuredOutputs is false but the request carries a response schema %s: set it in Info", sent)
	}
}

// Reasoning: reasoning text arrives as ReasoningContent, kept apart from
// the answer, streamed ahead of it.
func checkReasoning(e *checkEnv) {
	thinking := []string{"The capital ", "of France ", "is Paris."}
	modes(func(stream bool) {
		en := e.start(Turn{Reasoning: thinking, Text: []string{"Paris", "."}, InputTokens: 15, OutputTokens: 25})
		chunks := e.mustGenerate(en, userRequest("Capital of France?", stream))
		r := collected(chunks)
		if want := strings.Join(thinking, ""); r.ReasoningContent != want {
			e.Errorf("%s: reasoning = %q, want %q", mode(stream), r.ReasoningContent, want)
		}
		if r.Content != "Paris." {
			e.Errorf("%s: content = %q, want %q", mode(stream), r.Content, "Paris.")
		}
		if !stream {
			return
		}
		sawText, reasoningDeltas := false, 0
		for _, c := range chunks {
			if c.ReasoningContent != "" {
				reasoningDeltas++
				if sawText {
					e.Errorf("reasoning %q arrived after the answer began", c.ReasoningContent)
				}
			}
			sawText = sawText || c.Content != ""
		}
		if reasoningDeltas < 2 {
			e.Errorf("reasoning came in %d chunks, want it streamed as it arrives (%d deltas on the wire)", reasoningDeltas, len(thinking))
		}
	})
}

// ImagesIn: a user message's images, by URL and inline, reach the wire
// in the vendor's shape beside the text.
func checkImages(e *checkEnv) {
	pixel := pngPixel()
	en := e.start(Turn{Text: []string{"A cat and a red dot."}, InputTokens: 900, OutputTokens: 8})
	req := &model.Request{Messages: []model.Message{{
		Role: model.RoleUser, Content: "What is in these images?",
		Images: []model.Image{
			{URL: "https://example.com/cat.jpg"},
			{Content: pixel, MimeType: "image/png"},
		},
	}}}
	e.mustGenerate(en, req)
	got := e.onlyRequest(en)
	want := []Image{{URL: "https://example.com/cat.jpg"}, {MediaType: "image/png", Data: pixel}}
	if !reflect.DeepEqual(got.Images, want) {
		e.Errorf("images on the wire = %s, want %s", describeImages(got.Images), describeImages(want))
	}
	if !slices.Equal(got.UserText, []string{"What is in these images?"}) {
		e.Errorf("user text on the wire = %q", got.UserText)
	}
}

func pngPixel() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func describeImages(imgs []Image) string {
	var parts []string
	for _, im := range imgs {
		if im.URL != "" {
			parts = append(parts, "url "+im.URL)
		} else {
			parts = append(parts, fmt.Sprintf("inline %s (%d bytes)", im.MediaType, len(im.Data)))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// wantProviderError checks err is the provider's error for a status
// answer: a *model.ProviderError naming the provider, model and status,
// with the vendor's message.
func (e *checkEnv) wantProviderError(what string, en *env, err error, status int, message string) *model.ProviderError {
	e.Helper()
	pe, ok := model.AsProviderError(err)
	if !ok {
		e.Errorf("%s: err = %v (%T), want a *model.ProviderError", what, err, err)
		return nil
	}
	if pe.StatusCode != status {
		e.Errorf("%s: StatusCode = %d, want %d", what, pe.StatusCode, status)
	}
	if message != "" && !strings.Contains(pe.Message, message) {
		e.Errorf("%s: Message = %q, want the vendor's message %q", what, pe.Message, message)
	}
	if pe.Provider != en.info.Provider || pe.Model != en.info.ID {
		e.Errorf("%s: error names provider %q model %q, Info() says %q %q", what, pe.Provider, pe.Model, en.info.Provider, en.info.ID)
	}
	return pe
}

// RetryableErrors: 429 and 5xx are sent 1+MaxRetries times, then end in
// a ProviderError classified retryable (429 also rate-limited).
func checkRetryableErrors(e *checkEnv) {
	for _, tc := range []struct {
		status int
		msg    string
	}{
		{http.StatusTooManyRequests, "Rate limit reached for requests: slow down"},
		{http.StatusInternalServerError, "The server had an error processing your request"},
		{http.StatusServiceUnavailable, "Service temporarily unavailable"},
	} {
		modes(func(stream bool) {
			what := fmt.Sprintf("%s %d", mode(stream), tc.status)
			// A short Retry-After keeps the retries quick.
			en := e.start(Turn{Status: tc.status, ErrorMessage: tc.msg, RetryAfter: time.Millisecond})
			_, err := e.generate(callCtx(e.T), en, userRequest("hi", stream))
			if pe := e.wantProviderError(what, en, err, tc.status, tc.msg); pe != nil {
				if !pe.Retryable() || pe.ContextOverflow {
					e.Errorf("%s: Retryable() = %v, ContextOverflow = %v; want retryable", what, pe.Retryable(), pe.ContextOverflow)
				}
				if pe.RateLimited() != (tc.status == http.StatusTooManyRequests) {
					e.Errorf("%s: RateLimited() = %v", what, pe.RateLimited())
				}
			}
			if n := len(en.fake.Requests()); n != 1+MaxRetries {
				e.Errorf("%s: sent %d times, want %d (1 + MaxRetries %d)", what, n, 1+MaxRetries, MaxRetries)
			}
		})
	}
}

// ClientErrorsNotRetried: 400 and 401 are sent once and end in a
// ProviderError that is not retryable.
func checkClientErrors(e *checkEnv) {
	for _, tc := range []struct {
		status int
		msg    string
	}{
		{http.StatusBadRequest, "messages.0.content: field required"},
		{http.StatusUnauthorized, "invalid api key"},
	} {
		modes(func(stream bool) {
			what := fmt.Sprintf("%s %d", mode(stream), tc.status)
			en := e.start(Turn{Status: tc.status, ErrorMessage: tc.msg})
			_, err := e.generate(callCtx(e.T), en, userRequest("hi", stream))
			if pe := e.wantProviderError(what, en, err, tc.status, tc.msg); pe != nil && (pe.Retryable() || pe.RateLimited()) {
				e.Errorf("%s: Retryable() = %v, RateLimited() = %v; want neither", what, pe.Retryable(), pe.RateLimited())
			}
			if n := len(en.fake.Requests()); n != 1 {
				e.Errorf("%s: sent %d times, want once", what, n)
			}
		})
	}
}

// RetryThenSuccess: a retried request that then succeeds yields only the
// answer.
func checkRetryThenSuccess(e *checkEnv) {
	modes(func(stream bool) {
		en := e.start(
			Turn{Status: http.StatusServiceUnavailable, ErrorMessage: "busy", RetryAfter: time.Millisecond},
			Turn{Text: []string{"back ", "up"}, InputTokens: 3, OutputTokens: 2},
		)
		chunks := e.mustGenerate(en, userRequest("hi", stream))
		if got := collected(chunks).Content; got != "back up" {
			e.Errorf("%s: content = %q, want %q", mode(stream), got, "back up")
		}
		if n := len(en.fake.Requests()); n != 2 {
			e.Errorf("%s: sent %d times, want 2", mode(stream), n)
		}
	})
}

// StreamCut: a connection dropped mid-stream ends the call with a
// retryable ProviderError after the deltas that came, with no final
// chunk, and is not resent: its deltas were already yielded.
func checkStreamCut(e *checkEnv) {
	pieces := []string{"Once upon ", "a time"}
	en := e.start(Turn{Text: pieces, End: Cut})
	var chunks []*model.Chunk
	var err error
	for c, cerr := range en.model.Generate(callCtx(e.T), userRequest("Tell me a story.", true)) {
		if cerr != nil {
			err = cerr
			break
		}
		chunks = append(chunks, c)
	}
	if err == nil {
		e.Fatalf("a cut stream ended without an error; it yielded %+v", *collected(chunks))
	}
	pe, ok := model.AsProviderError(err)
	if !ok {
		e.Errorf("err = %v (%T), want a *model.ProviderError", err, err)
	} else if !pe.Retryable() || pe.StatusCode != 0 {
		e.Errorf("ProviderError = %+v: want a retryable network error without a status", pe)
	}
	r := collected(chunks)
	if !strings.HasPrefix(strings.Join(pieces, ""), r.Content) {
		e.Errorf("content before the cut = %q, not a prefix of the text", r.Content)
	}
	if r.FinishReason != "" || len(r.ToolCalls) > 0 {
		e.Errorf("a cut stream produced a final chunk: %+v", chunks)
	}
	if n := len(en.fake.Requests()); n != 1 {
		e.Errorf("sent %d times, want once", n)
	}
}

// result is the end of a call run in the background.
type result struct {
	deltas []string
	err    error
}

// CancelMidStream: cancelling the context while the stream is open (the
// server stalled after the first deltas) ends the call promptly with the
// context's error, and the server sees the connection close.
func checkCancelMidStream(e *checkEnv) {
	en := e.start(Turn{Text: []string{"first ", "second "}, End: Stall})
	ctx, cancel := context.WithCancel(callCtx(e.T))
	defer cancel()
	got := make(chan string, 1)
	done := make(chan result, 1)
	go func() {
		var r result
		for c, err := range en.model.Generate(ctx, userRequest("Go on.", true)) {
			if err != nil {
				r.err = err
				break
			}
			if c.Content != "" {
				r.deltas = append(r.deltas, c.Content)
				select {
				case got <- c.Content:
				default:
				}
			}
		}
		done <- r
	}()
	select {
	case <-got:
	case r := <-done:
		e.Fatalf("the call ended before the stream stalled: deltas %q, err %v", r.deltas, r.err)
	case <-time.After(callTimeout):
		e.Fatal("no delta arrived before the stall: the stream is not yielded as it comes")
	}
	cancel()
	e.wantPromptEnd(en, done, context.Canceled)
}

// DeadlineMidStream: a context deadline passing while the stream stalls
// ends the call promptly with context.DeadlineExceeded.
func checkDeadlineMidStream(e *checkEnv) {
	en := e.start(Turn{Text: []string{"first ", "second "}, End: Stall})
	// Long enough for the first deltas to arrive on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		var r result
		for c, err := range en.model.Generate(ctx, userRequest("Go on.", true)) {
			if err != nil {
				r.err = err
				break
			}
			r.deltas = append(r.deltas, c.Content)
		}
		done <- r
	}()
	<-ctx.Done()
	r := e.wantPromptEnd(en, done, context.DeadlineExceeded)
	if strings.Join(r.deltas, "") == "" {
		e.Errorf("no delta arrived within a second, before the deadline")
	}
}

// wantPromptEnd waits for a call whose context ended to return want, and
// for the fake to see its connection close.
func (e *checkEnv) wantPromptEnd(en *env, done <-chan result, want error) result {
	e.Helper()
	var r result
	select {
	case r = <-done:
		if !errors.Is(r.err, want) {
			e.Errorf("err = %v (%T), want %v", r.err, r.err, want)
		} else if pe, ok := model.AsProviderError(r.err); ok {
			// A caller retries what a ProviderError calls retryable.
			e.Errorf("err = %#v: want the context's error, not a provider error (Retryable() %v) wrapping it", pe, pe.Retryable())
		}
	case <-time.After(promptly):
		en.fake.Close() // ends the stall, so the call can return
		e.Fatalf("the call did not end within %v of its context", promptly)
	}
	select {
	case <-en.fake.Disconnected():
	case <-time.After(promptly):
		e.Errorf("the server did not see the connection close within %v", promptly)
	}
	return r
}

// ConsumerStopsEarly: a caller that stops ranging over the chunks closes
// the stream, and the server sees the connection close.
func checkConsumerStopsEarly(e *checkEnv) {
	en := e.start(Turn{Text: []string{"one ", "two ", "three"}, End: Stall})
	done := make(chan error, 1)
	go func() {
		for c, err := range en.model.Generate(callCtx(e.T), userRequest("Count.", true)) {
			if err != nil {
				done <- err
				return
			}
			if c.Content != "" {
				break
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			e.Errorf("Generate: %v", err)
		}
	case <-time.After(callTimeout):
		en.fake.Close()
		e.Fatal("no delta arrived before the stall")
	}
	select {
	case <-en.fake.Disconnected():
	case <-time.After(promptly):
		e.Errorf("the server did not see the connection close within %v of the caller stopping", promptly)
	}
}

// Concurrent: one model serves concurrent calls (run with -race).
func checkConcurrent(e *checkEnv) {
	const n = 4
	en := e.start(Turn{Text: []string{"same ", "answer"}, InputTokens: 5, OutputTokens: 2})
	ctx := callCtx(e.T)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			r, err := model.Collect(en.model.Generate(ctx, userRequest("hi", i%2 == 0)))
			if err == nil && r.Content != "same answer" {
				err = fmt.Errorf("content %q", r.Content)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			e.Errorf("concurrent call: %v", err)
		}
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
