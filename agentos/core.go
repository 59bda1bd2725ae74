package agentos

import (
	"net/http"
	"sort"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// routes registers agno's routes.
func (o *OS) routes(mux routeMux) {
	mux.HandleFunc("GET /{$}", o.handleHome)
	mux.HandleFunc("GET /health", o.handleHealth)
	mux.HandleFunc("GET /info", o.handleInfo)
	mux.HandleFunc("GET /config", o.handleConfig)
	mux.HandleFunc("GET /models", o.handleModels)

	mux.HandleFunc("GET /agents", o.handleAgents)
	mux.HandleFunc("GET /agents/{id}", o.handleAgent)
	mux.HandleFunc("GET /teams", o.handleTeams)
	mux.HandleFunc("GET /teams/{id}", o.handleTeam)
	for prefix, k := range map[string]kind{"/agents": agentKind, "/teams": teamKind} {
		mux.HandleFunc("POST "+prefix+"/{id}/runs", o.handleRun(k))
		mux.HandleFunc("POST "+prefix+"/{id}/runs/{run_id}/cancel", o.handleCancel(k))
		mux.HandleFunc("POST "+prefix+"/{id}/runs/{run_id}/continue", o.handleContinue(k))
		mux.HandleFunc("POST "+prefix+"/{id}/runs/{run_id}/resume", o.handleResume(k))
		mux.HandleFunc("GET "+prefix+"/{id}/runs/{run_id}", o.handleGetRun(k))
		mux.HandleFunc("GET "+prefix+"/{id}/runs", o.handleListRuns(k))
	}
	o.workflowRoutes(mux)
	o.extraRoutes(mux)
	o.interfaceRoutes(mux)
	o.controlRoutes(mux)
}

func (o *OS) handleHome(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"name": "AgentOS API", "id": o.cfg.ID, "version": o.cfg.Version})
}

func (o *OS) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "instantiated_at": o.instantiated.Format("2006-01-02T15:04:05.000000Z")})
}

func (o *OS) handleInfo(w http.ResponseWriter, _ *http.Request) {
	c := o.catalog()
	writeJSON(w, http.StatusOK, map[string]any{"agno_version": Version, "agent_count": len(c.Agents), "team_count": len(c.Teams), "workflow_count": len(c.Workflows)})
}

