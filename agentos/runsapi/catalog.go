package runsapi

import (
	"context"
	"net/http"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// The listing and detail routes of the agents, teams and workflows, and
// their answers.

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
// the listing); no I/O happens, so no request context is needed.
func staticFunctions(providers []tool.Provider) []*tool.Function {
	var out []*tool.Function
	for _, p := range providers {
		if c, ok := p.(tool.Connector); ok {
			if connected, ok := c.(interface{ Connected() bool }); !ok || !connected.Connected() {
				continue
			}
		}
		fns, err := p.Functions(context.Background())
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
func (g *Group) agentResponse(a *agent.Agent) AgentResponse {
	cfg := a.Config()
	out := AgentResponse{ID: a.ID(), Name: cfg.Name, DBID: g.host.DBID(), Description: cfg.Description, Role: cfg.Role, Model: modelResponse(cfg.Model),
		IsComponent: g.host.IsComponent(a)}
	tools := section{}
	fns := staticFunctions(cfg.Tools)
	tools.set("tools", toolDicts(fns), len(fns) > 0)
	tools.set("tool_call_limit", cfg.ToolCallLimit, cfg.ToolCallLimit > 0)
	out.Tools = tools.orNil()
	sessions := section{}
	sessions.set("add_history_to_context", true, cfg.AddHistoryToContext)
	sessions.set("num_history_runs", cfg.NumHistoryRuns, cfg.NumHistoryRuns != 0 && cfg.NumHistoryRuns != 3)
	sessions.set("session_table", "agno_sessions", g.host.Store() != nil || cfg.Store != nil)
	out.Sessions = sessions.orNil()
	if k := g.host.AgentKnowledge(cfg); k != nil {
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

func (g *Group) handleAgents(w http.ResponseWriter, r *http.Request) {
	keep, ok := g.host.Readable(w, r, "agents")
	if !ok {
		return
	}
	out := []AgentResponse{}
	for _, a := range g.host.Agents() {
		if keep(a.ID()) {
			out = append(out, g.agentResponse(a))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (g *Group) handleAgent(w http.ResponseWriter, r *http.Request) {
	a := g.host.Agent(r.PathValue("agent_id"))
	if a == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Agent not found")
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, g.agentResponse(a))
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
func (g *Group) teamResponse(t *team.Team) TeamResponse {
	cfg := t.Config()
	out := TeamResponse{ID: t.ID(), Name: cfg.Name, DBID: g.host.DBID(), Description: cfg.Description, Mode: string(t.Mode()), Model: modelResponse(cfg.Model),
		IsComponent: g.host.IsComponent(t)}
	tools := section{}
	// agno lists the tools its leader model gets, delegation included.
	fns := staticFunctions(t.LeaderTools())
	tools.set("tools", toolDicts(fns), len(fns) > 0)
	tools.set("tool_call_limit", cfg.ToolCallLimit, cfg.ToolCallLimit > 0)
	out.Tools = tools.orNil()
	sessions := section{}
	sessions.set("session_table", "agno_sessions", g.host.Store() != nil || cfg.Store != nil)
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
			out.Members = append(out.Members, g.agentResponse(x))
		case *team.Team:
			out.Members = append(out.Members, g.teamResponse(x))
		default:
			out.Members = append(out.Members, memberRef{ID: m.ID(), Name: m.Name()})
		}
	}
	if len(cfg.Metadata) > 0 {
		out.Metadata = cfg.Metadata
	}
	return out
}

func (g *Group) handleTeams(w http.ResponseWriter, r *http.Request) {
	keep, ok := g.host.Readable(w, r, "teams")
	if !ok {
		return
	}
	out := []TeamResponse{}
	for _, t := range g.host.Teams() {
		if keep(t.ID()) {
			out = append(out, g.teamResponse(t))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (g *Group) handleTeam(w http.ResponseWriter, r *http.Request) {
	t := g.host.Team(r.PathValue("team_id"))
	if t == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Team not found")
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, g.teamResponse(t))
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

// WorkflowSummary is wf's item in GET /workflows and /config.
func (g *Group) WorkflowSummary(wf *workflow.Workflow) WorkflowSummaryResponse {
	return WorkflowSummaryResponse{ID: wf.ID(), Name: wf.Name(), Description: wf.Description(), DBID: g.host.DBID(), IsComponent: g.host.IsComponent(wf)}
}
