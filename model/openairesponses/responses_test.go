package openairesponses_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/openairesponses"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-test-responses"

func newModel(t *testing.T, f *fakeAPI, id string, o *openairesponses.Options) *openairesponses.Model {
	t.Helper()
	m, err := openairesponses.NewFromSettings(model.ProviderSettings{ID: id, BaseURL: f.url(), APIKey: f.key, MaxRetries: -1}, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// asJSON is v as JSON text, then decoded generically: what comparing
// against the wire needs.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return out
}

// stored is what an assistant message becomes after the run is saved and
// loaded again: its provider data has been through JSON.
func stored(t *testing.T, r *model.Response) model.Message {
	t.Helper()
	msg := model.Message{Role: model.RoleAssistant, Content: r.Content, ToolCalls: r.ToolCalls, ReasoningContent: r.ReasoningContent, ProviderData: r.ProviderData}
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

var weather = []model.ToolDefinition{{Name: "get_weather", Description: "Weather in a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}

// Stateless (store=false) reasoning: the summary arrives as reasoning
// content; the reasoning item, asked for with its encrypted content,
// rides in the assistant's provider data and goes back, before the
// function call it led to, on the next turn, which the fake refuses
// without it.
func TestEncryptedReasoningRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := newFakeAPI(t, testKey,
			reply{resp: response{reasoning: []string{"The user wants ", "the weather."}, calls: []call{{id: "fc_1", callID: "call_1", name: "get_weather", args: `{"city":"Paris"}`}}, input: 40, output: 60, reasoningTokens: 32, cached: 16}},
			reply{resp: response{reasoning: []string{"It is sunny."}, text: []string{"Sunny in ", "Paris."}, input: 90, output: 20}},
		)
		no := false
		m := newModel(t, f, "gpt-5.4-mini", &openairesponses.Options{Store: &no, ReasoningSummary: "auto"})
		history := []model.Message{{Role: model.RoleSystem, Content: "Be brief."}, {Role: model.RoleUser, Content: "Weather in Paris?"}}
		r1, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: history, Tools: weather, ReasoningEffort: "high", Stream: stream}))
		if err != nil {
			t.Fatalf("stream=%v: turn 1: %v", stream, err)
		}
		if r1.ReasoningContent != "The user wants the weather." {
			t.Errorf("stream=%v: reasoning = %q", stream, r1.ReasoningContent)
		}
		if len(r1.ToolCalls) != 1 || r1.ToolCalls[0].ID != "call_1" || r1.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || r1.FinishReason != "tool_calls" {
			t.Errorf("stream=%v: calls = %+v, finish %q", stream, r1.ToolCalls, r1.FinishReason)
		}
		if u := r1.Usage; u.InputTokens != 40 || u.OutputTokens != 60 || u.TotalTokens != 100 || u.ReasoningTokens != 32 || u.CacheReadTokens != 16 {
			t.Errorf("stream=%v: usage = %+v", stream, u)
		}
		b1 := f.body(0)
		if b1["store"] != false || !reflect.DeepEqual(b1["include"], []any{"reasoning.encrypted_content"}) || b1["previous_response_id"] != nil {
			t.Errorf("stream=%v: turn 1 store %v include %v previous_response_id %v; want false, [reasoning.encrypted_content], none", stream, b1["store"], b1["include"], b1["previous_response_id"])
		}
		if got, want := b1["reasoning"], mustJSON(t, `{"effort":"high","summary":"auto"}`); !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v: reasoning param = %v, want %v", stream, got, want)
		}
		if got := b1["input"].([]any)[0]; !reflect.DeepEqual(got, mustJSON(t, `{"role":"developer","content":"Be brief."}`)) {
			t.Errorf("stream=%v: system message sent as %v, want the developer role", stream, got)
		}

		history = append(history, stored(t, r1), model.Message{Role: model.RoleTool, ToolCallID: "call_1", Content: "sunny, 21°C"})
		r2, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: history, Tools: weather, Stream: stream}))
		if err != nil {
			t.Fatalf("stream=%v: turn 2: %v", stream, err)
		}
		if r2.Content != "Sunny in Paris." || r2.ReasoningContent != "It is sunny." {
			t.Errorf("stream=%v: turn 2 = %q / %q", stream, r2.Content, r2.ReasoningContent)
		}
		want := mustJSON(t, `[
			{"role":"developer","content":"Be brief."},
			{"role":"user","content":"Weather in Paris?"},
			{"type":"reasoning","id":"rs_resp_0001","summary":[{"type":"summary_text","text":"The user wants the weather."}],"encrypted_content":"gAAAAB-encrypted-resp_0001"},
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},
			{"type":"function_call_output","call_id":"call_1","output":"sunny, 21°C"}]`)
		if got := f.body(1)["input"]; !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v: turn 2 input =\n%s\nwant\n%s", stream, js(got), js(want))
		}
		if pd := r2.ProviderData["reasoning_output"].(map[string]any); pd["encrypted_content"] != "gAAAAB-encrypted-resp_0002" {
			t.Errorf("stream=%v: turn 2 reasoning_output = %v", stream, pd)
		}
	}
}

