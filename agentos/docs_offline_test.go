package agentos

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agno-go/agno/agent"
)

// fullDocsOS serves every interface too, so its documents hold the
// Slack, MCP, A2A and AG-UI routes.
func fullDocsOS(t *testing.T) *OS {
	t.Helper()
	o, err := New(Config{Name: "Docs OS", Agents: []*agent.Agent{newAgent(t, agent.Config{ID: "helper", Name: "Helper"})},
		Interfaces: extraInterfaces("helper")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// allRoutes is every route AgentOS documents for o, served or not (the
// knowledge and control-plane routes need a DB to be served).
func allRoutes(o *OS) []apiRoute {
	return append(slices.Clone(apiRoutes), o.interfaceAPIRoutes()...)
}

// fullOpenAPI is o's document of allRoutes, as JSON.
func fullOpenAPI(t *testing.T, o *OS) map[string]any {
	t.Helper()
	raw, err := json.Marshal(o.openAPI(allRoutes(o)))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

type docOp struct {
	method, path string
	op           map[string]any
}

func docOps(doc map[string]any) []docOp {
	var out []docOp
	for path, item := range jsonObj(doc["paths"]) {
		for method, op := range jsonObj(item) {
			out = append(out, docOp{strings.ToUpper(method), path, jsonObj(op)})
		}
	}
	slices.SortFunc(out, func(a, b docOp) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	return out
}

func parseHTML(t *testing.T, page string) *html.Node {
	t.Helper()
	n, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// urlAttrs are the attributes a browser fetches or navigates to.
var urlAttrs = []string{"href", "src", "srcset", "action", "formaction", "poster", "data", "background", "cite", "longdesc", "manifest", "ping", "icon", "xlink:href", "imagesrcset"}

// onOrigin reports a URL reference that stays on the page's origin: a
// path or a fragment, no scheme (data: and javascript: included) and no
// host.
func onOrigin(ref string) bool {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, "//") || strings.HasPrefix(ref, `\`) || strings.HasPrefix(ref, "/\\") {
		return false
	}
	u, err := url.Parse(ref)
	return err == nil && u.Scheme == "" && u.Host == "" && u.Opaque == ""
}

// offOrigin lists what in page would reach beyond its origin, or what
// its CSP would silently block (style and event handler attributes).
func offOrigin(t *testing.T, page string) []string {
	t.Helper()
	var bad []string
	walk(parseHTML(t, page), func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			switch {
			case slices.Contains(urlAttrs, a.Key) && !onOrigin(a.Val):
				bad = append(bad, n.Data+" "+a.Key+"="+a.Val)
			case a.Key == "style" || strings.HasPrefix(a.Key, "on"):
				bad = append(bad, n.Data+" has an inline "+a.Key+" attribute")
			}
		}
		switch n.Data {
		case "base", "iframe", "frame", "object", "embed", "link", "img", "video", "audio", "source", "meta":
			if _, ok := attr(n, "charset"); n.Data == "meta" && ok {
				break
			}
			if name, _ := attr(n, "name"); n.Data == "meta" && name == "viewport" {
				break
			}
			bad = append(bad, "<"+n.Data+"> element")
		case "style":
			css := strings.ToLower(text(n))
			for _, s := range []string{"url(", "@import", "@font-face", "image-set("} {
				if strings.Contains(css, s) {
					bad = append(bad, "style uses "+s)
				}
			}
		case "script":
			if _, ok := attr(n, "src"); ok {
				bad = append(bad, "script with src")
			}
			js := text(n)
			for _, s := range []string{"http:", "https:", "ws:", "wss:", `"//`, `'//`, "`//", "import(", "importScripts", "eval(", "new Function", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"} {
				if strings.Contains(js, s) {
					bad = append(bad, "script uses "+s)
				}
			}
		}
	})
	return bad
}

// checkCSP checks that csp admits only this origin and exactly the
// page's inline scripts and styles, by hash.
func checkCSP(t *testing.T, where, csp, page string) {
	t.Helper()
	if csp == "" {
		t.Errorf("%s: no Content-Security-Policy header", where)
		return
	}
	dirs := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		dirs[f[0]] = f[1:]
		for _, src := range f[1:] {
			if src != "'self'" && src != "'none'" && !strings.HasPrefix(src, "'sha256-") {
				t.Errorf("%s: CSP %s allows %s", where, f[0], src)
			}
		}
	}
	if !slices.Equal(dirs["default-src"], []string{"'none'"}) {
		t.Errorf("%s: default-src %v, want 'none'", where, dirs["default-src"])
	}
	for _, d := range []string{"base-uri", "frame-ancestors", "form-action"} {
		if _, ok := dirs[d]; !ok {
			t.Errorf("%s: CSP lacks %s (default-src does not cover it)", where, d)
		}
	}
	walk(parseHTML(t, page), func(n *html.Node) {
		if n.Type != html.ElementNode || (n.Data != "script" && n.Data != "style") {
			return
		}
		sum := sha256.Sum256([]byte(text(n)))
		hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !slices.Contains(dirs[n.Data+"-src"], hash) {
			t.Errorf("%s: CSP %s-src %v does not admit the page's inline %s (%s)", where, n.Data, dirs[n.Data+"-src"], n.Data, hash)
		}
	})
}

// Both pages render with no network: nothing from another origin, and a
// CSP that would refuse it.
func TestDocsPagesAreOffline(t *testing.T) {
	for name, o := range map[string]*OS{"docsOS": docsOS(t), "fullDocsOS": fullDocsOS(t)} {
		h := o.Handler()
		for _, path := range []string{"/docs", "/redoc"} {
			where := name + " " + path
			rec := getLocal(t, h, path)
			if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Fatalf("%s = %d %s", where, rec.Code, rec.Header().Get("Content-Type"))
			}
			page := rec.Body.String()
			for _, bad := range offOrigin(t, page) {
				t.Errorf("%s: %s", where, bad)
			}
			checkCSP(t, where, rec.Header().Get("Content-Security-Policy"), page)
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no X-Content-Type-Options: nosniff", where)
			}
		}
	}
}

// The offline check itself catches what it is for.
func TestDocsOfflineCheckCatches(t *testing.T) {
	for _, page := range []string{
		`<link rel="stylesheet" href="https://fonts.example/css">`,
		`<script src="//cdn.example/x.js"></script>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<style>body{background:url(/x.png)}</style>`,
		`<style>@import "y.css";</style>`,
		`<script>fetch("https://example.com")</script>`,
		`<img src="/favicon.png">`,
		`<p style="color:red">x</p>`,
		`<button onclick="go()">x</button>`,
	} {
		if len(offOrigin(t, page)) == 0 {
			t.Errorf("offOrigin misses %s", page)
		}
	}
	if bad := offOrigin(t, `<meta charset="utf-8"><a href="/openapi.json">x</a><a href="#op-x">y</a><script>fetch("/agents")</script>`); len(bad) > 0 {
		t.Errorf("offOrigin flags same-origin references: %v", bad)
	}
}

// docsPageElements indexes /docs: the details of each route by id, and
// its Try it form.
func docsPageElements(t *testing.T, page string) (details map[string]*html.Node, forms map[string]*html.Node) {
	t.Helper()
	details, forms = map[string]*html.Node{}, map[string]*html.Node{}
	walk(parseHTML(t, page), func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if id, ok := attr(n, "id"); ok && n.Data == "details" {
			details[id] = n
		}
		if class, _ := attr(n, "class"); n.Data == "form" && class == "tryit" {
			m, _ := attr(n, "data-method")
			p, _ := attr(n, "data-path")
			forms[m+" "+p] = n
		}
	})
	return details, forms
}

// Every operation of the document is on both pages: a details element
// and a Try it form on /docs, an article and a navigation link on
// /redoc.
func TestDocsPagesListEveryOperation(t *testing.T) {
	o := fullDocsOS(t)
	h := o.Handler()
	check := func(where string, doc map[string]any, docsHTML, redocHTML string) {
		ops := docOps(doc)
		if len(ops) < 30 {
			t.Fatalf("%s: %d operations", where, len(ops))
		}
		details, forms := docsPageElements(t, docsHTML)
		articles, links := map[string]bool{}, map[string]bool{}
		walk(parseHTML(t, redocHTML), func(n *html.Node) {
			if id, ok := attr(n, "id"); ok && n.Data == "article" {
				articles[id] = true
			}
			if href, ok := attr(n, "href"); ok && n.Data == "a" {
				links[href] = true
			}
		})
		for _, op := range ops {
			key := strings.ToLower(op.method) + "-" + op.path
			if details[key] == nil {
				t.Errorf("%s /docs lacks %s %s", where, op.method, op.path)
			}
			if _, ws := jsonObj(op.op["responses"])["101"]; !ws && forms[op.method+" "+op.path] == nil {
				t.Errorf("%s /docs has no Try it form for %s %s", where, op.method, op.path)
			}
			id := "op-" + op.op["operationId"].(string)
			if !articles[id] || !links["#"+id] {
				t.Errorf("%s /redoc lacks %s %s (article %v, link %v)", where, op.method, op.path, articles[id], links["#"+id])
			}
		}
		for name := range jsonObj(jsonObj(doc["components"])["schemas"]) {
			if !articles["schema-"+name] {
				t.Errorf("%s /redoc lacks schema %s", where, name)
			}
		}
	}
	// What the server serves...
	var served map[string]any
	if err := json.Unmarshal(getLocal(t, h, "/openapi.json").Body.Bytes(), &served); err != nil {
		t.Fatal(err)
	}
	check("served", served, getLocal(t, h, "/docs").Body.String(), getLocal(t, h, "/redoc").Body.String())
	// ...and every route it may document (knowledge, control plane).
	full := fullOpenAPI(t, o)
	redoc, err := referencePage(o.openAPI(allRoutes(o)))
	if err != nil {
		t.Fatal(err)
	}
	check("all routes", full, o.docsPage(allRoutes(o)), redoc)
}

// The Try it forms carry every documented parameter where it goes, and
// the explorer script is on the page; without script the forms stay
// hidden and the reference is whole.
func TestDocsExplorerForms(t *testing.T) {
	o := fullDocsOS(t)
	page := o.docsPage(allRoutes(o))
	details, forms := docsPageElements(t, page)
	var scripts []string
	walk(parseHTML(t, page), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "script" {
			scripts = append(scripts, text(n))
		}
	})
	if len(scripts) != 1 {
		t.Fatalf("/docs has %d scripts, want the explorer's one", len(scripts))
	}
	for _, want := range []string{"fetch(", "sessionStorage", "Authorization", "Bearer ", "text/event-stream", "getReader", "textContent", "application/json", "FormData"} {
		if !strings.Contains(scripts[0], want) {
			t.Errorf("explorer script lacks %q", want)
		}
	}
	if !strings.Contains(page, `id="token" type="password"`) {
		t.Error("/docs has no bearer token field")
	}
	fieldsOf := func(form *html.Node) map[string]*html.Node {
		out := map[string]*html.Node{}
		walk(form, func(n *html.Node) {
			in, ok := attr(n, "data-in")
			name, _ := attr(n, "name")
			if ok {
				out[in+":"+name] = n
			}
		})
		return out
	}
	for _, rt := range allRoutes(o) {
		method, path := rt.Method(), openAPIPath(rt.Path())
		d := details[strings.ToLower(method)+"-"+path]
		if d == nil {
			t.Errorf("no details for %s", rt.Pattern)
			continue
		}
		if !strings.Contains(text(d), "Answers: ") || !strings.Contains(text(d), rt.Summary) {
			t.Errorf("%s: the reference text is not in the page", rt.Pattern)
		}
		if rt.Status == http.StatusSwitchingProtocols {
			continue
		}
		form := forms[method+" "+path]
		if form == nil {
			t.Errorf("no Try it form for %s", rt.Pattern)
			continue
		}
		if _, hidden := attr(form, "hidden"); !hidden {
			t.Errorf("%s: the form shows without script", rt.Pattern)
		}
		got := fieldsOf(form)
		var want []string
		for _, p := range pathParams(rt.Path()) {
			want = append(want, "path:"+p)
			if _, req := attr(got["path:"+p], "required"); got["path:"+p] != nil && !req {
				t.Errorf("%s: path parameter %s not required", rt.Pattern, p)
			}
		}
		for in, ps := range map[string][]apiParam{"query": rt.Query, "form": rt.Form, "json": rt.JSON} {
			for _, p := range ps {
				want = append(want, in+":"+p.Name)
				if n := got[in+":"+p.Name]; n != nil && len(p.Enum) > 0 {
					var opts []string
					walk(n, func(c *html.Node) {
						if v, ok := attr(c, "value"); ok && c.Data == "option" && v != "" {
							opts = append(opts, v)
						}
					})
					if !slices.Equal(opts, p.Enum) {
						t.Errorf("%s: %s options %v, want %v", rt.Pattern, p.Name, opts, p.Enum)
					}
				}
			}
		}
		for _, w := range want {
			if got[w] == nil {
				t.Errorf("%s: Try it lacks field %s", rt.Pattern, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: Try it has fields %v, want %v", rt.Pattern, slices.Sorted(maps.Keys(got)), want)
		}
	}
	// The run form uploads files as files.
	if f := fieldsOf(forms["POST /agents/{agent_id}/runs"])["form:files"]; f == nil || f.Data != "input" || !strings.Contains(renderNode(f), `type="file"`) {
		t.Errorf("run form files field: %v", f)
	}
}

func renderNode(n *html.Node) string {
	var b strings.Builder
	_ = html.Render(&b, n)
	return b.String()
}

// A name or description with markup stays text on both pages.
func TestDocsPagesEscape(t *testing.T) {
	o, err := New(Config{Name: `<script>alert(1)</script>`, Description: `"><img src=x onerror=alert(2)>`, Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a"})}})
	if err != nil {
		t.Fatal(err)
	}
	h := o.Handler()
	for path, scripts := range map[string]int{"/docs": 1, "/redoc": 0} {
		page := getLocal(t, h, path).Body.String()
		if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img") {
			t.Errorf("%s: markup of the config is not escaped", path)
		}
		n := 0
		walk(parseHTML(t, page), func(c *html.Node) {
			if c.Type == html.ElementNode && (c.Data == "script" || c.Data == "img") {
				n++
			}
		})
		if n != scripts {
			t.Errorf("%s: %d script or img elements, want %d", path, n, scripts)
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: the escaped name is not on the page", path)
		}
	}
}

