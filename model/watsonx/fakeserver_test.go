package watsonx

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// fakeIAM is IBM Cloud IAM's token endpoint as documented at
// https://cloud.ibm.com/docs/account?topic=account-iamtoken_from_apikey
// and https://cloud.ibm.com/apidocs/iam-identity-token-api#gettoken-apikey:
// POST /identity/token, form grant_type=urn:ibm:params:oauth:grant-type:apikey
// and apikey, answered with {access_token, refresh_token, token_type,
// expires_in, expiration} or, for an unknown key, 400 with
// {errorCode, errorMessage, context}.
type fakeIAM struct {
	srv  *httptest.Server
	keys map[string]bool
	// lifetime of the tokens issued.
	lifetime time.Duration
	now      func() time.Time

	mu        sync.Mutex
	exchanges int
	issued    map[string]bool
	status    int // when non-zero, fail every exchange with it
}

func newFakeIAM(keys ...string) *fakeIAM {
	f := &fakeIAM{keys: map[string]bool{}, issued: map[string]bool{}, lifetime: time.Hour, now: time.Now}
	for _, k := range keys {
		f.keys[k] = true
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

func (f *fakeIAM) url() string { return f.srv.URL + "/identity/token" }

func (f *fakeIAM) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/identity/token" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		iamFail(w, http.StatusBadRequest, "BXNIM0109E", "Property missing or empty. Operation not allowed: grant_type")
		return
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ibm:params:oauth:grant-type:apikey" {
		iamFail(w, http.StatusBadRequest, "BXNIM0109E", "Property missing or empty. Operation not allowed: grant_type")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exchanges++
	if f.status != 0 {
		iamFail(w, f.status, "BXNIM0000E", "IAM is unavailable")
		return
	}
	if !f.keys[r.PostForm.Get("apikey")] {
		iamFail(w, http.StatusBadRequest, "BXNIM0415E", "Provided API key could not be found.")
		return
	}
	tok := fmt.Sprintf("iam-token-%d", f.exchanges)
	f.issued[tok] = true
	now := f.now()
	json.NewEncoder(w).Encode(map[string]any{
		"access_token": tok, "refresh_token": "not_supported", "token_type": "Bearer",
		"expires_in": int64(f.lifetime / time.Second), "expiration": now.Add(f.lifetime).Unix(), "scope": "ibm openid",
	})
}

func iamFail(w http.ResponseWriter, status int, code, msg string) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"errorCode": code, "errorMessage": msg, "context": map[string]any{"requestId": "fake-request"},
	})
}

func (f *fakeIAM) valid(tok string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.issued[tok]
}

func (f *fakeIAM) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.exchanges
}

// fakeChat is watsonx.ai's chat API as documented at
// https://cloud.ibm.com/apidocs/watsonx-ai#text-chat (POST
// /ml/v1/text/chat?version=YYYY-MM-DD: the request's model_id, project_id,
// messages, tools, tool_choice_option / tool_choice and parameters; the
// TextChatResponse answer with choices[].message, finish_reason and usage
// {prompt_tokens, completion_tokens, total_tokens}) and
// https://cloud.ibm.com/apidocs/watsonx-ai#text-chat-stream (POST
// /ml/v1/text/chat_stream: SSE events "id: N", "event: message", "data:
// <chunk with choices[].delta>", the last carrying finish_reason and
// usage), with the request fields of IBM's SDK
// (github.com/IBM/watsonx-ai-node-sdk src/vml_v1.ts textChat) and errors in
// the API's shape {"errors":[{code, message}], trace, status_code}. The
// model's reasoning comes as reasoning_content, which IBM's SDK lists on
// TextChatResultMessage; the fake sends it in stream deltas under the
// same name (the SDK's delta type does not list it).
// Requests must carry an IAM token the fake IAM issued.
type fakeChat struct {
	t       *testing.T
	iam     *fakeIAM
	project string
	srv     *httptest.Server

	mu       sync.Mutex
	turns    []providertest.Turn
	requests []providertest.Request

	gone      chan struct{}
	goneOnce  sync.Once
	release   chan struct{}
	closeOnce sync.Once
}

