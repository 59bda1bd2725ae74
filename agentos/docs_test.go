package agentos

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
)

// recordingMux is a ServeMux that remembers every pattern registered.
type recordingMux struct {
	*http.ServeMux
	patterns []string
}

func (m *recordingMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func docsOS(t *testing.T) *OS {
	t.Helper()
	o, err := New(Config{Name: "Docs OS", Description: "Test <server>", Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a"})}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas         map[string]json.RawMessage `json:"schemas"`
		SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
	} `json:"components"`
}

type openAPIOperation struct {
	OperationID string `json:"operationId"`
	Summary     string `json:"summary"`
	Tags        []string
	Security    *[]any `json:"security"`
	Parameters  []struct {
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
	} `json:"parameters"`
	Responses map[string]json.RawMessage `json:"responses"`
}

func fetchOpenAPI(t *testing.T, h http.Handler) (openAPIDoc, []byte) {
	t.Helper()
	rec := getLocal(t, h, "/openapi.json")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json = %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	var doc openAPIDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, rec.Body.Bytes()
}

// The document lists exactly the routes the server registers.
func TestOpenAPIMatchesRegisteredRoutes(t *testing.T) {
	o := docsOS(t)
	mux := &recordingMux{ServeMux: http.NewServeMux()}
	o.routes(mux)
	registered := slices.Sorted(slices.Values(mux.patterns))
	if len(registered) < 30 || !slices.Contains(registered, "GET /registry") || !slices.Contains(registered, "GET /agents/{agent_id}/runs") {
		t.Fatalf("recorded patterns %v: routes are missing", registered)
	}
	doc, _ := fetchOpenAPI(t, o.Handler())
	var documented []string
	for path, item := range doc.Paths {
		for method := range item {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	// A pattern serving several documented routes stands for them.
	servedBy := map[string][]string{}
	for _, rt := range apiRoutes {
		if rt.Served != "" {
			servedBy[rt.Served] = append(servedBy[rt.Served], rt.Pattern)
		}
	}
	want := map[string]bool{}
	for _, reg := range registered {
		patterns, ok := servedBy[reg]
		if !ok {
			patterns = []string{reg}
		}
		for _, p := range patterns {
			method, path, ok := strings.Cut(p, " ")
			if !ok {
				t.Errorf("route %q has no method: every route must name one", p)
				continue
			}
			want[method+" "+openAPIPath(path)] = true
		}
	}
	for _, d := range documented {
		if !want[d] {
			t.Errorf("documented but not registered: %s", d)
		}
	}
	for w := range want {
		if !slices.Contains(documented, w) {
			t.Errorf("registered but not documented: %s (add it to apiRoutes in docs.go)", w)
		}
	}
}

// Structural checks a client generator relies on: unique operation ids,
// declared path parameters, resolvable $refs, an open/secured split
// matching the server's.
func TestOpenAPIDocumentIsWellFormed(t *testing.T) {
	doc, raw := fetchOpenAPI(t, docsOS(t).Handler())
	if doc.OpenAPI != "3.1.0" || doc.Info.Title != "Docs OS" || doc.Info.Version != Version {
		t.Fatalf("header = %s %+v", doc.OpenAPI, doc.Info)
	}
	if _, ok := doc.Components.SecuritySchemes["HTTPBearer"]; !ok {
		t.Fatal("no HTTPBearer security scheme")
	}
	for _, m := range regexp.MustCompile(`"\$ref":"#/components/schemas/([^"]+)"`).FindAllSubmatch(raw, -1) {
		if _, ok := doc.Components.Schemas[string(m[1])]; !ok {
			t.Errorf("$ref to missing schema %s", m[1])
		}
	}
	ids := map[string]string{}
	templ := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range doc.Paths {
		if strings.Contains(path, "$") || strings.Contains(path, "...") {
			t.Errorf("path %q keeps ServeMux syntax", path)
		}
		var inPath []string
		for _, m := range templ.FindAllStringSubmatch(path, -1) {
			inPath = append(inPath, m[1])
		}
		for method, rawOp := range item {
			var op openAPIOperation
			if err := json.Unmarshal(rawOp, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			where := strings.ToUpper(method) + " " + path
			if prev, dup := ids[op.OperationID]; dup || op.OperationID == "" {
				t.Errorf("%s: operationId %q empty or also used by %s", where, op.OperationID, prev)
			}
			ids[op.OperationID] = where
			if op.Summary == "" || len(op.Tags) != 1 || len(op.Responses) == 0 {
				t.Errorf("%s: summary %q tags %v responses %d", where, op.Summary, op.Tags, len(op.Responses))
			}
			var declared []string
			for _, p := range op.Parameters {
				if p.In == "path" {
					if !p.Required {
						t.Errorf("%s: path parameter %s not required", where, p.Name)
					}
					declared = append(declared, p.Name)
				}
			}
			if !slices.Equal(declared, inPath) {
				t.Errorf("%s: path parameters %v, template has %v", where, declared, inPath)
			}
			open := op.Security != nil && len(*op.Security) == 0
			if open != openPath(path) {
				t.Errorf("%s: open in the document = %v, open on the server = %v", where, open, openPath(path))
			}
		}
	}
}

func TestOpenAPIDescribesRegistryQuery(t *testing.T) {
	_, raw := fetchOpenAPI(t, docsOS(t).Handler())
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string         `json:"name"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	params := map[string]map[string]any{}
	for _, p := range doc.Paths["/registry"]["get"].Parameters {
		params[p.Name] = p.Schema
	}
	if got := mustJSON(params["resource_type"]["enum"]); got != mustJSON(resourceTypeStrings()) {
		t.Errorf("resource_type enum = %s", got)
	}
	if params["limit"]["maximum"] != float64(100) || params["limit"]["default"] != float64(20) || params["page"]["minimum"] != float64(1) {
		t.Errorf("limit/page schema = %v %v", params["limit"], params["page"])
	}
}

func TestDocsPage(t *testing.T) {
	o := docsOS(t)
	o.cfg.SecurityKey = "secret" // /docs stays open, as in agno
	rec := getLocal(t, o.Handler(), "/docs")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs = %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	page := rec.Body.String()
	for _, want := range []string{"<h1>Docs OS</h1>", "Test &lt;server&gt;", `href="/openapi.json"`, "<code>/registry</code>", "<code>/agents/{agent_id}/runs</code>", "resource_type", "<code>/workflows/ws</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("/docs lacks %q", want)
		}
	}
	for _, banned := range []string{"<script src", "<link", "http://", "https://"} {
		if strings.Contains(page, banned) {
			t.Errorf("/docs references external assets (%q)", banned)
		}
	}
	if rec := getLocal(t, o.Handler(), "/openapi.json"); rec.Code != http.StatusOK {
		t.Errorf("/openapi.json with a key configured = %d, want open", rec.Code)
	}
}
