package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wire is a real OpenAI client on a fake OpenAI server answering with fn.
func wire(t *testing.T, id string, fn modeltest.Responder) (model.Model, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: id, MaxRetries: -1, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

func isJudge(req *model.Request) bool { return req.ResponseFormat != nil }

func last(req *model.Request) model.Message { return req.Messages[len(req.Messages)-1] }

func system(req *model.Request) string {
	for _, m := range req.Messages {
		if m.Role == model.RoleSystem || m.Role == "developer" {
			return m.Content
		}
	}
	return ""
}

func newStore(t *testing.T) *eval.Store {
	t.Helper()
	st, err := eval.NewStore(context.Background(), sqldbtest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The agent answers, the judge (the agent's model) scores each answer
// with agno's JSON; the result has agno's statistics and is stored.
func TestAccuracy(t *testing.T) {
	var scores atomic.Int32
	m, srv := wire(t, "gpt-4o", func(req *model.Request) modeltest.Response {
		if isJudge(req) {
			score := []int{9, 7}[scores.Add(1)-1]
			return modeltest.Response{Content: `{"accuracy_score": ` + string(rune('0'+score)) + `, "accuracy_reason": "close to 4"}`}
		}
		return modeltest.Response{Content: "The answer is 4"}
	})
	a, err := agent.New(agent.Config{Name: "Calc", Model: m})
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	acc, err := eval.NewAccuracy(eval.AccuracyConfig{Name: "sums", Agent: a, Input: "What is 2+2?", ExpectedOutput: "4", NumIterations: 2,
		AdditionalGuidelines: "Numbers must match.", AdditionalContext: "Arithmetic quiz.", Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res, err := acc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].Score != 9 || res.Results[1].Score != 7 || res.AvgScore != 8 || res.MeanScore != 8 ||
		res.MinScore != 7 || res.MaxScore != 9 || math.Abs(res.StdDevScore-math.Sqrt2) > 1e-12 {
		t.Fatalf("result %+v", res)
	}
	if e := res.Results[0]; e.Input != "What is 2+2?" || e.Output != "The answer is 4" || e.ExpectedOutput != "4" || e.Reason != "close to 4" {
		t.Fatalf("evaluation %+v", e)
	}
	// Two answers and two judgements, the judge asked as agno asks.
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls", len(reqs))
	}
	judge := reqs[1].Request
	if rf := judge.ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.Name != "AccuracyAgentResponse" || !rf.Strict ||
		!strings.Contains(string(rf.Schema), `"accuracy_score"`) {
		t.Fatalf("judge response_format %+v", judge.ResponseFormat)
	}
	sys := system(judge)
	for _, want := range []string{"You are an expert judge tasked with comparing the quality of an AI Agent's output",
		"## Additional Guidelines\nNumbers must match.", "## Additional Context\nArithmetic quiz.", "9-10: Highly accurate and complete"} {
		if !strings.Contains(sys, want) {
			t.Fatalf("judge system message lacks %q:\n%s", want, sys)
		}
	}
	if got := last(judge).Content; got != "<agent_input>\nWhat is 2+2?\n</agent_input>\n\n<expected_output>\n4\n</expected_output>\n\n<agent_output>\nThe answer is 4\n</agent_output>" {
		t.Fatalf("judge input %q", got)
	}

	rec, err := st.Get(context.Background(), acc.ID())
	if err != nil {
		t.Fatal(err)
	}
	if rec.EvalType != eval.TypeAccuracy || rec.Name != "sums" || rec.AgentID != "calc" || rec.TeamID != "" || rec.ModelID != "gpt-4o" ||
		rec.ModelProvider != "OpenAI" || rec.EvaluatedComponentName != "Calc" {
		t.Fatalf("record %+v", rec)
	}
	var input map[string]any
	_ = json.Unmarshal(rec.EvalInput, &input)
	if input["input"] != "What is 2+2?" || input["expected_output"] != "4" || input["num_iterations"] != 2.0 ||
		input["additional_guidelines"] != "Numbers must match." || input["additional_context"] != "Arithmetic quiz." || len(input) != 5 {
		t.Fatalf("eval_input %v", input)
	}
	var data eval.AccuracyResult
	if err := json.Unmarshal(rec.EvalData, &data); err != nil || data.AvgScore != 8 || len(data.Results) != 2 {
		t.Fatalf("eval_data %s", rec.EvalData)
	}
}

// A judge's loose answer (fenced, score as text) is read; an answer
// without the fields asked for is a clear error naming them.
func TestAccuracyJudgeAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer string
		score  int
		err    string
	}{
		{"Here you go:\n```json\n{\"accuracy_score\": \"6\", \"accuracy_reason\": \"partly\"}\n```", 6, ""},
		{`{"accuracy_score": 10, "accuracy_reason": "exact", "extra": 1}`, 10, ""},
		{`I would give it an 8.`, 0, `not the JSON object {"accuracy_score": <1-10>, "accuracy_reason": "<why>"} it was asked for`},
		{`{"score": 8, "reason": "good"}`, 0, "accuracy_score is missing"},
		{`{"accuracy_score": 7.5, "accuracy_reason": "x"}`, 0, "accuracy_score is not a whole number"},
		{`{"accuracy_score": 7, "accuracy_reason": 3}`, 0, "accuracy_reason is not a string"},
	} {
		m, _ := wire(t, "judge", func(req *model.Request) modeltest.Response { return modeltest.Response{Content: tc.answer} })
		acc, err := eval.NewAccuracy(eval.AccuracyConfig{Model: m, Input: "q", ExpectedOutput: "a"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := acc.RunWithOutput(context.Background(), "an answer")
		if tc.err != "" {
			if !errors.Is(err, eval.ErrNoResult) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("%q: error %v, want %q", tc.answer, err, tc.err)
			}
			continue
		}
		if err != nil || res.Results[0].Score != tc.score || res.AvgScore != float64(tc.score) || res.StdDevScore != 0 {
			t.Fatalf("%q: %+v %v", tc.answer, res, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	m, _ := wire(t, "x", nil)
	a, _ := agent.New(agent.Config{Model: m})
	for name, err := range map[string]error{
		"accuracy without subject or judge": func() error { _, err := eval.NewAccuracy(eval.AccuracyConfig{ExpectedOutput: "x"}); return err }(),
		"accuracy without expected":         func() error { _, err := eval.NewAccuracy(eval.AccuracyConfig{Agent: a}); return err }(),
		"judge without criteria":            func() error { _, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Agent: a}); return err }(),
		"judge bad strategy": func() error {
			_, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Agent: a, Criteria: "c", ScoringStrategy: "stars"})
			return err
		}(),
		"judge bad threshold": func() error {
			_, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Agent: a, Criteria: "c", ScoringStrategy: "numeric", Threshold: 11})
			return err
		}(),
		"performance nothing": func() error { _, err := eval.NewPerformance(eval.PerformanceConfig{}); return err }(),
		"reliability both": func() error {
			_, err := eval.NewReliability(eval.ReliabilityConfig{Agent: a, Output: &run.Output{}})
			return err
		}(),
		"reliability neither": func() error { _, err := eval.NewReliability(eval.ReliabilityConfig{}); return err }(),
		"accuracy agent + team": func() error {
			_, err := eval.NewAccuracy(eval.AccuracyConfig{Agent: a, Team: &team.Team{}, ExpectedOutput: "x"})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

type mulArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// The agent calls multiply(a=10, b=5); the checks are agno's.
func TestReliability(t *testing.T) {
	m, _ := wire(t, "gpt-4o", func(req *model.Request) modeltest.Response {
		if last(req).Role == model.RoleTool {
			return modeltest.Response{Content: "50"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "multiply", `{"a": 10, "b": 5}`),
			modeltest.ToolCall("c2", "multiply", `{"a": 2, "b": 3}`),
		}}
	})
	mul, err := tool.New("multiply", "Multiply two numbers", func(_ context.Context, x mulArgs) (int, error) { return x.A * x.B, nil })
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Name: "Calc", Model: m, Tools: []tool.Provider{mul}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "10 times 5?")
	if err != nil {
		t.Fatal(err)
	}
	check := func(cfg eval.ReliabilityConfig) *eval.ReliabilityResult {
		t.Helper()
		cfg.Output = out
		r, err := eval.NewReliability(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	res := check(eval.ReliabilityConfig{ExpectedToolCalls: []string{"multiply"}})
	if j(res) != `{"eval_status":"PASSED","failed_tool_calls":[],"passed_tool_calls":["multiply","multiply"],"additional_tool_calls":[],"missing_tool_calls":[],"failed_argument_checks":[],"passed_argument_checks":[]}` {
		t.Fatalf("passed: %s", j(res))
	}
	res = check(eval.ReliabilityConfig{ExpectedToolCalls: []string{"add"}})
	if res.Passed() || j(res.FailedToolCalls) != `["multiply","multiply"]` || j(res.MissingToolCalls) != `["add"]` {
		t.Fatalf("failed: %s", j(res))
	}
	res = check(eval.ReliabilityConfig{ExpectedToolCalls: []string{"add"}, AllowAdditionalToolCalls: true})
	if res.Passed() || j(res.AdditionalToolCalls) != `["multiply","multiply"]` || j(res.FailedToolCalls) != `[]` || j(res.MissingToolCalls) != `["add"]` {
		t.Fatalf("additional: %s", j(res))
	}
	var args map[string]eval.ArgSpecs
	if err := json.Unmarshal([]byte(`{"multiply": [{"a": 10.0}, {"a": 2, "b": 3}], "add": {"a": 1}}`), &args); err != nil {
		t.Fatal(err)
	}
	res = check(eval.ReliabilityConfig{ExpectedToolCalls: []string{"multiply"}, ExpectedToolCallArguments: args})
	if res.Passed() || j(res.PassedArgumentChecks) != `["multiply"]` || j(res.FailedArgumentChecks) != `["add"]` {
		t.Fatalf("arguments: %s", j(res))
	}
	res = check(eval.ReliabilityConfig{ExpectedToolCalls: []string{"multiply"}, ExpectedToolCallArguments: map[string]eval.ArgSpecs{"multiply": eval.OneArgSpec(map[string]any{"a": 10, "b": 6})}})
	if res.Passed() || j(res.FailedArgumentChecks) != `["multiply"]` {
		t.Fatalf("wrong argument: %s", j(res))
	}

	// Running the agent itself, stored with the run's agent and model.
	st := newStore(t)
	r, err := eval.NewReliability(eval.ReliabilityConfig{Name: "tools", Agent: a, Input: "10 times 5?", ExpectedToolCalls: []string{"multiply"},
		ExpectedToolCallArguments: map[string]eval.ArgSpecs{"multiply": eval.OneArgSpec(map[string]any{"a": 10})}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := r.Run(context.Background()); err != nil || !res.Passed() || j(res.PassedArgumentChecks) != `["multiply"]` {
		t.Fatalf("run: %s %v", j(res), err)
	}
	rec, err := st.Get(context.Background(), r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if rec.AgentID != "calc" || rec.ModelID != "gpt-4o" || rec.ModelProvider != "OpenAI" || rec.Name != "tools" || rec.EvaluatedComponentName != "" ||
		string(rec.EvalInput) != `{"expected_tool_calls":["multiply"],"allow_additional_tool_calls":false,"expected_tool_call_arguments":{"multiply":{"a":10}}}` {
		t.Fatalf("record %+v %s", rec, rec.EvalInput)
	}
}

// A team's reliability counts the leader's and the members' tool calls.
func TestReliabilityTeam(t *testing.T) {
	mul, _ := tool.New("multiply", "Multiply", func(_ context.Context, x mulArgs) (int, error) { return x.A * x.B, nil })
	mm, _ := wire(t, "member-model", func(req *model.Request) modeltest.Response {
		if last(req).Role == model.RoleTool {
			return modeltest.Response{Content: "6"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("m1", "multiply", `{"a": 2, "b": 3}`)}}
	})
	member, _ := agent.New(agent.Config{Name: "Math", Model: mm, Tools: []tool.Provider{mul}})
	lm, _ := wire(t, "leader-model", func(req *model.Request) modeltest.Response {
		if last(req).Role == model.RoleTool {
			return modeltest.Response{Content: "It is 6"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d", "delegate_task_to_member", `{"member_id":"math","task":"2*3"}`)}}
	})
	tm, err := team.New(team.Config{Name: "Crew", Model: lm, Members: []run.Executor{member}})
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r, err := eval.NewReliability(eval.ReliabilityConfig{Team: tm, Input: "2*3", ExpectedToolCalls: []string{"delegate_task_to_member", "multiply"}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background())
	if err != nil || !res.Passed() || strings.Join(res.PassedToolCalls, ",") != "delegate_task_to_member,multiply" {
		t.Fatalf("%+v %v", res, err)
	}
	rec, _ := st.Get(context.Background(), r.ID())
	if rec.TeamID != "crew" || rec.AgentID != "" || rec.ModelID != "leader-model" {
		t.Fatalf("record %+v", rec)
	}
}

// Warm-up runs are not measured; each measured run is timed and its
// allocations counted; agno's stored shape differs from the result's.
func TestPerformance(t *testing.T) {
	m, srv := wire(t, "gpt-4o", func(*model.Request) modeltest.Response { return modeltest.Response{Content: "hi"} })
	a, _ := agent.New(agent.Config{Name: "Greeter", Model: m})
	st := newStore(t)
	p, err := eval.NewPerformance(eval.PerformanceConfig{Name: "speed", Agent: a, Input: "hello", NumIterations: 3, WarmupRuns: 2, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 5 || len(res.RunTimes) != 3 || len(res.MemoryUsages) != 3 {
		t.Fatalf("%d calls, %+v", srv.Calls(), res)
	}
	for i := range 3 {
		if res.RunTimes[i] <= 0 || res.MemoryUsages[i] <= 0 {
			t.Fatalf("run %d: %v s, %v MiB", i, res.RunTimes[i], res.MemoryUsages[i])
		}
	}
	if res.MinRunTime > res.MedianRunTime || res.MedianRunTime > res.MaxRunTime || res.AvgRunTime < res.MinRunTime || res.P95RunTime < res.MedianRunTime {
		t.Fatalf("stats %+v", res)
	}
	rec, _ := st.Get(context.Background(), p.ID())
	var data struct {
		Result map[string]float64 `json:"result"`
		Runs   []map[string]float64
	}
	if err := json.Unmarshal(rec.EvalData, &data); err != nil || len(data.Result) != 12 || len(data.Runs) != 3 ||
		data.Runs[1]["runtime"] != res.RunTimes[1] || data.Runs[1]["memory"] != res.MemoryUsages[1] || data.Result["p95_memory_usage"] != res.P95MemoryUsage {
		t.Fatalf("eval_data %s", rec.EvalData)
	}
	if string(rec.EvalInput) != `{"num_iterations":3,"warmup_runs":2}` || rec.EvaluatedComponentName != "Greeter" || rec.AgentID != "greeter" || rec.ModelID != "gpt-4o" {
		t.Fatalf("record %+v", rec)
	}

	// A failing run is an error, not a timing.
	bad, _ := wire(t, "gpt-4o", func(*model.Request) modeltest.Response {
		return modeltest.Response{Status: 400, ErrorMessage: "bad request"}
	})
	b, _ := agent.New(agent.Config{Model: bad})
	p, _ = eval.NewPerformance(eval.PerformanceConfig{Agent: b, Input: "x"})
	if _, err := p.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "measured run 1") {
		t.Fatalf("failing run: %v", err)
	}
	// Any function can be measured.
	n := 0
	p, _ = eval.NewPerformance(eval.PerformanceConfig{Func: func(context.Context) error { n++; _ = make([]byte, 4<<20); return nil }, NumIterations: 4})
	if res, err := p.Run(context.Background()); err != nil || n != 4 || res.MinMemoryUsage < 3.9 {
		t.Fatalf("func: %d runs, %+v, %v", n, res, err)
	}
}

func TestAgentAsJudge(t *testing.T) {
	m, srv := wire(t, "gpt-4o", func(req *model.Request) modeltest.Response {
		switch {
		case isJudge(req) && req.ResponseFormat.Name == "NumericJudgeResponse":
			return modeltest.Response{Content: `{"score": 6, "reason": "a bit terse"}`}
		case isJudge(req):
			return modeltest.Response{Content: `{"passed": true, "reason": "polite"}`}
		}
		return modeltest.Response{Content: "Hello there."}
	})
	a, _ := agent.New(agent.Config{Name: "Greeter", Model: m})
	st := newStore(t)
	j, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Agent: a, Input: "greet me", Criteria: "Is polite", ScoringStrategy: "numeric", Threshold: 7, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.RunID != j.ID() || len(res.Results) != 1 || *res.Results[0].Score != 6 || res.Results[0].Passed || res.PassRate != 0 || *res.AvgScore != 6 ||
		res.Results[0].Output != "Hello there." || res.Results[0].Criteria != "Is polite" {
		t.Fatalf("numeric %+v", res)
	}
	judge := srv.Requests()[1].Request
	if sys := system(judge); !strings.Contains(sys, "## Criteria\nIs polite") || !strings.Contains(sys, "## Scoring (1-10)") ||
		!strings.Contains(sys, "You are an expert evaluator.") {
		t.Fatalf("judge system %s", sys)
	}
	if got := last(judge).Content; got != "<input>\ngreet me\n</input>\n\n<output>\nHello there.\n</output>\n" {
		t.Fatalf("judge prompt %q", got)
	}
	rec, _ := st.Get(context.Background(), j.ID())
	if rec.EvalType != eval.TypeAgentAsJudge || rec.AgentID != "greeter" ||
		string(rec.EvalInput) != `{"criteria":"Is polite","scoring_strategy":"numeric","threshold":7,"additional_guidelines":null}` {
		t.Fatalf("record %+v %s", rec, rec.EvalInput)
	}

	j, _ = eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Model: m, Input: "greet me", Output: "Hi!", Criteria: "Is polite"})
	res, err = j.Run(context.Background())
	b, _ := json.Marshal(res)
	if err != nil || !res.Results[0].Passed || res.PassRate != 100 || res.AvgScore != nil ||
		!strings.Contains(string(b), `"score":null,"reason":"polite","passed":true}],"avg_score":null,"min_score":null,"max_score":null,"std_dev_score":null,"pass_rate":100}`) {
		t.Fatalf("binary %s %v", b, err)
	}
}
