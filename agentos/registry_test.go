package agentos

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

func fakeModel(provider, id string) *modeltest.Fake {
	m := modeltest.New(modeltest.Response{Content: "ok"})
	m.ProviderName, m.ModelID = provider, id
	return m
}

func newAgent(t testing.TB, cfg agent.Config) *agent.Agent {
	t.Helper()
	if cfg.Model == nil {
		cfg.Model = fakeModel("openai", "gpt-5.4")
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func newTeam(t testing.TB, cfg team.Config) *team.Team {
	t.Helper()
	tm, err := team.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func newWorkflow(t testing.TB, cfg workflow.Config) *workflow.Workflow {
	t.Helper()
	w, err := workflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func newToolkit(t testing.TB, name string, fns ...*tool.Function) *tool.Toolkit {
	t.Helper()
	tk, err := tool.NewToolkit(tool.ToolkitConfig{Name: name, Functions: fns})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

type queryArgs struct {
	Query string `json:"query" description:"What to look for"`
}

func searchTool(t testing.TB, name string) *tool.Function {
	t.Helper()
	f, err := tool.New(name, "Search the web", func(_ context.Context, a queryArgs) (string, error) { return a.Query, nil })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func searchA(context.Context, map[string]any) (tool.Result, error) { return tool.Text("a"), nil }
func searchB(context.Context, map[string]any) (tool.Result, error) { return tool.Text("b"), nil }

func rawTool(t *testing.T, name string, h tool.Handler) *tool.Function {
	t.Helper()
	f, err := tool.NewRaw(name, "", json.RawMessage(`{"type":"object","properties":{}}`), h)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func fetchData(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
	return &workflow.StepOutput{Content: "data"}, nil
}

func always(context.Context, *workflow.StepInput) (bool, error) { return true, nil }

func pickFirst(_ context.Context, _ *workflow.StepInput, choices []string) ([]string, error) {
	return choices[:1], nil
}

// logBuffer returns a logger writing text records at every level.
func logBuffer() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

func modelKeys(ms []model.Model) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Info().Provider+"/"+m.Info().ID)
	}
	slices.Sort(out)
	return out
}

// A9 case 1: models dedupe by (provider, id), not by object.
func TestRegistryModelsDedupeByProviderAndID(t *testing.T) {
	r := NewRegistry(nil)
	first := fakeModel("openai", "gpt-5.4")
	r.Populate(Catalog{Agents: []*agent.Agent{
		newAgent(t, agent.Config{Name: "one", Model: first}),
		newAgent(t, agent.Config{Name: "two", Model: fakeModel("openai", "gpt-5.4")}),
	}})
	if ms := r.Models(); len(ms) != 1 || ms[0] != model.Model(first) {
		t.Fatalf("models = %v, want only the first gpt-5.4", modelKeys(ms))
	}

	r = NewRegistry(nil)
	r.Populate(Catalog{Agents: []*agent.Agent{
		newAgent(t, agent.Config{Name: "one", Model: fakeModel("openai", "m")}),
		newAgent(t, agent.Config{Name: "two", Model: fakeModel("azure", "m")}),
	}})
	if got := modelKeys(r.Models()); !slices.Equal(got, []string{"azure/m", "openai/m"}) {
		t.Fatalf("models = %v, want azure/m and openai/m", got)
	}
}

// A9 case 2: tools dedupe by identity, never by name.
func TestRegistryToolsDedupeByIdentity(t *testing.T) {
	same1, same2 := newToolkit(t, "same", searchTool(t, "s1")), newToolkit(t, "same", searchTool(t, "s2"))
	shared := newToolkit(t, "shared", searchTool(t, "s3"))
	r := NewRegistry(nil)
	r.Populate(Catalog{Agents: []*agent.Agent{
		newAgent(t, agent.Config{Name: "one", Tools: []tool.Provider{same1, shared}}),
		newAgent(t, agent.Config{Name: "two", Tools: []tool.Provider{same2, shared}}),
	}})
	tools := r.Tools()
	if len(tools) != 3 {
		t.Fatalf("got %d tools, want 3 (both toolkits named same, shared once)", len(tools))
	}
	for _, want := range []tool.Provider{same1, same2, shared} {
		if n := countIdentical(tools, want); n != 1 {
			t.Errorf("toolkit %q listed %d times, want once", want.(*tool.Toolkit).Name(), n)
		}
	}
}

func countIdentical(ps []tool.Provider, want tool.Provider) int {
	n := 0
	for _, p := range ps {
		if p == want {
			n++
		}
	}
	return n
}

// A9 case 3: Condition else branches and Router choices are walked.
func TestRegistryWalksConditionElseAndRouterChoices(t *testing.T) {
	ifAgent := newAgent(t, agent.Config{Name: "if", Model: fakeModel("openai", "if-model")})
	elseAgent := newAgent(t, agent.Config{Name: "else", Model: fakeModel("openai", "else-model")})
	routeAgent := newAgent(t, agent.Config{Name: "route", Model: fakeModel("openai", "route-model")})
	wf := newWorkflow(t, workflow.Config{Name: "branches", Steps: []workflow.Node{
		&workflow.Condition{Name: "cond", Evaluator: always,
			Steps:     []workflow.Node{&workflow.Step{Name: "if_step", Agent: ifAgent}},
			ElseSteps: []workflow.Node{&workflow.Step{Name: "else_step", Agent: elseAgent}}},
		&workflow.Router{Name: "router", Selector: pickFirst,
			Choices: []workflow.Node{&workflow.Step{Name: "route_step", Agent: routeAgent}}},
	}})
	r := NewRegistry(nil)
	r.Populate(Catalog{Workflows: []*workflow.Workflow{wf}})
	if got := modelKeys(r.Models()); !slices.Equal(got, []string{"openai/else-model", "openai/if-model", "openai/route-model"}) {
		t.Fatalf("models = %v, want the if, else and route agents' models", got)
	}
}

// A9 case 4: an entry given before the walk keeps its object.
func TestRegistryKeepsPreexistingModel(t *testing.T) {
	existing := fakeModel("openai", "gpt-5.4")
	r := NewRegistry(nil)
	if !r.AddModel(existing) {
		t.Fatal("AddModel(existing) = false")
	}
	r.Populate(Catalog{Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a", Model: fakeModel("openai", "gpt-5.4")})}})
	if ms := r.Models(); len(ms) != 1 || ms[0] != model.Model(existing) {
		t.Fatalf("models = %v, want exactly the pre-existing object", modelKeys(ms))
	}
}

// Config.Tools and Config.Functions are the pre-existing entries of an
// OS: the walk does not add them again, and their names stand.
func TestOSRegistryKeepsConfiguredToolsAndFunctions(t *testing.T) {
	kit := newToolkit(t, "web", searchTool(t, "search"))
	a := newAgent(t, agent.Config{Name: "a", Tools: []tool.Provider{kit}})
	wf := newWorkflow(t, workflow.Config{Name: "w", Steps: []workflow.Node{&workflow.Step{Name: "fetch", Func: fetchData}}})
	o, err := New(Config{Agents: []*agent.Agent{a}, Workflows: []*workflow.Workflow{wf},
		Tools: []tool.Provider{kit}, Functions: map[string]any{"fetch_data_v2": workflow.StepFunc(fetchData)}})
	if err != nil {
		t.Fatal(err)
	}
	r := o.registry()
	if tools := r.Tools(); len(tools) != 1 || tools[0] != tool.Provider(kit) {
		t.Fatalf("tools = %d entries, want the configured toolkit once", len(tools))
	}
	fns := r.Functions()
	if len(fns) != 1 || fns[0].Name != "fetch_data_v2" {
		t.Fatalf("functions = %+v, want only the configured fetch_data_v2", fns)
	}
}

// A9 case 5: the entrypoint lookup warns on a name shared by different
// functions, never on one function registered twice.
func TestRegistryToolNameClashWarning(t *testing.T) {
	t.Run("different functions", func(t *testing.T) {
		log, buf := logBuffer()
		r := NewRegistry(log)
		a, b := rawTool(t, "search", searchA), rawTool(t, "search", searchB)
		r.AddTool(a)
		r.AddTool(b)
		got, ok := r.ToolFunction("search")
		if !ok || got != b {
			t.Fatalf("ToolFunction(search) = %p, want the last one %p", got, b)
		}
		if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "tool=search") {
			t.Fatalf("log = %q, want a warning naming search", buf.String())
		}
	})
	t.Run("two tool.New wrappers of one Go function", func(t *testing.T) {
		log, buf := logBuffer()
		r := NewRegistry(log)
		r.AddTool(searchTool(t, "search"))
		r.AddTool(searchTool(t, "search"))
		r.ToolFunction("search")
		if strings.Contains(buf.String(), "WARN") {
			t.Fatalf("log = %q, want no warning: both wrap the same Go function", buf.String())
		}
	})
	t.Run("tool.New of different Go functions", func(t *testing.T) {
		log, buf := logBuffer()
		r := NewRegistry(log)
		other, err := tool.New("search", "search", func(_ context.Context, a queryArgs) (string, error) { return "other " + a.Query, nil })
		if err != nil {
			t.Fatal(err)
		}
		r.AddTool(searchTool(t, "search"))
		r.AddTool(other)
		r.ToolFunction("search")
		if !strings.Contains(buf.String(), "tool=search") {
			t.Fatalf("log = %q, want a warning naming search", buf.String())
		}
	})
	t.Run("same handler twice", func(t *testing.T) {
		log, buf := logBuffer()
		r := NewRegistry(log)
		r.AddTool(rawTool(t, "search", searchA))
		r.AddTool(rawTool(t, "search", searchA))
		if n := len(r.Tools()); n != 2 {
			t.Fatalf("got %d tools, want 2 distinct Function objects", n)
		}
		if _, ok := r.ToolFunction("search"); !ok {
			t.Fatal("search not in the lookup")
		}
		if strings.Contains(buf.String(), "WARN") {
			t.Fatalf("log = %q, want no warning for one entrypoint", buf.String())
		}
	})
	t.Run("function and a toolkit's copy of it", func(t *testing.T) {
		log, buf := logBuffer()
		f := searchTool(t, "search")
		r := NewRegistry(log)
		r.AddTool(f)
		r.AddTool(newToolkit(t, "kit", f))
		r.AddTool(f)
		if n := len(r.Tools()); n != 2 {
			t.Fatalf("got %d tools, want 2 (the function once, the toolkit)", n)
		}
		r.ToolFunction("search")
		if strings.Contains(buf.String(), "WARN") {
			t.Fatalf("log = %q, want no warning: the toolkit holds a copy of the same function", buf.String())
		}
	})
}

// A9 case 5, second half.
func TestRegistryAgentWithoutToolsOrDB(t *testing.T) {
	r := NewRegistry(nil)
	r.Populate(Catalog{Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "bare"})}})
	c := r.Counts()
	if len(r.Tools()) != 0 || len(r.DBs()) != 0 || c[ResourceVectorDB] != 0 {
		t.Fatalf("tools=%d dbs=%d vector_dbs=%d, want none", len(r.Tools()), len(r.DBs()), c[ResourceVectorDB])
	}
	if c[ResourceAgent] != 1 || c[ResourceModel] != 1 {
		t.Fatalf("counts = %v, want 1 agent and its model", c)
	}
}

func TestRegistryWalksEverything(t *testing.T) {
	store, other := memory.New(), memory.New()
	kit := newToolkit(t, "kit", searchTool(t, "search"))
	lone := searchTool(t, "lookup")
	leaf := newAgent(t, agent.Config{Name: "leaf", Model: fakeModel("openai", "leaf"), Tools: []tool.Provider{lone}, Store: store,
		FallbackModels: []model.Model{fakeModel("anthropic", "fallback")},
		Fallbacks:      &agent.Fallbacks{OnRateLimit: []model.Model{fakeModel("openai", "rate")}, OnContextOverflow: []model.Model{fakeModel("openai", "long")}}})
	inner := newTeam(t, team.Config{Name: "inner", Model: fakeModel("openai", "inner"), Members: []run.Executor{leaf}, Tools: []tool.Provider{kit}})
	outer := newTeam(t, team.Config{Name: "outer", Model: fakeModel("openai", "outer"), Members: []run.Executor{inner, leaf}, Store: other})
	nested := newWorkflow(t, workflow.Config{Name: "nested", Store: store, Steps: []workflow.Node{
		&workflow.Parallel{Name: "par", Steps: []workflow.Node{
			&workflow.Step{Name: "fetch_a", Func: fetchData},
			&workflow.Step{Name: "inline", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) { return nil, nil }},
		}},
	}})
	stepAgent := newAgent(t, agent.Config{Name: "step", Model: fakeModel("openai", "step")})
	wf := newWorkflow(t, workflow.Config{Name: "main", Steps: []workflow.Node{
		&workflow.Steps{Name: "seq", Steps: []workflow.Node{&workflow.Step{Name: "team_step", Agent: outer}}},
		&workflow.Loop{Name: "loop", Steps: []workflow.Node{&workflow.Step{Name: "agent_step", Agent: stepAgent}}},
		&workflow.Step{Name: "sub", Workflow: nested},
		&workflow.Step{Name: "fetch_b", Func: fetchData},
	}})
	r := NewRegistry(nil)
	r.Populate(Catalog{Workflows: []*workflow.Workflow{wf}})

	if got, want := modelKeys(r.Models()), []string{"anthropic/fallback", "openai/inner", "openai/leaf", "openai/long", "openai/outer", "openai/rate", "openai/step"}; !slices.Equal(got, want) {
		t.Errorf("models = %v, want %v", got, want)
	}
	if n := len(r.Tools()); n != 2 || countIdentical(r.Tools(), kit) != 1 || countIdentical(r.Tools(), lone) != 1 {
		t.Errorf("tools: %d entries, want the toolkit and the lone function", n)
	}
	if n := len(r.DBs()); n != 2 {
		t.Errorf("dbs = %d, want 2 (the shared store once, the other store)", n)
	}
	var names []string
	for _, f := range r.Functions() {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"fetchData", "inline"}) {
		t.Errorf("functions = %v, want fetchData (used twice, listed once) and the literal named after its step", names)
	}
	if c := r.Counts(); c[ResourceWorkflow] != 1 || c[ResourceAgent] != 0 || c[ResourceTeam] != 0 {
		t.Errorf("counts = %v: only top-level resources are agent/team/workflow entries", c)
	}
}