// The document names its server, describes its tags and gives every
// operation a 4xx answer with agno's error body.
func TestOpenAPIServersTagsAndErrors(t *testing.T) {
	o := fullDocsOS(t)
	var served map[string]any
	if err := json.Unmarshal(getLocal(t, o.Handler(), "/openapi.json").Body.Bytes(), &served); err != nil {
		t.Fatal(err)
	}
	for where, doc := range map[string]map[string]any{"served": served, "all routes": fullOpenAPI(t, o)} {
		servers := jsonList(doc["servers"])
		if len(servers) != 1 || jsonObj(servers[0])["url"] != "/" {
			t.Errorf("%s: servers %v, want one relative \"/\"", where, servers)
		}
		described := map[string]bool{}
		for _, tag := range jsonList(doc["tags"]) {
			name, _ := jsonObj(tag)["name"].(string)
			if d, _ := jsonObj(tag)["description"].(string); d == "" {
				t.Errorf("%s: tag %s has no description", where, name)
			}
			described[name] = true
		}
		comps := jsonObj(doc["components"])
		responses := jsonObj(comps["responses"])
		ids := map[string]bool{}
		for _, op := range docOps(doc) {
			at := where + ": " + op.method + " " + op.path
			id, _ := op.op["operationId"].(string)
			if ids[id] {
				t.Errorf("%s: operationId %s used twice", at, id)
			}
			ids[id] = true
			for _, tag := range jsonList(op.op["tags"]) {
				if !described[tag.(string)] {
					t.Errorf("%s: tag %v not in the tags array", at, tag)
				}
			}
			resps := jsonObj(op.op["responses"])
			var codes []int
			for code, r := range resps {
				c, err := strconv.Atoi(code)
				if err != nil {
					t.Errorf("%s: response %q", at, code)
					continue
				}
				codes = append(codes, c)
				if c < 400 || c >= 500 {
					continue
				}
				r := jsonObj(r)
				if ref, ok := r["$ref"].(string); ok {
					name, ok := strings.CutPrefix(ref, "#/components/responses/")
					if !ok || responses[name] == nil {
						t.Errorf("%s: %d $ref %s does not resolve", at, c, ref)
						continue
					}
					r = jsonObj(responses[name])
				}
				if d, _ := r["description"].(string); d == "" {
					t.Errorf("%s: %d has no description", at, c)
				}
				if js := jsonObj(jsonObj(r["content"])["application/json"]); js != nil {
					ref := jsonObj(js["schema"])["$ref"]
					if want := "#/components/schemas/ErrorResponse"; c == 422 {
						want = "#/components/schemas/HTTPValidationError"
						if ref != want {
							t.Errorf("%s: 422 body %v, want %s", at, ref, want)
						}
					} else if ref != want {
						t.Errorf("%s: %d body %v, want agno's {detail} (%s)", at, c, ref, want)
					}
				}
			}
			if !slices.ContainsFunc(codes, func(c int) bool { return c >= 400 && c < 500 }) {
				t.Errorf("%s: no 4xx response (%v)", at, codes)
			}
			secured := op.op["security"] == nil
			if secured != slices.Contains(codes, 401) {
				t.Errorf("%s: secured %v but 401 documented %v", at, secured, slices.Contains(codes, 401))
			}
			if strings.Contains(op.path, "{") && !slices.Contains(codes, 404) {
				t.Errorf("%s: path parameters but no 404", at)
			}
			query := slices.ContainsFunc(jsonList(op.op["parameters"]), func(p any) bool { return jsonObj(p)["in"] == "query" })
			if (query || op.op["requestBody"] != nil) && !slices.Contains(codes, 422) {
				t.Errorf("%s: query parameters or a body but no 422", at)
			}
			if op.op["requestBody"] != nil && !slices.Contains(codes, 400) {
				t.Errorf("%s: a body but no 400", at)
			}
		}
		errSchema := jsonObj(jsonObj(comps["schemas"])["ErrorResponse"])
		if props := jsonObj(errSchema["properties"]); jsonObj(props["detail"])["type"] != "string" || !slices.Equal(jsonList(errSchema["required"]), []any{"detail"}) {
			t.Errorf("%s: ErrorResponse %v, want agno's {detail: string}", where, errSchema)
		}
	}
}

// Every tag a route may carry has a description, so a new tag cannot be
// served without one.
func TestOpenAPITagDescriptionsCoverEveryRoute(t *testing.T) {
	o := fullDocsOS(t)
	tags := map[string]bool{}
	for _, rt := range allRoutes(o) {
		tags[rt.Tag] = true
		if tagDescription(allRoutes(o), rt.Tag) == "" {
			t.Errorf("%s: tag %q has no entry in tagDescriptions nor a row's TagDesc", rt.Pattern, rt.Tag)
		}
	}
	for _, want := range []string{"Slack", "MCP", "A2A", "AGUI", "Knowledge", "Components"} {
		if !tags[want] {
			t.Errorf("no route tagged %s: fullDocsOS misses an interface or feature", want)
		}
	}
	for tag := range tagDescriptions {
		if !tags[tag] {
			t.Errorf("tagDescriptions has %q, which no route carries", tag)
		}
	}
}
