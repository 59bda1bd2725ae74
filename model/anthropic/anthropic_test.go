package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newModel(t *testing.T, f *fakeAPI, edit ...func(*anthropic.Config)) *anthropic.Model {
	t.Helper()
	cfg := anthropic.Config{
		ID:         "claude-sonnet-4-5",
		BaseURL:    f.srv.URL,
		APIKey:     testKey,
		HTTPClient: f.srv.Client(),
	}
	for _, e := range edit {
		e(&cfg)
	}
	m, err := anthropic.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func collect(seq func(func(*model.Chunk, error) bool)) ([]*model.Chunk, error) {
	var chunks []*model.Chunk
	for c, err := range seq {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

func userRequest(text string, stream bool) *model.Request {
	return &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: text}}}
}

// assertJSON compares got (any JSON-marshalable value) with the JSON text want.
func assertJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: marshal: %v", what, err)
	}
	var g, w any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want JSON: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, gb, want)
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewMissingKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	_, err := anthropic.New(anthropic.Config{ID: "claude-sonnet-4-5"})
	if !errors.Is(err, anthropic.ErrMissingAPIKey) {
		t.Fatalf("err = %v, want ErrMissingAPIKey", err)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "Config.APIKey"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}

	t.Setenv("MY_CLAUDE_KEY", "")
	_, err = anthropic.New(anthropic.Config{APIKeyEnv: "MY_CLAUDE_KEY"})
	if !errors.Is(err, anthropic.ErrMissingAPIKey) || !strings.Contains(err.Error(), "MY_CLAUDE_KEY") {
		t.Fatalf("err = %v, want ErrMissingAPIKey naming MY_CLAUDE_KEY", err)
	}
}

