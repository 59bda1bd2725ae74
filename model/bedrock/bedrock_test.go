package bedrock_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/bedrock"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newModel builds a model with the test credentials against f.
func newModel(t *testing.T, f *fakeBedrock, mut ...func(*bedrock.Config)) *bedrock.Model {
	t.Helper()
	cfg := bedrock.Config{
		ID: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", BaseURL: f.srv.URL, AwsRegion: testRegion,
		AwsAccessKeyID: testKeyID, AwsSecretAccessKey: testSecret, AwsSessionToken: testSessionTk,
		HTTPClient: f.srv.Client(), MaxRetries: 1,
	}
	for _, fn := range mut {
		fn(&cfg)
	}
	m, err := bedrock.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(f.srv.Client().CloseIdleConnections)
	return m
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wantJSON compares got (a decoded JSON value) with the JSON text want.
func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s on the wire =\n%s\nwant\n%s", what, g, want)
	}
}

var weather = []model.ToolDefinition{
	{Name: "get_weather", Description: "Weather in a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
	{Name: "get_time", Parameters: json.RawMessage(`{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}`)},
}

// A multi-turn request with reasoning, two tool calls and their results
// reaches the wire as Converse content blocks; sampling goes into
// inferenceConfig, request_params into additionalModelRequestFields (or
// Converse's own fields, as agno passes them).
func TestConverseWireFormat(t *testing.T) {
	isolateAWS(t)
	f := newFake(t, "", reply{body: []byte(`{
		"output":{"message":{"role":"assistant","content":[
			{"reasoningContent":{"reasoningText":{"text":"Both answered.","signature":"sig-2"}}},
			{"text":"Sunny in Paris; it is noon."}]}},
		"stopReason":"max_tokens",
		"usage":{"inputTokens":50,"outputTokens":9,"totalTokens":59,"cacheReadInputTokens":40,"cacheWriteInputTokens":7},
		"metrics":{"latencyMs":100}}`)})
	m := newModel(t, f)
	temp, topP, maxTokens := 0.2, 0.9, 512
	req := &model.Request{
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: "Be brief."},
			{Role: model.RoleSystem, Content: "Use tools."},
			{Role: model.RoleUser, Content: "Weather and time in Paris?"},
			{Role: model.RoleAssistant, Content: "Checking both.", ReasoningContent: "Two tools.",
				ProviderData: map[string]any{"signature": "sig-1", "redacted_reasoning_content": []any{base64.StdEncoding.EncodeToString([]byte("opaque"))}},
				ToolCalls: []model.ToolCall{
					model.NewToolCall("tooluse_1", "get_weather", `{"city":"Paris"}`),
					model.NewToolCall("tooluse_2", "get_time", `{"zone":"Europe/Paris"}`),
				}},
			{Role: model.RoleTool, ToolCallID: "tooluse_1", Content: "sunny"},
			{Role: model.RoleTool, ToolCallID: "tooluse_2", Content: "12:00"},
		},
		Tools:       weather,
		ToolChoice:  &model.ToolChoice{Mode: "required"},
		Temperature: &temp, TopP: &topP, MaxTokens: &maxTokens, Stop: []string{"END"},
		Extra: map[string]any{
			"top_k":                        float64(40),
			"additionalModelRequestFields": map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": float64(1024)}},
			"requestMetadata":              map[string]any{"team": "search"},
		},
	}
	r, err := model.Collect(m.Generate(ctxT(t), req))
	if err != nil {
		t.Fatal(err)
	}
	body := f.bodyJSON(0)
	wantJSON(t, "system", body["system"], `[{"text":"Be brief."},{"text":"Use tools."}]`)
	wantJSON(t, "messages", body["messages"], `[
		{"role":"user","content":[{"text":"Weather and time in Paris?"}]},
		{"role":"assistant","content":[
			{"reasoningContent":{"reasoningText":{"text":"Two tools.","signature":"sig-1"}}},
			{"reasoningContent":{"redactedContent":"`+base64.StdEncoding.EncodeToString([]byte("opaque"))+`"}},
			{"text":"Checking both."},
			{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}},
			{"toolUse":{"toolUseId":"tooluse_2","name":"get_time","input":{"zone":"Europe/Paris"}}}]},
		{"role":"user","content":[
			{"toolResult":{"toolUseId":"tooluse_1","content":[{"json":{"result":"sunny"}}]}},
			{"toolResult":{"toolUseId":"tooluse_2","content":[{"json":{"result":"12:00"}}]}}]}]`)
	wantJSON(t, "toolConfig", body["toolConfig"], `{"tools":[
		{"toolSpec":{"name":"get_weather","description":"Weather in a city.","inputSchema":{"json":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}},
		{"toolSpec":{"name":"get_time","inputSchema":{"json":{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}}}}],
		"toolChoice":{"any":{}}}`)
	ic, _ := body["inferenceConfig"].(map[string]any)
	if ic["maxTokens"] != float64(512) || ic["stopSequences"] == nil || ic["temperature"] == nil || ic["topP"] == nil {
		t.Errorf("inferenceConfig = %v", ic)
	}
	wantJSON(t, "additionalModelRequestFields", body["additionalModelRequestFields"], `{"top_k":40,"thinking":{"type":"enabled","budget_tokens":1024}}`)
	wantJSON(t, "requestMetadata", body["requestMetadata"], `{"team":"search"}`)
	if _, ok := body["stream"]; ok {
		t.Error("a Converse body carries stream")
	}

	if r.Content != "Sunny in Paris; it is noon." || r.ReasoningContent != "Both answered." {
		t.Errorf("response = %q / reasoning %q", r.Content, r.ReasoningContent)
	}
	if r.FinishReason != "length" || r.ProviderData["stop_reason"] != "max_tokens" {
		t.Errorf("finish = %q, provider data %v; want length, stop_reason max_tokens", r.FinishReason, r.ProviderData)
	}
	if r.ProviderData["signature"] != "sig-2" {
		t.Errorf("signature kept = %v, want sig-2", r.ProviderData["signature"])
	}
	u := r.Usage
	if u.InputTokens != 50 || u.OutputTokens != 9 || u.TotalTokens != 59 || u.CacheReadTokens != 40 || u.CacheWriteTokens != 7 {
		t.Errorf("usage = %+v", u)
	}
}