func js(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// A reasoning model with store left unset continues each turn from the
// last by previous_response_id, sending only what came after it (agno's
// chaining); the fake answers only if that id is a response it stored
// and the output answers one of its calls. Other models send the whole
// history and no store.
func TestPreviousResponseID(t *testing.T) {
	f := newFakeAPI(t, testKey,
		reply{resp: response{calls: []call{{id: "fc_7", callID: "call_7", name: "get_weather", args: `{"city":"Oslo"}`}}, input: 10, output: 5}},
		reply{resp: response{text: []string{"Cold."}, input: 30, output: 2}},
	)
	m := newModel(t, f, "gpt-5.4", nil)
	history := []model.Message{{Role: model.RoleSystem, Content: "Be brief."}, {Role: model.RoleUser, Content: "Weather in Oslo?"}}
	r1, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: history, Tools: weather}))
	if err != nil {
		t.Fatal(err)
	}
	if r1.ProviderData["response_id"] != "resp_0001" {
		t.Fatalf("provider data = %v, want response_id resp_0001", r1.ProviderData)
	}
	if b := f.body(0); b["store"] != true || b["include"] != nil {
		t.Errorf("turn 1: store %v include %v; want store true and no include", b["store"], b["include"])
	}
	history = append(history, stored(t, r1), model.Message{Role: model.RoleTool, ToolCallID: "call_7", Content: "-3°C"})
	r2, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: history, Tools: weather, Stream: true}))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Content != "Cold." {
		t.Errorf("turn 2 content = %q", r2.Content)
	}
	b := f.body(1)
	if b["previous_response_id"] != "resp_0001" || b["store"] != true {
		t.Errorf("turn 2: previous_response_id %v store %v", b["previous_response_id"], b["store"])
	}
	if got, want := b["input"], mustJSON(t, `[{"type":"function_call_output","call_id":"call_7","output":"-3°C"}]`); !reflect.DeepEqual(got, want) {
		t.Errorf("turn 2 input = %s, want %s", js(got), js(want))
	}

	// Not a reasoning model: the whole history, statelessly chained by
	// nothing.
	g := newFakeAPI(t, testKey, reply{resp: response{text: []string{"Cold."}}})
	m2 := newModel(t, g, "gpt-4.1", nil)
	if _, err := model.Collect(m2.Generate(ctx(t), &model.Request{Messages: history})); err != nil {
		t.Fatal(err)
	}
	b = g.body(0)
	if _, ok := b["store"]; ok || b["previous_response_id"] != nil {
		t.Errorf("gpt-4.1: store %v previous_response_id %v; want neither", b["store"], b["previous_response_id"])
	}
	if n := len(b["input"].([]any)); n != 4 {
		t.Errorf("gpt-4.1: %d input items, want 4 (developer, user, function_call, function_call_output): %s", n, js(b["input"]))
	}
}

