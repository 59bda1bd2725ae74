// Package componentsapi is the Components route group of AgentOS: agno's
// /components routes over package component (agent, team and workflow
// configurations kept in the OS's control-plane DB, agno's
// Builder/Studio), the poll that lets a replica serve another's changes,
// and the /databases migrate routes. Building a component and serving it
// in the catalog stay with the OS. It builds on the core
// (agentos/internal/httpapi) and on Host, what it needs of the OS;
// agentos serves its rows.
package componentsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/storage/sqldb"
)

// DefaultPoll is how often replicas re-read the components.
const DefaultPoll = 5 * time.Second

// Config configures the group.
type Config struct {
	// Serve: the OS builds the stored components into live entries (a
	// component builder is set); without it they are stored only, never
	// re-read.
	Serve bool
	// Poll is how often the stored components are re-read, so that a
	// replica serves the changes another made (default DefaultPoll;
	// negative: only at start and on this replica's own writes).
	Poll time.Duration
}

// Host is what the group needs of the OS. A component acts with no more
// than its writer's rights: CheckConfig and Serve build it for that
// writer and refuse what the writer may not use.
type Host interface {
	// DB holds the component tables.
	DB() *sqldb.DB
	Logger() *slog.Logger
	// Serve makes the catalog serve lives, every stored component with
	// its live config, each built for the caller that last wrote it; a
	// config that no longer builds keeps its previous object.
	Serve(ctx context.Context, lives []component.Live) error
	// CheckConfig builds a config for ctx's caller to refuse a bad one
	// before it is stored; the error is answered as it is (httpapi.Fail:
	// 400, 403 or 422).
	CheckConfig(ctx context.Context, kind component.Type, id string, cfg map[string]any) error
	// CodeOwned reports whether a resource defined in code or a file,
	// not a component, serves id as a kind.
	CodeOwned(kind component.Type, id string) bool
	// CaseTwin is the id of a served kind that equals id but for case
	// ("" when none).
	CaseTwin(kind component.Type, id string) string
	// Databases are the ids of the databases /databases migrates.
	Databases() []string
	// Migrate applies the pending migrations of database id.
	Migrate(ctx context.Context, id string) error
}

// Group is the components part of the control plane: New, then Routes,
// Start and Stop.
type Group struct {
	host Host
	cfg  Config
	// store is nil until Start.
	store *component.Store
	// stop ends the poll; done closes when it has.
	stop, done chan struct{}
}

// New is the group serving h's components.
func New(h Host, cfg Config) *Group { return &Group{host: h, cfg: cfg} }

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