func TestKeyFromEnvironment(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}`})
	t.Setenv("MY_CLAUDE_KEY", testKey)
	m := newModel(t, f, func(c *anthropic.Config) { c.APIKey = ""; c.APIKeyEnv = "MY_CLAUDE_KEY" })
	if _, err := collect(m.Generate(testCtx(t), userRequest("hello", false))); err != nil {
		t.Fatal(err)
	}
	if got := sentKey(f.header(0)); got != testKey {
		t.Errorf("sent key = %q", got)
	}
}

func TestNewRejectsNegativeMaxTokens(t *testing.T) {
	_, err := anthropic.New(anthropic.Config{APIKey: "k", MaxTokens: -1})
	if err == nil || !strings.Contains(err.Error(), "Config.MaxTokens") {
		t.Fatalf("err = %v, want one naming Config.MaxTokens", err)
	}
}

func TestInfo(t *testing.T) {
	m, err := anthropic.New(anthropic.Config{ID: "claude-opus-4-1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	if info.Provider != "Anthropic" || info.ID != "claude-opus-4-1" || info.NativeStructuredOutputs || info.JSONMode {
		t.Errorf("Info() = %+v", info)
	}
	m, err = anthropic.New(anthropic.Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info().ID != anthropic.DefaultID {
		t.Errorf("default ID = %q", m.Info().ID)
	}
}

func TestStreamText(t *testing.T) {
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(
		anthropictest.MessageStart("msg_text", 25, 0, 0),
		anthropictest.BlockStartText(0),
		anthropictest.Ping,
		anthropictest.TextDelta(0, "Hello"),
		anthropictest.TextDelta(0, ", wor"),
		anthropictest.TextDelta(0, "ld!"),
		anthropictest.BlockStop(0),
		anthropictest.MessageDelta("end_turn", 15),
		anthropictest.MessageStop,
	)})
	m := newModel(t, f)
	chunks, err := collect(m.Generate(testCtx(t), userRequest("Say hello", true)))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range chunks[:len(chunks)-1] {
		texts = append(texts, c.Content)
		if c.Usage != nil || len(c.ToolCalls) > 0 || c.FinishReason != "" {
			t.Errorf("content chunk carries final fields: %+v", c)
		}
	}
	if want := []string{"Hello", ", wor", "ld!"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("content chunks = %q, want %q", texts, want)
	}
	last := chunks[len(chunks)-1]
	if last.FinishReason != "stop" || last.Content != "" {
		t.Errorf("final chunk = %+v", last)
	}
	u := last.Usage
	if u == nil || u.InputTokens != 25 || u.OutputTokens != 15 || u.TotalTokens != 40 {
		t.Fatalf("usage = %+v", u)
	}
	if u.TimeToFirstToken <= 0 {
		t.Errorf("TimeToFirstToken = %v, want > 0", u.TimeToFirstToken)
	}
	if last.ProviderData["id"] != "msg_text" || last.ProviderData["stop_reason"] != "end_turn" {
		t.Errorf("ProviderData = %v", last.ProviderData)
	}

	body := f.body(0)
	if body["stream"] != true || body["model"] != "claude-sonnet-4-5" || body["max_tokens"] != float64(8192) {
		t.Errorf("request body = %v", body)
	}
	if got := f.header(0).Get("anthropic-version"); got == "" {
		t.Error("no anthropic-version header")
	}
}

func TestStreamToolUseSplitDeltas(t *testing.T) {
	parts := []string{"", `{"ci`, `ty": "Par`, `is", "days"`, `: 3}`}
	evs := []anthropictest.Event{anthropictest.MessageStart("msg_tool", 100, 0, 0), anthropictest.BlockStartText(0), anthropictest.TextDelta(0, "Let me look."), anthropictest.BlockStop(0),
		anthropictest.BlockStartToolUse(1, "toolu_01", "forecast")}
	for _, p := range parts {
		evs = append(evs, anthropictest.JSONDelta(1, p))
	}
	evs = append(evs, anthropictest.BlockStop(1), anthropictest.MessageDelta("tool_use", 40), anthropictest.MessageStop)
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(evs...)})
	m := newModel(t, f)

	chunks, err := collect(m.Generate(testCtx(t), userRequest("Weather in Paris?", true)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks[:len(chunks)-1] {
		if len(c.ToolCalls) > 0 {
			t.Fatalf("tool calls before the final chunk: %+v", c)
		}
	}
	last := chunks[len(chunks)-1]
	want := []model.ToolCall{model.NewToolCall("toolu_01", "forecast", `{"city": "Paris", "days": 3}`)}
	if !reflect.DeepEqual(last.ToolCalls, want) {
		t.Fatalf("tool calls = %+v, want %+v", last.ToolCalls, want)
	}
	if !json.Valid([]byte(last.ToolCalls[0].Function.Arguments)) {
		t.Error("arguments are not valid JSON")
	}
	if last.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", last.FinishReason)
	}
	resp, err := model.Collect(m.Generate(testCtx(t), userRequest("again", true)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Let me look." || len(resp.ToolCalls) != 1 {
		t.Errorf("collected = %+v", resp)
	}
}

func TestStreamToolUseWithoutInput(t *testing.T) {
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(
		anthropictest.MessageStart("msg_noargs", 10, 0, 0),
		anthropictest.BlockStartToolUse(0, "toolu_now", "current_time"),
		anthropictest.JSONDelta(0, ""),
		anthropictest.BlockStop(0),
		anthropictest.MessageDelta("tool_use", 12),
		anthropictest.MessageStop,
	)})
	resp, err := model.Collect(newModel(t, f).Generate(testCtx(t), userRequest("time?", true)))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{model.NewToolCall("toolu_now", "current_time", "{}")}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
}

// The transcript has a text block and two tool_use blocks whose inputs are
// split across several input_json_delta events.
func TestStreamParallelToolUseTranscript(t *testing.T) {
	f := newFakeAPI(t, reply{sse: readTestdata(t, "stream_parallel_tool_use.sse")})
	m := newModel(t, f)
	chunks, err := collect(m.Generate(testCtx(t), userRequest("Weather in SF and Paris?", true)))
	if err != nil {
		t.Fatal(err)
	}
	withCalls := 0
	for _, c := range chunks {
		if len(c.ToolCalls) > 0 {
			withCalls++
		}
	}
	if withCalls != 1 {
		t.Errorf("%d chunks carry tool calls, want exactly 1", withCalls)
	}
	var resp model.Response
	for _, c := range chunks {
		resp.Append(c)
	}
	if resp.Content != "I'll check the weather in both cities." {
		t.Errorf("content = %q", resp.Content)
	}
	want := []model.ToolCall{
		model.NewToolCall("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", `{"location": "San Francisco, CA", "unit": "fahrenheit"}`),
		model.NewToolCall("toolu_01LxZ9yKqCmZg3nRq2uNpw8e", "get_weather", `{"location": "Paris, France", "unit": "celsius"}`),
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Errorf("tool calls:\n got  %+v\n want %+v", resp.ToolCalls, want)
	}
	u := resp.Usage
	if u.InputTokens != 472 || u.OutputTokens != 89 || u.TotalTokens != 561 || u.CacheReadTokens != 2048 || u.CacheWriteTokens != 1024 {
		t.Errorf("usage = %+v", u)
	}
	if resp.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", resp.FinishReason)
	}
}

func TestStreamThinking(t *testing.T) {
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(
		anthropictest.MessageStart("msg_think", 30, 0, 0),
		anthropictest.BlockStartThinking(0),
		anthropictest.ThinkingDelta(0, "Let me add "),
		anthropictest.ThinkingDelta(0, "2 and 2."),
		anthropictest.SignatureDelta(0, "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"),
		anthropictest.BlockStop(0),
		anthropictest.BlockStartText(1),
		anthropictest.TextDelta(1, "4"),
		anthropictest.BlockStop(1),
		anthropictest.MessageDelta("end_turn", 20),
		anthropictest.MessageStop,
	)})
	chunks, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("2+2?", true)))
	if err != nil {
		t.Fatal(err)
	}
	if chunks[0].ReasoningContent != "Let me add " || chunks[0].Content != "" {
		t.Errorf("first chunk = %+v", chunks[0])
	}
	var resp model.Response
	for _, c := range chunks {
		resp.Append(c)
	}
	if resp.ReasoningContent != "Let me add 2 and 2." || resp.Content != "4" {
		t.Errorf("response = %+v", resp)
	}
	if resp.ProviderData["signature"] != "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" {
		t.Errorf("signature = %v", resp.ProviderData["signature"])
	}
}

const nonStreamToolUse = `{
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "text", "text": "Checking both."},
    {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"location": "Oslo"}},
    {"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 120, "cache_creation_input_tokens": 30, "cache_read_input_tokens": 900, "output_tokens": 64, "output_tokens_details": {"thinking_tokens": 0}}
}`

func TestNonStreamToolUse(t *testing.T) {
	f := newFakeAPI(t, reply{body: nonStreamToolUse})
	chunks, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("Oslo weather and time", false)))
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 {
		t.Fatalf("got %d chunks, want 1", len(chunks))
	}
	c := chunks[0]
	want := []model.ToolCall{
		model.NewToolCall("toolu_a", "get_weather", `{"location": "Oslo"}`),
		model.NewToolCall("toolu_b", "get_time", `{}`),
	}
	if c.Content != "Checking both." || !reflect.DeepEqual(c.ToolCalls, want) || c.FinishReason != "tool_calls" {
		t.Errorf("chunk = %+v", c)
	}
	wantUsage := model.Usage{InputTokens: 120, OutputTokens: 64, TotalTokens: 184, CacheReadTokens: 900, CacheWriteTokens: 30}
	if c.Usage == nil || c.Usage.TimeToFirstToken <= 0 {
		t.Fatalf("usage = %+v, want TimeToFirstToken > 0", c.Usage)
	}
	c.Usage.TimeToFirstToken = 0
	if *c.Usage != wantUsage {
		t.Errorf("usage = %+v, want %+v", c.Usage, wantUsage)
	}
	if c.ProviderData["id"] != "msg_01XFDUDYJgAACzvnptvVoYEL" {
		t.Errorf("ProviderData = %v", c.ProviderData)
	}
	if _, ok := f.body(0)["stream"]; ok {
		t.Error("non-streaming request sent a stream field")
	}
}

func TestRequestMapping(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`})
	m := newModel(t, f)
	temp, topP, maxTok, seed := 0.2, 0.9, 512, int64(7)
	req := &model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "You are terse."},
			{Role: model.RoleUser, Content: "Weather and time in Oslo?", Images: []model.Image{
				{URL: "https://example.com/oslo.jpg"},
				{Content: []byte("\x89PNG\r\n\x1a\n0000"), MimeType: "image/png"},
				{URL: "data:image/gif;base64,R0lGODlh"},
			}},
			{Role: model.RoleAssistant, Content: "Checking.", ToolCalls: []model.ToolCall{
				model.NewToolCall("toolu_a", "get_weather", `{"city":"Oslo"}`),
				model.NewToolCall("toolu_b", "get_time", `{"tz": "Europe/Os`), // cut short: sent as {}
			}},
			{Role: model.RoleTool, ToolCallID: "toolu_a", ToolName: "get_weather", Content: "12°C"},
			{Role: model.RoleTool, ToolCallID: "toolu_b", ToolName: "get_time", Content: "bad arguments", ToolCallError: true},
			{Role: model.RoleUser, Content: "And tomorrow?"},
			{Role: model.RoleSystem, Content: "Answer in English."},
		},
		Tools: []model.ToolDefinition{
			{Name: "get_weather", Description: "Weather for a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)},
			{Name: "get_time"},
		},
		ToolChoice:  &model.ToolChoice{Mode: "auto"},
		Temperature: &temp,
		TopP:        &topP,
		MaxTokens:   &maxTok,
		Stop:        []string{"END"},
		Seed:        &seed,
		User:        "user-42",
		Extra:       map[string]any{"top_k": 5, "stream": true},
		ResponseFormat: &model.ResponseFormat{
			Type: "json_schema", Name: "x", Schema: json.RawMessage(`{"type":"object"}`),
		},
	}
	if _, err := collect(m.Generate(testCtx(t), req)); err != nil {
		t.Fatal(err)
	}
	body := f.body(0)

	assertJSON(t, "system", body["system"], `[{"type":"text","text":"You are terse."},{"type":"text","text":"Answer in English."}]`)
	assertJSON(t, "messages", body["messages"], `[
	  {"role":"user","content":[
	    {"type":"text","text":"Weather and time in Oslo?"},
	    {"type":"image","source":{"type":"url","url":"https://example.com/oslo.jpg"}},
	    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgowMDAw"}},
	    {"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGODlh"}}
	  ]},
	  {"role":"assistant","content":[
	    {"type":"text","text":"Checking."},
	    {"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Oslo"}},
	    {"type":"tool_use","id":"toolu_b","name":"get_time","input":{}}
	  ]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"12°C"}]},
	    {"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"bad arguments"}],"is_error":true},
	    {"type":"text","text":"And tomorrow?"}
	  ]}
	]`)
	assertJSON(t, "tools", body["tools"], `[
	  {"name":"get_weather","description":"Weather for a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},
	  {"name":"get_time","input_schema":{"type":"object","properties":{}}}
	]`)
	assertJSON(t, "tool_choice", body["tool_choice"], `{"type":"auto"}`)
	assertJSON(t, "metadata", body["metadata"], `{"user_id":"user-42"}`)
	assertJSON(t, "stop_sequences", body["stop_sequences"], `["END"]`)
	for k, want := range map[string]any{"temperature": 0.2, "top_p": 0.9, "top_k": float64(5), "max_tokens": float64(512)} {
		if body[k] != want {
			t.Errorf("%s = %v, want %v", k, body[k], want)
		}
	}
	for _, k := range []string{"seed", "output_format", "response_format", "stream"} {
		if _, ok := body[k]; ok {
			t.Errorf("body has %s; Anthropic has no such field here", k)
		}
	}
	if oc, ok := body["output_config"]; ok {
		t.Errorf("output_config sent without reasoning effort: %v", oc)
	}
}

