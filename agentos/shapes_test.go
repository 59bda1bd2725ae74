package agentos_test

// Golden shape tests: each response is decoded as a plain JSON object and
// its key set (and which keys are null) compared with agno's pydantic
// model, whose field lists are written out below from agno v2.6.13
// (libs/agno/agno/os/schema.py, os/routers/*/schema.py, models/response.py,
// models/message.py). A route with response_model_exclude_none sends only
// the fields that are set; one without sends every field, None as null.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// agno's models, field by field.
var (
	agnoHome   = []string{"name", "id", "version"}
	agnoHealth = []string{"status", "instantiated_at"}
	agnoInfo   = []string{"agno_version", "agent_count", "team_count", "workflow_count"}
	agnoModel  = []string{"id", "provider"} // os/schema.py Model
	// ConfigResponse (+ manifest in v2.6.13, never set here).
	agnoConfig = []string{"os_id", "name", "description", "available_models", "os_database", "databases", "chat", "manifest",
		"session", "metrics", "memory", "knowledge", "evals", "traces", "agents", "teams", "workflows", "interfaces"}
	agnoAgentSummary    = []string{"id", "name", "description", "db_id"}
	agnoTeamSummary     = []string{"id", "name", "description", "db_id", "mode"}
	agnoWorkflowSummary = []string{"id", "name", "description", "db_id", "is_factory", "factory_input_schema", "is_component", "current_version", "stage"}
	agnoDatabaseConfig  = []string{"db_id", "domain_config", "tables"}
	agnoAgentResponse   = []string{"id", "name", "db_id", "description", "role", "is_factory", "model", "tools", "sessions",
		"knowledge", "memory", "reasoning", "default_tools", "system_message", "extra_messages", "response_settings",
		"introduction", "streaming", "metadata", "input_schema", "factory_input_schema", "is_component", "current_version", "stage"}
	agnoTeamResponse = []string{"id", "name", "db_id", "description", "mode", "is_factory", "model", "tools", "sessions",
		"knowledge", "memory", "reasoning", "default_tools", "system_message", "response_settings", "introduction",
		"streaming", "members", "metadata", "input_schema", "factory_input_schema", "is_component", "current_version", "stage"}
	agnoWorkflowResponse = []string{"id", "name", "db_id", "description", "input_schema", "steps", "agent", "team",
		"metadata", "workflow_agent", "is_factory", "factory_input_schema", "is_component", "current_version", "stage"}
	agnoModelResponse      = []string{"name", "model", "provider"}
	agnoPagination         = []string{"page", "limit", "total_pages", "total_count", "search_time_ms"}
	agnoUserMemory         = []string{"memory_id", "memory", "topics", "agent_id", "team_id", "user_id", "updated_at"}
	agnoUserStats          = []string{"user_id", "total_memories", "last_memory_updated_at"}
	agnoAgentSessionDetail = []string{"user_id", "agent_session_id", "session_id", "session_name", "session_summary",
		"session_state", "agent_id", "total_tokens", "agent_data", "metrics", "metadata", "chat_history", "created_at", "updated_at"}
	agnoSessionSchema = []string{"session_id", "session_name", "session_state", "created_at", "updated_at", "session_type",
		"user_id", "agent_id", "team_id", "workflow_id", "session_summary", "metrics", "total_tokens", "metadata"}
	// ToolExecution.to_dict() is dataclasses.asdict: every field.
	agnoToolExecution = []string{"tool_call_id", "tool_name", "tool_args", "tool_call_error", "result", "metrics",
		"child_run_id", "stop_after_tool_call", "created_at", "requires_confirmation", "confirmed", "confirmation_note",
		"requires_user_input", "user_input_schema", "user_feedback_schema", "answered", "external_execution_required",
		"external_execution_silent", "approval_type", "approval_id"}
	agnoRunSchema = []string{"run_id", "parent_run_id", "agent_id", "user_id", "status", "run_input", "content",
		"run_response_format", "reasoning_content", "reasoning_steps", "metrics", "messages", "tools", "events", "created_at",
		"references", "citations", "reasoning_messages", "session_state", "images", "videos", "audio", "files",
		"response_audio", "input_media", "followups"}
	agnoTeamRunSchema = []string{"run_id", "parent_run_id", "team_id", "status", "content", "reasoning_content",
		"reasoning_steps", "run_input", "run_response_format", "metrics", "tools", "messages", "events", "created_at",
		"references", "citations", "reasoning_messages", "session_state", "input_media", "images", "videos", "audio",
		"files", "response_audio", "followups"}
	agnoWorkflowRunSchema = []string{"run_id", "run_input", "events", "workflow_id", "user_id", "content", "content_type",
		"status", "step_results", "step_executor_runs", "step_requirements", "pause_kind", "paused_step_name",
		"paused_step_index", "metrics", "created_at", "reasoning_content", "reasoning_steps", "references", "citations",
		"reasoning_messages", "images", "videos", "audio", "files", "response_audio"}
	agnoValidationItem = []string{"type", "loc", "msg", "input", "ctx"}
)

