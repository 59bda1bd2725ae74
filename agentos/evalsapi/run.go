package evalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
)

// evalRunInput is agno's EvalRunInput.
type evalRunInput struct {
	AgentID, TeamID           string
	ModelID, ModelProvider    *string
	EvalType                  eval.Type
	Input                     string
	AdditionalGuidelines      string
	AdditionalContext         string
	NumIterations             int
	Name                      string
	ExpectedOutput            string
	Criteria                  string
	ScoringStrategy           string
	Threshold                 int
	WarmupRuns                int
	ExpectedToolCalls         []string
	AllowAdditionalToolCalls  bool
	ExpectedToolCallArguments map[string]eval.ArgSpecs
}

// evalIntField reads an optional integer within [lo, hi].
func evalIntField(b *httpapi.JSONBody, name string, dst *int, lo, hi int) {
	if !b.Get(name, dst) {
		return
	}
	switch {
	case *dst < lo:
		b.RejectCtx([]string{name}, fmt.Sprintf("Input should be greater than or equal to %d", lo), "greater_than_equal", map[string]any{"ge": lo})
	case *dst > hi:
		b.RejectCtx([]string{name}, fmt.Sprintf("Input should be less than or equal to %d", hi), "less_than_equal", map[string]any{"le": hi})
	}
}

// readEvalRunInput validates the body of POST /eval-runs as pydantic
// does (422 naming the first bad field).
func readEvalRunInput(w http.ResponseWriter, r *http.Request) (*evalRunInput, bool) {
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return nil, false
	}
	in := evalRunInput{NumIterations: 1, Threshold: 7, ScoringStrategy: eval.ScoringBinary}
	b.Get("agent_id", &in.AgentID)
	b.Get("team_id", &in.TeamID)
	var modelID, provider string
	if b.Get("model_id", &modelID) {
		in.ModelID = &modelID
	}
	if b.Get("model_provider", &provider) {
		in.ModelProvider = &provider
	}
	var typ string
	if b.Require("eval_type", &typ) && !eval.Type(typ).Valid() {
		choices := httpapi.QuoteChoices(evalTypeNames())
		b.RejectCtx([]string{"eval_type"}, "Input should be "+choices, "enum", map[string]any{"expected": choices})
	}
	in.EvalType = eval.Type(typ)
	if b.Require("input", &in.Input) && in.Input == "" {
		b.RejectCtx([]string{"input"}, "String should have at least 1 character", "string_too_short", map[string]any{"min_length": 1})
	}
	b.Get("additional_guidelines", &in.AdditionalGuidelines)
	b.Get("additional_context", &in.AdditionalContext)
	evalIntField(b, "num_iterations", &in.NumIterations, 1, 100)
	b.Get("name", &in.Name)
	b.Get("expected_output", &in.ExpectedOutput)
	b.Get("criteria", &in.Criteria)
	if b.Get("scoring_strategy", &in.ScoringStrategy) && in.ScoringStrategy != eval.ScoringNumeric && in.ScoringStrategy != eval.ScoringBinary {
		b.RejectCtx([]string{"scoring_strategy"}, "Input should be 'numeric' or 'binary'", "literal_error", map[string]any{"expected": "'numeric' or 'binary'"})
	}
	evalIntField(b, "threshold", &in.Threshold, 1, 10)
	evalIntField(b, "warmup_runs", &in.WarmupRuns, 0, 10)
	b.Get("expected_tool_calls", &in.ExpectedToolCalls)
	b.Get("allow_additional_tool_calls", &in.AllowAdditionalToolCalls)
	b.Get("expected_tool_call_arguments", &in.ExpectedToolCallArguments)
	if b.Bad {
		return nil, false
	}
	return &in, true
}

// evalTarget is what POST /eval-runs evaluates: the registered agent or
// team, on the requested model, and the judge's model (agno's
// default_model: the component's own model).
type evalTarget struct {
	agent *agent.Agent
	team  *team.Team
	judge model.Model
	user  string // the caller's: the runs' user, the eval run's owner
}

func (t evalTarget) model() model.Model {
	if t.agent != nil {
		return t.agent.Config().Model
	}
	return t.team.Config().Model
}

// evalTargetFor finds the agent or team and applies model_id and
// model_provider as agno does: when both are given and differ from the
// component's model, the component runs on that model and its own model
// judges.
func (g *Group) evalTargetFor(in *evalRunInput) (*evalTarget, error) {
	var t evalTarget
	switch {
	case in.AgentID != "" && in.TeamID != "":
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Only one of agent_id or team_id must be provided")
	case in.AgentID != "":
		if t.agent = g.host.Agent(in.AgentID); t.agent == nil {
			return nil, httpapi.ErrStatus(http.StatusNotFound, "Agent with id '%s' not found", in.AgentID)
		}
	case in.TeamID != "":
		if t.team = g.host.Team(in.TeamID); t.team == nil {
			return nil, httpapi.ErrStatus(http.StatusNotFound, "Team with id '%s' not found", in.TeamID)
		}
	default:
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "One of agent_id or team_id must be provided")
	}
	own := t.model()
	t.judge = own
	if own == nil || in.ModelID == nil || in.ModelProvider == nil {
		return &t, nil
	}
	if info := own.Info(); info.ID == *in.ModelID && info.Provider == *in.ModelProvider {
		return &t, nil
	}
	m, err := g.evalModel(*in.ModelProvider, *in.ModelID)
	if err != nil {
		return nil, err
	}
	// A copy on the other model: the registered component is shared by
	// concurrent runs and is left as it is.
	if t.agent != nil {
		cfg := t.agent.Config()
		cfg.Model = m
		if t.agent, err = agent.New(cfg); err != nil {
			return nil, fmt.Errorf("agentos: agent %q on model %s:%s: %w", in.AgentID, *in.ModelProvider, *in.ModelID, err)
		}
	} else {
		cfg := t.team.Config()
		cfg.Model = m
		if t.team, err = team.New(cfg); err != nil {
			return nil, fmt.Errorf("agentos: team %q on model %s:%s: %w", in.TeamID, *in.ModelProvider, *in.ModelID, err)
		}
	}
	return &t, nil
}

