package agentos

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// apiParam is one documented parameter: a query parameter or a field of
// a form or JSON body.
type apiParam struct {
	Name     string
	Type     string // JSON schema type: string, integer, number, boolean, array, object
	Desc     string
	Required bool
	Default  any
	Enum     []string
	Min, Max int  // integer bounds; 0: none
	NonNeg   bool // minimum 0 (agno's ge=0)
}

// apiRoute documents one route, keyed by its exact ServeMux pattern.
type apiRoute struct {
	Pattern string // "GET /agents/{agent_id}"
	Tag     string
	Summary string
	Desc    string
	Query   []apiParam
	Form    []apiParam // multipart/form-data or x-www-form-urlencoded body
	JSON    []apiParam // application/json body
	Status  int        // success status; default 200
	Result  string     // success description
	Schema  string     // components/schemas name of the success body
	Stream  bool       // may answer text/event-stream
	// Served is the ServeMux pattern that serves the route when it is not
	// Pattern: one pattern serves routes ServeMux cannot tell apart
	// (GET /knowledge/content/{id} and GET /knowledge/{id}/sources).
	Served string
	// Open routes carry their own auth, not AgentOS's key (Slack events).
	Open bool
}

func (a apiRoute) method() string { m, _, _ := strings.Cut(a.Pattern, " "); return m }
func (a apiRoute) path() string   { _, p, _ := strings.Cut(a.Pattern, " "); return p }

// Reusable parameters.
var (
	pSessionQ   = apiParam{Name: "session_id", Type: "string", Desc: "Session the run belongs to"}
	pUserQ      = apiParam{Name: "user_id", Type: "string", Desc: "Restrict to this user's data"}
	pStatusQ    = apiParam{Name: "status", Type: "string", Desc: "Run status filter", Enum: []string{"PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR"}}
	pTypeQ      = apiParam{Name: "type", Type: "string", Desc: "Session type", Enum: []string{"agent", "team", "workflow"}, Default: "agent"}
	pDBQ        = apiParam{Name: "db_id", Type: "string", Desc: "Database to use when several are configured"}
	pTableQ     = apiParam{Name: "table", Type: "string", Desc: "Table to use (needs db_id)"}
	pPageQ      = apiParam{Name: "page", Type: "integer", Desc: "Page number", Default: 1, Min: 1}
	pPage0Q     = apiParam{Name: "page", Type: "integer", Desc: "Page number (0 reads the first page too)", Default: 1, NonNeg: true}
	pLimitQ     = apiParam{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: maxPageLimit}
	pRegLimitQ  = apiParam{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: 100}
	pSortOrderQ = apiParam{Name: "sort_order", Type: "string", Desc: "Sort direction", Enum: []string{"asc", "desc"}}

	pMessage     = apiParam{Name: "message", Type: "string", Desc: "The input (a JSON object text when the workflow has an input schema)", Required: true}
	pStream      = apiParam{Name: "stream", Type: "boolean", Desc: "Answer with Server-Sent Events", Default: true}
	pBackground  = apiParam{Name: "background", Type: "boolean", Desc: "Run in the background; with stream=false answers 202 at once", Default: false}
	pSession     = apiParam{Name: "session_id", Type: "string", Desc: "Session to run in; a new one when empty"}
	pSessionReq  = apiParam{Name: "session_id", Type: "string", Desc: "Session of the paused run", Required: true}
	pUser        = apiParam{Name: "user_id", Type: "string", Desc: "User the run is for"}
	pFiles       = apiParam{Name: "files", Type: "array", Desc: "Images and documents (PDF, text, CSV, JSON, DOCX) attached to the input; audio and video are refused"}
	pVersion     = apiParam{Name: "version", Type: "string", Desc: "Component version"}
	pFactory     = apiParam{Name: "factory_input", Type: "string", Desc: "JSON input of a component factory"}
	pLastEvent   = apiParam{Name: "last_event_index", Type: "integer", Desc: "Index of the last event the client has; later ones are replayed, then the live stream follows"}
	pSessionOpt  = apiParam{Name: "session_id", Type: "string", Desc: "Session of the run"}
	runFormExtra = "Form fields not listed here are passed to the run: session_state, dependencies, metadata, knowledge_filters and output_schema as JSON (dropped when not valid JSON), \"true\"/\"false\" as booleans, \"null\"/\"none\" as null (stream_events, add_history_to_context, …). Fields the run has no use for are ignored."
)

