package agentos

import (
	"strings"

	"github.com/agno-go/agno/agentos/memoriesapi"
	"github.com/agno-go/agno/model"
)

// UserMemorySchema is agno's UserMemorySchema; every field is present
// (the memory routes keep None).
type UserMemorySchema = memoriesapi.UserMemorySchema

// UserStatsSchema is agno's UserStatsSchema (GET /user_memory_stats).
type UserStatsSchema = memoriesapi.UserStatsSchema

// memoriesHost is what the Memory group (agentos/memoriesapi) needs of
// the OS beyond groupHost: the models that merge memories.
type memoriesHost struct{ groupHost }

func (h memoriesHost) NamedModel(provider, id string) (model.Model, error) {
	return h.o.namedModel(provider, id)
}

func (h memoriesHost) MemoryModel() model.Model {
	for _, a := range h.o.catalog().Agents {
		if mm := a.Config().MemoryManager; mm != nil && !isNil(mm.Model()) {
			return mm.Model()
		}
	}
	return nil
}

// namedModel is agno's get_model("provider:id"): a model this AgentOS
// serves (its endpoint and key are the configured ones), else a model of
// the registered provider built from the provider's API key variable.
func (o *OS) namedModel(provider, id string) (model.Model, error) {
	for _, m := range o.registry().Models() {
		if info := m.Info(); strings.EqualFold(info.Provider, provider) && strings.EqualFold(info.ID, id) {
			return m, nil
		}
	}
	return model.FromProvider(provider, id)
}
