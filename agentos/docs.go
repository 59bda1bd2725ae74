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

	"github.com/agno-go/agno/agentos/internal/httpapi"
)

// Reusable parameters.
var (
	pTableQ = httpapi.TableQuery
)

// tagDescriptions describe every tag a route may carry (a test checks
// that none is missing): the document's tags array is built from them.
var tagDescriptions = map[string]string{
	"Core":       "Home, health and readiness probes, configuration and models of this AgentOS.",
	"Agents":     "The agents this AgentOS serves: run them (streamed, or in the background), continue paused runs, cancel runs and resume their event streams.",
	"Teams":      "Teams of agents, run like agents: a leader model delegates to the members.",
	"Workflows":  "Workflows of steps: runs, paused steps awaiting a human, and a WebSocket for live runs.",
	"Sessions":   "Stored sessions of agents, teams and workflows, and the runs in them.",
	"Memory":     "Memories the agents keep about users: topics, per-user counts and optimization.",
	"Knowledge":  "Knowledge bases: upload and manage content, follow its processing, search it.",
	"Registry":   "Every resource wired into the agents, teams and workflows: models, tools, databases, step functions.",
	"Approvals":  "Human approvals of paused runs' tool calls (needs a database).",
	"Schedules":  "Cron schedules that run agents, teams and workflows, and their runs (needs a database).",
	"Traces":     "Traces of runs kept in the database, their spans and per-session statistics.",
	"Metrics":    "Daily usage metrics aggregated from the stored sessions (needs a database).",
	"Evals":      "Evaluation runs of agents and teams and their results (needs a database).",
	"Components": "Agents, teams and workflows stored in the database, with versioned configs.",
	"Database":   "Schema migrations of the databases.",
	"Docs":       "This OpenAPI document and its HTML views: /docs (reference with Try it forms) and /redoc (two-pane reference).",
}

// tagDescription is tag's description: the package's, or the TagDesc of
// a row carrying it (an Interface's tag).
func tagDescription(routes []apiRoute, tag string) string {
	if d := tagDescriptions[tag]; d != "" {
		return d
	}
	for _, rt := range routes {
		if rt.Tag == tag && rt.TagDesc != "" {
			return rt.TagDesc
		}
	}
	return ""
}

// docsAPIRoutes are the API documents: /openapi.json and its HTML views,
// of the routes served() lists.
func (o *OS) docsAPIRoutes(served func() []apiRoute) []apiRoute {
	list := sync.OnceValue(func() []apiRoute {
		rows := slices.Clone(served())
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Path() < rows[j].Path() })
		return rows
	})
	why := open("API documentation, open in agno")
	return []apiRoute{
		{Pattern: "GET /openapi.json", Access: why, Tag: "Docs", Summary: "This OpenAPI document", Result: "OpenAPI 3.1 document",
			Handler: func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, o.openAPI(list())) }},
		{Pattern: "GET /docs", Access: why, Tag: "Docs", Summary: "Route reference with a Try it form per route",
			Desc: "Server-rendered; a small inline script adds the forms, which call this server with fetch(). Loads nothing from other sites.", Result: "HTML page",
			Handler: func(w http.ResponseWriter, _ *http.Request) { o.writeHTML(w, docsCSP, o.docsPage(list())) }},
		{Pattern: "GET /redoc", Access: why, Tag: "Docs", Summary: "Two-pane reference of /openapi.json",
			Desc: "Rendered on the server from this document: navigation by tag, operations, parameters, bodies, responses and schemas. No script, nothing loaded from other sites.", Result: "HTML page",
			Handler: func(w http.ResponseWriter, _ *http.Request) {
				page, err := referencePage(o.openAPI(list()))
				if err != nil {
					writeError(w, http.StatusInternalServerError, err.Error())
					return
				}
				o.writeHTML(w, referenceCSP, page)
			}},
	}
}

