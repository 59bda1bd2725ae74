package modeltest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, srv *modeltest.Server, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// events splits an SSE body into its data payloads, checking the framing.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("stream does not end with a blank line: %q", body)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("event is not a single data line: %q", ev)
		}
		out = append(out, data)
	}
	return out
}

type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    *int    `json:"index"`
				ID       *string `json:"id"`
				Type     *string `json:"type"`
				Function struct {
					Name      *string `json:"name"`
					Arguments string  `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

func TestStreamWireFormat(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{
		Reasoning: "think first",
		Tokens:    []string{"Let me ", "check."},
		ToolCalls: []model.ToolCall{
			model.NewToolCall("call_1", "get_weather", `{"location":"Paris, France","unit":"celsius"}`),
			model.NewToolCall("call_2", "get_time", `{"tz":"Europe/Paris"}`),
		},
		Usage: &model.Usage{InputTokens: 30, OutputTokens: 12, CacheReadTokens: 8, ReasoningTokens: 3},
	}}})
	defer srv.Close()

	res := post(t, srv, `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d content-type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	body, _ := io.ReadAll(res.Body)
	evs := events(t, body)
	if evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("last event = %q, want [DONE]", evs[len(evs)-1])
	}
	var chunks []chunk
	for _, ev := range evs[:len(evs)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("chunk %q: %v", ev, err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "gpt-x" || c.ID != chunks0ID(chunks, c.ID) {
			t.Errorf("chunk header = %+v", c)
		}
		chunks = append(chunks, c)
	}

	first := chunks[0].Choices[0].Delta
	if first.Role == nil || *first.Role != "assistant" || first.Content == nil || *first.Content != "" {
		t.Errorf("first delta = %+v, want role assistant and empty content", first)
	}
	var reasoning, content string
	args := map[int]string{}
	ids := map[int]string{}
	names := map[int]string{}
	deltasPerCall := map[int]int{}
	for i, c := range chunks {
		last := i == len(chunks)-1
		if last {
			if len(c.Choices) != 0 || string(c.Usage) == "null" {
				t.Fatalf("usage chunk = %+v", c)
			}
			continue
		}
		if string(c.Usage) != "null" {
			t.Errorf("chunk %d usage = %s, want null before the usage chunk", i, c.Usage)
		}
		d := c.Choices[0].Delta
		if d.ReasoningContent != nil {
			reasoning += *d.ReasoningContent
		}
		if d.Content != nil {
			content += *d.Content
		}
		for _, tc := range d.ToolCalls {
			idx := *tc.Index
			deltasPerCall[idx]++
			if deltasPerCall[idx] == 1 {
				if tc.ID == nil || tc.Type == nil || *tc.Type != "function" || tc.Function.Name == nil {
					t.Errorf("first delta of call %d lacks id/type/name: %+v", idx, tc)
				} else {
					ids[idx], names[idx] = *tc.ID, *tc.Function.Name
				}
			} else if tc.ID != nil || tc.Function.Name != nil {
				t.Errorf("later delta of call %d repeats id or name", idx)
			}
			args[idx] += tc.Function.Arguments
		}
		if fr := c.Choices[0].FinishReason; fr != nil && *fr != "tool_calls" || fr != nil && i != len(chunks)-2 {
			t.Errorf("chunk %d finish_reason = %v", i, *fr)
		}
	}
	if reasoning != "think first" || content != "Let me check." {
		t.Errorf("reasoning %q content %q", reasoning, content)
	}
	if ids[0] != "call_1" || names[0] != "get_weather" || args[0] != `{"location":"Paris, France","unit":"celsius"}` ||
		ids[1] != "call_2" || names[1] != "get_time" || args[1] != `{"tz":"Europe/Paris"}` {
		t.Errorf("calls: ids %v names %v args %v", ids, names, args)
	}
	if deltasPerCall[0] < 3 {
		t.Errorf("arguments of call 0 came in %d deltas, want them split across several", deltasPerCall[0])
	}
	if fr := chunks[len(chunks)-2].Choices[0].FinishReason; fr == nil || *fr != "tool_calls" {
		t.Errorf("finish chunk = %+v", chunks[len(chunks)-2])
	}
	var usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	}
	if err := json.Unmarshal(chunks[len(chunks)-1].Usage, &usage); err != nil {
		t.Fatal(err)
	}
	if usage.PromptTokens != 30 || usage.CompletionTokens != 12 || usage.TotalTokens != 42 ||
		usage.PromptTokensDetails.CachedTokens != 8 || usage.CompletionTokensDetails.ReasoningTokens != 3 {
		t.Errorf("usage = %+v", usage)
	}
}

