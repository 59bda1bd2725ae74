package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
)

// evalPlane is the evals part of the control plane: eval runs kept in
// Config.DB's agno_eval_runs table.
type evalPlane struct {
	store *eval.Store
}

func (o *OS) startEvals() error {
	st, err := eval.NewStore(context.Background(), o.cfg.DB)
	if err != nil {
		return fmt.Errorf("agentos: evals: %w", err)
	}
	o.evals = &evalPlane{store: st}
	return nil
}

// stopEvals: the plane starts no goroutines; evals in flight end with
// their requests.
func (o *OS) stopEvals() {}

// EvalSchema is agno's EvalSchema: every field is sent, None as null;
// times are ISO 8601 datetimes.
type EvalSchema struct {
	ID                     string          `json:"id"`
	AgentID                *string         `json:"agent_id"`
	ModelID                *string         `json:"model_id"`
	ModelProvider          *string         `json:"model_provider"`
	TeamID                 *string         `json:"team_id"`
	WorkflowID             *string         `json:"workflow_id"`
	Name                   *string         `json:"name"`
	EvaluatedComponentName *string         `json:"evaluated_component_name"`
	EvalType               eval.Type       `json:"eval_type"`
	EvalData               json.RawMessage `json:"eval_data"`
	EvalInput              json.RawMessage `json:"eval_input"` // nil: null
	CreatedAt              *string         `json:"created_at"`
	UpdatedAt              *string         `json:"updated_at"`
}

// EvalRunsResponse is agno's PaginatedResponse[EvalSchema].
type EvalRunsResponse struct {
	Data []EvalSchema   `json:"data"`
	Meta PaginationInfo `json:"meta"`
}

func evalStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func evalISO(sec int64) *string {
	if s, ok := isoSeconds(sec).(string); ok {
		return &s
	}
	return nil
}

// evalSchema is agno's EvalSchema.from_dict of a stored run.
func evalSchema(r *eval.Record) EvalSchema {
	return EvalSchema{
		ID: r.RunID, AgentID: evalStr(r.AgentID), ModelID: evalStr(r.ModelID), ModelProvider: evalStr(r.ModelProvider),
		TeamID: evalStr(r.TeamID), WorkflowID: evalStr(r.WorkflowID), Name: evalStr(r.Name),
		EvaluatedComponentName: evalStr(r.EvaluatedComponentName), EvalType: r.EvalType, EvalData: r.EvalData,
		EvalInput: r.EvalInput, CreatedAt: evalISO(r.CreatedAt), UpdatedAt: evalISO(r.UpdatedAt),
	}
}

const evalTable = eval.Table

// evalStore resolves db_id and table as agno's get_db does for the eval
// routes.
func (o *OS) evalStore(r *http.Request) (*eval.Store, error) {
	q := r.URL.Query()
	dbID, tbl := q.Get("db_id"), q.Get("table")
	known := o.cfg.DB.ID
	if known == "" {
		known = o.cfg.DBID
	}
	switch {
	case tbl != "" && dbID == "":
		return nil, errStatus(http.StatusBadRequest, "The db_id query parameter is required when passing a table")
	case dbID != "" && dbID != known:
		return nil, errStatus(http.StatusNotFound, "No database found with id '%s'", dbID)
	case tbl != "" && tbl != evalTable:
		return nil, errStatus(http.StatusNotFound, "No database with id '%s' has table '%s'", dbID, tbl)
	}
	return o.evals.store, nil
}

func evalNotFound(id string) error {
	return errStatus(http.StatusNotFound, "Eval run with id '%s' not found", id)
}

var evalComponentTypes = []string{string(eval.ComponentAgent), string(eval.ComponentTeam), string(eval.ComponentWorkflow)}

func evalTypeNames() []string {
	out := make([]string, len(eval.Types))
	for i, t := range eval.Types {
		out[i] = string(t)
	}
	return out
}

