package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newServer starts a fake server and a compatible-mode client for it.
func newServer(t *testing.T, cfg modeltest.ServerConfig, mc Config) (*modeltest.Server, *Model) {
	t.Helper()
	srv := modeltest.NewServer(cfg)
	t.Cleanup(srv.Close)
	mc.BaseURL = srv.URL
	mc.HTTPClient = srv.Client()
	if mc.ID == "" {
		mc.ID = "fake-model"
	}
	if !mc.Compatible && mc.APIKey == "" && mc.APIKeyEnv == "" {
		mc.APIKey = "sk-test"
	}
	m, err := New(mc)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// chunks drains a stream, keeping each chunk.
func chunks(t *testing.T, seq func(func(*model.Chunk, error) bool)) ([]*model.Chunk, error) {
	t.Helper()
	var out []*model.Chunk
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func userRequest(stream bool, text string) *model.Request {
	return &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: text}}}
}

func body(t *testing.T, srv *modeltest.Server, i int) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("server saw %d requests, want more than %d", len(reqs), i)
	}
	var m map[string]any
	if err := reqs[i].Decode(&m); err != nil {
		t.Fatalf("request %d body is not JSON: %v\n%s", i, err, reqs[i].Body)
	}
	return m
}

func TestNonStreamedResponse(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Content: "Paris is the capital.",
		Usage:   &model.Usage{InputTokens: 21, OutputTokens: 5, TotalTokens: 26, CacheReadTokens: 16, ReasoningTokens: 2},
	}}}, Config{})

	got, err := chunks(t, m.Generate(context.Background(), userRequest(false, "Capital of France?")))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("non-streamed response came in %d chunks, want 1", len(got))
	}
	c := got[0]
	if c.Content != "Paris is the capital." || c.FinishReason != "stop" || c.ToolCalls != nil {
		t.Errorf("chunk = %+v", c)
	}
	want := model.Usage{InputTokens: 21, OutputTokens: 5, TotalTokens: 26, CacheReadTokens: 16, ReasoningTokens: 2}
	u := *c.Usage
	if u.TimeToFirstToken <= 0 {
		t.Errorf("time to first token not measured")
	}
	u.TimeToFirstToken = 0
	if u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
	if id, _ := c.ProviderData["id"].(string); !strings.HasPrefix(id, "chatcmpl-") {
		t.Errorf("provider data = %v, want the response id", c.ProviderData)
	}

	b := body(t, srv, 0)
	if _, ok := b["stream"]; ok {
		t.Errorf("non-streamed request sent stream: %v", b["stream"])
	}
	if _, ok := b["stream_options"]; ok {
		t.Errorf("non-streamed request sent stream_options")
	}
	if b["model"] != "fake-model" {
		t.Errorf("model = %v", b["model"])
	}
	if got := srv.Requests()[0].Authorization(); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestStreamedResponse(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Tokens: []string{"The ", "answer ", "is ", "42."},
		Usage:  &model.Usage{InputTokens: 9, OutputTokens: 4, TotalTokens: 13, CacheReadTokens: 3, ReasoningTokens: 1},
	}}}, Config{})

	got, err := chunks(t, m.Generate(context.Background(), userRequest(true, "?")))
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	for _, c := range got[:len(got)-1] {
		if c.Usage != nil || c.ToolCalls != nil || c.FinishReason != "" {
			t.Errorf("delta chunk carries final fields: %+v", c)
		}
		deltas = append(deltas, c.Content)
	}
	if want := []string{"The ", "answer ", "is ", "42."}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("content deltas = %q, want %q", deltas, want)
	}
	final := got[len(got)-1]
	if final.FinishReason != "stop" || final.Usage == nil {
		t.Fatalf("final chunk = %+v", final)
	}
	if final.Usage.TimeToFirstToken <= 0 {
		t.Errorf("time to first token not measured")
	}
	u := *final.Usage
	u.TimeToFirstToken = 0
	if want := (model.Usage{InputTokens: 9, OutputTokens: 4, TotalTokens: 13, CacheReadTokens: 3, ReasoningTokens: 1}); u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}

	b := body(t, srv, 0)
	if b["stream"] != true {
		t.Errorf("stream = %v", b["stream"])
	}
	if so, _ := b["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage true", b["stream_options"])
	}
}