func chunks0ID(prev []chunk, id string) string {
	if len(prev) == 0 {
		return id
	}
	return prev[0].ID
}

func TestStreamWithoutUsageOption(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "a b"}}})
	defer srv.Close()
	body, _ := io.ReadAll(post(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`).Body)
	for _, ev := range events(t, body) {
		if ev == "[DONE]" {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(ev), &raw); err != nil {
			t.Fatal(err)
		}
		if _, ok := raw["usage"]; ok {
			t.Errorf("chunk carries usage though include_usage was not asked: %s", ev)
		}
	}
}

func TestJSONResponse(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{
		{ToolCalls: []model.ToolCall{model.NewToolCall("call_9", "f", `{"x":1}`)}},
		{Content: "done", FinishReason: "length"},
	}})
	defer srv.Close()
	var got struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string           `json:"role"`
				Content   *string          `json:"content"`
				ToolCalls []model.ToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	res := post(t, srv, `{"model":"m","messages":[{"role":"user","content":"hi there"}]}`)
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	c := got.Choices[0]
	if got.Object != "chat.completion" || c.Message.Role != "assistant" || c.Message.Content != nil || c.FinishReason != "tool_calls" ||
		len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0] != model.NewToolCall("call_9", "f", `{"x":1}`) || got.Usage.TotalTokens == 0 {
		t.Errorf("response = %+v", got)
	}
	res = post(t, srv, `{"model":"m","messages":[{"role":"user","content":"more"}]}`)
	got.Choices = nil
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if c := got.Choices[0]; c.Message.Content == nil || *c.Message.Content != "done" || c.FinishReason != "length" {
		t.Errorf("second response = %+v", got)
	}
}

func TestErrorResponses(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{
		{Status: 429, RetryAfter: 1500 * time.Millisecond},
		{Status: 400, ErrorMessage: "bad tool", ErrorCode: "invalid_value"},
		{Err: errors.New("boom")},
	}})
	defer srv.Close()
	type body struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Param   json.RawMessage `json:"param"`
			Code    *string         `json:"code"`
		} `json:"error"`
	}
	decode := func(res *http.Response) body {
		var b body
		if err := json.NewDecoder(res.Body).Decode(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	const req = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

	res := post(t, srv, req)
	b := decode(res)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "2" || res.Header.Get("Retry-After-Ms") != "1500" ||
		b.Error.Type != "requests" || b.Error.Code == nil || *b.Error.Code != "rate_limit_exceeded" || string(b.Error.Param) != "null" || b.Error.Message == "" {
		t.Errorf("429: status %d headers %v body %+v", res.StatusCode, res.Header, b)
	}
	res = post(t, srv, req)
	b = decode(res)
	if res.StatusCode != 400 || b.Error.Message != "bad tool" || *b.Error.Code != "invalid_value" || b.Error.Type != "invalid_request_error" {
		t.Errorf("400: %d %+v", res.StatusCode, b)
	}
	res = post(t, srv, req)
	b = decode(res)
	if res.StatusCode != 500 || b.Error.Message != "boom" || b.Error.Type != "server_error" {
		t.Errorf("500: %d %+v", res.StatusCode, b)
	}
	if srv.Calls() != 3 {
		t.Errorf("calls = %d", srv.Calls())
	}
}

func TestBadRequests(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{})
	defer srv.Close()
	for _, tc := range []struct{ body, param string }{
		{`{"model":`, ""},
		{`{"model":"m"}`, "messages"},
		{`{"messages":[{"role":"user","content":"x"}]}`, "model"},
		{`{"model":"m","messages":[{"role":"user","content":{}}]}`, "messages[0].content"},
	} {
		body, param := tc.body, tc.param
		res := post(t, srv, body)
		var b struct {
			Error struct {
				Param *string `json:"param"`
				Type  string  `json:"type"`
			} `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&b)
		gotParam := ""
		if b.Error.Param != nil {
			gotParam = *b.Error.Param
		}
		if res.StatusCode != 400 || b.Error.Type != "invalid_request_error" || gotParam != param {
			t.Errorf("%s: status %d error %+v, want param %q", body, res.StatusCode, b.Error, param)
		}
	}
	if reqs := srv.Requests(); len(reqs) != 4 || reqs[0].Request != nil || string(reqs[0].Body) != `{"model":` {
		t.Errorf("bad requests were not recorded raw: %+v", reqs)
	}
}