// apiRoutes documents every route AgentOS may register. The document
// served lists those the server actually registered; a test checks that
// every registered route is documented here.
var apiRoutes = buildAPIRoutes()

func buildAPIRoutes() []apiRoute {
	routes := []apiRoute{
		{Pattern: "GET /{$}", Tag: "Core", Summary: "AgentOS home", Result: "{name, id, version}"},
		{Pattern: "GET /health", Tag: "Core", Summary: "Health check", Result: "{status: \"ok\", instantiated_at}"},
		{Pattern: "GET /ready", Tag: "Core", Summary: "Readiness check", Desc: "Checks that the database answers (within 2 s) and can keep writes; 503 {status: \"unavailable\", checks: {storage: {status: \"down\", detail}}} when it cannot, 503 {status: \"draining\", checks: {}} while the server shuts down. Needs no key, like /health (which stays a constant 200).",
			Result: "{status: \"ready\", checks: {storage: {status: \"ok\"}}}"},
		{Pattern: "GET /info", Tag: "Core", Summary: "Agno version and resource counts", Result: "{agno_version, agent_count, team_count, workflow_count}"},
		{Pattern: "GET /config", Tag: "Core", Summary: "AgentOS configuration", Result: "ConfigResponse: os_id, name, agents, teams, workflows, databases, available_models"},
		{Pattern: "GET /models", Tag: "Core", Summary: "Unique models of the agents and teams", Result: "[{id, provider}]"},

		{Pattern: "GET /workflows", Tag: "Workflows", Summary: "List workflows", Result: "[WorkflowSummaryResponse]"},
		{Pattern: "GET /workflows/{workflow_id}", Tag: "Workflows", Summary: "Get a workflow with its step tree", Result: "WorkflowResponse"},
		{Pattern: "POST /workflows/{workflow_id}/runs", Tag: "Workflows", Summary: "Run a workflow", Desc: runFormExtra,
			Form: []apiParam{pMessage, pStream, pBackground, pSession, pUser, pVersion, pFactory}, Stream: true,
			Result: "WorkflowRunOutput; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/continue", Tag: "Workflows", Summary: "Continue a paused workflow run",
			Form:   []apiParam{{Name: "step_requirements", Type: "string", Desc: "JSON list of StepRequirement objects (confirmation, user input, route choice, output review)"}, pSessionOpt, pUser, pStream, pFactory},
			Stream: true, Result: "WorkflowRunOutput, or an SSE stream"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/cancel", Tag: "Workflows", Summary: "Cancel a workflow run", Query: []apiParam{pSessionQ}, Result: "{}"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/resume", Tag: "Workflows", Summary: "Resume a workflow run's event stream", Form: []apiParam{pLastEvent, pSessionOpt}, Stream: true, Result: "SSE stream: missed events, then live ones"},
		{Pattern: "GET /workflows/{workflow_id}/runs/{run_id}", Tag: "Workflows", Summary: "Get a workflow run", Query: []apiParam{pSessionQ}, Result: "WorkflowRunOutput"},
		{Pattern: "GET /workflows/{workflow_id}/runs", Tag: "Workflows", Summary: "List a session's workflow runs", Query: []apiParam{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, pStatusQ}, Result: "[WorkflowRunSchema]"},
		{Pattern: "GET /workflows/ws", Tag: "Workflows", Summary: "WebSocket for workflow runs",
			Desc:   "Upgrade to a WebSocket. Client actions: authenticate, start-workflow, continue-workflow, reconnect, ping. Live events arrive as SSE-framed text; control messages as JSON.",
			Status: http.StatusSwitchingProtocols, Result: "Switching Protocols"},

		{Pattern: "GET /sessions", Tag: "Sessions", Summary: "List sessions", Query: []apiParam{pTypeQ,
			{Name: "component_id", Type: "string", Desc: "Agent, team or workflow id"}, pUserQ,
			{Name: "session_name", Type: "string", Desc: "Partial session name"}, pLimitQ, pPage0Q,
			{Name: "sort_by", Type: "string", Desc: "Sort field", Default: "created_at"}, pSortOrderQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[SessionSchema]"},
		{Pattern: "POST /sessions", Tag: "Sessions", Summary: "Create a session", Query: []apiParam{pTypeQ, pDBQ, pTableQ},
			JSON: []apiParam{{Name: "session_id", Type: "string"}, {Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"},
				{Name: "metadata", Type: "object"}, {Name: "user_id", Type: "string"}, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"}},
			Status: http.StatusCreated, Result: "Session detail"},
		{Pattern: "DELETE /sessions", Tag: "Sessions", Summary: "Delete sessions", Query: []apiParam{pUserQ, pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "session_ids", Type: "array", Required: true}, {Name: "session_types", Type: "array", Required: true}},
			Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /sessions/{session_id}", Tag: "Sessions", Summary: "Get a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ}, Result: "Session detail"},
		{Pattern: "PATCH /sessions/{session_id}", Tag: "Sessions", Summary: "Update a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"}, {Name: "metadata", Type: "object"}, {Name: "summary", Type: "object"}},
			Result: "Session detail"},
		{Pattern: "DELETE /sessions/{session_id}", Tag: "Sessions", Summary: "Delete a session", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "POST /sessions/{session_id}/rename", Tag: "Sessions", Summary: "Rename a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ},
			JSON: []apiParam{{Name: "session_name", Type: "string", Required: true}}, Result: "Session detail"},
		{Pattern: "GET /sessions/{session_id}/runs", Tag: "Sessions", Summary: "List a session's runs", Query: []apiParam{pTypeQ, pUserQ,
			{Name: "created_after", Type: "integer", Desc: "Epoch seconds"}, {Name: "created_before", Type: "integer", Desc: "Epoch seconds"}, pDBQ, pTableQ},
			Result: "[RunSchema | TeamRunSchema | WorkflowRunSchema]"},
		{Pattern: "GET /sessions/{session_id}/runs/{run_id}", Tag: "Sessions", Summary: "Get a session's run", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ}, Result: "Run schema"},

		{Pattern: "POST /memories", Tag: "Memory", Summary: "Create a memory", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "GET /memories", Tag: "Memory", Summary: "List memories", Query: []apiParam{pUserQ, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"},
			{Name: "topics", Type: "string", Desc: "Comma-separated topics"}, {Name: "search_content", Type: "string"}, pLimitQ, pPage0Q,
			{Name: "sort_by", Type: "string", Default: "updated_at"}, pSortOrderQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[UserMemorySchema]"},
		{Pattern: "DELETE /memories", Tag: "Memory", Summary: "Delete memories", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory_ids", Type: "array", Required: true}, {Name: "user_id", Type: "string"}}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memories/{memory_id}", Tag: "Memory", Summary: "Get a memory", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Result: "UserMemorySchema"},
		{Pattern: "PATCH /memories/{memory_id}", Tag: "Memory", Summary: "Update a memory", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "DELETE /memories/{memory_id}", Tag: "Memory", Summary: "Delete a memory", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memory_topics", Tag: "Memory", Summary: "List memory topics", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Result: "[string]"},
		{Pattern: "GET /user_memory_stats", Tag: "Memory", Summary: "Memory counts per user", Query: []apiParam{pLimitQ, pPage0Q, pUserQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[{user_id, total_memories, last_memory_updated_at}]"},
		{Pattern: "POST /optimize-memories", Tag: "Memory", Summary: "Merge and shorten a user's memories", Query: []apiParam{pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "user_id", Type: "string", Required: true}, {Name: "model", Type: "string", Desc: "\"provider:model_id\""}, {Name: "apply", Type: "boolean", Default: true}},
			Result: "{memories, memories_before, memories_after, tokens_before, tokens_after, tokens_saved, reduction_percentage}"},

		{Pattern: "GET /registry", Tag: "Registry", Summary: "List registry resources",
			Desc: "Agents, teams, workflows and every model, tool, database and step function wired into them, sorted by (type, name).",
			Query: []apiParam{{Name: "resource_type", Type: "string", Desc: "Filter by resource type", Enum: resourceTypeStrings()},
				{Name: "name", Type: "string", Desc: "Filter by name (case-insensitive substring)"}, pPageQ, pRegLimitQ},
			Schema: "RegistryPage", Result: "PaginatedResponse[RegistryContentResponse]"},

		{Pattern: "GET /openapi.json", Tag: "Docs", Summary: "This OpenAPI document", Result: "OpenAPI 3.1 document"},
		// knowledge routes: knowledgeAPIRoutes (knowledge.go), appended below
		{Pattern: "GET /docs", Tag: "Docs", Summary: "Human-readable route list", Result: "HTML page"},
		{Pattern: "GET /redoc", Tag: "Docs", Summary: "ReDoc view of /openapi.json", Result: "HTML page"},
	}
	routes = append(routes, knowledgeAPIRoutes()...)
	routes = append(routes, controlAPIRoutes()...)
	// Agents and teams share one route shape.
	for _, c := range []struct{ prefix, tag, noun, a, extraForm, continueField, continueDesc, output string }{
		{"/agents", "Agents", "agent", "an", "", "tools", "JSON list of ToolExecution objects with the human's decisions or results", "RunOutput"},
		{"/teams", "Teams", "team", "a", "monitor", "requirements", "JSON list of RunRequirement objects with the human's decisions", "TeamRunOutput"},
	} {
		form := []apiParam{pMessage, pStream, pSession, pUser, pFiles, pVersion, pBackground, pFactory}
		form[0].Desc = "The input"
		if c.extraForm != "" {
			form = append(form, apiParam{Name: c.extraForm, Type: "boolean", Default: true})
		}
		p := c.prefix
		id := p + "/{" + c.noun + "_id}"
		routes = append(routes,
			apiRoute{Pattern: "GET " + p, Tag: c.tag, Summary: "List " + c.noun + "s", Result: "[" + c.tag[:len(c.tag)-1] + "Response]"},
			apiRoute{Pattern: "GET " + id, Tag: c.tag, Summary: "Get " + c.a + " " + c.noun, Result: c.tag[:len(c.tag)-1] + "Response"},
			apiRoute{Pattern: "POST " + id + "/runs", Tag: c.tag, Summary: "Run " + c.a + " " + c.noun, Desc: runFormExtra, Form: form, Stream: true,
				Result: c.output + "; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/cancel", Tag: c.tag, Summary: "Cancel " + c.a + " " + c.noun + " run", Query: []apiParam{pSessionQ}, Result: "{}"},
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/continue", Tag: c.tag, Summary: "Continue a paused " + c.noun + " run", Desc: runFormExtra,
				Form:   []apiParam{{Name: c.continueField, Type: "string", Desc: c.continueDesc}, pSessionReq, pUser, pStream, pBackground},
				Stream: true, Result: c.output + ", or an SSE stream"},
			apiRoute{Pattern: "POST " + id + "/runs/{run_id}/resume", Tag: c.tag, Summary: "Resume " + c.a + " " + c.noun + " run's event stream", Form: []apiParam{pLastEvent, pSessionOpt}, Stream: true, Result: "SSE stream: missed events, then live ones"},
			apiRoute{Pattern: "GET " + id + "/runs/{run_id}", Tag: c.tag, Summary: "Get " + c.a + " " + c.noun + " run", Query: []apiParam{pSessionQ}, Result: c.output},
			apiRoute{Pattern: "GET " + id + "/runs", Tag: c.tag, Summary: "List a session's " + c.noun + " runs", Query: []apiParam{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, pStatusQ}, Result: "[RunSchema]"},
		)
	}
	return routes
}

func resourceTypeStrings() []string {
	out := make([]string, len(ResourceTypes))
	for i, t := range ResourceTypes {
		out[i] = string(t)
	}
	return out
}

func (o *OS) docsRoutes(mux routeMux) {
	var once sync.Once
	var served []apiRoute
	registered := func() []apiRoute {
		once.Do(func() { served = registeredRoutes(mux, append(slices.Clone(apiRoutes), o.interfaceAPIRoutes()...)) })
		return served
	}
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, o.openAPI(registered()))
	})
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if _, err := io.WriteString(w, o.docsPage(registered())); err != nil {
			o.log.Warn("could not render /docs", "error", err)
		}
	})
	mux.HandleFunc("GET /redoc", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if _, err := io.WriteString(w, strings.Replace(redocPage, "{{title}}", html.EscapeString(o.cfg.Name), 1)); err != nil {
			o.log.Warn("could not render /redoc", "error", err)
		}
	})
}