// keys returns the sorted keys of a JSON object.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nulls returns the sorted keys whose value is null.
func nulls(m map[string]any) []string {
	var out []string
	for k, v := range m {
		if v == nil {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// wantShape checks that m is an instance of agno's model (no key outside
// fields) with exactly the keys want, of which exactly wantNull are null.
func wantShape(t *testing.T, what string, m map[string]any, fields, want, wantNull []string) {
	t.Helper()
	if m == nil {
		t.Fatalf("%s: not a JSON object", what)
	}
	for _, k := range keys(m) {
		if !slices.Contains(fields, k) {
			t.Errorf("%s: key %q is not a field of agno's model %v", what, k, fields)
		}
	}
	if got := keys(m); !slices.Equal(got, sorted(want)) {
		t.Errorf("%s: keys %v, want %v", what, got, sorted(want))
	}
	if got := nulls(m); !slices.Equal(got, sorted(wantNull)) {
		t.Errorf("%s: null keys %v, want %v", what, got, sorted(wantNull))
	}
}

func getOK(t *testing.T, srv *httptest.Server, path string) any {
	t.Helper()
	return mustCall(t, srv, http.StatusOK, http.MethodGet, path, nil)
}

func byName(t *testing.T, items any, name string) map[string]any {
	t.Helper()
	for _, it := range list(items) {
		if obj(it)["name"] == name {
			return obj(it)
		}
	}
	t.Fatalf("no item named %q in %v", name, items)
	return nil
}

func TestShapeHomeHealthInfoModels(t *testing.T) {
	srv := dataOS(t, memory.New())
	home := obj(getOK(t, srv, "/"))
	wantShape(t, "GET /", home, agnoHome, agnoHome, nil)
	wantShape(t, "GET /health", obj(getOK(t, srv, "/health")), agnoHealth, agnoHealth, nil)
	wantShape(t, "GET /info", obj(getOK(t, srv, "/info")), agnoInfo, agnoInfo, nil)
	models := list(getOK(t, srv, "/models"))
	if len(models) == 0 {
		t.Fatal("GET /models: no models")
	}
	for _, m := range models {
		// List[Model] without exclude_none: both keys, always.
		if got := keys(obj(m)); !slices.Equal(got, sorted(agnoModel)) {
			t.Errorf("GET /models item keys %v, want %v", got, agnoModel)
		}
	}
}

func TestShapeAgentAndTeamResponse(t *testing.T) {
	srv := dataOS(t, memory.New())
	chat := byName(t, getOK(t, srv, "/agents"), "Chat Agent")
	wantShape(t, "AgentResponse", chat, agnoAgentResponse,
		[]string{"id", "name", "db_id", "is_factory", "is_component", "model", "sessions", "system_message"}, nil)
	if chat["is_factory"] != false || chat["is_component"] != false {
		t.Errorf("is_factory / is_component = %v / %v, want false", chat["is_factory"], chat["is_component"])
	}
	for _, k := range keys(obj(chat["model"])) {
		if !slices.Contains(agnoModelResponse, k) {
			t.Errorf("AgentResponse.model key %q not in %v", k, agnoModelResponse)
		}
	}
	if got := keys(obj(chat["sessions"])); !slices.Equal(got, []string{"add_history_to_context", "session_table"}) {
		t.Errorf("AgentResponse.sessions keys %v", got)
	}
	one := obj(getOK(t, srv, "/agents/"+chat["id"].(string)))
	if !slices.Equal(keys(one), keys(chat)) {
		t.Errorf("GET /agents/{agent_id} keys %v, list item keys %v", keys(one), keys(chat))
	}

	tm := byName(t, getOK(t, srv, "/teams"), "Support Team")
	wantShape(t, "TeamResponse", tm, agnoTeamResponse,
		[]string{"id", "name", "db_id", "mode", "is_factory", "is_component", "model", "tools", "sessions", "streaming", "members"}, nil)
	// agno's team tools are those its leader model gets: the delegation
	// tool of its mode among them.
	var teamTools []string
	for _, f := range list(obj(tm["tools"])["tools"]) {
		teamTools = append(teamTools, obj(f)["name"].(string))
	}
	if !slices.Contains(teamTools, "delegate_task_to_member") {
		t.Errorf("TeamResponse.tools.tools = %v, want delegate_task_to_member among them", teamTools)
	}
	// agno's team sessions keep session_table; streaming keeps
	// stream_member_events (default true, filtered against false).
	if got := obj(tm["sessions"]); len(got) != 1 || got["session_table"] != "agno_sessions" {
		t.Errorf("TeamResponse.sessions = %v, want {session_table: agno_sessions}", got)
	}
	if got := obj(tm["streaming"]); len(got) != 1 || got["stream_member_events"] != true {
		t.Errorf("TeamResponse.streaming = %v, want {stream_member_events: true}", got)
	}
	// Members are AgentResponses; the OS db serves them too.
	member := obj(list(tm["members"])[0])
	wantShape(t, "TeamResponse.members[0]", member, agnoAgentResponse,
		[]string{"id", "name", "db_id", "role", "is_factory", "is_component", "model", "sessions"}, nil)
}

func TestShapeWorkflows(t *testing.T) {
	srv := dataOS(t, memory.New())
	sum := byName(t, getOK(t, srv, "/workflows"), "Pipeline")
	wantShape(t, "WorkflowSummaryResponse", sum, agnoWorkflowSummary, []string{"id", "name", "db_id", "is_factory", "is_component"}, nil)
	wf := obj(getOK(t, srv, "/workflows/"+sum["id"].(string)))
	wantShape(t, "WorkflowResponse", wf, agnoWorkflowResponse,
		[]string{"id", "name", "db_id", "steps", "workflow_agent", "is_factory", "is_component"}, nil)
	if wf["workflow_agent"] != false {
		t.Errorf("workflow_agent = %v, want false", wf["workflow_agent"])
	}
	// Workflow.to_dict() steps: {name, description, type, agent|team},
	// None pruned.
	step := obj(list(wf["steps"])[0])
	wantShape(t, "WorkflowResponse.steps[0]", step, []string{"name", "description", "type", "agent", "team", "steps"}, []string{"name", "type"}, nil)
	if step["type"] != "Step" || step["name"] != "process" {
		t.Errorf("step = %v", step)
	}
}

func TestShapeWorkflowAgentStep(t *testing.T) {
	a, err := agent.New(agent.Config{Name: "Writer", Model: modeltest.New(modeltest.Response{Content: "ok"})})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Workflows: []*workflow.Workflow{stepWorkflow(t, a)}})
	wf := byName(t, getOK(t, srv, "/workflows"), "Agent Flow")
	full := obj(getOK(t, srv, "/workflows/"+wf["id"].(string)))
	step := obj(list(full["steps"])[0])
	wantShape(t, "agent step", step, []string{"name", "description", "type", "agent", "team", "steps"}, []string{"name", "description", "type", "agent"}, nil)
	wantShape(t, "agent step.agent", obj(step["agent"]), agnoAgentResponse, []string{"id", "name", "is_factory", "is_component", "model"}, nil)
}

func TestShapeConfig(t *testing.T) {
	srv := dataOS(t, memory.New())
	cfg := obj(getOK(t, srv, "/config"))
	// exclude_none: no description, chat, metrics, evals, traces without
	// the control plane's database.
	wantShape(t, "ConfigResponse", cfg, agnoConfig, []string{"os_id", "name", "available_models", "os_database", "databases",
		"session", "memory", "agents", "teams", "workflows", "interfaces"}, nil)
	wantShape(t, "ConfigResponse.agents[0]", byName(t, cfg["agents"], "Chat Agent"), agnoAgentSummary, []string{"id", "name", "db_id"}, nil)
	wantShape(t, "ConfigResponse.teams[0]", byName(t, cfg["teams"], "Support Team"), agnoTeamSummary, []string{"id", "name", "db_id", "mode"}, nil)
	wantShape(t, "ConfigResponse.workflows[0]", byName(t, cfg["workflows"], "Pipeline"), agnoWorkflowSummary, []string{"id", "name", "db_id", "is_factory", "is_component"}, nil)
	db := obj(list(obj(cfg["session"])["dbs"])[0])
	wantShape(t, "session dbs[0]", db, agnoDatabaseConfig, agnoDatabaseConfig, nil)
}

func TestShapeConfigControlPlaneDomains(t *testing.T) {
	a, err := agent.New(agent.Config{Name: "A", Model: modeltest.New(modeltest.Response{Content: "ok"})})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Store: memory.New(), DB: sqldbtest.SQLite(t)})
	cfg := obj(getOK(t, srv, "/config"))
	for name, tables := range map[string][]string{"session": {"agno_sessions"}, "memory": {"agno_memories"}, "metrics": {"agno_metrics"}, "evals": {"agno_eval_runs"}, "traces": nil} {
		dom := obj(cfg[name])
		if dom == nil {
			t.Errorf("/config has no %s domain: %v", name, keys(cfg))
			continue
		}
		dbs := list(dom["dbs"])
		if len(dbs) != 1 {
			t.Errorf("%s.dbs = %v", name, dom["dbs"])
			continue
		}
		db := obj(dbs[0])
		want := []string{"db_id", "domain_config"}
		if tables != nil {
			want = append(want, "tables")
		}
		wantShape(t, name+".dbs[0]", db, agnoDatabaseConfig, want, nil)
		if got := obj(db["domain_config"])["display_name"]; got != db["db_id"] {
			t.Errorf("%s display_name = %v, want the db id %v", name, got, db["db_id"])
		}
		var got []string
		for _, x := range list(db["tables"]) {
			got = append(got, x.(string))
		}
		if !slices.Equal(got, tables) {
			t.Errorf("%s tables = %v, want %v", name, got, tables)
		}
	}
}

