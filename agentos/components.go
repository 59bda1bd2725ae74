package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// Components: agent, team and workflow configurations stored in
// Config.DB (agno's Builder/Studio). A component whose config builds
// becomes a live entry of the catalog — listed by GET /agents with
// is_component true, run by POST /agents/{id}/runs — without a restart;
// replicas learn of other replicas' changes by polling (ComponentsConfig.Poll).

// ComponentBuilder builds the live agent, team or workflow (*agent.Agent,
// *team.Team, *workflow.Workflow) of a component's config, and reports the
// served resources the config names; kind is "agent", "team" or
// "workflow". served is what the OS serves, without the component itself,
// for references (team members, steps). A bad config is an error saying
// what to fix (answered 400); one naming what the operator does not let
// components use matches component.ErrNotAllowed (answered 422). agno
// start sets it to config.Resources.BuildComponent.
//
// A component is a caller's work, so it acts with no more than its
// writer's rights: AgentOS refuses a config naming an agent, team or
// workflow its writer may not run, or a knowledge base it may not read,
// and checks the same again, against the stored writer, whenever it
// builds the component.
type ComponentBuilder func(ctx context.Context, kind, id string, config map[string]any, served Catalog) (*component.Built, error)

// ComponentsConfig configures the components plane.
type ComponentsConfig struct {
	// Build makes the live object of a component; nil stores components
	// without serving them (and without checking their configs).
	Build ComponentBuilder
	// Poll is how often the stored components are re-read, so that a
	// replica serves the changes another made (default 5s; negative:
	// only at start and on this replica's own writes).
	Poll time.Duration
}

// DefaultComponentPoll is how often replicas re-read the components.
const DefaultComponentPoll = 5 * time.Second

// componentPlane is the components part of the control plane.
type componentPlane struct {
	store *component.Store
	build ComponentBuilder
	// live are the components in the catalog, by id; guarded by
	// OS.reloadMu, which every catalog swap holds.
	live map[string]*liveComponent
	// warned: the version of each component whose refusal was logged,
	// so a poll does not log it again (guarded by OS.reloadMu).
	warned map[string]string
	// objs are the live objects, read without the lock (is_component).
	objs atomic.Pointer[map[any]bool]
	stop chan struct{}
	done chan struct{}
}

// liveComponent is a component served: its kind, what it was built from
// and the object.
type liveComponent struct {
	kind component.Type
	sig  string
	obj  any
}

// ComponentResponse is agno's ComponentResponse (the routes exclude None
// fields).
type ComponentResponse struct {
	ComponentID    string         `json:"component_id"`
	ComponentType  string         `json:"component_type"`
	Name           *string        `json:"name,omitempty"`
	Description    *string        `json:"description,omitempty"`
	CurrentVersion *int           `json:"current_version,omitempty"`
	Metadata       map[string]any `json:"metadata,omitzero"`
	CreatedAt      int64          `json:"created_at"`
	UpdatedAt      *int64         `json:"updated_at,omitempty"`
}

// ComponentConfigResponse is agno's ComponentConfigResponse (None fields
// excluded; config absent when listed with include_config=false).
type ComponentConfigResponse struct {
	ComponentID string         `json:"component_id"`
	Version     int            `json:"version"`
	Label       *string        `json:"label,omitempty"`
	Stage       string         `json:"stage"`
	Config      map[string]any `json:"config,omitzero"`
	Notes       *string        `json:"notes,omitempty"`
	CreatedAt   int64          `json:"created_at"`
	UpdatedAt   *int64         `json:"updated_at,omitempty"`
}

// MigrateResponse is the answer of the /databases migrate routes; Failed
// (db_id → error) only in the 207 of /databases/all/migrate.
type MigrateResponse struct {
	Message string            `json:"message"`
	Failed  map[string]string `json:"failed,omitempty"`
}

