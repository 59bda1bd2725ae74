package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
)

// rawServer answers every chat completion with body as JSON.
func rawServer(t *testing.T, body string) *Model {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	m, err := New(Config{ID: "fake-model", BaseURL: srv.URL + "/v1", APIKey: "sk-test", HTTPClient: srv.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Non-streamed bodies as providers send them, read field by field.
func TestNonStreamedBodies(t *testing.T) {
	for _, c := range []struct {
		name, body string
		check      func(t *testing.T, c *model.Chunk)
	}{
		{"choice index 0 wins, reasoning_content, tool calls", `{"id":"r1","model":"m","choices":[
			{"index":1,"message":{"content":"other"},"finish_reason":"stop"},
			{"index":0,"message":{"content":null,"reasoning_content":"thinking","tool_calls":[
				{"id":"c1","type":"function","function":{"name":"get","arguments":"{\"a\":1}"}},
				{"type":"custom","custom":{"name":"x","input":"y"}},
				{"type":"function","function":{"name":"noid","arguments":""}}]},"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,"completion_tokens_details":{"reasoning_tokens":2},
			"prompt_tokens_details":{"cached_tokens":4,"cache_write_tokens":1}}}`,
			func(t *testing.T, c *model.Chunk) {
				if c.Content != "" || c.ReasoningContent != "thinking" || c.FinishReason != "tool_calls" {
					t.Fatalf("chunk %+v", c)
				}
				if len(c.ToolCalls) != 2 || c.ToolCalls[0].ID != "c1" || c.ToolCalls[0].Function.Name != "get" || c.ToolCalls[0].Function.Arguments != `{"a":1}` ||
					c.ToolCalls[1].Function.Name != "noid" || len(c.ToolCalls[1].ID) < 10 {
					t.Fatalf("tool calls %+v", c.ToolCalls)
				}
				u := *c.Usage
				u.TimeToFirstToken = 0
				if u != (model.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10, ReasoningTokens: 2, CacheReadTokens: 4, CacheWriteTokens: 1}) {
					t.Fatalf("usage %+v", u)
				}
				if c.ProviderData["id"] != "r1" || c.ProviderData["model"] != "m" {
					t.Fatalf("provider data %v", c.ProviderData)
				}
			}},
		{"reasoning object, think tags, no usage", `{"choices":[{"index":0,"message":{"content":"<think>a</think>answer","reasoning":{"text":"deep"}},"finish_reason":"stop"}]}`,
			func(t *testing.T, c *model.Chunk) {
				if c.Content != "answer" || c.ReasoningContent != "deep" || c.Usage == nil || c.Usage.TotalTokens != 0 || c.ProviderData != nil {
					t.Fatalf("chunk %+v", c)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := chunks(t, rawServer(t, c.body).Generate(context.Background(), userRequest(false, "?")))
			if err != nil || len(got) != 1 {
				t.Fatalf("%d chunks, %v", len(got), err)
			}
			c.check(t, got[0])
		})
	}
}

func TestNonStreamedErrorBodies(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"error object with status 200", `{"error":{"message":"Provider returned error","code":502}}`, "Provider returned error"},
		{"not an object", `[1,2]`, "not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := chunks(t, rawServer(t, c.body).Generate(context.Background(), userRequest(false, "?")))
			pe, ok := model.AsProviderError(err)
			if !ok || !strings.Contains(pe.Error(), c.want) {
				t.Fatalf("err = %v, want a provider error naming %q", err, c.want)
			}
		})
	}
}