// Documents go as document blocks: a PDF as base64, a text file as text.
func TestDocumentBlocks(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`})
	m := newModel(t, f)
	req := &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Compare these.", Files: []model.File{
		{Filename: "a.pdf", Content: []byte("%PDF-1.4"), MimeType: "application/pdf"},
		{Filename: "b.md", Content: []byte("# Notes\n"), MimeType: "text/markdown"},
	}}}}
	if _, err := collect(m.Generate(testCtx(t), req)); err != nil {
		t.Fatal(err)
	}
	assertJSON(t, "messages", f.body(0)["messages"], `[{"role":"user","content":[
	  {"type":"text","text":"Compare these."},
	  {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQ="}},
	  {"type":"document","source":{"type":"text","media_type":"text/plain","data":"# Notes\n"}}
	]}]`)
}

func TestBlankContentNotSent(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`})
	req := &model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: "  "},
		{Role: model.RoleUser, Content: "ping"},
		{Role: model.RoleAssistant, Content: " \n", ToolCalls: []model.ToolCall{model.NewToolCall("toolu_x", "noop", "")}},
		{Role: model.RoleTool, ToolCallID: "toolu_x", Content: ""},
		{Role: model.RoleUser, Content: "  "},
	}}
	if _, err := collect(newModel(t, f).Generate(testCtx(t), req)); err != nil {
		t.Fatal(err)
	}
	body := f.body(0)
	if _, ok := body["system"]; ok {
		t.Errorf("blank system prompt sent: %v", body["system"])
	}
	assertJSON(t, "messages", body["messages"], `[
	  {"role":"user","content":[{"type":"text","text":"ping"}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_x","name":"noop","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x"}]}
	]`)
}

