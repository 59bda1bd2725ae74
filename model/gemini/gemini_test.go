package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/auth"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/gemini"
)

const testKey = "AIza-test-key"

func newModel(t *testing.T, f *fakeAPI, cfg gemini.Config) *gemini.Model {
	t.Helper()
	t.Setenv(gemini.EnvUseVertexAI, "")
	cfg.BaseURL = f.srv.URL
	if cfg.APIKey == "" && !cfg.VertexAI {
		cfg.APIKey = testKey
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = -1
	}
	m, err := gemini.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func collect(t *testing.T, m model.Model, req *model.Request) *model.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := model.Collect(m.Generate(ctx, req))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return r
}

func user(text string) []model.Message {
	return []model.Message{{Role: model.RoleUser, Content: text}}
}

// get walks a decoded JSON body by keys and indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

type staticToken struct{ token string }

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: s.token, Type: "Bearer"}, nil
}

// Vertex AI with a project and location sends to the project's publisher
// model path with the credentials' bearer token, and no API key.
func TestVertexAIProjectPathAndToken(t *testing.T) {
	f := newFakeAPI(t, "", reply{body: response([]map[string]any{textPart("hi from vertex", false, "")}, "STOP", usageOf(3, 4, 0, 0))})
	f.token = "ya29.static-token"
	t.Setenv("GOOGLE_API_KEY", "AIza-from-env-must-not-be-sent")
	m := newModel(t, f, gemini.Config{
		ID: "gemini-2.5-pro", VertexAI: true, ProjectID: "my-proj", Location: "europe-west4",
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken{"ya29.static-token"}}),
	})
	r := collect(t, m, &model.Request{Messages: user("hello")})
	if r.Content != "hi from vertex" {
		t.Fatalf("content = %q", r.Content)
	}
	rec := f.received()[0]
	if want := "/v1beta1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent"; rec.path != want {
		t.Errorf("path = %s, want %s", rec.path, want)
	}
	if k := rec.header.Get("x-goog-api-key"); k != "" {
		t.Errorf("x-goog-api-key %q sent to Vertex AI with credentials", k)
	}
	if got := rec.header.Get("Authorization"); got != "Bearer ya29.static-token" {
		t.Errorf("Authorization = %q", got)
	}
}

// The project and location come from agno's environment variables, and
// GOOGLE_GENAI_USE_VERTEXAI=true selects Vertex AI, as agno reads them.
func TestVertexAIFromEnvironment(t *testing.T) {
	f := newFakeAPI(t, "", reply{events: []string{response([]map[string]any{textPart("streamed", false, "")}, "STOP", usageOf(1, 1, 0, 0))}})
	f.token = "tok"
	t.Setenv(gemini.EnvUseVertexAI, "true")
	t.Setenv(gemini.EnvProject, "env-proj")
	t.Setenv(gemini.EnvLocation, "us-central1")
	m2, err := gemini.New(gemini.Config{
		ID: "gemini-2.5-flash", BaseURL: f.srv.URL, MaxRetries: -1,
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken{"tok"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := collect(t, m2, &model.Request{Messages: user("hi"), Stream: true})
	if r.Content != "streamed" {
		t.Fatalf("content = %q", r.Content)
	}
	rec := f.received()[0]
	if want := "/v1beta1/projects/env-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"; rec.path != want || rec.query != "alt=sse" {
		t.Errorf("path = %s?%s, want %s?alt=sse", rec.path, rec.query, want)
	}
}

// Vertex AI express mode (no project) uses the API key on the
// publisher path without a project.
func TestVertexAIExpressPath(t *testing.T) {
	t.Setenv(gemini.EnvProject, "")
	t.Setenv(gemini.EnvLocation, "")
	f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart("ok", false, "")}, "STOP", usageOf(1, 1, 0, 0))})
	m := newModel(t, f, gemini.Config{ID: "gemini-2.5-flash", VertexAI: true, APIKey: testKey})
	collect(t, m, &model.Request{Messages: user("hi")})
	if got, want := f.received()[0].path, "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
}

