package anthropic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
)

// thinkingToolUse is a response with a thinking block (as
// https://platform.claude.com/docs/en/build-with-claude/extended-thinking
// shows it) followed by a tool call.
const thinkingToolUse = `{
  "id": "msg_think_tool", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "content": [
    {"type": "thinking", "thinking": "I need the weather first.", "signature": "sig-from-turn-1"},
    {"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {"city": "Oslo"}}
  ],
  "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 50, "output_tokens": 30}
}`

const finalAnswer = `{"id":"msg_final","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"It is sunny."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":90,"output_tokens":5}}`

// thinkingToolUseEvents is thinkingToolUse as the API streams it.
var thinkingToolUseEvents = anthropictest.SSE(
	anthropictest.MessageStart("msg_think_tool", 50, 0, 0),
	anthropictest.BlockStartThinking(0),
	anthropictest.ThinkingDelta(0, "I need the "),
	anthropictest.ThinkingDelta(0, "weather first."),
	anthropictest.SignatureDelta(0, "sig-from-turn-1"),
	anthropictest.BlockStop(0),
	anthropictest.BlockStartToolUse(1, "toolu_w", "get_weather"),
	anthropictest.JSONDelta(1, `{"city": "Oslo"}`),
	anthropictest.BlockStop(1),
	anthropictest.MessageDelta("tool_use", 30),
	anthropictest.MessageStop,
)

var weatherTool = []model.ToolDefinition{{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}

// assistantTurn is the assistant message the engine stores for a response,
// sent through JSON as a stored run is.
func assistantTurn(t *testing.T, resp *model.Response) model.Message {
	t.Helper()
	msg := model.Message{Role: model.RoleAssistant, Content: resp.Content, ReasoningContent: resp.ReasoningContent, ToolCalls: resp.ToolCalls, ProviderData: resp.ProviderData}
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back model.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// The thinking parameter goes out as configured, and the thinking block
// comes back with its signature, before the tool_use, on the turn that
// continues after the tool ran; the fake refuses the turn otherwise.
func TestThinkingSignatureRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			f := newFakeAPI(t, reply{body: thinkingToolUse, sse: thinkingToolUseEvents}, reply{body: finalAnswer})
			m := newModel(t, f, func(c *anthropic.Config) {
				c.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 2048}
			})
			req := &model.Request{Stream: stream, Tools: weatherTool, Messages: []model.Message{{Role: model.RoleUser, Content: "Weather in Oslo?"}}}
			resp, err := model.Collect(m.Generate(testCtx(t), req))
			if err != nil {
				t.Fatal(err)
			}
			if resp.ReasoningContent != "I need the weather first." || resp.ProviderData["signature"] != "sig-from-turn-1" || len(resp.ToolCalls) != 1 {
				t.Fatalf("response = %+v", resp)
			}
			assertJSON(t, "thinking", f.body(0)["thinking"], `{"type":"enabled","budget_tokens":2048}`)

			req.Stream = false
			req.Messages = append(req.Messages, assistantTurn(t, resp),
				model.Message{Role: model.RoleTool, ToolCallID: "toolu_w", Content: "sunny"})
			final, err := model.Collect(m.Generate(testCtx(t), req))
			if err != nil {
				t.Fatal(err)
			}
			if final.Content != "It is sunny." {
				t.Errorf("final = %+v", final)
			}
			msgs := f.body(1)["messages"].([]any)
			assertJSON(t, "assistant turn", msgs[1], `{"role":"assistant","content":[
				{"type":"thinking","thinking":"I need the weather first.","signature":"sig-from-turn-1"},
				{"type":"tool_use","id":"toolu_w","name":"get_weather","input":{"city":"Oslo"}}]}`)
		})
	}
}

