package geminiinteractions_test

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

	"github.com/agno-go/agno/model"
	gi "github.com/agno-go/agno/model/geminiinteractions"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// Goroutines the tests start (servers, streams) must all end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newModel(t *testing.T, f *fakeAPI, cfg gi.Config) *gi.Model {
	t.Helper()
	cfg.BaseURL, cfg.APIKey = f.URL(), providertest.APIKey
	m, err := gi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func generate(t *testing.T, m *gi.Model, req *model.Request) *model.Response {
	t.Helper()
	r, err := model.Collect(m.Generate(context.Background(), req))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return r
}

// stepTypes lists the input step types of a request body.
func stepTypes(body map[string]any) []string {
	var out []string
	in, _ := body["input"].([]any)
	for _, s := range in {
		out = append(out, s.(map[string]any)["type"].(string))
	}
	return out
}

// The server keeps the conversation: each answer's interaction id goes
// into ProviderData, and the next turn sends it as previous_interaction_id
// with only the messages after that answer (agno's
// _find_previous_interaction). The fake refuses an id it did not create.
func TestMultiTurnPreviousInteraction(t *testing.T) {
	calls := []providertest.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "get_time", Arguments: `{"zone":"Europe/Paris"}`},
	}
	f := newFakeAPI(t,
		providertest.Turn{Reasoning: []string{"Need both."}, ToolCalls: calls, InputTokens: 10, OutputTokens: 5},
		providertest.Turn{Reasoning: []string{"Now ", "answer."}, Text: []string{"Sunny, ", "noon."}, InputTokens: 20, OutputTokens: 6},
		providertest.Turn{Text: []string{"You're welcome."}, InputTokens: 30, OutputTokens: 3},
	)
	m := newModel(t, f, gi.Config{ID: "gemini-3-flash-preview"})
	tools := []model.ToolDefinition{
		{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "get_time", Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}}}`)},
	}
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "Be brief."},
		{Role: model.RoleUser, Content: "Weather and time in Paris?"},
	}

	// Turn 1, unary: two calls, the interaction id and thought signature.
	r1 := generate(t, m, &model.Request{Messages: msgs, Tools: tools})
	id1, _ := r1.ProviderData[gi.InteractionIDKey].(string)
	if id1 == "" || r1.ProviderData["thought_signature"] == nil {
		t.Fatalf("ProviderData = %v: want interaction_id and thought_signature", r1.ProviderData)
	}
	if len(r1.ToolCalls) != 2 || r1.ReasoningContent != "Need both." || r1.FinishReason != "tool_calls" {
		t.Fatalf("turn 1 = %+v", r1)
	}
	b := f.body(0)
	if b["previous_interaction_id"] != nil || b["system_instruction"] != "Be brief." {
		t.Errorf("turn 1 body = %v", b)
	}
	if got := stepTypes(b); !reflect.DeepEqual(got, []string{"user_input"}) {
		t.Errorf("turn 1 input steps = %q", got)
	}

	// Turn 2, streamed: only the two tool results follow the interaction.
	msgs = append(msgs, model.Message{Role: model.RoleAssistant, ToolCalls: r1.ToolCalls, ProviderData: r1.ProviderData},
		model.Message{Role: model.RoleTool, ToolCallID: "call_1", ToolName: "get_weather", Content: "sunny"},
		model.Message{Role: model.RoleTool, ToolCallID: "call_2", ToolName: "get_time", Content: "12:00", ToolCallError: true},
	)
	r2 := generate(t, m, &model.Request{Messages: msgs, Tools: tools, Stream: true})
	b = f.body(1)
	if b["previous_interaction_id"] != id1 {
		t.Errorf("turn 2 previous_interaction_id = %v, want %q", b["previous_interaction_id"], id1)
	}
	if got := stepTypes(b); !reflect.DeepEqual(got, []string{"function_result", "function_result"}) {
		t.Fatalf("turn 2 input steps = %q, want the two results only", got)
	}
	res := b["input"].([]any)[1].(map[string]any)
	if res["call_id"] != "call_2" || res["name"] != "get_time" || res["result"] != "12:00" || res["is_error"] != true {
		t.Errorf("turn 2 second result = %v", res)
	}
	id2, _ := r2.ProviderData[gi.InteractionIDKey].(string)
	if id2 == "" || id2 == id1 || r2.Content != "Sunny, noon." || r2.ReasoningContent != "Now answer." {
		t.Fatalf("turn 2 = %+v", r2)
	}
	if r2.ProviderData["thought_signature"] != "sig-"+id2 {
		t.Errorf("turn 2 thought_signature = %v", r2.ProviderData["thought_signature"])
	}
	if r2.Usage.InputTokens != 20 || r2.Usage.OutputTokens != 6 {
		t.Errorf("turn 2 usage = %+v", r2.Usage)
	}

	// Turn 3: the latest assistant answer is the boundary.
	msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: r2.Content, ProviderData: r2.ProviderData},
		model.Message{Role: model.RoleUser, Content: "Thanks!"})
	if r3 := generate(t, m, &model.Request{Messages: msgs}); r3.Content != "You're welcome." {
		t.Errorf("turn 3 = %+v", r3)
	}
	b = f.body(2)
	if b["previous_interaction_id"] != id2 || !reflect.DeepEqual(stepTypes(b), []string{"user_input"}) {
		t.Errorf("turn 3 sent previous %v and steps %q", b["previous_interaction_id"], stepTypes(b))
	}
}

// With store = false nothing is kept on the server: the whole history is
// sent, without previous_interaction_id, and the request says store false.
func TestStoreFalseSendsHistory(t *testing.T) {
	f := newFakeAPI(t, providertest.Turn{Text: []string{"ok"}, InputTokens: 1, OutputTokens: 1})
	off := false
	m := newModel(t, f, gi.Config{Store: &off})
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "Weather?"},
		{Role: model.RoleAssistant, Content: "Checking.", ToolCalls: []model.ToolCall{model.NewToolCall("c1", "get_weather", `{"city":"Oslo"}`)},
			ProviderData: map[string]any{gi.InteractionIDKey: "v1_unknown"}},
		{Role: model.RoleTool, ToolCallID: "c1", ToolName: "get_weather", Content: "rain"},
	}
	generate(t, m, &model.Request{Messages: msgs})
	b := f.body(0)
	if b["store"] != false || b["previous_interaction_id"] != nil {
		t.Errorf("store %v, previous_interaction_id %v: want false and none", b["store"], b["previous_interaction_id"])
	}
	if got := stepTypes(b); !reflect.DeepEqual(got, []string{"user_input", "model_output", "function_call", "function_result"}) {
		t.Fatalf("input steps = %q", got)
	}
	call := b["input"].([]any)[2].(map[string]any)
	if call["id"] != "c1" || call["name"] != "get_weather" || !reflect.DeepEqual(call["arguments"], map[string]any{"city": "Oslo"}) {
		t.Errorf("function_call step = %v", call)
	}
}

// agno's keys reach the wire where agno puts them.
func TestOptionsOnTheWire(t *testing.T) {
	f := newFakeAPI(t, providertest.Turn{Text: []string{"ok"}, InputTokens: 1, OutputTokens: 1})
	m := newModel(t, f, gi.Config{ThinkingLevel: "High", Search: true, URLContext: true, CodeExecution: true, ServiceTier: "flex"})
	temp, maxTok, seed := 0.2, 64, int64(7)
	generate(t, m, &model.Request{
		Messages:    []model.Message{{Role: model.RoleUser, Content: "hi"}},
		Temperature: &temp, MaxTokens: &maxTok, Seed: &seed, Stop: []string{"END"},
		Extra: map[string]any{"thinking_summaries": "auto"},
	})
	b := f.body(0)
	gc, _ := b["generation_config"].(map[string]any)
	want := map[string]any{"thinking_level": "high", "temperature": 0.2, "max_output_tokens": 64.0, "seed": 7.0,
		"stop_sequences": []any{"END"}, "thinking_summaries": "auto"}
	for k, v := range want {
		got := gc[k]
		if f, ok := got.(float64); ok && k == "temperature" {
			got = float64(float32(f)) // sent as a float32
			v = float64(float32(v.(float64)))
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("generation_config.%s = %v, want %v", k, gc[k], v)
		}
	}
	var types []string
	for _, tool := range b["tools"].([]any) {
		types = append(types, tool.(map[string]any)["type"].(string))
	}
	if !reflect.DeepEqual(types, []string{"google_search", "url_context", "code_execution"}) {
		t.Errorf("tools = %q", types)
	}
	if b["service_tier"] != "flex" || b["store"] != nil {
		t.Errorf("service_tier %v, store %v", b["service_tier"], b["store"])
	}
}

func TestOptionValidation(t *testing.T) {
	t.Setenv(gi.DefaultAPIKeyEnv, "")
	for _, tc := range []struct {
		cfg  gi.Config
		want string
	}{
		{gi.Config{APIKey: "k", ThinkingLevel: "extreme"}, "thinking_level"},
		{gi.Config{APIKey: "k", ServiceTier: "gold"}, "service_tier"},
		{gi.Config{}, gi.DefaultAPIKeyEnv},
	} {
		_, err := gi.New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	if _, err := gi.New(gi.Config{}); !errors.Is(err, gi.ErrMissingAPIKey) {
		t.Errorf("no key: %v, want ErrMissingAPIKey", err)
	}
	t.Setenv(gi.DefaultAPIKeyEnv, "from-env")
	m, err := gi.New(gi.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if info := m.Info(); info.ID != gi.DefaultID || info.Provider != "Google" || info.Name != "GeminiInteractions" {
		t.Errorf("Info() = %+v", info)
	}
}

// Bad input is refused before anything is sent, naming the field.
func TestInvalidRequests(t *testing.T) {
	f := newFakeAPI(t, providertest.Turn{Text: []string{"ok"}})
	m := newModel(t, f, gi.Config{})
	for _, tc := range []struct {
		req  *model.Request
		want string
	}{
		{&model.Request{Messages: []model.Message{{Role: model.RoleTool, Content: "x"}}}, "tool_call_id"},
		{&model.Request{Messages: []model.Message{{Role: "robot", Content: "x"}}}, `role "robot"`},
		{&model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "x"}},
			Tools: []model.ToolDefinition{{Name: "t", Parameters: json.RawMessage(`[1]`)}}}, "tools[0]"},
		{&model.Request{Messages: []model.Message{{Role: model.RoleAssistant, ProviderData: map[string]any{gi.InteractionIDKey: "v1_x"}}}}, "no user message"},
		{&model.Request{Messages: []model.Message{{Role: model.RoleUser, Files: []model.File{{Filename: "empty.pdf"}}}}}, "files[0]"},
	} {
		_, err := model.Collect(m.Generate(context.Background(), tc.req))
		if !errors.Is(err, gi.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want ErrInvalidRequest naming %s", err, tc.want)
		}
	}
	if n := len(f.received()); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}

// An over-long input is a context overflow, not retried; a previous
// interaction the server does not know is its 404.
func TestErrorClassification(t *testing.T) {
	f := newFakeAPI(t, providertest.Turn{Status: http.StatusBadRequest,
		ErrorMessage: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."})
	m := newModel(t, f, gi.Config{})
	_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "long"}}}))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 400 || !pe.ContextOverflow || pe.Retryable() {
		t.Errorf("err = %#v, want a 400 context overflow", err)
	}
	_, err = model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{
		{Role: model.RoleAssistant, Content: "hi", ProviderData: map[string]any{gi.InteractionIDKey: "v1_gone"}},
		{Role: model.RoleUser, Content: "again"},
	}}))
	if pe, ok := model.AsProviderError(err); !ok || pe.StatusCode != 404 || !strings.Contains(pe.Message, "v1_gone") {
		t.Errorf("err = %v, want the 404 naming the interaction", err)
	}
}

// Google's RetryInfo delay is waited out between retries and reported as
// the error's RetryAfter, as the google provider does.
func TestRetryInfoDelay(t *testing.T) {
	const delay = 150 * time.Millisecond
	f := newFakeAPI(t, providertest.Turn{Status: http.StatusTooManyRequests, ErrorMessage: "Resource has been exhausted", RetryAfter: delay})
	m := newModel(t, f, gi.Config{MaxRetries: 1})
	start := time.Now()
	_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
	pe, ok := model.AsProviderError(err)
	if !ok || !pe.RateLimited() || pe.RetryAfter != delay {
		t.Fatalf("err = %#v, want a 429 with RetryAfter %v", err, delay)
	}
	if n, took := len(f.received()), time.Since(start); n != 2 || took < delay {
		t.Errorf("sent %d times in %v, want 2 with a wait of %v between", n, took, delay)
	}
}

// A file goes as a document item, application/pdf unless it says
// otherwise, as agno's media_to_content_item sends it.
func TestFileAsDocument(t *testing.T) {
	f := newFakeAPI(t, providertest.Turn{Text: []string{"A report."}, InputTokens: 1, OutputTokens: 1})
	m := newModel(t, f, gi.Config{})
	generate(t, m, &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "Summarise.",
		Files: []model.File{{Content: []byte("%PDF-1.7")}, {Content: []byte("a,b"), MimeType: "text/csv"}}}}})
	content := f.body(0)["input"].([]any)[0].(map[string]any)["content"].([]any)
	if len(content) != 3 {
		t.Fatalf("content = %v, want text and two documents", content)
	}
	for i, want := range []map[string]any{
		{"type": "document", "mime_type": "application/pdf", "data": "JVBERi0xLjc="},
		{"type": "document", "mime_type": "text/csv", "data": "YSxi"},
	} {
		if got := content[i+1]; !reflect.DeepEqual(got, want) {
			t.Errorf("content[%d] = %v, want %v", i+1, got, want)
		}
	}
}
