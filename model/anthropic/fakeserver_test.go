package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeAPI is an Anthropic Messages API server for tests. It checks what the
// real API checks (key, version header, required fields, role alternation,
// tool_use/tool_result pairing, non-empty text) and answers with scripted
// replies in the real wire format: JSON bodies, or server-sent events
// "event: <type>\ndata: <json>\n\n". The format follows
// https://docs.anthropic.com/en/api/messages (request, message body),
// https://docs.anthropic.com/en/api/messages-streaming (events) and
// https://docs.anthropic.com/en/api/errors (error bodies and statuses).
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server
	key string

	mu       sync.Mutex
	replies  []reply
	requests []recorded

	// arrived receives the attempt number of every request, if set.
	arrived chan int
	// gone is closed when a stream sees its client disconnect, while
	// sending or held.
	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
}

// reply is one scripted answer.
type reply struct {
	status int
	header map[string]string
	// body is a JSON body (a message or an error).
	body string
	// sse is a raw event stream. With body also set, a request gets the
	// one it asked for ("stream"); else whichever is set.
	sse string
	// hold keeps the stream open after sse until the client goes away.
	hold bool
	// cut drops the connection after sse without ending the HTTP body, as
	// a failing network does.
	cut bool
	// drop closes the connection without answering.
	drop bool
}

// recorded is a request the server received.
type recorded struct {
	header http.Header
	body   []byte
}

const testKey = "sk-ant-test-key"

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	return newFakeAPIWithKey(t, testKey, replies...)
}

func newFakeAPIWithKey(t *testing.T, key string, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, key: key, replies: replies, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.close)
	return f
}

// close releases held streams, then shuts the server down. Safe to call
// more than once.
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

func (f *fakeAPI) attempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// body returns the decoded JSON body of request i.
func (f *fakeAPI) body(i int) map[string]any {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.requests) {
		f.t.Fatalf("request %d not received (got %d)", i, len(f.requests))
	}
	var m map[string]any
	if err := json.Unmarshal(f.requests[i].body, &m); err != nil {
		f.t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

// received returns the requests received so far.
func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeAPI) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i].header
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), body: raw})
	attempt := len(f.requests)
	var rp reply
	scripted := len(f.replies) > 0
	if scripted {
		rp = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()
	if f.arrived != nil {
		f.arrived <- attempt
	}

	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeError(w, http.StatusNotFound, "not_found_error", "Not found")
		return
	}
	if sentKey(r.Header) != f.key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	if msg := validateRequest(raw); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "api_error", "fake server: no reply scripted")
		return
	}

	if rp.drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	status := rp.status
	if status == 0 {
		status = http.StatusOK
	}
	if rp.sse == "" || (rp.body != "" && !asksForStream(raw)) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", fmt.Sprintf("req_fake_%d", attempt))
		w.WriteHeader(status)
		io.WriteString(w, rp.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	// Send event by event, flushing each, as the API does.
	for _, ev := range strings.SplitAfter(rp.sse, "\n\n") {
		if ev == "" {
			continue
		}
		if _, err := io.WriteString(w, ev); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	if rp.cut {
		// The server then closes the connection mid-body.
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

func asksForStream(raw []byte) bool {
	var req struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(raw, &req) == nil && req.Stream
}

// sentKey is the API key a request carries: the x-api-key header, or a
// bearer token, which is how anthropic-sdk-go v2 sends it.
func sentKey(h http.Header) string {
	if k := h.Get("x-api-key"); k != "" {
		return k
	}
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": "req_fake_error",
	})
	w.Write(b)
}

// validateRequest applies the Messages API's request rules and returns the
// API's error message for the first one broken, or "".
func validateRequest(raw []byte) string {
	var req struct {
		Model     string `json:"model"`
		MaxTokens *int   `json:"max_tokens"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return "invalid JSON body: " + err.Error()
	}
	if req.Model == "" {
		return "model: Field required"
	}
	if req.MaxTokens == nil {
		return "max_tokens: Field required"
	}
	if len(req.Messages) == 0 {
		return "messages: at least one message is required"
	}
	type block struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Input     json.RawMessage `json:"input"`
	}
	var prevToolUses []string
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i == 0 && m.Role != "user" {
			return `messages: first message must use the "user" role`
		}
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return fmt.Sprintf("messages: roles must alternate between \"user\" and \"assistant\", but found multiple %q roles in a row", m.Role)
		}
		var blocks []block
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				return fmt.Sprintf("messages.%d.content: Input should be a valid list", i)
			}
			blocks = []block{{Type: "text", Text: &s}}
		}
		var toolUses []string
		seenOther := false
		answered := map[string]bool{}
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
					return fmt.Sprintf("messages.%d.content.%d.text: text content blocks must contain non-whitespace text", i, j)
				}
				seenOther = true
			case "tool_use":
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: tool_use blocks are only allowed in assistant messages", i, j)
				}
				var obj map[string]any
				if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
				}
				toolUses = append(toolUses, b.ID)
			case "tool_result":
				if m.Role != "user" {
					return fmt.Sprintf("messages.%d.content.%d: tool_result blocks are only allowed in user messages", i, j)
				}
				if seenOther {
					return fmt.Sprintf("messages.%d: tool_result blocks must come first in the content", i)
				}
				if !contains(prevToolUses, b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			case "image", "document":
				if m.Role != "user" {
					return fmt.Sprintf("messages.%d.content.%d: %s blocks are only allowed in user messages", i, j, b.Type)
				}
				seenOther = true
			default:
				return fmt.Sprintf("messages.%d.content.%d.type: unknown block type %q", i, j, b.Type)
			}
		}
		if m.Role == "user" {
			for _, id := range prevToolUses {
				if !answered[id] {
					return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, id)
				}
			}
		}
		prevToolUses = toolUses
	}
	return ""
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// event renders one server-sent event the way the API sends it.
func event(typ string, data string) string {
	return "event: " + typ + "\ndata: " + data + "\n\n"
}

func events(evs ...string) string { return strings.Join(evs, "") }

func messageStart(id string, input, cacheRead, cacheWrite int) string {
	return event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`, id, input, cacheWrite, cacheRead))
}

func blockStartText(index int) string {
	return event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))
}

func blockStartThinking(index int) string {
	return event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":""}}`, index))
}

func blockStartToolUse(index int, id, name string) string {
	return event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name))
}

func textDelta(index int, text string) string {
	b, _ := json.Marshal(text)
	return event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, b))
}

func thinkingDelta(index int, text string) string {
	b, _ := json.Marshal(text)
	return event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, index, b))
}

func signatureDelta(index int, sig string) string {
	return event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, index, sig))
}

func jsonDelta(index int, partial string) string {
	b, _ := json.Marshal(partial)
	return event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, b))
}

func blockStop(index int) string {
	return event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

func messageDelta(stop string, output int) string {
	return event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output))
}

var (
	ping        = event("ping", `{"type": "ping"}`)
	messageStop = event("message_stop", `{"type":"message_stop"}`)
)
