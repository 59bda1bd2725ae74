package agentos_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

const componentKeyEnv = "AGNO_COMPONENT_TEST_KEY"

// componentEnv is a config.toml with [models.fast] on the fake model
// server (which answers in the language the instructions ask for), a
// file agent "helper", and a SQLite store whose file holds the control
// plane too.
type componentEnv struct {
	res  *config.Resources
	code *agent.Agent
}

func newComponentEnv(t *testing.T) *componentEnv {
	t.Helper()
	return newComponentEnvWith(t, "", config.Functions{})
}

// newComponentEnvWith is newComponentEnv with more config.toml text and
// Go functions.
func newComponentEnvWith(t *testing.T, extraTOML string, fn config.Functions) *componentEnv {
	t.Helper()
	llm := modeltest.NewServer(modeltest.ServerConfig{APIKey: "k", Responder: func(req *model.Request) modeltest.Response {
		for _, m := range req.Messages {
			if m.Role != "system" {
				continue
			}
			switch {
			case strings.Contains(m.Content, "Answer in French."):
				return modeltest.Response{Content: "Bonjour"}
			case strings.Contains(m.Content, "Answer in German."):
				return modeltest.Response{Content: "Hallo"}
			}
		}
		return modeltest.Response{Content: "Hello"}
	}})
	t.Cleanup(llm.Close)
	t.Setenv(componentKeyEnv, "k")
	dir := t.TempDir()
	files := map[string]string{
		"config.toml": `[models.fast]
provider = "openai-compatible"
base_url = "` + llm.URL + `"
api_key_env = "` + componentKeyEnv + `"
model = "fake-model"
max_retries = 0

[storage]
driver = "sqlite"
path = "agno.db"
` + extraTOML,
		"agents/helper.toml": "name = \"Helper\"\nmodel = \"fast\"\ninstructions = \"Help.\"\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	res, err := cfg.Build(context.Background(), fn, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	code, err := agent.New(agent.Config{ID: "coder", Name: "Coder", Model: res.Models["fast"], Store: res.Store})
	if err != nil {
		t.Fatal(err)
	}
	return &componentEnv{res: res, code: code}
}

// builder is what agno start gives AgentOS.
func (e *componentEnv) builder() agentos.ComponentBuilder {
	return func(ctx context.Context, kind, id string, c map[string]any, served agentos.Catalog) (*component.Built, error) {
		return e.res.BuildComponent(ctx, config.Kind(kind), id, c, config.Existing{Agents: served.Agents, Teams: served.Teams, Workflows: served.Workflows})
	}
}

// start serves an OS (a replica) on the env's store and database.
func (e *componentEnv) start(t *testing.T, poll time.Duration, mods ...func(*agentos.Config)) (*agentos.OS, *httptest.Server) {
	t.Helper()
	cfg := agentos.Config{Agents: append(slices.Clone(e.res.Agents), e.code), Store: e.res.Store, DB: e.res.DB,
		Components: agentos.ComponentsConfig{Build: e.builder(), Poll: poll}, Logger: slog.New(slog.DiscardHandler)}
	for _, m := range mods {
		m(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	return o, srv
}

type compResp struct {
	status int
	body   []byte
}

func (r compResp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return m
}

func (r compResp) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return l
}

func compCall(t *testing.T, srv *httptest.Server, method, path, contentType, body string) compResp {
	t.Helper()
	return compAs(t, srv, "", "", method, path, contentType, body)
}

func compPost(t *testing.T, srv *httptest.Server, path, body string) compResp {
	return compCall(t, srv, http.MethodPost, path, "application/json", body)
}

func compRun(t *testing.T, srv *httptest.Server, id string) compResp {
	t.Helper()
	form := url.Values{"message": {"hi"}, "stream": {"false"}}
	return compCall(t, srv, http.MethodPost, "/agents/"+id+"/runs", "application/x-www-form-urlencoded", form.Encode())
}

func compStatus(t *testing.T, r compResp, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
}

func compKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func compWantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := compKeys(m); !slices.Equal(got, want) {
		t.Fatalf("%s compKeys %v, want %v", what, got, want)
	}
}

// compListed finds id in GET /agents.
func compListed(t *testing.T, srv *httptest.Server, id string) map[string]any {
	t.Helper()
	r := compCall(t, srv, http.MethodGet, "/agents", "", "")
	compStatus(t, r, http.StatusOK)
	for _, a := range r.list(t) {
		if a["id"] == id {
			return a
		}
	}
	return nil
}

func TestComponentAgentLiveEndToEnd(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)

	// A component naming the [models] key, published: current and served.
	r := compPost(t, srv, "/components", `{"name": "Greeter", "component_type": "agent", "stage": "published",
		"config": {"model": "fast", "instructions": "Answer in French."}}`)
	compStatus(t, r, http.StatusCreated)
	c := r.obj(t)
	// agno's ComponentResponse with exclude_none: description, metadata
	// and updated_at are None here and left out.
	compWantKeys(t, "ComponentResponse", c, "component_id", "component_type", "name", "current_version", "created_at")
	if c["component_id"] != "greeter" || c["component_type"] != "agent" || c["current_version"] != float64(1) {
		t.Fatalf("created: %v", c)
	}

	a := compListed(t, srv, "greeter")
	if a == nil {
		t.Fatal("GET /agents does not list the component")
	}
	if a["is_component"] != true {
		t.Fatalf("is_component = %v, want true", a["is_component"])
	}
	if coder := compListed(t, srv, "coder"); coder["is_component"] != false {
		t.Fatalf("code agent is_component = %v", coder["is_component"])
	}
	r = compRun(t, srv, "greeter")
	compStatus(t, r, http.StatusOK)
	if out := r.obj(t); out["content"] != "Bonjour" || out["agent_id"] != "greeter" {
		t.Fatalf("run: %v", out)
	}

	// A new published version that is not made current changes nothing.
	r = compPost(t, srv, "/components/greeter/configs", `{"config": {"model": "fast", "instructions": "Answer in German."}, "stage": "published", "set_current": false, "label": "german"}`)
	compStatus(t, r, http.StatusCreated)
	cfg := r.obj(t)
	compWantKeys(t, "ComponentConfigResponse", cfg, "component_id", "version", "label", "stage", "config", "created_at")
	if cfg["version"] != float64(2) || cfg["stage"] != "published" {
		t.Fatalf("v2: %v", cfg)
	}
	if out := compRun(t, srv, "greeter").obj(t); out["content"] != "Bonjour" {
		t.Fatalf("v2 not current, yet: %v", out)
	}
	// set-current swaps the live agent.
	r = compPost(t, srv, "/components/greeter/configs/2/set-current", "")
	compStatus(t, r, http.StatusOK)
	if got := r.obj(t); got["current_version"] != float64(2) || got["updated_at"] == nil {
		t.Fatalf("set-current: %v", got)
	}
	if out := compRun(t, srv, "greeter").obj(t); out["content"] != "Hallo" {
		t.Fatalf("after set-current: %v", out)
	}
	r = compCall(t, srv, http.MethodGet, "/components/greeter/configs/current", "", "")
	compStatus(t, r, http.StatusOK)
	if got := r.obj(t); got["version"] != float64(2) || got["label"] != "german" {
		t.Fatalf("current: %v", got)
	}
	// Rolling back through PATCH current_version.
	r = compCall(t, srv, http.MethodPatch, "/components/greeter", "application/json", `{"current_version": 1, "description": "greets"}`)
	compStatus(t, r, http.StatusOK)
	if got := r.obj(t); got["current_version"] != float64(1) || got["description"] != "greets" {
		t.Fatalf("patch: %v", got)
	}
	if out := compRun(t, srv, "greeter").obj(t); out["content"] != "Bonjour" {
		t.Fatalf("after rollback: %v", out)
	}

	// agno's refusals: a published config is immutable, a draft cannot
	// be current, the current version cannot be deleted.
	r = compCall(t, srv, http.MethodPatch, "/components/greeter/configs/2", "application/json", `{"notes": "x"}`)
	compStatus(t, r, http.StatusBadRequest)
	if d := r.obj(t)["detail"]; d != "Cannot update published config greeter v2" {
		t.Fatalf("published edit: %v", d)
	}
	r = compPost(t, srv, "/components/greeter/configs", `{"config": {"model": "fast", "instructions": "Answer in German."}}`)
	compStatus(t, r, http.StatusCreated)
	r = compPost(t, srv, "/components/greeter/configs/3/set-current", "")
	compStatus(t, r, http.StatusBadRequest)
	if d := r.obj(t)["detail"]; d != "Cannot set draft config greeter v3 as current. Only published configs can be current." {
		t.Fatalf("draft current: %v", d)
	}
	r = compCall(t, srv, http.MethodDelete, "/components/greeter/configs/1", "", "")
	compStatus(t, r, http.StatusBadRequest)
	r = compCall(t, srv, http.MethodDelete, "/components/greeter/configs/3", "", "")
	compStatus(t, r, http.StatusNoContent)
	r = compCall(t, srv, http.MethodGet, "/components/greeter/configs/3", "", "")
	compStatus(t, r, http.StatusNotFound)
	if d := r.obj(t)["detail"]; d != "Config greeter v3 not found" {
		t.Fatalf("missing version: %v", d)
	}

	// A config that does not build is refused with the key and the fix,
	// and nothing is stored.
	r = compPost(t, srv, "/components/greeter/configs", `{"config": {"model": "slow"}}`)
	compStatus(t, r, http.StatusBadRequest)
	if d, _ := r.obj(t)["detail"].(string); !strings.Contains(d, `model = "slow" is not a key of [models]`) || !strings.Contains(d, `"fast"`) {
		t.Fatalf("bad config: %s", d)
	}
	r = compCall(t, srv, http.MethodGet, "/components/greeter/configs?include_config=false", "", "")
	compStatus(t, r, http.StatusOK)
	list := r.list(t)
	if len(list) != 2 {
		t.Fatalf("versions after a refused one: %s", r.body)
	}
	compWantKeys(t, "ComponentConfigResponse without config", list[0], "component_id", "version", "label", "stage", "created_at")

	// Deleting removes the live entry.
	compStatus(t, compCall(t, srv, http.MethodDelete, "/components/greeter", "", ""), http.StatusNoContent)
	compStatus(t, compRun(t, srv, "greeter"), http.StatusNotFound)
	if compListed(t, srv, "greeter") != nil {
		t.Fatal("deleted component still listed")
	}
	compStatus(t, compCall(t, srv, http.MethodGet, "/components/greeter", "", ""), http.StatusNotFound)
}

