package agentos

import (
	"net/http"
	"slices"
	"sort"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
)

// routes registers the routes this OS serves on mux and returns their
// rows: every AgentOS's, the control plane's with a DB, and the
// configured interfaces'.
func (o *OS) routes(mux routeMux) []apiRoute {
	var rows []apiRoute // the docs pages list them, read once registered
	rows = o.baseAPIRoutes(func() []apiRoute { return rows })
	if o.cfg.DB != nil {
		rows = append(rows, o.controlAPIRoutes()...)
	}
	rows = append(rows, o.interfaceAPIRoutes()...)
	register(mux, rows)
	return rows
}

// baseAPIRoutes are the routes every AgentOS serves; the docs pages
// document served().
func (o *OS) baseAPIRoutes(served func() []apiRoute) []apiRoute {
	return slices.Concat(o.coreAPIRoutes(), o.runsAPI.Routes(), o.sessions.Routes(), o.memories.Routes(),
		o.registryAPI.Routes(), o.docsAPIRoutes(served), o.knowledge.Routes())
}

// coreAPIRoutes are home, the probes and the configuration.
func (o *OS) coreAPIRoutes() []apiRoute {
	return []apiRoute{
		{Pattern: "GET /{$}", Handler: o.handleHome, Access: open("the home page: name, id and version, open in agno"), Tag: "Core", Summary: "AgentOS home", Result: "{name, id, version}"},
		{Pattern: "GET /health", Handler: o.handleHealth, Access: open("liveness probe, open in agno"), Tag: "Core", Summary: "Health check", Result: "{status: \"ok\", instantiated_at}"},
		{Pattern: "GET /ready", Handler: o.handleReady, Access: open("readiness probe for load balancers, like /health"), Tag: "Core", Summary: "Readiness check", Desc: "Checks that the database answers (within 2 s) and can keep writes; 503 {status: \"unavailable\", checks: {storage: {status: \"down\", detail}}} when it cannot, 503 {status: \"draining\", checks: {}} while the server shuts down. Needs no key, like /health (which stays a constant 200).",
			Result: "{status: \"ready\", checks: {storage: {status: \"ok\"}}}"},
		{Pattern: "GET /info", Handler: o.handleInfo, Access: open("version and resource counts, open in agno"), Tag: "Core", Summary: "Agno version and resource counts", Result: "{agno_version, agent_count, team_count, workflow_count}"},
		{Pattern: "GET /config", Handler: o.handleConfig, Access: needs("config:read"), Tag: "Core", Summary: "AgentOS configuration", Result: "ConfigResponse: os_id, name, agents, teams, workflows, databases, available_models"},
		{Pattern: "GET /models", Handler: o.handleModels, Access: needs("config:read"), Tag: "Core", Summary: "Unique models of the agents and teams", Result: "[{id, provider}]"},
	}
}

// homeResponse is agno's GET / body.
type homeResponse struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Version string `json:"version"`
}

// healthResponse is agno's HealthResponse.
type healthResponse struct {
	Status         string `json:"status"`
	InstantiatedAt string `json:"instantiated_at"`
}

// infoResponse is agno's GET /info body.
type infoResponse struct {
	AgnoVersion   string `json:"agno_version"`
	AgentCount    int    `json:"agent_count"`
	TeamCount     int    `json:"team_count"`
	WorkflowCount int    `json:"workflow_count"`
}

func (o *OS) handleHome(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, homeResponse{Name: "AgentOS API", ID: o.cfg.ID, Version: o.cfg.Version})
}

func (o *OS) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, healthResponse{Status: "ok", InstantiatedAt: o.instantiated.Format("2006-01-02T15:04:05.000000Z")})
}

func (o *OS) handleInfo(w http.ResponseWriter, _ *http.Request) {
	c := o.catalog()
	writeJSON(w, http.StatusOK, infoResponse{AgnoVersion: Version, AgentCount: len(c.Agents), TeamCount: len(c.Teams), WorkflowCount: len(c.Workflows)})
}

// AgentSummaryResponse is agno's AgentSummaryResponse in /config.
type AgentSummaryResponse struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	DBID        string `json:"db_id,omitempty"`
}

// TeamSummaryResponse is agno's TeamSummaryResponse in /config.
type TeamSummaryResponse struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	DBID        string `json:"db_id,omitempty"`
	Mode        string `json:"mode,omitempty"`
}

// DatabaseConfig is one database of a /config domain (agno's
// DatabaseConfig); Tables is None (absent) for traces and knowledge.
type DatabaseConfig struct {
	DBID         string       `json:"db_id"`
	DomainConfig DomainConfig `json:"domain_config"`
	Tables       []string     `json:"tables,omitempty"`
}

// DomainConfig is agno's per-domain display settings.
type DomainConfig struct {
	DisplayName string `json:"display_name,omitempty"`
}

// DomainDBs is agno's SessionConfig / MemoryConfig / MetricsConfig /
// EvalsConfig / TracesConfig: the databases a UI screen reads.
type DomainDBs struct {
	DisplayName string           `json:"display_name,omitempty"`
	DBs         []DatabaseConfig `json:"dbs"`
}

