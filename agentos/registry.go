package agentos

import (
	"log/slog"

	"github.com/agno-go/agno/agentos/registryapi"
)

// The Registry route group lives in agentos/registryapi; these are the
// package's names for its types, and the OS's registry of its catalog.

// ResourceType is a kind of registry entry (agno's RegistryResourceType).
type ResourceType = registryapi.ResourceType

// Resource types GET /registry accepts in resource_type.
const (
	ResourceTool                  = registryapi.ResourceTool
	ResourceModel                 = registryapi.ResourceModel
	ResourceDB                    = registryapi.ResourceDB
	ResourceVectorDB              = registryapi.ResourceVectorDB
	ResourceSchema                = registryapi.ResourceSchema
	ResourceFunction              = registryapi.ResourceFunction
	ResourceAgent                 = registryapi.ResourceAgent
	ResourceTeam                  = registryapi.ResourceTeam
	ResourceWorkflow              = registryapi.ResourceWorkflow
	ResourceKnowledge             = registryapi.ResourceKnowledge
	ResourceMemoryManager         = registryapi.ResourceMemoryManager
	ResourceSessionSummaryManager = registryapi.ResourceSessionSummaryManager
)

// ResourceTypes lists every ResourceType, in agno's enum order.
var ResourceTypes = registryapi.ResourceTypes

// resourceTypeStrings is the enum of an entry's type in the documents.
var resourceTypeStrings = registryapi.ResourceTypeNames

// RegistryEntry is one listed resource (agno's RegistryContentResponse).
type RegistryEntry = registryapi.Entry

// RegistryDB is a database in the registry; ID is empty when the store
// has none (it is then deduplicated by identity).
type RegistryDB = registryapi.DB

// RegistryFunction is a named Go function: a workflow step executor or
// a function given in Config.Functions.
type RegistryFunction = registryapi.Function

// Registry is what AgentOS lists at GET /registry: its agents, teams and
// workflows, and every model, tool, database and step function wired
// into them (agno v2.6.13 auto-population). Entries added first win a
// deduplication, so resources given explicitly keep their own objects.
// It is safe for concurrent use. It is not an alias of
// registryapi.Registry because Populate takes the OS's Catalog.
type Registry struct{ *registryapi.Registry }

// NewRegistry returns an empty registry; logger nil is slog.Default().
func NewRegistry(logger *slog.Logger) *Registry {
	return &Registry{registryapi.NewRegistry(logger, knowledgeNamer(""))}
}

// Populate adds c's agents, teams and workflows and walks them:
// agents' models (fallbacks included), tools and stores; teams' the same
// and their members, recursively; workflows' stores and every step.
// One that fails is logged at debug level and the rest still count.
func (r *Registry) Populate(c Catalog) { r.Registry.Populate(c.Agents, c.Teams, c.Workflows) }

// registry returns the registry of the current catalog.
func (o *OS) registry() *Registry {
	cat := o.catalog()
	cat.registryOnce.Do(func() { cat.registry = o.buildRegistry(cat.Catalog) })
	return cat.registry
}

// buildRegistry puts the explicitly given resources first (so they keep
// their objects), then walks the catalog.
func (o *OS) buildRegistry(c Catalog) *Registry {
	return &Registry{registryapi.Build(registryapi.Config{
		Logger: o.log, KnowledgeName: knowledgeNamer(o.cfg.DBID),
		DBID: o.cfg.DBID, Store: o.cfg.Store, Tools: o.cfg.Tools, Functions: o.cfg.Functions, Knowledge: o.cfg.Knowledge,
	}, c.Agents, c.Teams, c.Workflows)}
}

// LogRegistry logs how many resources of each kind the registry holds
// ("watch registry counts in the logs"); call it at start and after a
// reload.
func (o *OS) LogRegistry() {
	counts := o.registry().Counts()
	attrs := make([]any, 0, 2*len(ResourceTypes))
	for _, t := range []ResourceType{ResourceAgent, ResourceTeam, ResourceWorkflow, ResourceModel, ResourceTool, ResourceDB, ResourceFunction, ResourceKnowledge, ResourceVectorDB} {
		attrs = append(attrs, string(t)+"s", counts[t])
	}
	o.log.Info("agentos registry", attrs...)
	if counts[ResourceAgent]+counts[ResourceTeam]+counts[ResourceWorkflow] == 0 {
		o.log.Warn("agentos registry has no agents, teams or workflows: check the registry sources in config.toml")
	}
}
