package openairesponses_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI is an OpenAI Responses API server for tests: POST /v1/responses.
// It checks what the real API checks (bearer key, model, input item
// shapes, previous_response_id naming a stored response, every
// function_call_output answering a function call of the conversation,
// reasoning items sent back without encrypted content on a stateless
// request) and answers with scripted replies in the documented wire
// format: the Response object as the JSON body
// (https://platform.openai.com/docs/api-reference/responses/object), or
// the typed server-sent events of a streamed response
// (https://platform.openai.com/docs/api-reference/responses-streaming):
// "event: <type>\ndata: {"type":"<type>","sequence_number":n,...}\n\n".
// Error bodies are {"error":{"message","type","param","code"}}
// (https://platform.openai.com/docs/guides/error-codes).
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server
	key string

	mu       sync.Mutex
	replies  []reply
	requests []recorded
	// stored holds the output items of every response created with
	// store on, by id, with the input that led to it.
	stored map[string][]map[string]any
	serial int

	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
}

// reply is one scripted answer: an error, or a response the fake renders
// as a body or as events, whichever the request asked for.
type reply struct {
	status     int
	errType    string
	errCode    string
	message    string
	retryAfter time.Duration
	// rawBody, when set, is sent as is with status (a gateway's body).
	rawBody string

	resp response
	// events, when set, replaces the rendered event stream (a failure
	// mid-stream).
	events func(id string) []event
	// hold keeps the stream open after the events until the client goes
	// away; cut drops the connection without ending the body.
	hold, cut bool
}

// response is what a scripted response holds, in the API's terms.
type response struct {
	// reasoning is the reasoning summary, as its deltas.
	reasoning               []string
	text                    []string
	calls                   []call
	status                  string // "" is completed
	input                   int
	output                  int
	reasoningTokens, cached int
}

type call struct{ id, callID, name, args string }

type recorded struct {
	header http.Header
	body   []byte
}

type event struct {
	typ  string
	data map[string]any
}

func newFakeAPI(t *testing.T, key string, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, key: key, replies: replies, stored: map[string][]map[string]any{}, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.close)
	return f
}

func (f *fakeAPI) url() string { return f.srv.URL + "/v1" }

func (f *fakeAPI) close() {
	f.mu.Lock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
	f.mu.Unlock()
	f.srv.Close()
}

