package openai

import (
	"cmp"

	"github.com/agno-go/agno/model"
)

// Preset is an OpenAI-compatible vendor agno has a model class for,
// under agno's model-string name (agno/models/utils.py): provider =
// "groq" fills in the vendor's endpoint, key variable and default model,
// each overridable in the [models.<key>] table, and the vendor's name is
// what run output, /registry and errors show.
type Preset struct {
	// Name is agno's model-string provider name ("groq").
	Name string
	// Class is agno's model class ("Groq"), for listings and for agno's
	// native reasoning rules of the class (NativeReasoning).
	Class string
	// ModelName is the class's name as agno reports it (model name), when
	// it is not Class.
	ModelName string
	// Provider is what agno reports as model_provider ("Groq"); the
	// vendor's name where agno's class inherits "OpenAI".
	Provider string
	// BaseURL is the vendor's endpoint, with its version path.
	BaseURL string
	// KeyEnv is the variable the key is read from; "" for a local server
	// that takes none (api_key_env may still name one).
	KeyEnv string
	// Model is agno's default model id for the class.
	Model string
}

// Presets are agno v2.6.13's OpenAILike classes with a fixed endpoint,
// plus the vendors agno reaches through their own SDKs whose servers
// also speak Chat Completions at a documented endpoint: Groq, Ollama,
// Mistral, Cohere (its Compatibility API), Hugging Face (its router),
// Cerebras, Meta's Llama API and InternLM. Key variables, default ids
// and names are agno's.
var Presets = []Preset{
	{Name: "aimlapi", Class: "AIMLAPI", Provider: "AIMLAPI", BaseURL: "https://api.aimlapi.com/v1", KeyEnv: "AIMLAPI_API_KEY", Model: "gpt-4o-mini"},
	{Name: "cerebras", Class: "Cerebras", Provider: "Cerebras", BaseURL: "https://api.cerebras.ai/v1", KeyEnv: "CEREBRAS_API_KEY", Model: "llama-4-scout-17b-16e-instruct"},
	{Name: "cerebras-openai", Class: "CerebrasOpenAI", Provider: "CerebrasOpenAI", BaseURL: "https://api.cerebras.ai/v1", KeyEnv: "CEREBRAS_API_KEY", Model: "llama-4-scout-17b-16e-instruct"},
	// https://docs.cohere.com/docs/compatibility-api
	{Name: "cohere", Class: "Cohere", ModelName: "cohere", Provider: "Cohere", BaseURL: "https://api.cohere.ai/compatibility/v1", KeyEnv: "CO_API_KEY", Model: "command-a-03-2025"},
	{Name: "cometapi", Class: "CometAPI", Provider: "CometAPI", BaseURL: "https://api.cometapi.com/v1", KeyEnv: "COMETAPI_KEY", Model: "gpt-5-mini"},
	{Name: "dashscope", Class: "DashScope", ModelName: "Qwen", Provider: "Dashscope", BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", KeyEnv: "DASHSCOPE_API_KEY", Model: "qwen-plus"},
	{Name: "deepinfra", Class: "DeepInfra", Provider: "DeepInfra", BaseURL: "https://api.deepinfra.com/v1/openai", KeyEnv: "DEEPINFRA_API_KEY", Model: "meta-llama/Llama-2-70b-chat-hf"},
	{Name: "deepseek", Class: "DeepSeek", Provider: "DeepSeek", BaseURL: "https://api.deepseek.com", KeyEnv: "DEEPSEEK_API_KEY", Model: "deepseek-v4-flash"},
	{Name: "fireworks", Class: "Fireworks", Provider: "Fireworks", BaseURL: "https://api.fireworks.ai/inference/v1", KeyEnv: "FIREWORKS_API_KEY", Model: "accounts/fireworks/models/gpt-oss-120b"},
	{Name: "groq", Class: "Groq", Provider: "Groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", Model: "llama-3.3-70b-versatile"},
	// https://huggingface.co/docs/inference-providers/index (the OpenAI-compatible router)
	{Name: "huggingface", Class: "HuggingFace", Provider: "HuggingFace", BaseURL: "https://router.huggingface.co/v1", KeyEnv: "HF_TOKEN", Model: "meta-llama/Meta-Llama-3-8B-Instruct"},
	{Name: "inception", Class: "Inception", Provider: "InceptionLabs", BaseURL: "https://api.inceptionlabs.ai/v1", KeyEnv: "INCEPTION_API_KEY", Model: "mercury-2"},
	{Name: "internlm", Class: "InternLM", Provider: "InternLM", BaseURL: "https://internlm-chat.intern-ai.org.cn/puyu/api/v1", KeyEnv: "INTERNLM_API_KEY", Model: "internlm2.5-latest"},
	// agno's LiteLLM runs the LiteLLM library in process; Go has none, so
	// "litellm" reaches a LiteLLM proxy, the library's server form, which
	// routes the same model names (https://docs.litellm.ai/docs/proxy/user_keys).
	{Name: "litellm", Class: "LiteLLM", Provider: "LiteLLM", BaseURL: "http://0.0.0.0:4000", Model: "gpt-4o"},
	{Name: "litellm-openai", Class: "LiteLLMOpenAI", ModelName: "LiteLLM", Provider: "LiteLLM", BaseURL: "http://0.0.0.0:4000", Model: "gpt-4o"},
	{Name: "llama-cpp", Class: "LlamaCpp", Provider: "LlamaCpp", BaseURL: "http://127.0.0.1:8080/v1", Model: "ggml-org/gpt-oss-20b-GGUF"},
	{Name: "llama-openai", Class: "LlamaOpenAI", Provider: "LlamaOpenAI", BaseURL: "https://api.llama.com/compat/v1/", KeyEnv: "LLAMA_API_KEY", Model: "Llama-4-Maverick-17B-128E-Instruct-FP8"},
	{Name: "lmstudio", Class: "LMStudio", Provider: "LMStudio", BaseURL: "http://127.0.0.1:1234/v1", Model: "qwen2.5-7b-instruct-1m"},
	// https://llama.developer.meta.com/docs/features/compatibility
	{Name: "meta", Class: "Llama", Provider: "Llama", BaseURL: "https://api.llama.com/compat/v1/", KeyEnv: "LLAMA_API_KEY", Model: "Llama-4-Maverick-17B-128E-Instruct-FP8"},
	{Name: "minimax", Class: "MiniMax", Provider: "MiniMax", BaseURL: "https://api.minimax.io/v1", KeyEnv: "MINIMAX_API_KEY", Model: "MiniMax-M3"},
	// https://docs.mistral.ai/api/ (POST /v1/chat/completions)
	{Name: "mistral", Class: "MistralChat", Provider: "Mistral", BaseURL: "https://api.mistral.ai/v1", KeyEnv: "MISTRAL_API_KEY", Model: "mistral-large-latest"},
	{Name: "moonshot", Class: "MoonShot", ModelName: "Moonshot", Provider: "Moonshot", BaseURL: "https://api.moonshot.ai/v1", KeyEnv: "MOONSHOT_API_KEY", Model: "kimi-k2.5"},
	{Name: "n1n", Class: "N1N", Provider: "N1N", BaseURL: "https://api.n1n.ai/v1", KeyEnv: "N1N_API_KEY", Model: "gpt-4o"},
	{Name: "nebius", Class: "Nebius", Provider: "Nebius", BaseURL: "https://api.tokenfactory.nebius.com/v1/", KeyEnv: "NEBIUS_API_KEY", Model: "openai/gpt-oss-20b"},
	{Name: "neosantara", Class: "Neosantara", Provider: "Neosantara", BaseURL: "https://api.neosantara.xyz/v1", KeyEnv: "NEOSANTARA_API_KEY", Model: "grok-4.1-fast-non-reasoning"},
	{Name: "nexus", Class: "Nexus", Provider: "Nexus", BaseURL: "http://localhost:8000/llm/v1/", Model: "openai/gpt-4"},
	{Name: "nvidia", Class: "Nvidia", Provider: "Nvidia", BaseURL: "https://integrate.api.nvidia.com/v1", KeyEnv: "NVIDIA_API_KEY", Model: "meta/llama-3.3-70b-instruct"},
	{Name: "ollama", Class: "Ollama", Provider: "Ollama", BaseURL: "http://localhost:11434/v1", Model: "llama3.1"},
	{Name: "openrouter", Class: "OpenRouter", Provider: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", Model: "gpt-5.4-mini"},
	{Name: "perplexity", Class: "Perplexity", Provider: "Perplexity", BaseURL: "https://api.perplexity.ai/", KeyEnv: "PERPLEXITY_API_KEY", Model: "sonar"},
	{Name: "requesty", Class: "Requesty", Provider: "Requesty", BaseURL: "https://router.requesty.ai/v1", KeyEnv: "REQUESTY_API_KEY", Model: "openai/gpt-4.1"},
	{Name: "sambanova", Class: "Sambanova", Provider: "Sambanova", BaseURL: "https://api.sambanova.ai/v1", KeyEnv: "SAMBANOVA_API_KEY", Model: "Meta-Llama-3.1-8B-Instruct"},
	{Name: "siliconflow", Class: "Siliconflow", Provider: "Siliconflow", BaseURL: "https://api.siliconflow.cn/v1", KeyEnv: "SILICONFLOW_API_KEY", Model: "Qwen/QwQ-32B"},
	{Name: "together", Class: "Together", Provider: "Together", BaseURL: "https://api.together.xyz/v1", KeyEnv: "TOGETHER_API_KEY", Model: "MiniMaxAI/MiniMax-M2.7"},
	{Name: "vercel", Class: "V0", ModelName: "v0", Provider: "Vercel", BaseURL: "https://api.v0.dev/v1/", KeyEnv: "V0_API_KEY", Model: "v0-1.0-md"},
	{Name: "vllm", Class: "VLLM", Provider: "VLLM", BaseURL: "http://localhost:8000/v1/", Model: "not-set"},
	{Name: "xai", Class: "xAI", Provider: "xAI", BaseURL: "https://api.x.ai/v1", KeyEnv: "XAI_API_KEY", Model: "grok-4-1-fast-non-reasoning-latest"},
	{Name: "xiaomi", Class: "MiMo", Provider: "Xiaomi MiMo", BaseURL: "https://api.xiaomimimo.com/v1", KeyEnv: "MIMO_API_KEY", Model: "mimo-v2.5-pro"},
}

func init() {
	for _, p := range Presets {
		model.RegisterProvider(model.Provider[Options]{
			Name:    p.Name,
			Summary: "agno's " + p.Class + ": " + p.BaseURL + " (OpenAI-compatible)",
			KeyEnv:  p.KeyEnv, DefaultMaxRetries: DefaultMaxRetries, DefaultModel: p.Model,
			New: func(s model.ProviderSettings, o *Options) (model.Model, error) { return p.New(s, o) },
		})
	}
}

// New is the preset's model: the settings' base URL, key and id where
// set, else the vendor's.
func (p Preset) New(s model.ProviderSettings, o *Options) (model.Model, error) {
	return New(Config{
		ID: cmp.Or(s.ID, p.Model), BaseURL: cmp.Or(s.BaseURL, p.BaseURL), APIKey: s.APIKey, Compatible: true,
		Name: cmp.Or(p.ModelName, p.Class), Provider: p.Provider, Class: p.Class, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Logger: s.Logger,
		Organization: o.Organization, Headers: mergeHeaders(s.Headers, o.DefaultHeaders),
	})
}