// ConfigResponse is agno's ConfigResponse (GET /config, exclude_none).
type ConfigResponse struct {
	OSID            string                    `json:"os_id"`
	Name            string                    `json:"name,omitempty"`
	Description     string                    `json:"description,omitempty"`
	AvailableModels []string                  `json:"available_models,omitempty"`
	OSDatabase      string                    `json:"os_database,omitempty"`
	Databases       []string                  `json:"databases"`
	Chat            map[string]any            `json:"chat,omitempty"`
	Session         *DomainDBs                `json:"session,omitempty"`
	Metrics         *DomainDBs                `json:"metrics,omitempty"`
	Memory          *DomainDBs                `json:"memory,omitempty"`
	Knowledge       map[string]any            `json:"knowledge,omitempty"`
	Evals           *DomainDBs                `json:"evals,omitempty"`
	Traces          *DomainDBs                `json:"traces,omitempty"`
	Agents          []AgentSummaryResponse    `json:"agents"`
	Teams           []TeamSummaryResponse     `json:"teams"`
	Workflows       []WorkflowSummaryResponse `json:"workflows"`
	Interfaces      []any                     `json:"interfaces"`
}

// domain is one database of a /config domain, shown under its id.
func (o *OS) domain(tables ...string) *DomainDBs {
	return &DomainDBs{DBs: []DatabaseConfig{{DBID: o.cfg.DBID, DomainConfig: DomainConfig{DisplayName: o.cfg.DBID}, Tables: tables}}}
}

// handleConfig is agno's ConfigResponse.
func (o *OS) handleConfig(w http.ResponseWriter, _ *http.Request) {
	c := o.catalog()
	out := ConfigResponse{
		OSID: o.cfg.ID, Name: o.cfg.Name, Description: o.cfg.Description, AvailableModels: o.modelIDs(),
		Databases: []string{}, Agents: []AgentSummaryResponse{}, Teams: []TeamSummaryResponse{},
		Workflows: []WorkflowSummaryResponse{}, Interfaces: o.interfaces(),
	}
	for _, a := range c.Agents {
		cfg := a.Config()
		out.Agents = append(out.Agents, AgentSummaryResponse{ID: a.ID(), Name: cfg.Name, Description: cfg.Description, DBID: o.cfg.DBID})
	}
	for _, t := range c.Teams {
		cfg := t.Config()
		out.Teams = append(out.Teams, TeamSummaryResponse{ID: t.ID(), Name: cfg.Name, Description: cfg.Description, DBID: o.cfg.DBID, Mode: string(t.Mode())})
	}
	for _, wf := range c.Workflows {
		out.Workflows = append(out.Workflows, o.runsAPI.WorkflowSummary(wf))
	}
	if k := o.knowledge.OSConfig(); k != nil {
		out.Knowledge = k
	}
	if o.cfg.DBID != "" {
		out.OSDatabase = o.cfg.DBID
		out.Databases = []string{o.cfg.DBID}
		out.Session = o.domain("agno_sessions")
		out.Memory = o.domain("agno_memories")
	}
	// The control-plane domains exist where their routes do: with the
	// SQL database (agno lists traces without tables).
	if o.cfg.DB != nil && o.cfg.DBID != "" {
		out.Metrics = o.domain("agno_metrics")
		out.Evals = o.domain("agno_eval_runs")
		out.Traces = o.domain()
	}
	writeJSON(w, http.StatusOK, out)
}

// models lists the unique models of agents and teams (members included).
func (o *OS) models() []model.Model {
	seen := map[[2]string]bool{}
	var out []model.Model
	add := func(m model.Model) {
		if m == nil {
			return
		}
		k := [2]string{m.Info().Provider, m.Info().ID}
		if !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	var walkTeam func(*team.Team)
	walkTeam = func(t *team.Team) {
		add(t.Config().Model)
		for _, m := range t.Members() {
			switch x := m.(type) {
			case *agent.Agent:
				add(x.Config().Model)
			case *team.Team:
				walkTeam(x)
			}
		}
	}
	for _, a := range o.catalog().Agents {
		add(a.Config().Model)
	}
	for _, t := range o.catalog().Teams {
		walkTeam(t)
	}
	return out
}

func (o *OS) modelIDs() []string {
	ids := []string{}
	for _, m := range o.models() {
		ids = append(ids, m.Info().ID)
	}
	sort.Strings(ids)
	return ids
}

// modelEntry is agno's Model {id, provider} (GET /models; no
// exclude_none, so an unknown field is null).
type modelEntry struct {
	ID       *string `json:"id"`
	Provider *string `json:"provider"`
}

func (o *OS) handleModels(w http.ResponseWriter, _ *http.Request) {
	out := []modelEntry{}
	for _, m := range o.models() {
		out = append(out, modelEntry{ID: nullString(m.Info().ID), Provider: nullString(m.Info().Provider)})
	}
	writeJSON(w, http.StatusOK, out)
}