// History with parallel calls, one issued by another provider, becomes
// function_call and function_call_output items; tools go as function
// tools, strict only where set, a list-typed property taking its first
// type as agno sends it.
func TestFunctionCallHistoryShape(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"Done."}}})
	m := newModel(t, f, "gpt-4.1", nil)
	history := []model.Message{
		{Role: model.RoleUser, Content: "Weather and time in Rome?"},
		{Role: model.RoleAssistant, Content: "Checking.", ToolCalls: []model.ToolCall{
			model.NewToolCall("call_a", "get_weather", `{"city":"Rome"}`),
			model.NewToolCall("toolu_01", "get_time", `{"zone":"Europe/Rome"}`),
		}, ProviderData: map[string]any{"response_id": "resp_old", "function_call_ids": map[string]any{"call_a": "fc_a"}}},
		{Role: model.RoleTool, ToolCallID: "call_a", Content: "warm"},
		{Role: model.RoleTool, ToolCallID: "toolu_01", Content: "14:00"},
	}
	tools := []model.ToolDefinition{
		weather[0],
		{Name: "get_time", Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":["string","null"]}},"required":["zone"],"additionalProperties":false}`), Strict: true},
	}
	if _, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: history, Tools: tools, ToolChoice: &model.ToolChoice{Function: "get_time"}})); err != nil {
		t.Fatal(err)
	}
	b := f.body(0)
	wantInput := mustJSON(t, `[
		{"role":"user","content":"Weather and time in Rome?"},
		{"role":"assistant","content":"Checking."},
		{"type":"function_call","id":"fc_a","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Rome\"}","status":"completed"},
		{"type":"function_call","call_id":"call_toolu_01","name":"get_time","arguments":"{\"zone\":\"Europe/Rome\"}","status":"completed"},
		{"type":"function_call_output","call_id":"call_a","output":"warm"},
		{"type":"function_call_output","call_id":"call_toolu_01","output":"14:00"}]`)
	if !reflect.DeepEqual(b["input"], wantInput) {
		t.Errorf("input =\n%s\nwant\n%s", js(b["input"]), js(wantInput))
	}
	wantTools := mustJSON(t, `[
		{"type":"function","name":"get_weather","description":"Weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
		{"type":"function","name":"get_time","strict":true,"parameters":{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"],"additionalProperties":false}}]`)
	if !reflect.DeepEqual(b["tools"], wantTools) {
		t.Errorf("tools =\n%s\nwant\n%s", js(b["tools"]), js(wantTools))
	}
	if got := b["tool_choice"]; !reflect.DeepEqual(got, mustJSON(t, `{"type":"function","name":"get_time"}`)) {
		t.Errorf("tool_choice = %v", got)
	}
}

// Structured output goes as text.format json_schema, strict unless
// strict_output is false, beside verbosity.
func TestStructuredOutputRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	for _, strictOutput := range []*bool{nil, new(bool)} {
		f := newFakeAPI(t, testKey, reply{resp: response{text: []string{`{"city":"Paris"}`}}})
		m := newModel(t, f, "gpt-4.1", &openairesponses.Options{StrictOutput: strictOutput, Verbosity: "low"})
		r, err := model.Collect(m.Generate(ctx(t), &model.Request{
			Messages:       []model.Message{{Role: model.RoleUser, Content: "Capital of France?"}},
			ResponseFormat: &model.ResponseFormat{Type: "json_schema", Name: "Capital", Schema: schema, Strict: true},
		}))
		if err != nil {
			t.Fatal(err)
		}
		if r.Content != `{"city":"Paris"}` {
			t.Errorf("content = %q", r.Content)
		}
		strict := strictOutput == nil
		want := map[string]any{
			"format":    map[string]any{"type": "json_schema", "name": "Capital", "strict": strict, "schema": asJSON(t, schema)},
			"verbosity": "low",
		}
		if got := f.body(0)["text"]; !reflect.DeepEqual(got, want) {
			t.Errorf("strict_output %v: text = %s, want %s", strictOutput, js(got), js(want))
		}
	}
}

