package geminiinteractions_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// fakeAPI is the Interactions API for tests. It follows the REST reference
// at https://ai.google.dev/api/interactions (POST /{version}/interactions:
// CreateModelInteraction body with input steps, the Interaction resource
// with its steps and usage) and the streaming guide at
// https://ai.google.dev/gemini-api/docs/interactions#streaming (SSE events
// interaction.created, step.start, step.delta, step.stop,
// interaction.completed, then "data: [DONE]", the sentinel the SDK's event
// stream waits for), as the SDK's own fixtures in
// google.golang.org/genai interaction_test.go and interactions/
// continuation_test.go shape them. Errors are Google's JSON error bodies
// (https://ai.google.dev/gemini-api/docs/troubleshooting,
// https://cloud.google.com/apis/design/errors) with google.rpc.RetryInfo.
//
// Like the server, it checks the x-goog-api-key, the path, a model and a
// non-empty input, and that a previous_interaction_id names an
// interaction it created with store on.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	turns    []providertest.Turn
	requests []recorded
	stored   map[string]bool
	next     int

	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
	relOnce  sync.Once
}

type recorded struct {
	header http.Header
	path   string
	body   []byte
}

func newFakeAPI(t *testing.T, turns ...providertest.Turn) *fakeAPI {
	f := &fakeAPI{t: t, turns: turns, stored: map[string]bool{}, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) URL() string                   { return f.srv.URL }
func (f *fakeAPI) Disconnected() <-chan struct{} { return f.gone }
func (f *fakeAPI) Close() {
	f.relOnce.Do(func() { close(f.release) })
	f.srv.Close()
}

func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// body is request i's JSON body.
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

var interactionsPath = regexp.MustCompile(`^/(v1|v1beta|v1alpha)/interactions$`)

// wireRequest is the part of a CreateModelInteraction body the fake reads.
type wireRequest struct {
	Model                 string          `json:"model"`
	Stream                bool            `json:"stream"`
	Store                 *bool           `json:"store"`
	PreviousInteractionID string          `json:"previous_interaction_id"`
	SystemInstruction     string          `json:"system_instruction"`
	Input                 json.RawMessage `json:"input"`
	Tools                 []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type     string          `json:"type"`
		MimeType string          `json:"mime_type"`
		Schema   json.RawMessage `json:"schema"`
	} `json:"response_format"`
}

type wireStep struct {
	Type    string        `json:"type"`
	Content []wireContent `json:"content"`
	ID      string        `json:"id"`
	CallID  string        `json:"call_id"`
	Name    string        `json:"name"`
	Result  any           `json:"result"`
}

type wireContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	URI      string `json:"uri"`
	MimeType string `json:"mime_type"`
}

