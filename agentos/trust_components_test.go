package agentos_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/tool"
)

// compAs sends a JSON request with a bearer token (none when "") and an
// Origin (none when "").
func compAs(t *testing.T, srv *httptest.Server, token, origin, method, path, contentType, body string) compResp {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return compResp{status: resp.StatusCode, body: b}
}

func agentComponent(id string, cfg map[string]any) string {
	b, _ := json.Marshal(map[string]any{"name": id, "component_id": id, "component_type": "agent", "stage": "published", "config": cfg})
	return string(b)
}

// lookup is a Go function a program registers for files and components.
var lookup = tool.Must(tool.New("lookup", "Look a word up.", func(_ context.Context, a struct {
	Word string `json:"word"`
}) (string, error) {
	return "a word: " + a.Word, nil
}))

// A component is a caller's, not the operator's: it may name only the
// tools, models and knowledge bases [components] allows — by default the
// program's Go functions, never the shell, file or Daytona toolkits nor
// an MCP server — whatever the mode (here the security key) and whoever
// holds components:write.
func TestComponentToolsNeedTheAllowlist(t *testing.T) {
	const servers = `
[mcp.servers.fs]
url = "http://127.0.0.1:9/mcp"

[knowledge.docs]
`
	fn := config.Functions{Tools: map[string]tool.Provider{"lookup": lookup}}
	e := newComponentEnvWith(t, servers, fn)
	_, srv := e.start(t, -1, func(c *agentos.Config) { c.SecurityKey = "the-key" })
	for _, tools := range []string{"shell", "file", "daytona", "mcp:fs"} {
		r := compAs(t, srv, "the-key", "", "POST", "/components", "application/json", agentComponent("c-"+strings.ReplaceAll(tools, ":", "-"), map[string]any{"model": "fast", "tools": []string{tools}}))
		compStatus(t, r, http.StatusUnprocessableEntity)
		if d := string(r.body); !strings.Contains(d, `tools[0] = \"`+tools+`\" is not allowed for components`) || !strings.Contains(d, "[components] allowed_tools") || strings.Contains(d, "/tmp") {
			t.Errorf("tools %s: %s", tools, d)
		}
	}
	// A refusal names config.toml, never the server's path to it.
	r := compAs(t, srv, "the-key", "", "POST", "/components", "application/json", agentComponent("lost", map[string]any{"model": "nope"}))
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "[models] in config.toml") || strings.Contains(string(r.body), os.TempDir()) {
		t.Errorf("unknown model: %d %s", r.status, r.body)
	}
	if r := compAs(t, srv, "the-key", "", "GET", "/agents/c-shell", "", ""); r.status != http.StatusNotFound {
		t.Fatalf("a refused component is served: %d %s", r.status, r.body)
	}
	compStatus(t, compAs(t, srv, "the-key", "", "POST", "/components", "application/json",
		agentComponent("speller", map[string]any{"model": "fast", "tools": []string{"lookup"}, "knowledge": "docs"})), http.StatusCreated)

	// The operator's list replaces the default: the shell and the model
	// it names, nothing else.
	e = newComponentEnvWith(t, servers+`
[components]
allowed_tools = ["shell"]
allowed_models = []
allowed_knowledge = []
`, fn)
	_, srv = e.start(t, -1)
	compStatus(t, compPost(t, srv, "/components", agentComponent("lister", map[string]any{"model": "fast", "tools": []string{"shell"}})), http.StatusUnprocessableEntity)
	for cfg, key := range map[string]string{
		`{"model": "fast"}`: "allowed_models", `{"model": "fast", "tools": ["lookup"]}`: "allowed_tools",
		`{"model": "fast", "knowledge": "docs"}`: "allowed_knowledge",
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(cfg), &m)
		r := compPost(t, srv, "/components", agentComponent("x", m))
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), key) {
			t.Errorf("%s: %d %s", cfg, r.status, r.body)
		}
	}
}

// A component stored before the allowlist (or with an entry the operator
// since removed) is checked again when it is built, and not served.
func TestStoredComponentIsCheckedWhenBuilt(t *testing.T) {
	e := newComponentEnv(t)
	st, err := component.New(context.Background(), e.res.DB)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Create(context.Background(), component.CreateParams{ComponentID: "legacy", ComponentType: component.Agent, Name: "Legacy",
		Config: map[string]any{"model": "fast", "tools": []any{"shell"}}, Stage: component.StagePublished, SetCurrent: true}); err != nil {
		t.Fatal(err)
	}
	_, srv := e.start(t, -1)
	if r := compRun(t, srv, "legacy"); r.status != http.StatusNotFound {
		t.Fatalf("a stored component with the shell runs: %d %s", r.status, r.body)
	}
}

