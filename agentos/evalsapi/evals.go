// Package evalsapi is the Evals route group of AgentOS: agno's /eval-runs
// routes over package eval (agno_eval_runs, kept in the OS's control-plane
// DB), which list, read, rename and delete eval runs and run new ones
// against the served agents and teams. It builds on the core
// (agentos/internal/httpapi) and on Host, what it needs of the OS;
// agentos serves its rows.
package evalsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/team"
)

// Host is what the group needs of the OS.
type Host interface {
	// DB holds agno_eval_runs.
	DB() *sqldb.DB
	// DBID is the id a request's db_id must name (agno's get_db).
	DBID() string
	Logger() *slog.Logger
	// Agent and Team are the served agent or team id; nil when none is.
	Agent(id string) *agent.Agent
	Team(id string) *team.Team
	// MayRunAs reports whether r's caller may run typ/id ("agents",
	// "helper") as a run request may; when not, it has answered 403.
	MayRunAs(w http.ResponseWriter, r *http.Request, typ, id string) bool
	// Model is agno's get_model("provider:id"): a served model, else one
	// of the registered provider (model.ErrUnknownProvider when none is).
	Model(provider, id string) (model.Model, error)
}

// Group is the evals part of the control plane: New, then Routes, Start
// and Stop.
type Group struct {
	host Host
	// store is nil until Start.
	store *eval.Store
}

// New is the group serving h's eval runs.
func New(h Host) *Group { return &Group{host: h} }

// Start opens agno_eval_runs.
func (g *Group) Start() error {
	st, err := eval.NewStore(context.Background(), g.host.DB())
	if err != nil {
		return fmt.Errorf("agentos: evals: %w", err)
	}
	g.store = st
	return nil
}

// Stop does nothing: the group starts no goroutines; evals in flight end
// with their requests.
func (g *Group) Stop() {}

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
	Data []EvalSchema           `json:"data"`
	Meta httpapi.PaginationInfo `json:"meta"`
}

func evalISO(sec int64) *string {
	if s, ok := httpapi.IsoSeconds(sec).(string); ok {
		return &s
	}
	return nil
}

// evalSchema is agno's EvalSchema.from_dict of a stored run.
func evalSchema(r *eval.Record) EvalSchema {
	return EvalSchema{
		ID: r.RunID, AgentID: httpapi.NullString(r.AgentID), ModelID: httpapi.NullString(r.ModelID),
		ModelProvider: httpapi.NullString(r.ModelProvider), TeamID: httpapi.NullString(r.TeamID),
		WorkflowID: httpapi.NullString(r.WorkflowID), Name: httpapi.NullString(r.Name),
		EvaluatedComponentName: httpapi.NullString(r.EvaluatedComponentName), EvalType: r.EvalType, EvalData: r.EvalData,
		EvalInput: r.EvalInput, CreatedAt: evalISO(r.CreatedAt), UpdatedAt: evalISO(r.UpdatedAt),
	}
}

// evalStore resolves db_id and table as agno's get_db does for the eval
// routes.
func (g *Group) evalStore(r *http.Request) (*eval.Store, error) {
	q := r.URL.Query()
	dbID, tbl := q.Get("db_id"), q.Get("table")
	switch {
	case tbl != "" && dbID == "":
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "The db_id query parameter is required when passing a table")
	case dbID != "" && dbID != g.host.DBID():
		return nil, httpapi.ErrStatus(http.StatusNotFound, "No database found with id '%s'", dbID)
	case tbl != "" && tbl != eval.Table:
		return nil, httpapi.ErrStatus(http.StatusNotFound, "No database with id '%s' has table '%s'", dbID, tbl)
	}
	return g.store, nil
}

