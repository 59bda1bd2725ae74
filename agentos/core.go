package agentos

import (
	"net/http"
	"slices"
	"sort"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
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
	return slices.Concat(o.coreAPIRoutes(), o.workflowAPIRoutes(), o.sessions.Routes(), o.memories.Routes(),
		o.registryAPI.Routes(), o.docsAPIRoutes(served), o.knowledge.Routes())
}

// coreAPIRoutes are home, the probes, the configuration and the agents'
// and teams' routes.
func (o *OS) coreAPIRoutes() []apiRoute {
	routes := []apiRoute{
		{Pattern: "GET /{$}", Handler: o.handleHome, Access: open("the home page: name, id and version, open in agno"), Tag: "Core", Summary: "AgentOS home", Result: "{name, id, version}"},
		{Pattern: "GET /health", Handler: o.handleHealth, Access: open("liveness probe, open in agno"), Tag: "Core", Summary: "Health check", Result: "{status: \"ok\", instantiated_at}"},
		{Pattern: "GET /ready", Handler: o.handleReady, Access: open("readiness probe for load balancers, like /health"), Tag: "Core", Summary: "Readiness check", Desc: "Checks that the database answers (within 2 s) and can keep writes; 503 {status: \"unavailable\", checks: {storage: {status: \"down\", detail}}} when it cannot, 503 {status: \"draining\", checks: {}} while the server shuts down. Needs no key, like /health (which stays a constant 200).",
			Result: "{status: \"ready\", checks: {storage: {status: \"ok\"}}}"},
		{Pattern: "GET /info", Handler: o.handleInfo, Access: open("version and resource counts, open in agno"), Tag: "Core", Summary: "Agno version and resource counts", Result: "{agno_version, agent_count, team_count, workflow_count}"},
		{Pattern: "GET /config", Handler: o.handleConfig, Access: needs("config:read"), Tag: "Core", Summary: "AgentOS configuration", Result: "ConfigResponse: os_id, name, agents, teams, workflows, databases, available_models"},
		{Pattern: "GET /models", Handler: o.handleModels, Access: needs("config:read"), Tag: "Core", Summary: "Unique models of the agents and teams", Result: "[{id, provider}]"},
	}
	// Agents and teams share one route shape.
	for _, c := range []struct {
		k                                                      kind
		list, get                                              http.HandlerFunc
		tag, a, extraForm, continueField, continueDesc, output string
	}{
		{agentKind, o.handleAgents, o.handleAgent, "Agents", "an", "", "tools", "JSON list of ToolExecution objects with the human's decisions or results", "RunOutput"},
		{teamKind, o.handleTeams, o.handleTeam, "Teams", "a", "monitor", "requirements", "JSON list of RunRequirement objects with the human's decisions", "TeamRunOutput"},
	} {
		form := []apiParam{pMessage, pStream, pSession, pUser, pFiles, pVersion, pBackground, pFactory}
		form[0].Desc = "The input"
		if c.extraForm != "" {
			form = append(form, apiParam{Name: c.extraForm, Type: "boolean", Default: true})
		}
		k, noun := c.k, c.k.name
		p := "/" + noun + "s"
		id := p + "/{" + noun + "_id}"
		read, run := needs(noun+"s:read"), needs(noun+"s:run")
		routes = append(routes,
			apiRoute{Pattern: "GET " + p, Handler: c.list, Access: read, Tag: c.tag, Summary: "List " + noun + "s", Result: "[" + c.tag[:len(c.tag)-1] + "Response]"},
			apiRoute{Pattern: "GET " + id, Handler: c.get, Access: read, Tag: c.tag, Summary: "Get " + c.a + " " + noun, Result: c.tag[:len(c.tag)-1] + "Response"},
			apiRoute{Pattern: "POST " + id + "/runs", Handler: o.handleRun(k), Access: run, Tag: c.tag, Summary: "Run " + c.a + " " + noun, Desc: runFormExtra, Form: form, Stream: true,
				Result: c.output + "; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/cancel", Handler: o.handleCancel(k), Access: run, Tag: c.tag, Summary: "Cancel " + c.a + " " + noun + " run", Query: []apiParam{pSessionQ}, Result: "{}"},
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/continue", Handler: o.handleContinue(k), Access: run, Tag: c.tag, Summary: "Continue a paused " + noun + " run", Desc: runFormExtra,
				Form:   []apiParam{{Name: c.continueField, Type: "string", Desc: c.continueDesc}, pSessionReq, pUser, pStream, pBackground},
				Stream: true, Result: c.output + ", or an SSE stream"},
			// agno's table names no resume route: its handler checks the run scope.
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/resume", Handler: o.handleResume(k), Access: checkedBy("OS.mayRun: " + noun + "s:run on the path's " + noun),
				Tag: c.tag, Summary: "Resume " + c.a + " " + noun + " run's event stream", Form: []apiParam{pLastEvent, pSessionOpt}, Stream: true, Result: "SSE stream: missed events, then live ones"},
			apiRoute{Pattern: "GET " + id + "/runs/{run_id}", Handler: o.handleGetRun(k), Access: read, Tag: c.tag, Summary: "Get " + c.a + " " + noun + " run", Query: []apiParam{pSessionQ}, Result: c.output},
			apiRoute{Pattern: "GET " + id + "/runs", Handler: o.handleListRuns(k), Access: read, Tag: c.tag, Summary: "List a session's " + noun + " runs", Query: []apiParam{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, pStatusQ}, Result: "[RunSchema]"},
		)
	}
	return routes
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