func TestStreamedParallelToolCalls(t *testing.T) {
	calls := []model.ToolCall{
		model.NewToolCall("call_a1", "get_weather", `{"location": "Paris, France", "unit": "celsius"}`),
		model.NewToolCall("call_b2", "get_weather", `{"location": "Bogotá, Colombia"}`),
		model.NewToolCall("call_c3", "send_email", `{"to": "bob@example.com", "body": "Hi Bob"}`),
	}
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Content: "Checking.", ToolCalls: calls}}}, Config{})

	got, err := chunks(t, m.Generate(context.Background(), &model.Request{
		Stream:   true,
		Messages: []model.Message{{Role: model.RoleUser, Content: "weather?"}},
		Tools:    []model.ToolDefinition{{Name: "get_weather"}, {Name: "send_email"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	withCalls := 0
	for _, c := range got {
		if c.ToolCalls != nil {
			withCalls++
		}
	}
	if withCalls != 1 {
		t.Errorf("%d chunks carry tool calls, want exactly 1", withCalls)
	}
	final := got[len(got)-1]
	if !reflect.DeepEqual(final.ToolCalls, calls) {
		t.Errorf("tool calls =\n%+v\nwant\n%+v", final.ToolCalls, calls)
	}
	if final.FinishReason != "tool_calls" {
		t.Errorf("finish reason = %q", final.FinishReason)
	}
	r, _ := model.Collect(func(yield func(*model.Chunk, error) bool) {
		for _, c := range got {
			yield(c, nil)
		}
	})
	if r.Content != "Checking." {
		t.Errorf("content = %q", r.Content)
	}
}

func TestStreamedToolCallWithoutIDGetsOne(t *testing.T) {
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		ToolCalls: []model.ToolCall{model.NewToolCall("", "lookup", `{"q":"x"}`)},
	}}}, Config{Compatible: true})
	for _, stream := range []bool{true, false} {
		r, err := model.Collect(m.Generate(context.Background(), userRequest(stream, "go")))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.ToolCalls) != 1 || !strings.HasPrefix(r.ToolCalls[0].ID, "call_") || len(r.ToolCalls[0].ID) < 20 {
			t.Errorf("stream=%v: tool calls = %+v, want one with a generated call_ id", stream, r.ToolCalls)
		}
		if r.ToolCalls[0].Function.Arguments != `{"q":"x"}` || r.ToolCalls[0].Type != "function" {
			t.Errorf("stream=%v: call = %+v", stream, r.ToolCalls[0])
		}
	}
}

func TestThinkTagsSplitAcrossChunks(t *testing.T) {
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Tokens: []string{"<thi", "nk>Compare the", " tenths.</th", "ink>", "\n\n", "9.9 is ", "larger <", "b>really</b>"},
	}}}, Config{Compatible: true})
	got, err := chunks(t, m.Generate(context.Background(), userRequest(true, "9.11 or 9.9?")))
	if err != nil {
		t.Fatal(err)
	}
	var content, reasoning strings.Builder
	for _, c := range got {
		content.WriteString(c.Content)
		reasoning.WriteString(c.ReasoningContent)
		if strings.Contains(c.Content, "think>") || strings.Contains(c.ReasoningContent, "think>") {
			t.Errorf("a tag leaked into chunk %+v", c)
		}
	}
	if content.String() != "9.9 is larger <b>really</b>" {
		t.Errorf("content = %q", content.String())
	}
	if reasoning.String() != "Compare the tenths." {
		t.Errorf("reasoning = %q", reasoning.String())
	}
}

func TestThinkTagsNonStreamed(t *testing.T) {
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{
		{Content: "<think>\nCompare the tenths.\n</think>\n\n9.9 is larger."},
		{Content: "Compare the tenths.</think>9.9 is larger."}, // opening tag stripped by the server
	}}, Config{Compatible: true})
	for i := range 2 {
		r, err := model.Collect(m.Generate(context.Background(), userRequest(false, "?")))
		if err != nil {
			t.Fatal(err)
		}
		if r.Content != "9.9 is larger." || r.ReasoningContent != "Compare the tenths." {
			t.Errorf("response %d: content %q reasoning %q", i, r.Content, r.ReasoningContent)
		}
	}
}