func TestNewErrors(t *testing.T) {
	t.Setenv(gemini.EnvUseVertexAI, "")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv(gemini.EnvProject, "")
	budget, big := -5, 0
	for _, tc := range []struct {
		cfg  gemini.Config
		want string
	}{
		{gemini.Config{}, "GOOGLE_API_KEY"},
		{gemini.Config{VertexAI: true}, "project_id"},
		{gemini.Config{APIKey: "k", ThinkingBudget: &budget}, "thinking_budget"},
		{gemini.Config{APIKey: "k", ThinkingLevel: "extreme"}, "thinking_level"},
		{gemini.Config{APIKey: "k", TopK: &big}, "top_k"},
		{gemini.Config{APIKey: "k", SafetySettings: []gemini.SafetySetting{{Category: "HARM_CATEGORY_HATE_SPEECH"}}}, "safety_settings[0]"},
	} {
		_, err := gemini.New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	if _, err := gemini.New(gemini.Config{}); !errors.Is(err, gemini.ErrMissingAPIKey) {
		t.Errorf("no key: %v, want ErrMissingAPIKey", err)
	}
}

// The request carries the system instruction, the sampling parameters
// in generationConfig, the model's thinking and safety keys, the tools,
// the tool choice, request_params merged into the config, and headers.
func TestRequestShape(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart("ok", false, "")}, "STOP", usageOf(1, 1, 0, 0))})
	budget, topK := 1024, 40
	include := true
	m := newModel(t, f, gemini.Config{
		ID: "gemini-2.5-flash", ThinkingBudget: &budget, IncludeThoughts: &include, TopK: &topK,
		SafetySettings: []gemini.SafetySetting{{Category: "HARM_CATEGORY_HATE_SPEECH", Threshold: "BLOCK_ONLY_HIGH"}},
		Headers:        map[string]string{"X-Tenant": "acme"},
	})
	temp, topP, seed, fp, pp, maxTok := 0.3, 0.9, int64(7), 0.5, 0.25, 256
	collect(t, m, &model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "Be terse."},
			{Role: model.RoleUser, Content: "hi"},
		},
		Temperature: &temp, TopP: &topP, Seed: &seed, FrequencyPenalty: &fp, PresencePenalty: &pp, MaxTokens: &maxTok,
		Stop:       []string{"END"},
		Tools:      []model.ToolDefinition{{Name: "lookup", Description: "Look up.", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}},
		ToolChoice: &model.ToolChoice{Function: "lookup"},
		Extra: map[string]any{
			"response_modalities": []any{"TEXT"},
			"generation_config":   map[string]any{"candidate_count": 1},
			// Merged into the model's thinking config, key by key.
			"thinking_config": map[string]any{"thinking_level": "HIGH"},
		},
	})
	body := f.body(0)
	if got := get(body, "systemInstruction", "parts", 0, "text"); got != "Be terse." {
		t.Errorf("systemInstruction = %v", get(body, "systemInstruction"))
	}
	gc, _ := body["generationConfig"].(map[string]any)
	want := map[string]any{
		"temperature": 0.3, "topP": 0.9, "seed": 7.0, "frequencyPenalty": 0.5, "presencePenalty": 0.25,
		"maxOutputTokens": 256.0, "stopSequences": []any{"END"}, "topK": 40.0,
		"thinkingConfig":     map[string]any{"thinkingBudget": 1024.0, "includeThoughts": true, "thinkingLevel": "HIGH"},
		"responseModalities": []any{"TEXT"}, "candidateCount": 1.0,
	}
	for k, w := range want {
		g := gc[k]
		if gf, ok := g.(float64); ok {
			// float32 on the wire: compare loosely.
			if wf, ok := w.(float64); !ok || gf-wf > 1e-6 || wf-gf > 1e-6 {
				t.Errorf("generationConfig.%s = %v, want %v", k, g, w)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("generationConfig.%s = %#v, want %#v", k, g, w)
		}
	}
	if got := get(body, "safetySettings", 0); !reflect.DeepEqual(got, map[string]any{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_ONLY_HIGH"}) {
		t.Errorf("safetySettings = %v", body["safetySettings"])
	}
	if got := get(body, "tools", 0, "functionDeclarations", 0, "parametersJsonSchema", "properties", "q", "type"); got != "string" {
		t.Errorf("tools = %v", body["tools"])
	}
	if got := get(body, "toolConfig", "functionCallingConfig"); !reflect.DeepEqual(got, map[string]any{"mode": "ANY", "allowedFunctionNames": []any{"lookup"}}) {
		t.Errorf("toolConfig = %v", body["toolConfig"])
	}
	if h := f.received()[0].header.Get("X-Tenant"); h != "acme" {
		t.Errorf("X-Tenant header = %q", h)
	}
}

func TestRequestParamsUnknownKey(t *testing.T) {
	f := newFakeAPI(t, testKey)
	m := newModel(t, f, gemini.Config{})
	_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: user("hi"), Extra: map[string]any{"no_such_field": 1}}))
	if !errors.Is(err, gemini.ErrInvalidRequest) || !strings.Contains(err.Error(), "noSuchField") {
		t.Fatalf("err = %v, want ErrInvalidRequest naming the key", err)
	}
	if n := len(f.received()); n != 0 {
		t.Errorf("sent %d requests", n)
	}
}