// panicky is a model that breaks once armed (after the agent accepted
// it), to stand for a resource that cannot be walked.
type panicky struct{ armed *atomic.Bool }

func (p panicky) Info() model.Info {
	if p.armed.Load() {
		panic("model misconfigured")
	}
	return model.Info{ID: "broken", Provider: "openai"}
}

func (p panicky) Generate(context.Context, *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(func(*model.Chunk, error) bool) {}
}

func TestRegistryBrokenResourceDoesNotEmptyIt(t *testing.T) {
	var armed atomic.Bool
	broken := newAgent(t, agent.Config{Name: "broken", Model: panicky{&armed}})
	good := newAgent(t, agent.Config{Name: "good", Model: fakeModel("openai", "good")})
	armed.Store(true)
	log, buf := logBuffer()
	r := NewRegistry(log)
	r.Populate(Catalog{Agents: []*agent.Agent{broken, good}})
	if got := modelKeys(r.Models()); !slices.Equal(got, []string{"openai/good"}) {
		t.Fatalf("models = %v, want the good agent's", got)
	}
	if n := r.Counts()[ResourceAgent]; n != 2 {
		t.Fatalf("agents = %d, want both listed", n)
	}
	if !strings.Contains(buf.String(), "level=DEBUG") || !strings.Contains(buf.String(), "model misconfigured") {
		t.Fatalf("log = %q, want a debug record with the failure", buf.String())
	}
}