func startFakeChat(t *testing.T, iam *fakeIAM, project string, turns ...providertest.Turn) *fakeChat {
	f := &fakeChat{t: t, iam: iam, project: project, turns: turns, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

func (f *fakeChat) URL() string { return f.srv.URL }

func (f *fakeChat) Requests() []providertest.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *fakeChat) Disconnected() <-chan struct{} { return f.gone }

func (f *fakeChat) Close() {
	f.closeOnce.Do(func() { close(f.release) })
	f.srv.Close()
}

var versionRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// documentedFields are the text chat request's fields.
var documentedFields = map[string]bool{
	"model_id": true, "project_id": true, "space_id": true, "messages": true, "tools": true,
	"tool_choice_option": true, "tool_choice": true, "frequency_penalty": true, "logit_bias": true,
	"logprobs": true, "top_logprobs": true, "max_tokens": true, "max_completion_tokens": true, "n": true,
	"presence_penalty": true, "response_format": true, "seed": true, "stop": true, "temperature": true,
	"top_p": true, "repetition_penalty": true, "length_penalty": true, "include_reasoning": true,
	"reasoning_effort": true, "time_limit": true,
}

type wireContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type wireRequest struct {
	ModelID   string        `json:"model_id"`
	ProjectID string        `json:"project_id"`
	Messages  []wireMessage `json:"messages"`
	Tools     []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoiceOption string          `json:"tool_choice_option"`
	ToolChoice       json.RawMessage `json:"tool_choice"`
	ResponseFormat   *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

func (f *fakeChat) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var stream bool
	switch r.URL.Path {
	case "/ml/v1/text/chat":
	case "/ml/v1/text/chat_stream":
		stream = true
	default:
		chatFail(w, http.StatusNotFound, "not_found", fmt.Sprintf("%s %s: no such route", r.Method, r.URL.Path), 0)
		return
	}
	if r.Method != http.MethodPost {
		chatFail(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST", 0)
		return
	}
	if v := r.URL.Query().Get("version"); !versionRe.MatchString(v) {
		chatFail(w, http.StatusBadRequest, "missing_version", "The version parameter is missing or invalid: "+v, 0)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !f.iam.valid(tok) {
		chatFail(w, http.StatusUnauthorized, "authentication_token_not_valid", "Failed to authenticate the request due to invalid token", 0)
		return
	}
	rec, msg := f.read(raw)
	rec.Header, rec.Body, rec.Stream = r.Header.Clone(), raw, stream
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	var turn providertest.Turn
	if len(f.turns) > 0 {
		turn = f.turns[0]
		if len(f.turns) > 1 {
			f.turns = f.turns[1:]
		}
	}
	f.mu.Unlock()
	if msg != "" {
		f.t.Errorf("fake watsonx.ai refused a request: %s\n%s", msg, raw)
		chatFail(w, http.StatusBadRequest, "json_validation_error", msg, 0)
		return
	}
	if turn.Status != 0 {
		chatFail(w, turn.Status, "fake_error", turn.ErrorMessage, turn.RetryAfter)
		return
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(f.response(rec.Model, turn))
		return
	}
	f.streamTurn(w, r, rec.Model, turn)
}

// read checks a request as the API validates it and records it.
func (f *fakeChat) read(raw []byte) (providertest.Request, string) {
	var rec providertest.Request
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return rec, "Json document validation error: " + err.Error()
	}
	for k := range fields {
		if !documentedFields[k] {
			return rec, fmt.Sprintf("Json document validation error: unknown field %q", k)
		}
	}
	var req wireRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return rec, "Json document validation error: " + err.Error()
	}
	rec.Model = req.ModelID
	if req.ModelID == "" {
		return rec, "Json field validation error: model_id is required"
	}
	if req.ProjectID != f.project {
		return rec, fmt.Sprintf("project_id %q is not a project of this account", req.ProjectID)
	}
	if len(req.Messages) == 0 {
		return rec, "Json field validation error: messages must not be empty"
	}
	for _, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return rec, "tools: each tool is {type: function, function: {name, ...}}"
		}
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	switch req.ToolChoiceOption {
	case "", "none", "auto", "required":
	default:
		return rec, fmt.Sprintf("tool_choice_option %q: want none, auto or required", req.ToolChoiceOption)
	}
	if len(req.ToolChoice) > 0 && req.ToolChoice[0] != '{' {
		return rec, "tool_choice must be an object {type: function, function: {name}}; a mode goes in tool_choice_option"
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type != "json_object" && rf.Type != "text" {
		return rec, fmt.Sprintf("response_format.type %q: want json_object", rf.Type)
	}
	calls := map[string]bool{}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "assistant":
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" || !json.Valid([]byte(c.Function.Arguments)) {
					return rec, fmt.Sprintf("messages[%d].tool_calls: each call needs id, type function, name and JSON arguments", i)
				}
				calls[c.ID] = true
			}
		case "user":
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				rec.UserText = append(rec.UserText, s)
				continue
			}
			var parts []wireContent
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return rec, fmt.Sprintf("messages[%d].content: a string or a list of content parts", i)
			}
			var text []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					text = append(text, p.Text)
				case "image_url":
					if p.ImageURL == nil {
						return rec, fmt.Sprintf("messages[%d]: image_url part without image_url", i)
					}
					img, err := readImage(p.ImageURL.URL)
					if err != nil {
						return rec, fmt.Sprintf("messages[%d]: %v", i, err)
					}
					rec.Images = append(rec.Images, img)
				default:
					return rec, fmt.Sprintf("messages[%d]: content part type %q", i, p.Type)
				}
			}
			rec.UserText = append(rec.UserText, strings.Join(text, "\n"))
		case "tool":
			if !calls[m.ToolCallID] {
				return rec, fmt.Sprintf("messages[%d]: tool_call_id %q answers no earlier tool call", i, m.ToolCallID)
			}
		default:
			return rec, fmt.Sprintf("messages[%d].role %q: want system, user, assistant or tool", i, m.Role)
		}
	}
	return rec, ""
}