func TestComponentTeamOfFileAndComponentAgents(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	compStatus(t, compPost(t, srv, "/components", `{"name": "French", "component_type": "agent", "config": {"model": "fast", "instructions": "Answer in French."}}`), http.StatusCreated)
	r := compPost(t, srv, "/components", `{"name": "Crew", "component_type": "team", "config": {"model": "fast", "members": ["helper", "french"], "mode": "route"}}`)
	compStatus(t, r, http.StatusCreated)
	r = compCall(t, srv, http.MethodGet, "/teams", "", "")
	compStatus(t, r, http.StatusOK)
	var crew map[string]any
	for _, tm := range r.list(t) {
		if tm["id"] == "crew" {
			crew = tm
		}
	}
	if crew == nil {
		t.Fatalf("team not listed: %s", r.body)
	}
	if crew["is_component"] != true {
		t.Fatalf("team is_component = %v", crew["is_component"])
	}
	members, _ := crew["members"].([]any)
	if len(members) != 2 {
		t.Fatalf("members: %v", crew["members"])
	}
	// An unknown member is refused before anything is stored.
	r = compPost(t, srv, "/components", `{"name": "Ghosts", "component_type": "team", "config": {"model": "fast", "members": ["nobody"]}}`)
	compStatus(t, r, http.StatusBadRequest)
	if d, _ := r.obj(t)["detail"].(string); !strings.Contains(d, "members[0]") || !strings.Contains(d, "nobody") {
		t.Fatalf("unknown member: %s", d)
	}
	compStatus(t, compCall(t, srv, http.MethodGet, "/components/ghosts", "", ""), http.StatusNotFound)
}

