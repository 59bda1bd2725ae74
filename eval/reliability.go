package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// ReliabilityConfig configures a reliability eval (agno's
// ReliabilityEval): which tools a run called, and with what arguments.
type ReliabilityConfig struct {
	ID   string // the eval run's id; default a new UUID
	Name string

	// Output is the run to check; or Agent or Team runs Input to make it.
	Output *run.Output
	Agent  *agent.Agent
	Team   *team.Team
	Input  string

	// ExpectedToolCalls are tool names that must be called.
	ExpectedToolCalls []string
	// AllowAdditionalToolCalls lets calls of other tools pass (as
	// additional_tool_calls) instead of failing.
	AllowAdditionalToolCalls bool
	// ExpectedToolCallArguments maps a tool name to argument specs; each
	// spec must be a subset of the arguments of at least one call.
	ExpectedToolCallArguments map[string]ArgSpecs

	// UserID is the user the agent or team runs as, and the eval run's
	// creator (created_by) in Store.
	UserID string
	Store  *Store
}

// ArgSpecs are the argument checks of one tool: in JSON, one object or a
// list of objects (agno's {"multiply": {"a": 10}} or {"add": [{…}, {…}]}).
type ArgSpecs struct {
	Specs []map[string]any
	// single: given as one object, and encoded back as one.
	single bool
}

// OneArgSpec is a single argument check.
func OneArgSpec(spec map[string]any) ArgSpecs {
	return ArgSpecs{Specs: []map[string]any{spec}, single: true}
}

func (a *ArgSpecs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var one map[string]any
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*a = OneArgSpec(one)
		return nil
	}
	var many []map[string]any
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("expected an object of arguments or a list of such objects")
	}
	*a = ArgSpecs{Specs: many}
	return nil
}

func (a ArgSpecs) MarshalJSON() ([]byte, error) {
	if a.single && len(a.Specs) == 1 {
		return json.Marshal(a.Specs[0])
	}
	if a.Specs == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(a.Specs)
}

// ReliabilityResult is agno's ReliabilityResult; EvalStatus is PASSED or
// FAILED.
type ReliabilityResult struct {
	EvalStatus           string   `json:"eval_status"`
	FailedToolCalls      []string `json:"failed_tool_calls"`
	PassedToolCalls      []string `json:"passed_tool_calls"`
	AdditionalToolCalls  []string `json:"additional_tool_calls"`
	MissingToolCalls     []string `json:"missing_tool_calls"`
	FailedArgumentChecks []string `json:"failed_argument_checks"`
	PassedArgumentChecks []string `json:"passed_argument_checks"`
}

// Passed reports whether the eval passed.
func (r *ReliabilityResult) Passed() bool { return r.EvalStatus == "PASSED" }

// Reliability is a configured reliability eval.
type Reliability struct {
	cfg ReliabilityConfig
	sub subject
}

// NewReliability validates cfg.
func NewReliability(cfg ReliabilityConfig) (*Reliability, error) {
	var sub subject
	switch {
	case cfg.Output != nil && (cfg.Agent != nil || cfg.Team != nil):
		return nil, errors.New("eval: set either Output (a finished run) or an Agent/Team to run, not both")
	case cfg.Output == nil:
		s, err := newSubject(cfg.Agent, cfg.Team, cfg.UserID)
		if err != nil {
			return nil, fmt.Errorf("%w, or Output (a finished run to check)", err)
		}
		sub = s
	}
	if cfg.ID == "" {
		cfg.ID = run.NewID()
	}
	return &Reliability{cfg: cfg, sub: sub}, nil
}

// ID is the eval run's id.
func (e *Reliability) ID() string { return e.cfg.ID }

// Run makes the run (unless Output was given) and checks its tool calls.
func (e *Reliability) Run(ctx context.Context) (*ReliabilityResult, error) {
	out := e.cfg.Output
	if out == nil {
		o, err := e.sub.run(ctx, e.cfg.Input)
		if err != nil {
			return nil, fmt.Errorf("eval: run the %s: %w", e.kind(), err)
		}
		out = o
	}
	res := e.check(out)
	rec, err := e.Record(out, res)
	if err != nil {
		return nil, err
	}
	return res, store(ctx, e.cfg.Store, rec, e.cfg.UserID)
}

func (e *Reliability) kind() string {
	if e.sub.team != nil {
		return "team"
	}
	return "agent"
}

// toolCalls are the calls of a run's messages and, for a team, of its
// members' runs.
func toolCalls(out *run.Output) []model.ToolCall {
	var calls []model.ToolCall
	add := func(o *run.Output) {
		for _, m := range o.Messages {
			calls = append(calls, m.ToolCalls...)
		}
	}
	add(out)
	if out.TeamID != "" {
		for _, m := range out.MemberResponses {
			if m != nil {
				add(m)
			}
		}
	}
	return calls
}

