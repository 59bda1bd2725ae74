package componentsapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/component"
)

func (g *Group) handleListComponents(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := httpapi.NewQuery(w, r)
	typ := q.Enum("component_type", "", componentTypes...)
	page := q.Int("page", 1, 1, 0)
	limit := q.Int("limit", 20, 1, 100)
	if q.Bad {
		return
	}
	all, _, err := g.store.List(r.Context(), component.ListQuery{Type: component.Type(typ)})
	if err != nil {
		g.host.Logger().Error("Error listing components", "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	// Ids that code or files own are theirs, as agno leaves registry ids out.
	all = slices.DeleteFunc(all, func(c *component.Component) bool { return g.host.CodeOwned(c.ComponentType, c.ComponentID) })
	total := len(all)
	from := min((page-1)*limit, total)
	if page-1 > total/limit {
		from = total
	}
	data := []ComponentResponse{}
	for _, c := range all[from:min(from+limit, total)] {
		data = append(data, componentResponse(c))
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, page, limit, total, time.Since(start)))
}

func (g *Group) handleCreateComponent(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var p component.CreateParams
	var name string
	b.Require("name", &name)
	var id string
	b.Get("component_id", &id)
	typ, _ := readComponentType(b, true)
	var desc, label, notes string
	if b.Get("description", &desc) {
		p.Description = &desc
	}
	b.Get("metadata", &p.Metadata)
	b.Get("config", &p.Config)
	if b.Get("label", &label) {
		p.Label = &label
	}
	p.Stage = component.StageDraft
	b.Get("stage", &p.Stage)
	if b.Get("notes", &notes) {
		p.Notes = &notes
	}
	p.SetCurrent = true
	b.Get("set_current", &p.SetCurrent)
	if b.Bad {
		return
	}
	if id == "" {
		id = agent.DefaultID(name)
	}
	if !componentIDRE.MatchString(id) {
		httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("component_id %.80q cannot be used: use 1 to %d letters, digits, -, _ and ., starting with a letter or digit (it is a path segment of /agents/{id}/runs)", id, maxComponentID))
		return
	}
	p.ComponentID, p.ComponentType, p.Name = id, typ, name
	if p.Config == nil {
		p.Config = map[string]any{}
	}
	if typ == component.Team {
		if m, _ := p.Config["members"].([]any); len(m) == 0 {
			g.host.Logger().Warn("Creating a team without members. If this is unintended, add members to the config.", "component_id", id)
		}
	}
	if g.host.CodeOwned(typ, id) {
		httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Component %s already exists: a %s with this id is defined in code or in a declarative file; choose another component_id", id, typ))
		return
	}
	if taken := g.host.CaseTwin(typ, id); taken != "" {
		httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("component_id %s differs only in case from the %s %s already served; choose another component_id", id, typ, taken))
		return
	}
	p.CreatedBy, p.Principal = httpapi.CallerUser(r.Context()), httpapi.PrincipalOf(r.Context()).Encode()
	if _, err := g.store.Get(r.Context(), id); err == nil {
		httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Component %s already exists", id))
		return
	}
	if err := g.host.CheckConfig(r.Context(), typ, id, p.Config); err != nil {
		httpapi.Fail(w, err)
		return
	}
	c, _, err := g.store.Create(r.Context(), p)
	if err != nil {
		componentFail(w, err)
		return
	}
	g.afterWrite(r.Context())
	httpapi.WriteJSON(w, http.StatusCreated, componentResponse(c))
}

func (g *Group) handleGetComponent(w http.ResponseWriter, r *http.Request) {
	c, err := g.store.Get(r.Context(), r.PathValue("component_id"))
	if err != nil {
		componentFail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, componentResponse(c))
}