func TestToolChoice(t *testing.T) {
	for _, tc := range []struct {
		choice model.ToolChoice
		want   string
	}{
		{model.ToolChoice{Mode: "auto"}, `{"type":"auto"}`},
		{model.ToolChoice{Mode: "required"}, `{"type":"any"}`},
		{model.ToolChoice{Mode: "none"}, `{"type":"none"}`},
		{model.ToolChoice{Function: "get_weather"}, `{"type":"tool","name":"get_weather"}`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			f := newFakeAPI(t, reply{body: `{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`})
			req := userRequest("hi", false)
			req.Tools = []model.ToolDefinition{{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
			choice := tc.choice
			req.ToolChoice = &choice
			if _, err := collect(newModel(t, f).Generate(testCtx(t), req)); err != nil {
				t.Fatal(err)
			}
			assertJSON(t, "tool_choice", f.body(0)["tool_choice"], tc.want)
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	f := newFakeAPI(t)
	m := newModel(t, f)
	zero := 0
	for _, tc := range []struct {
		name string
		req  *model.Request
		want string
	}{
		{"nil", nil, "request is nil"},
		{"role", &model.Request{Messages: []model.Message{{Role: "robot", Content: "x"}}}, "messages[0].role"},
		{"tool without id", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}, {Role: model.RoleTool, Content: "r"}}}, "messages[1]: a tool message needs tool_call_id"},
		{"image type", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x", Images: []model.Image{{Content: []byte("BM..."), MimeType: "image/bmp"}}}}}, "messages[0].images[0]"},
		{"empty image", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Images: []model.Image{{}}}}}, "neither url nor content"},
		{"file type", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x", Files: []model.File{{Filename: "a.docx", Content: []byte("PK"), MimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}}}}}, "messages[0].files[0]: file \"a.docx\""},
		{"tool choice", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}, Tools: []model.ToolDefinition{{Name: "t"}}, ToolChoice: &model.ToolChoice{Mode: "sometimes"}}, "tool_choice mode"},
		{"tool name", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}, Tools: []model.ToolDefinition{{}}}, "tools[0].name"},
		{"max tokens", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}, MaxTokens: &zero}, "Request.MaxTokens"},
		{"effort", &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}, ReasoningEffort: "extreme"}, "reasoning_effort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collect(m.Generate(testCtx(t), tc.req))
			if !errors.Is(err, anthropic.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrInvalidRequest mentioning %q", err, tc.want)
			}
		})
	}
	if n := f.attempts(); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}