func readImage(u string) (providertest.Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return providertest.Image{URL: u}, nil
	}
	meta, data, ok := strings.Cut(rest, ",")
	mt, isB64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isB64 {
		return providertest.Image{}, fmt.Errorf("image data URL must be base64")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return providertest.Image{}, err
	}
	return providertest.Image{MediaType: mt, Data: b}, nil
}

func chatFail(w http.ResponseWriter, status int, code, msg string, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(retryAfter/time.Second)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"errors":      []any{map[string]any{"code": code, "message": msg, "more_info": "https://cloud.ibm.com/apidocs/watsonx-ai"}},
		"trace":       "fake-trace-0123",
		"status_code": status,
	})
}

func usage(t providertest.Turn) map[string]any {
	return map[string]any{"prompt_tokens": t.InputTokens, "completion_tokens": t.OutputTokens, "total_tokens": t.InputTokens + t.OutputTokens}
}

func finish(t providertest.Turn) string {
	if len(t.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func envelope(modelID string, choice map[string]any) map[string]any {
	return map[string]any{
		"id": "chat-fake-1", "model_id": modelID, "model": modelID, "created": 1733500000,
		"created_at": "2026-12-07T22:00:00.000Z", "choices": []any{choice},
	}
}

func (f *fakeChat) response(modelID string, t providertest.Turn) map[string]any {
	msg := map[string]any{"role": "assistant", "content": strings.Join(t.Text, "")}
	if len(t.Reasoning) > 0 {
		msg["reasoning_content"] = strings.Join(t.Reasoning, "")
	}
	var calls []any
	for _, c := range t.ToolCalls {
		calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	r := envelope(modelID, map[string]any{"index": 0, "message": msg, "finish_reason": finish(t)})
	r["usage"] = usage(t)
	return r
}

func (f *fakeChat) streamTurn(w http.ResponseWriter, r *http.Request, modelID string, t providertest.Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	n := 0
	send := func(ev map[string]any) bool {
		n++
		b, _ := json.Marshal(ev)
		if _, err := fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", n, b); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return false
		}
		return true
	}
	delta := func(d map[string]any) map[string]any {
		d["role"] = "assistant"
		return envelope(modelID, map[string]any{"index": 0, "delta": d, "finish_reason": nil})
	}
	for _, s := range t.Reasoning {
		if !send(delta(map[string]any{"reasoning_content": s})) {
			return
		}
	}
	for _, s := range t.Text {
		if !send(delta(map[string]any{"content": s})) {
			return
		}
	}
	for i, c := range t.ToolCalls {
		// The arguments arrive in pieces after the call's id and name.
		half := len(c.Arguments) / 2
		pieces := []map[string]any{
			{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments[:half]}},
			{"index": i, "function": map[string]any{"arguments": c.Arguments[half:]}},
		}
		for _, p := range pieces {
			if !send(delta(map[string]any{"tool_calls": []any{p}})) {
				return
			}
		}
	}
	switch t.End {
	case providertest.Cut:
		panic(http.ErrAbortHandler)
	case providertest.Stall:
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
		return
	}
	last := envelope(modelID, map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": finish(t)})
	last["usage"] = usage(t)
	send(last)
}