func TestAuthAndRecording(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: "sk-right"})
	defer srv.Close()
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"top_k":5}`
	if res := post(t, srv, body); res.StatusCode != 401 {
		t.Errorf("no key: status %d", res.StatusCode)
	}
	if res := post(t, srv, body, "Authorization", "Bearer sk-wrong"); res.StatusCode != 401 {
		t.Errorf("wrong key: status %d", res.StatusCode)
	}
	if res := post(t, srv, body, "Authorization", "Bearer sk-right"); res.StatusCode != 200 {
		t.Errorf("right key: status %d", res.StatusCode)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[2].Authorization() != "Bearer sk-right" || reqs[1].Authorization() != "Bearer sk-wrong" {
		t.Fatalf("recorded = %+v", reqs)
	}
	if string(reqs[2].Body) != body {
		t.Errorf("body = %s, want the bytes sent", reqs[2].Body)
	}
	if reqs[2].Request.Extra["top_k"] != float64(5) {
		t.Errorf("unknown keys not in Extra: %v", reqs[2].Request.Extra)
	}
}

func TestResponderSeesDecodedRequest(t *testing.T) {
	var seen *model.Request
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: func(req *model.Request) modeltest.Response {
		seen = req
		return modeltest.Response{Content: "ok"}
	}})
	defer srv.Close()
	post(t, srv, `{"model":"m","messages":[
		{"role":"developer","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"high"}}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"r"}],
		"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"},"strict":true}}],
		"tool_choice":{"type":"function","function":{"name":"f"}},
		"response_format":{"type":"json_schema","json_schema":{"name":"S","schema":{"type":"object"},"strict":true}},
		"temperature":0.5,"stop":"END"}`)
	if seen == nil {
		t.Fatal("responder not called")
	}
	if len(seen.Messages) != 4 || seen.Messages[0].Role != model.RoleSystem || seen.Messages[1].Content != "look" ||
		len(seen.Messages[1].Images) != 1 || seen.Messages[1].Images[0].Detail != "high" ||
		seen.Messages[2].ToolCalls[0].Function.Name != "f" || seen.Messages[3].ToolCallID != "call_1" {
		t.Errorf("messages = %+v", seen.Messages)
	}
	if len(seen.Tools) != 1 || !seen.Tools[0].Strict || seen.ToolChoice.Function != "f" ||
		seen.ResponseFormat.Name != "S" || *seen.Temperature != 0.5 || seen.Stop[0] != "END" {
		t.Errorf("request = %+v", seen)
	}
}

func TestModelsEndpoint(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Models: []string{"a", "b"}})
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || len(list.Data) != 2 || list.Data[1].ID != "b" || list.Data[0].Object != "model" {
		t.Errorf("models = %+v", list)
	}
}

func TestClientGoneDuringDelays(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{
		Script:           []modeltest.Response{{Tokens: modeltest.FillerTokens(1000)}},
		TimeToFirstToken: time.Hour,
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	done := make(chan error, 1)
	go func() {
		res, err := srv.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	for srv.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	srv.Close() // returns only when the handler stopped waiting
}

func TestFillerTokens(t *testing.T) {
	toks := modeltest.FillerTokens(3)
	if strings.Join(toks, "") != "token1 token2 token3 " {
		t.Errorf("tokens = %q", toks)
	}
}

func TestFakeStatusIsProviderError(t *testing.T) {
	f := modeltest.New(modeltest.Response{Status: 429, RetryAfter: time.Second}, modeltest.Response{Status: 400, ErrorCode: "context_length_exceeded"})
	_, err := model.Collect(f.Generate(context.Background(), &model.Request{}))
	pe, ok := model.AsProviderError(err)
	if !ok || pe.StatusCode != 429 || pe.RetryAfter != time.Second || !pe.Retryable() || pe.Message == "" {
		t.Errorf("err = %#v", err)
	}
	_, err = model.Collect(f.Generate(context.Background(), &model.Request{}))
	if pe, ok := model.AsProviderError(err); !ok || !pe.ContextOverflow {
		t.Errorf("err = %#v", err)
	}
}

func TestNoRecordKeepsNoRequests(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{NoRecord: true})
	defer srv.Close()
	for range 3 {
		if res := post(t, srv, `{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}`); res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
	}
	if n := len(srv.Requests()); n != 0 || srv.Calls() != 3 {
		t.Fatalf("requests kept %d, calls %d; want 0 kept and 3 calls", n, srv.Calls())
	}
}

func TestReasoningTokensAreTheDeltas(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{
		Reasoning: "ab cd", ReasoningTokens: []string{"a", "b c", "d"}, Content: "ok",
	}}})
	defer srv.Close()
	body, _ := io.ReadAll(post(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`).Body)
	var got []string
	for _, ev := range events(t, body) {
		var c chunk
		if json.Unmarshal([]byte(ev), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.ReasoningContent != nil {
			got = append(got, *c.Choices[0].Delta.ReasoningContent)
		}
	}
	if strings.Join(got, "|") != "a|b c|d" {
		t.Errorf("reasoning deltas = %q", got)
	}
}