func readRequest(raw []byte) (wireRequest, []wireStep, error) {
	var req wireRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return req, nil, err
	}
	var steps []wireStep
	if len(req.Input) > 0 && req.Input[0] == '[' {
		if err := json.Unmarshal(req.Input, &steps); err != nil {
			return req, nil, err
		}
	}
	return req, steps, nil
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), path: r.URL.Path, body: raw})
	var turn providertest.Turn
	scripted := len(f.turns) > 0
	if scripted {
		turn = f.turns[0]
		if len(f.turns) > 1 {
			f.turns = f.turns[1:]
		}
	}
	f.next++
	id := fmt.Sprintf("v1_interaction_%d", f.next)
	f.mu.Unlock()

	if r.Method != http.MethodPost || !interactionsPath.MatchString(r.URL.Path) {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
		return
	}
	if r.Header.Get("x-goog-api-key") != providertest.APIKey {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	}
	req, steps, err := readRequest(raw)
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received: "+err.Error())
		return
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "model is required")
		return
	case len(req.Input) == 0 || (len(steps) == 0 && req.Input[0] == '['):
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "input is required")
		return
	}
	if req.PreviousInteractionID != "" {
		f.mu.Lock()
		known := f.stored[req.PreviousInteractionID]
		f.mu.Unlock()
		if !known {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "Interaction "+req.PreviousInteractionID+" not found.")
			return
		}
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "INTERNAL", "fake server: no reply scripted")
		return
	}
	if turn.Status != 0 {
		// Google sends the wait as a RetryInfo detail, not a header.
		writeError(w, turn.Status, rpcStatus[turn.Status], turn.ErrorMessage, turn.RetryAfter)
		return
	}
	if req.Store == nil || *req.Store {
		f.mu.Lock()
		f.stored[id] = true
		f.mu.Unlock()
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(interaction(id, req.Model, turn))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, ev := range events(id, req.Model, turn) {
		if _, err := io.WriteString(w, ev); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	switch turn.End {
	case providertest.Cut:
		panic(http.ErrAbortHandler)
	case providertest.Stall:
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}

// rpcStatus is the google.rpc.Code name sent with each HTTP status.
var rpcStatus = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

func writeError(w http.ResponseWriter, status int, code, msg string, retryDelay ...time.Duration) {
	e := map[string]any{"code": status, "message": msg, "status": code}
	if len(retryDelay) > 0 && retryDelay[0] > 0 {
		e["details"] = []any{map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": fmt.Sprintf("%gs", retryDelay[0].Seconds()),
		}}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

func usage(t providertest.Turn) map[string]any {
	return map[string]any{
		"total_input_tokens": t.InputTokens, "total_output_tokens": t.OutputTokens,
		"total_tokens": t.InputTokens + t.OutputTokens,
	}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func args(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

// interaction is the Interaction resource a unary create answers.
func interaction(id, model string, t providertest.Turn) map[string]any {
	var steps []map[string]any
	if len(t.Reasoning) > 0 {
		steps = append(steps, map[string]any{"type": "thought", "signature": "sig-" + id,
			"summary": []any{text(strings.Join(t.Reasoning, ""))}})
	}
	if len(t.Text) > 0 {
		steps = append(steps, map[string]any{"type": "model_output", "content": []any{text(strings.Join(t.Text, ""))}})
	}
	for _, c := range t.ToolCalls {
		steps = append(steps, map[string]any{"type": "function_call", "id": c.ID, "name": c.Name, "arguments": args(c.Arguments)})
	}
	status := "completed"
	if len(t.ToolCalls) > 0 {
		status = "requires_action"
	}
	return map[string]any{
		"id": id, "model": model, "status": status, "object": "interaction",
		"created": "2026-12-07T10:00:00Z", "updated": "2026-12-07T10:00:01Z",
		"steps": steps, "usage": usage(t),
	}
}

// events are the SSE frames of the same answer, a delta per piece, a
// function call's arguments split in two deltas.
func events(id, model string, t providertest.Turn) []string {
	var out []string
	n := 0
	add := func(typ string, ev map[string]any) {
		n++
		ev["event_type"] = typ
		ev["event_id"] = fmt.Sprintf("evt_%d", n)
		b, _ := json.Marshal(ev)
		out = append(out, "event: "+typ+"\ndata: "+string(b)+"\n\n")
	}
	add("interaction.created", map[string]any{"interaction": map[string]any{"id": id, "model": model, "status": "in_progress", "object": "interaction"}})
	idx := 0
	if len(t.Reasoning) > 0 {
		add("step.start", map[string]any{"index": idx, "step": map[string]any{"type": "thought"}})
		for _, d := range t.Reasoning {
			add("step.delta", map[string]any{"index": idx, "delta": map[string]any{"type": "thought_summary", "content": text(d)}})
		}
		add("step.delta", map[string]any{"index": idx, "delta": map[string]any{"type": "thought_signature", "signature": "sig-" + id}})
		add("step.stop", map[string]any{"index": idx})
		idx++
	}
	if len(t.Text) > 0 {
		add("step.start", map[string]any{"index": idx, "step": map[string]any{"type": "model_output"}})
		for _, d := range t.Text {
			add("step.delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text", "text": d}})
		}
		if t.End != providertest.Complete {
			return out
		}
		add("step.stop", map[string]any{"index": idx})
		idx++
	}
	if t.End != providertest.Complete {
		return out
	}
	for _, c := range t.ToolCalls {
		add("step.start", map[string]any{"index": idx, "step": map[string]any{"type": "function_call", "id": c.ID, "name": c.Name, "arguments": map[string]any{}}})
		half := len(c.Arguments) / 2
		for _, part := range []string{c.Arguments[:half], c.Arguments[half:]} {
			add("step.delta", map[string]any{"index": idx, "delta": map[string]any{"type": "arguments_delta", "arguments": part}})
		}
		add("step.stop", map[string]any{"index": idx})
		idx++
	}
	status := "completed"
	if len(t.ToolCalls) > 0 {
		status = "requires_action"
	}
	add("interaction.completed", map[string]any{"interaction": map[string]any{"id": id, "model": model, "status": status, "object": "interaction", "usage": usage(t)}})
	out = append(out, "data: [DONE]\n\n")
	return out
}

// Requests reads what the suite checks out of the recorded requests.
func (f *fakeAPI) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range f.received() {
		req, steps, _ := readRequest(rec.body)
		r := providertest.Request{Header: rec.header, Body: rec.body, Model: req.Model, Stream: req.Stream}
		for _, st := range steps {
			if st.Type != "user_input" {
				continue
			}
			var texts []string
			for _, c := range st.Content {
				switch c.Type {
				case "text":
					texts = append(texts, c.Text)
				case "image":
					if c.URI != "" {
						r.Images = append(r.Images, providertest.Image{URL: c.URI})
						continue
					}
					data, err := base64.StdEncoding.DecodeString(c.Data)
					if err != nil {
						r.Images = append(r.Images, providertest.Image{URL: "(bad base64)"})
						continue
					}
					r.Images = append(r.Images, providertest.Image{MediaType: c.MimeType, Data: data})
				}
			}
			if len(texts) > 0 {
				r.UserText = append(r.UserText, strings.Join(texts, ""))
			}
		}
		for _, tool := range req.Tools {
			if tool.Type == "function" {
				r.Tools = append(r.Tools, tool.Name)
			}
		}
		if rf := req.ResponseFormat; rf != nil && rf.MimeType == "application/json" && len(rf.Schema) > 0 {
			r.ResponseSchema = rf.Schema
		}
		out = append(out, r)
	}
	return out
}