func componentResponse(c *component.Component) ComponentResponse {
	return ComponentResponse{ComponentID: c.ComponentID, ComponentType: string(c.ComponentType), Name: c.Name, Description: c.Description,
		CurrentVersion: c.CurrentVersion, Metadata: c.Metadata, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func configResponse(c *component.Config) ComponentConfigResponse {
	return ComponentConfigResponse{ComponentID: c.ComponentID, Version: c.Version, Label: c.Label, Stage: c.Stage, Config: c.Config,
		Notes: c.Notes, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// componentAPIRoutes are agno's /components and /databases routes (tags Components, Database).
func (o *OS) componentAPIRoutes() []apiRoute {
	const tag = "Components"
	typeQ := apiParam{Name: "component_type", Type: "string", Desc: "Filter by type", Enum: []string{"agent", "team", "workflow"}}
	comp := "ComponentResponse{component_id, component_type, name, description, current_version, metadata, created_at, updated_at}"
	cfg := "ComponentConfigResponse{component_id, version, label, stage, config, notes, created_at, updated_at}"
	configFields := []apiParam{
		{Name: "label", Type: "string", Desc: "Label of the version, unique in the component (e.g. \"stable\")"},
		{Name: "stage", Type: "string", Desc: "draft or published; publishing makes the version current", Enum: []string{"draft", "published"}, Default: "draft"},
		{Name: "notes", Type: "string"},
		{Name: "links", Type: "array", Desc: "Links to child components: {link_kind, link_key, child_component_id, child_version, position, meta}"},
	}
	targetQ := apiParam{Name: "target_version", Type: "string", Desc: "Schema version to migrate to (not supported: agno-go migrates to the latest)"}
	return []apiRoute{
		{Pattern: "GET /components", Handler: o.handleListComponents, Access: needs("components:read"), Tag: tag, Summary: "List Components", Query: []apiParam{typeQ, pPageQ, pRegLimitQ},
			Desc: "Components whose id is that of an agent, team or workflow defined in code or a file are left out.", Schema: "PaginatedResponse", Result: "PaginatedResponse[" + comp + "]"},
		{Pattern: "POST /components", Handler: o.handleCreateComponent, Access: needs("components:write"), Tag: tag, Summary: "Create Component",
			Desc: "Creates a component with its config version 1. The config takes the keys of a declarative file of the component's type (model: a [models] key, tools, knowledge, members, steps, …); it is checked by building it, and the component is served at once (its current version, else its latest).",
			JSON: append([]apiParam{{Name: "name", Type: "string", Required: true}, {Name: "component_id", Type: "string", Desc: "Default: derived from name"},
				{Name: "component_type", Type: "string", Required: true, Enum: []string{"agent", "team", "workflow"}}, {Name: "description", Type: "string"},
				{Name: "metadata", Type: "object"}, {Name: "config", Type: "object"}, {Name: "set_current", Type: "boolean", Default: true}}, configFields[:3]...),
			Status: http.StatusCreated, Result: comp},
		{Pattern: "GET /components/{component_id}", Handler: o.handleGetComponent, Access: needs("components:read"), Tag: tag, Summary: "Get Component", Result: comp},
		{Pattern: "PATCH /components/{component_id}", Handler: o.handleUpdateComponent, Access: needs("components:write"), Tag: tag, Summary: "Update Component",
			JSON: []apiParam{{Name: "name", Type: "string"}, {Name: "description", Type: "string"}, {Name: "component_type", Type: "string"},
				{Name: "metadata", Type: "object"}, {Name: "current_version", Type: "integer", Desc: "A published version to make current"}}, Result: comp},
		{Pattern: "DELETE /components/{component_id}", Handler: o.handleDeleteComponent, Access: needs("components:delete"), Tag: tag, Summary: "Delete Component", Desc: "Soft delete: the component stops being served.", Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /components/{component_id}/configs", Handler: o.handleListConfigs, Access: needs("components:read"), Tag: tag, Summary: "List Configs",
			Query: []apiParam{{Name: "include_config", Type: "boolean", Desc: "Include the config", Default: true}}, Result: "[" + cfg + "]"},
		{Pattern: "POST /components/{component_id}/configs", Handler: o.handleCreateConfig, Access: needs("components:write"), Tag: tag, Summary: "Create Config Version",
			JSON:   append([]apiParam{{Name: "config", Type: "object", Required: true}, {Name: "version", Type: "integer", Desc: "Ignored: versions are numbered in order"}, {Name: "set_current", Type: "boolean", Default: true}}, configFields...),
			Status: http.StatusCreated, Result: cfg},
		{Pattern: "GET /components/{component_id}/configs/current", Handler: o.handleCurrentConfig, Access: needs("components:read"), Tag: tag, Summary: "Get Current Config", Result: cfg},
		{Pattern: "GET /components/{component_id}/configs/{version}", Handler: o.handleGetConfig, Access: needs("components:read"), Tag: tag, Summary: "Get Config Version", Result: cfg},
		{Pattern: "PATCH /components/{component_id}/configs/{version}", Handler: o.handleUpdateConfig, Access: needs("components:write"), Tag: tag, Summary: "Update Draft Config",
			Desc: "A published config cannot be edited (400).", JSON: append([]apiParam{{Name: "config", Type: "object"}}, configFields...), Result: cfg},
		{Pattern: "DELETE /components/{component_id}/configs/{version}", Handler: o.handleDeleteConfig, Access: needs("components:delete"), Tag: tag, Summary: "Delete Config Version", Desc: "The current version cannot be deleted (400).", Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "POST /components/{component_id}/configs/{version}/set-current", Handler: o.handleSetCurrent, Access: needs("components:write"), Tag: tag, Summary: "Set Current Config Version", Desc: "Only a published version can be current.", Result: comp},
		{Pattern: "POST /databases/all/migrate", Handler: o.handleMigrateAll, Access: needs("config:write"), Tag: "Database", Summary: "Migrate All Databases", Query: []apiParam{targetQ}, Result: "{message}; 207 {message, failed: {db_id: error}}"},
		{Pattern: "POST /databases/{db_id}/migrate", Handler: o.handleMigrate, Access: needs("config:write"), Tag: "Database", Summary: "Migrate Database", Query: []apiParam{targetQ}, Result: "{message}"},
	}
}

// startComponents opens the store and serves the stored components.
func (o *OS) startComponents() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := component.New(ctx, o.cfg.DB)
	if err != nil {
		return fmt.Errorf("agentos: components: %w", err)
	}
	p := &componentPlane{store: st, build: o.cfg.Components.Build, live: map[string]*liveComponent{}, warned: map[string]string{}}
	o.components = p
	if p.build == nil {
		return nil
	}
	if err := o.syncComponents(ctx); err != nil {
		o.log.Warn("could not load the stored components; they are served once the database answers", "error", err)
	}
	poll := o.cfg.Components.Poll
	if poll == 0 {
		poll = DefaultComponentPoll
	}
	if poll > 0 {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go o.pollComponents(poll)
	}
	return nil
}

func (o *OS) stopComponents() {
	if p := o.components; p != nil && p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
}

func (o *OS) pollComponents(every time.Duration) {
	p := o.components
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := o.syncComponents(ctx); err != nil {
				o.log.Warn("could not re-read the stored components", "error", err)
			}
			cancel()
		}
	}
}

// catalogHas reports whether cat serves an object of kind with id.
func catalogHas(cat Catalog, kind component.Type, id string) bool {
	switch kind {
	case component.Agent:
		return slices.ContainsFunc(cat.Agents, func(a *agent.Agent) bool { return a.ID() == id })
	case component.Team:
		return slices.ContainsFunc(cat.Teams, func(t *team.Team) bool { return t.ID() == id })
	case component.Workflow:
		return slices.ContainsFunc(cat.Workflows, func(w *workflow.Workflow) bool { return w.ID() == id })
	}
	return false
}

// catalogWithout returns cat without the object of kind and id.
func catalogWithout(cat Catalog, kind component.Type, id string) Catalog {
	out := Catalog{Agents: slices.Clone(cat.Agents), Teams: slices.Clone(cat.Teams), Workflows: slices.Clone(cat.Workflows)}
	switch kind {
	case component.Agent:
		out.Agents = slices.DeleteFunc(out.Agents, func(a *agent.Agent) bool { return a.ID() == id })
	case component.Team:
		out.Teams = slices.DeleteFunc(out.Teams, func(t *team.Team) bool { return t.ID() == id })
	case component.Workflow:
		out.Workflows = slices.DeleteFunc(out.Workflows, func(w *workflow.Workflow) bool { return w.ID() == id })
	}
	return out
}

// catalogWith returns cat with obj added.
func catalogWith(cat Catalog, obj any) Catalog {
	switch x := obj.(type) {
	case *agent.Agent:
		cat.Agents = append(cat.Agents, x)
	case *team.Team:
		cat.Teams = append(cat.Teams, x)
	case *workflow.Workflow:
		cat.Workflows = append(cat.Workflows, x)
	}
	return cat
}

// builtRight checks a builder's object is of the component's kind.
func builtRight(kind component.Type, obj any) error {
	ok := false
	switch kind {
	case component.Agent:
		_, ok = obj.(*agent.Agent)
	case component.Team:
		_, ok = obj.(*team.Team)
	case component.Workflow:
		_, ok = obj.(*workflow.Workflow)
	}
	if !ok {
		return fmt.Errorf("agentos: the component builder made a %T for a %s", obj, kind)
	}
	return nil
}

// maxComponentID bounds a component id (a URL path segment, a key in
// every listing).
const maxComponentID = 128

// componentIDRE is what the create route's message promises: letters,
// digits, -, _ and ., starting with a letter or digit (so neither "." nor
// ".." nor a hidden-file name).
var componentIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// servedIDLike is the id of a served resource of kind that equals id but
// for case ("" when none): one such id per kind, so that a component
// cannot pass for a file's agent in a listing or a reference. Call with
// reloadMu held.
func (o *OS) servedIDLike(kind component.Type, id string) string {
	cat := o.catalog().Catalog
	var ids []string
	switch kind {
	case component.Agent:
		for _, a := range cat.Agents {
			ids = append(ids, a.ID())
		}
	case component.Team:
		for _, t := range cat.Teams {
			ids = append(ids, t.ID())
		}
	case component.Workflow:
		for _, w := range cat.Workflows {
			ids = append(ids, w.ID())
		}
	}
	for _, other := range ids {
		if other != id && strings.EqualFold(other, id) {
			return other
		}
	}
	return ""
}

// changeableComponent loads a component the caller may change: under
// user isolation only its owner or an admin may (403 otherwise; 404 for
// none). The component acts for this caller from now on, recorded before
// the change so that no build of the new config runs with an earlier
// writer's rights.
func (o *OS) changeableComponent(w http.ResponseWriter, r *http.Request, id string) (*component.Component, bool) {
	c, err := o.components.store.Get(r.Context(), id)
	if err != nil {
		componentFail(w, err)
		return nil, false
	}
	if !mayChange(w, r, c) {
		return nil, false
	}
	return c, true
}

// mayChange answers 403 when, under user isolation, c is another user's.
func mayChange(w http.ResponseWriter, r *http.Request, c *component.Component) bool {
	if ownedBy(r.Context(), c.CreatedBy) {
		return true
	}
	writeError(w, http.StatusForbidden, fmt.Sprintf("Component %s belongs to another user: only its owner or an admin can change it", c.ComponentID))
	return false
}

// actFor records that the component acts for the request's caller.
func (o *OS) actFor(w http.ResponseWriter, r *http.Request, id string) bool {
	if _, err := o.components.store.SetPrincipal(r.Context(), id, principalOf(r.Context()).Encode()); err != nil {
		componentFail(w, err)
		return false
	}
	return true
}

// codeOwned reports an id served by a code- or file-defined resource of
// that kind (not by a component). Call with reloadMu held.
func (o *OS) codeOwned(kind component.Type, id string) bool {
	if l := o.components.live[id]; l != nil && l.kind == kind {
		return false
	}
	return catalogHas(o.catalog().Catalog, kind, id)
}

// checkComponentConfig builds a config to refuse a bad one before it is
// stored: 400 naming the key and the fix, 422 for what [components] does
// not allow, 403 for a served resource the writer may not use.
func (o *OS) checkComponentConfig(ctx context.Context, kind component.Type, id string, cfg map[string]any) error {
	p := o.components
	if p.build == nil {
		return nil
	}
	o.reloadMu.Lock()
	served := catalogWithout(o.catalog().Catalog, kind, id)
	o.reloadMu.Unlock()
	_, err := o.buildComponent(ctx, kind, id, cfg, served, callerOf(ctx))
	var refused *httpError
	switch {
	case errors.As(err, &refused):
		return refused
	case errors.Is(err, component.ErrNotAllowed):
		return errStatus(http.StatusUnprocessableEntity, "%s", err.Error())
	case err != nil:
		return errStatus(http.StatusBadRequest, "%s", err.Error())
	}
	return nil
}

// buildComponent builds a config for c, the caller that wrote it (nil
// outside JWT mode), and checks that c may use what it names; a refusal
// of that check is an *httpError (403).
func (o *OS) buildComponent(ctx context.Context, kind component.Type, id string, cfg map[string]any, served Catalog, c *caller) (any, error) {
	b, err := o.components.build(ctx, string(kind), id, cfg, served)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("agentos: the component builder made nothing for %s %s", kind, id)
	}
	if err := builtRight(kind, b.Object); err != nil {
		return nil, err
	}
	for _, u := range b.Uses {
		if err := o.mayUse(c, u); err != nil {
			return nil, err
		}
	}
	return b.Object, nil
}