func TestReasoningContentField(t *testing.T) {
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Reasoning: "Compare the tenths first.",
		Content:   "9.9 is larger.",
	}}}, Config{Compatible: true})
	for _, stream := range []bool{true, false} {
		got, err := chunks(t, m.Generate(context.Background(), userRequest(stream, "?")))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := model.Collect(func(yield func(*model.Chunk, error) bool) {
			for _, c := range got {
				yield(c, nil)
			}
		})
		if r.ReasoningContent != "Compare the tenths first." || r.Content != "9.9 is larger." {
			t.Errorf("stream=%v: reasoning %q content %q", stream, r.ReasoningContent, r.Content)
		}
		if stream && got[0].ReasoningContent == "" {
			t.Errorf("reasoning was not streamed ahead of content: first chunk %+v", got[0])
		}
	}
}

func TestRequestBody(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{}, Config{})
	temp, topP, maxTok, seed := 0.2, 0.9, 512, int64(7)
	req := &model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "Be brief."},
			{Role: model.RoleUser, Content: "What is this?", Images: []model.Image{
				{URL: "https://example.com/cat.png", Detail: "low"},
				{Content: []byte("\x89PNG\r\n\x1a\n0000")},
			}},
			{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
				model.NewToolCall("call_1", "zeta", `{"a":1}`),
				model.NewToolCall("toolu_01A", "alpha", `{}`),
			}},
			{Role: model.RoleTool, ToolCallID: "call_1", Content: "one"},
			{Role: model.RoleTool, ToolCallID: "toolu_01A", Content: "two"},
		},
		Tools: []model.ToolDefinition{
			{Name: "zeta", Description: "Z tool", Parameters: json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}`), Strict: true},
			{Name: "alpha"},
		},
		ToolChoice:  &model.ToolChoice{Mode: "required"},
		Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Seed: &seed,
		Stop: []string{"END"}, User: "u-1", ReasoningEffort: "low",
		Extra: map[string]any{
			"top_k":         40,
			"extra_body":    map[string]any{"repetition_penalty": 1.1},
			"extra_headers": map[string]any{"X-Trace": "t-1"},
		},
	}
	if _, err := model.Collect(m.Generate(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	if rec.Header.Get("X-Trace") != "t-1" {
		t.Errorf("extra_headers not sent: %v", rec.Header)
	}
	var got struct {
		Messages []struct {
			Role       string           `json:"role"`
			Content    json.RawMessage  `json:"content"`
			ToolCalls  []model.ToolCall `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description *string         `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      *bool           `json:"strict"`
			} `json:"function"`
		} `json:"tools"`
		ToolChoice        any      `json:"tool_choice"`
		Temperature       float64  `json:"temperature"`
		TopP              float64  `json:"top_p"`
		MaxTokens         int      `json:"max_tokens"`
		Seed              int64    `json:"seed"`
		Stop              []string `json:"stop"`
		User              string   `json:"user"`
		ReasoningEffort   string   `json:"reasoning_effort"`
		TopK              int      `json:"top_k"`
		RepetitionPenalty float64  `json:"repetition_penalty"`
		ExtraBody         any      `json:"extra_body"`
		ExtraHeaders      any      `json:"extra_headers"`
	}
	if err := rec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	roles := []string{}
	for _, msg := range got.Messages {
		roles = append(roles, msg.Role)
	}
	if want := []string{"developer", "user", "assistant", "tool", "tool"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("roles = %v, want %v (OpenAIChat sends system as developer)", roles, want)
	}
	if string(got.Messages[0].Content) != `"Be brief."` {
		t.Errorf("system content = %s", got.Messages[0].Content)
	}
	var parts []map[string]any
	if err := json.Unmarshal(got.Messages[1].Content, &parts); err != nil || len(parts) != 3 {
		t.Fatalf("user content with images = %s (%v)", got.Messages[1].Content, err)
	}
	if parts[0]["type"] != "text" || parts[0]["text"] != "What is this?" {
		t.Errorf("first part = %v", parts[0])
	}
	if iu := parts[1]["image_url"].(map[string]any); iu["url"] != "https://example.com/cat.png" || iu["detail"] != "low" {
		t.Errorf("url image part = %v", parts[1])
	}
	if iu := parts[2]["image_url"].(map[string]any); !strings.HasPrefix(iu["url"].(string), "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("inline image part = %v", parts[2])
	}
	if string(got.Messages[2].Content) != `""` {
		t.Errorf("assistant content with tool calls = %s, want \"\" as agno sends", got.Messages[2].Content)
	}
	wantCalls := []model.ToolCall{model.NewToolCall("call_1", "zeta", `{"a":1}`), model.NewToolCall("call_toolu_01A", "alpha", `{}`)}
	if !reflect.DeepEqual(got.Messages[2].ToolCalls, wantCalls) {
		t.Errorf("assistant tool calls = %+v, want %+v", got.Messages[2].ToolCalls, wantCalls)
	}
	if got.Messages[3].ToolCallID != "call_1" || got.Messages[4].ToolCallID != "call_toolu_01A" {
		t.Errorf("tool_call_ids = %q, %q: foreign ids must get the same call_ prefix as their calls", got.Messages[3].ToolCallID, got.Messages[4].ToolCallID)
	}
	if len(got.Tools) != 2 || got.Tools[0].Function.Name != "zeta" || got.Tools[1].Function.Name != "alpha" {
		t.Fatalf("tools = %+v, want zeta then alpha, in the order given", got.Tools)
	}
	z := got.Tools[0]
	if z.Type != "function" || z.Function.Description == nil || *z.Function.Description != "Z tool" || z.Function.Strict == nil || !*z.Function.Strict {
		t.Errorf("zeta = %+v", z)
	}
	// Property order reaches the provider unchanged.
	if !strings.Contains(string(z.Function.Parameters), `"properties":{"b":{"type":"string"},"a":{"type":"integer"}}`) {
		t.Errorf("zeta parameters = %s", z.Function.Parameters)
	}
	a := got.Tools[1]
	if a.Function.Description != nil || a.Function.Strict != nil {
		t.Errorf("alpha sent unset description/strict: %+v", a)
	}
	var params map[string]any
	if err := json.Unmarshal(a.Function.Parameters, &params); err != nil || params["type"] != "object" || params["required"] == nil {
		t.Errorf("alpha parameters = %s, want agno's empty object schema", a.Function.Parameters)
	}
	if got.ToolChoice != "required" {
		t.Errorf("tool_choice = %v", got.ToolChoice)
	}
	if got.Temperature != 0.2 || got.TopP != 0.9 || got.MaxTokens != 512 || got.Seed != 7 ||
		!reflect.DeepEqual(got.Stop, []string{"END"}) || got.User != "u-1" || got.ReasoningEffort != "low" {
		t.Errorf("sampling params = %+v", got)
	}
	if got.TopK != 40 || got.RepetitionPenalty != 1.1 || got.ExtraBody != nil || got.ExtraHeaders != nil {
		t.Errorf("extras: top_k %d repetition_penalty %v extra_body %v extra_headers %v", got.TopK, got.RepetitionPenalty, got.ExtraBody, got.ExtraHeaders)
	}
}

func TestCompatibleRequestKeepsSystemRoleAndIDs(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{}, Config{Compatible: true, Headers: map[string]string{"X-Gateway-Team": "agents"}})
	req := &model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: "sys"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{model.NewToolCall("aB3dE5fG7", "f", "{}")}},
		{Role: model.RoleTool, ToolCallID: "aB3dE5fG7", Content: "r"},
	}}
	if _, err := model.Collect(m.Generate(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	b := body(t, srv, 0)
	msgs := b["messages"].([]any)
	if r := msgs[0].(map[string]any)["role"]; r != "system" {
		t.Errorf("system role sent as %v, want system (OpenAILike role map)", r)
	}
	if id := msgs[2].(map[string]any)["tool_call_id"]; id != "aB3dE5fG7" {
		t.Errorf("tool_call_id = %v, want the endpoint's own id", id)
	}
	if _, ok := b["tool_choice"]; ok {
		t.Errorf("tool_choice sent without tools")
	}
	if got := srv.Requests()[0].Authorization(); got != "" {
		t.Errorf("compatible model without key sent Authorization %q", got)
	}
	if got := srv.Requests()[0].Header.Get("X-Gateway-Team"); got != "agents" {
		t.Errorf("configured header = %q", got)
	}
	if info := m.Info(); info.Provider != "OpenAI" || info.Name != "OpenAILike" || !info.NativeStructuredOutputs || !info.JSONMode {
		t.Errorf("info = %+v", info)
	}
}

func TestStructuredOutputRequest(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Content: `{"city":"Paris"}`}}}, Config{})
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	r, err := model.Collect(m.Generate(context.Background(), &model.Request{
		Messages:       []model.Message{{Role: model.RoleUser, Content: "city?"}},
		ResponseFormat: &model.ResponseFormat{Type: "json_schema", Name: "CityAnswer", Schema: schema, Strict: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != `{"city":"Paris"}` {
		t.Errorf("content = %q", r.Content)
	}
	var got struct {
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
				Strict bool            `json:"strict"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := srv.Requests()[0].Decode(&got); err != nil {
		t.Fatal(err)
	}
	rf := got.ResponseFormat
	if rf.Type != "json_schema" || rf.JSONSchema.Name != "CityAnswer" || !rf.JSONSchema.Strict || string(rf.JSONSchema.Schema) != string(schema) {
		t.Errorf("response_format = %+v (schema %s)", rf, rf.JSONSchema.Schema)
	}

	if _, err := model.Collect(m.Generate(context.Background(), &model.Request{
		Messages:       []model.Message{{Role: model.RoleUser, Content: "json please"}},
		ResponseFormat: &model.ResponseFormat{Type: "json_object"},
	})); err != nil {
		t.Fatal(err)
	}
	b := body(t, srv, 1)
	if rf := b["response_format"].(map[string]any); rf["type"] != "json_object" || len(rf) != 1 {
		t.Errorf("json mode response_format = %v", rf)
	}
}

