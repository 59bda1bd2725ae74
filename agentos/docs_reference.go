package agentos

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// referencePage renders /redoc: the OpenAPI document as a two-pane
// reference (tags and their operations on the left; operations,
// schemas and shared responses on the right). It is rendered on the
// server, by hand like docsPage, so it needs no script and loads
// nothing.
func referencePage(spec map[string]any) (string, error) {
	// Render what /openapi.json serves, its JSON, rather than the Go
	// values that build it (maps, []string, []map[string]any, ints).
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", err
	}
	r := refRenderer{doc: doc}
	r.page()
	return r.b.String(), nil
}

// referenceCSP admits the page's one inline style and nothing else: the
// page has no script.
var referenceCSP = "default-src 'none'; style-src " + cspHash(referenceStyle) +
	"; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type refRenderer struct {
	doc map[string]any
	b   htmlBuf
}

type refOp struct {
	method, path string
	spec         map[string]any
}

type refTag struct {
	name, desc string
	ops        []refOp
}

func jsonObj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func jsonList(v any) []any         { l, _ := v.([]any); return l }
func jsonStr(v any) string         { s, _ := v.(string); return s }

// sortedKeys are m's keys in order: JSON objects lose theirs.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var methodOrder = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func methodRank(m string) int {
	if i := slices.Index(methodOrder, m); i >= 0 {
		return i
	}
	return len(methodOrder)
}

// resolve follows a local $ref ("#/components/responses/NotFound"); a
// value without one is itself.
func (r *refRenderer) resolve(v map[string]any) map[string]any {
	for range 8 { // a cycle of refs ends somewhere
		ref, ok := v["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return v
		}
		var cur any = r.doc
		for _, seg := range strings.Split(ref[2:], "/") {
			seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
			cur = jsonObj(cur)[seg]
		}
		if jsonObj(cur) == nil {
			return v
		}
		v = jsonObj(cur)
	}
	return v
}

// refName is the last segment of a $ref.
func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// tags groups the operations by their first tag, in the order of the
// document's tags array, then any tag it does not list.
func (r *refRenderer) tags() []refTag {
	byTag := map[string][]refOp{}
	paths := jsonObj(r.doc["paths"])
	for _, path := range sortedKeys(paths) {
		item := jsonObj(paths[path])
		for _, method := range sortedKeys(item) {
			op := jsonObj(item[method])
			if op == nil {
				continue // a path item's parameters or summary
			}
			tag := "Other"
			if t := jsonList(op["tags"]); len(t) > 0 {
				tag = jsonStr(t[0])
			}
			byTag[tag] = append(byTag[tag], refOp{method: strings.ToUpper(method), path: path, spec: op})
		}
	}
	var out []refTag
	for _, t := range jsonList(r.doc["tags"]) {
		name := jsonStr(jsonObj(t)["name"])
		if ops, ok := byTag[name]; ok {
			out = append(out, refTag{name: name, desc: jsonStr(jsonObj(t)["description"]), ops: ops})
			delete(byTag, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byTag)) {
		out = append(out, refTag{name: name, ops: byTag[name]})
	}
	for _, t := range out {
		slices.SortStableFunc(t.ops, func(a, b refOp) int {
			return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(methodRank(a.method), methodRank(b.method)))
		})
	}
	return out
}