// mayUse checks that c may use what a component names: run an agent,
// team or workflow, read a knowledge base.
func (o *OS) mayUse(c *caller, u component.Use) *httpError {
	if u.Kind == "knowledge" {
		if !o.may(c, []string{"knowledge:read"}, "", "") {
			return &httpError{Status: http.StatusForbidden, Detail: fmt.Sprintf("Insufficient permissions: the config attaches knowledge base %q, which needs knowledge:read", u.ID)}
		}
		return nil
	}
	typ := u.Kind + "s"
	if !o.may(c, []string{typ + ":run"}, typ, u.ID) {
		return &httpError{Status: http.StatusForbidden, Detail: fmt.Sprintf("Insufficient permissions: the config names %s %q, which needs %s:%s:run (or %s:run)", u.Kind, u.ID, typ, u.ID, typ)}
	}
	return nil
}

// componentSig tells whether a live component must be rebuilt.
func componentSig(l component.Live) string {
	b, _ := json.Marshal(l.Config.Config)
	return string(l.Component.ComponentType) + "|" + strconv.Itoa(l.Config.Version) + "|" + string(b) + "|" + string(l.Component.Principal)
}

// syncComponents makes the catalog serve the stored components: new and
// changed ones are built, deleted ones removed. Agents are built first,
// then teams, then workflows, so a team can name a component agent; when
// anything changed, component teams and workflows are rebuilt against the
// new objects. A config that no longer builds keeps its previous object.
func (o *OS) syncComponents(ctx context.Context) error {
	p := o.components
	if p == nil || p.build == nil {
		return nil
	}
	lives, err := p.store.Lives(ctx)
	if err != nil {
		return err
	}
	o.reloadMu.Lock()
	defer o.reloadMu.Unlock()
	cat := o.catalog().Catalog
	changed := false
	for id, l := range p.live {
		i := slices.IndexFunc(lives, func(x component.Live) bool { return x.Component.ComponentID == id })
		if i < 0 || lives[i].Component.ComponentType != l.kind {
			cat = catalogWithout(cat, l.kind, id)
			delete(p.live, id)
			changed = true
		}
	}
	for _, kind := range []component.Type{component.Agent, component.Team, component.Workflow} {
		for _, l := range lives {
			c := l.Component
			if c.ComponentType != kind {
				continue
			}
			sig := componentSig(l)
			cur := p.live[c.ComponentID]
			if cur != nil && cur.sig == sig && !(changed && kind != component.Agent) {
				continue
			}
			if cur == nil && catalogHas(cat, kind, c.ComponentID) {
				if p.warned[c.ComponentID] != sig {
					p.warned[c.ComponentID] = sig
					o.log.Warn("component not served: its id is that of a resource defined in code or a file", "component_id", c.ComponentID, "type", kind)
				}
				continue
			}
			served := catalogWithout(cat, kind, c.ComponentID)
			// Built for the caller that last wrote it: what it names is
			// checked against that caller's scopes again.
			obj, err := o.buildComponent(ctx, kind, c.ComponentID, l.Config.Config, served, o.callerFor(decodePrincipal(c.Principal)))
			if err != nil {
				if p.warned[c.ComponentID] != sig {
					p.warned[c.ComponentID] = sig
					o.log.Warn("component config does not build; not served in this version", "component_id", c.ComponentID, "version", l.Config.Version, "error", err)
				}
				continue
			}
			delete(p.warned, c.ComponentID)
			cat = catalogWith(served, obj)
			p.live[c.ComponentID] = &liveComponent{kind: kind, sig: sig, obj: obj}
			changed = true
		}
	}
	if !changed {
		return nil
	}
	next, err := newCatalog(cat)
	if err != nil {
		return err
	}
	o.cat.Store(next)
	p.publish()
	o.log.Info("components served", "components", len(p.live))
	return nil
}