// redocPage is FastAPI's get_redoc_html: the page is served locally and
// the browser loads ReDoc's script; without it, the noscript text points
// to /docs, which needs no script.
var redocPage = `<!DOCTYPE html>
<html>
<head>
<title>{{title}} - ReDoc</title>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link href="https://fonts.googleapis.com/css?family=Montserrat:300,400,700|Roboto:300,400,700" rel="stylesheet">
<link rel="shortcut icon" href="https://fastapi.tiangolo.com/img/favicon.png">
<style>
body { margin: 0; padding: 0; }
</style>
</head>
<body>
<noscript>ReDoc requires Javascript to function. Please enable it to browse the documentation, or read <a href="/docs">/docs</a>.</noscript>
<redoc spec-url="/openapi.json"></redoc>
<script src="https://cdn.jsdelivr.net/npm/redoc@2/bundles/redoc.standalone.js"> </script>
</body>
</html>
`

// registeredRoutes keeps the documented routes mux serves under exactly
// their pattern.
func registeredRoutes(mux routeMux, routes []apiRoute) []apiRoute {
	var out []apiRoute
	for _, rt := range routes {
		path := strings.ReplaceAll(rt.path(), "{$}", "")
		path = wildcard.ReplaceAllString(path, "x")
		req, err := http.NewRequest(rt.method(), path, nil)
		if err != nil {
			continue
		}
		if _, pattern := mux.Handler(req); pattern == cmp.Or(rt.Served, rt.Pattern) {
			out = append(out, rt)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path() < out[j].path() })
	return out
}