func (r *refRenderer) page() {
	b := &r.b
	info := jsonObj(r.doc["info"])
	title := jsonStr(info["title"])
	tags := r.tags()
	comps := jsonObj(r.doc["components"])
	schemas, responses := jsonObj(comps["schemas"]), jsonObj(comps["responses"])

	b.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.esc(title)
	b.raw(" — API reference</title>\n<style>", referenceStyle, "</style>\n</head>\n<body>\n")

	// Left pane: navigation, collapsible per tag without script.
	b.raw(`<nav class="side" aria-label="Operations">` + "\n" + `<p class="brand"><a href="#top">`)
	b.esc(title)
	b.raw(`</a> <span class="muted">`)
	b.esc(jsonStr(info["version"]))
	b.raw(`</span></p>` + "\n" + `<p><a href="/docs">/docs</a> (Try it) · <a href="/openapi.json">openapi.json</a></p>` + "\n")
	for _, t := range tags {
		b.raw(`<details open><summary><a href="#tag-`)
		b.esc(t.name)
		b.raw(`">`)
		b.esc(t.name)
		b.raw("</a></summary>\n<ul>\n")
		for _, op := range t.ops {
			b.raw(`<li><a href="#op-`)
			b.esc(jsonStr(op.spec["operationId"]))
			b.raw(`"><span class="m `)
			b.esc(strings.ToLower(op.method))
			b.raw(`">`)
			b.esc(op.method)
			b.raw("</span>")
			b.esc(cmp.Or(jsonStr(op.spec["summary"]), op.path))
			b.raw("</a></li>\n")
		}
		b.raw("</ul></details>\n")
	}
	for _, sec := range []struct {
		id, title, prefix string
		m                 map[string]any
	}{{"schemas", "Schemas", "schema-", schemas}, {"responses", "Responses", "response-", responses}} {
		if len(sec.m) == 0 {
			continue
		}
		b.raw(`<details><summary><a href="#`, sec.id, `">`, sec.title, "</a></summary>\n<ul>\n")
		for _, name := range sortedKeys(sec.m) {
			b.raw(`<li><a href="#`, sec.prefix)
			b.esc(name)
			b.raw(`">`)
			b.esc(name)
			b.raw("</a></li>\n")
		}
		b.raw("</ul></details>\n")
	}
	b.raw("</nav>\n<main>\n")

	// Right pane.
	b.raw(`<header id="top"><h1>`)
	b.esc(title)
	b.raw(`</h1><p class="muted">Version `)
	b.esc(jsonStr(info["version"]))
	b.raw(" · OpenAPI ")
	b.esc(jsonStr(r.doc["openapi"]))
	b.raw("</p>\n")
	if d := jsonStr(info["description"]); d != "" {
		b.raw("<p>")
		b.esc(d)
		b.raw("</p>\n")
	}
	for _, s := range jsonList(r.doc["servers"]) {
		b.raw("<p>Server: <code>")
		b.esc(jsonStr(jsonObj(s)["url"]))
		b.raw("</code> ")
		b.esc(jsonStr(jsonObj(s)["description"]))
		b.raw("</p>\n")
	}
	schemes := jsonObj(comps["securitySchemes"])
	for _, name := range sortedKeys(schemes) {
		s := jsonObj(schemes[name])
		b.raw("<p>Authentication <b>")
		b.esc(name)
		b.raw("</b> (")
		b.esc(jsonStr(s["type"]), " ", jsonStr(s["scheme"]))
		b.raw("): ")
		b.esc(jsonStr(s["description"]))
		b.raw(". Operations marked <em>open</em> need none.</p>\n")
	}
	b.raw("</header>\n")

	for _, t := range tags {
		b.raw(`<section id="tag-`)
		b.esc(t.name)
		b.raw(`"><h2>`)
		b.esc(t.name)
		b.raw("</h2>\n")
		if t.desc != "" {
			b.raw("<p>")
			b.esc(t.desc)
			b.raw("</p>\n")
		}
		for _, op := range t.ops {
			r.operation(op)
		}
		b.raw("</section>\n")
	}

	if len(schemas) > 0 {
		b.raw(`<section id="schemas"><h2>Schemas</h2>` + "\n")
		for _, name := range sortedKeys(schemas) {
			s := jsonObj(schemas[name])
			r.component("schema-", name, jsonStr(s["description"]), func() { r.schemaBlock(s, 0) })
		}
		b.raw("</section>\n")
	}
	if len(responses) > 0 {
		b.raw(`<section id="responses"><h2>Responses</h2>` + "\n")
		for _, name := range sortedKeys(responses) {
			resp := jsonObj(responses[name])
			r.component("response-", name, jsonStr(resp["description"]), func() { r.content(jsonObj(resp["content"])) })
		}
		b.raw("</section>\n")
	}
	b.raw("</main>\n</body>\n</html>\n")
}