// evalModel is agno's get_model("provider:id") (both lower-cased): a
// model this AgentOS serves, else a model of a registered provider built
// from the provider's API key variable.
func (g *Group) evalModel(provider, id string) (model.Model, error) {
	provider, id = strings.ToLower(strings.TrimSpace(provider)), strings.ToLower(strings.TrimSpace(id))
	m, err := g.host.Model(provider, id)
	if errors.Is(err, model.ErrUnknownProvider) {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Model provider '%s' is not supported here: set model_provider and model_id to a model this AgentOS serves (GET /models), or to a model of %s", provider, strings.Join(model.ProviderNames(), ", "))
	}
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Model '%s:%s' cannot be used: %v; set model_provider and model_id to a model this AgentOS serves (GET /models)", provider, id, err)
	}
	return m, nil
}

// handleRunEval is POST /eval-runs: runs the eval against a registered
// agent or team, stores it and answers agno's EvalSchema of the result
// (built from the eval, as agno's: no eval_input, no times).
func (g *Group) handleRunEval(w http.ResponseWriter, r *http.Request) {
	in, ok := readEvalRunInput(w, r)
	if !ok {
		return
	}
	st, err := g.evalStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	target, err := g.evalTargetFor(in)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	// An eval runs the agent or team as its caller: it needs the run
	// scope a run request would, and runs as the caller's user.
	if target.agent != nil && !g.host.MayRunAs(w, r, "agents", target.agent.ID()) ||
		target.team != nil && !g.host.MayRunAs(w, r, "teams", target.team.ID()) {
		return
	}
	target.user = httpapi.CallerUser(r.Context())
	var out *EvalSchema
	switch in.EvalType {
	case eval.TypeAccuracy:
		out, err = g.runAccuracyEval(r.Context(), st, in, target)
	case eval.TypeAgentAsJudge:
		out, err = g.runJudgeEval(r.Context(), st, in, target)
	case eval.TypePerformance:
		out, err = runPerformanceEval(r.Context(), st, in, target)
	default:
		out, err = runReliabilityEval(r.Context(), st, in, target)
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// evalResultSchema is agno's EvalSchema.from_*_eval: the eval's id, name,
// component and model, and the result as eval_data.
func evalResultSchema(id, name string, typ eval.Type, t *evalTarget, result any) (*EvalSchema, error) {
	data, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	s := &EvalSchema{ID: id, Name: httpapi.NullString(name), EvalType: typ, EvalData: data}
	if t.agent != nil {
		s.AgentID = httpapi.NullString(t.agent.ID())
	} else {
		s.TeamID = httpapi.NullString(t.team.ID())
	}
	if m := t.model(); m != nil {
		s.ModelID, s.ModelProvider = httpapi.NullString(m.Info().ID), httpapi.NullString(m.Info().Provider)
	}
	return s, nil
}

func evalFailed(kind string, err error) error {
	return httpapi.ErrStatus(http.StatusInternalServerError, "Failed to run %s evaluation: %v", kind, err)
}

func (g *Group) runAccuracyEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.ExpectedOutput == "" {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "expected_output is required for accuracy evaluation")
	}
	e, err := eval.NewAccuracy(eval.AccuracyConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		ExpectedOutput: in.ExpectedOutput, NumIterations: in.NumIterations, Model: t.judge,
		AdditionalGuidelines: in.AdditionalGuidelines, AdditionalContext: in.AdditionalContext, Store: st, Logger: g.host.Logger()})
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("accuracy", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypeAccuracy, t, res)
}

func (g *Group) runJudgeEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.Criteria == "" {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "criteria is required for agent-as-judge evaluation")
	}
	e, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		Criteria: in.Criteria, ScoringStrategy: in.ScoringStrategy, Threshold: in.Threshold,
		AdditionalGuidelines: in.AdditionalGuidelines, Model: t.judge, Store: st, Logger: g.host.Logger()})
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("agent as judge", err)
	}
	return evalResultSchema(res.RunID, in.Name, eval.TypeAgentAsJudge, t, res)
}

func runPerformanceEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	e, err := eval.NewPerformance(eval.PerformanceConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		NumIterations: in.NumIterations, WarmupRuns: in.WarmupRuns, Store: st})
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("performance", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypePerformance, t, res)
}

func runReliabilityEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.ExpectedToolCalls == nil { // absent or null, as agno's `is None`: [] expects no tool call
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "expected_tool_calls is required for reliability evaluations")
	}
	e, err := eval.NewReliability(eval.ReliabilityConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		ExpectedToolCalls: in.ExpectedToolCalls, AllowAdditionalToolCalls: in.AllowAdditionalToolCalls,
		ExpectedToolCallArguments: in.ExpectedToolCallArguments, Store: st})
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("reliability", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypeReliability, t, res)
}