func (g *Group) handleUpdateComponent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var u component.Update
	var name, desc, typ string
	var current int
	if b.Get("name", &name) {
		u.Name = &name
	}
	if b.Get("description", &desc) {
		u.Description = &desc
	}
	setType := b.Get("component_type", &typ)
	b.Get("metadata", &u.Metadata)
	setCurrent := b.Get("current_version", &current)
	if b.Bad {
		return
	}
	ctx := r.Context()
	st := g.store
	existing, ok := g.changeableComponent(w, r, id)
	if !ok {
		return
	}
	// All checks before the first write, so a refused request changes nothing.
	kind := existing.ComponentType
	if setType {
		t := component.Type(typ)
		if !t.Valid() {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("'%s' is not a valid ComponentType", typ))
			return
		}
		u.ComponentType, kind = &t, t
	}
	var live *component.Config
	if setCurrent {
		cfg, err := st.GetConfig(ctx, id, &current)
		if err != nil {
			componentFail(w, err)
			return
		}
		if cfg.Stage != component.StagePublished {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Cannot set draft config %s v%d as current. Only published configs can be current.", id, current))
			return
		}
		live = cfg
	} else if setType && kind != existing.ComponentType {
		var err error
		if live, err = st.GetConfig(ctx, id, nil); err != nil && !errors.Is(err, component.ErrNotFound) {
			componentFail(w, err)
			return
		}
	}
	if setType && kind != existing.ComponentType {
		if g.host.CodeOwned(kind, id) {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("component_type %s: a %s with the id %s is defined in code or in a declarative file", kind, kind, id))
			return
		}
	}
	if live != nil {
		if err := g.host.CheckConfig(ctx, kind, id, live.Config); err != nil {
			httpapi.Fail(w, err)
			return
		}
	}
	if !g.actFor(w, r, id) {
		return
	}
	if setCurrent {
		moved, err := st.SetCurrent(ctx, id, current)
		if err != nil {
			componentFail(w, err)
			return
		}
		if !moved {
			httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Config %s v%d not found", id, current))
			return
		}
	}
	c, err := st.Update(ctx, id, u)
	if err != nil {
		componentFail(w, err)
		return
	}
	g.afterWrite(ctx)
	httpapi.WriteJSON(w, http.StatusOK, componentResponse(c))
}

