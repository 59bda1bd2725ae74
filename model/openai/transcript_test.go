package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agno-go/agno/model"
)

// Transcripts in testdata/ are provider responses in the exact wire format
// the providers document; they are served byte for byte.

func newHTTPTest(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func newHTTPTestB(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

func serveFile(t *testing.T, name string, status int, header map[string]string) *Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		ct := "application/json"
		if filepath.Ext(name) == ".txt" {
			ct = "text/event-stream; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write(data)
	}))
	m, err := New(Config{ID: "gpt-4o", Compatible: true, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTranscriptMultiToolCallStream(t *testing.T) {
	m := serveFile(t, "multi_tool_call_stream.txt", http.StatusOK, nil)
	var got []*model.Chunk
	for c, err := range m.Generate(context.Background(), userRequest(true, "Weather in Paris and Bogotá, then email Bob")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != 1 {
		t.Fatalf("got %d chunks, want only the final one (no content in the transcript)", len(got))
	}
	c := got[0]
	want := []model.ToolCall{
		model.NewToolCall("call_Lq8bJxwUK8VdRQkfnpMdpWkT", "get_weather", `{"location": "Paris, France"}`),
		model.NewToolCall("call_FhOTFb8cHTRGiRYJ1tHkcgE5", "get_weather", `{"location": "Bogotá, Colombia"}`),
		model.NewToolCall("call_U3wV6dRNWkFnM2EqKQJqoyPa", "send_email", `{"to": "bob@email.com", "body": "Hi bob"}`),
	}
	if !reflect.DeepEqual(c.ToolCalls, want) {
		t.Errorf("tool calls =\n%+v\nwant\n%+v", c.ToolCalls, want)
	}
	if c.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", c.FinishReason)
	}
	u := *c.Usage
	if u.TimeToFirstToken <= 0 {
		t.Errorf("time to first token not measured")
	}
	u.TimeToFirstToken = 0
	if want := (model.Usage{InputTokens: 147, OutputTokens: 68, TotalTokens: 215, CacheReadTokens: 64}); u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
	if c.ProviderData["id"] != "chatcmpl-AyPsZ3kVHmRkTqBrgwqa0fTbxLfPW" || c.ProviderData["model"] != "gpt-4o-2024-08-06" {
		t.Errorf("provider data = %v", c.ProviderData)
	}
}

func TestTranscriptDeepSeekReasoningContent(t *testing.T) {
	m := serveFile(t, "deepseek_reasoner_stream.txt", http.StatusOK, nil)
	r, err := model.Collect(m.Generate(context.Background(), userRequest(true, "9.11 or 9.9?")))
	if err != nil {
		t.Fatal(err)
	}
	if r.ReasoningContent != "9.11 has fewer tenths." || r.Content != "9.9 is greater." || r.FinishReason != "stop" {
		t.Errorf("response = reasoning %q content %q finish %q", r.ReasoningContent, r.Content, r.FinishReason)
	}
	if r.Usage.ReasoningTokens != 36 || r.Usage.TotalTokens != 63 {
		t.Errorf("usage = %+v", r.Usage)
	}
}

func TestTranscriptOpenRouterReasoning(t *testing.T) {
	m := serveFile(t, "openrouter_reasoning_stream.txt", http.StatusOK, nil)
	r, err := model.Collect(m.Generate(context.Background(), userRequest(true, "9.11 or 9.9?")))
	if err != nil {
		t.Fatal(err)
	}
	if r.ReasoningContent != "**Comparing decimals**\n0.90 beats 0.11." || r.Content != "9.9 is larger." {
		t.Errorf("reasoning %q content %q", r.ReasoningContent, r.Content)
	}
	if r.FinishReason != "stop" || r.Usage.ReasoningTokens != 31 || r.Usage.InputTokens != 12 {
		t.Errorf("finish %q usage %+v", r.FinishReason, r.Usage)
	}
}

func TestTranscriptMidStreamError(t *testing.T) {
	m := serveFile(t, "openrouter_midstream_error.txt", http.StatusOK, nil)
	var content string
	var gotErr error
	for c, err := range m.Generate(context.Background(), userRequest(true, "hi")) {
		if err != nil {
			gotErr = err
			break
		}
		content += c.Content
	}
	if content != "Partial" {
		t.Errorf("content before the error = %q", content)
	}
	pe, ok := model.AsProviderError(gotErr)
	if !ok || pe.Message != "Provider disconnected unexpectedly" {
		t.Errorf("err = %v, want the provider's message", gotErr)
	}
}

func TestTranscriptContextLengthError(t *testing.T) {
	m := serveFile(t, "error_context_length.json", http.StatusBadRequest, nil)
	for _, stream := range []bool{false, true} {
		_, err := model.Collect(m.Generate(context.Background(), userRequest(stream, "long")))
		pe, ok := model.AsProviderError(err)
		if !ok {
			t.Fatalf("err = %v", err)
		}
		want := "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages."
		if pe.StatusCode != 400 || pe.Message != want || !pe.ContextOverflow || pe.Retryable() {
			t.Errorf("stream=%v: %+v", stream, pe)
		}
	}
}

func TestTranscriptRateLimitError(t *testing.T) {
	m := serveFile(t, "error_rate_limit.json", http.StatusTooManyRequests, map[string]string{"Retry-After": "3"})
	_, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	pe, ok := model.AsProviderError(err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if pe.StatusCode != 429 || !pe.RateLimited() || pe.RetryAfter != 3*time.Second || pe.ContextOverflow ||
		pe.Message[:len("Rate limit reached for gpt-4o")] != "Rate limit reached for gpt-4o" {
		t.Errorf("%+v", pe)
	}
}

func TestNonStandardErrorBodies(t *testing.T) {
	cases := []struct {
		status int
		ct     string
		body   string
		want   string
	}{
		{502, "text/html", "<html><body>502 Bad Gateway</body></html>", "<html><body>502 Bad Gateway</body></html>"},
		{422, "application/json", `{"detail":"model 'llama9' not found"}`, "model 'llama9' not found"},
		{400, "application/json", `{"error":"invalid tool schema"}`, "invalid tool schema"},
		{404, "application/json", `{"message":"no such route","code":404}`, "no such route"},
		{500, "application/json", ``, "Internal Server Error"},
	}
	for _, tc := range cases {
		srv := newHTTPTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ct)
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		}))
		m, err := New(Config{Compatible: true, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
		pe, ok := model.AsProviderError(err)
		if !ok || pe.StatusCode != tc.status || pe.Message != tc.want {
			t.Errorf("%d %s: err = %#v, want message %q", tc.status, tc.body, err, tc.want)
		}
	}
}

func TestErrorObjectIn200Response(t *testing.T) {
	srv := newHTTPTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"gen-1","object":"chat.completion","created":1,"model":"x","choices":[],"error":{"message":"Upstream rate limited","code":429}}`))
	}))
	m, err := New(Config{Compatible: true, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	if pe, ok := model.AsProviderError(err); !ok || pe.Message != "Upstream rate limited" {
		t.Errorf("err = %v", err)
	}
}

func TestStreamRequestAnsweredWithJSON(t *testing.T) {
	srv := newHTTPTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":"whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	}))
	m, err := New(Config{Compatible: true, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Collect(m.Generate(context.Background(), userRequest(true, "hi")))
	if err != nil || r.Content != "whole answer" || r.FinishReason != "stop" || r.Usage.TotalTokens != 5 {
		t.Errorf("response = %+v, %v", r, err)
	}
}
