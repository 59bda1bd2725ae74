package mcpserver

import "encoding/json"

// Param is one argument of a tool, as agno's Python signature declares it.
type Param struct {
	Name string
	// Type is the JSON type: string, integer, object (a dict) or
	// array (a list of strings).
	Type string
	// Optional arguments default to Default (nil: None, sent as null).
	Optional bool
	Default  any
	// Nullable is an Optional[...] annotation (accepts null).
	Nullable bool
}

// Tool is one of agno's built-in MCP tools.
type Tool struct {
	Name        string
	Description string
	Tag         string // agno's tag: core, session or memory
	Params      []Param
}

func req(name, typ string) Param { return Param{Name: name, Type: typ} }

// opt is Optional[typ] = None.
func opt(name, typ string) Param { return Param{Name: name, Type: typ, Optional: true, Nullable: true} }

// def is typ = value.
func def(name, typ string, v any) Param {
	return Param{Name: name, Type: typ, Optional: true, Default: v}
}

// Tools are agno v2.6.13's built-in tools (libs/agno/agno/os/mcp.py):
// names, descriptions, tags and arguments in its order.
var Tools = []Tool{
	{Name: "get_agentos_config", Description: "Get the configuration of the AgentOS", Tag: "core"},
	{Name: "run_agent", Description: "Run an agent with a message", Tag: "core", Params: []Param{req("agent_id", "string"), req("message", "string")}},
	{Name: "run_team", Description: "Run a team with a message", Tag: "core", Params: []Param{req("team_id", "string"), req("message", "string")}},
	{Name: "run_workflow", Description: "Run a workflow with a message", Tag: "core", Params: []Param{req("workflow_id", "string"), req("message", "string")}},

	{Name: "get_sessions", Description: "Get paginated list of sessions with optional filtering by type, component, user, and name", Tag: "session", Params: []Param{
		req("db_id", "string"), def("session_type", "string", "agent"), opt("component_id", "string"), opt("user_id", "string"), opt("session_name", "string"),
		def("limit", "integer", 20), def("page", "integer", 1), def("sort_by", "string", "created_at"), def("sort_order", "string", "desc")}},
	{Name: "get_session", Description: "Get detailed information about a specific session by ID", Tag: "session", Params: []Param{
		req("session_id", "string"), req("db_id", "string"), def("session_type", "string", "agent"), opt("user_id", "string")}},
	{Name: "create_session", Description: "Create a new session for an agent, team, or workflow", Tag: "session", Params: []Param{
		req("db_id", "string"), def("session_type", "string", "agent"), opt("session_id", "string"), opt("session_name", "string"),
		opt("session_state", "object"), opt("metadata", "object"), opt("user_id", "string"), opt("agent_id", "string"), opt("team_id", "string"), opt("workflow_id", "string")}},
	{Name: "get_session_runs", Description: "Get all runs for a specific session", Tag: "session", Params: []Param{
		req("session_id", "string"), req("db_id", "string"), def("session_type", "string", "agent"), opt("user_id", "string")}},
	{Name: "get_session_run", Description: "Get a specific run from a session", Tag: "session", Params: []Param{
		req("session_id", "string"), req("run_id", "string"), req("db_id", "string"), def("session_type", "string", "agent"), opt("user_id", "string")}},
	{Name: "rename_session", Description: "Rename an existing session", Tag: "session", Params: []Param{
		req("session_id", "string"), req("session_name", "string"), req("db_id", "string"), def("session_type", "string", "agent"), opt("user_id", "string")}},
	{Name: "update_session", Description: "Update session properties like name, state, metadata, or summary", Tag: "session", Params: []Param{
		req("session_id", "string"), req("db_id", "string"), def("session_type", "string", "agent"), opt("session_name", "string"),
		opt("session_state", "object"), opt("metadata", "object"), opt("summary", "object"), opt("user_id", "string")}},
	{Name: "delete_session", Description: "Delete a specific session and all its runs", Tag: "session", Params: []Param{
		req("session_id", "string"), req("db_id", "string"), opt("user_id", "string")}},
	{Name: "delete_sessions", Description: "Delete multiple sessions by their IDs", Tag: "session", Params: []Param{
		req("session_ids", "array"), req("db_id", "string"), opt("session_types", "array"), opt("user_id", "string")}},

	{Name: "create_memory", Description: "Create a new user memory", Tag: "memory", Params: []Param{
		req("db_id", "string"), req("memory", "string"), req("user_id", "string"), opt("topics", "array")}},
	{Name: "get_memory", Description: "Get a specific memory by ID", Tag: "memory", Params: []Param{
		req("memory_id", "string"), req("db_id", "string"), opt("user_id", "string")}},
	{Name: "get_memories", Description: "Get a paginated list of memories with optional filtering", Tag: "memory", Params: []Param{
		req("db_id", "string"), opt("user_id", "string"), opt("agent_id", "string"), opt("team_id", "string"), opt("topics", "array"), opt("search_content", "string"),
		def("limit", "integer", 20), def("page", "integer", 1), def("sort_by", "string", "updated_at"), def("sort_order", "string", "desc")}},
	{Name: "update_memory", Description: "Update an existing memory", Tag: "memory", Params: []Param{
		req("db_id", "string"), req("memory_id", "string"), req("memory", "string"), req("user_id", "string"), opt("topics", "array")}},
	{Name: "delete_memory", Description: "Delete a specific memory by ID", Tag: "memory", Params: []Param{
		req("db_id", "string"), req("memory_id", "string"), opt("user_id", "string")}},
	{Name: "delete_memories", Description: "Delete multiple memories by their IDs", Tag: "memory", Params: []Param{
		req("memory_ids", "array"), req("db_id", "string"), opt("user_id", "string")}},
}

// title is pydantic's field title: "agent_id" → "Agent Id".
func title(name string) string {
	b := []byte(name)
	up := true
	for i, c := range b {
		switch {
		case c == '_':
			b[i], up = ' ', true
		case up && c >= 'a' && c <= 'z':
			b[i], up = c-'a'+'A', false
		default:
			up = false
		}
	}
	return string(b)
}

// typeSchema is the JSON Schema pydantic gives the annotation.
func typeSchema(typ string) map[string]any {
	switch typ {
	case "object": // Dict[str, Any]
		return map[string]any{"type": "object", "additionalProperties": true}
	case "array": // List[str]
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	}
	return map[string]any{"type": typ}
}

// InputSchema is the tool's inputSchema as FastMCP derives it from the
// signature with pydantic: titles, defaults, Optional as anyOf with null.
func (t Tool) InputSchema() json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range t.Params {
		var s map[string]any
		if p.Nullable {
			s = map[string]any{"anyOf": []any{typeSchema(p.Type), map[string]any{"type": "null"}}, "default": nil}
		} else {
			s = typeSchema(p.Type)
			if p.Optional {
				s["default"] = p.Default
			}
		}
		s["title"] = title(p.Name)
		props[p.Name] = s
		if !p.Optional {
			required = append(required, p.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, _ := json.Marshal(schema)
	return b
}