var wildcard = regexp.MustCompile(`\{[^}$]+\}`)

// open reports a route AgentOS's key does not guard.
func (rt apiRoute) open() bool { return rt.Open || openPath(openAPIPath(rt.path())) }

// openAPIPath turns a ServeMux path into an OpenAPI path ("/{$}" → "/",
// "{name...}" → "{name}").
func openAPIPath(p string) string {
	p = strings.ReplaceAll(p, "{$}", "")
	p = strings.ReplaceAll(p, "...}", "}")
	if p == "" {
		return "/"
	}
	return p
}

func pathParams(p string) []string {
	var out []string
	for _, m := range wildcard.FindAllString(p, -1) {
		out = append(out, strings.TrimSuffix(strings.Trim(m, "{}"), "..."))
	}
	return out
}

// openAPI is the OpenAPI 3.1 document of the given routes.
func (o *OS) openAPI(routes []apiRoute) map[string]any {
	paths := map[string]any{}
	tags := map[string]bool{}
	for _, rt := range routes {
		p := openAPIPath(rt.path())
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(rt.method())] = o.operation(rt)
		tags[rt.Tag] = true
	}
	tagList := []map[string]any{}
	for t := range tags {
		tagList = append(tagList, map[string]any{"name": t})
	}
	sort.Slice(tagList, func(i, j int) bool { return tagList[i]["name"].(string) < tagList[j]["name"].(string) })
	info := map[string]any{"title": o.cfg.Name, "version": o.cfg.Version}
	if o.cfg.Description != "" {
		info["description"] = o.cfg.Description
	}
	return map[string]any{
		"openapi":    "3.1.0",
		"info":       info,
		"tags":       tagList,
		"paths":      paths,
		"components": openAPIComponents,
		"security":   []map[string][]string{{"HTTPBearer": {}}},
	}
}

