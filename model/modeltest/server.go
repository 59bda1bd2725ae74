package modeltest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/model"
)

// ServerConfig configures a fake OpenAI-compatible HTTP server.
type ServerConfig struct {
	// Script is answered in order, repeating the last entry; Responder,
	// when set, chooses instead. With neither, every answer is "ok".
	Script    []Response
	Responder Responder
	// APIKey, when set, is required as "Authorization: Bearer <APIKey>".
	APIKey string
	// Models are listed by GET /v1/models (default: "fake-model").
	Models []string
	// TimeToFirstToken and TokenDelay apply to responses that leave Delay
	// and TokenDelay zero.
	TimeToFirstToken time.Duration
	TokenDelay       time.Duration
	// NoRecord keeps no copy of the requests (Requests stays empty), so a
	// long-running server under load does not grow.
	NoRecord bool
}

// RecordedRequest is one request as the server received it.
type RecordedRequest struct {
	Method string
	Path   string
	Header http.Header
	// Body is the raw JSON body, byte for byte.
	Body json.RawMessage
	// Request is the body decoded into the model vocabulary; nil when the
	// body was not a valid chat completion request.
	Request *model.Request
}

// Authorization returns the request's Authorization header.
func (r RecordedRequest) Authorization() string { return r.Header.Get("Authorization") }

// Decode unmarshals the raw body into v.
func (r RecordedRequest) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// Handler serves the OpenAI Chat Completions wire format:
// POST /v1/chat/completions (JSON or SSE) and GET /v1/models. It is safe
// for concurrent use.
//
// The format follows OpenAI's reference:
// https://platform.openai.com/docs/api-reference/chat/create (request and
// JSON response), https://platform.openai.com/docs/api-reference/chat/streaming
// (chat.completion.chunk events, usage with stream_options.include_usage,
// [DONE]) and https://platform.openai.com/docs/guides/error-codes (error
// bodies and statuses). Reasoning text is sent as reasoning_content, the
// field OpenAI-compatible servers use
// (https://api-docs.deepseek.com/guides/reasoning_model); OpenAI itself
// returns none in Chat Completions.
type Handler struct {
	cfg ServerConfig
	mux *http.ServeMux

	mu       sync.Mutex
	next     int
	requests []RecordedRequest
	calls    int

	// release ends held (Hang) streams when the server closes; abandoned
	// is closed when a client leaves a stream before its end.
	release     chan struct{}
	releaseOnce sync.Once
	abandoned   chan struct{}
	abandonOnce sync.Once
}

// NewHandler returns a handler for cfg, for use with any http.Server.
func NewHandler(cfg ServerConfig) *Handler {
	if len(cfg.Models) == 0 {
		cfg.Models = []string{"fake-model"}
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), release: make(chan struct{}), abandoned: make(chan struct{})}
	h.mux.HandleFunc("POST /v1/chat/completions", h.chatCompletions)
	h.mux.HandleFunc("GET /v1/models", h.models)
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Requests returns the chat completion requests received so far, in order.
func (h *Handler) Requests() []RecordedRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]RecordedRequest(nil), h.requests...)
}

// Calls returns how many chat completion requests were received, failed
// ones included.
func (h *Handler) Calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

// Abandoned is closed the first time a client goes away before its
// stream ended, a Hang one included: the server saw the connection close.
func (h *Handler) Abandoned() <-chan struct{} { return h.abandoned }

// hold keeps a Hang stream open until its client leaves, which it
// reports, or the server closes.
func (h *Handler) hold(ctx context.Context) (clientGone bool) {
	select {
	case <-ctx.Done():
		return true
	case <-h.release:
		return false
	}
}

// Server is a Handler on an httptest server.
type Server struct {
	*Handler
	// URL is the base URL clients are configured with; it ends in "/v1".
	URL string
	srv *httptest.Server
}

// NewServer starts a fake OpenAI-compatible server on a loopback port.
// Close it when done.
func NewServer(cfg ServerConfig) *Server {
	h := NewHandler(cfg)
	srv := httptest.NewServer(h)
	return &Server{Handler: h, URL: srv.URL + "/v1", srv: srv}
}