func (r *refRenderer) operation(op refOp) {
	b := &r.b
	id := jsonStr(op.spec["operationId"])
	b.raw(`<article class="op" id="op-`)
	b.esc(id)
	b.raw(`"><h3><span class="m `)
	b.esc(strings.ToLower(op.method))
	b.raw(`">`)
	b.esc(op.method)
	b.raw("</span><code>")
	b.esc(op.path)
	b.raw("</code></h3>\n<p class=\"sum\">")
	b.esc(jsonStr(op.spec["summary"]))
	// An empty security list opens the operation; none at all takes the
	// document's.
	sec, own := op.spec["security"]
	if own && len(jsonList(sec)) == 0 {
		b.raw(` <em class="open">open</em>`)
	}
	b.raw("</p>\n")
	if d := jsonStr(op.spec["description"]); d != "" {
		b.raw("<p>")
		b.esc(d)
		b.raw("</p>\n")
	}
	b.raw(`<p class="muted">operationId <code>`)
	b.esc(id)
	b.raw("</code></p>\n")

	if params := jsonList(op.spec["parameters"]); len(params) > 0 {
		b.raw("<h4>Parameters</h4>\n<table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>\n")
		for _, p := range params {
			p := r.resolve(jsonObj(p))
			b.raw("<tr><td><code>")
			b.esc(jsonStr(p["name"]))
			b.raw("</code>")
			if p["required"] == true {
				b.raw(` <span class="req">required</span>`)
			}
			b.raw("</td><td>")
			b.esc(jsonStr(p["in"]))
			b.raw("</td><td>")
			s := jsonObj(p["schema"])
			r.schemaType(s)
			r.constraints(s)
			b.raw("</td><td>")
			b.esc(jsonStr(p["description"]))
			b.raw("</td></tr>\n")
		}
		b.raw("</table>\n")
	}
	if rb := r.resolve(jsonObj(op.spec["requestBody"])); rb != nil {
		b.raw("<h4>Request body")
		if rb["required"] == true {
			b.raw(` <span class="req">required</span>`)
		}
		b.raw("</h4>\n")
		if d := jsonStr(rb["description"]); d != "" {
			b.raw("<p>")
			b.esc(d)
			b.raw("</p>\n")
		}
		r.content(jsonObj(rb["content"]))
	}
	if resps := jsonObj(op.spec["responses"]); len(resps) > 0 {
		b.raw("<h4>Responses</h4>\n")
		for _, code := range sortedKeys(resps) {
			raw := jsonObj(resps[code])
			resp := r.resolve(raw)
			b.raw(`<div class="resp"><p><span class="code c`)
			b.esc(code[:1])
			b.raw(`">`)
			b.esc(code)
			b.raw("</span> ")
			b.esc(jsonStr(resp["description"]))
			if ref := jsonStr(raw["$ref"]); ref != "" {
				b.raw(` <a class="muted" href="#response-`)
				b.esc(refName(ref))
				b.raw(`">`)
				b.esc(refName(ref))
				b.raw("</a>")
			}
			b.raw("</p>\n")
			r.content(jsonObj(resp["content"]))
			b.raw("</div>\n")
		}
	}
	b.raw("</article>\n")
}