func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// body is the decoded body of request i.
func (f *fakeAPI) body(i int) map[string]any {
	f.t.Helper()
	reqs := f.received()
	if i >= len(reqs) {
		f.t.Fatalf("request %d not received (got %d)", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].body, &m); err != nil {
		f.t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), body: raw})
	var rp reply
	scripted := len(f.replies) > 0
	if scripted {
		rp = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "Invalid URL (POST "+r.URL.Path+")", 0)
		return
	}
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", 0)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.", 0)
		return
	}
	if msg := f.validate(req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", msg, 0)
		return
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "server_error", "", "fake server: no reply scripted", 0)
		return
	}
	if rp.rawBody != "" {
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.rawBody)
		return
	}
	if rp.status != 0 {
		writeError(w, rp.status, rp.errType, rp.errCode, rp.message, rp.retryAfter)
		return
	}

	f.mu.Lock()
	f.serial++
	id := fmt.Sprintf("resp_%04d", f.serial)
	f.mu.Unlock()
	store := req["store"] != false // the API stores by default
	encrypted := slices.Contains(stringList(req["include"]), "reasoning.encrypted_content")
	body := rp.resp.object(id, str(req["model"]), encrypted, "completed")
	if store {
		f.mu.Lock()
		f.stored[id] = append(inputItems(req), objects(body["output"])...)
		f.mu.Unlock()
	}
	if req["stream"] != true {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", "req_"+id)
		json.NewEncoder(w).Encode(body)
		return
	}
	evs := rp.resp.events(id, str(req["model"]), encrypted)
	if rp.events != nil {
		evs = rp.events(id)
	}
	if rp.hold || rp.cut {
		evs = slices.DeleteFunc(evs, func(e event) bool { return e.typ == "response.completed" })
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for n, e := range evs {
		e.data["type"] = e.typ
		e.data["sequence_number"] = n
		data, _ := json.Marshal(e.data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.typ, data); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	if rp.cut {
		panic(http.ErrAbortHandler)
	}
	if rp.hold {
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string, retryAfter time.Duration) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter > 0 {
		w.Header().Set("retry-after-ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	}
	w.WriteHeader(status)
	var c any
	if code != "" {
		c = code
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

// validate applies the API's request rules and returns its message for
// the first one broken, or "".
func (f *fakeAPI) validate(req map[string]any) string {
	if str(req["model"]) == "" {
		return "Missing required parameter: 'model'."
	}
	input, ok := req["input"].([]any)
	if !ok {
		if _, s := req["input"].(string); !s {
			return "Missing required parameter: 'input'."
		}
	}
	calls := map[string]bool{}
	if prev := str(req["previous_response_id"]); prev != "" {
		f.mu.Lock()
		items, ok := f.stored[prev]
		f.mu.Unlock()
		if !ok {
			return fmt.Sprintf("Previous response with id '%s' not found.", prev)
		}
		for _, it := range items {
			if it["type"] == "function_call" {
				calls[str(it["call_id"])] = true
			}
		}
	}
	stateless := req["store"] == false
	for i, raw := range input {
		it, ok := raw.(map[string]any)
		if !ok {
			return fmt.Sprintf("Invalid type for 'input[%d]': expected an object.", i)
		}
		typ := str(it["type"])
		if typ == "" && it["role"] != nil {
			typ = "message"
		}
		switch typ {
		case "message":
			switch str(it["role"]) {
			case "user", "assistant", "system", "developer":
			default:
				return fmt.Sprintf("Invalid value: '%v'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it["role"])
			}
			if it["content"] == nil {
				return fmt.Sprintf("Missing required parameter: 'input[%d].content'.", i)
			}
		case "function_call":
			if str(it["call_id"]) == "" || str(it["name"]) == "" {
				return fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i)
			}
			calls[str(it["call_id"])] = true
		case "function_call_output":
			if !calls[str(it["call_id"])] {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", str(it["call_id"]))
			}
		case "reasoning":
			if stateless && str(it["encrypted_content"]) == "" {
				return fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", str(it["id"]))
			}
			if _, ok := it["summary"].([]any); !ok {
				return fmt.Sprintf("Missing required parameter: 'input[%d].summary'.", i)
			}
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning', ...", typ)
		}
	}
	return ""
}

func inputItems(req map[string]any) []map[string]any {
	list, _ := req["input"].([]any)
	return objects(list)
}

func objects(v any) []map[string]any {
	var out []map[string]any
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	case []map[string]any:
		out = t
	}
	return out
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		out = append(out, str(e))
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// encryptedFor is the opaque reasoning blob the fake issues for a response.
func encryptedFor(id string) string { return "gAAAAB-encrypted-" + id }

// items are the response's output items, in the order the API emits
// them: reasoning, message, function calls.
func (r response) items(id string, encrypted bool) []map[string]any {
	var out []map[string]any
	if len(r.reasoning) > 0 {
		it := r.reasoningItem(id, encrypted)
		it["summary"] = []any{map[string]any{"type": "summary_text", "text": strings.Join(r.reasoning, "")}}
		out = append(out, it)
	}
	if len(r.text) > 0 {
		out = append(out, map[string]any{
			"type": "message", "id": "msg_" + id, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": strings.Join(r.text, ""), "annotations": []any{}}},
		})
	}
	for _, c := range r.calls {
		out = append(out, c.item("completed"))
	}
	return out
}

func (r response) reasoningItem(id string, encrypted bool) map[string]any {
	it := map[string]any{"type": "reasoning", "id": "rs_" + id, "summary": []any{}}
	if encrypted {
		it["encrypted_content"] = encryptedFor(id)
	}
	return it
}

func (c call) item(status string) map[string]any {
	args := c.args
	if status != "completed" {
		args = ""
	}
	return map[string]any{"type": "function_call", "id": c.id, "call_id": c.callID, "name": c.name, "arguments": args, "status": status}
}

func (r response) object(id, modelID string, encrypted bool, status string) map[string]any {
	if r.status != "" && status == "completed" {
		status = r.status
	}
	obj := map[string]any{
		"id": id, "object": "response", "created_at": 1741476542, "status": status, "error": nil,
		"incomplete_details": nil, "instructions": nil, "max_output_tokens": nil, "model": modelID,
		"output": []any{}, "parallel_tool_calls": true, "previous_response_id": nil,
		"reasoning": map[string]any{"effort": nil, "summary": nil}, "store": true, "temperature": 1.0,
		"text": map[string]any{"format": map[string]any{"type": "text"}}, "tool_choice": "auto", "tools": []any{},
		"top_p": 1.0, "truncation": "disabled", "usage": nil, "user": nil, "metadata": map[string]any{},
	}
	if status == "in_progress" {
		return obj
	}
	var out []any
	for _, it := range r.items(id, encrypted) {
		out = append(out, it)
	}
	obj["output"] = out
	if status == "incomplete" {
		obj["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	obj["usage"] = map[string]any{
		"input_tokens": r.input, "input_tokens_details": map[string]any{"cached_tokens": r.cached},
		"output_tokens": r.output, "output_tokens_details": map[string]any{"reasoning_tokens": r.reasoningTokens},
		"total_tokens": r.input + r.output,
	}
	return obj
}

// events renders the response as the API streams it.
func (r response) events(id, modelID string, encrypted bool) []event {
	evs := []event{
		{"response.created", map[string]any{"response": r.object(id, modelID, encrypted, "in_progress")}},
		{"response.in_progress", map[string]any{"response": r.object(id, modelID, encrypted, "in_progress")}},
	}
	idx := 0
	if len(r.reasoning) > 0 {
		item := r.reasoningItem(id, encrypted)
		evs = append(evs, event{"response.output_item.added", map[string]any{"output_index": idx, "item": r.reasoningItem(id, false)}},
			event{"response.reasoning_summary_part.added", map[string]any{"item_id": "rs_" + id, "output_index": idx, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}}})
		for _, d := range r.reasoning {
			evs = append(evs, event{"response.reasoning_summary_text.delta", map[string]any{"item_id": "rs_" + id, "output_index": idx, "summary_index": 0, "delta": d}})
		}
		full := strings.Join(r.reasoning, "")
		evs = append(evs, event{"response.reasoning_summary_text.done", map[string]any{"item_id": "rs_" + id, "output_index": idx, "summary_index": 0, "text": full}},
			event{"response.reasoning_summary_part.done", map[string]any{"item_id": "rs_" + id, "output_index": idx, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": full}}})
		item["summary"] = []any{map[string]any{"type": "summary_text", "text": full}}
		evs = append(evs, event{"response.output_item.done", map[string]any{"output_index": idx, "item": item}})
		idx++
	}
	if len(r.text) > 0 {
		mid := "msg_" + id
		evs = append(evs, event{"response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"type": "message", "id": mid, "status": "in_progress", "role": "assistant", "content": []any{}}}},
			event{"response.content_part.added", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}})
		for _, d := range r.text {
			evs = append(evs, event{"response.output_text.delta", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "delta": d, "logprobs": []any{}}})
		}
		full := strings.Join(r.text, "")
		part := map[string]any{"type": "output_text", "text": full, "annotations": []any{}}
		evs = append(evs, event{"response.output_text.done", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "text": full, "logprobs": []any{}}},
			event{"response.content_part.done", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "part": part}},
			event{"response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{"type": "message", "id": mid, "status": "completed", "role": "assistant", "content": []any{part}}}})
		idx++
	}
	for _, c := range r.calls {
		evs = append(evs, event{"response.output_item.added", map[string]any{"output_index": idx, "item": c.item("in_progress")}})
		for args := c.args; args != ""; {
			n := min(len(args), 7)
			evs = append(evs, event{"response.function_call_arguments.delta", map[string]any{"item_id": c.id, "output_index": idx, "delta": args[:n]}})
			args = args[n:]
		}
		evs = append(evs, event{"response.function_call_arguments.done", map[string]any{"item_id": c.id, "output_index": idx, "arguments": c.args}},
			event{"response.output_item.done", map[string]any{"output_index": idx, "item": c.item("completed")}})
		idx++
	}
	final := "response.completed"
	if r.status == "incomplete" {
		final = "response.incomplete"
	}
	evs = append(evs, event{final, map[string]any{"response": r.object(id, modelID, encrypted, "completed")}})
	return evs
}