// A streamed answer's reasoning signature is kept and sent back with the
// reasoning on the next turn, as Claude requires; tool input arrives in
// deltas and the calls come complete in the final chunk.
func TestStreamReasoningRoundTrip(t *testing.T) {
	isolateAWS(t)
	turn := providertest.Turn{
		Reasoning:   []string{"Need ", "the weather."},
		Text:        []string{"Let me check."},
		ToolCalls:   []providertest.ToolCall{{ID: "tooluse_a", Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`}},
		InputTokens: 20, OutputTokens: 30,
	}
	f := newFake(t, "", renderTurn(turn), renderTurn(providertest.Turn{Text: []string{"Sunny."}, InputTokens: 60, OutputTokens: 2}))
	m := newModel(t, f)
	msgs := []model.Message{{Role: model.RoleUser, Content: "Weather in Paris?"}}
	r, err := model.Collect(m.Generate(ctxT(t), &model.Request{Stream: true, Messages: msgs, Tools: weather}))
	if err != nil {
		t.Fatal(err)
	}
	if r.ReasoningContent != "Need the weather." || r.ProviderData["signature"] != signature {
		t.Fatalf("reasoning %q, provider data %v", r.ReasoningContent, r.ProviderData)
	}
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Arguments != `{"city":"Paris","unit":"celsius"}` || r.FinishReason != "tool_calls" {
		t.Fatalf("tool calls %+v, finish %q", r.ToolCalls, r.FinishReason)
	}
	// The history as the engine keeps it: through JSON, as stored runs are.
	asst := model.Message{Role: model.RoleAssistant, Content: r.Content, ReasoningContent: r.ReasoningContent, ToolCalls: r.ToolCalls, ProviderData: r.ProviderData}
	raw, _ := json.Marshal(asst)
	var stored model.Message
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, stored, model.Message{Role: model.RoleTool, ToolCallID: "tooluse_a", Content: "sunny"})
	if _, err := model.Collect(m.Generate(ctxT(t), &model.Request{Stream: true, Messages: msgs, Tools: weather})); err != nil {
		t.Fatal(err)
	}
	body := f.bodyJSON(1)
	msgsOnWire, _ := body["messages"].([]any)
	if len(msgsOnWire) != 3 {
		t.Fatalf("second request has %d messages: %v", len(msgsOnWire), msgsOnWire)
	}
	wantJSON(t, "assistant turn", msgsOnWire[1], `{"role":"assistant","content":[
		{"reasoningContent":{"reasoningText":{"text":"Need the weather.","signature":"`+signature+`"}}},
		{"text":"Let me check."},
		{"toolUse":{"toolUseId":"tooluse_a","name":"get_weather","input":{"city":"Paris","unit":"celsius"}}}]}`)
}

// Inline images, data URLs and s3:// locations become image blocks; files
// become named document blocks; an http(s) image URL is refused with the
// fix.
func TestImagesAndDocuments(t *testing.T) {
	isolateAWS(t)
	f := newFake(t, "", renderTurn(providertest.Turn{Text: []string{"A cat."}, InputTokens: 900, OutputTokens: 3}))
	m := newModel(t, f)
	png := []byte("\x89PNG\r\n\x1a\nfake")
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0}
	pdf := []byte("%PDF-1.7 fake")
	req := &model.Request{Messages: []model.Message{{
		Role: model.RoleUser, Content: "Describe.",
		Images: []model.Image{
			{Content: png, MimeType: "image/png"},
			{URL: "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)},
			{URL: "s3://bucket/cats/cat.webp"},
		},
		Files: []model.File{
			{Filename: "Q3 report.v2.pdf", MimeType: "application/pdf", Content: pdf},
			{Filename: "notes.md", Content: []byte("# notes")},
		},
	}}}
	if _, err := model.Collect(m.Generate(ctxT(t), req)); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	msgs, _ := f.bodyJSON(0)["messages"].([]any)
	wantJSON(t, "user turn", msgs[0], `{"role":"user","content":[
		{"text":"Describe."},
		{"image":{"format":"png","source":{"bytes":"`+b64(png)+`"}}},
		{"image":{"format":"jpeg","source":{"bytes":"`+b64(jpeg)+`"}}},
		{"image":{"format":"webp","source":{"s3Location":{"uri":"s3://bucket/cats/cat.webp"}}}},
		{"document":{"format":"pdf","name":"Q3 report-v2","source":{"bytes":"`+b64(pdf)+`"}}},
		{"document":{"format":"md","name":"notes","source":{"bytes":"`+b64([]byte("# notes"))+`"}}}]}`)

	_, err := model.Collect(m.Generate(ctxT(t), &model.Request{Messages: []model.Message{{
		Role: model.RoleUser, Content: "hi", Images: []model.Image{{URL: "https://example.com/cat.jpg"}},
	}}}))
	if !errors.Is(err, bedrock.ErrInvalidRequest) || !strings.Contains(err.Error(), "images[0]") || !strings.Contains(err.Error(), "s3://") {
		t.Errorf("http image URL: err = %v, want ErrInvalidRequest naming images[0] and the fix", err)
	}
	if n := len(f.received()); n != 1 {
		t.Errorf("a refused request reached the server (%d requests)", n)
	}
}

// Bedrock's exceptions become ProviderErrors with their status, classified
// as agno does: throttling, unavailability and model timeouts are retried,
// validation and access errors are not.
func TestErrors(t *testing.T) {
	isolateAWS(t)
	for _, tc := range []struct {
		status    int
		typ, msg  string
		retryable bool
		overflow  bool
	}{
		{400, "ValidationException", "Input is too long for requested model.", false, true},
		{400, "ValidationException", "The provided model identifier is invalid.", false, false},
		{403, "AccessDeniedException", "You don't have access to the model with the specified model ID.", false, false},
		{404, "ResourceNotFoundException", "Could not resolve the foundation model.", false, false},
		{408, "ModelTimeoutException", "Model has timed out in processing the request.", true, false},
		{429, "ThrottlingException", "Too many requests, please wait before trying again.", true, false},
		{503, "ServiceUnavailableException", "Bedrock is unable to process your request.", true, false},
	} {
		for _, stream := range []bool{false, true} {
			f := newFake(t, "", reply{status: tc.status, errType: tc.typ, message: tc.msg})
			m := newModel(t, f)
			_, err := model.Collect(m.Generate(ctxT(t), &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
			pe, ok := model.AsProviderError(err)
			if !ok {
				t.Errorf("%s stream=%v: err = %v (%T), want a ProviderError", tc.typ, stream, err, err)
				continue
			}
			if pe.StatusCode != tc.status || !strings.Contains(pe.Message, tc.typ) || !strings.Contains(pe.Message, tc.msg) {
				t.Errorf("%s stream=%v: status %d message %q", tc.typ, stream, pe.StatusCode, pe.Message)
			}
			if pe.Retryable() != tc.retryable || pe.ContextOverflow != tc.overflow || pe.Provider != "AwsBedrock" {
				t.Errorf("%s stream=%v: Retryable %v ContextOverflow %v Provider %q", tc.typ, stream, pe.Retryable(), pe.ContextOverflow, pe.Provider)
			}
			want := 1
			if tc.retryable {
				want = 2 // MaxRetries 1
			}
			if n := len(f.received()); n != want {
				t.Errorf("%s stream=%v: sent %d times, want %d", tc.typ, stream, n, want)
			}
		}
	}
}

// An exception event inside a stream ends the call with its error after
// the deltas that came; its status comes from its type.
func TestStreamException(t *testing.T) {
	isolateAWS(t)
	for _, tc := range []struct {
		typ       string
		status    int
		retryable bool
	}{
		{"throttlingException", 429, true},
		{"modelStreamErrorException", 424, false},
		{"validationException", 400, false},
	} {
		evs := streamEvents(providertest.Turn{Text: []string{"Hel", "lo"}, End: providertest.Stall})
		f := newFake(t, "", reply{events: append(evs, exception(tc.typ, "stream failed: "+tc.typ))})
		m := newModel(t, f)
		var content string
		var err error
		for c, cerr := range m.Generate(ctxT(t), &model.Request{Stream: true, Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}) {
			if cerr != nil {
				err = cerr
				break
			}
			content += c.Content
		}
		pe, ok := model.AsProviderError(err)
		if !ok || pe.StatusCode != tc.status || pe.Retryable() != tc.retryable || !strings.Contains(pe.Message, "stream failed") {
			t.Errorf("%s: err = %v (%+v), want status %d retryable %v", tc.typ, err, pe, tc.status, tc.retryable)
		}
		if content != "Hello" {
			t.Errorf("%s: content before the exception = %q", tc.typ, content)
		}
		if n := len(f.received()); n != 1 {
			t.Errorf("%s: a stream that had begun was sent %d times", tc.typ, n)
		}
	}
}

// The region is required, named the way agno names it; AWS_REGION and the
// shared config's profile supply it too.
func TestRegion(t *testing.T) {
	isolateAWS(t)
	_, err := bedrock.New(bedrock.Config{})
	if !errors.Is(err, bedrock.ErrMissingRegion) || !strings.Contains(err.Error(), "aws_region") || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("no region: err = %v", err)
	}
	t.Setenv("AWS_REGION", "eu-west-3")
	m, err := bedrock.New(bedrock.Config{})
	if err != nil || m.Region() != "eu-west-3" {
		t.Errorf("AWS_REGION: region %q, err %v", m.Region(), err)
	}
	m, err = bedrock.New(bedrock.Config{AwsRegion: "ap-south-1"})
	if err != nil || m.Region() != "ap-south-1" {
		t.Errorf("aws_region over AWS_REGION: region %q, err %v", m.Region(), err)
	}
	t.Setenv("AWS_REGION", "")
	cfgFile := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(cfgFile, []byte("[profile work]\nregion = us-west-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfgFile)
	t.Setenv("AWS_PROFILE", "work")
	m, err = bedrock.New(bedrock.Config{AwsSsoAuth: true})
	if err != nil || m.Region() != "us-west-2" {
		t.Errorf("profile region: region %q, err %v", m.Region(), err)
	}
	if info := m.Info(); info.ID != bedrock.DefaultID || info.Provider != "AwsBedrock" {
		t.Errorf("Info() = %+v", info)
	}
}

// Credentials: AWS's default chain (here the AWS_* variables) signs when
// no keys are given; one key without the other, or an *_env key holding a
// secret instead of a variable name, is refused with the fix.
func TestCredentials(t *testing.T) {
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_SESSION_TOKEN", testSessionTk)
	f := newFake(t, "", renderTurn(providertest.Turn{Text: []string{"ok"}, InputTokens: 1, OutputTokens: 1}))
	m := newModel(t, f, func(c *bedrock.Config) {
		c.AwsAccessKeyID, c.AwsSecretAccessKey, c.AwsSessionToken = "", "", ""
		c.Headers = map[string]string{"X-Tenant": "blue"}
	})
	if _, err := model.Collect(m.Generate(ctxT(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatalf("default chain: %v", err)
	}
	h := f.received()[0].header
	if !strings.Contains(h.Get("Authorization"), "Credential="+testKeyID+"/") || h.Get("X-Tenant") != "blue" {
		t.Errorf("headers = %v", h)
	}

	if _, err := bedrock.New(bedrock.Config{AwsRegion: testRegion, AwsAccessKeyID: testKeyID}); err == nil ||
		!strings.Contains(err.Error(), "aws_access_key_id") || !strings.Contains(err.Error(), "aws_secret_access_key") {
		t.Errorf("key id alone: err = %v", err)
	}
	p, _ := model.LookupProvider(bedrock.ProviderBedrock)
	_, err := p.New(model.ProviderSettings{}, &bedrock.Options{AwsRegion: testRegion, AwsSecretAccessKeyEnv: testSecret})
	if err == nil || !strings.Contains(err.Error(), "aws_secret_access_key_env must name an environment variable") {
		t.Errorf("secret in aws_secret_access_key_env: err = %v", err)
	}
	_, err = p.New(model.ProviderSettings{}, &bedrock.Options{AwsRegion: testRegion, AwsAccessKeyIDEnv: "NOT_SET_BEDROCK_KEY"})
	if err == nil || !strings.Contains(err.Error(), "NOT_SET_BEDROCK_KEY, which is not set") {
		t.Errorf("unset variable: err = %v", err)
	}
}

// A Bedrock API key goes out as a bearer token instead of a signature.
func TestAPIKeyBearer(t *testing.T) {
	isolateAWS(t)
	const key = "ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl"
	f := newTLSFake(t, key, renderTurn(providertest.Turn{Text: []string{"o", "k"}, InputTokens: 1, OutputTokens: 1}))
	m := newModel(t, f, func(c *bedrock.Config) {
		c.APIKey = key
		c.AwsAccessKeyID, c.AwsSecretAccessKey, c.AwsSessionToken = "", "", ""
	})
	for _, stream := range []bool{false, true} {
		r, err := model.Collect(m.Generate(ctxT(t), &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}))
		if err != nil || r.Content != "ok" {
			t.Errorf("stream=%v: %q, %v", stream, r.Content, err)
		}
	}
	for _, rec := range f.received() {
		if got := rec.header.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("Authorization = %q", got)
		}
	}
}

// request_params may not set what the request itself sets, nor Converse
// fields this package does not map.
func TestRequestParamsRefused(t *testing.T) {
	isolateAWS(t)
	f := newFake(t, "")
	m := newModel(t, f)
	for key, want := range map[string]string{
		"messages":        "request_params.messages is set from the request itself",
		"guardrailConfig": "request_params.guardrailConfig is not supported",
	} {
		_, err := model.Collect(m.Generate(ctxT(t), &model.Request{
			Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}},
			Extra:    map[string]any{key: map[string]any{}},
		}))
		if !errors.Is(err, bedrock.ErrInvalidRequest) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", key, err, want)
		}
	}
	if n := len(f.received()); n != 0 {
		t.Errorf("%d refused requests reached the server", n)
	}
}
