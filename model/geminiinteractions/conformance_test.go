package geminiinteractions_test

import (
	"testing"

	"github.com/agno-go/agno/model/geminiinteractions"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite against fakeAPI, the Interactions REST API.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Provider: geminiinteractions.ProviderKey,
		ID:       "gemini-3-flash-preview",
		Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
			return newFakeAPI(t, turns...)
		},
	})
}