// Redacted thinking is kept in ProviderData and sent back as it came.
func TestRedactedThinkingRoundTrip(t *testing.T) {
	const redacted = `{"id":"msg_r","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[
		{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"},
		{"type":"tool_use","id":"toolu_w","name":"get_weather","input":{"city":"Oslo"}}],
		"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":5}}`
	sse := anthropictest.SSE(
		anthropictest.MessageStart("msg_r", 5, 0, 0),
		anthropictest.BlockStartRedactedThinking(0, "EmwKAhgBEgy3va3pzix/LafPsn4a"),
		anthropictest.BlockStop(0),
		anthropictest.BlockStartToolUse(1, "toolu_w", "get_weather"),
		anthropictest.JSONDelta(1, `{"city":"Oslo"}`),
		anthropictest.BlockStop(1),
		anthropictest.MessageDelta("tool_use", 5),
		anthropictest.MessageStop,
	)
	for _, stream := range []bool{false, true} {
		f := newFakeAPI(t, reply{body: redacted, sse: sse}, reply{body: finalAnswer})
		m := newModel(t, f, func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 1024} })
		req := &model.Request{Stream: stream, Tools: weatherTool, Messages: []model.Message{{Role: model.RoleUser, Content: "Weather?"}}}
		resp, err := model.Collect(m.Generate(testCtx(t), req))
		if err != nil {
			t.Fatal(err)
		}
		req.Stream = false
		req.Messages = append(req.Messages, assistantTurn(t, resp), model.Message{Role: model.RoleTool, ToolCallID: "toolu_w", Content: "sunny"})
		if _, err := model.Collect(m.Generate(testCtx(t), req)); err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		content := f.body(1)["messages"].([]any)[1].(map[string]any)["content"].([]any)
		assertJSON(t, "redacted block", content[0], `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}`)
	}
}

// Reasoning without a signature (another provider's) is not sent back.
func TestReasoningWithoutSignatureNotSent(t *testing.T) {
	f := newFakeAPI(t, reply{body: finalAnswer})
	m := newModel(t, f)
	req := &model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Content: "hi"},
		{Role: model.RoleAssistant, Content: "hello", ReasoningContent: "thinking elsewhere"},
		{Role: model.RoleUser, Content: "again"},
	}}
	if _, err := model.Collect(m.Generate(testCtx(t), req)); err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "assistant turn", f.body(0)["messages"].([]any)[1], `{"role":"assistant","content":[{"type":"text","text":"hello"}]}`)
}

func TestThinkingAdaptiveTopKAndBetas(t *testing.T) {
	f := newFakeAPI(t, reply{body: finalAnswer})
	m := newModel(t, f, func(c *anthropic.Config) {
		c.Thinking = &anthropic.Thinking{Type: "adaptive", Display: "summarized"}
		c.TopK = 40
		c.Betas = []string{"context-1m-2025-08-07", "interleaved-thinking-2025-05-14"}
	})
	if _, err := model.Collect(m.Generate(testCtx(t), userRequest("hi", false))); err != nil {
		t.Fatal(err)
	}
	body := f.body(0)
	assertJSON(t, "thinking", body["thinking"], `{"type":"adaptive","display":"summarized"}`)
	assertJSON(t, "top_k", body["top_k"], `40`)
	if got := f.header(0).Get("anthropic-beta"); got != "context-1m-2025-08-07,interleaved-thinking-2025-05-14" {
		t.Errorf("anthropic-beta = %q", got)
	}
}

