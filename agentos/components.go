package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/componentsapi"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// Components: agent, team and workflow configurations stored in
// Config.DB (agno's Builder/Studio). A component whose config builds
// becomes a live entry of the catalog — listed by GET /agents with
// is_component true, run by POST /agents/{id}/runs — without a restart;
// replicas learn of other replicas' changes by polling (ComponentsConfig.Poll).
// The routes, the store and the poll are agentos/componentsapi's; the
// catalog is the OS's, so building and serving components stay here.

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
const DefaultComponentPoll = componentsapi.DefaultPoll

// servedComponents are the stored components the catalog serves (none
// without a DB or a builder).
type servedComponents struct {
	// live are the components in the catalog, by id; guarded by
	// OS.reloadMu, which every catalog swap holds.
	live map[string]*liveComponent
	// warned: the version of each component whose refusal was logged,
	// so a poll does not log it again (guarded by OS.reloadMu).
	warned map[string]string
	// objs are the live objects, read without the lock (is_component).
	objs atomic.Pointer[map[any]bool]
}

// liveComponent is a component served: its kind, what it was built from
// and the object.
type liveComponent struct {
	kind component.Type
	sig  string
	obj  any
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

// codeOwned reports an id served by a code- or file-defined resource of
// that kind (not by a component). Call with reloadMu held.
func (o *OS) codeOwned(kind component.Type, id string) bool {
	if l := o.served.live[id]; l != nil && l.kind == kind {
		return false
	}
	return catalogHas(o.catalog().Catalog, kind, id)
}

// checkComponentConfig builds a config to refuse a bad one before it is
// stored: 400 naming the key and the fix, 422 for what [components] does
// not allow, 403 for a served resource the writer may not use.
func (o *OS) checkComponentConfig(ctx context.Context, kind component.Type, id string, cfg map[string]any) error {
	if o.cfg.Components.Build == nil {
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
	b, err := o.cfg.Components.Build(ctx, string(kind), id, cfg, served)
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

// syncComponents makes the catalog serve lives, the stored components
// (componentsapi.Host.Serve): new and changed ones are built, deleted
// ones removed. Agents are built first,
// then teams, then workflows, so a team can name a component agent; when
// anything changed, component teams and workflows are rebuilt against the
// new objects. A config that no longer builds keeps its previous object.
func (o *OS) syncComponents(ctx context.Context, lives []component.Live) error {
	if o.cfg.Components.Build == nil {
		return nil
	}
	o.reloadMu.Lock()
	defer o.reloadMu.Unlock()
	p := &o.served
	if p.live == nil {
		p.live, p.warned = map[string]*liveComponent{}, map[string]string{}
	}
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
	p := &o.served
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
	objs := o.served.objs.Load()
	return objs != nil && (*objs)[obj]
}

// publish records the live objects (reloadMu held).
func (p *servedComponents) publish() {
	objs := make(map[any]bool, len(p.live))
	for _, l := range p.live {
		objs[l.obj] = true
	}
	p.objs.Store(&objs)
}