// keepComponents adds the live components to a reloaded catalog (Reload,
// reloadMu held); a file that now takes a component's id wins.
func (o *OS) keepComponents(c Catalog) Catalog {
	p := o.components
	if p == nil {
		return c
	}
	for id, l := range p.live {
		if catalogHas(c, l.kind, id) {
			o.log.Warn("component no longer served: a reloaded file has its id", "component_id", id, "type", l.kind)
			delete(p.live, id)
			continue
		}
		c = catalogWith(c, l.obj)
	}
	p.publish()
	return c
}

// isComponent reports whether obj (an *agent.Agent, *team.Team or
// *workflow.Workflow being served) comes from a stored component: agno's
// is_component in the agent, team and workflow responses.
func (o *OS) isComponent(obj any) bool {
	p := o.components
	if p == nil {
		return false
	}
	objs := p.objs.Load()
	return objs != nil && (*objs)[obj]
}

// publish records the live objects (reloadMu held).
func (p *componentPlane) publish() {
	objs := make(map[any]bool, len(p.live))
	for _, l := range p.live {
		objs[l.obj] = true
	}
	p.objs.Store(&objs)
}

// afterComponentWrite serves what a write changed; a failure is logged,
// the poll retries it.
func (o *OS) afterComponentWrite(ctx context.Context) {
	if err := o.syncComponents(context.WithoutCancel(ctx)); err != nil {
		o.log.Warn("component stored but not yet served", "error", err)
	}
}