func TestShapeMemoriesAndSessions(t *testing.T) {
	srv := dataOS(t, memory.New())
	mem := obj(mustCall(t, srv, http.StatusOK, http.MethodPost, "/memories", map[string]any{"memory": "likes tea", "user_id": "u1"}))
	wantShape(t, "UserMemorySchema", mem, agnoUserMemory, agnoUserMemory, []string{"agent_id", "team_id"})
	page := obj(getOK(t, srv, "/memories?user_id=u1"))
	wantShape(t, "PaginatedResponse", page, []string{"data", "meta"}, []string{"data", "meta"}, nil)
	wantShape(t, "PaginationInfo", obj(page["meta"]), agnoPagination, agnoPagination, nil)
	stats := obj(getOK(t, srv, "/user_memory_stats"))
	wantShape(t, "UserStatsSchema", obj(list(stats["data"])[0]), agnoUserStats, agnoUserStats, nil)

	chat := byName(t, getOK(t, srv, "/agents"), "Chat Agent")
	runComponent(t, srv, "/agents/"+chat["id"].(string)+"/runs", "hello", "s1", "u1")
	sessions := obj(getOK(t, srv, "/sessions?type=agent"))
	item := obj(list(sessions["data"])[0])
	// exclude_none: no team/workflow ids, no summary, no metadata.
	wantShape(t, "SessionSchema", item, agnoSessionSchema, []string{"session_id", "session_name", "session_state", "created_at",
		"updated_at", "session_type", "user_id", "agent_id", "metrics", "total_tokens"}, nil)

	// GET /sessions/{session_id} excludes None; the rename answer (no
	// exclude_none) sends every field, None as null.
	detail := obj(getOK(t, srv, "/sessions/s1?type=agent"))
	set := []string{}
	for _, k := range agnoAgentSessionDetail {
		if k != "session_summary" && k != "metadata" {
			set = append(set, k)
		}
	}
	wantShape(t, "AgentSessionDetailSchema (exclude_none)", detail, agnoAgentSessionDetail, set, nil)
	// agno's agent writes agent_data {name, agent_id, model.to_dict()}.
	ad := obj(detail["agent_data"])
	if ad["name"] != "Chat Agent" || ad["agent_id"] != chat["id"] || obj(ad["model"])["id"] == nil || obj(ad["model"])["provider"] == nil {
		t.Errorf("agent_data = %v, want {name, agent_id, model{name, id, provider}}", ad)
	}
	renamed := obj(mustCall(t, srv, http.StatusOK, http.MethodPost, "/sessions/s1/rename?type=agent", map[string]any{"session_name": "Tea"}))
	wantShape(t, "AgentSessionDetailSchema", renamed, agnoAgentSessionDetail, agnoAgentSessionDetail, []string{"session_summary", "metadata"})
}