func (e *Reliability) check(out *run.Output) *ReliabilityResult {
	res := &ReliabilityResult{FailedToolCalls: []string{}, PassedToolCalls: []string{}, AdditionalToolCalls: []string{},
		MissingToolCalls: []string{}, FailedArgumentChecks: []string{}, PassedArgumentChecks: []string{}}
	calls := toolCalls(out)
	expected := map[string]bool{}
	for _, n := range e.cfg.ExpectedToolCalls {
		expected[n] = true
	}
	called := map[string]bool{}
	for _, c := range calls {
		name := c.Function.Name
		if name == "" {
			continue
		}
		called[name] = true
		switch {
		case e.cfg.ExpectedToolCalls != nil && !expected[name] && e.cfg.AllowAdditionalToolCalls:
			res.AdditionalToolCalls = append(res.AdditionalToolCalls, name)
		case e.cfg.ExpectedToolCalls != nil && !expected[name]:
			res.FailedToolCalls = append(res.FailedToolCalls, name)
		default:
			res.PassedToolCalls = append(res.PassedToolCalls, name)
		}
	}
	missing := map[string]bool{}
	for _, n := range e.cfg.ExpectedToolCalls {
		if !called[n] {
			res.MissingToolCalls = append(res.MissingToolCalls, n)
			missing[n] = true
		}
	}
	for _, tool := range sortedKeys(e.cfg.ExpectedToolCallArguments) {
		if missing[tool] {
			continue // already reported as missing
		}
		var actual []map[string]any
		for _, c := range calls {
			if c.Function.Name == tool {
				actual = append(actual, parseArgs(c.Function.Arguments))
			}
		}
		if len(actual) > 0 && allMatched(e.cfg.ExpectedToolCallArguments[tool].Specs, actual) {
			res.PassedArgumentChecks = append(res.PassedArgumentChecks, tool)
		} else {
			res.FailedArgumentChecks = append(res.FailedArgumentChecks, tool)
		}
	}
	res.EvalStatus = "FAILED"
	if len(res.FailedToolCalls) == 0 && len(res.MissingToolCalls) == 0 && len(res.FailedArgumentChecks) == 0 {
		res.EvalStatus = "PASSED"
	}
	return res
}

func sortedKeys(m map[string]ArgSpecs) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// parseArgs decodes a call's arguments; anything but a JSON object is no
// arguments.
func parseArgs(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// allMatched: every spec is a subset of some call's arguments.
func allMatched(specs []map[string]any, actual []map[string]any) bool {
	for _, spec := range specs {
		ok := false
		for _, args := range actual {
			if subset(spec, args) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func subset(spec, args map[string]any) bool {
	for k, want := range spec {
		got, ok := args[k]
		if !ok || !jsonEqual(want, got) {
			return false
		}
	}
	return true
}

// jsonEqual compares two decoded JSON values, numbers by value (10 and
// 10.0 are equal, as in Python).
func jsonEqual(a, b any) bool {
	an, aok := number(a)
	bn, bok := number(b)
	if aok && bok {
		return an == bn
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	var x, y any
	if json.Unmarshal(ab, &x) != nil || json.Unmarshal(bb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// reliabilityInput is agno's eval_input of a reliability run.
type reliabilityInput struct {
	ExpectedToolCalls         []string            `json:"expected_tool_calls"`
	AllowAdditionalToolCalls  bool                `json:"allow_additional_tool_calls"`
	ExpectedToolCallArguments map[string]ArgSpecs `json:"expected_tool_call_arguments"`
}

// Record is the eval run row of res: its agent or team and model are
// those of the checked run.
func (e *Reliability) Record(out *run.Output, res *ReliabilityResult) (*Record, error) {
	rec, err := e.sub.record(e.cfg.ID, e.cfg.Name, TypeReliability, res, reliabilityInput{
		ExpectedToolCalls: e.cfg.ExpectedToolCalls, AllowAdditionalToolCalls: e.cfg.AllowAdditionalToolCalls,
		ExpectedToolCallArguments: e.cfg.ExpectedToolCallArguments,
	})
	if err != nil {
		return nil, err
	}
	if out.TeamID != "" {
		rec.AgentID, rec.TeamID = "", out.TeamID
	} else {
		rec.AgentID, rec.TeamID = out.AgentID, ""
	}
	if out.Model != "" {
		rec.ModelID, rec.ModelProvider = out.Model, out.ModelProvider
	}
	return rec, nil
}
