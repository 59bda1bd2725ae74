package openai

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite against modeltest.Server, the fake Chat
// Completions server, for both registered names: OpenAI itself and any
// compatible endpoint.
func TestConformance(t *testing.T) {
	t.Run(ProviderOpenAIChat, func(t *testing.T) {
		providertest.Run(t, providertest.Harness{
			Provider: ProviderOpenAIChat,
			ID:       "gpt-4o-mini",
			Start:    startChatCompletionsFake,
			Unsupported: map[providertest.Feature]string{
				providertest.Reasoning: "OpenAI's Chat Completions API returns no reasoning text, only reasoning_tokens in usage; " +
					"the reasoning_content of compatible servers is checked under " + ProviderCompatible,
			},
		})
	})
	t.Run(ProviderCompatible, func(t *testing.T) {
		providertest.Run(t, providertest.Harness{
			Provider: ProviderCompatible,
			ID:       "deepseek-reasoner",
			Start:    startChatCompletionsFake,
		})
	})
}

// chatCompletionsFake adapts modeltest.Server to the suite.
type chatCompletionsFake struct{ srv *modeltest.Server }

func startChatCompletionsFake(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	script := make([]modeltest.Response, len(turns))
	for i, turn := range turns {
		r := modeltest.Response{
			Content:         strings.Join(turn.Text, ""),
			Tokens:          turn.Text,
			Reasoning:       strings.Join(turn.Reasoning, ""),
			ReasoningTokens: turn.Reasoning,
			Usage:           &model.Usage{InputTokens: turn.InputTokens, OutputTokens: turn.OutputTokens},
			Status:          turn.Status,
			ErrorMessage:    turn.ErrorMessage,
			RetryAfter:      turn.RetryAfter,
			Hang:            turn.End == providertest.Stall,
			Cut:             turn.End == providertest.Cut,
		}
		for _, c := range turn.ToolCalls {
			r.ToolCalls = append(r.ToolCalls, model.NewToolCall(c.ID, c.Name, c.Arguments))
		}
		script[i] = r
	}
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: script, APIKey: providertest.APIKey})
	t.Cleanup(srv.Close)
	return chatCompletionsFake{srv}
}

func (f chatCompletionsFake) URL() string                   { return f.srv.URL }
func (f chatCompletionsFake) Disconnected() <-chan struct{} { return f.srv.Abandoned() }
func (f chatCompletionsFake) Close()                        { f.srv.Close() }

// Requests reads what the suite checks out of the recorded requests:
// images are image_url content parts, inline ones as data URLs, and the
// schema is response_format.json_schema.schema
// (https://platform.openai.com/docs/api-reference/chat/create).
func (f chatCompletionsFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range f.srv.Requests() {
		r := providertest.Request{Header: rec.Header, Body: rec.Body}
		var head struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(rec.Body, &head)
		r.Model = head.Model
		if req := rec.Request; req != nil {
			r.Stream = req.Stream
			for _, m := range req.Messages {
				if m.Role != model.RoleUser {
					continue
				}
				if m.Content != "" {
					r.UserText = append(r.UserText, m.Content)
				}
				for _, img := range m.Images {
					r.Images = append(r.Images, wireImage(img.URL))
				}
			}
			for _, tool := range req.Tools {
				r.Tools = append(r.Tools, tool.Name)
			}
			if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" {
				r.ResponseSchema = rf.Schema
			}
		}
		out = append(out, r)
	}
	return out
}

// wireImage reads an image_url: a base64 data URL is an inline image.
func wireImage(u string) providertest.Image {
	header, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(header, ";base64")
	if !strings.HasPrefix(u, "data:") || !ok || !isBase64 {
		return providertest.Image{URL: u}
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return providertest.Image{URL: u}
	}
	return providertest.Image{MediaType: mediaType, Data: data}
}