// modelResponse is agno's ModelResponse {name, model, provider}.
func modelResponse(m model.Model) map[string]any {
	if m == nil {
		return nil
	}
	info := m.Info()
	out := map[string]any{}
	if info.Name != "" {
		out["name"] = info.Name
	}
	if info.ID != "" {
		out["model"] = info.ID
	}
	if info.Provider != "" {
		out["provider"] = info.Provider
	}
	return out
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

// agentResponse is agno's AgentResponse: only meaningful (non-default)
// settings are included.
func (o *OS) agentResponse(a *agent.Agent) map[string]any {
	cfg := a.Config()
	// agno's is_factory / is_component are false, not absent, for an
	// agent defined in code or a file.
	out := map[string]any{"id": a.ID(), "name": cfg.Name, "is_factory": false, "is_component": false}
	if o.cfg.DBID != "" {
		out["db_id"] = o.cfg.DBID
	}
	if cfg.Description != "" {
		out["description"] = cfg.Description
	}
	if cfg.Role != "" {
		out["role"] = cfg.Role
	}
	if m := modelResponse(cfg.Model); len(m) > 0 {
		out["model"] = m
	}
	tools := map[string]any{}
	if fns := staticFunctions(cfg.Tools); len(fns) > 0 {
		tools["tools"] = toolDicts(fns)
	}
	if cfg.ToolCallLimit > 0 {
		tools["tool_call_limit"] = cfg.ToolCallLimit
	}
	if len(tools) > 0 {
		out["tools"] = tools
	}
	sessions := map[string]any{}
	if cfg.AddHistoryToContext {
		sessions["add_history_to_context"] = true
	}
	if cfg.NumHistoryRuns != 0 && cfg.NumHistoryRuns != 3 {
		sessions["num_history_runs"] = cfg.NumHistoryRuns
	}
	if o.cfg.Store != nil || cfg.Store != nil {
		sessions["session_table"] = "agno_sessions"
	}
	if len(sessions) > 0 {
		out["sessions"] = sessions
	}
	if k := o.agentKnowledgeInfo(cfg); k != nil {
		out["knowledge"] = k
	}
	sys := map[string]any{}
	if cfg.SystemMessage != "" {
		sys["system_message"] = cfg.SystemMessage
	}
	if cfg.Description != "" {
		sys["description"] = cfg.Description
	}
	if len(cfg.Instructions) > 0 {
		sys["instructions"] = cfg.Instructions
	}
	if cfg.ExpectedOutput != "" {
		sys["expected_output"] = cfg.ExpectedOutput
	}
	if cfg.AdditionalContext != "" {
		sys["additional_context"] = cfg.AdditionalContext
	}
	if cfg.Markdown {
		sys["markdown"] = true
	}
	if cfg.AddNameToContext {
		sys["add_name_to_context"] = true
	}
	if cfg.AddDatetime {
		sys["add_datetime_to_context"] = true
	}
	if len(sys) > 0 {
		out["system_message"] = sys
	}
	resp := map[string]any{}
	if cfg.Retries > 0 {
		resp["retries"] = cfg.Retries
	}
	if cfg.OutputSchema != nil {
		resp["output_schema_name"] = cfg.OutputSchema.Name
	}
	if cfg.UseJSONMode {
		resp["use_json_mode"] = true
	}
	if len(resp) > 0 {
		out["response_settings"] = resp
	}
	if cfg.StreamEvents {
		out["streaming"] = map[string]any{"stream_events": true}
	}
	if len(cfg.Metadata) > 0 {
		out["metadata"] = cfg.Metadata
	}
	return out
}

func (o *OS) handleAgents(w http.ResponseWriter, r *http.Request) {
	keep, ok := o.readable(w, r, "agents")
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, a := range o.catalog().Agents {
		if keep(a.ID()) {
			out = append(out, o.agentResponse(a))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (o *OS) handleAgent(w http.ResponseWriter, r *http.Request) {
	a, ok := o.catalog().agents[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "Agent not found")
		return
	}
	writeJSON(w, http.StatusOK, o.agentResponse(a))
}

// teamResponse is agno's TeamResponse, members included.
func (o *OS) teamResponse(t *team.Team) map[string]any {
	cfg := t.Config()
	out := map[string]any{"id": t.ID(), "name": cfg.Name, "mode": string(t.Mode()), "is_factory": false, "is_component": false}
	if o.cfg.DBID != "" {
		out["db_id"] = o.cfg.DBID
	}
	if cfg.Description != "" {
		out["description"] = cfg.Description
	}
	if m := modelResponse(cfg.Model); len(m) > 0 {
		out["model"] = m
	}
	members := []map[string]any{}
	for _, m := range cfg.Members {
		switch x := m.(type) {
		case *agent.Agent:
			members = append(members, o.agentResponse(x))
		case *team.Team:
			members = append(members, o.teamResponse(x))
		default:
			members = append(members, map[string]any{"id": m.ID(), "name": m.Name()})
		}
	}
	out["members"] = members
	if len(cfg.Instructions) > 0 {
		out["system_message"] = map[string]any{"instructions": cfg.Instructions}
	}
	if len(cfg.Metadata) > 0 {
		out["metadata"] = cfg.Metadata
	}
	return out
}

func (o *OS) handleTeams(w http.ResponseWriter, r *http.Request) {
	keep, ok := o.readable(w, r, "teams")
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, t := range o.catalog().Teams {
		if keep(t.ID()) {
			out = append(out, o.teamResponse(t))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (o *OS) handleTeam(w http.ResponseWriter, r *http.Request) {
	t, ok := o.catalog().teams[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "Team not found")
		return
	}
	writeJSON(w, http.StatusOK, o.teamResponse(t))
}

// workflowSummary is agno's WorkflowSummaryResponse.
func (o *OS) workflowSummary(wf *workflow.Workflow) map[string]any {
	out := map[string]any{"id": wf.ID(), "name": wf.Name(), "is_factory": false, "is_component": false}
	if wf.Description() != "" {
		out["description"] = wf.Description()
	}
	if o.cfg.DBID != "" {
		out["db_id"] = o.cfg.DBID
	}
	return out
}

// summary is agno's AgentSummaryResponse / TeamSummaryResponse in
// /config: id, name, description, db_id (None fields omitted).
func (o *OS) summary(id, name, desc string, extra map[string]any) map[string]any {
	out := map[string]any{"id": id, "name": name}
	if desc != "" {
		out["description"] = desc
	}
	if o.cfg.DBID != "" {
		out["db_id"] = o.cfg.DBID
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// handleConfig is agno's ConfigResponse.
func (o *OS) handleConfig(w http.ResponseWriter, _ *http.Request) {
	c := o.catalog()
	agents, teams, workflows := []map[string]any{}, []map[string]any{}, []map[string]any{}
	for _, a := range c.Agents {
		cfg := a.Config()
		agents = append(agents, o.summary(a.ID(), cfg.Name, cfg.Description, nil))
	}
	for _, t := range c.Teams {
		cfg := t.Config()
		teams = append(teams, o.summary(t.ID(), cfg.Name, cfg.Description, map[string]any{"mode": string(t.Mode())}))
	}
	for _, wf := range c.Workflows {
		workflows = append(workflows, o.workflowSummary(wf))
	}
	out := map[string]any{
		"os_id": o.cfg.ID, "name": o.cfg.Name,
		"available_models": o.modelIDs(), "agents": agents, "teams": teams, "workflows": workflows,
		"interfaces": o.interfaces(), "databases": []string{},
	}
	if o.cfg.Description != "" {
		out["description"] = o.cfg.Description
	}
	if k := o.knowledgeConfig(); k != nil {
		out["knowledge"] = k
	}
	if o.cfg.DBID != "" {
		out["os_database"] = o.cfg.DBID
		out["databases"] = []string{o.cfg.DBID}
		domain := map[string]any{"dbs": []map[string]any{{"db_id": o.cfg.DBID, "domain_config": map[string]any{"display_name": o.cfg.DBID}, "tables": []string{"agno_sessions"}}}}
		out["session"] = domain
		out["memory"] = map[string]any{"dbs": []map[string]any{{"db_id": o.cfg.DBID, "domain_config": map[string]any{"display_name": o.cfg.DBID}, "tables": []string{"agno_memories"}}}}
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

func (o *OS) handleModels(w http.ResponseWriter, _ *http.Request) {
	out := []map[string]any{}
	for _, m := range o.models() {
		out = append(out, map[string]any{"id": m.Info().ID, "provider": m.Info().Provider})
	}
	writeJSON(w, http.StatusOK, out)
}

var _ = run.NewID