func TestInvalidRequestsFailBeforeSending(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{}, Config{})
	cases := map[string]*model.Request{
		"tool message without id": {Messages: []model.Message{{Role: model.RoleTool, Content: "x"}}},
		"unknown role":            {Messages: []model.Message{{Role: "robot", Content: "x"}}},
		"bad tool parameters":     {Messages: []model.Message{{Role: model.RoleUser}}, Tools: []model.ToolDefinition{{Name: "f", Parameters: json.RawMessage(`[1]`)}}},
		"schema missing":          {Messages: []model.Message{{Role: model.RoleUser}}, ResponseFormat: &model.ResponseFormat{Type: "json_schema"}},
		"bad tool choice":         {Messages: []model.Message{{Role: model.RoleUser}}, Tools: []model.ToolDefinition{{Name: "f"}}, ToolChoice: &model.ToolChoice{Mode: "sometimes"}},
	}
	for name, req := range cases {
		_, err := model.Collect(m.Generate(context.Background(), req))
		if !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err = %v, want ErrInvalidRequest", name, err)
		}
	}
	if n := srv.Calls(); n != 0 {
		t.Errorf("server saw %d requests for invalid input", n)
	}
}

func TestHTTPErrorCarriesStatusAndMessage(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Status: http.StatusBadRequest, ErrorMessage: "Invalid schema for function 'f': 'x' is not valid under any of the given schemas.",
		ErrorCode: "invalid_function_parameters",
	}}}, Config{})
	for _, stream := range []bool{false, true} {
		_, err := model.Collect(m.Generate(context.Background(), userRequest(stream, "hi")))
		pe, ok := model.AsProviderError(err)
		if !ok {
			t.Fatalf("stream=%v: err = %v, want *model.ProviderError", stream, err)
		}
		if pe.StatusCode != 400 || pe.Message != "Invalid schema for function 'f': 'x' is not valid under any of the given schemas." ||
			pe.Provider != "OpenAI" || pe.Model != "fake-model" || pe.ContextOverflow || pe.Retryable() {
			t.Errorf("stream=%v: provider error = %+v", stream, pe)
		}
	}
	if n := srv.Calls(); n != 2 {
		t.Errorf("server saw %d requests, want 2 (a 400 is never retried)", n)
	}
}