// Structured output: json_schema sends responseMimeType application/json
// with the schema verbatim as responseJsonSchema; json_object the MIME
// type alone.
func TestStructuredOutputShape(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart(`{"name":"Ada"}`, false, "")}, "STOP", usageOf(1, 1, 0, 0))})
	m := newModel(t, f, gemini.Config{})
	schema := `{"type":"object","properties":{"name":{"type":"string","description":"snake_case_kept"}},"required":["name"],"additionalProperties":false}`
	r := collect(t, m, &model.Request{Messages: user("who?"), ResponseFormat: &model.ResponseFormat{Type: "json_schema", Name: "person", Schema: json.RawMessage(schema)}})
	if r.Content != `{"name":"Ada"}` {
		t.Errorf("content = %q", r.Content)
	}
	collect(t, m, &model.Request{Messages: user("who?"), ResponseFormat: &model.ResponseFormat{Type: "json_object"}})
	gc := get(f.body(0), "generationConfig").(map[string]any)
	var want any
	_ = json.Unmarshal([]byte(schema), &want)
	if gc["responseMimeType"] != "application/json" || !reflect.DeepEqual(gc["responseJsonSchema"], want) {
		t.Errorf("json_schema config = %v", gc)
	}
	if _, ok := gc["responseSchema"]; ok {
		t.Errorf("responseSchema sent beside responseJsonSchema")
	}
	gc = get(f.body(1), "generationConfig").(map[string]any)
	if gc["responseMimeType"] != "application/json" || gc["responseJsonSchema"] != nil {
		t.Errorf("json_object config = %v", gc)
	}
	if !m.Info().NativeStructuredOutputs || !m.Info().JSONMode {
		t.Errorf("Info = %+v", m.Info())
	}
}

