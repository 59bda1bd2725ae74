package registryapi

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// ResourceType is a kind of registry entry (agno's RegistryResourceType).
type ResourceType string

// Resource types GET /registry accepts in resource_type.
const (
	ResourceTool                  ResourceType = "tool"
	ResourceModel                 ResourceType = "model"
	ResourceDB                    ResourceType = "db"
	ResourceVectorDB              ResourceType = "vector_db"
	ResourceSchema                ResourceType = "schema"
	ResourceFunction              ResourceType = "function"
	ResourceAgent                 ResourceType = "agent"
	ResourceTeam                  ResourceType = "team"
	ResourceWorkflow              ResourceType = "workflow"
	ResourceKnowledge             ResourceType = "knowledge"
	ResourceMemoryManager         ResourceType = "memory_manager"
	ResourceSessionSummaryManager ResourceType = "session_summary_manager"
)

// ResourceTypes lists every ResourceType, in agno's enum order.
var ResourceTypes = []ResourceType{
	ResourceTool, ResourceModel, ResourceDB, ResourceVectorDB, ResourceSchema, ResourceFunction,
	ResourceAgent, ResourceTeam, ResourceWorkflow, ResourceKnowledge, ResourceMemoryManager, ResourceSessionSummaryManager,
}

// ResourceTypeNames are ResourceTypes as strings: the enum of
// resource_type and of an entry's type in the documents.
func ResourceTypeNames() []string {
	out := make([]string, len(ResourceTypes))
	for i, t := range ResourceTypes {
		out[i] = string(t)
	}
	return out
}