func TestErrorsAndRetries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		status       int
		errType      string
		message      string
		wantAttempts int
		rateLimited  bool
		retryable    bool
	}{
		{"bad request", 400, "invalid_request_error", "max_tokens: Input should be greater than 0", 1, false, false},
		{"unauthorized", 401, "authentication_error", "invalid x-api-key", 1, false, false},
		{"forbidden", 403, "permission_error", "Your API key does not have permission to use the specified resource.", 1, false, false},
		{"not found", 404, "not_found_error", "model: claude-nope", 1, false, false},
		{"rate limited", 429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", 3, true, true},
		{"overloaded", 529, "overloaded_error", "Overloaded", 3, true, true},
		{"server error", 500, "api_error", "Internal server error", 3, false, true},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": tc.errType, "message": tc.message}})
				// retry-after 0 keeps the test fast and still goes through the header.
				f := newFakeAPI(t, reply{status: tc.status, body: string(body), header: map[string]string{"retry-after": "0"}})
				m := newModel(t, f, func(c *anthropic.Config) { c.MaxRetries = 2 })
				_, err := collect(m.Generate(testCtx(t), userRequest("hi", stream)))
				pe, ok := model.AsProviderError(err)
				if !ok {
					t.Fatalf("err = %v (%T), want *model.ProviderError", err, err)
				}
				if pe.StatusCode != tc.status || pe.Message != tc.message || pe.Provider != "Anthropic" || pe.Model != "claude-sonnet-4-5" {
					t.Errorf("ProviderError = %+v", pe)
				}
				if pe.RateLimited() != tc.rateLimited || pe.Retryable() != tc.retryable || pe.ContextOverflow {
					t.Errorf("RateLimited=%v Retryable=%v ContextOverflow=%v", pe.RateLimited(), pe.Retryable(), pe.ContextOverflow)
				}
				if got := f.attempts(); got != tc.wantAttempts {
					t.Errorf("attempts = %d, want %d", got, tc.wantAttempts)
				}
			})
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	overloaded := readTestdata(t, "error_overloaded.json")
	f := newFakeAPI(t,
		reply{status: 529, body: overloaded, header: map[string]string{"retry-after-ms": "1"}},
		reply{status: 503, body: `{"type":"error","error":{"type":"api_error","message":"upstream unavailable"}}`, header: map[string]string{"retry-after": "0"}},
		reply{sse: anthropictest.SSE(anthropictest.MessageStart("msg_ok", 5, 0, 0), anthropictest.BlockStartText(0), anthropictest.TextDelta(0, "ok"), anthropictest.BlockStop(0), anthropictest.MessageDelta("end_turn", 2), anthropictest.MessageStop)},
	)
	resp, err := model.Collect(newModel(t, f).Generate(testCtx(t), userRequest("hi", true)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "ok" || f.attempts() != 3 {
		t.Errorf("content %q after %d attempts, want ok after 3", resp.Content, f.attempts())
	}
}

func TestRetryAfterDroppedConnection(t *testing.T) {
	f := newFakeAPI(t, reply{drop: true}, reply{body: nonStreamToolUse})
	resp, err := model.Collect(newModel(t, f).Generate(testCtx(t), userRequest("hi", false)))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || f.attempts() != 2 {
		t.Errorf("%d tool calls after %d attempts, want 2 after 2", len(resp.ToolCalls), f.attempts())
	}

	f = newFakeAPI(t, reply{drop: true})
	_, err = collect(newModel(t, f, func(c *anthropic.Config) { c.MaxRetries = -1 }).Generate(testCtx(t), userRequest("hi", false)))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 0 || !pe.Retryable() || pe.Message == "" {
		t.Fatalf("err = %#v, want a retryable ProviderError without status", err)
	}
	if f.attempts() != 1 {
		t.Errorf("attempts = %d with retries disabled", f.attempts())
	}
}

func TestRetriesDisabledAndRetryAfter(t *testing.T) {
	f := newFakeAPI(t, reply{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, header: map[string]string{"retry-after": "7"}})
	m := newModel(t, f, func(c *anthropic.Config) { c.MaxRetries = -1 })
	_, err := collect(m.Generate(testCtx(t), userRequest("hi", false)))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.RetryAfter != 7*time.Second || pe.Message != "slow down" {
		t.Fatalf("err = %#v", err)
	}
	if f.attempts() != 1 {
		t.Errorf("attempts = %d, want 1", f.attempts())
	}
}

func TestContextOverflow(t *testing.T) {
	f := newFakeAPI(t, reply{status: 400, body: readTestdata(t, "error_prompt_too_long.json")})
	_, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("a very long prompt", false)))
	pe, ok := model.AsProviderError(err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if !pe.ContextOverflow || pe.Retryable() || pe.StatusCode != 400 {
		t.Errorf("ProviderError = %+v", pe)
	}
	if pe.Message != "prompt is too long: 210463 tokens > 200000 maximum" {
		t.Errorf("message = %q", pe.Message)
	}
	if f.attempts() != 1 {
		t.Errorf("attempts = %d", f.attempts())
	}
}