// without drops names from fields.
func without(fields []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(fields), func(f string) bool { return slices.Contains(names, f) })
}

// GET /{agents|teams|workflows}/{id}/runs lists agno's run schemas, None
// fields left out.
func TestShapeRunSchemas(t *testing.T) {
	srv := dataOS(t, memory.New())
	runComponent(t, srv, "/agents/chat-agent/runs", "one", "s1", "u")
	runComponent(t, srv, "/teams/support-team/runs", "team", "t1", "u")
	runComponent(t, srv, "/workflows/pipeline/runs", "flow", "w1", "u")
	r := obj(list(getOK(t, srv, "/agents/chat-agent/runs?session_id=s1"))[0])
	wantShape(t, "RunSchema", r, agnoRunSchema, without(agnoRunSchema, "tools", "citations", "response_audio", "followups"), nil)
	if _, iso := r["created_at"].(string); !iso {
		t.Errorf("RunSchema created_at = %v, want an ISO datetime", r["created_at"])
	}
	r = obj(list(getOK(t, srv, "/teams/support-team/runs?session_id=t1"))[0])
	wantShape(t, "TeamRunSchema", r, agnoTeamRunSchema, without(agnoTeamRunSchema, "citations", "response_audio", "followups"), nil)
	r = obj(list(getOK(t, srv, "/workflows/pipeline/runs?session_id=w1"))[0])
	wantShape(t, "WorkflowRunSchema", r, agnoWorkflowRunSchema, without(agnoWorkflowRunSchema, "step_requirements", "pause_kind",
		"paused_step_name", "paused_step_index", "citations", "response_audio"), nil)
}