// Client returns an HTTP client whose idle connections Close releases.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close ends held streams, shuts the server down and waits for its
// handlers to return. It may be called more than once.
func (s *Server) Close() {
	s.releaseOnce.Do(func() { close(s.release) })
	s.srv.Close()
}

// FillerTokens returns n streamed tokens ("token1 token2 …") for load and
// latency tests where the text does not matter.
func FillerTokens(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "token" + strconv.Itoa(i+1) + " "
	}
	return out
}

// maxRequestBody bounds what the fake server reads of a request.
const maxRequestBody = 32 << 20

func (h *Handler) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var wire wireRequest
	var decodeErr error
	if err != nil {
		decodeErr = err
	} else {
		decodeErr = json.Unmarshal(body, &wire)
	}
	if decodeErr == nil {
		rec.Request, decodeErr = wire.toModel(body)
	}
	h.mu.Lock()
	h.calls++
	if !h.cfg.NoRecord {
		h.requests = append(h.requests, rec)
	}
	h.mu.Unlock()

	if h.cfg.APIKey != "" {
		switch got := r.Header.Get("Authorization"); {
		case got == "":
			writeError(w, http.StatusUnauthorized, wireError{
				Message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
				Type:    "invalid_request_error",
			}, 0)
			return
		case got != "Bearer "+h.cfg.APIKey:
			writeError(w, http.StatusUnauthorized, wireError{
				Message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
				Type:    "invalid_request_error", Code: "invalid_api_key",
			}, 0)
			return
		}
	}
	if decodeErr != nil {
		e := wireError{
			Message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
			Type:    "invalid_request_error",
		}
		var bad *badRequest
		if errors.As(decodeErr, &bad) {
			e.Message, e.Param = bad.message, &bad.param
			if bad.code != "" {
				e.Code = bad.code
			}
		}
		writeError(w, http.StatusBadRequest, e, 0)
		return
	}

	resp := h.pick(rec.Request)
	ttft := resp.Delay
	if ttft == 0 {
		ttft = h.cfg.TimeToFirstToken
	}
	if !sleep(r.Context(), ttft) {
		return
	}
	if resp.Status != 0 || resp.Err != nil {
		status := resp.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		writeError(w, status, errorFor(resp), resp.RetryAfter)
		return
	}
	if resp.TokenDelay == 0 {
		resp.TokenDelay = h.cfg.TokenDelay
	}
	c := completion{
		id:      "chatcmpl-" + rand.Text()[:20],
		created: time.Now().Unix(),
		model:   wire.Model,
		resp:    resp,
		usage:   wireUsageFor(resp, rec.Request),
		hold:    h.hold,
	}
	w.Header().Set("X-Request-Id", "req_"+rand.Text()[:20])
	if wire.Stream {
		if c.stream(w, r, wire.StreamOptions != nil && wire.StreamOptions.IncludeUsage) {
			h.abandonOnce.Do(func() { close(h.abandoned) })
		}
		return
	}
	c.json(w)
}

func (h *Handler) pick(req *model.Request) Response {
	h.mu.Lock()
	if h.cfg.Responder != nil {
		fn := h.cfg.Responder
		h.mu.Unlock()
		return fn(req)
	}
	defer h.mu.Unlock()
	if len(h.cfg.Script) == 0 {
		return Response{Content: "ok"}
	}
	r := h.cfg.Script[min(h.next, len(h.cfg.Script)-1)]
	h.next++
	return r
}

func (h *Handler) models(w http.ResponseWriter, r *http.Request) {
	if h.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+h.cfg.APIKey {
		writeError(w, http.StatusUnauthorized, wireError{Message: "Incorrect API key provided.", Type: "invalid_request_error", Code: "invalid_api_key"}, 0)
		return
	}
	type entry struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []entry `json:"data"`
	}{Object: "list"}
	for _, id := range h.cfg.Models {
		list.Data = append(list.Data, entry{ID: id, Object: "model", Created: 1700000000, OwnedBy: "agno-go"})
	}
	writeJSON(w, http.StatusOK, list)
}

// wireError is the object under "error" in OpenAI's error bodies.
type wireError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    any     `json:"code"`
}

