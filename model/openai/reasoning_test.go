package openai

import (
	"testing"

	"github.com/agno-go/agno/model"
)

// sdkClasses are the presets whose agno class is not OpenAILike: agno
// reaches these vendors through their own SDKs (agno/models/*: class
// X(Model)).
var sdkClasses = map[string]bool{
	"Cerebras": true, "Cohere": true, "Groq": true, "HuggingFace": true, "LiteLLM": true,
	"Llama": true, "MistralChat": true, "Ollama": true,
}

// Each preset's class is classified, so a new preset cannot silently
// fall outside agno's OpenAILike reasoning rule.
func TestPresetClassesAreClassified(t *testing.T) {
	for _, p := range Presets {
		if openAILikeClasses[p.Class] == sdkClasses[p.Class] {
			t.Errorf("preset %q: class %q must be either OpenAILike or an SDK class", p.Name, p.Class)
		}
	}
}

func TestNativeReasoning(t *testing.T) {
	cases := []struct {
		class, id string
		want      model.NativeReasoning
	}{
		{"DeepSeek", "deepseek-reasoner", model.ReasoningThinking},
		{"DeepSeek", "deepseek-v3.1-terminus", model.ReasoningThinking},
		{"DeepSeek", "deepseek-chat", model.ReasoningNone},
		// DeepSeek is OpenAILike: its rule failing, the OpenAILike one applies.
		{"DeepSeek", "minimax-m2", model.ReasoningContent},
		{ClassChat, "o1-preview", model.ReasoningContent},
		{ClassChat, "gpt-4o", model.ReasoningNone},
		{"AzureOpenAI", "gpt-5.1-chat", model.ReasoningContent},
		{"AzureOpenAI", "DeepSeek-R1", model.ReasoningContent},
		{ClassCompatible, "o3-mini", model.ReasoningNone},
		{ClassCompatible, "MiniMax-M3", model.ReasoningContent},
		{"Groq", "qwen/qwen3-32b", model.ReasoningContent},
		{"Groq", "minimax-m2", model.ReasoningNone},
		{"Ollama", "qwen2.5-coder:7b", model.ReasoningContent},
		{"Ollama", "QwQ", model.ReasoningNone},
		{"WatsonX", "deepseek-r1", model.ReasoningNone},
		{"AzureAIFoundry", "minimax-m2", model.ReasoningNone},
	}
	for _, c := range cases {
		if got := NativeReasoning(c.class, c.id); got != c.want {
			t.Errorf("NativeReasoning(%q, %q) = %q, want %q", c.class, c.id, got, c.want)
		}
	}
}

// An explicit Config.NativeReasoning wins over the class's rule.
func TestConfigNativeReasoningOverride(t *testing.T) {
	m, err := New(Config{ID: "gpt-4o", Class: "AzureAIFoundry", Compatible: true, BaseURL: "http://localhost:1/v1", NativeReasoning: model.ReasoningContent})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info().NativeReasoning; got != model.ReasoningContent {
		t.Errorf("NativeReasoning = %q, want content", got)
	}
}