// noArgTool is a tool without arguments.
func noArgTool() *tool.Function {
	return tool.Must(tool.New("get_time", "Current time", func(context.Context, struct{}) (string, error) { return "noon", nil }))
}

func TestShapeToolExecutionsAndMessages(t *testing.T) {
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "It is noon"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "get_time", `{}`)}}
	})
	a, err := agent.New(agent.Config{Name: "Clock", Model: m, Tools: []tool.Provider{noArgTool()}})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Store: memory.New()})
	id := byName(t, getOK(t, srv, "/agents"), "Clock")["id"].(string)
	out := runComponent(t, srv, "/agents/"+id+"/runs", "time?", "s1", "")
	tools := list(out["tools"])
	if len(tools) != 1 {
		t.Fatalf("tools = %v", out["tools"])
	}
	te := obj(tools[0])
	wantShape(t, "ToolExecution", te, agnoToolExecution, agnoToolExecution, []string{"child_run_id", "requires_confirmation",
		"confirmed", "confirmation_note", "requires_user_input", "user_input_schema", "user_feedback_schema", "answered",
		"external_execution_required", "external_execution_silent", "approval_type", "approval_id"})
	if args, ok := te["tool_args"].(map[string]any); !ok || len(args) != 0 {
		t.Errorf("tool_args = %#v, want {}", te["tool_args"])
	}
	if te["tool_call_error"] != false || te["stop_after_tool_call"] != false {
		t.Errorf("tool_call_error / stop_after_tool_call = %v / %v, want false", te["tool_call_error"], te["stop_after_tool_call"])
	}
	msgs := list(out["messages"])
	if len(msgs) < 3 {
		t.Fatalf("messages = %v", out["messages"])
	}
	seenIDs := map[string]bool{}
	for i, raw := range msgs {
		msg := obj(raw)
		// Message.to_dict(): booleans are not None, so always sent.
		for _, k := range []string{"id", "role", "from_history", "stop_after_tool_call", "created_at"} {
			if _, ok := msg[k]; !ok {
				t.Errorf("message %d (%v) lacks %q: %v", i, msg["role"], k, msg)
			}
		}
		// agno's Message.id is a uuid4 of its own, one per message.
		if id, _ := msg["id"].(string); len(id) != 36 || seenIDs[id] {
			t.Errorf("message %d id = %v, want a new uuid", i, msg["id"])
		} else {
			seenIDs[id] = true
		}
		if len(nulls(msg)) > 0 {
			t.Errorf("message %d has null keys %v (to_dict drops None)", i, nulls(msg))
		}
		if msg["role"] == "tool" && msg["tool_call_error"] != false {
			t.Errorf("tool message tool_call_error = %v, want false", msg["tool_call_error"])
		}
	}
}