func (o *OS) operation(rt apiRoute) map[string]any {
	op := map[string]any{
		"tags":        []string{rt.Tag},
		"summary":     rt.Summary,
		"operationId": operationID(rt),
	}
	if rt.Desc != "" {
		op["description"] = rt.Desc
	}
	if rt.open() {
		op["security"] = []any{}
	}
	params := []map[string]any{}
	for _, name := range pathParams(rt.path()) {
		params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, p := range rt.Query {
		qp := map[string]any{"name": p.Name, "in": "query", "required": p.Required, "schema": paramSchema(p)}
		if p.Desc != "" {
			qp["description"] = p.Desc
		}
		params = append(params, qp)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	switch {
	case len(rt.Form) > 0:
		schema := objectSchema(rt.Form)
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"multipart/form-data":               map[string]any{"schema": schema},
			"application/x-www-form-urlencoded": map[string]any{"schema": schema},
		}}
	case len(rt.JSON) > 0:
		op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": objectSchema(rt.JSON)}}}
	}
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	ok := map[string]any{"description": cmp.Or(rt.Result, http.StatusText(status))}
	if status != http.StatusNoContent && status != http.StatusSwitchingProtocols {
		body := map[string]any{}
		switch {
		case rt.Schema != "":
			body["application/json"] = map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + rt.Schema}}
		case rt.Pattern == "GET /docs" || rt.Pattern == "GET /redoc":
			body["text/html"] = map[string]any{"schema": map[string]any{"type": "string"}}
		default:
			body["application/json"] = map[string]any{"schema": map[string]any{}}
		}
		if rt.Stream {
			body["text/event-stream"] = map[string]any{"schema": map[string]any{"type": "string"}}
		}
		ok["content"] = body
	}
	responses := map[string]any{strconv.Itoa(status): ok}
	errRef := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorResponse"}}}
	if !rt.open() {
		responses["401"] = map[string]any{"description": "Missing or invalid bearer token", "content": errRef}
	}
	if len(pathParams(rt.path())) > 0 {
		responses["404"] = map[string]any{"description": "Not found", "content": errRef}
	}
	if len(rt.Query)+len(rt.Form)+len(rt.JSON) > 0 {
		responses["422"] = map[string]any{"description": "Validation error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/HTTPValidationError"}}}}
	}
	op["responses"] = responses
	return op
}