// errorFor builds the error body for a failing scripted response, with
// the type and code OpenAI uses for the status.
func errorFor(r Response) wireError {
	e := wireError{Message: r.ErrorMessage, Type: r.ErrorType}
	if r.ErrorCode != "" {
		e.Code = r.ErrorCode
	}
	if e.Message == "" && r.Err != nil {
		e.Message = r.Err.Error()
	}
	status := r.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if e.Type == "" {
		switch {
		case status == http.StatusTooManyRequests:
			e.Type = "requests"
		case status >= 500:
			e.Type = "server_error"
		default:
			e.Type = "invalid_request_error"
		}
	}
	if e.Code == nil && status == http.StatusTooManyRequests {
		e.Code = "rate_limit_exceeded"
	}
	if e.Message == "" {
		switch status {
		case http.StatusTooManyRequests:
			e.Message = "Rate limit reached for requests. Please try again later."
		case http.StatusInternalServerError:
			e.Message = "The server had an error while processing your request. Sorry about that!"
		default:
			e.Message = http.StatusText(status)
		}
	}
	return e
}

func writeError(w http.ResponseWriter, status int, e wireError, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	}
	writeJSON(w, status, struct {
		Error wireError `json:"error"`
	}{e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// sleep waits d or until ctx ends; it reports whether to carry on.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// completion renders one scripted response on the wire.
type completion struct {
	id      string
	created int64
	model   string
	resp    Response
	usage   *wireUsage
	// hold waits out a Hang response.
	hold func(ctx context.Context) (clientGone bool)
}

type wireUsage struct {
	PromptTokens            int            `json:"prompt_tokens"`
	CompletionTokens        int            `json:"completion_tokens"`
	TotalTokens             int            `json:"total_tokens"`
	PromptTokensDetails     map[string]int `json:"prompt_tokens_details"`
	CompletionTokensDetails map[string]int `json:"completion_tokens_details"`
}

func wireUsageFor(r Response, req *model.Request) *wireUsage {
	u := r.Usage
	if u == nil {
		u = &model.Usage{InputTokens: promptTokens(req), OutputTokens: len(Tokens(r)) + len(strings.Fields(r.Reasoning)) + 8*len(r.ToolCalls)}
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	w := &wireUsage{
		PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: total,
		PromptTokensDetails:     map[string]int{"cached_tokens": u.CacheReadTokens, "audio_tokens": 0},
		CompletionTokensDetails: map[string]int{"reasoning_tokens": u.ReasoningTokens, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
	if u.CacheWriteTokens > 0 {
		w.PromptTokensDetails["cache_write_tokens"] = u.CacheWriteTokens
	}
	return w
}

// promptTokens is a stable stand-in for a tokenizer: words in the prompt.
func promptTokens(req *model.Request) int {
	n := 0
	if req != nil {
		for _, m := range req.Messages {
			n += len(strings.Fields(m.Content)) + 4
		}
	}
	return n
}

func (c *completion) finishReason() string { return finish(c.resp) }

// wireToolCall is a tool call in a message or in a streamed delta.
type wireToolCall struct {
	Index    *int          `json:"index,omitempty"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function *wireFunction `json:"function,omitempty"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

func (c *completion) json(w http.ResponseWriter) {
	type message struct {
		Role             string         `json:"role"`
		Content          *string        `json:"content"`
		Refusal          *string        `json:"refusal"`
		ReasoningContent string         `json:"reasoning_content,omitempty"`
		ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
		Annotations      []any          `json:"annotations"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		Logprobs     any     `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	msg := message{Role: "assistant", ReasoningContent: strings.Join(reasoningTokens(c.resp), ""), Annotations: []any{}}
	content := strings.Join(Tokens(c.resp), "")
	if content != "" || len(c.resp.ToolCalls) == 0 {
		msg.Content = &content
	}
	for _, tc := range c.resp.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: &wireFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
	}
	writeJSON(w, http.StatusOK, struct {
		ID                string     `json:"id"`
		Object            string     `json:"object"`
		Created           int64      `json:"created"`
		Model             string     `json:"model"`
		Choices           []choice   `json:"choices"`
		Usage             *wireUsage `json:"usage"`
		ServiceTier       string     `json:"service_tier"`
		SystemFingerprint string     `json:"system_fingerprint"`
	}{c.id, "chat.completion", c.created, c.model, []choice{{Message: msg, FinishReason: c.finishReason()}}, c.usage, "default", "fp_fake"})
}

// wireDelta is the delta of a streamed chunk. Content is a pointer so the
// first chunk can carry "content":"" as OpenAI's does.
type wireDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	Refusal          json.RawMessage `json:"refusal,omitempty"`
}

type wireChunkChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	Logprobs     any       `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type wireChunk struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	Created           int64             `json:"created"`
	Model             string            `json:"model"`
	SystemFingerprint string            `json:"system_fingerprint"`
	Choices           []wireChunkChoice `json:"choices"`
	// Usage is present (null until the last chunk) only when the request
	// asked for stream_options.include_usage.
	Usage json.RawMessage `json:"usage,omitempty"`
}

// stream writes the response as OpenAI's SSE chunks: role first, then
// reasoning and content deltas, tool calls split across several chunks
// (id and name only in the first), finish_reason, the usage chunk when
// asked for, and [DONE]. It reports whether it stopped because the
// client went away.
func (c *completion) stream(w http.ResponseWriter, r *http.Request, includeUsage bool) (clientGone bool) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)

	var null json.RawMessage
	if includeUsage {
		null = json.RawMessage("null")
	}
	sent := 0
	send := func(choices []wireChunkChoice, usage json.RawMessage) bool {
		if sent > 0 && len(choices) > 0 && !sleep(r.Context(), c.resp.TokenDelay) {
			return false
		}
		sent++
		b, err := json.Marshal(wireChunk{c.id, "chat.completion.chunk", c.created, c.model, "fp_fake", choices, usage})
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	delta := func(d wireDelta) bool {
		return send([]wireChunkChoice{{Delta: d}}, null)
	}

	empty := ""
	if !delta(wireDelta{Role: "assistant", Content: &empty, Refusal: json.RawMessage("null")}) {
		return true
	}
	for _, piece := range reasoningTokens(c.resp) {
		if !delta(wireDelta{ReasoningContent: piece}) {
			return true
		}
	}
	for _, tok := range Tokens(c.resp) {
		if !delta(wireDelta{Content: &tok}) {
			return true
		}
	}
	for i, tc := range c.resp.ToolCalls {
		idx := i
		if !delta(wireDelta{ToolCalls: []wireToolCall{{Index: &idx, ID: tc.ID, Type: "function", Function: &wireFunction{Name: tc.Function.Name}}}}) {
			return true
		}
		for _, piece := range splitArguments(tc.Function.Arguments) {
			if !delta(wireDelta{ToolCalls: []wireToolCall{{Index: &idx, Function: &wireFunction{Arguments: piece}}}}) {
				return true
			}
		}
	}
	switch {
	case c.resp.Hang:
		return c.hold(r.Context())
	case c.resp.Cut:
		// Closes the connection without the chunked body's end, so the
		// client reads an unexpected EOF, as when a network drops.
		panic(http.ErrAbortHandler)
	}
	fr := c.finishReason()
	if !send([]wireChunkChoice{{Delta: wireDelta{}, FinishReason: &fr}}, null) {
		return true
	}
	if includeUsage {
		u, _ := json.Marshal(c.usage)
		if !send([]wireChunkChoice{}, u) {
			return true
		}
	}
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
		return true
	}
	return rc.Flush() != nil
}

// reasoningTokens are the streamed pieces of the reasoning.
func reasoningTokens(r Response) []string {
	if r.ReasoningTokens != nil {
		return r.ReasoningTokens
	}
	return Tokens(Response{Content: r.Reasoning})
}

// splitArguments cuts a tool call's arguments into pieces of a few bytes,
// as models stream them.
func splitArguments(args string) []string {
	const piece = 8
	var out []string
	for len(args) > piece {
		out = append(out, args[:piece])
		args = args[piece:]
	}
	if args != "" {
		out = append(out, args)
	}
	return out
}

// wireRequest is the part of a chat completion request the server reads.
type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []wireMessage   `json:"messages"`
	Tools          []wireTool      `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int64          `json:"seed"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	User                string          `json:"user"`
	ReasoningEffort     string          `json:"reasoning_effort"`
}

type wireMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	Name       string           `json:"name"`
	ToolCalls  []model.ToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	} `json:"function"`
}

var knownRequestKeys = map[string]bool{
	"model": true, "messages": true, "tools": true, "tool_choice": true, "response_format": true,
	"stream": true, "stream_options": true, "temperature": true, "top_p": true, "max_tokens": true,
	"max_completion_tokens": true, "stop": true, "seed": true, "frequency_penalty": true,
	"presence_penalty": true, "user": true, "reasoning_effort": true,
}

// badRequest is a request that is valid JSON but not a valid chat
// completion request; it becomes a 400 with OpenAI's wording.
type badRequest struct{ message, param, code string }

func (e *badRequest) Error() string { return e.message }

// toModel decodes the request into the model vocabulary for a Responder;
// keys it does not know land in Extra.
func (w *wireRequest) toModel(body []byte) (*model.Request, error) {
	if w.Model == "" {
		return nil, &badRequest{message: "you must provide a model parameter", param: "model"}
	}
	if len(w.Messages) == 0 {
		return nil, &badRequest{message: "Missing required parameter: 'messages'.", param: "messages", code: "missing_required_parameter"}
	}
	req := &model.Request{
		Stream: w.Stream, Temperature: w.Temperature, TopP: w.TopP, MaxTokens: w.MaxTokens,
		Seed: w.Seed, FrequencyPenalty: w.FrequencyPenalty, PresencePenalty: w.PresencePenalty,
		User: w.User, ReasoningEffort: w.ReasoningEffort,
	}
	if req.MaxTokens == nil {
		req.MaxTokens = w.MaxCompletionTokens
	}
	for i, m := range w.Messages {
		msg := model.Message{Role: model.Role(m.Role), Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
		if m.Role == "developer" {
			msg.Role = model.RoleSystem
		}
		if err := decodeContent(m.Content, &msg); err != nil {
			return nil, &badRequest{message: fmt.Sprintf("Invalid value for 'messages[%d].content': %v", i, err), param: fmt.Sprintf("messages[%d].content", i)}
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, model.ToolDefinition{
			Name: t.Function.Name, Description: t.Function.Description,
			Parameters: t.Function.Parameters, Strict: t.Function.Strict,
		})
	}
	if len(w.ToolChoice) > 0 && string(w.ToolChoice) != "null" {
		var mode string
		var named struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(w.ToolChoice, &mode) == nil {
			req.ToolChoice = &model.ToolChoice{Mode: mode}
		} else if json.Unmarshal(w.ToolChoice, &named) == nil {
			req.ToolChoice = &model.ToolChoice{Function: named.Function.Name}
		}
	}
	if rf := w.ResponseFormat; rf != nil {
		req.ResponseFormat = &model.ResponseFormat{Type: rf.Type}
		if js := rf.JSONSchema; js != nil {
			req.ResponseFormat.Name, req.ResponseFormat.Schema, req.ResponseFormat.Strict = js.Name, js.Schema, js.Strict
		}
	}
	if len(w.Stop) > 0 && string(w.Stop) != "null" {
		var one string
		if json.Unmarshal(w.Stop, &one) == nil {
			req.Stop = []string{one}
		} else if err := json.Unmarshal(w.Stop, &req.Stop); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, err
	}
	for k, raw := range all {
		if knownRequestKeys[k] {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		if req.Extra == nil {
			req.Extra = map[string]any{}
		}
		req.Extra[k] = v
	}
	return req, nil
}

// decodeContent reads a string, null, or an array of content parts.
func decodeContent(raw json.RawMessage, msg *model.Message) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		return json.Unmarshal(raw, &msg.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			msg.Content += p.Text
		case "image_url":
			msg.Images = append(msg.Images, model.Image{URL: p.ImageURL.URL, Detail: p.ImageURL.Detail})
		}
	}
	return nil
}