func TestShapeRunCompletedSessionState(t *testing.T) {
	a, err := agent.New(agent.Config{Name: "A", Model: modeltest.New(modeltest.Response{Content: "hi"})})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Store: memory.New()})
	id := byName(t, getOK(t, srv, "/agents"), "A")["id"].(string)
	resp, err := srv.Client().PostForm(srv.URL+"/agents/"+id+"/runs", url.Values{"message": {"hi"}, "stream": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var done map[string]any
	for _, ev := range readSSE(t, resp) {
		if ev.name == "RunCompleted" {
			done = ev.data
		}
	}
	if done == nil {
		t.Fatal("no RunCompleted event")
	}
	if st, ok := done["session_state"].(map[string]any); !ok || len(st) != 0 {
		t.Errorf("RunCompleted session_state = %#v, want {}", done["session_state"])
	}
}

func TestValidationEchoesInputAndCtx(t *testing.T) {
	srv := dataOS(t, memory.New())
	// agno's GET /sessions and /memories take page >= 0.
	for _, path := range []string{"/sessions?page=0", "/memories?page=0", "/user_memory_stats?page=0"} {
		page := obj(getOK(t, srv, path))
		if got := obj(page["meta"])["page"]; got != float64(0) {
			t.Errorf("%s: meta.page = %v, want 0", path, got)
		}
	}
	_, v := call(t, srv, http.MethodGet, "/sessions?page=-1", nil)
	item := obj(list(obj(v)["detail"])[0])
	wantShape(t, "422 item", item, agnoValidationItem, agnoValidationItem, nil)
	if item["type"] != "greater_than_equal" || item["input"] != "-1" || obj(item["ctx"])["ge"] != float64(0) ||
		item["msg"] != "Input should be greater than or equal to 0" {
		t.Errorf("page=-1: %v", item)
	}
	_, v = call(t, srv, http.MethodGet, "/memories?limit=0", nil)
	item = obj(list(obj(v)["detail"])[0])
	if item["input"] != "0" || obj(item["ctx"])["ge"] != float64(1) || item["msg"] != "Input should be greater than or equal to 1" {
		t.Errorf("limit=0: %v", item)
	}
	// int_parsing has no ctx (pydantic leaves it out).
	_, v = call(t, srv, http.MethodGet, "/sessions?limit=abc", nil)
	item = obj(list(obj(v)["detail"])[0])
	wantShape(t, "int_parsing item", item, agnoValidationItem, []string{"type", "loc", "msg", "input"}, nil)
	if item["input"] != "abc" {
		t.Errorf("limit=abc: input %v", item["input"])
	}
	// A missing body field echoes the object that lacks it.
	_, v = call(t, srv, http.MethodPost, "/memories", map[string]any{"user_id": "u1"})
	item = obj(list(obj(v)["detail"])[0])
	if item["type"] != "missing" || obj(item["input"])["user_id"] != "u1" {
		t.Errorf("missing memory: %v", item)
	}
	// A too-short body value echoes the value and its bound.
	_, v = call(t, srv, http.MethodPost, "/memories", map[string]any{"memory": "", "user_id": "u1"})
	item = obj(list(obj(v)["detail"])[0])
	if item["type"] != "string_too_short" || item["input"] != "" || obj(item["ctx"])["min_length"] != float64(1) {
		t.Errorf("empty memory: %v", item)
	}
}

func TestJSONBodyToRunRouteIs422(t *testing.T) {
	srv := dataOS(t, memory.New())
	id := byName(t, getOK(t, srv, "/agents"), "Chat Agent")["id"].(string)
	code, v := call(t, srv, http.MethodPost, "/agents/"+id+"/runs", map[string]any{"message": "hi"})
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %v", code, v)
	}
	item := obj(list(obj(v)["detail"])[0])
	wantShape(t, "422 item", item, agnoValidationItem, []string{"type", "loc", "msg", "input"}, []string{"input"})
	if item["type"] != "missing" || item["msg"] != "Field required" || !slices.Equal(list(item["loc"]), []any{"body", "message"}) {
		t.Errorf("JSON run body: %v", item)
	}
}