// A Hang stream sends its deltas, then nothing, until the client leaves:
// Abandoned fires. Close ends one whose client stays.
func TestHangHoldsTheStreamUntilTheClientLeaves(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Tokens: []string{"one ", "two"}, Hang: true}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var seen string
	buf := make([]byte, 4096)
	for !strings.Contains(seen, `"two"`) {
		n, err := res.Body.Read(buf)
		if err != nil {
			t.Fatalf("read: %v after %q", err, seen)
		}
		seen += string(buf[:n])
	}
	if strings.Contains(seen, "finish_reason\":\"") || strings.Contains(seen, "[DONE]") {
		t.Errorf("a held stream finished: %q", seen)
	}
	select {
	case <-srv.Abandoned():
		t.Fatal("abandoned while the client is still reading")
	default:
	}
	cancel()
	select {
	case <-srv.Abandoned():
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not see the client leave")
	}

	// A client that stays is let go by Close.
	srv2 := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "x", Hang: true}}})
	res2 := post(t, srv2, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, res2.Body); close(done) }()
	srv2.Close()
	<-done
}

// A Cut stream ends its body without the chunked terminator: the client
// reads an unexpected EOF after the deltas, not a clean end.
func TestCutDropsTheConnectionMidStream(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Tokens: []string{"one ", "two"}, Cut: true}}})
	defer srv.Close()
	res := post(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	body, err := io.ReadAll(res.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error = %v, want unexpected EOF", err)
	}
	if !strings.Contains(string(body), `"two"`) || strings.Contains(string(body), "[DONE]") {
		t.Errorf("body before the cut = %q", body)
	}
}