func TestStreamErrorEvent(t *testing.T) {
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(
		anthropictest.MessageStart("msg_err", 5, 0, 0),
		anthropictest.BlockStartText(0),
		anthropictest.TextDelta(0, "Partial"),
		anthropictest.Event{Type: "error", Data: strings.TrimSpace(readTestdata(t, "error_overloaded.json"))},
	)})
	chunks, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("hi", true)))
	if len(chunks) != 1 || chunks[0].Content != "Partial" {
		t.Errorf("chunks before the error = %+v", chunks)
	}
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 529 || pe.Message != "Overloaded" || !pe.RateLimited() {
		t.Fatalf("err = %#v", err)
	}
	if f.attempts() != 1 {
		t.Errorf("a started stream was retried: %d attempts", f.attempts())
	}
}

func TestStreamTruncated(t *testing.T) {
	f := newFakeAPI(t, reply{sse: anthropictest.SSE(anthropictest.MessageStart("msg_cut", 5, 0, 0), anthropictest.BlockStartText(0), anthropictest.TextDelta(0, "Hal"))})
	_, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("hi", true)))
	pe, ok := model.AsProviderError(err)
	if !ok || !strings.Contains(pe.Message, "message_stop") {
		t.Fatalf("err = %v", err)
	}
}

func TestNonStreamMaxTokensTooLarge(t *testing.T) {
	f := newFakeAPI(t)
	big := 64000
	req := userRequest("write a book", false)
	req.MaxTokens = &big
	_, err := collect(newModel(t, f).Generate(testCtx(t), req))
	if !errors.Is(err, anthropic.ErrInvalidRequest) || !strings.Contains(err.Error(), "Request.Stream") {
		t.Fatalf("err = %v", err)
	}
}