// componentFail answers a store error with agno's status.
func componentFail(w http.ResponseWriter, err error) {
	var ce *component.Error
	if errors.As(err, &ce) {
		status := http.StatusBadRequest
		if ce.Code == component.NotFound {
			status = http.StatusNotFound
		}
		writeError(w, status, ce.Msg)
		return
	}
	fail(w, err)
}

var componentTypes = []string{string(component.Agent), string(component.Team), string(component.Workflow)}

// readComponentType reads a required or optional component_type enum.
func readComponentType(b *jsonBody, required bool) (component.Type, bool) {
	var s string
	if required {
		if !b.Require("component_type", &s) {
			return "", false
		}
	} else if !b.Get("component_type", &s) {
		return "", !b.Bad
	}
	if !slices.Contains(componentTypes, s) {
		b.RejectCtx([]string{"component_type"}, "Input should be "+quoteChoices(componentTypes), "enum", map[string]any{"expected": quoteChoices(componentTypes)})
		return "", false
	}
	return component.Type(s), true
}

// readLinks reads the links list.
func readLinks(b *jsonBody) (*[]component.Link, bool) {
	var raw []map[string]any
	if !b.Get("links", &raw) {
		return nil, !b.Bad
	}
	links := make([]component.Link, 0, len(raw))
	for i, m := range raw {
		buf, _ := json.Marshal(m)
		var l component.Link
		if err := json.Unmarshal(buf, &l); err != nil {
			b.Reject([]string{"links", strconv.Itoa(i)}, "Input should be a link {link_kind, link_key, child_component_id, child_version, position, meta}: "+err.Error(), "value_error")
			return nil, false
		}
		links = append(links, l)
	}
	return &links, true
}