// Thought summaries (parts with thought: true) are reasoning, apart from
// the answer, streamed or not; usage counts thoughts as reasoning tokens
// and cached tokens as cache reads.
func TestThinkingSummariesAndUsage(t *testing.T) {
	parts := []map[string]any{textPart("Let me think. ", true, ""), textPart("Done.", true, ""), textPart("42", false, sigA)}
	f := newFakeAPI(t, testKey, reply{
		body: response(parts, "STOP", usageOf(10, 2, 30, 4)),
		events: []string{
			response(parts[:1], "", usageOf(10, 0, 12, 4)),
			response(parts[1:2], "", usageOf(10, 0, 30, 4)),
			response(parts[2:], "STOP", usageOf(10, 2, 30, 4)),
		},
	})
	budget, include := 2048, true
	m := newModel(t, f, gemini.Config{ThinkingBudget: &budget, IncludeThoughts: &include})
	for _, stream := range []bool{false, true} {
		r := collect(t, m, &model.Request{Messages: user("meaning?"), Stream: stream})
		if r.ReasoningContent != "Let me think. Done." || r.Content != "42" {
			t.Errorf("stream=%v: reasoning %q content %q", stream, r.ReasoningContent, r.Content)
		}
		want := model.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12, ReasoningTokens: 30, CacheReadTokens: 4}
		got := r.Usage
		got.TimeToFirstToken = 0
		if got != want {
			t.Errorf("stream=%v: usage %+v, want %+v", stream, got, want)
		}
		if r.ProviderData["thought_signature"] != sigA {
			t.Errorf("stream=%v: provider data %v, want the text's thought signature", stream, r.ProviderData)
		}
	}
	if got := get(f.body(0), "generationConfig", "thinkingConfig"); !reflect.DeepEqual(got, map[string]any{"thinkingBudget": 2048.0, "includeThoughts": true}) {
		t.Errorf("thinkingConfig = %v", got)
	}
}

// reasoning_effort becomes thinkingLevel when the model sets no thinking
// budget or level of its own.
func TestReasoningEffortThinkingLevel(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart("ok", false, "")}, "STOP", usageOf(1, 1, 0, 0))})
	m := newModel(t, f, gemini.Config{})
	collect(t, m, &model.Request{Messages: user("hi"), ReasoningEffort: "low"})
	if got := get(f.body(0), "generationConfig", "thinkingConfig", "thinkingLevel"); got != "LOW" {
		t.Errorf("thinkingLevel = %v", got)
	}
	_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: user("hi"), ReasoningEffort: "max"}))
	if !errors.Is(err, gemini.ErrInvalidRequest) || !strings.Contains(err.Error(), "reasoning_effort") {
		t.Errorf("max effort: %v", err)
	}
}

// A tool loop with a thinking model: the signatures Gemini gave the
// text and the first function call come back on the next turn — after
// the assistant message went through JSON, as a stored run does — and
// the fake, like Gemini 3, refuses a function call without its signature.
// The tool results go back as functionResponse parts with the call's id
// and name, in one user content.
func TestThoughtSignatureRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		turn1 := []map[string]any{
			textPart("Checking.", false, sigB),
			callPart("fc-1", "get_weather", `{"city":"Paris"}`, sigA),
			callPart("fc-2", "get_time", `{"zone":"CET"}`, ""),
		}
		final := []map[string]any{textPart("Sunny, 14:00.", false, "")}
		f := newFakeAPI(t, testKey,
			reply{body: response(turn1, "STOP", usageOf(5, 5, 9, 0)), events: []string{response(turn1, "STOP", usageOf(5, 5, 9, 0))}},
			reply{body: response(final, "STOP", usageOf(9, 4, 0, 0)), events: []string{response(final, "STOP", usageOf(9, 4, 0, 0))}},
		)
		f.requireSignatures = true
		f.issue(sigA)
		m := newModel(t, f, gemini.Config{})
		msgs := user("Weather and time in Paris?")
		r := collect(t, m, &model.Request{Messages: msgs, Stream: stream})
		if r.FinishReason != "tool_calls" || len(r.ToolCalls) != 2 || r.ToolCalls[0].ID != "fc-1" || r.ToolCalls[1].Function.Arguments != `{"zone":"CET"}` {
			t.Fatalf("stream=%v: first turn = %+v", stream, r)
		}
		asst := model.Message{Role: model.RoleAssistant, Content: r.Content, ToolCalls: r.ToolCalls, ProviderData: r.ProviderData}
		b, _ := json.Marshal(asst)
		var stored model.Message
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, stored,
			model.Message{Role: model.RoleTool, ToolCallID: "fc-1", ToolName: "get_weather", Content: "sunny"},
			model.Message{Role: model.RoleTool, ToolCallID: "fc-2", Content: "14:00"},
		)
		r2 := collect(t, m, &model.Request{Messages: msgs, Stream: stream})
		if r2.Content != "Sunny, 14:00." {
			t.Fatalf("stream=%v: second turn = %+v", stream, r2)
		}
		req := readRequest(f.received()[1].body)
		if len(req.Contents) != 3 || req.Contents[1].Role != "model" || req.Contents[2].Role != "user" {
			t.Fatalf("stream=%v: contents = %s", stream, f.received()[1].body)
		}
		mp := req.Contents[1].Parts
		if mp[0].ThoughtSignature != sigB || mp[1].ThoughtSignature != sigA || mp[2].ThoughtSignature != "" || mp[1].FunctionCall.ID != "fc-1" {
			t.Errorf("stream=%v: model parts = %s", stream, f.received()[1].body)
		}
		up := req.Contents[2].Parts
		if len(up) != 2 || up[0].FunctionResponse.ID != "fc-1" || up[0].FunctionResponse.Name != "get_weather" ||
			up[1].FunctionResponse.Name != "get_time" || up[1].FunctionResponse.Response["result"] != "14:00" {
			t.Errorf("stream=%v: tool results = %s", stream, f.received()[1].body)
		}
	}
}