func TestRedoc(t *testing.T) {
	srv := dataOS(t, memory.New())
	resp, err := srv.Client().Get(srv.URL + "/redoc")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /redoc: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// Rendered on the server from /openapi.json: no script, nothing from
	// a CDN (docs_offline_test.go checks every reference).
	for _, want := range []string{"<title>Agno AgentOS — API reference</title>", `id="op-get_agents"`, `href="#op-post_agents_agent_id_runs"`, `id="schema-ErrorResponse"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/redoc lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "redoc.standalone.js", "cdn.", "fonts.googleapis"} {
		if strings.Contains(string(body), banned) {
			t.Errorf("/redoc has %q", banned)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") {
		t.Errorf("/redoc Content-Security-Policy %q", csp)
	}
}

func TestOpenAPIPathParamsAsAgno(t *testing.T) {
	srv := dataOS(t, memory.New())
	doc := obj(getOK(t, srv, "/openapi.json"))
	paths := obj(doc["paths"])
	for path, params := range map[string][]string{
		"/agents/{agent_id}":                      {"agent_id"},
		"/agents/{agent_id}/runs/{run_id}/cancel": {"agent_id", "run_id"},
		"/teams/{team_id}/runs":                   {"team_id"},
		"/workflows/{workflow_id}/runs/{run_id}":  {"workflow_id", "run_id"},
		"/sessions/{session_id}/runs/{run_id}":    {"session_id", "run_id"},
		"/memories/{memory_id}":                   {"memory_id"},
	} {
		item := obj(paths[path])
		if item == nil {
			t.Errorf("OpenAPI has no path %s", path)
			continue
		}
		for _, op := range item {
			var got []string
			for _, p := range list(obj(op)["parameters"]) {
				if obj(p)["in"] == "path" {
					got = append(got, obj(p)["name"].(string))
				}
			}
			if !slices.Equal(sorted(got), sorted(params)) {
				t.Errorf("%s path parameters %v, want %v", path, got, params)
			}
		}
	}
	for p := range paths {
		if strings.Contains(p, "{id}") && !strings.HasPrefix(p, "/knowledge") {
			t.Errorf("OpenAPI path %s names its parameter {id}", p)
		}
	}
}

// stepWorkflow is a one-step workflow whose step is agent a.
func stepWorkflow(t *testing.T, a *agent.Agent) *workflow.Workflow {
	t.Helper()
	wf, err := workflow.New(workflow.Config{Name: "Agent Flow", Steps: []workflow.Node{
		&workflow.Step{Name: "write", Description: "Writes", Agent: a},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

// osWith serves cfg over HTTP for one test.
func osWith(t *testing.T, cfg agentos.Config) *httptest.Server {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	return srv
}

// agno's StepMetrics.to_dict() (workflow/types.py): every field.
var agnoStepMetrics = []string{"step_name", "executor_type", "executor_name", "metrics"}

// agno's client reads metrics.steps.<name> as StepMetrics.from_dict,
// which indexes step_name, executor_type and executor_name: a run's
// metrics must have them in the run's answer, the stored run and the
// session's runs, and so must a run stored before they existed.
func TestShapeWorkflowMetrics(t *testing.T) {
	st := memory.New()
	a, err := agent.New(agent.Config{Name: "Writer", Store: st, Model: modeltest.New(modeltest.Response{Content: "ok"})})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{Name: "Metrics Flow", Store: st, Steps: []workflow.Node{
		&workflow.Step{Name: "write", Agent: a},
		&workflow.Step{Name: "tidy", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: in.InputString()}, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Workflows: []*workflow.Workflow{wf}, Store: st})
	wantSteps := func(what string, metrics any, executor string) {
		t.Helper()
		steps := obj(obj(metrics)["steps"])
		if len(steps) != 1 {
			t.Fatalf("%s: metrics.steps = %v, want the agent step alone (agno leaves function steps out)", what, obj(metrics)["steps"])
		}
		step := obj(steps["write"])
		wantShape(t, what+" StepMetrics", step, agnoStepMetrics, agnoStepMetrics, nil)
		if step["step_name"] != "write" || step["executor_type"] != "agent" || step["executor_name"] != executor {
			t.Errorf("%s: %v", what, step)
		}
		if m := obj(step["metrics"]); m["total_tokens"] == nil {
			t.Errorf("%s: step metrics = %v, want the agent run's metrics", what, step["metrics"])
		}
	}
	out := runComponent(t, srv, "/workflows/"+wf.ID()+"/runs", "hello", "wm", "u")
	wantSteps("the run's answer", out["metrics"], "Writer")
	runID, _ := out["run_id"].(string)
	wantSteps("the stored run", obj(getOK(t, srv, "/workflows/"+wf.ID()+"/runs/"+runID+"?session_id=wm"))["metrics"], "Writer")
	wantSteps("the session's runs", obj(list(getOK(t, srv, "/sessions/wm/runs?type=workflow"))[0])["metrics"], "Writer")

	// A run stored by an earlier version: each step was its run metrics.
	old := `{"run_id":"old-run","workflow_id":"` + wf.ID() + `","session_id":"wm-old","status":"COMPLETED","content":"x",
		"step_results":[{"step_name":"write","executor_type":"agent","executor_name":"Writer","content":"x","success":true}],
		"metrics":{"steps":{"write":{"input_tokens":3,"output_tokens":4,"total_tokens":7}},"duration":0.5}}`
	if _, _, err := st.EnsureSession(t.Context(), &storage.Session{SessionID: "wm-old", SessionType: storage.SessionWorkflow, WorkflowID: wf.ID(), CreatedAt: 1, UpdatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateRun(t.Context(), &storage.Run{RunID: "old-run", SessionID: "wm-old", SessionType: storage.SessionWorkflow, ComponentID: wf.ID(),
		Status: run.StatusCompleted, CreatedAt: 1, UpdatedAt: 1, Data: json.RawMessage(old)}); err != nil {
		t.Fatal(err)
	}
	m := obj(getOK(t, srv, "/workflows/"+wf.ID()+"/runs/old-run?session_id=wm-old"))["metrics"]
	wantSteps("an old stored run", m, "Writer")
	if d := obj(m)["duration"]; d != 0.5 {
		t.Errorf("an old stored run's duration = %v", d)
	}
	var decoded workflow.Metrics
	if err := json.Unmarshal([]byte(`{"steps":{"write":{"total_tokens":7}}}`), &decoded); err != nil || decoded.Steps["write"].ExecutorType != "unknown" || decoded.Steps["write"].Metrics.TotalTokens != 7 {
		t.Errorf("workflow.Metrics of an old row: %+v %v", decoded.Steps["write"], err)
	}
}