func componentResponse(c *component.Component) ComponentResponse {
	return ComponentResponse{ComponentID: c.ComponentID, ComponentType: string(c.ComponentType), Name: c.Name, Description: c.Description,
		CurrentVersion: c.CurrentVersion, Metadata: c.Metadata, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func configResponse(c *component.Config) ComponentConfigResponse {
	return ComponentConfigResponse{ComponentID: c.ComponentID, Version: c.Version, Label: c.Label, Stage: c.Stage, Config: c.Config,
		Notes: c.Notes, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// Routes are agno's /components and /databases routes (tags Components, Database).
func (g *Group) Routes() []httpapi.Route {
	const tag = "Components"
	typeQ := httpapi.Param{Name: "component_type", Type: "string", Desc: "Filter by type", Enum: []string{"agent", "team", "workflow"}}
	comp := "ComponentResponse{component_id, component_type, name, description, current_version, metadata, created_at, updated_at}"
	cfg := "ComponentConfigResponse{component_id, version, label, stage, config, notes, created_at, updated_at}"
	configFields := []httpapi.Param{
		{Name: "label", Type: "string", Desc: "Label of the version, unique in the component (e.g. \"stable\")"},
		{Name: "stage", Type: "string", Desc: "draft or published; publishing makes the version current", Enum: []string{"draft", "published"}, Default: "draft"},
		{Name: "notes", Type: "string"},
		{Name: "links", Type: "array", Desc: "Links to child components: {link_kind, link_key, child_component_id, child_version, position, meta}"},
	}
	targetQ := httpapi.Param{Name: "target_version", Type: "string", Desc: "Schema version to migrate to (not supported: agno-go migrates to the latest)"}
	return []httpapi.Route{
		{Pattern: "GET /components", Handler: g.handleListComponents, Access: httpapi.Needs("components:read"), Tag: tag, Summary: "List Components", Query: []httpapi.Param{typeQ, httpapi.PageQuery, httpapi.Limit100Query},
			Desc: "Components whose id is that of an agent, team or workflow defined in code or a file are left out.", Schema: "PaginatedResponse", Result: "PaginatedResponse[" + comp + "]"},
		{Pattern: "POST /components", Handler: g.handleCreateComponent, Access: httpapi.Needs("components:write"), Tag: tag, Summary: "Create Component",
			Desc: "Creates a component with its config version 1. The config takes the keys of a declarative file of the component's type (model: a [models] key, tools, knowledge, members, steps, …); it is checked by building it, and the component is served at once (its current version, else its latest).",
			JSON: append([]httpapi.Param{{Name: "name", Type: "string", Required: true}, {Name: "component_id", Type: "string", Desc: "Default: derived from name"},
				{Name: "component_type", Type: "string", Required: true, Enum: []string{"agent", "team", "workflow"}}, {Name: "description", Type: "string"},
				{Name: "metadata", Type: "object"}, {Name: "config", Type: "object"}, {Name: "set_current", Type: "boolean", Default: true}}, configFields[:3]...),
			Status: http.StatusCreated, Result: comp},
		{Pattern: "GET /components/{component_id}", Handler: g.handleGetComponent, Access: httpapi.Needs("components:read"), Tag: tag, Summary: "Get Component", Result: comp},
		{Pattern: "PATCH /components/{component_id}", Handler: g.handleUpdateComponent, Access: httpapi.Needs("components:write"), Tag: tag, Summary: "Update Component",
			JSON: []httpapi.Param{{Name: "name", Type: "string"}, {Name: "description", Type: "string"}, {Name: "component_type", Type: "string"},
				{Name: "metadata", Type: "object"}, {Name: "current_version", Type: "integer", Desc: "A published version to make current"}}, Result: comp},
		{Pattern: "DELETE /components/{component_id}", Handler: g.handleDeleteComponent, Access: httpapi.Needs("components:delete"), Tag: tag, Summary: "Delete Component", Desc: "Soft delete: the component stops being served.", Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /components/{component_id}/configs", Handler: g.handleListConfigs, Access: httpapi.Needs("components:read"), Tag: tag, Summary: "List Configs",
			Query: []httpapi.Param{{Name: "include_config", Type: "boolean", Desc: "Include the config", Default: true}}, Result: "[" + cfg + "]"},
		{Pattern: "POST /components/{component_id}/configs", Handler: g.handleCreateConfig, Access: httpapi.Needs("components:write"), Tag: tag, Summary: "Create Config Version",
			JSON:   append([]httpapi.Param{{Name: "config", Type: "object", Required: true}, {Name: "version", Type: "integer", Desc: "Ignored: versions are numbered in order"}, {Name: "set_current", Type: "boolean", Default: true}}, configFields...),
			Status: http.StatusCreated, Result: cfg},
		{Pattern: "GET /components/{component_id}/configs/current", Handler: g.handleCurrentConfig, Access: httpapi.Needs("components:read"), Tag: tag, Summary: "Get Current Config", Result: cfg},
		{Pattern: "GET /components/{component_id}/configs/{version}", Handler: g.handleGetConfig, Access: httpapi.Needs("components:read"), Tag: tag, Summary: "Get Config Version", Result: cfg},
		{Pattern: "PATCH /components/{component_id}/configs/{version}", Handler: g.handleUpdateConfig, Access: httpapi.Needs("components:write"), Tag: tag, Summary: "Update Draft Config",
			Desc: "A published config cannot be edited (400).", JSON: append([]httpapi.Param{{Name: "config", Type: "object"}}, configFields...), Result: cfg},
		{Pattern: "DELETE /components/{component_id}/configs/{version}", Handler: g.handleDeleteConfig, Access: httpapi.Needs("components:delete"), Tag: tag, Summary: "Delete Config Version", Desc: "The current version cannot be deleted (400).", Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "POST /components/{component_id}/configs/{version}/set-current", Handler: g.handleSetCurrent, Access: httpapi.Needs("components:write"), Tag: tag, Summary: "Set Current Config Version", Desc: "Only a published version can be current.", Result: comp},
		{Pattern: "POST /databases/all/migrate", Handler: g.handleMigrateAll, Access: httpapi.Needs("config:write"), Tag: "Database", Summary: "Migrate All Databases", Query: []httpapi.Param{targetQ}, Result: "{message}; 207 {message, failed: {db_id: error}}"},
		{Pattern: "POST /databases/{db_id}/migrate", Handler: g.handleMigrate, Access: httpapi.Needs("config:write"), Tag: "Database", Summary: "Migrate Database", Query: []httpapi.Param{targetQ}, Result: "{message}"},
	}
}

// Start opens the store and has the OS serve the stored components.
func (g *Group) Start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := component.New(ctx, g.host.DB())
	if err != nil {
		return fmt.Errorf("agentos: components: %w", err)
	}
	g.store = st
	if !g.cfg.Serve {
		return nil
	}
	if err := g.sync(ctx); err != nil {
		g.host.Logger().Warn("could not load the stored components; they are served once the database answers", "error", err)
	}
	poll := g.cfg.Poll
	if poll == 0 {
		poll = DefaultPoll
	}
	if poll > 0 {
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go g.poll(poll)
	}
	return nil
}

// Stop ends the poll and waits for it.
func (g *Group) Stop() {
	if g.stop != nil {
		close(g.stop)
		<-g.done
		g.stop = nil
	}
}

func (g *Group) poll(every time.Duration) {
	defer close(g.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := g.sync(ctx); err != nil {
				g.host.Logger().Warn("could not re-read the stored components", "error", err)
			}
			cancel()
		}
	}
}

// sync has the OS serve what is stored now (nothing to do when it builds
// no components).
func (g *Group) sync(ctx context.Context) error {
	if !g.cfg.Serve {
		return nil
	}
	lives, err := g.store.Lives(ctx)
	if err != nil {
		return err
	}
	return g.host.Serve(ctx, lives)
}

// afterWrite serves what a write changed; a failure is logged, the poll
// retries it.
func (g *Group) afterWrite(ctx context.Context) {
	if err := g.sync(context.WithoutCancel(ctx)); err != nil {
		g.host.Logger().Warn("component stored but not yet served", "error", err)
	}
}

// maxComponentID bounds a component id (a URL path segment, a key in
// every listing).
const maxComponentID = 128

// componentIDRE is what the create route's message promises: letters,
// digits, -, _ and ., starting with a letter or digit (so neither "." nor
// ".." nor a hidden-file name).
var componentIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// changeableComponent loads a component the caller may change: under
// user isolation only its owner or an admin may (403 otherwise; 404 for
// none). The component acts for this caller from now on, recorded before
// the change so that no build of the new config runs with an earlier
// writer's rights.
func (g *Group) changeableComponent(w http.ResponseWriter, r *http.Request, id string) (*component.Component, bool) {
	c, err := g.store.Get(r.Context(), id)
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
	if httpapi.OwnedBy(r.Context(), c.CreatedBy) {
		return true
	}
	httpapi.WriteError(w, http.StatusForbidden, fmt.Sprintf("Component %s belongs to another user: only its owner or an admin can change it", c.ComponentID))
	return false
}

// actFor records that the component acts for the request's caller.
func (g *Group) actFor(w http.ResponseWriter, r *http.Request, id string) bool {
	if _, err := g.store.SetPrincipal(r.Context(), id, httpapi.PrincipalOf(r.Context()).Encode()); err != nil {
		componentFail(w, err)
		return false
	}
	return true
}

// componentFail answers a store error with agno's status.
func componentFail(w http.ResponseWriter, err error) {
	var ce *component.Error
	if errors.As(err, &ce) {
		status := http.StatusBadRequest
		if ce.Code == component.NotFound {
			status = http.StatusNotFound
		}
		httpapi.WriteError(w, status, ce.Msg)
		return
	}
	httpapi.Fail(w, err)
}

var componentTypes = []string{string(component.Agent), string(component.Team), string(component.Workflow)}

// readComponentType reads a required or optional component_type enum.
func readComponentType(b *httpapi.JSONBody, required bool) (component.Type, bool) {
	var s string
	if required {
		if !b.Require("component_type", &s) {
			return "", false
		}
	} else if !b.Get("component_type", &s) {
		return "", !b.Bad
	}
	if !slices.Contains(componentTypes, s) {
		b.RejectCtx([]string{"component_type"}, "Input should be "+httpapi.QuoteChoices(componentTypes), "enum", map[string]any{"expected": httpapi.QuoteChoices(componentTypes)})
		return "", false
	}
	return component.Type(s), true
}

// readLinks reads the links list.
func readLinks(b *httpapi.JSONBody) (*[]component.Link, bool) {
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
		httpapi.FieldErrorInput(w, []string{"path", "version"}, "Input should be a valid integer, unable to parse string as an integer", "int_parsing", s, nil)
		return 0, false
	}
	return v, true
}
