package openai

import (
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

// Requests reads what the suite checks out of the recorded requests.
func (f chatCompletionsFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range f.srv.Requests() {
		out = append(out, rec.SuiteRequest())
	}
	return out
}