func TestOSRegistryRebuildsOnReload(t *testing.T) {
	a := newAgent(t, agent.Config{Name: "a"})
	o, err := New(Config{Agents: []*agent.Agent{a}})
	if err != nil {
		t.Fatal(err)
	}
	r1 := o.registry()
	if o.registry() != r1 {
		t.Fatal("registry rebuilt without a reload")
	}
	b := newAgent(t, agent.Config{Name: "b", Model: fakeModel("azure", "b")})
	if err := o.Replace(Catalog{Agents: []*agent.Agent{a, b}}); err != nil {
		t.Fatal(err)
	}
	r2 := o.registry()
	if r2 == r1 || r2.Counts()[ResourceAgent] != 2 || r2.Counts()[ResourceModel] != 2 {
		t.Fatalf("after reload: counts = %v, want 2 agents and 2 models", r2.Counts())
	}
}

func TestLogRegistryCounts(t *testing.T) {
	log, buf := logBuffer()
	store := memory.New()
	o, err := New(Config{Logger: log, Store: store, Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a", Store: store})}})
	if err != nil {
		t.Fatal(err)
	}
	o.LogRegistry()
	for _, want := range []string{"msg=\"agentos registry\"", "agents=1", "teams=0", "workflows=0", "models=1", "tools=0", "dbs=1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log = %q, want %s", buf.String(), want)
		}
	}
}