func pathVersion(w http.ResponseWriter, r *http.Request) (int, bool) {
	s := r.PathValue("version")
	v, err := strconv.Atoi(s)
	if err != nil {
		fieldErrorInput(w, []string{"path", "version"}, "Input should be a valid integer, unable to parse string as an integer", "int_parsing", s, nil)
		return 0, false
	}
	return v, true
}

func (o *OS) handleListComponents(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := newQueryParams(w, r)
	typ := q.Enum("component_type", "", componentTypes...)
	page := q.Int("page", 1, 1, 0)
	limit := q.Int("limit", 20, 1, 100)
	if q.Bad {
		return
	}
	all, _, err := o.components.store.List(r.Context(), component.ListQuery{Type: component.Type(typ)})
	if err != nil {
		o.log.Error("Error listing components", "error", err)
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	// Ids that code or files own are theirs, as agno leaves registry ids out.
	o.reloadMu.Lock()
	all = slices.DeleteFunc(all, func(c *component.Component) bool { return o.codeOwned(c.ComponentType, c.ComponentID) })
	o.reloadMu.Unlock()
	total := len(all)
	from := min((page-1)*limit, total)
	if page-1 > total/limit {
		from = total
	}
	data := []ComponentResponse{}
	for _, c := range all[from:min(from+limit, total)] {
		data = append(data, componentResponse(c))
	}
	writeJSON(w, http.StatusOK, paginatedResponse(data, page, limit, total, time.Since(start)))
}

func (o *OS) handleCreateComponent(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
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
		writeError(w, http.StatusBadRequest, fmt.Sprintf("component_id %.80q cannot be used: use 1 to %d letters, digits, -, _ and ., starting with a letter or digit (it is a path segment of /agents/{id}/runs)", id, maxComponentID))
		return
	}
	p.ComponentID, p.ComponentType, p.Name = id, typ, name
	if p.Config == nil {
		p.Config = map[string]any{}
	}
	if typ == component.Team {
		if m, _ := p.Config["members"].([]any); len(m) == 0 {
			o.log.Warn("Creating a team without members. If this is unintended, add members to the config.", "component_id", id)
		}
	}
	o.reloadMu.Lock()
	owned := o.codeOwned(typ, id)
	taken := o.servedIDLike(typ, id)
	o.reloadMu.Unlock()
	if owned {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Component %s already exists: a %s with this id is defined in code or in a declarative file; choose another component_id", id, typ))
		return
	}
	if taken != "" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("component_id %s differs only in case from the %s %s already served; choose another component_id", id, typ, taken))
		return
	}
	p.CreatedBy, p.Principal = callerUser(r.Context()), principalOf(r.Context()).Encode()
	if _, err := o.components.store.Get(r.Context(), id); err == nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Component %s already exists", id))
		return
	}
	if err := o.checkComponentConfig(r.Context(), typ, id, p.Config); err != nil {
		fail(w, err)
		return
	}
	c, _, err := o.components.store.Create(r.Context(), p)
	if err != nil {
		componentFail(w, err)
		return
	}
	o.afterComponentWrite(r.Context())
	writeJSON(w, http.StatusCreated, componentResponse(c))
}

func (o *OS) handleGetComponent(w http.ResponseWriter, r *http.Request) {
	c, err := o.components.store.Get(r.Context(), r.PathValue("component_id"))
	if err != nil {
		componentFail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, componentResponse(c))
}

