package openai

import (
	"strings"

	"github.com/agno-go/agno/model"
)

// Classes of agno this package stands for by default.
const (
	ClassChat       = "OpenAIChat"
	ClassCompatible = "OpenAILike"
)

// openAILikeClasses are agno v2.6.13's subclasses of OpenAILike
// (agno/models/*: class X(OpenAILike)), which agno's OpenAILike reasoning
// rule covers. The vendors agno reaches through their own SDKs (Groq,
// Ollama, MistralChat, Cohere, HuggingFace, Cerebras, Llama, LiteLLM,
// AzureAIFoundry, WatsonX) are not among them.
var openAILikeClasses = map[string]bool{
	ClassCompatible: true, "AIMLAPI": true, "AzureOpenAI": true, "CerebrasOpenAI": true, "Cloudflare": true,
	"CometAPI": true, "DashScope": true, "DeepInfra": true, "DeepSeek": true, "Fireworks": true,
	"Inception": true, "InternLM": true, "LangDB": true, "LiteLLMOpenAI": true, "LlamaCpp": true,
	"LMStudio": true, "LlamaOpenAI": true, "MiniMax": true, "MoonShot": true, "N1N": true, "Nebius": true,
	"Neosantara": true, "Nexus": true, "Nvidia": true, "OpenRouter": true, "Perplexity": true,
	"Portkey": true, "Requesty": true, "Sambanova": true, "Siliconflow": true, "Together": true,
	"TuningEngines": true, "V0": true, "VLLM": true, "xAI": true, "MiMo": true,
}

// NativeReasoning is how agno's model class serving id reasons natively,
// by agno's reasoning modules in the order reasoning/manager.py tries
// them: deepseek.py (the DeepSeek class), openai.py (OpenAIChat and
// AzureOpenAI by exact id; any OpenAILike by id), groq.py and ollama.py.
// A class none of them names reasons by agno's chain-of-thought loop.
func NativeReasoning(class, id string) model.NativeReasoning {
	lower := strings.ToLower(id)
	switch class {
	case "DeepSeek":
		if containsAny(lower, "reasoner", "r1", "v4", "v3.1", "v3.2") {
			return model.ReasoningThinking
		}
	case ClassChat, "AzureOpenAI":
		// agno matches the id as written, not lower-cased.
		if containsAny(id, "o4", "o3", "o1", "5.1", "5.2") {
			return model.ReasoningContent
		}
	case "Groq":
		if containsAny(lower, "deepseek", "openai/gpt-oss-20b", "openai/gpt-oss-120b", "qwen/qwen3-32b") {
			return model.ReasoningContent
		}
	case "Ollama":
		if containsAny(id, "qwq", "deepseek-r1", "qwen2.5-coder", "openthinker") {
			return model.ReasoningContent
		}
	}
	if openAILikeClasses[class] && containsAny(lower, "deepseek-r1", "minimax-m2", "minimax-m3") {
		return model.ReasoningContent
	}
	return model.ReasoningNone
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