// writeHTML answers a docs page under its Content-Security-Policy: the
// pages load nothing from other sites, and the policy makes a browser
// refuse anything else, injected markup included.
func (o *OS) writeHTML(w http.ResponseWriter, csp, page string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if _, err := io.WriteString(w, page); err != nil {
		o.log.Warn("could not write a docs page", "error", err)
	}
}

var wildcard = regexp.MustCompile(`\{[^}$]+\}`)

// open reports a route that needs no key or token.

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
		p := openAPIPath(rt.Path())
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(rt.Method())] = o.operation(rt)
		tags[rt.Tag] = true
	}
	tagList := []map[string]any{}
	for t := range tags {
		tag := map[string]any{"name": t}
		if d := tagDescription(routes, t); d != "" {
			tag["description"] = d
		}
		tagList = append(tagList, tag)
	}
	sort.Slice(tagList, func(i, j int) bool { return tagList[i]["name"].(string) < tagList[j]["name"].(string) })
	info := map[string]any{"title": o.cfg.Name, "version": o.cfg.Version}
	if o.cfg.Description != "" {
		info["description"] = o.cfg.Description
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info":    info,
		// Relative to the document's URL: the server is whatever address
		// or proxy the client reached the document through. Taken from
		// Host or X-Forwarded-*, any request could name another server.
		"servers":    []map[string]any{{"url": "/", "description": "This server"}},
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
	if rt.IsOpen() {
		op["security"] = []any{}
	}
	params := []map[string]any{}
	for _, name := range pathParams(rt.Path()) {
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
	for _, e := range o.routeErrors(rt) {
		switch {
		case e.Ref != "":
			responses[strconv.Itoa(e.Status)] = map[string]any{"$ref": "#/components/responses/" + e.Ref}
		case e.Text:
			responses[strconv.Itoa(e.Status)] = map[string]any{"description": e.Desc, "content": map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}}
		default:
			responses[strconv.Itoa(e.Status)] = map[string]any{"description": e.Desc, "content": errorContent("ErrorResponse")}
		}
	}
	op["responses"] = responses
	return op
}

// apiError is one 4xx answer a route documents: a shared response of
// components/responses (Ref), or its own description.
type apiError struct {
	Status int
	Ref    string
	Desc   string
	Text   bool // a text/plain body, not agno's {"detail"}
}

// routeErrors are the 4xx answers rt may give. Like the security
// requirement they are documented whatever the configuration; the
// descriptions of 401 and 403 say when they apply.
func (o *OS) routeErrors(rt apiRoute) []apiError {
	if rt.Status == http.StatusSwitchingProtocols {
		// The WebSocket library refuses a bad handshake itself, in text.
		return []apiError{
			{Status: http.StatusBadRequest, Desc: "Not a valid WebSocket handshake", Text: true},
			{Status: http.StatusForbidden, Ref: "ProtectedMode"},
			{Status: http.StatusUpgradeRequired, Desc: "Not a WebSocket upgrade request", Text: true},
		}
	}
	var out []apiError
	if len(rt.Form)+len(rt.JSON) > 0 || slices.ContainsFunc(rt.Query, func(p apiParam) bool { return p.Name == pTableQ.Name }) {
		out = append(out, apiError{Status: http.StatusBadRequest, Ref: "BadRequest"})
	}
	switch {
	case rt.Remote != "" && rt.IsOpen():
		// Exempt from protected mode; the signature guards it.
		out = append(out, apiError{Status: http.StatusForbidden, Desc: rt.Remote})
	case rt.IsOpen():
		out = append(out, apiError{Status: http.StatusForbidden, Ref: "ProtectedMode"})
	default:
		out = append(out, apiError{Status: http.StatusUnauthorized, Ref: "Unauthorized"}, apiError{Status: http.StatusForbidden, Ref: "Forbidden"})
	}
	if len(pathParams(rt.Path())) > 0 {
		out = append(out, apiError{Status: http.StatusNotFound, Ref: "NotFound"})
	}
	if len(rt.Query)+len(rt.Form)+len(rt.JSON) > 0 {
		out = append(out, apiError{Status: http.StatusUnprocessableEntity, Ref: "UnprocessableEntity"})
	}
	slices.SortFunc(out, func(a, b apiError) int { return a.Status - b.Status })
	return out
}

