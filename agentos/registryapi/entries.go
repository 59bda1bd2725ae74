package registryapi

import (
	"cmp"
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp"
)

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

// Entries lists the registry's resources of the given type (all types
// when kind is empty), sorted by (type, name) as agno sorts them. ctx
// bounds listing the tools of connected MCP toolkits.
func (r *Registry) Entries(ctx context.Context, kind ResourceType) []Entry {
	r.mu.Lock()
	tools, models, dbs, functions := slices.Clone(r.tools), slices.Clone(r.models), slices.Clone(r.dbs), slices.Clone(r.functions)
	agents, teams, workflows := slices.Clone(r.agents), slices.Clone(r.teams), slices.Clone(r.workflows)
	owners, kbs := slices.Clone(r.owners), slices.Clone(r.knowledge)
	r.mu.Unlock()
	want := func(t ResourceType) bool { return kind == "" || kind == t }
	out := r.knowledgeEntries(kbs, want)
	if want(ResourceTool) {
		for _, p := range tools {
			out = append(out, toolEntry(ctx, p))
		}
	}
	if want(ResourceModel) {
		for _, m := range models {
			info := m.Info()
			out = append(out, Entry{
				Name: cmp.Or(info.ID, info.Name, typeName(m)), Type: ResourceModel,
				Metadata: compact(map[string]any{"class_path": typePath(unwrapModel(m)), "provider": info.Provider, "model_id": info.ID}),
			})
		}
	}
	if want(ResourceDB) {
		for _, d := range dbs {
			out = append(out, Entry{
				Name: cmp.Or(d.ID, typeName(d.Store)), Type: ResourceDB, ID: d.ID,
				Metadata: compact(map[string]any{"class_path": typePath(d.Store), "db_id": d.ID}),
			})
		}
	}
	if want(ResourceFunction) {
		for _, f := range functions {
			md := callableMetadata(f.Func)
			md["name"] = f.Name
			out = append(out, Entry{Name: f.Name, Type: ResourceFunction, Metadata: md})
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
			out = append(out, Entry{Name: a.ID() + "__memory_manager", Type: ResourceMemoryManager, ID: a.ID() + "__memory_manager", Metadata: compact(md)})
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
			out = append(out, Entry{Name: id, Type: ResourceSessionSummaryManager, ID: id, Metadata: compact(md)})
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
	if !httpapi.IsNil(m) {
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
		if httpapi.IsNil(inner) {
			return m
		}
		m = inner
	}
}

func componentEntry(kind ResourceType, id, name, desc, class string) Entry {
	return Entry{Name: name, Type: kind, ID: id, Description: strings.TrimSpace(desc),
		Metadata: map[string]any{"id": id, "class_path": class}}
}

// toolEntry describes a provider: a lone Function with its schema and
// flags, anything else as a toolkit listing its functions (an MCP
// toolkit lists them once connected).
func toolEntry(ctx context.Context, p tool.Provider) Entry {
	if f, ok := p.(*tool.Function); ok {
		md := functionMetadata(f)
		delete(md, "name")
		delete(md, "description")
		return Entry{Name: cmp.Or(f.Name, "Function"), Type: ResourceTool, Description: strings.TrimSpace(f.Description), Metadata: md}
	}
	fns := []map[string]any{}
	for _, f := range providerFunctions(ctx, p) {
		fns = append(fns, functionMetadata(f))
	}
	e := Entry{Name: providerName(p), Type: ResourceTool,
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