func (o *OS) handleUpdateComponent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	b, ok := readBody(w, r, true)
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
	st := o.components.store
	existing, ok := o.changeableComponent(w, r, id)
	if !ok {
		return
	}
	// All checks before the first write, so a refused request changes nothing.
	kind := existing.ComponentType
	if setType {
		t := component.Type(typ)
		if !t.Valid() {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("'%s' is not a valid ComponentType", typ))
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
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Cannot set draft config %s v%d as current. Only published configs can be current.", id, current))
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
		o.reloadMu.Lock()
		owned := o.codeOwned(kind, id)
		o.reloadMu.Unlock()
		if owned {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("component_type %s: a %s with the id %s is defined in code or in a declarative file", kind, kind, id))
			return
		}
	}
	if live != nil {
		if err := o.checkComponentConfig(ctx, kind, id, live.Config); err != nil {
			fail(w, err)
			return
		}
	}
	if !o.actFor(w, r, id) {
		return
	}
	if setCurrent {
		moved, err := st.SetCurrent(ctx, id, current)
		if err != nil {
			componentFail(w, err)
			return
		}
		if !moved {
			writeError(w, http.StatusNotFound, fmt.Sprintf("Config %s v%d not found", id, current))
			return
		}
	}
	c, err := st.Update(ctx, id, u)
	if err != nil {
		componentFail(w, err)
		return
	}
	o.afterComponentWrite(ctx)
	writeJSON(w, http.StatusOK, componentResponse(c))
}

func (o *OS) handleDeleteComponent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	if c, err := o.components.store.Get(r.Context(), id); err == nil && !mayChange(w, r, c) {
		return
	}
	ok, err := o.components.store.Delete(r.Context(), id)
	if err != nil {
		o.log.Error("Error deleting component", "error", err)
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Component %s not found", id))
		return
	}
	o.afterComponentWrite(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func (o *OS) handleListConfigs(w http.ResponseWriter, r *http.Request) {
	include := true
	if s := r.URL.Query().Get("include_config"); s != "" {
		v, ok := parseFastAPIBool(s)
		if !ok {
			fieldErrorInput(w, []string{"query", "include_config"}, "Input should be a valid boolean, unable to interpret input", "bool_parsing", s, nil)
			return
		}
		include = v
	}
	cfgs, err := o.components.store.ListConfigs(r.Context(), r.PathValue("component_id"), include)
	if err != nil {
		componentFail(w, err)
		return
	}
	out := make([]ComponentConfigResponse, 0, len(cfgs))
	for _, c := range cfgs {
		out = append(out, configResponse(c))
	}
	writeJSON(w, http.StatusOK, out)
}

// parseFastAPIBool reads a boolean as pydantic does from a query string.
func parseFastAPIBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "t", "yes", "y", "on":
		return true, true
	case "0", "false", "f", "no", "n", "off":
		return false, true
	}
	return false, false
}

// checkVersion checks that a config builds as the component's type.
func (o *OS) checkVersion(ctx context.Context, id string, cfg map[string]any) error {
	c, err := o.components.store.Get(ctx, id)
	if err != nil {
		return err
	}
	return o.checkComponentConfig(ctx, c.ComponentType, id, cfg)
}

func (o *OS) handleCreateConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	b, ok := readBody(w, r, true)
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
	c, err := o.components.store.Get(r.Context(), id)
	if errors.Is(err, component.ErrNotFound) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Component %s not found", id))
		return
	}
	if err != nil {
		componentFail(w, err)
		return
	}
	if !mayChange(w, r, c) {
		return
	}
	if err := o.checkComponentConfig(r.Context(), c.ComponentType, id, p.Config); err != nil {
		fail(w, err)
		return
	}
	if !o.actFor(w, r, id) {
		return
	}
	cfg, err := o.components.store.CreateConfig(r.Context(), id, p)
	if err != nil {
		if errors.Is(err, component.ErrNotFound) {
			writeError(w, http.StatusBadRequest, err.Error()) // agno's ValueError
			return
		}
		componentFail(w, err)
		return
	}
	o.afterComponentWrite(r.Context())
	writeJSON(w, http.StatusCreated, configResponse(cfg))
}

func (o *OS) handleCurrentConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	cfg, err := o.components.store.GetConfig(r.Context(), id, nil)
	writeConfig(w, cfg, err, fmt.Sprintf("No current config for %s", id))
}

func (o *OS) handleGetConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	cfg, err := o.components.store.GetConfig(r.Context(), id, &v)
	writeConfig(w, cfg, err, fmt.Sprintf("Config %s v%d not found", id, v))
}

// writeConfig answers a config read: the config, agno's 404 text, or the
// store's failure.
func writeConfig(w http.ResponseWriter, cfg *component.Config, err error, notFound string) {
	switch {
	case errors.Is(err, component.ErrNotFound):
		writeError(w, http.StatusNotFound, notFound)
	case err != nil:
		componentFail(w, err)
	default:
		writeJSON(w, http.StatusOK, configResponse(cfg))
	}
}