func paramSchema(p apiParam) map[string]any {
	s := map[string]any{"type": p.Type}
	switch p.Type {
	case "array":
		if p.Name == "files" {
			s["items"] = map[string]any{"type": "string", "format": "binary"}
		} else {
			s["items"] = map[string]any{"type": "string"}
		}
	case "integer":
		if p.NonNeg {
			s["minimum"] = 0
		}
		if p.Min != 0 {
			s["minimum"] = p.Min
		}
		if p.Max != 0 {
			s["maximum"] = p.Max
		}
	}
	if p.Default != nil {
		s["default"] = p.Default
	}
	if len(p.Enum) > 0 {
		s["enum"] = p.Enum
	}
	return s
}

func objectSchema(fields []apiParam) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range fields {
		s := paramSchema(f)
		if f.Desc != "" {
			s["description"] = f.Desc
		}
		props[f.Name] = s
		if f.Required {
			required = append(required, f.Name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// operationID is unique per route: "post_agents_id_runs_run_id_cancel".
func operationID(rt apiRoute) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method()))
	for _, part := range strings.FieldsFunc(openAPIPath(rt.path()), func(r rune) bool { return !isIdentRune(r) }) {
		b.WriteByte('_')
		b.WriteString(part)
	}
	if b.Len() == len(rt.method()) {
		b.WriteString("_root")
	}
	return b.String()
}

func isIdentRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

var openAPIComponents = map[string]any{
	"securitySchemes": map[string]any{
		"HTTPBearer": map[string]any{"type": "http", "scheme": "bearer", "description": "OS_SECURITY_KEY as a bearer token"},
	},
	"schemas": map[string]any{
		"ErrorResponse": map[string]any{"type": "object", "required": []string{"detail"},
			"properties": map[string]any{"detail": map[string]any{"type": "string"}}},
		"ValidationError": map[string]any{"type": "object", "required": []string{"type", "loc", "msg"},
			"properties": map[string]any{
				"type":  map[string]any{"type": "string"},
				"loc":   map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}},
				"msg":   map[string]any{"type": "string"},
				"input": map[string]any{},
				"ctx":   map[string]any{"type": "object"},
			}},
		"HTTPValidationError": map[string]any{"type": "object",
			"properties": map[string]any{"detail": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/ValidationError"}}}},
		"PaginationInfo": map[string]any{"type": "object", "required": []string{"page", "limit", "total_pages", "total_count"},
			"properties": map[string]any{
				"page": map[string]any{"type": "integer"}, "limit": map[string]any{"type": "integer"},
				"total_pages": map[string]any{"type": "integer"}, "total_count": map[string]any{"type": "integer"},
				"search_time_ms": map[string]any{"type": "number"},
			}},
		"PaginatedResponse": map[string]any{"type": "object", "required": []string{"data", "meta"},
			"properties": map[string]any{
				"data": map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
				"meta": map[string]any{"$ref": "#/components/schemas/PaginationInfo"},
			}},
		"RegistryContentResponse": map[string]any{"type": "object", "required": []string{"name", "type"},
			"properties": map[string]any{
				"name": map[string]any{"type": "string"}, "type": map[string]any{"type": "string", "enum": resourceTypeStrings()},
				"id": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"},
				"metadata": map[string]any{"type": "object"},
			}},
		"RegistryPage": map[string]any{"type": "object", "required": []string{"data", "meta"},
			"properties": map[string]any{
				"data": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/RegistryContentResponse"}},
				"meta": map[string]any{"$ref": "#/components/schemas/PaginationInfo"},
			}},
	},
}