// A failure inside a 200 stream — response.failed, or an error event —
// ends the call after the deltas that came, with the message, and a
// status from the code that decides whether to retry.
func TestStreamFailures(t *testing.T) {
	started := func(id string) []event {
		return []event{
			{"response.created", map[string]any{"response": response{}.object(id, "gpt-4.1", false, "in_progress")}},
			{"response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []any{}}}},
			{"response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Partial "}},
		}
	}
	for _, tc := range []struct {
		name      string
		last      func(id string) event
		status    int
		retryable bool
		message   string
	}{
		{"response.failed server_error", func(id string) event {
			r := response{}.object(id, "gpt-4.1", false, "failed")
			r["error"] = map[string]any{"code": "server_error", "message": "The model failed to generate a response."}
			return event{"response.failed", map[string]any{"response": r}}
		}, 500, true, "The model failed to generate a response."},
		{"response.failed invalid_prompt", func(id string) event {
			r := response{}.object(id, "gpt-4.1", false, "failed")
			r["error"] = map[string]any{"code": "invalid_prompt", "message": "Invalid prompt: flagged."}
			return event{"response.failed", map[string]any{"response": r}}
		}, 400, false, "Invalid prompt: flagged."},
		{"error rate_limit_exceeded", func(string) event {
			return event{"error", map[string]any{"code": "rate_limit_exceeded", "message": "Rate limit reached.", "param": nil}}
		}, 429, true, "Rate limit reached."},
		{"error context_length_exceeded", func(string) event {
			return event{"error", map[string]any{"code": "context_length_exceeded", "message": "Your input exceeds the context window of this model.", "param": nil}}
		}, 400, false, "exceeds the context window"},
	} {
		f := newFakeAPI(t, testKey, reply{events: func(id string) []event { return append(started(id), tc.last(id)) }})
		m := newModel(t, f, "gpt-4.1", nil)
		var content string
		var err error
		for c, cerr := range m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, Stream: true}) {
			if cerr != nil {
				err = cerr
				break
			}
			if c.FinishReason != "" || c.Usage != nil {
				t.Errorf("%s: a final chunk came: %+v", tc.name, c)
			}
			content += c.Content
		}
		if content != "Partial " {
			t.Errorf("%s: content before the failure = %q", tc.name, content)
		}
		pe, ok := model.AsProviderError(err)
		if !ok {
			t.Fatalf("%s: err = %v (%T), want a *model.ProviderError", tc.name, err, err)
		}
		if pe.StatusCode != tc.status || pe.Retryable() != tc.retryable || !strings.Contains(pe.Message, tc.message) || pe.Provider != "OpenAI" || pe.Model != "gpt-4.1" {
			t.Errorf("%s: error = %+v (retryable %v), want status %d retryable %v message %q", tc.name, pe, pe.Retryable(), tc.status, tc.retryable, tc.message)
		}
		if len(f.received()) != 1 {
			t.Errorf("%s: sent %d times: a stream that began is never resent", tc.name, len(f.received()))
		}
	}

	// A non-streamed response whose status is failed is an error too.
	f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"x"}, status: "failed"}})
	_, err := model.Collect(newModel(t, f, "gpt-4.1", nil).Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
	if _, ok := model.AsProviderError(err); !ok {
		t.Errorf("failed response: err = %v, want a ProviderError", err)
	}
}

// A response cut short by max_output_tokens finishes with "length".
func TestIncomplete(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"Once upon"}, status: "incomplete", input: 3, output: 2}})
		r, err := model.Collect(newModel(t, f, "gpt-4.1", nil).Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "story"}}, Stream: stream}))
		if err != nil {
			t.Fatal(err)
		}
		if r.FinishReason != "length" || r.Content != "Once upon" {
			t.Errorf("stream=%v: finish %q content %q", stream, r.FinishReason, r.Content)
		}
	}
}