// Entry is one listed resource (agno's RegistryContentResponse).
type Entry struct {
	Name        string         `json:"name"`
	Type        ResourceType   `json:"type"`
	ID          string         `json:"id,omitempty"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// DB is a database in the registry; ID is empty when the store has none
// (it is then deduplicated by identity).
type DB struct {
	ID    string
	Store storage.Store
}

// Function is a named Go function: a workflow step executor or a
// function given in Config.Functions.
type Function struct {
	Name string
	Func any
}

// Registry is what AgentOS lists at GET /registry: its agents, teams and
// workflows, and every model, tool, database and step function wired
// into them (agno v2.6.13 auto-population). Entries added first win a
// deduplication, so resources given explicitly keep their own objects.
// It is safe for concurrent use.
type Registry struct {
	log *slog.Logger

	mu        sync.Mutex
	agents    []*agent.Agent
	teams     []*team.Team
	workflows []*workflow.Workflow
	models    []model.Model
	tools     []tool.Provider
	dbs       []DB
	functions []Function
	knowledge []*knowledge.Knowledge
	// name gives knowledge entries their id and name.
	name KnowledgeNamer
	// owners are the agents whose memory or session summary managers are
	// listed ({owner_id}__memory_manager, …).
	owners []*agent.Agent

	seen      map[any]bool       // identities of agents, teams, workflows, tools, dbs, functions
	modelKeys map[[2]string]bool // (provider, id)
	dbIDs     map[string]bool
	walked    map[any]bool // agents, teams, workflows already walked
	lookup    map[string]*tool.Function
}

// KnowledgeNamer gives a knowledge base the id and name the OS serves it
// under (agentos: agno's knowledge id, from the contents DB and table).
// The knowledge routes own that identity; the registry only lists it.
type KnowledgeNamer func(k *knowledge.Knowledge) (id, name string)

// NewRegistry returns an empty registry; logger nil is slog.Default(),
// name nil lists knowledge bases under their own name, without an id.
func NewRegistry(logger *slog.Logger, name KnowledgeNamer) *Registry {
	if logger == nil {
		logger = slog.Default()
	}
	if name == nil {
		name = func(k *knowledge.Knowledge) (string, string) { return "", k.Name() }
	}
	return &Registry{
		log: logger, name: name, seen: map[any]bool{}, modelKeys: map[[2]string]bool{},
		dbIDs: map[string]bool{}, walked: map[any]bool{},
	}
}

// Config is what an OS lists beside the resources of its catalog: those
// given explicitly, which Build adds first so that they keep their own
// objects.
type Config struct {
	Logger *slog.Logger // nil: slog.Default()
	// KnowledgeName names the knowledge bases (NewRegistry).
	KnowledgeName KnowledgeNamer
	// DBID is the id Store is listed under.
	DBID      string
	Store     storage.Store
	Tools     []tool.Provider
	Functions map[string]any // by name
	Knowledge []*knowledge.Knowledge
}

// Build is the registry of an OS serving agents, teams and workflows:
// cfg's resources first, then the walk of the catalog, then cfg's
// knowledge bases.
func Build(cfg Config, agents []*agent.Agent, teams []*team.Team, workflows []*workflow.Workflow) *Registry {
	r := NewRegistry(cfg.Logger, cfg.KnowledgeName)
	if cfg.Store != nil {
		r.AddDB(cfg.DBID, cfg.Store)
	}
	for _, p := range cfg.Tools {
		r.AddTool(p)
	}
	names := make([]string, 0, len(cfg.Functions))
	for name := range cfg.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.AddFunction(name, cfg.Functions[name])
	}
	r.Populate(agents, teams, workflows)
	r.mu.Lock()
	for _, k := range cfg.Knowledge {
		r.addKnowledge(k)
	}
	r.mu.Unlock()
	r.entrypoints() // log tool-name clashes now, not at first use
	return r
}

// AddModel adds m unless a model with the same (provider, id) is in;
// nil is ignored. It reports whether m was added.
func (r *Registry) AddModel(m model.Model) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addModel(m)
}

func (r *Registry) addModel(m model.Model) bool {
	if httpapi.IsNil(m) {
		return false
	}
	info := m.Info()
	k := [2]string{info.Provider, info.ID}
	if r.modelKeys[k] {
		return false
	}
	r.modelKeys[k] = true
	r.models = append(r.models, m)
	return true
}

// AddTool adds a tool provider (a *tool.Function, a *tool.Toolkit, an
// MCP toolkit…) unless the same instance is in: two toolkits with the
// same name are both kept. It reports whether p was added.
func (r *Registry) AddTool(p tool.Provider) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addTool(p)
}

func (r *Registry) addTool(p tool.Provider) bool {
	if httpapi.IsNil(p) || !r.claim(p) {
		return false
	}
	r.tools = append(r.tools, p)
	r.lookup = nil
	return true
}

// AddDB adds a store under id (or the store's own ID() when id is empty)
// unless a store with that id, or the same store, is in.
func (r *Registry) AddDB(id string, s storage.Store) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addDB(id, s)
}

func (r *Registry) addDB(id string, s storage.Store) bool {
	if httpapi.IsNil(s) {
		return false
	}
	if id == "" {
		if withID, ok := s.(interface{ ID() string }); ok {
			id = withID.ID()
		}
	}
	if id != "" && r.dbIDs[id] {
		return false
	}
	if !r.claim(s) {
		return false
	}
	if id != "" {
		r.dbIDs[id] = true
	}
	r.dbs = append(r.dbs, DB{ID: id, Store: s})
	return true
}

// AddFunction adds a named function unless the same function value is
// in.
func (r *Registry) AddFunction(name string, fn any) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addFunction(name, fn)
}

func (r *Registry) addFunction(name string, fn any) bool {
	if httpapi.IsNil(fn) || !r.claim(fn) {
		return false
	}
	r.functions = append(r.functions, Function{Name: name, Func: fn})
	return true
}

// claim records v's identity and reports whether it was new. Values
// without an identity (non-pointer values) are always new.
func (r *Registry) claim(v any) bool {
	k, ok := identityOf(v)
	if !ok {
		return true
	}
	if r.seen[k] {
		return false
	}
	r.seen[k] = true
	return true
}

// identityOf returns a key that is equal for the same object: the
// pointer for pointer-shaped values, the code address for functions.
func identityOf(v any) (any, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		return v, !rv.IsNil()
	case reflect.Map:
		return rv.UnsafePointer(), !rv.IsNil()
	case reflect.Func:
		if rv.IsNil() {
			return nil, false
		}
		return rv.Pointer(), true
	}
	return nil, false
}

// Populate adds agents, teams and workflows and walks them: agents'
// models (fallbacks included), tools and stores; teams' the same and
// their members, recursively; workflows' stores and every step — step
// agents and teams, function executors, nested workflows, Condition else
// branches and Router choices. Each top-level resource is walked on its
// own: one that fails is logged at debug level and the rest still count.
func (r *Registry) Populate(agents []*agent.Agent, teams []*team.Team, workflows []*workflow.Workflow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range agents {
		r.guard(ResourceAgent, i, func() {
			if r.claim(a) {
				r.agents = append(r.agents, a)
			}
			r.walkAgent(a)
		})
	}
	for i, t := range teams {
		r.guard(ResourceTeam, i, func() {
			if r.claim(t) {
				r.teams = append(r.teams, t)
			}
			r.walkTeam(t)
		})
	}
	for i, w := range workflows {
		r.guard(ResourceWorkflow, i, func() {
			if r.claim(w) {
				r.workflows = append(r.workflows, w)
			}
			r.walkWorkflow(w)
		})
	}
}

// guard runs walk, turning a panic into a debug log (agno: try/except
// around each top-level node).
func (r *Registry) guard(kind ResourceType, index int, walk func()) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Debug("registry: could not walk a resource; its dependencies may be missing", "type", kind, "index", index, "error", fmt.Sprint(p))
		}
	}()
	walk()
}

// visit reports whether v is walked for the first time.
func (r *Registry) visit(v any) bool {
	if r.walked[v] {
		return false
	}
	r.walked[v] = true
	return true
}

func (r *Registry) walkAgent(a *agent.Agent) {
	if a == nil || !r.visit(a) {
		return
	}
	cfg := a.Config()
	r.addModel(cfg.Model)
	for _, m := range cfg.FallbackModels {
		r.addModel(m)
	}
	if fb := cfg.Fallbacks; fb != nil {
		for _, list := range [][]model.Model{fb.OnError, fb.OnRateLimit, fb.OnContextOverflow} {
			for _, m := range list {
				r.addModel(m)
			}
		}
	}
	for _, p := range cfg.Tools {
		r.addTool(p)
	}
	r.addDB("", cfg.Store)
	r.addKnowledge(cfg.Knowledge)
	if cfg.MemoryManager != nil || cfg.SessionSummaryManager != nil {
		r.owners = append(r.owners, a)
	}
}

func (r *Registry) walkTeam(t *team.Team) {
	if t == nil || !r.visit(t) {
		return
	}
	cfg := t.Config()
	r.addModel(cfg.Model)
	for _, p := range cfg.Tools {
		r.addTool(p)
	}
	r.addDB("", cfg.Store)
	r.addKnowledge(cfg.Knowledge)
	for _, m := range t.Members() {
		r.walkExecutor(m)
	}
}

// walkExecutor walks an agent or a team; other executors (remote ones)
// carry nothing to list.
func (r *Registry) walkExecutor(e any) {
	switch x := e.(type) {
	case *agent.Agent:
		r.walkAgent(x)
	case *team.Team:
		r.walkTeam(x)
	case *workflow.Workflow:
		r.walkWorkflow(x)
	}
}

func (r *Registry) walkWorkflow(w *workflow.Workflow) {
	if w == nil || !r.visit(w) {
		return
	}
	cfg := w.Config()
	r.addDB("", cfg.Store)
	r.walkNodes(cfg.Steps)
}

func (r *Registry) walkNodes(nodes []workflow.Node) {
	for _, n := range nodes {
		switch x := n.(type) {
		case *workflow.Step:
			if x.Agent != nil {
				r.walkExecutor(x.Agent)
			}
			if x.Func != nil {
				r.addFunction(functionName(x.Func, x.Name), x.Func)
			}
			if x.Workflow != nil {
				r.walkWorkflow(x.Workflow)
			}
		case *workflow.Steps:
			r.walkNodes(x.Steps)
		case *workflow.Loop:
			r.walkNodes(x.Steps)
		case *workflow.Parallel:
			r.walkNodes(x.Steps)
		case *workflow.Condition:
			r.walkNodes(x.Steps)
			r.walkNodes(x.ElseSteps)
		case *workflow.Router:
			r.walkNodes(x.Choices)
		}
	}
}

// Agents returns the registered agents.
func (r *Registry) Agents() []*agent.Agent { return lockedClone(r, &r.agents) }

// Teams returns the registered teams.
func (r *Registry) Teams() []*team.Team { return lockedClone(r, &r.teams) }

// Workflows returns the registered workflows.
func (r *Registry) Workflows() []*workflow.Workflow { return lockedClone(r, &r.workflows) }

// Models returns the registered models, one per (provider, id).
func (r *Registry) Models() []model.Model { return lockedClone(r, &r.models) }

// Tools returns the registered tool providers.
func (r *Registry) Tools() []tool.Provider { return lockedClone(r, &r.tools) }

// DBs returns the registered databases.
func (r *Registry) DBs() []DB { return lockedClone(r, &r.dbs) }

// Functions returns the registered functions.
func (r *Registry) Functions() []Function { return lockedClone(r, &r.functions) }

func lockedClone[T any](r *Registry, s *[]T) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(*s)
}

// Counts returns the number of entries of each resource type (zero
// counts included).
func (r *Registry) Counts() map[ResourceType]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[ResourceType]int, len(ResourceTypes))
	for _, t := range ResourceTypes {
		out[t] = 0
	}
	out[ResourceAgent] = len(r.agents)
	out[ResourceTeam] = len(r.teams)
	out[ResourceWorkflow] = len(r.workflows)
	out[ResourceModel] = len(r.models)
	out[ResourceTool] = len(r.tools)
	out[ResourceDB] = len(r.dbs)
	out[ResourceFunction] = len(r.functions)
	r.knowledgeCounts(r.knowledge, out)
	for _, a := range r.owners {
		cfg := a.Config()
		if cfg.MemoryManager != nil {
			out[ResourceMemoryManager]++
		}
		if cfg.SessionSummaryManager != nil {
			out[ResourceSessionSummaryManager]++
		}
	}
	return out
}

// ToolFunction returns the tool function registered under name (agno's
// entrypoint lookup). When two different functions share a name the last
// one wins and a warning names it. MCP toolkits count while connected.
func (r *Registry) ToolFunction(name string) (*tool.Function, bool) {
	f, ok := r.entrypoints()[name]
	return f, ok
}

// entrypoints returns the name → function lookup, building it (and
// logging name clashes) when tools changed. Providers are asked outside
// the lock: an MCP toolkit may list its tools over the network.
func (r *Registry) entrypoints() map[string]*tool.Function {
	r.mu.Lock()
	lookup, tools := r.lookup, slices.Clone(r.tools)
	r.mu.Unlock()
	if lookup != nil {
		return lookup
	}
	lookup = map[string]*tool.Function{}
	complete := true // false while an MCP toolkit is not connected yet
	for _, p := range tools {
		if c, ok := p.(interface{ Connected() bool }); ok && !c.Connected() {
			complete = false
		}
		for _, f := range providerFunctions(context.Background(), p) {
			if prev, ok := lookup[f.Name]; ok && !sameEntrypoint(prev, f) {
				r.log.Warn("registry: two different functions are registered under one tool name; the last one wins", "tool", f.Name)
			}
			lookup[f.Name] = f
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if complete && len(r.tools) == len(tools) { // else build again next time
		r.lookup = lookup
	}
	return lookup
}

// providerFunctions lists a provider's functions; a connection-backed
// provider (MCP) counts only while connected, so a dead server never
// breaks the registry.
func providerFunctions(ctx context.Context, p tool.Provider) []*tool.Function {
	if _, ok := p.(tool.Connector); ok {
		c, ok := p.(interface{ Connected() bool })
		if !ok || !c.Connected() {
			return nil
		}
	}
	fns, err := p.Functions(ctx)
	if err != nil {
		return nil
	}
	return fns
}

// sameEntrypoint reports whether two functions run the same handler
// (copies of one Function, or one handler in two Functions).
func sameEntrypoint(a, b *tool.Function) bool {
	if a == b {
		return true
	}
	ea := a.Entrypoint()
	return ea != 0 && ea == b.Entrypoint()
}