func evalNotFound(id string) error {
	return httpapi.ErrStatus(http.StatusNotFound, "Eval run with id '%s' not found", id)
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
func (g *Group) handleListEvalRuns(w http.ResponseWriter, r *http.Request) {
	p := httpapi.NewQuery(w, r)
	q := eval.Query{
		AgentID:    p.Str("agent_id"),
		TeamID:     p.Str("team_id"),
		WorkflowID: p.Str("workflow_id"),
		ModelID:    p.Str("model_id"),
		Component:  eval.ComponentType(p.Enum("type", "", evalComponentTypes...)),
		Limit:      p.Int("limit", 20, 1, httpapi.MaxPageLimit),
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
	if u := httpapi.ScopedUser(r.Context()); u != "" {
		q.CreatedBy = &u // under isolation, one's own
	}
	// eval_types is agno's comma-separated filter, answered with its own
	// 422 text.
	if s := p.Str("eval_types"); s != "" {
		for _, item := range strings.Split(s, ",") {
			t := eval.Type(strings.TrimSpace(item))
			if !t.Valid() {
				httpapi.WriteError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Invalid eval_type: '%s' is not a valid EvalType. Valid types: %s", t, strings.Join(evalTypeNames(), ", ")))
				return
			}
			q.Types = append(q.Types, t)
		}
	}
	st, err := g.evalStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	recs, total, err := st.List(r.Context(), q)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if len(recs) == 0 {
		total = 0 // agno answers an empty page with a count of 0
	}
	out := EvalRunsResponse{Data: make([]EvalSchema, 0, len(recs)), Meta: httpapi.PaginationInfo{
		Page: q.Page, Limit: q.Limit, TotalCount: total, TotalPages: httpapi.TotalPages(total, q.Limit),
	}}
	for _, rec := range recs {
		out.Data = append(out.Data, evalSchema(rec))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// handleGetEvalRun is GET /eval-runs/{eval_run_id}.
func (g *Group) handleGetEvalRun(w http.ResponseWriter, r *http.Request) {
	st, err := g.evalStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	id := r.PathValue("eval_run_id")
	rec, err := st.Get(r.Context(), id)
	if errors.Is(err, eval.ErrNotFound) || err == nil && !httpapi.OwnedBy(r.Context(), rec.CreatedBy) {
		err = evalNotFound(id)
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, evalSchema(rec))
}

// handleRenameEvalRun is PATCH /eval-runs/{eval_run_id} {name}.
func (g *Group) handleRenameEvalRun(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
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
	st, err := g.evalStore(r)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to rename eval run: "+evalCaught(err))
		return
	}
	id := r.PathValue("eval_run_id")
	if old, err := st.Get(r.Context(), id); err == nil && !httpapi.OwnedBy(r.Context(), old.CreatedBy) {
		httpapi.Fail(w, evalNotFound(id))
		return
	}
	rec, err := st.Rename(r.Context(), id, name)
	switch {
	case errors.Is(err, eval.ErrNotFound):
		httpapi.Fail(w, evalNotFound(id))
	case err != nil:
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to rename eval run: "+evalCaught(err))
	default:
		httpapi.WriteJSON(w, http.StatusOK, evalSchema(rec))
	}
}

// evalCaught is an error as agno's rename and delete routes report it: they
// catch every exception, get_db's HTTPException included, and answer 500
// with its text ("404: No database found …").
func evalCaught(err error) string {
	var he *httpapi.StatusError
	if errors.As(err, &he) {
		return fmt.Sprintf("%d: %s", he.Status, he.Detail)
	}
	return err.Error()
}

// handleDeleteEvalRuns is DELETE /eval-runs {eval_run_ids}: 204; unknown
// ids are ignored.
func (g *Group) handleDeleteEvalRuns(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
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
	st, err := g.evalStore(r)
	if err == nil {
		var owner *string
		if u := httpapi.ScopedUser(r.Context()); u != "" {
			owner = &u // another user's ids are ignored like unknown ones
		}
		err = st.DeleteBy(r.Context(), owner, ids...)
	}
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete eval runs: "+evalCaught(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

var pEvalRunIDs = httpapi.Param{Name: "eval_run_ids", Type: "array", Desc: "Ids of the eval runs to delete", Required: true}

// Routes are agno's /eval-runs routes (tag Evals).
func (g *Group) Routes() []httpapi.Route {
	const tag = "Evals"
	evalTypes := evalTypeNames()
	return []httpapi.Route{
		{Pattern: "GET /eval-runs", Handler: g.handleListEvalRuns, Access: httpapi.Needs("evals:read"), Tag: tag, Summary: "List Evaluation Runs",
			Desc: "Retrieve paginated evaluation runs with filtering and sorting options. Filter by agent, team, workflow, model, or evaluation type.",
			Query: []httpapi.Param{{Name: "agent_id", Type: "string", Desc: "Agent ID"}, {Name: "team_id", Type: "string", Desc: "Team ID"},
				{Name: "workflow_id", Type: "string", Desc: "Workflow ID"}, {Name: "model_id", Type: "string", Desc: "Model ID"},
				{Name: "type", Type: "string", Desc: "Filter type: runs of agents, teams or workflows", Enum: evalComponentTypes},
				{Name: "eval_types", Type: "string", Desc: "Comma-separated eval types (" + strings.Join(evalTypes, ",") + ")"},
				httpapi.LimitQuery, httpapi.PageQuery, {Name: "sort_by", Type: "string", Desc: "Field to sort by", Default: "created_at"},
				httpapi.SortOrderQuery, httpapi.DBQuery, httpapi.TableQuery},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[EvalSchema]"},
		{Pattern: "GET /eval-runs/{eval_run_id}", Handler: g.handleGetEvalRun, Access: httpapi.Needs("evals:read"), Tag: tag, Summary: "Get Evaluation Run",
			Desc: "Retrieve detailed results and metrics for a specific evaluation run.", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			Result: "EvalSchema: id, agent_id, model_id, model_provider, team_id, workflow_id, name, evaluated_component_name, eval_type, eval_data, eval_input, created_at, updated_at; 404 when unknown"},
		{Pattern: "POST /eval-runs", Handler: g.handleRunEval, Access: httpapi.Needs("evals:write"), Tag: tag, Summary: "Execute Evaluation",
			Desc:  "Run evaluation tests on agents or teams: accuracy (a judge model scores the answer against expected_output), agent_as_judge (a judge checks criteria), performance (timed runs with memory) and reliability (expected tool calls). Requires either agent_id or team_id, but not both. With model_id and model_provider the component runs on that model and its own model judges.",
			Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "agent_id", Type: "string", Desc: "Agent ID to evaluate"}, {Name: "team_id", Type: "string", Desc: "Team ID to evaluate"},
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
		{Pattern: "PATCH /eval-runs/{eval_run_id}", Handler: g.handleRenameEvalRun, Access: httpapi.Needs("evals:write"), Tag: tag, Summary: "Update Evaluation Run",
			Desc: "Update the name of an existing evaluation run.", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON:   []httpapi.Param{{Name: "name", Type: "string", Desc: "New name for the evaluation run (1-255 characters)", Required: true}},
			Result: "EvalSchema; 404 when unknown"},
		{Pattern: "DELETE /eval-runs", Handler: g.handleDeleteEvalRuns, Access: httpapi.Needs("evals:delete"), Tag: tag, Summary: "Delete Evaluation Runs",
			Desc: "Delete multiple evaluation runs by their IDs. This action cannot be undone.", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{pEvalRunIDs}, Status: http.StatusNoContent, Result: "Deleted"},
	}
}
