package openairesponses_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/model/modeltest/providertest"
	"github.com/agno-go/agno/model/openairesponses"
)

// The conformance suite against fakeAPI, the fake Responses API server.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Provider: openairesponses.ProviderResponses,
		Start:    startResponsesFake,
	})
}

// The suite again for stateless use (store = false), which asks for
// encrypted reasoning and keeps reasoning items, against a model id that
// is not OpenAI's (as on OpenRouter).
func TestConformanceStateless(t *testing.T) {
	no := false
	providertest.Run(t, providertest.Harness{
		Provider: openairesponses.ProviderResponses,
		ID:       "openai/gpt-oss-20b",
		Options:  &openairesponses.Options{Store: &no, ReasoningSummary: "auto"},
		Start:    startResponsesFake,
	})
}

// responsesFake adapts fakeAPI to the suite.
type responsesFake struct{ f *fakeAPI }

func startResponsesFake(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	replies := make([]reply, len(turns))
	for i, turn := range turns {
		replies[i] = renderTurn(turn)
	}
	return responsesFake{newFakeAPI(t, providertest.APIKey, replies...)}
}

func (r responsesFake) URL() string                   { return r.f.url() }
func (r responsesFake) Disconnected() <-chan struct{} { return r.f.gone }
func (r responsesFake) Close()                        { r.f.close() }

// errorTypes are the error types and codes the API answers each status
// with (https://platform.openai.com/docs/guides/error-codes).
var errorTypes = map[int][2]string{
	400: {"invalid_request_error", ""}, 401: {"invalid_request_error", "invalid_api_key"},
	429: {"requests", "rate_limit_exceeded"}, 500: {"server_error", ""}, 503: {"server_error", ""},
}

func renderTurn(turn providertest.Turn) reply {
	if turn.Status != 0 {
		te := errorTypes[turn.Status]
		return reply{status: turn.Status, errType: te[0], errCode: te[1], message: turn.ErrorMessage, retryAfter: turn.RetryAfter}
	}
	r := response{reasoning: turn.Reasoning, text: turn.Text, input: turn.InputTokens, output: turn.OutputTokens}
	for _, c := range turn.ToolCalls {
		r.calls = append(r.calls, call{id: "fc_" + c.ID, callID: c.ID, name: c.Name, args: c.Arguments})
	}
	return reply{resp: r, hold: turn.End == providertest.Stall, cut: turn.End == providertest.Cut}
}

// Requests reads what the suite checks out of the recorded bodies: user
// messages (a string, or input_text and input_image parts,
// https://platform.openai.com/docs/guides/images-vision), function
// tools, and text.format's json_schema
// (https://platform.openai.com/docs/guides/structured-outputs).
func (r responsesFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range r.f.received() {
		out = append(out, readRequest(rec))
	}
	return out
}

func readRequest(rec recorded) providertest.Request {
	r := providertest.Request{Header: rec.header, Body: rec.body}
	var body struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Input  []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Text struct {
			Format struct {
				Type   string          `json:"type"`
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		} `json:"text"`
	}
	if json.Unmarshal(rec.body, &body) != nil {
		return r
	}
	r.Model, r.Stream = body.Model, body.Stream
	for _, it := range body.Input {
		if it.Role != "user" || (it.Type != "" && it.Type != "message") {
			continue
		}
		var text string
		if json.Unmarshal(it.Content, &text) == nil {
			r.UserText = append(r.UserText, text)
			continue
		}
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL string `json:"image_url"`
		}
		_ = json.Unmarshal(it.Content, &parts)
		text = ""
		for _, p := range parts {
			switch p.Type {
			case "input_text":
				text += p.Text
			case "input_image":
				r.Images = append(r.Images, imageOf(p.ImageURL))
			}
		}
		if text != "" {
			r.UserText = append(r.UserText, text)
		}
	}
	for _, tool := range body.Tools {
		if tool.Type == "function" {
			r.Tools = append(r.Tools, tool.Name)
		}
	}
	if body.Text.Format.Type == "json_schema" && len(body.Text.Format.Schema) > 0 {
		r.ResponseSchema = body.Text.Format.Schema
	}
	return r
}

// imageOf reads an input_image's image_url: a URL, or a base64 data URL.
func imageOf(u string) providertest.Image {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return providertest.Image{URL: u}
	}
	meta, data, _ := strings.Cut(rest, ",")
	mt, _ := strings.CutSuffix(meta, ";base64")
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return providertest.Image{URL: "(bad base64)"}
	}
	return providertest.Image{MediaType: mt, Data: b}
}