// handleListEvalRuns is GET /eval-runs.
func (o *OS) handleListEvalRuns(w http.ResponseWriter, r *http.Request) {
	p := newQueryParams(w, r)
	q := eval.Query{
		AgentID:    p.Str("agent_id"),
		TeamID:     p.Str("team_id"),
		WorkflowID: p.Str("workflow_id"),
		ModelID:    p.Str("model_id"),
		Component:  eval.ComponentType(p.Enum("type", "", evalComponentTypes...)),
		Limit:      p.Int("limit", 20, 1, maxPageLimit),
		Page:       p.Int("page", 1, 0, 0),
		SortBy:     p.Str("sort_by"),
		SortOrder:  p.Enum("sort_order", "desc", "asc", "desc"),
	}
	if p.Bad {
		return
	}
	if q.SortBy == "" {
		q.SortBy = "created_at"
	}
	if u := scopedUser(r.Context()); u != "" {
		q.CreatedBy = &u // under isolation, one's own
	}
	// eval_types is agno's comma-separated filter, answered with its own
	// 422 text.
	if s := p.Str("eval_types"); s != "" {
		for _, item := range strings.Split(s, ",") {
			t := eval.Type(strings.TrimSpace(item))
			if !t.Valid() {
				writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Invalid eval_type: '%s' is not a valid EvalType. Valid types: %s", t, strings.Join(evalTypeNames(), ", ")))
				return
			}
			q.Types = append(q.Types, t)
		}
	}
	st, err := o.evalStore(r)
	if err != nil {
		fail(w, err)
		return
	}
	recs, total, err := st.List(r.Context(), q)
	if err != nil {
		fail(w, err)
		return
	}
	if len(recs) == 0 {
		total = 0 // agno answers an empty page with a count of 0
	}
	out := EvalRunsResponse{Data: make([]EvalSchema, 0, len(recs)), Meta: PaginationInfo{
		Page: q.Page, Limit: q.Limit, TotalCount: total, TotalPages: totalPages(total, q.Limit),
	}}
	for _, rec := range recs {
		out.Data = append(out.Data, evalSchema(rec))
	}
	writeJSON(w, http.StatusOK, out)
}

// handleGetEvalRun is GET /eval-runs/{eval_run_id}.
func (o *OS) handleGetEvalRun(w http.ResponseWriter, r *http.Request) {
	st, err := o.evalStore(r)
	if err != nil {
		fail(w, err)
		return
	}
	id := r.PathValue("eval_run_id")
	rec, err := st.Get(r.Context(), id)
	if errors.Is(err, eval.ErrNotFound) || err == nil && !ownedBy(r.Context(), rec.CreatedBy) {
		err = evalNotFound(id)
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, evalSchema(rec))
}

// handleRenameEvalRun is PATCH /eval-runs/{eval_run_id} {name}.
func (o *OS) handleRenameEvalRun(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
	if !ok {
		return
	}
	var name string
	b.Require("name", &name)
	if b.Bad {
		return
	}
	switch n := utf8.RuneCountInString(name); {
	case n < 1:
		b.RejectCtx([]string{"name"}, "String should have at least 1 character", "string_too_short", map[string]any{"min_length": 1})
		return
	case n > 255:
		b.RejectCtx([]string{"name"}, "String should have at most 255 characters", "string_too_long", map[string]any{"max_length": 255})
		return
	}
	st, err := o.evalStore(r)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to rename eval run: "+evalCaught(err))
		return
	}
	id := r.PathValue("eval_run_id")
	if old, err := st.Get(r.Context(), id); err == nil && !ownedBy(r.Context(), old.CreatedBy) {
		fail(w, evalNotFound(id))
		return
	}
	rec, err := st.Rename(r.Context(), id, name)
	switch {
	case errors.Is(err, eval.ErrNotFound):
		fail(w, evalNotFound(id))
	case err != nil:
		writeError(w, http.StatusInternalServerError, "Failed to rename eval run: "+evalCaught(err))
	default:
		writeJSON(w, http.StatusOK, evalSchema(rec))
	}
}

// evalCaught is an error as agno's rename and delete routes report it: they
// catch every exception, get_db's HTTPException included, and answer 500
// with its text ("404: No database found …").
func evalCaught(err error) string {
	var he *httpError
	if errors.As(err, &he) {
		return fmt.Sprintf("%d: %s", he.Status, he.Detail)
	}
	return err.Error()
}