func TestLongRetryAfterIsReturned(t *testing.T) {
	f := newFakeAPI(t, reply{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"daily limit reached"}}`, header: map[string]string{"retry-after": "3600"}})
	_, err := collect(newModel(t, f).Generate(testCtx(t), userRequest("hi", true)))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.RetryAfter != time.Hour || pe.StatusCode != 429 || pe.Message != "daily limit reached" {
		t.Fatalf("err = %#v", err)
	}
	if f.attempts() != 1 {
		t.Errorf("attempts = %d, want 1: a wait over a minute is the caller's decision", f.attempts())
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	f := newFakeAPI(t, reply{status: 529, body: readTestdata(t, "error_overloaded.json"), header: map[string]string{"retry-after": "45"}})
	f.arrived = make(chan int, 4)
	m := newModel(t, f)
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := collect(m.Generate(ctx, userRequest("hi", false)))
		done <- err
	}()
	<-f.arrived
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Generate did not return after cancellation")
	}
	if f.attempts() != 1 {
		t.Errorf("attempts = %d, want 1 (retry-after 45 must be waited for)", f.attempts())
	}
	f.close()
	goleak.VerifyNone(t)
}

func TestConcurrentRequests(t *testing.T) {
	f := newFakeAPI(t, reply{sse: readTestdata(t, "stream_parallel_tool_use.sse")})
	m := newModel(t, f)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			resp, err := model.Collect(m.Generate(testCtx(t), userRequest("weather", true)))
			if err == nil && len(resp.ToolCalls) != 2 {
				err = errors.New("wrong tool calls")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