// content writes a content map, once per distinct schema: a form body
// has the same schema for multipart and urlencoded.
func (r *refRenderer) content(c map[string]any) {
	type group struct {
		types  []string
		schema map[string]any
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, ct := range sortedKeys(c) {
		s := jsonObj(jsonObj(c[ct])["schema"])
		k, _ := json.Marshal(s)
		g := byKey[string(k)]
		if g == nil {
			g = &group{schema: s}
			byKey[string(k)] = g
			groups = append(groups, g)
		}
		g.types = append(g.types, ct)
	}
	for _, g := range groups {
		r.b.raw(`<p class="ct">`)
		r.b.esc(strings.Join(g.types, ", "))
		r.b.raw("</p>\n")
		if len(g.schema) > 0 {
			r.schemaBlock(g.schema, 0)
		}
	}
}

// schemaType writes s's type inline, a $ref as a link to its schema.
func (r *refRenderer) schemaType(s map[string]any) {
	b := &r.b
	if ref := jsonStr(s["$ref"]); ref != "" {
		b.raw(`<a href="#schema-`)
		b.esc(refName(ref))
		b.raw(`"><code>`)
		b.esc(refName(ref))
		b.raw("</code></a>")
		return
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts := jsonList(s[k]); len(alts) > 0 {
			sep := " | "
			if k == "allOf" {
				sep = " & "
			}
			for i, a := range alts {
				if i > 0 {
					b.raw(sep)
				}
				r.schemaType(jsonObj(a))
			}
			return
		}
	}
	var types []string
	if t := jsonStr(s["type"]); t != "" {
		types = []string{t}
	}
	for _, t := range jsonList(s["type"]) { // 3.1: ["string", "null"]
		types = append(types, jsonStr(t))
	}
	switch {
	case len(types) == 0:
		b.raw("any")
	case len(types) == 1 && types[0] == "array":
		b.raw("array of ")
		if items := jsonObj(s["items"]); items != nil {
			r.schemaType(items)
		} else {
			b.raw("any")
		}
	default:
		b.esc(strings.Join(types, " | "))
	}
	if f := jsonStr(s["format"]); f != "" {
		b.raw(" (")
		b.esc(f)
		b.raw(")")
	}
}

// constraints writes s's default, enum and bounds after its type.
func (r *refRenderer) constraints(s map[string]any) {
	var parts []string
	if v, ok := s["default"]; ok {
		j, _ := json.Marshal(v)
		parts = append(parts, "default "+string(j))
	}
	if e := jsonList(s["enum"]); len(e) > 0 {
		vals := make([]string, len(e))
		for i, v := range e {
			j, _ := json.Marshal(v)
			vals[i] = string(j)
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	for _, c := range []struct{ key, op string }{{"minimum", "≥ "}, {"maximum", "≤ "}, {"minLength", "length ≥ "}, {"maxLength", "length ≤ "}} {
		if v, ok := s[c.key].(float64); ok {
			parts = append(parts, c.op+strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	if len(parts) > 0 {
		r.b.raw(` <span class="muted">`)
		r.b.esc(strings.Join(parts, "; "))
		r.b.raw("</span>")
	}
}

// maxSchemaDepth bounds nested property tables.
const maxSchemaDepth = 3

// schemaBlock writes s as a table of its properties, nested ones
// inside, or as its type when it has none.
func (r *refRenderer) schemaBlock(s map[string]any, depth int) {
	b := &r.b
	if jsonStr(s["type"]) == "array" && depth < maxSchemaDepth {
		if items := jsonObj(s["items"]); len(jsonObj(items["properties"])) > 0 {
			b.raw(`<p class="schema">array of:</p>` + "\n")
			r.schemaBlock(items, depth+1)
			return
		}
	}
	props := jsonObj(s["properties"])
	if len(props) == 0 || depth >= maxSchemaDepth {
		b.raw(`<p class="schema">`)
		r.schemaType(s)
		r.constraints(s)
		b.raw("</p>\n")
		return
	}
	var required []string
	for _, v := range jsonList(s["required"]) {
		required = append(required, jsonStr(v))
	}
	// Required fields first, in the document's order, then the others.
	names := slices.Clone(required)
	for _, k := range sortedKeys(props) {
		if !slices.Contains(required, k) {
			names = append(names, k)
		}
	}
	b.raw("<table><tr><th>field</th><th>type</th><th>description</th></tr>\n")
	for _, name := range names {
		p := jsonObj(props[name])
		if p == nil {
			continue
		}
		b.raw("<tr><td><code>")
		b.esc(name)
		b.raw("</code>")
		if slices.Contains(required, name) {
			b.raw(` <span class="req">required</span>`)
		}
		b.raw("</td><td>")
		r.schemaType(p)
		r.constraints(p)
		b.raw("</td><td>")
		b.esc(jsonStr(p["description"]))
		nested := p
		if jsonStr(p["type"]) == "array" {
			nested = jsonObj(p["items"])
		}
		if len(jsonObj(nested["properties"])) > 0 && depth+1 < maxSchemaDepth {
			r.schemaBlock(nested, depth+1)
		}
		b.raw("</td></tr>\n")
	}
	b.raw("</table>\n")
}

const referenceStyle = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1c1c1c;display:grid;grid-template-columns:19rem minmax(0,1fr)}
a{color:#1f5fa8}
.side{position:sticky;top:0;height:100vh;overflow:auto;background:#f4f5f7;border-right:1px solid #ddd;padding:1rem .8rem;font-size:14px}
.side .brand{font-weight:bold;font-size:16px;margin-top:0}
.side summary{font-weight:bold;cursor:pointer;margin-top:.4rem}
.side summary a{color:inherit;text-decoration:none}
.side ul{list-style:none;margin:.2rem 0 .4rem;padding:0}
.side li a{display:block;padding:.1rem .3rem;border-radius:4px;color:#1c1c1c;text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.side li a:hover{background:#e4e7ec}
.side .m{min-width:3.4rem;font-size:10px;margin-right:.4rem}
main{padding:1.5rem 2rem;max-width:72rem}
h1{margin:.2rem 0}
h2{border-bottom:2px solid #ddd;margin-top:2.5rem}
h3{margin:.2rem 0}
h4{margin:.8rem 0 .3rem}
.op{border-top:1px solid #e3e3e3;padding:.8rem 0}
.op:target{background:#fffbe6}
.sum{font-weight:600;margin:.3rem 0}
code{font:13px ui-monospace,monospace}
.m{display:inline-block;min-width:4.2rem;font:bold 12px ui-monospace,monospace;text-align:center;border-radius:4px;padding:.1rem .3rem;color:#fff;margin-right:.5rem}
.get{background:#2f7fd0}.post{background:#2c9a58}.patch{background:#c58a12}.delete{background:#c63f3f}.put{background:#7a55c7}
table{border-collapse:collapse;margin:.3rem 0;width:100%}
td,th{border:1px solid #e3e3e3;padding:.2rem .5rem;text-align:left;vertical-align:top}
td table{margin-top:.3rem}
.resp{margin:.3rem 0 .6rem}
.resp>p{margin:.2rem 0}
.code{display:inline-block;min-width:2.8rem;font:bold 12px ui-monospace,monospace;border-radius:4px;padding:0 .3rem;text-align:center;color:#fff;background:#6b7280}
.c2{background:#2c9a58}.c4{background:#c58a12}.c5{background:#c63f3f}
.ct{font:12px ui-monospace,monospace;color:#555;margin:.2rem 0}
.schema{margin:.2rem 0}
.muted{color:#666}.req{color:#c63f3f;font-size:12px}.open{color:#2c9a58}
@media (max-width:800px){body{display:block}.side{position:static;height:auto}main{padding:1rem}}
`

// component writes one entry of the components sections: its anchor
// (prefix+name), heading, description and body.
func (r *refRenderer) component(prefix, name, desc string, body func()) {
	b := &r.b
	b.raw(`<article class="op" id="` + prefix)
	b.esc(name)
	b.raw(`"><h3>`)
	b.esc(name)
	b.raw("</h3>\n")
	if desc != "" {
		b.raw("<p>")
		b.esc(desc)
		b.raw("</p>\n")
	}
	body()
	b.raw("</article>\n")
}
