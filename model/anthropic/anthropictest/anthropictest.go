// Package anthropictest speaks the Anthropic Messages API wire format for
// fake servers in tests: the packages that serve Claude (Anthropic's API,
// Bedrock, Vertex AI) all carry the same request and response bodies,
// framed differently, so their fakes share these pieces.
//
// The format follows https://docs.anthropic.com/en/api/messages (request,
// message body), https://docs.anthropic.com/en/api/messages-streaming
// (events) and https://docs.anthropic.com/en/api/errors (error bodies).
package anthropictest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// Signature is the thinking signature fakes send with reasoning.
const Signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"

// Event is one streaming event: its type and JSON data.
type Event struct {
	Type, Data string
}

// SSE renders events as the API's server-sent events.
func SSE(evs ...Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString("event: " + ev.Type + "\ndata: " + ev.Data + "\n\n")
	}
	return b.String()
}

// The builders below render the API's stream events, one each:
// message_start (with usage), content_block_start of each block type,
// content_block_delta of each delta type, content_block_stop,
// message_delta (stop reason, output tokens), ping and message_stop.

// MessageStart opens message id with its input and cache usage.
func MessageStart(id string, input, cacheRead, cacheWrite int) Event {
	return Event{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`, id, input, cacheWrite, cacheRead)}
}

// BlockStartText opens a text block.
func BlockStartText(index int) Event {
	return Event{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index)}
}

// BlockStartThinking opens a thinking block.
func BlockStartThinking(index int) Event {
	return Event{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, index)}
}

// BlockStartRedactedThinking is a redacted thinking block, whose data comes whole.
func BlockStartRedactedThinking(index int, data string) Event {
	return Event{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"redacted_thinking","data":%q}}`, index, data)}
}

// BlockStartToolUse opens a tool_use block with an empty input.
func BlockStartToolUse(index int, id, name string) Event {
	return Event{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name)}
}

// TextDelta adds text to a text block.
func TextDelta(index int, text string) Event {
	return Event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, jsonString(text))}
}

// ThinkingDelta adds text to a thinking block.
func ThinkingDelta(index int, text string) Event {
	return Event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, index, jsonString(text))}
}

// SignatureDelta gives a thinking block its signature.
func SignatureDelta(index int, sig string) Event {
	return Event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, index, sig)}
}

// JSONDelta adds a piece of a tool_use input.
func JSONDelta(index int, partial string) Event {
	return Event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, jsonString(partial))}
}

// BlockStop closes a block.
func BlockStop(index int) Event {
	return Event{"content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index)}
}

// MessageDelta ends the message with its stop reason and output tokens.
func MessageDelta(stop string, output int) Event {
	return Event{"message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output)}
}

var (
	Ping        = Event{"ping", `{"type": "ping"}`}
	MessageStop = Event{"message_stop", `{"type":"message_stop"}`}
)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ErrorTypes are the error types the API answers each status with.
var ErrorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
	403: "permission_error", 404: "not_found_error", 413: "request_too_large",
	429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}

// ErrorBody is the API's error body.
func ErrorBody(typ, msg string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": "req_fake_error",
	})
	return b
}

// WriteError answers with the API's error body.
func WriteError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(ErrorBody(typ, msg))
}

// TurnError is a failing turn's error type and body.
func TurnError(turn providertest.Turn) (typ string, body []byte) {
	typ, ok := ErrorTypes[turn.Status]
	if !ok {
		typ = "api_error"
	}
	return typ, ErrorBody(typ, turn.ErrorMessage)
}

// TurnMessage is a turn as a non-streamed message body.
func TurnMessage(turn providertest.Turn, id string) []byte {
	var content []any
	if len(turn.Reasoning) > 0 {
		content = append(content, map[string]any{"type": "thinking", "thinking": strings.Join(turn.Reasoning, ""), "signature": Signature})
	}
	if len(turn.Text) > 0 {
		content = append(content, map[string]any{"type": "text", "text": strings.Join(turn.Text, "")})
	}
	for _, c := range turn.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	b, _ := json.Marshal(map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": content, "stop_reason": StopReason(turn), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": turn.InputTokens, "output_tokens": turn.OutputTokens,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	})
	return b
}