// handleDeleteEvalRuns is DELETE /eval-runs {eval_run_ids}: 204; unknown
// ids are ignored.
func (o *OS) handleDeleteEvalRuns(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
	if !ok {
		return
	}
	var ids []string
	b.Require("eval_run_ids", &ids)
	if b.Bad {
		return
	}
	if len(ids) == 0 {
		b.RejectCtx([]string{"eval_run_ids"}, "List should have at least 1 item after validation, not 0", "too_short",
			map[string]any{"field_type": "List", "min_length": 1, "actual_length": 0})
		return
	}
	st, err := o.evalStore(r)
	if err == nil {
		var owner *string
		if u := scopedUser(r.Context()); u != "" {
			owner = &u // another user's ids are ignored like unknown ones
		}
		err = st.DeleteBy(r.Context(), owner, ids...)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to delete eval runs: "+evalCaught(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

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
func evalIntField(b *jsonBody, name string, dst *int, lo, hi int) {
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
	b, ok := readBody(w, r, true)
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
		choices := quoteChoices(evalTypeNames())
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
func (o *OS) evalTargetFor(in *evalRunInput) (*evalTarget, error) {
	cat := o.catalog()
	var t evalTarget
	switch {
	case in.AgentID != "" && in.TeamID != "":
		return nil, errStatus(http.StatusBadRequest, "Only one of agent_id or team_id must be provided")
	case in.AgentID != "":
		a, ok := cat.agents[in.AgentID]
		if !ok {
			return nil, errStatus(http.StatusNotFound, "Agent with id '%s' not found", in.AgentID)
		}
		t.agent = a
	case in.TeamID != "":
		tm, ok := cat.teams[in.TeamID]
		if !ok {
			return nil, errStatus(http.StatusNotFound, "Team with id '%s' not found", in.TeamID)
		}
		t.team = tm
	default:
		return nil, errStatus(http.StatusBadRequest, "One of agent_id or team_id must be provided")
	}
	own := t.model()
	t.judge = own
	if own == nil || in.ModelID == nil || in.ModelProvider == nil {
		return &t, nil
	}
	if info := own.Info(); info.ID == *in.ModelID && info.Provider == *in.ModelProvider {
		return &t, nil
	}
	m, err := o.evalModel(*in.ModelProvider, *in.ModelID)
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
func (o *OS) evalModel(provider, id string) (model.Model, error) {
	provider, id = strings.ToLower(strings.TrimSpace(provider)), strings.ToLower(strings.TrimSpace(id))
	m, err := o.namedModel(provider, id)
	if errors.Is(err, model.ErrUnknownProvider) {
		return nil, errStatus(http.StatusBadRequest, "Model provider '%s' is not supported here: set model_provider and model_id to a model this AgentOS serves (GET /models), or to a model of %s", provider, strings.Join(model.ProviderNames(), ", "))
	}
	if err != nil {
		return nil, errStatus(http.StatusBadRequest, "Model '%s:%s' cannot be used: %v; set model_provider and model_id to a model this AgentOS serves (GET /models)", provider, id, err)
	}
	return m, nil
}

// handleRunEval is POST /eval-runs: runs the eval against a registered
// agent or team, stores it and answers agno's EvalSchema of the result
// (built from the eval, as agno's: no eval_input, no times).
func (o *OS) handleRunEval(w http.ResponseWriter, r *http.Request) {
	in, ok := readEvalRunInput(w, r)
	if !ok {
		return
	}
	st, err := o.evalStore(r)
	if err != nil {
		fail(w, err)
		return
	}
	target, err := o.evalTargetFor(in)
	if err != nil {
		fail(w, err)
		return
	}
	// An eval runs the agent or team as its caller: it needs the run
	// scope a run request would, and runs as the caller's user.
	if target.agent != nil && !o.mayRunAs(w, r, "agents", target.agent.ID()) ||
		target.team != nil && !o.mayRunAs(w, r, "teams", target.team.ID()) {
		return
	}
	target.user = callerUser(r.Context())
	var out *EvalSchema
	switch in.EvalType {
	case eval.TypeAccuracy:
		out, err = o.runAccuracyEval(r.Context(), st, in, target)
	case eval.TypeAgentAsJudge:
		out, err = o.runJudgeEval(r.Context(), st, in, target)
	case eval.TypePerformance:
		out, err = o.runPerformanceEval(r.Context(), st, in, target)
	default:
		out, err = o.runReliabilityEval(r.Context(), st, in, target)
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// evalResultSchema is agno's EvalSchema.from_*_eval: the eval's id, name,
// component and model, and the result as eval_data.
func evalResultSchema(id, name string, typ eval.Type, t *evalTarget, result any) (*EvalSchema, error) {
	data, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	s := &EvalSchema{ID: id, Name: evalStr(name), EvalType: typ, EvalData: data}
	if t.agent != nil {
		s.AgentID = evalStr(t.agent.ID())
	} else {
		s.TeamID = evalStr(t.team.ID())
	}
	if m := t.model(); m != nil {
		s.ModelID, s.ModelProvider = evalStr(m.Info().ID), evalStr(m.Info().Provider)
	}
	return s, nil
}

func evalFailed(kind string, err error) error {
	return errStatus(http.StatusInternalServerError, "Failed to run %s evaluation: %v", kind, err)
}

func (o *OS) runAccuracyEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.ExpectedOutput == "" {
		return nil, errStatus(http.StatusBadRequest, "expected_output is required for accuracy evaluation")
	}
	e, err := eval.NewAccuracy(eval.AccuracyConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		ExpectedOutput: in.ExpectedOutput, NumIterations: in.NumIterations, Model: t.judge,
		AdditionalGuidelines: in.AdditionalGuidelines, AdditionalContext: in.AdditionalContext, Store: st, Logger: o.log})
	if err != nil {
		return nil, errStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("accuracy", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypeAccuracy, t, res)
}

func (o *OS) runJudgeEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.Criteria == "" {
		return nil, errStatus(http.StatusBadRequest, "criteria is required for agent-as-judge evaluation")
	}
	e, err := eval.NewAgentAsJudge(eval.AgentAsJudgeConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		Criteria: in.Criteria, ScoringStrategy: in.ScoringStrategy, Threshold: in.Threshold,
		AdditionalGuidelines: in.AdditionalGuidelines, Model: t.judge, Store: st, Logger: o.log})
	if err != nil {
		return nil, errStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("agent as judge", err)
	}
	return evalResultSchema(res.RunID, in.Name, eval.TypeAgentAsJudge, t, res)
}

func (o *OS) runPerformanceEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	e, err := eval.NewPerformance(eval.PerformanceConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		NumIterations: in.NumIterations, WarmupRuns: in.WarmupRuns, Store: st})
	if err != nil {
		return nil, errStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("performance", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypePerformance, t, res)
}

func (o *OS) runReliabilityEval(ctx context.Context, st *eval.Store, in *evalRunInput, t *evalTarget) (*EvalSchema, error) {
	if in.ExpectedToolCalls == nil { // absent or null, as agno's `is None`: [] expects no tool call
		return nil, errStatus(http.StatusBadRequest, "expected_tool_calls is required for reliability evaluations")
	}
	e, err := eval.NewReliability(eval.ReliabilityConfig{Name: in.Name, UserID: t.user, Agent: t.agent, Team: t.team, Input: in.Input,
		ExpectedToolCalls: in.ExpectedToolCalls, AllowAdditionalToolCalls: in.AllowAdditionalToolCalls,
		ExpectedToolCallArguments: in.ExpectedToolCallArguments, Store: st})
	if err != nil {
		return nil, errStatus(http.StatusBadRequest, "%v", err)
	}
	res, err := e.Run(ctx)
	if err != nil {
		return nil, evalFailed("reliability", err)
	}
	return evalResultSchema(e.ID(), in.Name, eval.TypeReliability, t, res)
}

var pEvalRunIDs = apiParam{Name: "eval_run_ids", Type: "array", Desc: "Ids of the eval runs to delete", Required: true}

// evalAPIRoutes are agno's /eval-runs routes (tag Evals).
func (o *OS) evalAPIRoutes() []apiRoute {
	const tag = "Evals"
	evalTypes := evalTypeNames()
	return []apiRoute{
		{Pattern: "GET /eval-runs", Handler: o.handleListEvalRuns, Access: needs("evals:read"), Tag: tag, Summary: "List Evaluation Runs",
			Desc: "Retrieve paginated evaluation runs with filtering and sorting options. Filter by agent, team, workflow, model, or evaluation type.",
			Query: []apiParam{{Name: "agent_id", Type: "string", Desc: "Agent ID"}, {Name: "team_id", Type: "string", Desc: "Team ID"},
				{Name: "workflow_id", Type: "string", Desc: "Workflow ID"}, {Name: "model_id", Type: "string", Desc: "Model ID"},
				{Name: "type", Type: "string", Desc: "Filter type: runs of agents, teams or workflows", Enum: evalComponentTypes},
				{Name: "eval_types", Type: "string", Desc: "Comma-separated eval types (" + strings.Join(evalTypes, ",") + ")"},
				pLimitQ, pPageQ, {Name: "sort_by", Type: "string", Desc: "Field to sort by", Default: "created_at"}, pSortOrderQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[EvalSchema]"},
		{Pattern: "GET /eval-runs/{eval_run_id}", Handler: o.handleGetEvalRun, Access: needs("evals:read"), Tag: tag, Summary: "Get Evaluation Run",
			Desc: "Retrieve detailed results and metrics for a specific evaluation run.", Query: []apiParam{pDBQ, pTableQ},
			Result: "EvalSchema: id, agent_id, model_id, model_provider, team_id, workflow_id, name, evaluated_component_name, eval_type, eval_data, eval_input, created_at, updated_at; 404 when unknown"},
		{Pattern: "POST /eval-runs", Handler: o.handleRunEval, Access: needs("evals:write"), Tag: tag, Summary: "Execute Evaluation",
			Desc:  "Run evaluation tests on agents or teams: accuracy (a judge model scores the answer against expected_output), agent_as_judge (a judge checks criteria), performance (timed runs with memory) and reliability (expected tool calls). Requires either agent_id or team_id, but not both. With model_id and model_provider the component runs on that model and its own model judges.",
			Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "agent_id", Type: "string", Desc: "Agent ID to evaluate"}, {Name: "team_id", Type: "string", Desc: "Team ID to evaluate"},
				{Name: "model_id", Type: "string", Desc: "Model ID to use for evaluation"}, {Name: "model_provider", Type: "string", Desc: "Model provider name"},
				{Name: "eval_type", Type: "string", Desc: "Type of evaluation to run", Required: true, Enum: evalTypes},
				{Name: "input", Type: "string", Desc: "Input text/query for the evaluation", Required: true},
				{Name: "additional_guidelines", Type: "string", Desc: "Additional guidelines for the evaluation"},
				{Name: "additional_context", Type: "string", Desc: "Additional context for the evaluation"},
				{Name: "num_iterations", Type: "integer", Desc: "Number of times to run the evaluation", Default: 1, Min: 1, Max: 100},
				{Name: "name", Type: "string", Desc: "Name for this evaluation run"},
				{Name: "expected_output", Type: "string", Desc: "Expected output for accuracy evaluation"},
				{Name: "criteria", Type: "string", Desc: "Evaluation criteria for agent-as-judge evaluation"},
				{Name: "scoring_strategy", Type: "string", Desc: "Scoring strategy: 'numeric' (1-10 with threshold) or 'binary' (PASS/FAIL)", Default: "binary", Enum: []string{"numeric", "binary"}},
				{Name: "threshold", Type: "integer", Desc: "Score threshold for pass/fail (1-10), only used with numeric scoring", Default: 7, Min: 1, Max: 10},
				{Name: "warmup_runs", Type: "integer", Desc: "Number of warmup runs before measuring performance", Default: 0, Max: 10},
				{Name: "expected_tool_calls", Type: "array", Desc: "Expected tool calls for reliability evaluation"},
				{Name: "allow_additional_tool_calls", Type: "boolean", Desc: "Let calls of other tools pass in a reliability evaluation", Default: false},
				{Name: "expected_tool_call_arguments", Type: "object", Desc: "Per tool, an object of expected arguments or a list of them (each must match one call)"}},
			Result: "EvalSchema of the result; 400 without exactly one of agent_id and team_id or without the type's required field; 404 for an unknown agent or team"},
		{Pattern: "PATCH /eval-runs/{eval_run_id}", Handler: o.handleRenameEvalRun, Access: needs("evals:write"), Tag: tag, Summary: "Update Evaluation Run",
			Desc: "Update the name of an existing evaluation run.", Query: []apiParam{pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "name", Type: "string", Desc: "New name for the evaluation run (1-255 characters)", Required: true}},
			Result: "EvalSchema; 404 when unknown"},
		{Pattern: "DELETE /eval-runs", Handler: o.handleDeleteEvalRuns, Access: needs("evals:delete"), Tag: tag, Summary: "Delete Evaluation Runs",
			Desc: "Delete multiple evaluation runs by their IDs. This action cannot be undone.", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{pEvalRunIDs}, Status: http.StatusNoContent, Result: "Deleted"},
	}
}