func TestContextOverflowError(t *testing.T) {
	_, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{
		Status: http.StatusBadRequest, ErrorCode: "context_length_exceeded",
		ErrorMessage: "This model's maximum context length is 128000 tokens.",
	}}}, Config{})
	_, err := model.Collect(m.Generate(context.Background(), userRequest(true, "long")))
	pe, ok := model.AsProviderError(err)
	if !ok || !pe.ContextOverflow || pe.Retryable() {
		t.Fatalf("err = %#v, want a non-retryable context overflow", err)
	}
}

// recordSleeps replaces the retry wait so tests see the delays chosen
// without spending them.
func recordSleeps(m *Model) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	m.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*waits = append(*waits, d)
		return ctx.Err()
	}
	return waits
}

func TestRetryOn429HonoursRetryAfter(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{
		{Status: http.StatusTooManyRequests, RetryAfter: 1500 * time.Millisecond},
		{Status: http.StatusTooManyRequests, RetryAfter: 20 * time.Millisecond},
		{Content: "finally"},
	}}, Config{})
	waits := recordSleeps(m)
	r, err := model.Collect(m.Generate(context.Background(), userRequest(true, "hi")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "finally" {
		t.Errorf("content = %q", r.Content)
	}
	if n := srv.Calls(); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
	if want := []time.Duration{1500 * time.Millisecond, 20 * time.Millisecond}; !reflect.DeepEqual(*waits, want) {
		t.Errorf("waits = %v, want the Retry-After values %v", *waits, want)
	}
}

func TestRetryWithRealWait(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{
		{Status: http.StatusServiceUnavailable, RetryAfter: time.Millisecond},
		{Content: "up"},
	}}, Config{})
	r, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	if err != nil || r.Content != "up" || srv.Calls() != 2 {
		t.Fatalf("content %q err %v attempts %d", r.Content, err, srv.Calls())
	}
}

