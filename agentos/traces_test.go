package agentos_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// traceEnv is an AgentOS with tracing on over real HTTP: team "crew"
// (coordinate mode) delegates to member "helper", whose tool "lookup"
// answers; both speak to a fake OpenAI server.
type traceEnv struct {
	os  *agentos.OS
	srv *httptest.Server
}

func newTraceEnv(t *testing.T, tracing agentos.TracingConfig, mods ...func(*agentos.Config)) *traceEnv {
	t.Helper()
	llm := modeltest.NewServer(modeltest.ServerConfig{NoRecord: true, Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		leader := slices.ContainsFunc(req.Tools, func(d model.ToolDefinition) bool { return d.Name == "delegate_task_to_member" })
		switch {
		case leader && last.Role == model.RoleTool:
			return modeltest.Response{Content: "The team says: " + last.Content}
		case leader:
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"helper","task":"look up the capital of France"}`)}}
		case last.Role == model.RoleTool:
			return modeltest.Response{Content: "Found: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("l1", "lookup", `{"query":"capital of France"}`)}}
	}})
	t.Cleanup(llm.Close)
	m, err := openai.New(openai.Config{ID: "fake-model", BaseURL: llm.URL, APIKey: "k", HTTPClient: llm.Client()})
	if err != nil {
		t.Fatal(err)
	}
	lookup := tool.Must(tool.New("lookup", "look a fact up", func(_ context.Context, a struct {
		Query string `json:"query"`
	}) (string, error) {
		return "Paris is the capital (" + a.Query + ")", nil
	}))
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Role: "looks facts up", Model: m, Tools: []tool.Provider{lookup}})
	if err != nil {
		t.Fatal(err)
	}
	crew, err := team.New(team.Config{ID: "crew", Name: "Research Crew", Model: m, Members: []run.Executor{helper}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agentos.Config{Teams: []*team.Team{crew}, Store: st, DB: sqldbtest.SQLite(t), Tracing: tracing,
		Logger: slog.New(slog.DiscardHandler)}
	for _, m := range mods {
		m(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &traceEnv{os: o, srv: httptest.NewServer(o.Handler())}
	t.Cleanup(func() {
		e.srv.Close()
		if err := o.Close(); err != nil {
			t.Error(err)
		}
		_ = st.Close()
	})
	return e
}

// runTeam runs the team over HTTP and waits for its spans to be stored.
func (e *traceEnv) runTeam(t *testing.T, sessionID, userID string) map[string]any {
	t.Helper()
	out := runComponent(t, e.srv, "/teams/crew/runs", "What is the capital of France?", sessionID, userID)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.os.FlushTraces(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// keysOf is the key set of a JSON object and which keys are null.
func keysOf(m map[string]any) (keys, nulls []string) {
	for k, v := range m {
		keys = append(keys, k)
		if v == nil {
			nulls = append(nulls, k)
		}
	}
	sort.Strings(keys)
	sort.Strings(nulls)
	return keys, nulls
}

// wantKeys compares a JSON object's keys with a model's fields: agno's
// trace routes drop None fields (response_model_exclude_none), so the
// keys are the required fields plus the optional ones that are set.
func wantKeys(t *testing.T, what string, m map[string]any, required, optional []string, present ...string) {
	t.Helper()
	want := append(append([]string{}, required...), present...)
	sort.Strings(want)
	keys, nulls := keysOf(m)
	if !slices.Equal(keys, want) {
		t.Errorf("%s keys = %v, want %v", what, keys, want)
	}
	if len(nulls) > 0 {
		t.Errorf("%s has null fields %v; the route leaves None out", what, nulls)
	}
	for _, k := range present {
		if !slices.Contains(optional, k) {
			t.Errorf("%s: %q is not an optional field of the model", what, k)
		}
	}
}

// Fields of agno's models (libs/agno/agno/os/routers/traces/schemas.py).
var (
	summaryRequired = []string{"trace_id", "name", "status", "duration", "start_time", "end_time", "total_spans", "error_count", "created_at"}
	summaryOptional = []string{"input", "run_id", "session_id", "user_id", "agent_id", "team_id", "workflow_id"}
	detailRequired  = append(slices.Clone(summaryRequired), "tree")
	detailOptional  = append(slices.Clone(summaryOptional), "output", "error")
	nodeRequired    = []string{"id", "name", "type", "duration", "start_time", "end_time", "status"}
	nodeOptional    = []string{"input", "output", "error", "spans", "step_type", "metadata", "extra_data"}
	statsRequired   = []string{"session_id", "total_traces", "first_trace_at", "last_trace_at"}
	statsOptional   = []string{"user_id", "agent_id", "team_id", "workflow_id"}
	metaKeys        = []string{"limit", "page", "search_time_ms", "total_count", "total_pages"}
)

func child(t *testing.T, n map[string]any, typ, name string) map[string]any {
	t.Helper()
	for _, c := range list(n["spans"]) {
		if c := obj(c); c["type"] == typ && (name == "" || c["name"] == name) {
			return c
		}
	}
	t.Fatalf("%v %v has no %s child %q: %v", n["type"], n["name"], typ, name, n["spans"])
	return nil
}

func kinds(n map[string]any) []string {
	var out []string
	for _, c := range list(n["spans"]) {
		out = append(out, obj(c)["type"].(string))
	}
	return out
}

// TestTracesEndToEnd runs a team whose member calls a tool over HTTP with
// tracing on, then reads the trace back through every trace route.
func TestTracesEndToEnd(t *testing.T) {
	e := newTraceEnv(t, agentos.TracingConfig{Enabled: true})
	out := e.runTeam(t, "sess-1", "alice")
	runID, _ := out["run_id"].(string)
	if runID == "" || !strings.Contains(out["content"].(string), "Paris") {
		t.Fatalf("team run = %v", out)
	}

	// GET /traces lists the run's one trace with its context.
	page := obj(mustCall(t, e.srv, 200, "GET", "/traces?team_id=crew", nil))
	if keys, _ := keysOf(obj(page["meta"])); !slices.Equal(keys, metaKeys) {
		t.Errorf("meta keys = %v", keys)
	}
	data := list(page["data"])
	if len(data) != 1 || obj(page["meta"])["total_count"] != 1.0 {
		t.Fatalf("GET /traces?team_id=crew = %v, want one trace", page)
	}
	sum := obj(data[0])
	wantKeys(t, "TraceSummary", sum, summaryRequired, summaryOptional, "input", "run_id", "session_id", "user_id", "team_id")
	if sum["run_id"] != runID || sum["session_id"] != "sess-1" || sum["user_id"] != "alice" || sum["team_id"] != "crew" ||
		sum["status"] != "OK" || sum["name"] != "Research_Crew.run" || sum["input"] != "What is the capital of France?" {
		t.Errorf("trace summary = %v", sum)
	}
	// Team, 2 leader model calls, the delegation, the member, its 2 model
	// calls and its tool call.
	if sum["total_spans"] != 8.0 || sum["error_count"] != 0.0 {
		t.Errorf("spans = %v errors = %v, want 8 and 0", sum["total_spans"], sum["error_count"])
	}
	if d, _ := sum["duration"].(string); !strings.HasSuffix(d, "ms") && !strings.HasSuffix(d, "s") {
		t.Errorf("duration = %q", d)
	}
	wantISO6(t, "start_time", sum["start_time"])
	wantISO6(t, "created_at", sum["created_at"])
	traceID := sum["trace_id"].(string)

	// GET /traces/{id}: TEAM → (LLM, TOOL delegate → AGENT → (LLM, TOOL, LLM), LLM).
	d := obj(mustCall(t, e.srv, 200, "GET", "/traces/"+traceID, nil))
	wantKeys(t, "TraceDetail", d, detailRequired, detailOptional, "input", "output", "run_id", "session_id", "user_id", "team_id")
	if !strings.Contains(d["output"].(string), "Paris") {
		t.Errorf("trace output = %v", d["output"])
	}
	tree := list(d["tree"])
	if len(tree) != 1 {
		t.Fatalf("tree = %v, want one root", tree)
	}
	root := obj(tree[0])
	wantKeys(t, "root TraceNode", root, nodeRequired, nodeOptional, "spans", "metadata")
	if root["type"] != "TEAM" || root["name"] != "Research_Crew.run" || root["status"] != "OK" {
		t.Errorf("root = %v %v %v", root["type"], root["name"], root["status"])
	}
	if md := obj(root["metadata"]); md["total_input_tokens"] == nil || md["total_output_tokens"] == nil {
		t.Errorf("root metadata = %v, want token totals", md)
	}
	if got := kinds(root); !slices.Equal(got, []string{"LLM", "TOOL", "LLM"}) {
		t.Errorf("team children = %v", got)
	}
	llm := child(t, root, "LLM", "")
	wantKeys(t, "LLM TraceNode", llm, nodeRequired, nodeOptional, "input", "output", "metadata")
	if md := obj(llm["metadata"]); md["model"] != "fake-model" || md["input_tokens"] == nil {
		t.Errorf("LLM metadata = %v", md)
	}
	if !strings.HasSuffix(llm["name"].(string), ".invoke") {
		t.Errorf("LLM span name = %v", llm["name"])
	}
	del := child(t, root, "TOOL", "delegate_task_to_member")
	if md := obj(del["metadata"]); md["tool_name"] != "delegate_task_to_member" || !strings.Contains(md["parameters"].(string), "helper") {
		t.Errorf("delegation metadata = %v", md)
	}
	member := child(t, del, "AGENT", "Helper.run")
	if md := obj(member["metadata"]); md["run_id"] == nil || md["run_id"] == runID {
		t.Errorf("member metadata = %v, want the member's own run id", md)
	}
	if got := kinds(member); !slices.Equal(got, []string{"LLM", "TOOL", "LLM"}) {
		t.Errorf("member children = %v", got)
	}
	lookup := child(t, member, "TOOL", "lookup")
	wantKeys(t, "TOOL TraceNode", lookup, nodeRequired, nodeOptional, "input", "output", "metadata")
	if !strings.Contains(lookup["output"].(string), "Paris") || lookup["input"] != `{"query":"capital of France"}` {
		t.Errorf("lookup = %v", lookup)
	}

	// One span by id; a span of another trace, a missing trace, a bad span.
	sp := obj(mustCall(t, e.srv, 200, "GET", "/traces/"+traceID+"?span_id="+lookup["id"].(string), nil))
	wantKeys(t, "TraceNode", sp, nodeRequired, nodeOptional, "input", "output", "metadata")
	wantDetail(t, mustCall(t, e.srv, 404, "GET", "/traces/nope", nil), "Trace not found")
	wantDetail(t, mustCall(t, e.srv, 404, "GET", "/traces/"+traceID+"?span_id=nope", nil), "Span not found")
	wantDetail(t, mustCall(t, e.srv, 404, "GET", "/traces/other?span_id="+lookup["id"].(string), nil),
		"Span "+lookup["id"].(string)+" does not belong to trace other")

	// Search by run id, as details and as session stats.
	res := obj(mustCall(t, e.srv, 200, "POST", "/traces/search", map[string]any{"filter": map[string]any{"op": "EQ", "key": "run_id", "value": runID}}))
	if got := list(res["data"]); len(got) != 1 || obj(got[0])["trace_id"] != traceID || len(list(obj(got[0])["tree"])) != 1 {
		t.Errorf("search by run_id = %v", res)
	}
	res = obj(mustCall(t, e.srv, 200, "POST", "/traces/search", map[string]any{"group_by": "session",
		"filter": map[string]any{"op": "AND", "conditions": []any{
			map[string]any{"op": "CONTAINS", "key": "team_id", "value": "CRE"},
			map[string]any{"op": "NOT", "condition": map[string]any{"op": "EQ", "key": "status", "value": "ERROR"}}}}}))
	if got := list(res["data"]); len(got) != 1 {
		t.Errorf("session search = %v", res)
	} else {
		st := obj(got[0])
		wantKeys(t, "TraceSessionStats", st, statsRequired, statsOptional, "user_id", "team_id")
		if st["session_id"] != "sess-1" || st["total_traces"] != 1.0 {
			t.Errorf("session stats = %v", st)
		}
	}
	res = obj(mustCall(t, e.srv, 200, "POST", "/traces/search", map[string]any{"filter": map[string]any{"op": "EQ", "key": "run_id", "value": "other"}}))
	if len(list(res["data"])) != 0 {
		t.Errorf("search for another run = %v", res)
	}

	// GET /trace_session_stats.
	stats := obj(mustCall(t, e.srv, 200, "GET", "/trace_session_stats?user_id=alice", nil))
	if got := list(stats["data"]); len(got) != 1 || obj(got[0])["session_id"] != "sess-1" {
		t.Errorf("session stats = %v", stats)
	}
}

func wantISO6(t *testing.T, what string, v any) {
	t.Helper()
	s, _ := v.(string)
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil || !strings.HasSuffix(s, "Z") {
		t.Errorf("%s = %v, want an ISO 8601 UTC datetime ending in Z", what, v)
	}
}

// TestTracesBadInput checks agno's answers to bad filters and parameters.
func TestTracesBadInput(t *testing.T) {
	e := newTraceEnv(t, agentos.TracingConfig{})
	for _, c := range []struct {
		body   any
		status int
		detail string
	}{
		{map[string]any{"filter": map[string]any{"op": "LIKE", "key": "name", "value": "x"}}, 400, "Invalid filter expression: Unknown filter operator: LIKE"},
		{map[string]any{"filter": map[string]any{"key": "name"}}, 400, `Invalid filter expression: Invalid filter dictionary: must contain 'op' key. Got: {"key":"name"}`},
		{map[string]any{"filter": map[string]any{"op": "EQ", "key": "name"}}, 400, `Invalid filter expression: EQ filter requires 'key' and 'value' fields. Got: {"key":"name","op":"EQ"}`},
		{map[string]any{"filter": map[string]any{"op": "EQ", "key": "password", "value": "x"}}, 400,
			"Invalid filter expression: Invalid filter field: 'password'. Allowed: ['agent_id', 'created_at', 'duration_ms', 'end_time', 'name', 'run_id', 'session_id', 'start_time', 'status', 'team_id', 'trace_id', 'user_id', 'workflow_id']"},
		{map[string]any{"filter": map[string]any{"op": "GT", "key": "duration_ms", "value": "slow"}}, 400, `Invalid filter expression: Invalid filter value for 'duration_ms': "slow" is not a number`},
		{map[string]any{"filter": map[string]any{"op": "AND", "conditions": []any{}}}, 400, `Invalid filter expression: AND filter requires 'conditions' field. Got: {"conditions":[],"op":"AND"}`},
	} {
		wantDetail(t, mustCall(t, e.srv, c.status, "POST", "/traces/search", c.body), c.detail)
	}
	deep := map[string]any{"op": "EQ", "key": "name", "value": "x"}
	for range 12 {
		deep = map[string]any{"op": "NOT", "condition": deep}
	}
	wantDetail(t, mustCall(t, e.srv, 400, "POST", "/traces/search", map[string]any{"filter": deep}),
		"Invalid filter expression: Filter expression exceeds maximum nesting depth of 10")
	wantFieldError(t, mustCall(t, e.srv, 422, "POST", "/traces/search", map[string]any{"limit": 101}), "body", "limit")
	wantFieldError(t, mustCall(t, e.srv, 422, "POST", "/traces/search", map[string]any{"group_by": "user"}), "body", "group_by")
	wantFieldError(t, mustCall(t, e.srv, 422, "POST", "/traces/search", map[string]any{"filter": "status=OK"}), "body", "filter")
	wantFieldError(t, mustCall(t, e.srv, 422, "GET", "/traces?limit=0", nil), "query", "limit")
	wantFieldError(t, mustCall(t, e.srv, 422, "GET", "/trace_session_stats?page=0", nil), "query", "page")
	v := mustCall(t, e.srv, 400, "GET", "/traces?start_time=yesterday", nil)
	if d, _ := obj(v)["detail"].(string); !strings.HasPrefix(d, "Invalid start_time format. Use ISO 8601 format") {
		t.Errorf("bad start_time: %v", v)
	}
	wantDetail(t, mustCall(t, e.srv, 404, "GET", "/traces?db_id=other", nil), "No database found with id 'other'")

	// Without tracing the routes answer, with nothing recorded.
	e.runTeam(t, "s", "u")
	if got := list(obj(mustCall(t, e.srv, 200, "GET", "/traces", nil))["data"]); len(got) != 0 {
		t.Errorf("traces with tracing off = %v", got)
	}
	schema := obj(mustCall(t, e.srv, 200, "GET", "/traces/filter-schema", nil))
	if keys, _ := keysOf(schema); !slices.Equal(keys, []string{"fields", "logical_operators"}) {
		t.Errorf("filter schema keys = %v", keys)
	}
	fields := list(schema["fields"])
	if len(fields) != 13 {
		t.Fatalf("filter schema has %d fields, want agno's 13", len(fields))
	}
	for _, f := range fields {
		keys, nulls := keysOf(obj(f))
		if !slices.Equal(keys, []string{"key", "label", "operators", "type", "values"}) {
			t.Errorf("filter field keys = %v", keys)
		}
		if (obj(f)["key"] == "status") == slices.Contains(nulls, "values") {
			t.Errorf("filter field %v: values must be null except for status (the route keeps None)", f)
		}
	}
}

// TestTracesOTLP exports the spans of a run to an OTLP/HTTP collector
// besides the database.
func TestTracesOTLP(t *testing.T) {
	var (
		mu    sync.Mutex
		names []string
		kinds []string
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			t.Errorf("collector: %v", err)
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
					for _, kv := range s.Attributes {
						if kv.Key == "openinference.span.kind" {
							kinds = append(kinds, kv.Value.GetStringValue())
						}
					}
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	defer collector.Close()
	e := newTraceEnv(t, agentos.TracingConfig{Enabled: true, OTLPEndpoint: collector.URL})
	e.runTeam(t, "s-otlp", "bob")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(names, "Research_Crew.run") || !slices.Contains(names, "Helper.run") ||
		!slices.Contains(names, "lookup") || !slices.Contains(names, "delegate_task_to_member") {
		t.Errorf("collector received spans %v", names)
	}
	for _, k := range []string{"AGENT", "LLM", "TOOL"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("collector received no %s span: %v", k, kinds)
		}
	}
	// The database has them too.
	if got := list(obj(mustCall(t, e.srv, 200, "GET", "/traces?session_id=s-otlp", nil))["data"]); len(got) != 1 {
		t.Errorf("stored traces = %v", got)
	}
}

// TestTracesUserIsolation: under JWT user isolation a user reads only the
// traces of its own runs, whatever user_id it asks for.
func TestTracesUserIsolation(t *testing.T) {
	e := newTraceEnv(t, agentos.TracingConfig{Enabled: true}, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	j := &jwtOS{srv: e.srv}
	alice := tokenFor(t, "alice", "teams:run", "teams:read", "traces:read")
	bob := tokenFor(t, "bob", "traces:read")
	out := j.ok(t, alice, "POST", "/teams/crew/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"sa"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.os.FlushTraces(ctx); err != nil {
		t.Fatal(err)
	}
	mine := list(j.ok(t, alice, "GET", "/traces", nil)["data"])
	if len(mine) != 1 || obj(mine[0])["run_id"] != out["run_id"] || obj(mine[0])["user_id"] != "alice" {
		t.Fatalf("alice's traces = %v", mine)
	}
	traceID := obj(mine[0])["trace_id"].(string)
	if got := list(j.ok(t, bob, "GET", "/traces?user_id=alice", nil)["data"]); len(got) != 0 {
		t.Errorf("bob lists alice's traces: %v", got)
	}
	if r := j.call(t, bob, "GET", "/traces/"+traceID, nil); r.status != 404 {
		t.Errorf("bob reads alice's trace: %d %s", r.status, r.body)
	}
	search := map[string]any{"filter": map[string]any{"op": "EQ", "key": "user_id", "value": "alice"}}
	if got := list(j.ok(t, bob, "POST", "/traces/search", search)["data"]); len(got) != 0 {
		t.Errorf("bob finds alice's traces: %v", got)
	}
	if got := list(j.ok(t, bob, "GET", "/trace_session_stats", nil)["data"]); len(got) != 0 {
		t.Errorf("bob sees alice's sessions: %v", got)
	}
	if got := list(j.ok(t, alice, "POST", "/traces/search", search)["data"]); len(got) != 1 {
		t.Errorf("alice's own search = %v", got)
	}
}
