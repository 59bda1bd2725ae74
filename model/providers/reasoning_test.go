package providers_test

import (
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/awsclaude"
	"github.com/agno-go/agno/model/azure"
	"github.com/agno-go/agno/model/azureclaude"
	"github.com/agno-go/agno/model/bedrock"
	"github.com/agno-go/agno/model/gemini"
	"github.com/agno-go/agno/model/vertexclaude"
	"github.com/agno-go/agno/model/watsonx"
)

// TestNativeReasoningByAgnosRules builds models through the registry, as
// a configuration does, and checks Info().NativeReasoning against agno
// v2.6.13's reasoning/*.py is_*_reasoning_model for representative ids.
func TestNativeReasoningByAgnosRules(t *testing.T) {
	thinking := &anthropic.Thinking{Type: "enabled", BudgetTokens: 2048}
	budget, zero, include := 1024, 0, false
	const (
		none    = model.ReasoningNone
		think   = model.ReasoningThinking
		content = model.ReasoningContent
	)
	cases := []struct {
		provider, id, baseURL string
		opts                  any
		want                  model.NativeReasoning
	}{
		// deepseek.py, checked first.
		{provider: "deepseek", id: "deepseek-reasoner", want: think},
		{provider: "deepseek", id: "deepseek-chat", want: none},
		{provider: "deepseek", id: "deepseek-v3", want: none},
		{provider: "deepseek", id: "DeepSeek-V3.2-Exp", want: think},
		{provider: "deepseek", want: think}, // agno's default, deepseek-v4-flash
		// openai.py: OpenAIChat, OpenAIResponses and AzureOpenAI by the id
		// as written.
		{provider: "openai-chat", id: "o3-mini", want: content},
		{provider: "openai-chat", id: "gpt-4o", want: none},
		{provider: "openai-chat", id: "O3-MINI", want: none},
		{provider: "openai-chat", id: "gpt-5.2", want: content},
		{provider: "openai", id: "gpt-5.1", want: content},
		{provider: "openai", id: "gpt-4.1", want: none},
		{provider: "openai-responses", id: "o4-mini", want: content},
		{provider: "azure-openai", id: "o1", opts: &azure.OpenAIOptions{AzureEndpoint: "https://r.openai.azure.com"}, want: content},
		{provider: "azure-openai", id: "gpt-4o", opts: &azure.OpenAIOptions{AzureEndpoint: "https://r.openai.azure.com"}, want: none},
		// openai.py: any OpenAILike by the lower-cased id; OpenAIChat and
		// the SDK classes are not OpenAILike.
		{provider: "openrouter", id: "deepseek/deepseek-r1", want: content},
		{provider: "openrouter", id: "openai/o3-mini", want: none},
		{provider: "together", id: "MiniMaxAI/MiniMax-M2.7", want: content},
		{provider: "minimax", want: content}, // agno's default, MiniMax-M3
		{provider: "internlm", id: "deepseek-r1", want: content},
		{provider: "openai-compatible", id: "DeepSeek-R1-Distill", baseURL: "http://localhost:8000/v1", want: content},
		{provider: "openai-compatible", id: "qwq", baseURL: "http://localhost:8000/v1", want: none},
		{provider: "openai-chat", id: "deepseek-r1", want: none},
		{provider: "mistral", id: "deepseek-r1", want: none},
		{provider: "litellm", id: "deepseek-r1", want: none},
		{provider: "litellm-openai", id: "deepseek-r1", want: content},
		{provider: "ibm", id: "deepseek-r1", opts: &watsonx.Options{ProjectID: "p"}, want: none},
		// groq.py.
		{provider: "groq", id: "openai/gpt-oss-120b", want: content},
		{provider: "groq", id: "deepseek-r1-distill-llama-70b", want: content},
		{provider: "groq", id: "Qwen/Qwen3-32B", want: content},
		{provider: "groq", id: "llama-3.3-70b-versatile", want: none},
		// ollama.py, by the id as written.
		{provider: "ollama", id: "qwq", want: content},
		{provider: "ollama", id: "deepseek-r1:8b", want: content},
		{provider: "ollama", id: "openthinker:7b", want: content},
		{provider: "ollama", id: "llama3.1", want: none},
		// azure_ai_foundry.py.
		{provider: "azure-ai-foundry", id: "DeepSeek-R1", opts: &azure.FoundryOptions{AzureEndpoint: "https://r.services.ai.azure.com/models"}, want: content},
		{provider: "azure-ai-foundry", id: "o3-mini", opts: &azure.FoundryOptions{AzureEndpoint: "https://r.services.ai.azure.com/models"}, want: content},
		{provider: "azure-ai-foundry", id: "MiniMax-M2", opts: &azure.FoundryOptions{AzureEndpoint: "https://r.services.ai.azure.com/models"}, want: none},
		{provider: "azure-ai-foundry", id: "gpt-4o", opts: &azure.FoundryOptions{AzureEndpoint: "https://r.services.ai.azure.com/models"}, want: none},
		// anthropic.py: provider Anthropic with thinking set.
		{provider: "anthropic", id: "claude-sonnet-4-5", opts: &anthropic.Options{Thinking: thinking}, want: think},
		{provider: "anthropic", id: "claude-sonnet-4-5", opts: &anthropic.Options{Thinking: &anthropic.Thinking{Type: "disabled"}}, want: think},
		{provider: "anthropic", id: "claude-sonnet-4-5", want: none},
		{provider: "aws-claude", opts: &awsclaude.Options{AWSRegion: "us-east-1", Options: anthropic.Options{Thinking: thinking}}, want: none},
		{provider: "azure-foundry-claude", opts: &azureclaude.Options{Resource: "r", Options: anthropic.Options{Thinking: thinking}}, want: none},
		// vertexai.py: provider VertexAI with thinking set.
		{provider: "vertexai-claude", opts: &vertexclaude.Options{Region: "us-east5", ProjectID: "p", Options: anthropic.Options{Thinking: thinking}}, want: think},
		{provider: "vertexai-claude", opts: &vertexclaude.Options{Region: "us-east5", ProjectID: "p"}, want: none},
		// gemini.py: Gemini on the Gemini API and Vertex AI alike.
		{provider: "google", id: "gemini-2.5-flash", want: think},
		{provider: "google", id: "gemini-3-pro-preview", want: think},
		{provider: "google", id: "gemini-2.0-flash", want: none},
		{provider: "google", id: "gemini-2.0-flash", opts: &gemini.Options{ThinkingBudget: &budget}, want: think},
		{provider: "google", id: "gemini-2.0-flash", opts: &gemini.Options{ThinkingBudget: &zero}, want: none},
		{provider: "google", id: "gemini-2.0-flash", opts: &gemini.Options{IncludeThoughts: &include}, want: think},
		{provider: "google", id: "gemini-2.5-pro", opts: &gemini.Options{VertexAI: true}, want: think}, // express mode, by key
		// No rule names GeminiInteractions or AwsBedrock.
		{provider: "google-interactions", id: "gemini-3-flash-preview", want: none},
		{provider: "aws-bedrock", id: "us.deepseek.r1-v1:0", opts: &bedrock.Options{AwsRegion: "us-east-1"}, want: none},
	}
	for _, c := range cases {
		t.Run(c.provider+":"+c.id, func(t *testing.T) {
			p, ok := model.LookupProvider(c.provider)
			if !ok {
				t.Fatalf("%q is not registered", c.provider)
			}
			m, err := p.New(model.ProviderSettings{ID: c.id, APIKey: "fake-key", BaseURL: c.baseURL}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Info().NativeReasoning; got != c.want {
				t.Errorf("NativeReasoning = %q, want %q", got, c.want)
			}
		})
	}
}