func (g *Group) handleDeleteComponent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	if c, err := g.store.Get(r.Context(), id); err == nil && !mayChange(w, r, c) {
		return
	}
	ok, err := g.store.Delete(r.Context(), id)
	if err != nil {
		g.host.Logger().Error("Error deleting component", "error", err)
		httpapi.WriteError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if !ok {
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Component %s not found", id))
		return
	}
	g.afterWrite(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func (g *Group) handleListConfigs(w http.ResponseWriter, r *http.Request) {
	include := true
	if s := r.URL.Query().Get("include_config"); s != "" {
		v, ok := httpapi.ParseBool(s)
		if !ok {
			httpapi.FieldErrorInput(w, []string{"query", "include_config"}, "Input should be a valid boolean, unable to interpret input", "bool_parsing", s, nil)
			return
		}
		include = v
	}
	cfgs, err := g.store.ListConfigs(r.Context(), r.PathValue("component_id"), include)
	if err != nil {
		componentFail(w, err)
		return
	}
	out := make([]ComponentConfigResponse, 0, len(cfgs))
	for _, c := range cfgs {
		out = append(out, configResponse(c))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// checkVersion checks that a config builds as the component's type.
func (g *Group) checkVersion(ctx context.Context, id string, cfg map[string]any) error {
	c, err := g.store.Get(ctx, id)
	if err != nil {
		return err
	}
	return g.host.CheckConfig(ctx, c.ComponentType, id, cfg)
}

func (g *Group) handleCreateConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var p component.ConfigParams
	b.Require("config", &p.Config)
	var version int
	b.Get("version", &version) // agno numbers versions itself
	var label, notes string
	if b.Get("label", &label) {
		p.Label = &label
	}
	p.Stage = component.StageDraft
	b.Get("stage", &p.Stage)
	if b.Get("notes", &notes) {
		p.Notes = &notes
	}
	links, _ := readLinks(b)
	if links != nil {
		p.Links = *links
	}
	p.SetCurrent = true
	b.Get("set_current", &p.SetCurrent)
	if b.Bad {
		return
	}
	c, err := g.store.Get(r.Context(), id)
	if errors.Is(err, component.ErrNotFound) {
		httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Component %s not found", id))
		return
	}
	if err != nil {
		componentFail(w, err)
		return
	}
	if !mayChange(w, r, c) {
		return
	}
	if err := g.host.CheckConfig(r.Context(), c.ComponentType, id, p.Config); err != nil {
		httpapi.Fail(w, err)
		return
	}
	if !g.actFor(w, r, id) {
		return
	}
	cfg, err := g.store.CreateConfig(r.Context(), id, p)
	if err != nil {
		if errors.Is(err, component.ErrNotFound) {
			httpapi.WriteError(w, http.StatusBadRequest, err.Error()) // agno's ValueError
			return
		}
		componentFail(w, err)
		return
	}
	g.afterWrite(r.Context())
	httpapi.WriteJSON(w, http.StatusCreated, configResponse(cfg))
}

func (g *Group) handleCurrentConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	cfg, err := g.store.GetConfig(r.Context(), id, nil)
	writeConfig(w, cfg, err, fmt.Sprintf("No current config for %s", id))
}

func (g *Group) handleGetConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	cfg, err := g.store.GetConfig(r.Context(), id, &v)
	writeConfig(w, cfg, err, fmt.Sprintf("Config %s v%d not found", id, v))
}

// writeConfig answers a config read: the config, agno's 404 text, or the
// store's failure.
func writeConfig(w http.ResponseWriter, cfg *component.Config, err error, notFound string) {
	switch {
	case errors.Is(err, component.ErrNotFound):
		httpapi.WriteError(w, http.StatusNotFound, notFound)
	case err != nil:
		componentFail(w, err)
	default:
		httpapi.WriteJSON(w, http.StatusOK, configResponse(cfg))
	}
}

func (g *Group) handleUpdateConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var u component.ConfigUpdate
	b.Get("config", &u.Config)
	var label, stage, notes string
	if b.Get("label", &label) {
		u.Label = &label
	}
	if b.Get("stage", &stage) {
		u.Stage = &stage
	}
	if b.Get("notes", &notes) {
		u.Notes = &notes
	}
	u.Links, _ = readLinks(b)
	if b.Bad {
		return
	}
	ctx := r.Context()
	st := g.store
	if _, ok := g.changeableComponent(w, r, id); !ok {
		return
	}
	if u.Config != nil {
		old, err := st.GetConfig(ctx, id, &v)
		if err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Config %s v%d not found", id, v))
			return
		}
		if old.Stage == component.StagePublished {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Cannot update published config %s v%d", id, v))
			return
		}
		if err := g.checkVersion(ctx, id, u.Config); err != nil {
			httpapi.Fail(w, err)
			return
		}
	}
	if !g.actFor(w, r, id) {
		return
	}
	cfg, err := st.UpdateConfig(ctx, id, v, u)
	if err != nil {
		if errors.Is(err, component.ErrNotFound) {
			httpapi.WriteError(w, http.StatusBadRequest, err.Error()) // agno's ValueError
			return
		}
		componentFail(w, err)
		return
	}
	g.afterWrite(ctx)
	httpapi.WriteJSON(w, http.StatusOK, configResponse(cfg))
}

func (g *Group) handleDeleteConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	if _, ok := g.changeableComponent(w, r, id); !ok {
		return
	}
	if !g.actFor(w, r, id) {
		return
	}
	deleted, err := g.store.DeleteConfig(r.Context(), id, v)
	if err != nil {
		componentFail(w, err)
		return
	}
	if !deleted {
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Config %s v%d not found", id, v))
		return
	}
	g.afterWrite(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func (g *Group) handleSetCurrent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	st := g.store
	notFound := fmt.Sprintf("Component %s or config version %d not found", id, v)
	c, err := st.Get(ctx, id)
	if err != nil {
		httpapi.WriteError(w, http.StatusNotFound, notFound)
		return
	}
	if !mayChange(w, r, c) {
		return
	}
	cfg, err := st.GetConfig(ctx, id, &v)
	if err != nil {
		httpapi.WriteError(w, http.StatusNotFound, notFound)
		return
	}
	if cfg.Stage == component.StagePublished {
		if err := g.host.CheckConfig(ctx, c.ComponentType, id, cfg.Config); err != nil {
			httpapi.Fail(w, err)
			return
		}
	}
	if !g.actFor(w, r, id) {
		return
	}
	moved, err := st.SetCurrent(ctx, id, v)
	if err != nil {
		componentFail(w, err)
		return
	}
	if !moved {
		httpapi.WriteError(w, http.StatusNotFound, notFound)
		return
	}
	if c, err = st.Get(ctx, id); err != nil {
		componentFail(w, err)
		return
	}
	g.afterWrite(ctx)
	httpapi.WriteJSON(w, http.StatusOK, componentResponse(c))
}