func errorContent(schema string) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + schema}}}
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
	b.WriteString(strings.ToLower(rt.Method()))
	for _, part := range strings.FieldsFunc(openAPIPath(rt.Path()), func(r rune) bool { return !isIdentRune(r) }) {
		b.WriteByte('_')
		b.WriteString(part)
	}
	if b.Len() == len(rt.Method()) {
		b.WriteString("_root")
	}
	return b.String()
}

func isIdentRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

var openAPIComponents = map[string]any{
	"securitySchemes": map[string]any{
		"HTTPBearer": map[string]any{"type": "http", "scheme": "bearer", "description": "OS_SECURITY_KEY as a bearer token, or a JWT when authorization is configured"},
	},
	// The 4xx answers routeErrors shares, with agno's bodies.
	"responses": map[string]any{
		"BadRequest":          map[string]any{"description": "A body or parameter the route cannot use: malformed form data, invalid JSON in a field, an unsupported file, table without db_id", "content": errorContent("ErrorResponse")},
		"Unauthorized":        map[string]any{"description": "Missing or invalid bearer token (when OS_SECURITY_KEY or JWT authorization is configured)", "content": errorContent("ErrorResponse")},
		"Forbidden":           map[string]any{"description": "Refused: the token lacks the route's scopes (JWT authorization), or, in protected mode (no key configured), the client is not on this machine or is a page of another site (421 when Host names another machine)", "content": errorContent("ErrorResponse")},
		"ProtectedMode":       map[string]any{"description": "Refused in protected mode (no key configured): the client is not on this machine or is a page of another site (421 when Host names another machine)", "content": errorContent("ErrorResponse")},
		"NotFound":            map[string]any{"description": "Not found", "content": errorContent("ErrorResponse")},
		"UnprocessableEntity": map[string]any{"description": "Validation error: a parameter or field is missing or invalid", "content": errorContent("HTTPValidationError")},
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

// htmlBuf builds the docs pages by hand (see docsPage on why not
// html/template): markup goes through raw, every text through esc.
type htmlBuf struct{ strings.Builder }

func (b *htmlBuf) raw(parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
}

func (b *htmlBuf) esc(parts ...string) {
	for _, p := range parts {
		b.WriteString(html.EscapeString(p))
	}
}

// docsPage renders the /docs page. It is written by hand, not with
// html/template: text/template's executor calls reflect's MethodByName,
// which makes the linker keep every exported method of every type in
// the binary (the SDKs' generated types above all): about 30 MB of binary
// and 8 MB of resident pages.
//
// The reference is plain HTML, complete without script; docsScript (an
// inline script the CSP admits by hash) shows a Try it form per route.
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

	var b htmlBuf
	b.raw(docsHead[0])
	b.esc(o.cfg.Name)
	b.raw(docsHead[1], "<style>", docsStyle, "</style>", docsHead[2])
	b.esc(o.cfg.Name)
	b.raw(docsHead[3])
	b.esc(o.cfg.Version)
	b.raw(docsHead[4])
	if o.cfg.Description != "" {
		b.raw("<p>")
		b.esc(o.cfg.Description)
		b.raw("</p>\n")
	}
	b.raw(`<form id="auth" class="auth" hidden><label>Bearer token <input id="token" type="password" autocomplete="off" spellcheck="false"></label> <span class="muted">Try it sends it with each request; it stays in this tab's sessionStorage.</span></form>` + "\n")
	b.raw(`<nav class="toc">`)
	for i, g := range groups {
		if i > 0 {
			b.raw(" · ")
		}
		b.raw(`<a href="#tag-`)
		b.esc(g.Tag)
		b.raw(`">`)
		b.esc(g.Tag)
		b.raw("</a>")
	}
	b.raw("</nav>\n")
	for _, g := range groups {
		b.raw(`<h2 id="tag-`)
		b.esc(g.Tag)
		b.raw(`">`)
		b.esc(g.Tag)
		b.raw("</h2>\n")
		if d := tagDescription(routes, g.Tag); d != "" {
			b.raw(`<p class="muted">`)
			b.esc(d)
			b.raw("</p>\n")
		}
		for _, rt := range g.Routes {
			o.writeDocsRoute(&b, rt)
		}
	}
	b.raw("<script>", docsScript, "</script>\n</body>\n</html>\n")
	return b.String()
}

func (o *OS) writeDocsRoute(b *htmlBuf, rt apiRoute) {
	method, path := rt.Method(), openAPIPath(rt.Path())
	b.raw(`<details id="`)
	b.esc(strings.ToLower(method), "-", path)
	b.raw("\">\n<summary><span class=\"m ")
	b.esc(strings.ToLower(method))
	b.raw(`">`)
	b.esc(method)
	b.raw("</span><code>")
	b.esc(path)
	b.raw("</code> — ")
	b.esc(rt.Summary)
	if rt.IsOpen() {
		b.raw(` <em class="muted">open</em>`)
	}
	b.raw("</summary>\n")
	if rt.Desc != "" {
		b.raw("<p>")
		b.esc(rt.Desc)
		b.raw("</p>\n")
	}
	for _, ps := range []struct {
		title  string
		params []apiParam
	}{{"Query parameters", rt.Query}, {"Form fields (multipart/form-data or x-www-form-urlencoded)", rt.Form}, {"JSON body", rt.JSON}} {
		if len(ps.params) > 0 {
			b.raw("<p>", ps.title, "</p>")
			writeDocsParams(b, ps.params)
			b.raw("\n")
		}
	}
	b.raw("<p>Answers: ")
	b.esc(rt.Result)
	if rt.Stream {
		b.raw(" (Server-Sent Events when streaming)")
	}
	b.raw("</p>\n")
	if errs := o.routeErrors(rt); len(errs) > 0 {
		b.raw(`<p class="muted">Errors:`)
		for i, e := range errs {
			if i > 0 {
				b.raw(";")
			}
			b.raw(" <code>", strconv.Itoa(e.Status), "</code> ")
			b.esc(e.description())
		}
		b.raw("</p>\n")
	}
	writeTryIt(b, rt)
	b.raw("</details>\n")
}

// description is the text the document gives e.
func (e apiError) description() string {
	if e.Ref == "" {
		return e.Desc
	}
	r, _ := openAPIComponents["responses"].(map[string]any)[e.Ref].(map[string]any)
	d, _ := r["description"].(string)
	return d
}

func writeDocsParams(b *htmlBuf, params []apiParam) {
	b.raw("<table><tr><th>name</th><th>type</th><th>description</th></tr>\n")
	for _, p := range params {
		b.raw("<tr><td><code>")
		b.esc(p.Name)
		b.raw("</code>")
		if p.Required {
			b.raw(" *")
		}
		b.raw("</td><td>")
		b.esc(p.Type)
		if p.Default != nil {
			b.esc(fmt.Sprintf(" = %v", p.Default))
		}
		b.raw("</td><td>")
		b.esc(p.Desc)
		if len(p.Enum) > 0 {
			b.raw(" (")
			for i, e := range p.Enum {
				if i > 0 {
					b.raw(", ")
				}
				b.raw("<code>")
				b.esc(e)
				b.raw("</code>")
			}
			b.raw(")")
		}
		b.raw("</td></tr>\n")
	}
	b.raw("</table>")
}

// docsHead is the page up to the routes, split where the title, the
// style, the title again and the version go.
var docsHead = [5]string{`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`, ` — API</title>
`, `
</head>
<body>
<h1>`, `</h1>
<p class="muted">Version `, `. Machine-readable: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI 3.1); two-pane reference: <a href="/redoc"><code>/redoc</code></a>.
Routes marked <em>open</em> need no bearer token; the others need <code>Authorization: Bearer &lt;OS_SECURITY_KEY&gt;</code> when a key is set.</p>
`}