// OpenRouter's and Ollama's /v1/responses are reached by base_url, as
// agno's OpenRouterResponses and OllamaResponses are (agno gives them no
// model-string names): the id goes as is, nothing stateful is sent, a
// local Ollama takes no key, and Ollama's reasoning_text deltas (gpt-oss)
// arrive as reasoning. Errors name the endpoint.
func TestOpenRouterAndOllamaByBaseURL(t *testing.T) {
	p, ok := model.LookupProvider(openairesponses.ProviderResponses)
	if !ok {
		t.Fatal("openai-responses is not registered")
	}
	// OpenRouter: https://openrouter.ai/docs/api/reference/responses/overview
	or := newFakeAPI(t, "sk-or-v1-test", reply{resp: response{text: []string{"Hi ", "there."}, input: 4, output: 3}})
	m, err := p.New(model.ProviderSettings{ID: "anthropic/claude-sonnet-4", BaseURL: or.url(), APIKey: "sk-or-v1-test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, Stream: true}))
	if err != nil || r.Content != "Hi there." {
		t.Fatalf("OpenRouter: %q, %v", r.Content, err)
	}
	b := or.body(0)
	if b["model"] != "anthropic/claude-sonnet-4" || b["store"] != nil || b["previous_response_id"] != nil || b["reasoning"] != nil {
		t.Errorf("OpenRouter body = %s", js(b))
	}

	// Ollama: https://docs.ollama.com/api/openai-compatibility (/v1/responses).
	reasoningText := func(id string) []event {
		resp := response{text: []string{"4"}, input: 9, output: 12}
		evs := []event{
			{"response.created", map[string]any{"response": resp.object(id, "gpt-oss:20b", false, "in_progress")}},
			{"response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}}}},
			{"response.reasoning_text.delta", map[string]any{"item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "2+2 "}},
			{"response.reasoning_text.delta", map[string]any{"item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "is 4."}},
			{"response.output_item.done", map[string]any{"output_index": 0, "item": map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}, "content": []any{map[string]any{"type": "reasoning_text", "text": "2+2 is 4."}}}}},
		}
		return append(evs, resp.events(id, "gpt-oss:20b", false)[2:]...)
	}
	ol := newFakeAPI(t, "", reply{events: reasoningText}, reply{status: http.StatusNotFound, errType: "api_error", message: `model "llama9" not found, try pulling it first`})
	m, err = p.New(model.ProviderSettings{ID: "gpt-oss:20b", BaseURL: ol.url()}, nil)
	if err != nil {
		t.Fatalf("Ollama without a key: %v", err)
	}
	r, err = model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "2+2?"}}, Stream: true}))
	if err != nil || r.Content != "4" || r.ReasoningContent != "2+2 is 4." {
		t.Fatalf("Ollama: content %q reasoning %q, %v", r.Content, r.ReasoningContent, err)
	}
	if auth := ol.received()[0].header.Get("Authorization"); auth != "" && auth != "Bearer" && auth != "Bearer " {
		t.Errorf("Ollama got Authorization %q without a key configured", auth)
	}
	_, err = model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "2+2?"}}}))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 404 || !strings.Contains(pe.Error(), ol.srv.URL) || !strings.Contains(pe.Message, "not found") || pe.Retryable() {
		t.Errorf("Ollama 404: %v", err)
	}
}

