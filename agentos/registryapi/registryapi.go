// Package registryapi is the Registry route group of AgentOS: agno's GET
// /registry over a Registry, the models, tools, databases, knowledge
// bases and functions wired into the OS's agents, teams and workflows.
// It builds on the core (agentos/internal/httpapi) and on Host, what it
// needs of the OS; agentos serves its rows.
package registryapi

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
)

// Host is what the group needs of the OS.
type Host interface {
	// Registry is the registry of the catalog served now (a reload
	// builds another).
	Registry() *Registry
	// MayRead reports whether the caller of r may see e (agents, teams
	// and workflows are those its scopes let it read or run).
	MayRead(r *http.Request, e Entry) bool
}

// Group is the Registry route group: New, then Routes.
type Group struct{ host Host }

// New is the group listing h's registry.
func New(h Host) *Group { return &Group{host: h} }

// Routes are agno's GET /registry (tag Registry).
func (g *Group) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "GET /registry", Handler: g.handleRegistry, Access: httpapi.Needs("registry:read"), Tag: "Registry", Summary: "List registry resources",
			Desc: "Agents, teams, workflows and every model, tool, database and step function wired into them, sorted by (type, name).",
			Query: []httpapi.Param{{Name: "resource_type", Type: "string", Desc: "Filter by resource type", Enum: ResourceTypeNames()},
				{Name: "name", Type: "string", Desc: "Filter by name (case-insensitive substring)"}, httpapi.PageQuery, httpapi.Limit100Query},
			Schema: "RegistryPage", Result: "PaginatedResponse[RegistryContentResponse]"},
	}
}

// handleRegistry is GET /registry: the registry's resources filtered by
// resource_type and name (case-insensitive substring), sorted by (type,
// name), one page at a time.
func (g *Group) handleRegistry(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	var errs []httpapi.ValidationItem
	var kind ResourceType
	if vs, ok := q["resource_type"]; ok { // present but empty is refused too, unlike Query.Enum
		kind = ResourceType(vs[0])
		if !slices.Contains(ResourceTypes, kind) {
			choices := httpapi.QuoteChoices(ResourceTypeNames())
			errs = append(errs, httpapi.ValidationItem{Type: "enum", Loc: []any{"query", "resource_type"},
				Msg: "Input should be " + choices, Input: vs[0], Ctx: map[string]any{"expected": choices}})
		}
	}
	page, e := httpapi.IntQuery(q, "page", 1, 1, 0)
	errs = append(errs, e...)
	limit, e := httpapi.IntQuery(q, "limit", 20, 1, 100)
	errs = append(errs, e...)
	if len(errs) > 0 {
		httpapi.WriteValidation(w, errs...)
		return
	}
	entries := g.host.Registry().Entries(r.Context(), kind)
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return !g.host.MayRead(r, e) })
	if needle := strings.ToLower(strings.TrimSpace(q.Get("name"))); needle != "" {
		entries = slices.DeleteFunc(entries, func(e Entry) bool { return !strings.Contains(strings.ToLower(e.Name), needle) })
	}
	total := len(entries)
	from := total
	if page-1 < total/limit+1 { // else a page past the end (and (page-1)*limit could overflow)
		from = min((page-1)*limit, total)
	}
	data := entries[from:min(from+limit, total)]
	if data == nil {
		data = []Entry{}
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, page, limit, total, time.Since(start)))
}