func TestRetriesAreBounded(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{
		{Status: http.StatusInternalServerError, ErrorMessage: "The server had an error while processing your request."},
	}}, Config{MaxRetries: 1})
	waits := recordSleeps(m)
	_, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 500 || pe.Message != "The server had an error while processing your request." {
		t.Fatalf("err = %v", err)
	}
	if n := srv.Calls(); n != 2 {
		t.Errorf("attempts = %d, want 2 (MaxRetries 1)", n)
	}
	if len(*waits) != 1 || (*waits)[0] < 375*time.Millisecond || (*waits)[0] > 500*time.Millisecond {
		t.Errorf("waits = %v, want one backoff of 0.5 s minus jitter", *waits)
	}

	srv2, noRetry := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Status: http.StatusTooManyRequests}}}, Config{MaxRetries: -1})
	if _, err := model.Collect(noRetry.Generate(context.Background(), userRequest(false, "hi"))); err == nil {
		t.Fatal("want an error")
	}
	if n := srv2.Calls(); n != 1 {
		t.Errorf("attempts with retries disabled = %d, want 1", n)
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 422} {
		srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Status: status}}}, Config{MaxRetries: 5})
		waits := recordSleeps(m)
		_, err := model.Collect(m.Generate(context.Background(), userRequest(true, "hi")))
		if pe, ok := model.AsProviderError(err); !ok || pe.StatusCode != status {
			t.Errorf("status %d: err = %v", status, err)
		}
		if n := srv.Calls(); n != 1 || len(*waits) != 0 {
			t.Errorf("status %d: %d attempts, %d waits; want 1 and 0", status, n, len(*waits))
		}
	}
}

func TestRetryAfterBeyondLimitIsNotWaited(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{
		{Status: http.StatusTooManyRequests, RetryAfter: 10 * time.Minute},
	}}, Config{})
	waits := recordSleeps(m)
	_, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.RetryAfter != 10*time.Minute || !pe.RateLimited() {
		t.Fatalf("err = %#v", err)
	}
	if srv.Calls() != 1 || len(*waits) != 0 {
		t.Errorf("attempts %d waits %v: a 10 min Retry-After goes back to the caller", srv.Calls(), *waits)
	}
}

