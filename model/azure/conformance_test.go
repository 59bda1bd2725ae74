package azure

import (
	"testing"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite, each provider against a fake of its Azure
// endpoint (fakeserver_test.go).
func TestConformance(t *testing.T) {
	t.Run(ProviderOpenAI, func(t *testing.T) {
		// base_url in agno's shape, "<endpoint>/openai"; the id is the
		// deployment requests are routed to.
		providertest.Run(t, providertest.Harness{
			Provider: ProviderOpenAI,
			ID:       "gpt-4o-prod",
			Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
				return startAzureFake(t, openAIWire(DefaultAPIVersion, providertest.APIKey, ""), "/openai", turns...)
			},
			Unsupported: map[providertest.Feature]string{
				providertest.Reasoning: "Azure OpenAI's Chat Completions, like OpenAI's, return no reasoning text, only reasoning_tokens in usage",
			},
		})
	})
	t.Run(ProviderFoundry, func(t *testing.T) {
		// Foundry's reasoning models (DeepSeek-R1) send reasoning_content.
		providertest.Run(t, providertest.Harness{
			Provider: ProviderFoundry,
			ID:       "DeepSeek-R1",
			Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
				return startAzureFake(t, foundryWire("/models", DefaultFoundryAPIVersion, providertest.APIKey), "/models", turns...)
			},
		})
	})
}