// Prompt caching as agno does it
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
// cache_control on the system prompt, an hour with extended_cache_time,
// on the last tool with cache_tools; the cache counters come back as
// usage.
func TestPromptCaching(t *testing.T) {
	sse := anthropictest.SSE(
		anthropictest.MessageStart("msg_c", 12, 900, 30),
		anthropictest.BlockStartText(0), anthropictest.TextDelta(0, "ok"), anthropictest.BlockStop(0),
		anthropictest.MessageDelta("end_turn", 3), anthropictest.MessageStop,
	)
	tools := append(weatherTool, model.ToolDefinition{Name: "get_time"})
	for _, tc := range []struct {
		name     string
		cfg      func(*anthropic.Config)
		system   string
		lastTool string
	}{
		{"off", func(*anthropic.Config) {}, `[{"type":"text","text":"Be brief."},{"type":"text","text":"Use tools."}]`, `{"name":"get_time","input_schema":{"type":"object","properties":{}}}`},
		{"system", func(c *anthropic.Config) { c.CacheSystemPrompt = true },
			`[{"type":"text","text":"Be brief."},{"type":"text","text":"Use tools.","cache_control":{"type":"ephemeral"}}]`, `{"name":"get_time","input_schema":{"type":"object","properties":{}}}`},
		{"extended", func(c *anthropic.Config) { c.CacheSystemPrompt, c.ExtendedCacheTime, c.CacheTools = true, true, true },
			`[{"type":"text","text":"Be brief."},{"type":"text","text":"Use tools.","cache_control":{"type":"ephemeral","ttl":"1h"}}]`,
			`{"name":"get_time","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAPI(t, reply{sse: sse})
			m := newModel(t, f, tc.cfg)
			req := &model.Request{Stream: true, Tools: tools, Messages: []model.Message{
				{Role: model.RoleSystem, Content: "Be brief."}, {Role: model.RoleSystem, Content: "Use tools."},
				{Role: model.RoleUser, Content: "time?"},
			}}
			resp, err := model.Collect(m.Generate(testCtx(t), req))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage.CacheReadTokens != 900 || resp.Usage.CacheWriteTokens != 30 || resp.Usage.InputTokens != 12 {
				t.Errorf("usage = %+v, want cache read 900, write 30, input 12", resp.Usage)
			}
			body := f.body(0)
			assertJSON(t, "system", body["system"], tc.system)
			assertJSON(t, "last tool", body["tools"].([]any)[1], tc.lastTool)
		})
	}
}

func TestFeatureValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*anthropic.Config)
		want string
	}{
		{"small budget", func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 1000} }, "thinking.budget_tokens is 1000: set it to at least 1024"},
		{"no type", func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{BudgetTokens: 2000} }, "set thinking.type"},
		{"bad type", func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "on"} }, `thinking.type "on": use "enabled"`},
		{"budget with adaptive", func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "adaptive", BudgetTokens: 2000} }, `budget goes with type "enabled" only`},
		{"bad display", func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "adaptive", Display: "full"} }, `thinking.display "full"`},
		{"model without thinking", func(c *anthropic.Config) {
			c.ID = "claude-3-5-haiku-20241022"
			c.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 2000}
		}, "does not support extended thinking"},
		{"ttl without caching", func(c *anthropic.Config) { c.ExtendedCacheTime = true }, "set cache_system_prompt = true"},
		{"betas in one entry", func(c *anthropic.Config) { c.Betas = []string{"a-1,b-2"} }, "betas[0]"},
		{"negative top_k", func(c *anthropic.Config) { c.TopK = -1 }, "top_k is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := anthropic.Config{ID: "claude-sonnet-4-5", APIKey: testKey}
			tc.cfg(&cfg)
			_, err := anthropic.New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// budget_tokens must stay below max_tokens, which a request may lower: the
// request is refused before it is sent.
func TestThinkingBudgetAboveMaxTokens(t *testing.T) {
	f := newFakeAPI(t, reply{body: finalAnswer})
	m := newModel(t, f, func(c *anthropic.Config) { c.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 4096} })
	maxTokens := 4096
	req := userRequest("hi", false)
	req.MaxTokens = &maxTokens
	_, err := model.Collect(m.Generate(testCtx(t), req))
	if !errors.Is(err, anthropic.ErrInvalidRequest) || !strings.Contains(err.Error(), "budget_tokens 4096 is not below max_tokens 4096") {
		t.Fatalf("err = %v", err)
	}
	if f.attempts() != 0 {
		t.Errorf("%d requests sent", f.attempts())
	}
}
