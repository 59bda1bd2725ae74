package providers_test

import (
	"testing"

	"github.com/agno-go/agno/model"
	_ "github.com/agno-go/agno/model/providers"
)

// agnoNames are the provider names agno v2.6.13's get_model accepts
// (libs/agno/agno/models/utils.py): a port names its models by these, so
// each is a registered provider.
var agnoNames = []string{
	"aimlapi",
	"anthropic",
	"aws-bedrock",
	"aws-claude",
	"azure-ai-foundry",
	"azure-foundry-claude",
	"azure-openai",
	"cerebras",
	"cerebras-openai",
	"cloudflare",
	"cohere",
	"cometapi",
	"dashscope",
	"deepinfra",
	"deepseek",
	"fireworks",
	"google",
	"google-interactions",
	"groq",
	"huggingface",
	"ibm",
	"inception",
	"internlm",
	"langdb",
	"litellm",
	"litellm-openai",
	"llama-cpp",
	"llama-openai",
	"lmstudio",
	"meta",
	"minimax",
	"mistral",
	"moonshot",
	"n1n",
	"nebius",
	"neosantara",
	"nexus",
	"nvidia",
	"ollama",
	"openai",
	"openai-chat",
	"openai-responses",
	"openrouter",
	"perplexity",
	"portkey",
	"requesty",
	"sambanova",
	"siliconflow",
	"together",
	"vercel",
	"vertexai-claude",
	"vllm",
	"xai",
	"xiaomi",
}

func TestEveryAgnoProviderNameIsRegistered(t *testing.T) {
	for _, name := range agnoNames {
		p, ok := model.LookupProvider(name)
		if !ok {
			t.Errorf("agno's %q is not a registered provider", name)
			continue
		}
		if p.Summary == "" {
			t.Errorf("%q has no summary for the README", name)
		}
	}
	if _, ok := model.LookupProvider("openai-compatible"); !ok {
		t.Error("openai-compatible, our name for a bare base_url, is gone")
	}
}