// Headers, organization and request_params reach the request: the
// table's headers and default_headers on every request, request_params
// in the body (extra_body merged, extra_headers as headers), max_tokens
// as max_output_tokens over the table's max_output_tokens.
func TestHeadersAndRequestParams(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"ok"}}})
	limit := 100
	m, err := openairesponses.NewFromSettings(model.ProviderSettings{
		ID: "gpt-4.1", BaseURL: f.url(), APIKey: testKey, Headers: map[string]string{"X-Tenant": "a", "X-Both": "common"},
	}, &openairesponses.Options{
		Organization: "org-123", DefaultHeaders: map[string]string{"X-Both": "own"}, MaxOutputTokens: &limit,
		Metadata: map[string]string{"team": "x"}, ServiceTier: "flex", Truncation: "auto", ParallelToolCalls: new(bool),
	})
	if err != nil {
		t.Fatal(err)
	}
	maxTokens, temp := 50, 0.2
	req := &model.Request{
		Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}, MaxTokens: &maxTokens, Temperature: &temp, User: "u-1",
		Extra: map[string]any{"prompt_cache_key": "k1", "extra_body": map[string]any{"models": []any{"a", "b"}}, "extra_headers": map[string]any{"X-Call": "1"}},
	}
	if _, err := model.Collect(m.Generate(ctx(t), req)); err != nil {
		t.Fatal(err)
	}
	h := f.received()[0].header
	for k, v := range map[string]string{"X-Tenant": "a", "X-Both": "own", "X-Call": "1", "OpenAI-Organization": "org-123"} {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	b := f.body(0)
	want := map[string]any{"max_output_tokens": 50.0, "temperature": 0.2, "user": "u-1", "prompt_cache_key": "k1", "models": []any{"a", "b"},
		"metadata": map[string]any{"team": "x"}, "service_tier": "flex", "truncation": "auto", "parallel_tool_calls": false}
	for k, v := range want {
		if !reflect.DeepEqual(b[k], v) {
			t.Errorf("body %s = %v, want %v", k, b[k], v)
		}
	}
	if _, ok := b["extra_body"]; ok {
		t.Errorf("extra_body sent as a field: %s", js(b))
	}
}

// Images and files go as input_image and input_file parts.
func TestImagesAndFilesIn(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"ok"}}})
	m := newModel(t, f, "gpt-4.1", nil)
	msg := model.Message{Role: model.RoleUser, Content: "Read these.",
		Images: []model.Image{{URL: "https://example.com/a.png", Detail: "high"}},
		Files:  []model.File{{Filename: "report.pdf", Content: []byte("%PDF-1.4 x")}, {ID: "file-abc"}, {Filename: "notes.txt", MimeType: "text/plain", Content: []byte("hello")}},
	}
	if _, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{msg}})); err != nil {
		t.Fatal(err)
	}
	want := mustJSON(t, `[{"role":"user","content":[
		{"type":"input_text","text":"Read these."},
		{"type":"input_image","image_url":"https://example.com/a.png","detail":"high"},
		{"type":"input_file","filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQgeA=="},
		{"type":"input_file","file_id":"file-abc"},
		{"type":"input_file","filename":"notes.txt","file_data":"data:text/plain;base64,aGVsbG8="}]}]`)
	if got := f.body(0)["input"]; !reflect.DeepEqual(got, want) {
		t.Errorf("input =\n%s\nwant\n%s", js(got), js(want))
	}
}

// Options are checked when the model is built, each error naming the
// key and what it takes; api.openai.com needs a key.
func TestOptionsValidation(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		o    openairesponses.Options
		want string
	}{
		{openairesponses.Options{ReasoningSummary: "short"}, `reasoning_summary = "short": use one of auto, concise, detailed`},
		{openairesponses.Options{Verbosity: "loud"}, "verbosity"},
		{openairesponses.Options{Truncation: "yes"}, "truncation"},
		{openairesponses.Options{ServiceTier: "gold"}, "service_tier"},
		{openairesponses.Options{MaxOutputTokens: &zero}, "max_output_tokens = 0"},
		{openairesponses.Options{MaxToolCalls: &zero}, "max_tool_calls = 0"},
		{openairesponses.Options{Include: []string{"reasoning.encrypted"}}, `include[0] = "reasoning.encrypted": use one of`},
		{openairesponses.Options{Metadata: map[string]string{strings.Repeat("k", 65): "v"}}, "metadata key"},
	} {
		_, err := openairesponses.NewFromSettings(model.ProviderSettings{APIKey: "k"}, &tc.o)
		if !errors.Is(err, openairesponses.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want one containing %q", tc.o, err, tc.want)
		}
	}
	_, err := openairesponses.NewFromSettings(model.ProviderSettings{}, nil)
	if !errors.Is(err, openairesponses.ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("no key: err = %v", err)
	}
	if _, err := openairesponses.NewFromSettings(model.ProviderSettings{BaseURL: "localhost:11434"}, nil); !errors.Is(err, openairesponses.ErrInvalidConfig) || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("bad base_url: err = %v", err)
	}
	m, err := openairesponses.NewFromSettings(model.ProviderSettings{APIKey: "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info(); got.ID != "gpt-5.4-mini" || got.Provider != "OpenAI" || got.Name != "OpenAIResponses" || !got.NativeStructuredOutputs {
		t.Errorf("Info = %+v", got)
	}
}