func TestComponentsRestartReplicasAndReload(t *testing.T) {
	e := newComponentEnv(t)
	reloads := 0
	a, srvA := e.start(t, -1, func(c *agentos.Config) {
		c.OnReload = func(ctx context.Context, current agentos.Catalog) (agentos.Catalog, error) {
			reloads++
			return agentos.Catalog{Agents: append(slices.Clone(e.res.Agents), e.code)}, nil // the sources only
		}
	})
	_, srvB := e.start(t, 20*time.Millisecond)
	compStatus(t, compPost(t, srvA, "/components", `{"name": "Greeter", "component_type": "agent", "stage": "published", "config": {"model": "fast", "instructions": "Answer in French."}}`), http.StatusCreated)

	// Replica B learns of it by polling.
	deadline := time.Now().Add(5 * time.Second)
	for compListed(t, srvB, "greeter") == nil {
		if time.Now().After(deadline) {
			t.Fatal("replica B never served the component")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if out := compRun(t, srvB, "greeter").obj(t); out["content"] != "Bonjour" {
		t.Fatalf("replica run: %v", out)
	}
	// A change on A reaches B.
	compStatus(t, compPost(t, srvA, "/components/greeter/configs", `{"config": {"model": "fast", "instructions": "Answer in German."}, "stage": "published"}`), http.StatusCreated)
	for compRun(t, srvB, "greeter").obj(t)["content"] != "Hallo" {
		if time.Now().After(deadline) {
			t.Fatal("replica B never served version 2")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// A reload of the sources keeps the components.
	if err := a.Reload(context.Background()); err != nil || reloads != 1 {
		t.Fatalf("reload: %v %d", err, reloads)
	}
	if out := compRun(t, srvA, "greeter").obj(t); out["content"] != "Hallo" {
		t.Fatalf("after reload: %v", out)
	}

	// A new process serves the stored components at start.
	_, srvC := e.start(t, -1)
	if out := compRun(t, srvC, "greeter").obj(t); out["content"] != "Hallo" {
		t.Fatalf("after restart: %v", out)
	}

	// A deletion on A reaches B.
	compStatus(t, compCall(t, srvA, http.MethodDelete, "/components/greeter", "", ""), http.StatusNoContent)
	for compRun(t, srvB, "greeter").status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("replica B still serves the deleted component")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestComponentIDsOwnedByCodeAndFiles(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	for _, id := range []string{"coder", "helper"} {
		r := compPost(t, srv, "/components", `{"name": "X", "component_id": "`+id+`", "component_type": "agent", "config": {"model": "fast"}}`)
		compStatus(t, r, http.StatusBadRequest)
		if d, _ := r.obj(t)["detail"].(string); !strings.HasPrefix(d, "Component "+id+" already exists") {
			t.Fatalf("%s: %s", id, d)
		}
	}
	// A row with a code agent's id (stored by another build) is not
	// listed and not served; the same id as a team is a different thing.
	st, err := component.New(context.Background(), e.res.DB)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Create(context.Background(), component.CreateParams{ComponentID: "coder", ComponentType: component.Agent, Name: "Shadow"}); err != nil {
		t.Fatal(err)
	}
	compStatus(t, compPost(t, srv, "/components", `{"name": "Solo", "component_type": "agent", "config": {"model": "fast"}}`), http.StatusCreated)
	r := compCall(t, srv, http.MethodGet, "/components?component_type=agent&limit=10", "", "")
	compStatus(t, r, http.StatusOK)
	page := r.obj(t)
	compWantKeys(t, "PaginatedResponse", page, "data", "meta")
	compWantKeys(t, "PaginationInfo", page["meta"].(map[string]any), "page", "limit", "total_pages", "total_count", "search_time_ms")
	data := page["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["component_id"] != "solo" || page["meta"].(map[string]any)["total_count"] != float64(1) {
		t.Fatalf("listing: %s", r.body)
	}
	if a := compListed(t, srv, "coder"); a["name"] != "Coder" {
		t.Fatalf("the code agent was replaced: %v", a)
	}
}

func TestComponentShapesAndValidation(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	r := compPost(t, srv, "/components", `{"name": "Full", "component_id": "full", "component_type": "workflow", "description": "d", "metadata": {"k": 1},
		"config": {"steps": [{"name": "ask", "agent": "helper"}]}, "label": "l", "notes": "n"}`)
	compStatus(t, r, http.StatusCreated)
	compWantKeys(t, "ComponentResponse", r.obj(t), "component_id", "component_type", "name", "description", "metadata", "created_at")
	r = compCall(t, srv, http.MethodPatch, "/components/full", "application/json", `{"name": "Full 2"}`)
	compStatus(t, r, http.StatusOK)
	compWantKeys(t, "ComponentResponse", r.obj(t), "component_id", "component_type", "name", "description", "metadata", "created_at", "updated_at")
	r = compCall(t, srv, http.MethodPatch, "/components/full/configs/1", "application/json", `{"notes": "edited"}`)
	compStatus(t, r, http.StatusOK)
	compWantKeys(t, "ComponentConfigResponse", r.obj(t), "component_id", "version", "label", "stage", "config", "notes", "created_at", "updated_at")
	// A draft-only workflow is served (its latest version, as agno's get_config).
	r = compCall(t, srv, http.MethodGet, "/workflows", "", "")
	if i := slices.IndexFunc(r.list(t), func(w map[string]any) bool { return w["id"] == "full" }); i < 0 || r.list(t)[i]["is_component"] != true {
		t.Fatalf("workflow not served as a component: %s", r.body)
	}

	// FastAPI's 422s.
	r = compPost(t, srv, "/components", `{"component_type": "agent"}`)
	compStatus(t, r, http.StatusUnprocessableEntity)
	item := r.obj(t)["detail"].([]any)[0].(map[string]any)
	if item["type"] != "missing" || item["loc"].([]any)[1] != "name" {
		t.Fatalf("missing name: %v", item)
	}
	r = compPost(t, srv, "/components", `{"name": "x", "component_type": "robot"}`)
	compStatus(t, r, http.StatusUnprocessableEntity)
	item = r.obj(t)["detail"].([]any)[0].(map[string]any)
	if item["type"] != "enum" || item["msg"] != "Input should be 'agent', 'team' or 'workflow'" {
		t.Fatalf("bad type: %v", item)
	}
	r = compCall(t, srv, http.MethodGet, "/components?limit=101", "", "")
	compStatus(t, r, http.StatusUnprocessableEntity)
	r = compCall(t, srv, http.MethodGet, "/components/full/configs/one", "", "")
	compStatus(t, r, http.StatusUnprocessableEntity)
	r = compPost(t, srv, "/components/full/configs", `{"label": "no config"}`)
	compStatus(t, r, http.StatusUnprocessableEntity)
	// agno's 400s and 404s.
	r = compPost(t, srv, "/components", `{"name": "Full", "component_type": "workflow", "config": {"steps": [{"name": "ask", "agent": "helper"}]}}`)
	compStatus(t, r, http.StatusBadRequest)
	if d := r.obj(t)["detail"]; d != "Component full already exists" {
		t.Fatalf("duplicate: %v", d)
	}
	r = compCall(t, srv, http.MethodPatch, "/components/nope", "application/json", `{"name": "x"}`)
	compStatus(t, r, http.StatusNotFound)
	if d := r.obj(t)["detail"]; d != "Component nope not found" {
		t.Fatalf("patch missing: %v", d)
	}
	compStatus(t, compCall(t, srv, http.MethodDelete, "/components/nope", "", ""), http.StatusNotFound)
	r = compPost(t, srv, "/components/nope/configs/1/set-current", "")
	compStatus(t, r, http.StatusNotFound)
	if d := r.obj(t)["detail"]; d != "Component nope or config version 1 not found" {
		t.Fatalf("set-current missing: %v", d)
	}
	r = compCall(t, srv, http.MethodGet, "/components/nope/configs/current", "", "")
	compStatus(t, r, http.StatusNotFound)
	if d := r.obj(t)["detail"]; d != "No current config for nope" {
		t.Fatalf("current missing: %v", d)
	}
	r = compCall(t, srv, http.MethodGet, "/components/nope/configs", "", "")
	if r.status != http.StatusOK || strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("configs of a missing component: %d %s", r.status, r.body)
	}
}

func TestDatabaseMigrate(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	// A control-plane table lost (dropped with its version row) is made
	// again by the route: every plane's migrations are applied.
	ctx := context.Background()
	for _, q := range []string{`DROP TABLE {t:agno_eval_runs}`, `DELETE FROM {t:agno_schema_versions} WHERE table_name = 'agno_eval_runs'`} {
		if _, err := e.res.DB.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	r := compPost(t, srv, "/databases/agno-db/migrate", "")
	compStatus(t, r, http.StatusOK)
	if v, err := e.res.DB.Versions(ctx); err != nil || v["agno_eval_runs"] != 3 || v["agno_approvals"] != 2 || v["agno_schedules"] == 0 || v["agno_traces"] == 0 || v["agno_metrics"] != 1 {
		t.Fatalf("versions after migrate: %v %v", v, err)
	}
	if _, err := e.res.DB.Exec(ctx, `SELECT COUNT(*) FROM {t:agno_eval_runs}`); err != nil {
		t.Fatalf("agno_eval_runs not made again: %v", err)
	}
	got := r.obj(t)
	compWantKeys(t, "migrate", got, "message")
	if got["message"] != "Database migrated successfully to latest version" {
		t.Fatalf("migrate: %v", got)
	}
	r = compPost(t, srv, "/databases/other/migrate", "")
	compStatus(t, r, http.StatusNotFound)
	if d := r.obj(t)["detail"]; d != "Database not found" {
		t.Fatalf("unknown db: %v", d)
	}
	r = compPost(t, srv, "/databases/agno-db/migrate?target_version=2.0.0", "")
	compStatus(t, r, http.StatusInternalServerError)
	if d, _ := r.obj(t)["detail"].(string); !strings.HasPrefix(d, "Failed to migrate database: migrating to a chosen target_version is not supported") {
		t.Fatalf("target version: %s", d)
	}
	r = compPost(t, srv, "/databases/all/migrate", "")
	compStatus(t, r, http.StatusOK)
	if m := r.obj(t)["message"]; m != "All databases migrated successfully to latest version" {
		t.Fatalf("all: %v", m)
	}
	r = compPost(t, srv, "/databases/all/migrate?target_version=2.0.0", "")
	compStatus(t, r, http.StatusMultiStatus)
	got = r.obj(t)
	compWantKeys(t, "migrate 207", got, "message", "failed")
	if got["message"] != "Migrated 0/1 databases to version 2.0.0" || got["failed"].(map[string]any)["agno-db"] == nil {
		t.Fatalf("all with target: %v", got)
	}
	// The tables are still at their versions, the components intact.
	versions, err := e.res.DB.Versions(context.Background())
	if err != nil || versions["agno_components"] != 2 || versions["agno_component_configs"] != 1 || versions["agno_component_links"] != 1 {
		t.Fatalf("versions: %v %v", versions, err)
	}
}

func TestComponentRoutesDocumented(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	r := compCall(t, srv, http.MethodGet, "/openapi.json", "", "")
	compStatus(t, r, http.StatusOK)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{
		"GET /components", "POST /components", "GET /components/{component_id}", "PATCH /components/{component_id}",
		"DELETE /components/{component_id}", "GET /components/{component_id}/configs", "POST /components/{component_id}/configs",
		"GET /components/{component_id}/configs/current", "GET /components/{component_id}/configs/{version}",
		"PATCH /components/{component_id}/configs/{version}", "DELETE /components/{component_id}/configs/{version}",
		"POST /components/{component_id}/configs/{version}/set-current",
		"POST /databases/all/migrate", "POST /databases/{db_id}/migrate",
	} {
		method, path, _ := strings.Cut(route, " ")
		if _, ok := doc.Paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("%s is not in /openapi.json", route)
		}
	}
}

// Component ids are what the message says: 1 to 128 letters, digits, -,
// _ and ., starting with a letter or digit — and no case variant of an id
// already served, so a component cannot pass for a file's agent.
func TestComponentIDMustFitURLs(t *testing.T) {
	e := newComponentEnv(t)
	_, srv := e.start(t, -1)
	for _, id := range []string{"a/b", "<script>", "..", ".", ".hidden", "a:b", "a b", strings.Repeat("x", 600), "é"} {
		body, _ := json.Marshal(map[string]any{"name": "n", "component_id": id, "component_type": "agent", "config": map[string]any{"model": "fast"}})
		r := compPost(t, srv, "/components", string(body))
		compStatus(t, r, http.StatusBadRequest)
		if d, _ := r.obj(t)["detail"].(string); !strings.Contains(d, "cannot be used: use 1 to 128 letters, digits, -, _ and .") || len(d) > 300 {
			t.Fatalf("%.20q: detail: %s", id, d)
		}
	}
	r := compPost(t, srv, "/components", `{"name": "a/b", "component_type": "agent", "config": {"model": "fast"}}`)
	compStatus(t, r, http.StatusBadRequest)
	// e's file agent is "helper": "Helper" is refused, "helper-2..." is not.
	r = compPost(t, srv, "/components", `{"name": "Helper", "component_id": "Helper", "component_type": "agent", "config": {"model": "fast"}}`)
	compStatus(t, r, http.StatusBadRequest)
	if d, _ := r.obj(t)["detail"].(string); !strings.Contains(d, "differs only in case from the agent helper") {
		t.Fatalf("case variant: %s", d)
	}
	r = compCall(t, srv, http.MethodGet, "/components", "", "")
	if n := r.obj(t)["meta"].(map[string]any)["total_count"]; n != float64(0) {
		t.Fatalf("stored: %v", n)
	}
	compStatus(t, compPost(t, srv, "/components", `{"name": "x", "component_id": "helper-2.v1_a", "component_type": "agent", "config": {"model": "fast"}}`), http.StatusCreated)
}
