package gemini_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agno-go/agno/model/gemini"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite against fakeAPI as the Gemini API.
func TestConformance(t *testing.T) {
	t.Setenv(gemini.EnvUseVertexAI, "")
	providertest.Run(t, providertest.Harness{
		Provider: gemini.ProviderGoogle,
		ID:       "gemini-2.5-flash",
		Start:    startFake,
	})
}

// The same suite against Vertex AI in express mode (an API key, no
// project): the SDK's Vertex AI paths and converters.
func TestConformanceVertexExpress(t *testing.T) {
	t.Setenv(gemini.EnvProject, "")
	t.Setenv(gemini.EnvLocation, "")
	providertest.Run(t, providertest.Harness{
		Provider: gemini.ProviderGoogle,
		ID:       "gemini-2.5-pro",
		Options:  &gemini.Options{VertexAI: true},
		Start:    startFake,
	})
}

type suiteFake struct{ f *fakeAPI }

func startFake(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	replies := make([]reply, len(turns))
	for i, turn := range turns {
		replies[i] = renderTurn(turn)
	}
	return suiteFake{newFakeAPI(t, providertest.APIKey, replies...)}
}

func (s suiteFake) URL() string                   { return s.f.srv.URL }
func (s suiteFake) Disconnected() <-chan struct{} { return s.f.gone }
func (s suiteFake) Close()                        { s.f.close() }

// rpcStatus is the google.rpc.Code name the API sends with each HTTP
// status (https://cloud.google.com/apis/design/errors#error_codes).
var rpcStatus = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

// renderTurn writes a turn as an error body, or as both a JSON response
// and the SSE events of the same answer.
func renderTurn(turn providertest.Turn) reply {
	if turn.Status != 0 {
		delay := ""
		if turn.RetryAfter > 0 {
			delay = fmt.Sprintf("%gs", turn.RetryAfter.Seconds())
		}
		return reply{status: turn.Status, body: errorBody(turn.Status, rpcStatus[turn.Status], turn.ErrorMessage, delay)}
	}
	finish := "STOP"
	var parts []map[string]any
	if len(turn.Reasoning) > 0 {
		parts = append(parts, textPart(strings.Join(turn.Reasoning, ""), true, ""))
	}
	if len(turn.Text) > 0 {
		parts = append(parts, textPart(strings.Join(turn.Text, ""), false, ""))
	}
	for _, c := range turn.ToolCalls {
		parts = append(parts, callPart(c.ID, c.Name, c.Arguments, ""))
	}
	full := usageOf(turn.InputTokens, turn.OutputTokens, 0, 0)
	r := reply{body: response(parts, finish, full), hold: turn.End == providertest.Stall, cut: turn.End == providertest.Cut}
	// Streamed: one event per delta, each with the usage so far (the API
	// repeats usageMetadata on every chunk), calls whole in one event,
	// the finish reason and final usage on the last.
	partial := usageOf(turn.InputTokens, 0, 0, 0)
	for _, d := range turn.Reasoning {
		r.events = append(r.events, response([]map[string]any{textPart(d, true, "")}, "", partial))
	}
	for _, d := range turn.Text {
		r.events = append(r.events, response([]map[string]any{textPart(d, false, "")}, "", partial))
	}
	if turn.End == providertest.Complete {
		var calls []map[string]any
		for _, c := range turn.ToolCalls {
			calls = append(calls, callPart(c.ID, c.Name, c.Arguments, ""))
		}
		r.events = append(r.events, response(calls, finish, full))
	}
	return r
}

// Requests reads what the suite checks out of the recorded requests.
func (s suiteFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range s.f.received() {
		id, method, _ := modelAndMethod(rec.path)
		req := readRequest(rec.body)
		r := providertest.Request{Header: rec.header, Body: rec.body, Model: id, Stream: method == "streamGenerateContent"}
		for _, c := range req.Contents {
			if c.Role != "user" {
				continue
			}
			if text := textOf(c.Parts); text != "" {
				r.UserText = append(r.UserText, text)
			}
			for _, p := range c.Parts {
				switch {
				case p.InlineData != nil:
					data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
					if err != nil {
						r.Images = append(r.Images, providertest.Image{URL: "(bad base64)"})
						continue
					}
					r.Images = append(r.Images, providertest.Image{MediaType: p.InlineData.MimeType, Data: data})
				case p.FileData != nil:
					r.Images = append(r.Images, providertest.Image{URL: p.FileData.FileURI})
				}
			}
		}
		for _, tool := range req.Tools {
			for _, d := range tool.FunctionDeclarations {
				r.Tools = append(r.Tools, d.Name)
			}
		}
		gc := req.GenerationConfig
		if gc.ResponseMimeType == "application/json" {
			if len(gc.ResponseJsonSchema) > 0 {
				r.ResponseSchema = gc.ResponseJsonSchema
			} else if len(gc.ResponseSchema) > 0 {
				r.ResponseSchema = gc.ResponseSchema
			}
		}
		out = append(out, r)
	}
	return out
}

var _ = http.StatusOK