func (o *OS) handleUpdateConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	b, ok := readBody(w, r, true)
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
	st := o.components.store
	if _, ok := o.changeableComponent(w, r, id); !ok {
		return
	}
	if u.Config != nil {
		old, err := st.GetConfig(ctx, id, &v)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Config %s v%d not found", id, v))
			return
		}
		if old.Stage == component.StagePublished {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("Cannot update published config %s v%d", id, v))
			return
		}
		if err := o.checkVersion(ctx, id, u.Config); err != nil {
			fail(w, err)
			return
		}
	}
	if !o.actFor(w, r, id) {
		return
	}
	cfg, err := st.UpdateConfig(ctx, id, v, u)
	if err != nil {
		if errors.Is(err, component.ErrNotFound) {
			writeError(w, http.StatusBadRequest, err.Error()) // agno's ValueError
			return
		}
		componentFail(w, err)
		return
	}
	o.afterComponentWrite(ctx)
	writeJSON(w, http.StatusOK, configResponse(cfg))
}

func (o *OS) handleDeleteConfig(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	if _, ok := o.changeableComponent(w, r, id); !ok {
		return
	}
	if !o.actFor(w, r, id) {
		return
	}
	deleted, err := o.components.store.DeleteConfig(r.Context(), id, v)
	if err != nil {
		componentFail(w, err)
		return
	}
	if !deleted {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Config %s v%d not found", id, v))
		return
	}
	o.afterComponentWrite(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func (o *OS) handleSetCurrent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("component_id")
	v, ok := pathVersion(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	st := o.components.store
	notFound := fmt.Sprintf("Component %s or config version %d not found", id, v)
	c, err := st.Get(ctx, id)
	if err != nil {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	if !mayChange(w, r, c) {
		return
	}
	cfg, err := st.GetConfig(ctx, id, &v)
	if err != nil {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	if cfg.Stage == component.StagePublished {
		if err := o.checkComponentConfig(ctx, c.ComponentType, id, cfg.Config); err != nil {
			fail(w, err)
			return
		}
	}
	if !o.actFor(w, r, id) {
		return
	}
	moved, err := st.SetCurrent(ctx, id, v)
	if err != nil {
		componentFail(w, err)
		return
	}
	if !moved {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	if c, err = st.Get(ctx, id); err != nil {
		componentFail(w, err)
		return
	}
	o.afterComponentWrite(ctx)
	writeJSON(w, http.StatusOK, componentResponse(c))
}

// ---- databases ----

// dbIDs are the databases AgentOS knows: the run store's and the control
// plane's (the same file or schema, usually the same id).
func (o *OS) dbIDs() []string {
	var ids []string
	for _, id := range []string{o.cfg.DBID, o.cfg.DB.ID} {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// errTargetVersion refuses target_version: migrations here are numbered
// per table and go up only.
var errTargetVersion = errors.New("migrating to a chosen target_version is not supported: agno-go keeps one schema version per table, applies every migration up to the latest when it opens the database, and has no down migrations; call without target_version to apply pending migrations")

// migrateDB applies pending migrations: the run store's, when its schema is
// versioned in its database (storage.Migrator: SQLite, Postgres), and the
// control plane's.
func (o *OS) migrateDB(ctx context.Context, id, target string) error {
	if target != "" {
		return errTargetVersion
	}
	if id == o.cfg.DBID {
		if m, ok := o.cfg.Store.(storage.Migrator); ok {
			if err := m.Migrate(ctx); err != nil {
				return err
			}
		}
	}
	if o.cfg.DB != nil && (id == o.cfg.DB.ID || o.cfg.DB.ID == "") {
		return o.cfg.DB.Migrate(ctx, controlMigrations(o.cfg.DB))
	}
	return nil
}

func versionMsg(target string) string {
	if target != "" {
		return "version " + target
	}
	return "latest version"
}

func (o *OS) handleMigrate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("db_id")
	if !slices.Contains(o.dbIDs(), id) {
		writeError(w, http.StatusNotFound, "Database not found")
		return
	}
	target := r.URL.Query().Get("target_version")
	if err := o.migrateDB(r.Context(), id, target); err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to migrate database: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, MigrateResponse{Message: "Database migrated successfully to " + versionMsg(target)})
}

func (o *OS) handleMigrateAll(w http.ResponseWriter, r *http.Request) {
	target := r.URL.Query().Get("target_version")
	ids := o.dbIDs()
	failed := map[string]string{}
	for _, id := range ids {
		if err := o.migrateDB(r.Context(), id, target); err != nil {
			failed[id] = err.Error()
		}
	}
	if len(failed) > 0 {
		writeJSON(w, http.StatusMultiStatus, MigrateResponse{
			Message: fmt.Sprintf("Migrated %d/%d databases to %s", len(ids)-len(failed), len(ids), versionMsg(target)), Failed: failed})
		return
	}
	writeJSON(w, http.StatusOK, MigrateResponse{Message: "All databases migrated successfully to " + versionMsg(target)})
}
