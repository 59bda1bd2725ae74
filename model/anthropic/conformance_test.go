package anthropic_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite against fakeAPI, the fake Messages API server.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Provider: anthropic.ProviderAnthropic,
		ID:       "claude-sonnet-4-5",
		Start:    startMessagesFake,
	})
}

// messagesFake adapts fakeAPI to the suite.
type messagesFake struct{ f *fakeAPI }

func startMessagesFake(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	replies := make([]reply, len(turns))
	for i, turn := range turns {
		replies[i] = renderTurn(turn, fmt.Sprintf("msg_conformance_%d", i+1))
	}
	return messagesFake{newFakeAPIWithKey(t, providertest.APIKey, replies...)}
}

func (m messagesFake) URL() string                   { return m.f.srv.URL }
func (m messagesFake) Disconnected() <-chan struct{} { return m.f.gone }
func (m messagesFake) Close()                        { m.f.close() }

// errorTypes are the error types the API answers each status with
// (https://docs.anthropic.com/en/api/errors).
var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
	403: "permission_error", 404: "not_found_error", 413: "request_too_large",
	429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}

// renderTurn writes a turn as an error body, or as both a message body and
// the event stream of the same message: the fake answers a request with
// the one it asked for.
func renderTurn(turn providertest.Turn, id string) reply {
	if turn.Status != 0 {
		typ, ok := errorTypes[turn.Status]
		if !ok {
			typ = "api_error"
		}
		body, _ := json.Marshal(map[string]any{
			"type":       "error",
			"error":      map[string]any{"type": typ, "message": turn.ErrorMessage},
			"request_id": "req_fake_error",
		})
		r := reply{status: turn.Status, body: string(body)}
		if turn.RetryAfter > 0 {
			// The API sends whole seconds.
			r.header = map[string]string{"retry-after": strconv.Itoa(int(turn.RetryAfter.Seconds()))}
		}
		return r
	}
	body, _ := json.Marshal(turnMessage(turn, id))
	return reply{
		body: string(body), sse: turnEvents(turn, id),
		hold: turn.End == providertest.Stall, cut: turn.End == providertest.Cut,
	}
}

// turnMessage is the turn as a non-streamed message.
func turnMessage(turn providertest.Turn, id string) map[string]any {
	var content []any
	if len(turn.Reasoning) > 0 {
		content = append(content, map[string]any{"type": "thinking", "thinking": strings.Join(turn.Reasoning, ""), "signature": signature})
	}
	if len(turn.Text) > 0 {
		content = append(content, map[string]any{"type": "text", "text": strings.Join(turn.Text, "")})
	}
	for _, c := range turn.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": content, "stop_reason": stopReason(turn), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": turn.InputTokens, "output_tokens": turn.OutputTokens,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
}

const signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"

func stopReason(turn providertest.Turn) string {
	if len(turn.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// turnEvents is the turn as the Messages API streams it: message_start,
// one content block per thinking, text and tool_use part with its deltas
// (tool input split into several input_json_delta), then message_delta
// and message_stop, unless the turn stalls or is cut before them.
func turnEvents(turn providertest.Turn, id string) string {
	evs := []string{messageStart(id, turn.InputTokens, 0, 0), ping}
	index := 0
	if len(turn.Reasoning) > 0 {
		evs = append(evs, blockStartThinking(index))
		for _, p := range turn.Reasoning {
			evs = append(evs, thinkingDelta(index, p))
		}
		evs = append(evs, signatureDelta(index, signature), blockStop(index))
		index++
	}
	if len(turn.Text) > 0 {
		evs = append(evs, blockStartText(index))
		for _, p := range turn.Text {
			evs = append(evs, textDelta(index, p))
		}
		evs = append(evs, blockStop(index))
		index++
	}
	for _, c := range turn.ToolCalls {
		evs = append(evs, blockStartToolUse(index, c.ID, c.Name))
		for args := c.Arguments; args != ""; {
			n := min(len(args), 7)
			evs = append(evs, jsonDelta(index, args[:n]))
			args = args[n:]
		}
		evs = append(evs, blockStop(index))
		index++
	}
	if turn.End == providertest.Complete {
		evs = append(evs, messageDelta(stopReason(turn), turn.OutputTokens), messageStop)
	}
	return events(evs...)
}

// Requests reads what the suite checks out of the recorded bodies: user
// content blocks, image blocks with a url or base64 source
// (https://docs.anthropic.com/en/docs/build-with-claude/vision), tools,
// and the schema of output_config.format (or the beta output_format,
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs).
func (m messagesFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range m.f.received() {
		out = append(out, readRequest(rec))
	}
	return out
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

func readRequest(rec recorded) providertest.Request {
	r := providertest.Request{Header: rec.header, Body: rec.body}
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		OutputConfig struct {
			Format *outputFormat `json:"format"`
		} `json:"output_config"`
		OutputFormat *outputFormat `json:"output_format"`
	}
	if json.Unmarshal(rec.body, &body) != nil {
		return r
	}
	r.Model, r.Stream = body.Model, body.Stream
	for _, msg := range body.Messages {
		if msg.Role != "user" {
			continue
		}
		var text string
		if json.Unmarshal(msg.Content, &text) == nil {
			r.UserText = append(r.UserText, text)
			continue
		}
		var blocks []struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			Source struct {
				Type      string `json:"type"`
				URL       string `json:"url"`
				MediaType string `json:"media_type"`
				Data      string `json:"data"`
			} `json:"source"`
		}
		_ = json.Unmarshal(msg.Content, &blocks)
		text = ""
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text += b.Text
			case "image":
				r.Images = append(r.Images, sourceImage(b.Source.Type, b.Source.URL, b.Source.MediaType, b.Source.Data))
			}
		}
		if text != "" {
			r.UserText = append(r.UserText, text)
		}
	}
	for _, tool := range body.Tools {
		r.Tools = append(r.Tools, tool.Name)
	}
	for _, f := range []*outputFormat{body.OutputConfig.Format, body.OutputFormat} {
		if f != nil && f.Type == "json_schema" && len(f.Schema) > 0 {
			r.ResponseSchema = f.Schema
		}
	}
	return r
}

func sourceImage(typ, url, mediaType, data string) providertest.Image {
	if typ == "url" {
		return providertest.Image{URL: url}
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return providertest.Image{URL: fmt.Sprintf("(bad base64 %q)", data)}
	}
	return providertest.Image{MediaType: mediaType, Data: b}
}