// Without its signature the fake answers as Gemini 3 does; the error
// is a 400 that is not retried.
func TestMissingSignatureRefused(t *testing.T) {
	f := newFakeAPI(t, testKey)
	f.requireSignatures = true
	m := newModel(t, f, gemini.Config{MaxRetries: 2})
	_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Content: "hi"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{model.NewToolCall("fc-9", "f", `{}`)}},
		{Role: model.RoleTool, ToolCallID: "fc-9", ToolName: "f", Content: "x"},
	}}))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 400 || pe.Retryable() || !strings.Contains(pe.Message, "thought_signature") {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.received()); n != 1 {
		t.Errorf("sent %d times", n)
	}
}

// A call without an id gets a local one, which is not sent back.
func TestLocalCallIDsNotSent(t *testing.T) {
	f := newFakeAPI(t, testKey,
		reply{body: response([]map[string]any{callPart("", "f", `{"a":1}`, "")}, "STOP", usageOf(1, 1, 0, 0))},
		reply{body: response([]map[string]any{textPart("done", false, "")}, "STOP", usageOf(1, 1, 0, 0))},
	)
	m := newModel(t, f, gemini.Config{})
	r := collect(t, m, &model.Request{Messages: user("go")})
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].ID == "" {
		t.Fatalf("tool calls = %+v", r.ToolCalls)
	}
	id := r.ToolCalls[0].ID
	collect(t, m, &model.Request{Messages: []model.Message{
		{Role: model.RoleUser, Content: "go"},
		{Role: model.RoleAssistant, ToolCalls: r.ToolCalls},
		{Role: model.RoleTool, ToolCallID: id, Content: "ok"},
	}})
	req := readRequest(f.received()[1].body)
	if fc := req.Contents[1].Parts[0].FunctionCall; fc.ID != "" {
		t.Errorf("local id %q sent as functionCall.id", fc.ID)
	}
	if fr := req.Contents[2].Parts[0].FunctionResponse; fr.ID != "" || fr.Name != "f" {
		t.Errorf("functionResponse = %+v", fr)
	}
}

