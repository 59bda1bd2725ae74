package agentos_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// agno's EvalSchema (os/routers/evals/schemas.py), field by field.
var agnoEvalSchema = []string{"id", "agent_id", "model_id", "model_provider", "team_id", "workflow_id", "name",
	"evaluated_component_name", "eval_type", "eval_data", "eval_input", "created_at", "updated_at"}

// evalEnv is an AgentOS whose agents and team talk to one fake OpenAI
// server; calls records which model each request named and whether it
// was a judge's.
type evalEnv struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string // "model" or "judge:model"
}

func (e *evalEnv) took() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.calls
	e.calls = nil
	return out
}

func newEvalEnv(t *testing.T, db *sqldb.DB, mods ...func(*agentos.Config)) *evalEnv {
	t.Helper()
	e := &evalEnv{}
	var llm *modeltest.Server
	llm = modeltest.NewServer(modeltest.ServerConfig{Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		reqs := llm.Requests()
		var body struct {
			Model string `json:"model"`
		}
		_ = reqs[len(reqs)-1].Decode(&body)
		judge := req.ResponseFormat != nil
		e.mu.Lock()
		if judge {
			e.calls = append(e.calls, "judge:"+body.Model)
		} else {
			e.calls = append(e.calls, body.Model)
		}
		e.mu.Unlock()
		switch {
		case judge && strings.Contains(last.Content, "bad judge"):
			return modeltest.Response{Content: "It looks fine to me."}
		case judge && req.ResponseFormat.Name == "AccuracyAgentResponse":
			return modeltest.Response{Content: `{"accuracy_score": 9, "accuracy_reason": "matches the expected 4"}`}
		case judge && req.ResponseFormat.Name == "BinaryJudgeResponse":
			return modeltest.Response{Content: `{"passed": true, "reason": "polite"}`}
		case last.Role == model.RoleTool && strings.HasPrefix(last.Content, "50"):
			return modeltest.Response{Content: "10 times 5 is 50"}
		case last.Role == model.RoleTool:
			return modeltest.Response{Content: "Team says: " + last.Content}
		case strings.Contains(last.Content, "times"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "multiply", `{"a": 10, "b": 5}`)}}
		case strings.Contains(last.Content, "delegate"):
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"helper","task":"say hi"}`)}}
		}
		return modeltest.Response{Content: "4"}
	}})
	t.Cleanup(llm.Close)
	newModel := func(id string) model.Model {
		m, err := openai.New(openai.Config{ID: id, BaseURL: llm.URL, APIKey: "k", HTTPClient: llm.Client(), MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	mul := tool.Must(tool.New("multiply", "Multiply two numbers", func(_ context.Context, a struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return a.A * a.B, nil
	}))
	calc, err := agent.New(agent.Config{Name: "Calc", Model: newModel("gpt-4o"), Tools: []tool.Provider{mul}})
	if err != nil {
		t.Fatal(err)
	}
	helper, err := agent.New(agent.Config{Name: "Helper", Model: newModel("gpt-4o-mini")})
	if err != nil {
		t.Fatal(err)
	}
	crew, err := team.New(team.Config{Name: "Crew", Model: newModel("gpt-4o"), Members: []run.Executor{helper}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agentos.Config{Agents: []*agent.Agent{calc, helper}, Teams: []*team.Team{crew}, DB: db, DBID: "agno-db",
		Logger: slog.New(slog.DiscardHandler)}
	for _, m := range mods {
		m(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		e.srv.Close()
		_ = o.Close()
	})
	return e
}

func evalWantDetail(t *testing.T, what string, v any, want string) {
	t.Helper()
	if got := obj(v)["detail"]; got != want {
		t.Fatalf("%s: detail %v, want %q", what, got, want)
	}
}

func evalWantValidation(t *testing.T, what string, v any, loc, typ string) {
	t.Helper()
	items := list(obj(v)["detail"])
	if len(items) != 1 {
		t.Fatalf("%s: %v", what, v)
	}
	it := obj(items[0])
	var parts []string
	for _, p := range list(it["loc"]) {
		parts = append(parts, fmt.Sprint(p))
	}
	if strings.Join(parts, ".") != loc || it["type"] != typ {
		t.Fatalf("%s: %v, want loc %s type %s", what, it, loc, typ)
	}
}

// End to end over HTTP, on SQLite and Postgres: accuracy (the agent's
// model judges, also when the agent runs on another model), reliability
// with expected tool calls and arguments, performance of a team,
// agent-as-judge; then list, get, rename and delete.
func TestEvalsEndToEnd(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEvalEnv(t, db)
		srv := e.srv

		// Accuracy: calc answers "4", its own model (gpt-4o) judges.
		acc := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"agent_id": "calc", "eval_type": "accuracy",
			"input": "What is 2+2?", "expected_output": "4", "name": "sums", "additional_guidelines": "Numbers must match."}))
		// agno builds the answer from the eval: no eval_input, no times.
		wantShape(t, "POST accuracy", acc, agnoEvalSchema, agnoEvalSchema,
			[]string{"team_id", "workflow_id", "evaluated_component_name", "eval_input", "created_at", "updated_at"})
		data := obj(acc["eval_data"])
		res := obj(list(data["results"])[0])
		if acc["agent_id"] != "calc" || acc["model_id"] != "gpt-4o" || acc["model_provider"] != "OpenAI" || acc["eval_type"] != "accuracy" ||
			acc["name"] != "sums" || data["avg_score"] != 9.0 || data["std_dev_score"] != 0.0 || res["output"] != "4" || res["score"] != 9.0 ||
			res["reason"] != "matches the expected 4" || res["expected_output"] != "4" {
			t.Fatalf("accuracy %v", acc)
		}
		if got := strings.Join(e.took(), ","); got != "gpt-4o,judge:gpt-4o" {
			t.Fatalf("accuracy model calls %s", got)
		}

		// On another served model: the agent answers on gpt-4o-mini and
		// its own gpt-4o judges, as agno's default_model.
		acc2 := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"agent_id": "calc", "eval_type": "accuracy",
			"input": "What is 2+2?", "expected_output": "4", "model_id": "gpt-4o-mini", "model_provider": "OpenAI", "num_iterations": 2, "name": "alpha"}))
		if acc2["model_id"] != "gpt-4o-mini" || len(list(obj(acc2["eval_data"])["results"])) != 2 {
			t.Fatalf("accuracy on another model %v", acc2)
		}
		if got := strings.Join(e.took(), ","); got != "gpt-4o-mini,judge:gpt-4o,gpt-4o-mini,judge:gpt-4o" {
			t.Fatalf("override model calls %s", got)
		}

		// Reliability: calc calls multiply(a=10, b=5).
		rel := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"agent_id": "calc", "eval_type": "reliability",
			"input": "What is 10 times 5?", "expected_tool_calls": []string{"multiply"},
			"expected_tool_call_arguments": map[string]any{"multiply": map[string]any{"a": 10}}}))
		wantShape(t, "POST reliability", rel, agnoEvalSchema, agnoEvalSchema,
			[]string{"team_id", "workflow_id", "name", "evaluated_component_name", "eval_input", "created_at", "updated_at"})
		rd := obj(rel["eval_data"])
		if rd["eval_status"] != "PASSED" || fmt.Sprint(rd["passed_tool_calls"]) != "[multiply]" || fmt.Sprint(rd["failed_tool_calls"]) != "[]" ||
			fmt.Sprint(rd["passed_argument_checks"]) != "[multiply]" || fmt.Sprint(rd["missing_tool_calls"]) != "[]" {
			t.Fatalf("reliability %v", rel)
		}
		relFail := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"agent_id": "calc", "eval_type": "reliability",
			"input": "What is 10 times 5?", "expected_tool_calls": []string{"add"}}))
		if d := obj(relFail["eval_data"]); d["eval_status"] != "FAILED" || fmt.Sprint(d["failed_tool_calls"]) != "[multiply]" || fmt.Sprint(d["missing_tool_calls"]) != "[add]" {
			t.Fatalf("failing reliability %v", relFail)
		}

		// Performance of the team: one warm-up and two measured runs.
		e.took()
		perf := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"team_id": "crew", "eval_type": "performance",
			"input": "hi", "num_iterations": 2, "warmup_runs": 1}))
		pd := obj(perf["eval_data"])
		if perf["team_id"] != "crew" || perf["agent_id"] != nil || len(list(pd["run_times"])) != 2 || len(list(pd["memory_usages"])) != 2 ||
			pd["avg_run_time"].(float64) <= 0 || len(e.took()) != 3 {
			t.Fatalf("performance %v", perf)
		}

		// Agent as judge, binary.
		judged := obj(mustCall(t, srv, 200, "POST", "/eval-runs", map[string]any{"agent_id": "calc", "eval_type": "agent_as_judge",
			"input": "greet me", "criteria": "Is polite"}))
		if jd := obj(judged["eval_data"]); judged["eval_type"] != "agent_as_judge" || jd["pass_rate"] != 100.0 || jd["run_id"] != judged["id"] ||
			obj(list(jd["results"])[0])["passed"] != true || jd["avg_score"] != nil {
			t.Fatalf("agent as judge %v", judged)
		}

		// Listing: agno's PaginatedResponse with the stored runs.
		page := obj(mustCall(t, srv, 200, "GET", "/eval-runs", nil))
		wantShape(t, "meta", obj(page["meta"]), agnoPagination, agnoPagination, nil)
		meta := obj(page["meta"])
		if meta["total_count"] != 6.0 || meta["page"] != 1.0 || meta["limit"] != 20.0 || meta["total_pages"] != 1.0 || len(list(page["data"])) != 6 {
			t.Fatalf("list %v", page)
		}
		for _, it := range list(page["data"]) {
			m := obj(it)
			wantISO(t, "created_at", m["created_at"])
			wantISO(t, "updated_at", m["updated_at"])
			if m["eval_input"] == nil {
				t.Fatalf("stored run without eval_input: %v", m)
			}
		}
		count := func(query string) (int, []any) {
			p := obj(mustCall(t, srv, 200, "GET", "/eval-runs?"+query, nil))
			return int(obj(p["meta"])["total_count"].(float64)), list(p["data"])
		}
		for query, want := range map[string]int{
			"eval_types=accuracy,reliability": 4, "eval_types=performance": 1, "type=team": 1, "type=agent": 5, "type=workflow": 0,
			"agent_id=calc": 5, "team_id=crew": 1, "model_id=gpt-4o-mini": 1, "agent_id=calc&model_id=gpt-4o&eval_types=accuracy": 1,
			"limit=4&page=2": 6, "limit=4&page=3": 0, // agno counts 0 on an empty page
		} {
			if n, _ := count(query); n != want {
				t.Errorf("%s: total %d, want %d", query, n, want)
			}
		}
		if _, items := count("sort_by=name&sort_order=asc&eval_types=accuracy"); len(items) != 2 || obj(items[0])["name"] != "alpha" || obj(items[1])["name"] != "sums" {
			t.Fatalf("sorted by name: %v", items)
		}
		if _, items := count("limit=4&page=2"); len(items) != 2 {
			t.Fatalf("second page %v", items)
		}

		// One stored run: what agno stores, with eval_input and times.
		got := obj(mustCall(t, srv, 200, "GET", "/eval-runs/"+acc["id"].(string), nil))
		wantShape(t, "GET accuracy", got, agnoEvalSchema, agnoEvalSchema, []string{"team_id", "workflow_id"})
		in := obj(got["eval_input"])
		if got["evaluated_component_name"] != "Calc" || in["input"] != "What is 2+2?" || in["expected_output"] != "4" ||
			in["additional_guidelines"] != "Numbers must match." || in["additional_context"] != nil || in["num_iterations"] != 1.0 ||
			obj(got["eval_data"])["avg_score"] != 9.0 {
			t.Fatalf("stored accuracy %v", got)
		}
		gotPerf := obj(mustCall(t, srv, 200, "GET", "/eval-runs/"+perf["id"].(string), nil))
		if pr := obj(gotPerf["eval_data"]); len(list(pr["runs"])) != 2 || obj(pr["result"])["avg_run_time"] != pd["avg_run_time"] ||
			obj(gotPerf["eval_input"])["warmup_runs"] != 1.0 || gotPerf["evaluated_component_name"] != "Crew" {
			t.Fatalf("stored performance %v", gotPerf)
		}
		gotRel := obj(mustCall(t, srv, 200, "GET", "/eval-runs/"+rel["id"].(string), nil))
		if ri := obj(gotRel["eval_input"]); fmt.Sprint(ri["expected_tool_calls"]) != "[multiply]" || ri["allow_additional_tool_calls"] != false ||
			fmt.Sprint(obj(ri["expected_tool_call_arguments"])["multiply"]) != "map[a:10]" {
			t.Fatalf("stored reliability %v", gotRel)
		}
		_, v := call(t, srv, "GET", "/eval-runs/nope", nil)
		evalWantDetail(t, "unknown run", v, "Eval run with id 'nope' not found")

		// Rename.
		renamed := obj(mustCall(t, srv, 200, "PATCH", "/eval-runs/"+rel["id"].(string), map[string]any{"name": "tool check"}))
		wantShape(t, "PATCH", renamed, agnoEvalSchema, agnoEvalSchema, []string{"team_id", "workflow_id", "evaluated_component_name"})
		if renamed["name"] != "tool check" || renamed["id"] != rel["id"] {
			t.Fatalf("renamed %v", renamed)
		}
		status, v := call(t, srv, "PATCH", "/eval-runs/nope", map[string]any{"name": "x"})
		if status != 404 {
			t.Fatalf("rename unknown: %d %v", status, v)
		}
		evalWantDetail(t, "rename unknown", v, "Eval run with id 'nope' not found")

		// Delete many; unknown ids are ignored.
		if status, v := call(t, srv, "DELETE", "/eval-runs", map[string]any{"eval_run_ids": []any{acc["id"], acc2["id"], "nope"}}); status != 204 || v != nil {
			t.Fatalf("delete: %d %v", status, v)
		}
		if status, _ := call(t, srv, "GET", "/eval-runs/"+acc["id"].(string), nil); status != 404 {
			t.Fatalf("deleted run answers %d", status)
		}
		if n, _ := count(""); n != 4 {
			t.Fatalf("%d runs after delete", n)
		}
	})
}

// Bad requests get agno's status and text, and store nothing.
func TestEvalsBadRequests(t *testing.T) {
	e := newEvalEnv(t, sqldbtest.SQLite(t))
	srv := e.srv
	post := func(body any) (int, any) { return call(t, srv, "POST", "/eval-runs", body) }
	for _, tc := range []struct {
		body   map[string]any
		status int
		detail string
	}{
		{map[string]any{"agent_id": "calc", "team_id": "crew", "eval_type": "accuracy", "input": "x"}, 400, "Only one of agent_id or team_id must be provided"},
		{map[string]any{"eval_type": "accuracy", "input": "x"}, 400, "One of agent_id or team_id must be provided"},
		{map[string]any{"agent_id": "nope", "eval_type": "accuracy", "input": "x"}, 404, "Agent with id 'nope' not found"},
		{map[string]any{"team_id": "nope", "eval_type": "accuracy", "input": "x"}, 404, "Team with id 'nope' not found"},
		{map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "x"}, 400, "expected_output is required for accuracy evaluation"},
		{map[string]any{"agent_id": "calc", "eval_type": "reliability", "input": "x"}, 400, "expected_tool_calls is required for reliability evaluations"},
		{map[string]any{"agent_id": "calc", "eval_type": "reliability", "input": "x", "expected_tool_calls": nil}, 400, "expected_tool_calls is required for reliability evaluations"},
		{map[string]any{"agent_id": "calc", "eval_type": "agent_as_judge", "input": "x"}, 400, "criteria is required for agent-as-judge evaluation"},
	} {
		status, v := post(tc.body)
		if status != tc.status {
			t.Fatalf("%v: %d %v", tc.body, status, v)
		}
		evalWantDetail(t, fmt.Sprint(tc.body), v, tc.detail)
	}
	for _, tc := range []struct {
		body     map[string]any
		loc, typ string
	}{
		{map[string]any{"agent_id": "calc", "input": "x"}, "body.eval_type", "missing"},
		{map[string]any{"agent_id": "calc", "eval_type": "speed", "input": "x"}, "body.eval_type", "enum"},
		{map[string]any{"agent_id": "calc", "eval_type": "accuracy"}, "body.input", "missing"},
		{map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": ""}, "body.input", "string_too_short"},
		{map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "x", "num_iterations": 0}, "body.num_iterations", "greater_than_equal"},
		{map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "x", "num_iterations": 101}, "body.num_iterations", "less_than_equal"},
		{map[string]any{"agent_id": "calc", "eval_type": "agent_as_judge", "input": "x", "scoring_strategy": "stars"}, "body.scoring_strategy", "literal_error"},
		{map[string]any{"agent_id": "calc", "eval_type": "agent_as_judge", "input": "x", "threshold": 11}, "body.threshold", "less_than_equal"},
		{map[string]any{"agent_id": "calc", "eval_type": "performance", "input": "x", "warmup_runs": 11}, "body.warmup_runs", "less_than_equal"},
		{map[string]any{"agent_id": "calc", "eval_type": "reliability", "input": "x", "expected_tool_calls": "multiply"}, "body.expected_tool_calls", "list_type"},
	} {
		status, v := post(tc.body)
		if status != 422 {
			t.Fatalf("%v: %d %v", tc.body, status, v)
		}
		evalWantValidation(t, fmt.Sprint(tc.body), v, tc.loc, tc.typ)
	}
	// expected_tool_calls = [] is a request (agno checks `is None`): no
	// tool call is expected, so calc's multiply fails it.
	status, v := post(map[string]any{"agent_id": "calc", "eval_type": "reliability", "input": "What is 10 times 5?", "expected_tool_calls": []string{}})
	if d := obj(obj(v)["eval_data"]); status != 200 || d["eval_status"] != "FAILED" || fmt.Sprint(d["failed_tool_calls"]) != "[multiply]" {
		t.Fatalf("reliability expecting no tool call: %d %v", status, v)
	}
	if status, v := call(t, srv, "DELETE", "/eval-runs", map[string]any{"eval_run_ids": []any{obj(v)["id"]}}); status != 204 {
		t.Fatalf("delete the valid run: %d %v", status, v)
	}
	// A model that cannot be had is a 400 naming the fix.
	status, v = post(map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "x", "expected_output": "4", "model_id": "m", "model_provider": "acme"})
	if status != 400 || !strings.Contains(fmt.Sprint(obj(v)["detail"]), "GET /models") {
		t.Fatalf("unknown provider: %d %v", status, v)
	}
	// A judge answer that is not the JSON asked for fails the eval (500)
	// and says why.
	status, v = post(map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "bad judge", "expected_output": "4"})
	if d := fmt.Sprint(obj(v)["detail"]); status != 500 || !strings.HasPrefix(d, "Failed to run accuracy evaluation: ") || !strings.Contains(d, "accuracy_score") {
		t.Fatalf("unusable judge: %d %v", status, v)
	}

	status, v = call(t, srv, "GET", "/eval-runs?eval_types=accuracy,speed", nil)
	if status != 422 {
		t.Fatalf("bad eval_types: %d", status)
	}
	evalWantDetail(t, "eval_types", v, "Invalid eval_type: 'speed' is not a valid EvalType. Valid types: accuracy, agent_as_judge, performance, reliability")
	status, v = call(t, srv, "GET", "/eval-runs?type=user", nil)
	if status != 422 {
		t.Fatalf("bad type: %d", status)
	}
	evalWantValidation(t, "type", v, "query.type", "enum")
	status, v = call(t, srv, "GET", "/eval-runs?db_id=other", nil)
	if status != 404 {
		t.Fatalf("unknown db: %d %v", status, v)
	}
	evalWantDetail(t, "db_id", v, "No database found with id 'other'")
	// The rename and delete routes answer get_db's errors with 500, as agno.
	status, v = call(t, srv, "DELETE", "/eval-runs?db_id=other", map[string]any{"eval_run_ids": []string{"x"}})
	if status != 500 {
		t.Fatalf("delete on unknown db: %d %v", status, v)
	}
	evalWantDetail(t, "delete db_id", v, "Failed to delete eval runs: 404: No database found with id 'other'")
	if status, _ := call(t, srv, "GET", "/eval-runs?table=agno_eval_runs", nil); status != 400 {
		t.Fatalf("table without db_id: %d", status)
	}
	if status, _ := call(t, srv, "GET", "/eval-runs?db_id=agno-db&table=agno_eval_runs", nil); status != 200 {
		t.Fatalf("db_id and table: %d", status)
	}
	status, v = call(t, srv, "PATCH", "/eval-runs/x", map[string]any{"name": ""})
	if status != 422 {
		t.Fatalf("empty name: %d", status)
	}
	evalWantValidation(t, "name", v, "body.name", "string_too_short")
	status, v = call(t, srv, "DELETE", "/eval-runs", map[string]any{"eval_run_ids": []string{}})
	if status != 422 {
		t.Fatalf("no ids: %d", status)
	}
	evalWantValidation(t, "ids", v, "body.eval_run_ids", "too_short")

	if page := obj(mustCall(t, srv, 200, "GET", "/eval-runs", nil)); obj(page["meta"])["total_count"] != 0.0 {
		t.Fatalf("a bad request stored a run: %v", page)
	}
}

// Without a DB the routes answer agno's 503.
func TestEvalsWithoutDB(t *testing.T) {
	m, _ := openai.New(openai.Config{ID: "x", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"})
	a, _ := agent.New(agent.Config{Name: "A", Model: m})
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	defer func() { srv.Close(); _ = o.Close() }()
	status, v := call(t, srv, http.MethodGet, "/eval-runs", nil)
	if status != 503 {
		t.Fatalf("%d %v", status, v)
	}
	evalWantDetail(t, "503", v, "Evals not available: pass a `db` to AgentOS to enable this feature.")
}