// StopReason is the stop_reason of a completed turn.
func StopReason(turn providertest.Turn) string {
	if len(turn.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// TurnEvents is a turn as the API streams it: message_start, one content
// block per thinking, text and tool_use part with its deltas (tool input
// split into several input_json_delta), then message_delta and
// message_stop, unless the turn stalls or is cut before them.
func TurnEvents(turn providertest.Turn, id string) []Event {
	evs := []Event{MessageStart(id, turn.InputTokens, 0, 0), Ping}
	index := 0
	if len(turn.Reasoning) > 0 {
		evs = append(evs, BlockStartThinking(index))
		for _, p := range turn.Reasoning {
			evs = append(evs, ThinkingDelta(index, p))
		}
		evs = append(evs, SignatureDelta(index, Signature), BlockStop(index))
		index++
	}
	if len(turn.Text) > 0 {
		evs = append(evs, BlockStartText(index))
		for _, p := range turn.Text {
			evs = append(evs, TextDelta(index, p))
		}
		evs = append(evs, BlockStop(index))
		index++
	}
	for _, c := range turn.ToolCalls {
		evs = append(evs, BlockStartToolUse(index, c.ID, c.Name))
		for args := c.Arguments; args != ""; {
			n := min(len(args), 7)
			evs = append(evs, JSONDelta(index, args[:n]))
			args = args[n:]
		}
		evs = append(evs, BlockStop(index))
		index++
	}
	if turn.End == providertest.Complete {
		evs = append(evs, MessageDelta(StopReason(turn), turn.OutputTokens), MessageStop)
	}
	return evs
}

// Validate applies the Messages API's request rules to a body and returns
// the API's error message for the first one broken, or "". modelInBody is
// false for the platforms that take the model id in the URL (Bedrock,
// Vertex AI), whose bodies carry none.
func Validate(raw []byte, modelInBody bool) string {
	var req struct {
		Model     string `json:"model"`
		MaxTokens *int   `json:"max_tokens"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return "invalid JSON body: " + err.Error()
	}
	if modelInBody && req.Model == "" {
		return "model: Field required"
	}
	if !modelInBody && req.Model != "" {
		return "model: Extra inputs are not permitted"
	}
	if req.MaxTokens == nil {
		return "max_tokens: Field required"
	}
	if len(req.Messages) == 0 {
		return "messages: at least one message is required"
	}
	type block struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Input     json.RawMessage `json:"input"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
	}
	var prevToolUses []string
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i == 0 && m.Role != "user" {
			return `messages: first message must use the "user" role`
		}
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return fmt.Sprintf("messages: roles must alternate between \"user\" and \"assistant\", but found multiple %q roles in a row", m.Role)
		}
		var blocks []block
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				return fmt.Sprintf("messages.%d.content: Input should be a valid list", i)
			}
			blocks = []block{{Type: "text", Text: &s}}
		}
		var toolUses []string
		seenOther := false
		answered := map[string]bool{}
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
					return fmt.Sprintf("messages.%d.content.%d.text: text content blocks must contain non-whitespace text", i, j)
				}
				seenOther = true
			case "thinking", "redacted_thinking":
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: %s blocks are only allowed in assistant messages", i, j, b.Type)
				}
				if seenOther || len(toolUses) > 0 {
					return fmt.Sprintf("messages.%d.content.%d: thinking blocks must come first in an assistant message", i, j)
				}
				if b.Type == "thinking" && b.Signature == "" {
					return fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j)
				}
				if b.Type == "redacted_thinking" && b.Data == "" {
					return fmt.Sprintf("messages.%d.content.%d.redacted_thinking.data: Field required", i, j)
				}
			case "tool_use":
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: tool_use blocks are only allowed in assistant messages", i, j)
				}
				var obj map[string]any
				if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
				}
				toolUses = append(toolUses, b.ID)
			case "tool_result":
				if m.Role != "user" {
					return fmt.Sprintf("messages.%d.content.%d: tool_result blocks are only allowed in user messages", i, j)
				}
				if seenOther {
					return fmt.Sprintf("messages.%d: tool_result blocks must come first in the content", i)
				}
				if !slices.Contains(prevToolUses, b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			case "image", "document":
				if m.Role != "user" {
					return fmt.Sprintf("messages.%d.content.%d: %s blocks are only allowed in user messages", i, j, b.Type)
				}
				seenOther = true
			default:
				return fmt.Sprintf("messages.%d.content.%d.type: unknown block type %q", i, j, b.Type)
			}
		}
		if m.Role == "user" {
			for _, id := range prevToolUses {
				if !answered[id] {
					return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, id)
				}
			}
		}
		prevToolUses = toolUses
	}
	return ""
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// ReadRequest reads what the conformance suite checks out of a request
// body: user content blocks, image blocks with a url or base64 source
// (https://docs.anthropic.com/en/docs/build-with-claude/vision), tools,
// and the schema of output_config.format (or the beta output_format,
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs).
// model and stream, which Bedrock and Vertex AI carry in the URL, are
// taken from the body when it has them; the caller sets them otherwise.
func ReadRequest(header http.Header, raw []byte) providertest.Request {
	r := providertest.Request{Header: header, Body: raw}
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
	if json.Unmarshal(raw, &body) != nil {
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