// --- GET /registry ---

// registryFixture is an OS with three agents, two teams and two
// workflows.
func registryFixture(t testing.TB) *OS {
	t.Helper()
	store := memory.New()
	confirm, err := tool.New("send_email", "Send an email", func(_ context.Context, a queryArgs) (string, error) { return "", nil }, tool.RequiresConfirmation())
	if err != nil {
		t.Fatal(err)
	}
	web := newToolkit(t, "web_tools", searchTool(t, "web_search"), searchTool(t, "news_search"))
	research := newAgent(t, agent.Config{Name: "Research Agent", Description: "Finds things", Model: fakeModel("openai", "gpt-5.4"), Tools: []tool.Provider{web}, Store: store})
	writer := newAgent(t, agent.Config{Name: "Writer", Model: fakeModel("anthropic", "claude"), Tools: []tool.Provider{confirm}, Store: store})
	editor := newAgent(t, agent.Config{Name: "Editor", Model: fakeModel("openai", "gpt-5.4"), Store: store})
	content := newTeam(t, team.Config{Name: "Content Team", Model: fakeModel("openai", "gpt-5.4"), Members: []run.Executor{writer, editor}, Store: store})
	review := newTeam(t, team.Config{Name: "Review Team", Model: fakeModel("openai", "o3"), Members: []run.Executor{editor}, Store: store})
	pipeline := newWorkflow(t, workflow.Config{Name: "Pipeline", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch", Func: fetchData}, &workflow.Step{Name: "research", Agent: research}}})
	publish := newWorkflow(t, workflow.Config{Name: "Publish", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "team", Agent: content}}})
	o, err := New(Config{Store: store, Agents: []*agent.Agent{research, writer, editor}, Teams: []*team.Team{content, review},
		Workflows: []*workflow.Workflow{pipeline, publish}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type registryPage struct {
	Data []RegistryEntry `json:"data"`
	Meta struct {
		Page         int      `json:"page"`
		Limit        int      `json:"limit"`
		TotalPages   int      `json:"total_pages"`
		TotalCount   int      `json:"total_count"`
		SearchTimeMS *float64 `json:"search_time_ms"`
	} `json:"meta"`
}

func getLocal(t testing.TB, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.RemoteAddr, req.Host = "127.0.0.1:40000", "localhost:7777"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func listRegistry(t *testing.T, h http.Handler, query url.Values) registryPage {
	t.Helper()
	rec := getLocal(t, h, "/registry?"+query.Encode())
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /registry?%s = %d %s", query.Encode(), rec.Code, rec.Body)
	}
	var p registryPage
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRegistryRouteCountsPerKind(t *testing.T) {
	h := registryFixture(t).Handler()
	want := map[ResourceType]int{
		ResourceAgent: 3, ResourceTeam: 2, ResourceWorkflow: 2,
		ResourceModel: 3, // openai/gpt-5.4, anthropic/claude, openai/o3
		ResourceTool:  2, ResourceDB: 1, ResourceFunction: 1,
		ResourceVectorDB: 0, ResourceSchema: 0, ResourceKnowledge: 0, ResourceMemoryManager: 0, ResourceSessionSummaryManager: 0,
	}
	total := 0
	for kind, n := range want {
		p := listRegistry(t, h, url.Values{"resource_type": {string(kind)}, "limit": {"100"}})
		if p.Meta.TotalCount != n || len(p.Data) != n {
			t.Errorf("%s: total_count=%d data=%d, want %d", kind, p.Meta.TotalCount, len(p.Data), n)
		}
		for _, e := range p.Data {
			if e.Type != kind {
				t.Errorf("%s filter returned a %s entry", kind, e.Type)
			}
		}
		total += n
	}
	if p := listRegistry(t, h, url.Values{"limit": {"100"}}); p.Meta.TotalCount != total {
		t.Errorf("unfiltered total_count=%d, want %d", p.Meta.TotalCount, total)
	}
}

func TestRegistryRouteSortAndPagination(t *testing.T) {
	h := registryFixture(t).Handler()
	all := listRegistry(t, h, url.Values{"limit": {"100"}})
	sorted := slices.IsSortedFunc(all.Data, func(a, b RegistryEntry) int {
		if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if !sorted {
		t.Fatalf("entries not sorted by (type, name): %v", all.Data)
	}
	if all.Meta.SearchTimeMS == nil {
		t.Error("meta.search_time_ms missing")
	}
	def := listRegistry(t, h, nil)
	if def.Meta.Page != 1 || def.Meta.Limit != 20 {
		t.Errorf("defaults page=%d limit=%d, want 1 and 20", def.Meta.Page, def.Meta.Limit)
	}
	var paged []RegistryEntry
	for page := 1; ; page++ {
		p := listRegistry(t, h, url.Values{"limit": {"4"}, "page": {strconv.Itoa(page)}})
		if p.Meta.TotalPages != (all.Meta.TotalCount+3)/4 || p.Meta.Page != page || p.Meta.Limit != 4 {
			t.Fatalf("page %d meta = %+v", page, p.Meta)
		}
		if len(p.Data) == 0 {
			if page != p.Meta.TotalPages+1 {
				t.Fatalf("page %d empty, total_pages=%d", page, p.Meta.TotalPages)
			}
			break
		}
		paged = append(paged, p.Data...)
	}
	if !slices.EqualFunc(paged, all.Data, func(a, b RegistryEntry) bool { return a.Type == b.Type && a.Name == b.Name }) {
		t.Fatalf("pages joined = %v, want %v", paged, all.Data)
	}
}

func TestRegistryRouteNameFilter(t *testing.T) {
	h := registryFixture(t).Handler()
	p := listRegistry(t, h, url.Values{"name": {"  TEAM "}})
	var got []string
	for _, e := range p.Data {
		got = append(got, string(e.Type)+":"+e.Name)
	}
	if !slices.Equal(got, []string{"team:Content Team", "team:Review Team"}) {
		t.Fatalf("name=TEAM → %v", got)
	}
	p = listRegistry(t, h, url.Values{"name": {"search"}, "resource_type": {"tool"}})
	if p.Meta.TotalCount != 0 {
		t.Fatalf("name filter matched a toolkit's function names: %v", p.Data)
	}
}

func TestRegistryRouteMetadata(t *testing.T) {
	h := registryFixture(t).Handler()
	byName := map[string]RegistryEntry{}
	for _, e := range listRegistry(t, h, url.Values{"limit": {"100"}}).Data {
		byName[string(e.Type)+":"+e.Name] = e
	}
	check := func(key string, want map[string]any) {
		t.Helper()
		e, ok := byName[key]
		if !ok {
			t.Fatalf("no entry %s in %v", key, byName)
		}
		for k, v := range want {
			if got, _ := json.Marshal(e.Metadata[k]); string(got) != mustJSON(v) {
				t.Errorf("%s metadata %s = %s, want %s", key, k, got, mustJSON(v))
			}
		}
	}
	research := byName["agent:Research Agent"]
	if research.ID != "research-agent" || research.Description != "Finds things" {
		t.Errorf("agent entry = %+v", research)
	}
	check("agent:Research Agent", map[string]any{"id": "research-agent", "class_path": "agno.agent.agent.Agent"})
	check("team:Content Team", map[string]any{"class_path": "agno.team.team.Team"})
	check("workflow:Pipeline", map[string]any{"id": "pipeline", "class_path": "agno.workflow.workflow.Workflow"})
	check("model:gpt-5.4", map[string]any{"provider": "openai", "model_id": "gpt-5.4", "class_path": "github.com/agno-go/agno/model/modeltest.Fake"})
	check("db:agno-db", map[string]any{"db_id": "agno-db"})
	check("function:fetchData", map[string]any{"name": "fetchData", "has_entrypoint": true, "module": "github.com/agno-go/agno/agentos", "qualname": "fetchData"})
	check("tool:send_email", map[string]any{"class_path": "agno.tools.function.Function", "requires_confirmation": true, "external_execution": false,
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string", "description": "What to look for"}}, "required": []string{"query"}}})
	check("tool:web_tools", map[string]any{"class_path": "agno.tools.toolkit.Toolkit", "is_toolkit": true})
	fns, _ := byName["tool:web_tools"].Metadata["functions"].([]any)
	if len(fns) != 2 {
		t.Fatalf("toolkit functions = %v, want web_search and news_search", fns)
	}
	first := fns[0].(map[string]any)
	if first["name"] != "web_search" || first["description"] != "Search the web" || first["parameters"] == nil {
		t.Errorf("toolkit function = %v, want name, description and parameters", first)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestRegistryRouteValidation(t *testing.T) {
	h := registryFixture(t).Handler()
	for _, tc := range []struct {
		query, param, typ, msgHas string
	}{
		{"resource_type=bogus", "resource_type", "enum", "'agent', 'team', 'workflow'"},
		{"resource_type=", "resource_type", "enum", "'session_summary_manager'"},
		{"limit=0", "limit", "greater_than_equal", "greater than or equal to 1"},
		{"limit=101", "limit", "less_than_equal", "less than or equal to 100"},
		{"limit=ten", "limit", "int_parsing", "valid integer"},
		{"page=0", "page", "greater_than_equal", "greater than or equal to 1"},
	} {
		rec := getLocal(t, h, "/registry?"+tc.query)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", tc.query, rec.Code)
			continue
		}
		var body struct {
			Detail []struct {
				Type string   `json:"type"`
				Loc  []string `json:"loc"`
				Msg  string   `json:"msg"`
			} `json:"detail"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || len(body.Detail) != 1 {
			t.Errorf("%s: body %s", tc.query, rec.Body)
			continue
		}
		d := body.Detail[0]
		if d.Type != tc.typ || !slices.Equal(d.Loc, []string{"query", tc.param}) || !strings.Contains(d.Msg, tc.msgHas) {
			t.Errorf("%s: detail %+v, want type %s loc [query %s] msg containing %q", tc.query, d, tc.typ, tc.param, tc.msgHas)
		}
	}
	// Several bad parameters are reported together, as FastAPI does.
	rec := getLocal(t, h, "/registry?resource_type=x&limit=500&page=-1")
	var body struct{ Detail []any }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusUnprocessableEntity || len(body.Detail) != 3 {
		t.Fatalf("three bad parameters → %d %s", rec.Code, rec.Body)
	}
}

func TestRegistryRouteNeedsKey(t *testing.T) {
	o := registryFixture(t)
	o.cfg.SecurityKey = "secret"
	rec := getLocal(t, o.Handler(), "/registry")
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("GET /registry without the key = %d, want 401", rec.Code)
	}
}

// Requests racing a reload each see one whole registry, old or new.
func TestRegistryRouteDuringReload(t *testing.T) {
	o := registryFixture(t)
	h := o.Handler()
	before := o.catalog().Catalog
	after := Catalog{Agents: before.Agents[:1]}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 4 {
		wg.Go(func() {
			for range 25 {
				rec := getLocal(t, h, "/registry?resource_type=agent")
				var p registryPage
				if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != http.StatusOK {
					errs <- rec.Body.String()
					return
				}
				if n := p.Meta.TotalCount; n != 1 && n != 3 {
					errs <- "agent count " + strconv.Itoa(n)
					return
				}
			}
		})
	}
	for i := range 10 {
		next := before
		if i%2 == 0 {
			next = after
		}
		if err := o.Replace(next); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkRegistryBuild(b *testing.B) {
	o := registryFixture(b)
	c := o.catalog().Catalog
	b.ReportAllocs()
	for b.Loop() {
		o.buildRegistry(c)
	}
}

func BenchmarkRegistryRoute(b *testing.B) {
	h := registryFixture(b).Handler()
	b.ReportAllocs()
	for b.Loop() {
		rec := getLocal(b, h, "/registry?limit=100")
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