func TestAPIKeys(t *testing.T) {
	t.Run("api_key_env unset", func(t *testing.T) {
		t.Setenv("TAOTOKEN_API_KEY", "")
		_, err := New(Config{Compatible: true, BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "TAOTOKEN_API_KEY"})
		if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "TAOTOKEN_API_KEY") || !strings.Contains(err.Error(), "export TAOTOKEN_API_KEY=") {
			t.Errorf("err = %v, want ErrNoAPIKey naming TAOTOKEN_API_KEY and how to set it", err)
		}
	})
	t.Run("openai without key", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "")
		_, err := New(Config{})
		if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("api_key_env is sent", func(t *testing.T) {
		t.Setenv("TAOTOKEN_API_KEY", "tt-secret")
		srv, m := newServer(t, modeltest.ServerConfig{APIKey: "tt-secret"}, Config{Compatible: true, APIKeyEnv: "TAOTOKEN_API_KEY"})
		if _, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi"))); err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].Authorization(); got != "Bearer tt-secret" {
			t.Errorf("Authorization = %q", got)
		}
	})
	t.Run("OPENAI_API_KEY is never sent to a compatible endpoint", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
		srv, m := newServer(t, modeltest.ServerConfig{}, Config{Compatible: true})
		if _, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi"))); err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].Authorization(); got != "" {
			t.Errorf("Authorization = %q", got)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		srv, m := newServer(t, modeltest.ServerConfig{APIKey: "right"}, Config{APIKey: "wrong"})
		_, err := model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
		pe, ok := model.AsProviderError(err)
		if !ok || pe.StatusCode != 401 || !strings.Contains(pe.Message, "Incorrect API key") {
			t.Errorf("err = %v", err)
		}
		if srv.Calls() != 1 {
			t.Errorf("a 401 was retried")
		}
	})
	t.Run("bad base url", func(t *testing.T) {
		_, err := New(Config{Compatible: true, BaseURL: "localhost:11434"})
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCancelMidStream(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{
		Script:     []modeltest.Response{{Tokens: modeltest.FillerTokens(10000)}},
		TokenDelay: 5 * time.Millisecond,
	}, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var gotErr error
	for c, err := range m.Generate(ctx, userRequest(true, "go on")) {
		if err != nil {
			gotErr = err
			break
		}
		if c.Content != "" {
			n++
		}
		if n == 3 {
			cancel()
		}
	}
	if !errors.Is(gotErr, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", gotErr)
	}
	if n >= 10000 {
		t.Errorf("stream ran to the end after cancel")
	}
	srv.Close() // returns only once the server's handler has seen the disconnect
}

func TestConsumerStopsEarly(t *testing.T) {
	srv, m := newServer(t, modeltest.ServerConfig{
		Script:     []modeltest.Response{{Tokens: modeltest.FillerTokens(10000)}},
		TokenDelay: time.Millisecond,
	}, Config{})
	n := 0
	for c, err := range m.Generate(context.Background(), userRequest(true, "go on")) {
		if err != nil {
			t.Fatal(err)
		}
		if c.Content != "" {
			n++
		}
		if n == 2 {
			break
		}
	}
	srv.Close() // hangs if the client kept the body open
}

func TestNetworkErrorIsRetried(t *testing.T) {
	var mu sync.Mutex
	attempts := 0
	fake := modeltest.NewHandler(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "after reconnect"}}})
	srv := newHTTPTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		attempts++
		first := attempts == 1
		mu.Unlock()
		if first {
			// Drop the connection without answering.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fake.ServeHTTP(w, r)
	}))
	m, err := New(Config{Compatible: true, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	waits := recordSleeps(m)
	r, err := model.Collect(m.Generate(context.Background(), userRequest(true, "hi")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "after reconnect" || attempts != 2 || len(*waits) != 1 {
		t.Errorf("content %q attempts %d waits %v", r.Content, attempts, *waits)
	}
}

// An OpenAI-compatible server keeps agno's provider ("OpenAI", as
// OpenAILike inherits it) in the run's fields, but its errors name the
// endpoint that answered, without credentials, so a local server's
// failure is not read as OpenAI's.
func TestCompatibleErrorsNameTheEndpoint(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Status: http.StatusInternalServerError, ErrorMessage: "model not loaded"}}})
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "?api-key=secret"
	m, err := New(Config{BaseURL: u, HTTPClient: srv.Client(), ID: "local", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = model.Collect(m.Generate(context.Background(), userRequest(false, "hi")))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.Provider != "OpenAI" || m.Info().Name != "OpenAILike" {
		t.Fatalf("err %v, info %+v", err, m.Info())
	}
	want := "OpenAI-compatible endpoint " + srv.URL + ": status 500: model not loaded"
	if err.Error() != want || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q, want %q", err, want)
	}
	// OpenAI itself is named as before.
	_, m2 := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Status: http.StatusInternalServerError, ErrorMessage: "boom"}}}, Config{MaxRetries: -1})
	if _, err := model.Collect(m2.Generate(context.Background(), userRequest(false, "hi"))); err == nil || !strings.HasPrefix(err.Error(), "OpenAI: status 500") {
		t.Errorf("openai error %v", err)
	}
}
