package agentos

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp"
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

// agno class paths of the types that mirror an agno class one to one;
// other types report their Go type path.
const (
	classAgent          = "agno.agent.agent.Agent"
	classTeam           = "agno.team.team.Team"
	classWorkflow       = "agno.workflow.workflow.Workflow"
	classToolkit        = "agno.tools.toolkit.Toolkit"
	classFunction       = "agno.tools.function.Function"
	classMCPTools       = "agno.tools.mcp.mcp.MCPTools"
	classMultiMCPTools  = "agno.tools.mcp.multi_mcp.MultiMCPTools"
	classMemoryManager  = "agno.memory.manager.MemoryManager"
	classSummaryManager = "agno.session.summary.SessionSummaryManager"
)

// RegistryEntry is one listed resource (agno's RegistryContentResponse).
type RegistryEntry struct {
	Name        string         `json:"name"`
	Type        ResourceType   `json:"type"`
	ID          string         `json:"id,omitempty"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// RegistryDB is a database in the registry; ID is empty when the store
// has none (it is then deduplicated by identity).
type RegistryDB struct {
	ID    string
	Store storage.Store
}

// RegistryFunction is a named Go function: a workflow step executor or
// a function given in Config.Functions.
type RegistryFunction struct {
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
	dbs       []RegistryDB
	functions []RegistryFunction
	knowledge []*knowledge.Knowledge
	// knowledgeDB is the contents DB id knowledge entries are listed with.
	knowledgeDB string
	// owners are the agents whose memory or session summary managers are
	// listed ({owner_id}__memory_manager, …).
	owners []*agent.Agent

	seen      map[any]bool       // identities of agents, teams, workflows, tools, dbs, functions
	modelKeys map[[2]string]bool // (provider, id)
	dbIDs     map[string]bool
	walked    map[any]bool // agents, teams, workflows already walked
	lookup    map[string]*tool.Function
}

// NewRegistry returns an empty registry; logger nil is slog.Default().
func NewRegistry(logger *slog.Logger) *Registry {
	if logger == nil {
		logger = slog.Default()
	}
	return &Registry{
		log: logger, seen: map[any]bool{}, modelKeys: map[[2]string]bool{},
		dbIDs: map[string]bool{}, walked: map[any]bool{},
	}
}

// AddModel adds m unless a model with the same (provider, id) is in;
// nil is ignored. It reports whether m was added.
func (r *Registry) AddModel(m model.Model) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addModel(m)
}

func (r *Registry) addModel(m model.Model) bool {
	if isNil(m) {
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
	if isNil(p) || !r.claim(p) {
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
	if isNil(s) {
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
	r.dbs = append(r.dbs, RegistryDB{ID: id, Store: s})
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
	if isNil(fn) || !r.claim(fn) {
		return false
	}
	r.functions = append(r.functions, RegistryFunction{Name: name, Func: fn})
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

// Populate adds c's agents, teams and workflows and walks them: agents'
// models (fallbacks included), tools and stores; teams' the same and
// their members, recursively; workflows' stores and every step — step
// agents and teams, function executors, nested workflows, Condition else
// branches and Router choices. Each top-level resource is walked on its
// own: one that fails is logged at debug level and the rest still count.
func (r *Registry) Populate(c Catalog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range c.Agents {
		r.guard(ResourceAgent, i, func() {
			if r.claim(a) {
				r.agents = append(r.agents, a)
			}
			r.walkAgent(a)
		})
	}
	for i, t := range c.Teams {
		r.guard(ResourceTeam, i, func() {
			if r.claim(t) {
				r.teams = append(r.teams, t)
			}
			r.walkTeam(t)
		})
	}
	for i, w := range c.Workflows {
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
	r.addKnowledge(asKnowledge(cfg.Knowledge))
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
	r.addKnowledge(asKnowledge(cfg.Knowledge))
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
func (r *Registry) DBs() []RegistryDB { return lockedClone(r, &r.dbs) }

// Functions returns the registered functions.
func (r *Registry) Functions() []RegistryFunction { return lockedClone(r, &r.functions) }

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

// Entries lists the registry's resources of the given type (all types
// when kind is empty), sorted by (type, name) as agno sorts them. ctx
// bounds listing the tools of connected MCP toolkits.
func (r *Registry) Entries(ctx context.Context, kind ResourceType) []RegistryEntry {
	r.mu.Lock()
	tools, models, dbs, functions := slices.Clone(r.tools), slices.Clone(r.models), slices.Clone(r.dbs), slices.Clone(r.functions)
	agents, teams, workflows := slices.Clone(r.agents), slices.Clone(r.teams), slices.Clone(r.workflows)
	owners, kbs, kdb := slices.Clone(r.owners), slices.Clone(r.knowledge), r.knowledgeDB
	r.mu.Unlock()
	want := func(t ResourceType) bool { return kind == "" || kind == t }
	out := r.knowledgeEntries(kbs, kdb, want)
	if want(ResourceTool) {
		for _, p := range tools {
			out = append(out, toolEntry(ctx, p))
		}
	}
	if want(ResourceModel) {
		for _, m := range models {
			info := m.Info()
			out = append(out, RegistryEntry{
				Name: cmp.Or(info.ID, info.Name, typeName(m)), Type: ResourceModel,
				Metadata: compact(map[string]any{"class_path": typePath(unwrapModel(m)), "provider": info.Provider, "model_id": info.ID}),
			})
		}
	}
	if want(ResourceDB) {
		for _, d := range dbs {
			out = append(out, RegistryEntry{
				Name: cmp.Or(d.ID, typeName(d.Store)), Type: ResourceDB, ID: d.ID,
				Metadata: compact(map[string]any{"class_path": typePath(d.Store), "db_id": d.ID}),
			})
		}
	}
	if want(ResourceFunction) {
		for _, f := range functions {
			md := callableMetadata(f.Func)
			md["name"] = f.Name
			out = append(out, RegistryEntry{Name: f.Name, Type: ResourceFunction, Metadata: md})
		}
	}
	if want(ResourceAgent) {
		for _, a := range agents {
			out = append(out, componentEntry(ResourceAgent, a.ID(), cmp.Or(a.Name(), "Agent"), a.Description(), classAgent))
		}
	}
	if want(ResourceTeam) {
		for _, t := range teams {
			out = append(out, componentEntry(ResourceTeam, t.ID(), cmp.Or(t.Name(), "Team"), t.Description(), classTeam))
		}
	}
	if want(ResourceWorkflow) {
		for _, w := range workflows {
			out = append(out, componentEntry(ResourceWorkflow, w.ID(), cmp.Or(w.Name(), "Workflow"), w.Description(), classWorkflow))
		}
	}
	for _, a := range owners {
		cfg := a.Config()
		if mm := cfg.MemoryManager; mm != nil && want(ResourceMemoryManager) {
			md := managerMetadata(a, classMemoryManager, mm.Model())
			md["db_class"] = typePath(mm.Store())
			md["add_memories"], md["update_memories"], md["delete_memories"], md["clear_memories"] = mm.Abilities()
			out = append(out, RegistryEntry{Name: a.ID() + "__memory_manager", Type: ResourceMemoryManager, ID: a.ID() + "__memory_manager", Metadata: compact(md)})
		}
		if sm := cfg.SessionSummaryManager; sm != nil && want(ResourceSessionSummaryManager) {
			md := managerMetadata(a, classSummaryManager, sm.Model())
			if n := sm.LastNRuns(); n > 0 {
				md["last_n_runs"] = n
			}
			if n := sm.ConversationLimit(); n > 0 {
				md["conversation_limit"] = n
			}
			id := a.ID() + "__session_summary_manager"
			out = append(out, RegistryEntry{Name: id, Type: ResourceSessionSummaryManager, ID: id, Metadata: compact(md)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// managerMetadata is the metadata a memory or session summary manager
// entry shares: its class, owner and model.
func managerMetadata(owner *agent.Agent, class string, m model.Model) map[string]any {
	md := map[string]any{"class_path": class, "owner_id": owner.ID(), "owner_type": "agent"}
	if !isNil(m) {
		md["model_class"] = typePath(unwrapModel(m))
		md["model_id"] = m.Info().ID
	}
	return md
}

// unwrapModel returns the provider model inside wrappers (configured
// sampling, a model waiting for its API key) that implement
// Unwrap() model.Model.
func unwrapModel(m model.Model) model.Model {
	for {
		u, ok := m.(interface{ Unwrap() model.Model })
		if !ok {
			return m
		}
		inner := u.Unwrap()
		if isNil(inner) {
			return m
		}
		m = inner
	}
}

func componentEntry(kind ResourceType, id, name, desc, class string) RegistryEntry {
	return RegistryEntry{Name: name, Type: kind, ID: id, Description: strings.TrimSpace(desc),
		Metadata: map[string]any{"id": id, "class_path": class}}
}

// toolEntry describes a provider: a lone Function with its schema and
// flags, anything else as a toolkit listing its functions (an MCP
// toolkit lists them once connected).
func toolEntry(ctx context.Context, p tool.Provider) RegistryEntry {
	if f, ok := p.(*tool.Function); ok {
		md := functionMetadata(f)
		delete(md, "name")
		delete(md, "description")
		return RegistryEntry{Name: cmp.Or(f.Name, "Function"), Type: ResourceTool, Description: strings.TrimSpace(f.Description), Metadata: md}
	}
	fns := []map[string]any{}
	for _, f := range providerFunctions(ctx, p) {
		fns = append(fns, functionMetadata(f))
	}
	e := RegistryEntry{Name: providerName(p), Type: ResourceTool,
		Metadata: map[string]any{"class_path": providerClass(p), "is_toolkit": true, "functions": fns}}
	if d, ok := p.(interface{ Description() string }); ok {
		e.Description = strings.TrimSpace(d.Description())
	}
	return e
}

// functionMetadata is agno's CallableMetadata for a tool function.
func functionMetadata(f *tool.Function) map[string]any {
	md := map[string]any{
		"name": f.Name, "class_path": classFunction, "has_entrypoint": f.Handler != nil,
		"requires_confirmation": f.RequiresConfirmation, "external_execution": f.ExternalExecution,
	}
	if d := strings.TrimSpace(f.Description); d != "" {
		md["description"] = d
	}
	if len(f.Parameters) > 0 && json.Valid(f.Parameters) {
		md["parameters"] = f.Parameters
	}
	return md
}

func providerName(p tool.Provider) string {
	if n, ok := p.(interface{ Name() string }); ok {
		if s := strings.TrimSpace(n.Name()); s != "" {
			return s
		}
	}
	return typeName(p)
}

func providerClass(p tool.Provider) string {
	switch p.(type) {
	case *tool.Toolkit:
		return classToolkit
	case *mcp.Tools:
		return classMCPTools
	case *mcp.MultiTools:
		return classMultiMCPTools
	}
	return typePath(p)
}

// callableMetadata describes a Go function the way agno describes a
// Python callable: module (package path), qualname, signature.
func callableMetadata(fn any) map[string]any {
	rv := reflect.ValueOf(fn)
	if rv.Kind() != reflect.Func {
		return map[string]any{"class_path": typePath(fn), "has_entrypoint": false}
	}
	md := map[string]any{"has_entrypoint": true, "signature": signature(rv.Type())}
	full := runtimeName(fn)
	if full == "" {
		return md
	}
	md["class_path"] = full
	if pkg, qual := splitFuncName(full); pkg != "" {
		md["module"], md["qualname"] = pkg, qual
	} else {
		md["qualname"] = full
	}
	return md
}

// signature spells a function type out even when it is named:
// "func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error)".
func signature(t reflect.Type) string {
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return reflect.FuncOf(in, out, t.IsVariadic()).String()
}

// functionName names a step function: its Go name, or the step's name
// for a function literal.
func functionName(fn any, stepName string) string {
	_, qual := splitFuncName(runtimeName(fn))
	short := qual[strings.LastIndex(qual, ".")+1:]
	if short == "" || isLiteralName(short) {
		return cmp.Or(stepName, "anonymous")
	}
	return short
}

// isLiteralName reports a compiler name of a function literal ("func1",
// "func2.1").
func isLiteralName(s string) bool {
	rest, ok := strings.CutPrefix(s, "func")
	return ok && rest != "" && strings.Trim(rest, "0123456789.") == ""
}

func runtimeName(fn any) string {
	rv := reflect.ValueOf(fn)
	if rv.Kind() != reflect.Func || rv.IsNil() {
		return ""
	}
	if f := runtime.FuncForPC(rv.Pointer()); f != nil {
		return strings.TrimSuffix(f.Name(), "-fm")
	}
	return ""
}

// splitFuncName splits "github.com/x/y.Type.Method" into the package
// path and the rest.
func splitFuncName(full string) (pkg, qual string) {
	slash := strings.LastIndex(full, "/")
	dot := strings.Index(full[slash+1:], ".")
	if dot < 0 {
		return "", full
	}
	return full[:slash+1+dot], full[slash+2+dot:]
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

// isNil reports a nil interface or an interface holding a nil pointer.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// typePath is a value's Go type path, "github.com/x/y.Type".
func typePath(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	if t.PkgPath() == "" || t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// typeName is a value's short type name, "y.Type".
func typeName(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.String()
}

// compact drops empty strings (agno's model_dump(exclude_none=True)).
func compact(m map[string]any) map[string]any {
	for k, v := range m {
		if s, ok := v.(string); ok && s == "" {
			delete(m, k)
		}
	}
	return m
}

// registry returns the registry of the current catalog.
func (o *OS) registry() *Registry {
	cat := o.catalog()
	cat.registryOnce.Do(func() { cat.registry = o.buildRegistry(cat.Catalog) })
	return cat.registry
}

// buildRegistry puts the explicitly given resources first (so they keep
// their objects), then walks the catalog.
func (o *OS) buildRegistry(c Catalog) *Registry {
	r := NewRegistry(o.log)
	r.knowledgeDB = o.cfg.DBID
	if o.cfg.Store != nil {
		r.AddDB(o.cfg.DBID, o.cfg.Store)
	}
	for _, p := range o.cfg.Tools {
		r.AddTool(p)
	}
	names := make([]string, 0, len(o.cfg.Functions))
	for name := range o.cfg.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.AddFunction(name, o.cfg.Functions[name])
	}
	r.Populate(c)
	r.mu.Lock()
	for _, k := range o.cfg.Knowledge {
		r.addKnowledge(k)
	}
	r.mu.Unlock()
	r.entrypoints() // log tool-name clashes now, not at first use
	return r
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

// resourceTypeChoices lists the accepted values the way pydantic does:
// "'tool', 'model', … or 'session_summary_manager'".
func resourceTypeChoices() string {
	quoted := make([]string, len(ResourceTypes))
	for i, t := range ResourceTypes {
		quoted[i] = "'" + string(t) + "'"
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// registryAPIRoutes is agno's GET /registry.
func (o *OS) registryAPIRoutes() []apiRoute {
	return []apiRoute{
		{Pattern: "GET /registry", Handler: o.handleRegistry, Access: needs("registry:read"), Tag: "Registry", Summary: "List registry resources",
			Desc: "Agents, teams, workflows and every model, tool, database and step function wired into them, sorted by (type, name).",
			Query: []apiParam{{Name: "resource_type", Type: "string", Desc: "Filter by resource type", Enum: resourceTypeStrings()},
				{Name: "name", Type: "string", Desc: "Filter by name (case-insensitive substring)"}, pPageQ, pRegLimitQ},
			Schema: "RegistryPage", Result: "PaginatedResponse[RegistryContentResponse]"},
	}
}

// handleRegistry is GET /registry: the registry's resources filtered by
// resource_type and name (case-insensitive substring), sorted by (type,
// name), one page at a time.
func (o *OS) handleRegistry(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	var errs []validationItem
	var kind ResourceType
	if vs, ok := q["resource_type"]; ok {
		kind = ResourceType(vs[0])
		if !slices.Contains(ResourceTypes, kind) {
			choices := resourceTypeChoices()
			errs = append(errs, validationItem{Type: "enum", Loc: []any{"query", "resource_type"},
				Msg: "Input should be " + choices, Input: vs[0], Ctx: map[string]any{"expected": choices}})
		}
	}
	page, e := intQuery(q, "page", 1, 1, 0)
	errs = append(errs, e...)
	limit, e := intQuery(q, "limit", 20, 1, 100)
	errs = append(errs, e...)
	if len(errs) > 0 {
		writeValidation(w, errs...)
		return
	}
	entries := o.registry().Entries(r.Context(), kind)
	entries = slices.DeleteFunc(entries, func(e RegistryEntry) bool { return !o.mayRead(r, e) })
	if needle := strings.ToLower(strings.TrimSpace(q.Get("name"))); needle != "" {
		entries = slices.DeleteFunc(entries, func(e RegistryEntry) bool { return !strings.Contains(strings.ToLower(e.Name), needle) })
	}
	total := len(entries)
	from := total
	if page-1 < total/limit+1 { // else a page past the end (and (page-1)*limit could overflow)
		from = min((page-1)*limit, total)
	}
	data := entries[from:min(from+limit, total)]
	if data == nil {
		data = []RegistryEntry{}
	}
	writeJSON(w, http.StatusOK, paginatedResponse(data, page, limit, total, time.Since(start)))
}