// docsPage renders the /docs page. It is written by hand, not with
// html/template: text/template's executor calls reflect's MethodByName,
// which makes the linker keep every exported method of every type in
// the binary (the SDKs' generated types above all): about 30 MB of binary
// and 8 MB of resident pages.
func (o *OS) docsPage(routes []apiRoute) string {
	type group struct {
		Tag    string
		Routes []apiRoute
	}
	var groups []*group
	byTag := map[string]*group{}
	for _, rt := range routes {
		g := byTag[rt.Tag]
		if g == nil {
			g = &group{Tag: rt.Tag}
			byTag[rt.Tag] = g
			groups = append(groups, g)
		}
		g.Routes = append(g.Routes, rt)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Tag < groups[j].Tag })

	var b strings.Builder
	esc := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(html.EscapeString(p))
		}
	}
	raw := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	raw(docsHead[0])
	esc(o.cfg.Name)
	raw(docsHead[1])
	esc(o.cfg.Name)
	raw(docsHead[2])
	esc(o.cfg.Version)
	raw(docsHead[3])
	if o.cfg.Description != "" {
		raw("<p>")
		esc(o.cfg.Description)
		raw("</p>")
	}
	raw("\n")
	for _, g := range groups {
		raw("<h2>")
		esc(g.Tag)
		raw("</h2>\n")
		for _, rt := range g.Routes {
			method, path := rt.method(), openAPIPath(rt.path())
			raw(`<details id="`)
			esc(strings.ToLower(method), "-", path)
			raw("\">\n<summary><span class=\"m ")
			esc(strings.ToLower(method))
			raw(`">`)
			esc(method)
			raw("</span><code>")
			esc(path)
			raw("</code> — ")
			esc(rt.Summary)
			if rt.open() {
				raw(` <em class="muted">open</em>`)
			}
			raw("</summary>\n")
			if rt.Desc != "" {
				raw("<p>")
				esc(rt.Desc)
				raw("</p>")
			}
			raw("\n")
			for _, ps := range []struct {
				title  string
				params []apiParam
			}{{"Query parameters", rt.Query}, {"Form fields (multipart/form-data or x-www-form-urlencoded)", rt.Form}, {"JSON body", rt.JSON}} {
				if len(ps.params) > 0 {
					raw("<p>", ps.title, "</p>")
					writeDocsParams(&b, ps.params)
				}
				raw("\n")
			}
			raw("<p>Answers: ")
			esc(rt.Result)
			if rt.Stream {
				raw(" (Server-Sent Events when streaming)")
			}
			raw("</p>\n</details>\n")
		}
	}
	raw("\n</body>\n</html>\n")
	return b.String()
}

func writeDocsParams(b *strings.Builder, params []apiParam) {
	esc := func(s string) { b.WriteString(html.EscapeString(s)) }
	b.WriteString("<table><tr><th>name</th><th>type</th><th>description</th></tr>\n")
	for _, p := range params {
		b.WriteString("<tr><td><code>")
		esc(p.Name)
		b.WriteString("</code>")
		if p.Required {
			b.WriteString(" *")
		}
		b.WriteString("</td><td>")
		esc(p.Type)
		if p.Default != nil {
			esc(fmt.Sprintf(" = %v", p.Default))
		}
		b.WriteString("</td><td>")
		esc(p.Desc)
		if len(p.Enum) > 0 {
			b.WriteString(" (")
			for i, e := range p.Enum {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("<code>")
				esc(e)
				b.WriteString("</code>")
			}
			b.WriteString(")")
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>")
}

// docsHead is the page up to the routes, split where the title, the
// title again and the version go.
var docsHead = [4]string{`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`, ` — API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1.5rem;color:#1c1c1c}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;margin-top:2rem}
details{border:1px solid #e3e3e3;border-radius:6px;margin:.4rem 0;padding:.4rem .7rem}
summary{cursor:pointer}code{font:13px ui-monospace,monospace}
.m{display:inline-block;min-width:4.2rem;font:bold 12px ui-monospace,monospace;text-align:center;border-radius:4px;padding:.1rem .3rem;color:#fff;margin-right:.5rem}
.get{background:#2f7fd0}.post{background:#2c9a58}.patch{background:#c58a12}.delete{background:#c63f3f}.put{background:#7a55c7}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #e3e3e3;padding:.2rem .5rem;text-align:left;vertical-align:top}
.muted{color:#666}
</style>
</head>
<body>
<h1>`, `</h1>
<p class="muted">Version `, `. Machine-readable: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI 3.1).
Routes marked <em>open</em> need no bearer token; the others need <code>Authorization: Bearer &lt;OS_SECURITY_KEY&gt;</code> when a key is set.</p>
`}