// Files go inline with their MIME type; images by URL as fileData.
func TestFilesIn(t *testing.T) {
	f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart("read", false, "")}, "STOP", usageOf(1, 1, 0, 0))})
	m := newModel(t, f, gemini.Config{})
	collect(t, m, &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "summarise",
		Files:  []model.File{{Filename: "a.pdf", Content: []byte("%PDF-1.4")}, {Filename: "n.txt", Content: []byte("note"), MimeType: "text/plain"}},
		Images: []model.Image{{URL: "gs://bucket/cat.png"}},
	}}})
	parts := readRequest(f.received()[0].body).Contents[0].Parts
	if len(parts) != 4 || parts[1].FileData == nil || parts[1].FileData.FileURI != "gs://bucket/cat.png" || parts[1].FileData.MimeType != "image/png" ||
		parts[2].InlineData.MimeType != "application/pdf" || parts[3].InlineData.MimeType != "text/plain" {
		t.Errorf("parts = %s", f.received()[0].body)
	}
}

func TestFinishReasons(t *testing.T) {
	for reason, want := range map[string]string{"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter", "MALFORMED_FUNCTION_CALL": "malformed_function_call"} {
		f := newFakeAPI(t, testKey, reply{body: response([]map[string]any{textPart("x", false, "")}, reason, usageOf(1, 1, 0, 0))})
		r := collect(t, newModel(t, f, gemini.Config{}), &model.Request{Messages: user("hi")})
		if r.FinishReason != want {
			t.Errorf("%s → %q, want %q", reason, r.FinishReason, want)
		}
	}
}

// Errors become ProviderErrors classified for retries: 429 and 5xx
// retryable (429's RetryInfo delay as RetryAfter, and waited for by the
// retries), 4xx not; a context overflow is marked; an error event inside
// a 200 stream keeps its code.
func TestErrorClassification(t *testing.T) {
	type tc struct {
		name      string
		r         reply
		stream    bool
		status    int
		retryable bool
		overflow  bool
		after     time.Duration
	}
	for _, c := range []tc{
		{name: "429", r: reply{status: 429, body: errorBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota", "0.02s")}, status: 429, retryable: true, after: 20 * time.Millisecond},
		{name: "500", r: reply{status: 500, body: errorBody(500, "INTERNAL", "An internal error has occurred", "")}, status: 500, retryable: true},
		{name: "503 stream", r: reply{status: 503, body: errorBody(503, "UNAVAILABLE", "The model is overloaded", "")}, stream: true, status: 503, retryable: true},
		{name: "403", r: reply{status: 403, body: errorBody(403, "PERMISSION_DENIED", "Permission denied", "")}, status: 403},
		{name: "404", r: reply{status: 404, body: errorBody(404, "NOT_FOUND", "models/gemini-9 is not found", "")}, status: 404},
		{name: "overflow", r: reply{status: 400, body: errorBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "")}, status: 400, overflow: true},
		{name: "error event", r: reply{events: []string{response([]map[string]any{textPart("par", false, "")}, "", nil), `{"error":{"code":500,"message":"Internal error mid-stream","status":"INTERNAL"}}`}}, stream: true, status: 500, retryable: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeAPI(t, testKey, c.r)
			m := newModel(t, f, gemini.Config{ID: "gemini-2.5-flash", MaxRetries: 1})
			_, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: user("hi"), Stream: c.stream}))
			pe, ok := model.AsProviderError(err)
			if !ok {
				t.Fatalf("err = %v (%T), want *model.ProviderError", err, err)
			}
			if pe.StatusCode != c.status || pe.Retryable() != c.retryable || pe.ContextOverflow != c.overflow || pe.RetryAfter != c.after {
				t.Errorf("ProviderError = %+v", pe)
			}
			if pe.Provider != "Google" || pe.Model != "gemini-2.5-flash" {
				t.Errorf("error names %q %q", pe.Provider, pe.Model)
			}
			sent := len(f.received())
			wantSent := 1
			if c.retryable && c.name != "error event" {
				wantSent = 2
			}
			if sent != wantSent {
				t.Errorf("sent %d times, want %d", sent, wantSent)
			}
		})
	}
}