// A [models.<key>] table of provider "openai-responses" decodes its own
// keys strictly into Options: a misspelt key is refused by name.
func TestConfigTable(t *testing.T) {
	cfg, err := config.Parse("agno.toml", []byte(`
[models.thinker]
provider = "openai-responses"
model = "gpt-5.4"
store = false
reasoning_summary = "detailed"
include = ["message.output_text.logprobs"]
max_output_tokens = 2000
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	o, ok := cfg.Models["thinker"].Options.(*openairesponses.Options)
	if !ok {
		t.Fatalf("options are %T", cfg.Models["thinker"].Options)
	}
	if o.Store == nil || *o.Store || o.ReasoningSummary != "detailed" || o.MaxOutputTokens == nil || *o.MaxOutputTokens != 2000 || len(o.Include) != 1 {
		t.Errorf("options = %+v", o)
	}
	_, err = config.Parse("agno.toml", []byte("[models.x]\nprovider = \"openai-responses\"\nreasoning_sumary = \"auto\"\n"))
	if err == nil || !strings.Contains(err.Error(), "reasoning_sumary") {
		t.Errorf("misspelt key: err = %v", err)
	}
}

// Error bodies that are not OpenAI's (a gateway's page, a string error)
// still give the status and the text, classified by status.
func TestForeignErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		status    int
		body      string
		message   string
		retryable bool
	}{
		{http.StatusBadGateway, "<html><body>502 Bad Gateway</body></html>", "502 Bad Gateway", true},
		{http.StatusBadRequest, `{"error":"model is required"}`, "model is required", false},
		{http.StatusUnprocessableEntity, `{"detail":"input: field required"}`, "input: field required", false},
	} {
		f := newFakeAPI(t, testKey, reply{status: tc.status, rawBody: tc.body})
		_, err := model.Collect(newModel(t, f, "gpt-4.1", nil).Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
		pe, ok := model.AsProviderError(err)
		if !ok || pe.StatusCode != tc.status || !strings.Contains(pe.Message, tc.message) || pe.Retryable() != tc.retryable {
			t.Errorf("%d %s: err = %#v", tc.status, tc.body, err)
		}
	}
}

// Spec registers the same model under another name: what pointing
// "openai" at the Responses API (agno's meaning of it) takes.
func TestSpecUnderAnotherName(t *testing.T) {
	model.RegisterProvider(openairesponses.Spec("openai-responses-spec-test"))
	p, ok := model.LookupProvider("openai-responses-spec-test")
	if !ok || p.KeyEnv != "OPENAI_API_KEY" || p.DefaultModel != "gpt-5.4-mini" {
		t.Fatalf("registered %+v, %v", p, ok)
	}
	f := newFakeAPI(t, testKey, reply{resp: response{text: []string{"ok"}}})
	m, err := p.New(model.ProviderSettings{BaseURL: f.url(), APIKey: testKey}, &openairesponses.Options{ReasoningSummary: "concise"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})); err != nil || r.Content != "ok" {
		t.Fatalf("%v %v", r, err)
	}
	if got := f.body(0)["reasoning"]; !reflect.DeepEqual(got, map[string]any{"summary": "concise"}) {
		t.Errorf("reasoning = %v", got)
	}
}