// modelInfo is agno's ModelResponse {name, model, provider}; the agents
// and teams routes leave out None fields (response_model_exclude_none).
type modelInfo struct {
	Name     string `json:"name,omitempty"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
}

func modelResponse(m model.Model) *modelInfo {
	if m == nil {
		return nil
	}
	info := m.Info()
	if info.Name == "" && info.ID == "" && info.Provider == "" {
		return nil
	}
	return &modelInfo{Name: info.Name, Model: info.ID, Provider: info.Provider}
}

// toolDicts lists an agent's tools as agno formats them.
func toolDicts(fns []*tool.Function) []map[string]any {
	out := make([]map[string]any, 0, len(fns))
	for _, f := range fns {
		d := map[string]any{"name": f.Name, "description": f.Description, "parameters": f.Parameters}
		if f.RequiresConfirmation {
			d["requires_confirmation"] = true
		}
		if f.ExternalExecution {
			d["external_execution"] = true
		}
		out = append(out, d)
	}
	return out
}

// staticFunctions resolves tools that need no connection (MCP toolkits
// are listed by their server when connected; a dead server must not break
// the listing).
func staticFunctions(providers []tool.Provider) []*tool.Function {
	var out []*tool.Function
	for _, p := range providers {
		if c, ok := p.(tool.Connector); ok {
			if connected, ok := c.(interface{ Connected() bool }); !ok || !connected.Connected() {
				continue
			}
		}
		fns, err := p.Functions(nilCtx)
		if err == nil {
			out = append(out, fns...)
		}
	}
	return out
}

// section is one of agno's Dict[str, Any] settings groups (tools,
// sessions, …): only meaningful (non-default) settings, None when empty.
type section map[string]any

func (s section) set(k string, v any, keep bool) {
	if keep {
		s[k] = v
	}
}

func (s section) orNil() section {
	if len(s) == 0 {
		return nil
	}
	return s
}

// AgentResponse is agno's AgentResponse (GET /agents, exclude_none: unset
// fields are absent; is_factory and is_component are false, not absent).
type AgentResponse struct {
	ID                 string         `json:"id,omitempty"`
	Name               string         `json:"name,omitempty"`
	DBID               string         `json:"db_id,omitempty"`
	Description        string         `json:"description,omitempty"`
	Role               string         `json:"role,omitempty"`
	IsFactory          bool           `json:"is_factory"`
	Model              *modelInfo     `json:"model,omitempty"`
	Tools              section        `json:"tools,omitempty"`
	Sessions           section        `json:"sessions,omitempty"`
	Knowledge          map[string]any `json:"knowledge,omitempty"`
	Memory             section        `json:"memory,omitempty"`
	Reasoning          section        `json:"reasoning,omitempty"`
	DefaultTools       section        `json:"default_tools,omitempty"`
	SystemMessage      section        `json:"system_message,omitempty"`
	ExtraMessages      section        `json:"extra_messages,omitempty"`
	ResponseSettings   section        `json:"response_settings,omitempty"`
	Introduction       string         `json:"introduction,omitempty"`
	Streaming          section        `json:"streaming,omitempty"`
	Metadata           map[string]any `json:"metadata,omitempty"`
	InputSchema        map[string]any `json:"input_schema,omitempty"`
	FactoryInputSchema map[string]any `json:"factory_input_schema,omitempty"`
	IsComponent        bool           `json:"is_component"`
	CurrentVersion     *int           `json:"current_version,omitempty"`
	Stage              string         `json:"stage,omitempty"`
}

// agentResponse is agno's AgentResponse: only meaningful (non-default)
// settings are included.
func (o *OS) agentResponse(a *agent.Agent) AgentResponse {
	cfg := a.Config()
	out := AgentResponse{ID: a.ID(), Name: cfg.Name, DBID: o.cfg.DBID, Description: cfg.Description, Role: cfg.Role, Model: modelResponse(cfg.Model),
		IsComponent: o.isComponent(a)}
	tools := section{}
	fns := staticFunctions(cfg.Tools)
	tools.set("tools", toolDicts(fns), len(fns) > 0)
	tools.set("tool_call_limit", cfg.ToolCallLimit, cfg.ToolCallLimit > 0)
	out.Tools = tools.orNil()
	sessions := section{}
	sessions.set("add_history_to_context", true, cfg.AddHistoryToContext)
	sessions.set("num_history_runs", cfg.NumHistoryRuns, cfg.NumHistoryRuns != 0 && cfg.NumHistoryRuns != 3)
	sessions.set("session_table", "agno_sessions", o.cfg.Store != nil || cfg.Store != nil)
	out.Sessions = sessions.orNil()
	if k := o.knowledge.AgentInfo(cfg); k != nil {
		out.Knowledge = k
	}
	sys := section{}
	sys.set("system_message", cfg.SystemMessage, cfg.SystemMessage != "")
	sys.set("description", cfg.Description, cfg.Description != "")
	sys.set("instructions", cfg.Instructions, len(cfg.Instructions) > 0)
	sys.set("expected_output", cfg.ExpectedOutput, cfg.ExpectedOutput != "")
	sys.set("additional_context", cfg.AdditionalContext, cfg.AdditionalContext != "")
	sys.set("markdown", true, cfg.Markdown)
	sys.set("add_name_to_context", true, cfg.AddNameToContext)
	sys.set("add_datetime_to_context", true, cfg.AddDatetime)
	out.SystemMessage = sys.orNil()
	resp := section{}
	resp.set("retries", cfg.Retries, cfg.Retries > 0)
	if cfg.OutputSchema != nil {
		resp["output_schema_name"] = cfg.OutputSchema.Name
	}
	resp.set("use_json_mode", true, cfg.UseJSONMode)
	out.ResponseSettings = resp.orNil()
	if cfg.StreamEvents {
		out.Streaming = section{"stream_events": true}
	}
	if len(cfg.Metadata) > 0 {
		out.Metadata = cfg.Metadata
	}
	return out
}

func (o *OS) handleAgents(w http.ResponseWriter, r *http.Request) {
	keep, ok := o.readable(w, r, "agents")
	if !ok {
		return
	}
	out := []AgentResponse{}
	for _, a := range o.catalog().Agents {
		if keep(a.ID()) {
			out = append(out, o.agentResponse(a))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (o *OS) handleAgent(w http.ResponseWriter, r *http.Request) {
	a, ok := o.catalog().agents[r.PathValue("agent_id")]
	if !ok {
		writeError(w, http.StatusNotFound, "Agent not found")
		return
	}
	writeJSON(w, http.StatusOK, o.agentResponse(a))
}

// TeamResponse is agno's TeamResponse (exclude_none), members included
// as AgentResponse or TeamResponse.
type TeamResponse struct {
	ID                 string         `json:"id,omitempty"`
	Name               string         `json:"name,omitempty"`
	DBID               string         `json:"db_id,omitempty"`
	Description        string         `json:"description,omitempty"`
	Mode               string         `json:"mode,omitempty"`
	IsFactory          bool           `json:"is_factory"`
	Model              *modelInfo     `json:"model,omitempty"`
	Tools              section        `json:"tools,omitempty"`
	Sessions           section        `json:"sessions,omitempty"`
	Knowledge          map[string]any `json:"knowledge,omitempty"`
	Memory             section        `json:"memory,omitempty"`
	Reasoning          section        `json:"reasoning,omitempty"`
	DefaultTools       section        `json:"default_tools,omitempty"`
	SystemMessage      section        `json:"system_message,omitempty"`
	ResponseSettings   section        `json:"response_settings,omitempty"`
	Introduction       string         `json:"introduction,omitempty"`
	Streaming          section        `json:"streaming,omitempty"`
	Members            []any          `json:"members,omitempty"`
	Metadata           map[string]any `json:"metadata,omitempty"`
	InputSchema        map[string]any `json:"input_schema,omitempty"`
	FactoryInputSchema map[string]any `json:"factory_input_schema,omitempty"`
	IsComponent        bool           `json:"is_component"`
	CurrentVersion     *int           `json:"current_version,omitempty"`
	Stage              string         `json:"stage,omitempty"`
}

// memberRef is a member that is neither an agent nor a team (a remote
// executor): what is known of it.
type memberRef struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// teamResponse is agno's TeamResponse.from_team: each settings group
// keeps the values that differ from agno's team defaults.
func (o *OS) teamResponse(t *team.Team) TeamResponse {
	cfg := t.Config()
	out := TeamResponse{ID: t.ID(), Name: cfg.Name, DBID: o.cfg.DBID, Description: cfg.Description, Mode: string(t.Mode()), Model: modelResponse(cfg.Model),
		IsComponent: o.isComponent(t)}
	tools := section{}
	// agno lists the tools its leader model gets, delegation included.
	fns := staticFunctions(t.LeaderTools())
	tools.set("tools", toolDicts(fns), len(fns) > 0)
	tools.set("tool_call_limit", cfg.ToolCallLimit, cfg.ToolCallLimit > 0)
	out.Tools = tools.orNil()
	sessions := section{}
	sessions.set("session_table", "agno_sessions", o.cfg.Store != nil || cfg.Store != nil)
	sessions.set("add_history_to_context", true, cfg.AddHistoryToContext)
	sessions.set("num_history_runs", cfg.NumHistoryRuns, cfg.NumHistoryRuns != 0 && cfg.NumHistoryRuns != 3)
	out.Sessions = sessions.orNil()
	dt := section{}
	dt.set("get_member_information_tool", true, cfg.GetMemberInformationTool)
	if cfg.SearchKnowledge != nil && !*cfg.SearchKnowledge {
		dt["search_knowledge"] = false
	}
	out.DefaultTools = dt.orNil()
	sys := section{}
	sys.set("description", cfg.Description, cfg.Description != "")
	sys.set("instructions", cfg.Instructions, len(cfg.Instructions) > 0)
	sys.set("expected_output", cfg.ExpectedOutput, cfg.ExpectedOutput != "")
	sys.set("additional_context", cfg.AdditionalContext, cfg.AdditionalContext != "")
	sys.set("markdown", true, cfg.Markdown)
	sys.set("add_datetime_to_context", true, cfg.AddDatetime)
	out.SystemMessage = sys.orNil()
	resp := section{}
	if cfg.OutputSchema != nil {
		resp["output_schema_name"] = cfg.OutputSchema.Name
	}
	out.ResponseSettings = resp.orNil()
	// agno's stream_member_events defaults to true, which its filter (whose
	// default is false) keeps.
	streaming := section{}
	streaming.set("stream_events", true, cfg.StreamEvents)
	streaming.set("stream_member_events", true, cfg.StreamMemberEvents == nil || *cfg.StreamMemberEvents)
	out.Streaming = streaming.orNil()
	for _, m := range cfg.Members {
		switch x := m.(type) {
		case *agent.Agent:
			out.Members = append(out.Members, o.agentResponse(x))
		case *team.Team:
			out.Members = append(out.Members, o.teamResponse(x))
		default:
			out.Members = append(out.Members, memberRef{ID: m.ID(), Name: m.Name()})
		}
	}
	if len(cfg.Metadata) > 0 {
		out.Metadata = cfg.Metadata
	}
	return out
}

func (o *OS) handleTeams(w http.ResponseWriter, r *http.Request) {
	keep, ok := o.readable(w, r, "teams")
	if !ok {
		return
	}
	out := []TeamResponse{}
	for _, t := range o.catalog().Teams {
		if keep(t.ID()) {
			out = append(out, o.teamResponse(t))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (o *OS) handleTeam(w http.ResponseWriter, r *http.Request) {
	t, ok := o.catalog().teams[r.PathValue("team_id")]
	if !ok {
		writeError(w, http.StatusNotFound, "Team not found")
		return
	}
	writeJSON(w, http.StatusOK, o.teamResponse(t))
}

// WorkflowSummaryResponse is agno's WorkflowSummaryResponse (GET
// /workflows and /config, exclude_none).
type WorkflowSummaryResponse struct {
	ID                 string         `json:"id,omitempty"`
	Name               string         `json:"name,omitempty"`
	Description        string         `json:"description,omitempty"`
	DBID               string         `json:"db_id,omitempty"`
	IsFactory          bool           `json:"is_factory"`
	FactoryInputSchema map[string]any `json:"factory_input_schema,omitempty"`
	IsComponent        bool           `json:"is_component"`
	CurrentVersion     *int           `json:"current_version,omitempty"`
	Stage              string         `json:"stage,omitempty"`
}

func (o *OS) workflowSummary(wf *workflow.Workflow) WorkflowSummaryResponse {
	return WorkflowSummaryResponse{ID: wf.ID(), Name: wf.Name(), Description: wf.Description(), DBID: o.cfg.DBID, IsComponent: o.isComponent(wf)}
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
		out.Workflows = append(out.Workflows, o.workflowSummary(wf))
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