// In JWT mode a component acts with no more than its writer's rights: its
// writer must be allowed to run what it names and to read the knowledge
// it attaches, checked when it is written and again, against the stored
// writer, whenever it is built; under isolation only its owner or an
// admin changes it.
func TestComponentActsWithItsWritersRights(t *testing.T) {
	e := newComponentEnvWith(t, "\n[knowledge.docs]\n", config.Functions{})
	_, srv := e.start(t, -1, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	admin := tokenFor(t, "root", auth.DefaultAdminScope)
	bob := tokenFor(t, "bob", "components:write", "components:read", "components:delete", "agents:helper:run")
	team := func(id string, members ...string) string {
		b, _ := json.Marshal(map[string]any{"name": id, "component_id": id, "component_type": "team", "stage": "published",
			"config": map[string]any{"model": "fast", "members": members, "mode": "route"}})
		return string(b)
	}
	r := compAs(t, srv, bob, "", "POST", "/components", "application/json", team("crew", "helper", "coder"))
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "agents:coder:run") {
		t.Fatalf("bob names an agent he may not run: %d %s", r.status, r.body)
	}
	r = compAs(t, srv, bob, "", "POST", "/components", "application/json", agentComponent("reader", map[string]any{"model": "fast", "knowledge": "docs"}))
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "knowledge:read") {
		t.Fatalf("bob attaches knowledge he may not read: %d %s", r.status, r.body)
	}
	compStatus(t, compAs(t, srv, bob, "", "POST", "/components", "application/json", team("bobs-crew", "helper")), http.StatusCreated)

	// Alice's component: bob changes nothing of it; the admin may.
	alice := tokenFor(t, "alice", "components:write", "components:read", "components:delete", "agents:run")
	compStatus(t, compAs(t, srv, alice, "", "POST", "/components", "application/json", agentComponent("alice-agent", map[string]any{"model": "fast"})), http.StatusCreated)
	for _, c := range []struct{ method, path, body string }{
		{"PATCH", "/components/alice-agent", `{"name": "mine now"}`},
		{"POST", "/components/alice-agent/configs", `{"config": {"model": "fast", "instructions": ["Answer in German."]}, "stage": "published"}`},
		{"PATCH", "/components/alice-agent/configs/1", `{"notes": "x"}`},
		{"POST", "/components/alice-agent/configs/1/set-current", ``},
		{"DELETE", "/components/alice-agent/configs/1", ``},
		{"DELETE", "/components/alice-agent", ``},
	} {
		if r := compAs(t, srv, bob, "", c.method, c.path, "application/json", c.body); r.status != http.StatusForbidden {
			t.Errorf("bob %s %s: %d %s", c.method, c.path, r.status, r.body)
		}
	}
	compStatus(t, compAs(t, srv, admin, "", "PATCH", "/components/alice-agent", "application/json", `{"description": "checked"}`), http.StatusOK)

	// A stored component whose writer may not run its member is not
	// served: its principal is checked when it is built.
	st, err := component.New(context.Background(), e.res.DB)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Create(context.Background(), component.CreateParams{ComponentID: "planted", ComponentType: component.Team, Name: "Planted",
		Config: map[string]any{"model": "fast", "members": []any{"coder"}, "mode": "route"}, Stage: component.StagePublished, SetCurrent: true,
		CreatedBy: "bob", Principal: json.RawMessage(`{"user_id":"bob","scopes":["components:write","agents:helper:run"]}`)}); err != nil {
		t.Fatal(err)
	}
	_, srv2 := e.start(t, -1, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	if r := compAs(t, srv2, admin, "", "GET", "/teams/planted", "", ""); r.status != http.StatusNotFound {
		t.Fatalf("a component whose writer may not run its member is served: %d %s", r.status, r.body)
	}
	if r := compAs(t, srv2, admin, "", "GET", "/teams/bobs-crew", "", ""); r.status != http.StatusOK {
		t.Fatalf("bob's allowed component is not served: %d %s", r.status, r.body)
	}
}

// Protected mode: a JSON route refuses other content types (a page may
// post text/plain without a CORS preflight), and a page of an origin only
// agno's defaults trust (os.agno.com) cannot write components, schedules
// or migrations; agno's agent-ui on localhost:3000 and an origin the
// operator listed can.
func TestProtectedModeControlRoutes(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	body := agentComponent("planted", map[string]any{"model": "fast"})
	r := compAs(t, srv, "", "http://localhost:3000", "POST", "/components", "text/plain", body)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "model_attributes_type") {
		t.Fatalf("text/plain JSON: %d %s", r.status, r.body)
	}
	for _, path := range []string{"/components", "/schedules", "/databases/all/migrate"} {
		r := compAs(t, srv, "", "https://os.agno.com", "POST", path, "application/json", body)
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "OS_SECURITY_KEY") {
			t.Errorf("os.agno.com POST %s: %d %s", path, r.status, r.body)
		}
	}
	if r := compAs(t, srv, "", "https://os.agno.com", "GET", "/components", "", ""); r.status != http.StatusOK {
		t.Errorf("os.agno.com reads: %d %s", r.status, r.body)
	}
	compStatus(t, compAs(t, srv, "", "http://localhost:3000", "POST", "/components", "application/json", body), http.StatusCreated)

	_, srv = e.start(t, -1, func(c *agentos.Config) { c.CORSOrigins = []string{"https://studio.example.com"} })
	compStatus(t, compAs(t, srv, "", "https://studio.example.com", "POST", "/components", "application/json", agentComponent("listed", map[string]any{"model": "fast"})), http.StatusCreated)
}
