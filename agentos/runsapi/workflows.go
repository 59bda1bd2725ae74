package runsapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// workflowRoutes are agno's /workflows routes (tag Workflows).
func (g *Group) workflowRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "GET /workflows", Handler: g.handleWorkflows, Access: httpapi.Needs("workflows:read"), Tag: "Workflows", Summary: "List workflows", Result: "[WorkflowSummaryResponse]"},
		{Pattern: "GET /workflows/{workflow_id}", Handler: g.handleWorkflow, Access: httpapi.Needs("workflows:read"), Tag: "Workflows", Summary: "Get a workflow with its step tree", Result: "WorkflowResponse"},
		{Pattern: "POST /workflows/{workflow_id}/runs", Handler: g.handleWorkflowRun, Access: httpapi.Needs("workflows:run"), Tag: "Workflows", Summary: "Run a workflow", Desc: runFormExtra,
			Form: []httpapi.Param{messageForm, streamForm, backgroundForm, sessionForm, userForm, versionForm, factoryForm}, Stream: true,
			Result: "WorkflowRunOutput; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/continue", Handler: g.handleWorkflowContinue, Access: httpapi.Needs("workflows:run"), Tag: "Workflows", Summary: "Continue a paused workflow run",
			Form:   []httpapi.Param{{Name: "step_requirements", Type: "string", Desc: "JSON list of StepRequirement objects (confirmation, user input, route choice, output review)"}, sessionOptForm, userForm, streamForm, factoryForm},
			Stream: true, Result: "WorkflowRunOutput, or an SSE stream"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/cancel", Handler: g.handleWorkflowCancel, Access: httpapi.Needs("workflows:run"), Tag: "Workflows", Summary: "Cancel a workflow run", Query: []httpapi.Param{sessionQuery}, Result: "{}"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/resume", Handler: g.handleWorkflowResume, Access: httpapi.CheckedBy("OS.mayRun: workflows:run on the path's workflow"), Tag: "Workflows", Summary: "Resume a workflow run's event stream", Form: []httpapi.Param{lastEventForm, sessionOptForm}, Stream: true, Result: "SSE stream: missed events, then live ones"},
		{Pattern: "GET /workflows/{workflow_id}/runs/{run_id}", Handler: g.handleWorkflowGetRun, Access: httpapi.Needs("workflows:read"), Tag: "Workflows", Summary: "Get a workflow run", Query: []httpapi.Param{sessionQuery}, Result: "WorkflowRunOutput"},
		{Pattern: "GET /workflows/{workflow_id}/runs", Handler: g.handleWorkflowListRuns, Access: httpapi.Needs("workflows:read"), Tag: "Workflows", Summary: "List a session's workflow runs", Query: []httpapi.Param{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, statusQuery}, Result: "[WorkflowRunSchema]"},
		{Pattern: "GET /workflows/ws", Handler: g.handleWorkflowWS, Access: httpapi.Open("the socket authenticates in its first message: wsConn.authenticate, then wsConn.mayRun per workflow"), Tag: "Workflows", Summary: "WebSocket for workflow runs",
			Desc:   "Upgrade to a WebSocket. Client actions: authenticate, start-workflow, continue-workflow, reconnect, ping. Live events arrive as SSE-framed text; control messages as JSON.",
			Status: http.StatusSwitchingProtocols, Result: "Switching Protocols"},
	}
}

// handleWorkflowWS is the OS's workflow WebSocket (the rows are bound
// before the OS is: Routes reads no host).
func (g *Group) handleWorkflowWS(w http.ResponseWriter, r *http.Request) {
	g.host.ServeWorkflowWS(w, r)
}

func (g *Group) workflow(w http.ResponseWriter, r *http.Request) (*workflow.Workflow, bool) {
	wf := g.host.Workflow(r.PathValue("workflow_id"))
	if wf == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Workflow not found")
		return nil, false
	}
	return wf, true
}

func (g *Group) handleWorkflows(w http.ResponseWriter, r *http.Request) {
	keep, ok := g.host.Readable(w, r, "workflows")
	if !ok {
		return
	}
	out := []WorkflowSummaryResponse{}
	for _, wf := range g.host.Workflows() {
		if keep(wf.ID()) {
			out = append(out, g.WorkflowSummary(wf))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// WorkflowResponse is agno's WorkflowResponse (exclude_none;
// workflow_agent, is_factory and is_component always present).
type WorkflowResponse struct {
	ID                 string         `json:"id,omitempty"`
	Name               string         `json:"name,omitempty"`
	DBID               string         `json:"db_id,omitempty"`
	Description        string         `json:"description,omitempty"`
	InputSchema        map[string]any `json:"input_schema,omitempty"`
	Steps              []workflowStep `json:"steps,omitempty"`
	Agent              *AgentResponse `json:"agent,omitempty"`
	Team               *TeamResponse  `json:"team,omitempty"`
	Metadata           map[string]any `json:"metadata,omitempty"`
	WorkflowAgent      bool           `json:"workflow_agent"`
	IsFactory          bool           `json:"is_factory"`
	FactoryInputSchema map[string]any `json:"factory_input_schema,omitempty"`
	IsComponent        bool           `json:"is_component"`
	CurrentVersion     *int           `json:"current_version,omitempty"`
	Stage              string         `json:"stage,omitempty"`
}

// workflowStep is one step of agno's Workflow.to_dict() step list: name,
// description, type, the step's agent or team (as AgentResponse /
// TeamResponse) and nested steps; None values pruned.
type workflowStep struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Type        string         `json:"type"`
	Agent       *AgentResponse `json:"agent,omitempty"`
	Team        *TeamResponse  `json:"team,omitempty"`
	Steps       []workflowStep `json:"steps,omitempty"`
}

// handleWorkflow is agno's WorkflowResponse with the step tree.
func (g *Group) handleWorkflow(w http.ResponseWriter, r *http.Request) {
	wf, ok := g.workflow(w, r)
	if !ok {
		return
	}
	cfg := wf.Config()
	out := WorkflowResponse{ID: wf.ID(), Name: wf.Name(), DBID: g.host.DBID(), Description: wf.Description(),
		Steps: g.stepTree(cfg.Steps), WorkflowAgent: cfg.Agent != nil, IsComponent: g.host.IsComponent(wf)}
	if s := cfg.InputSchema; len(s) > 0 {
		var m map[string]any
		if run.DecodeJSON(s, &m) == nil {
			out.InputSchema = m
		}
	}
	if len(cfg.Metadata) > 0 {
		out.Metadata = cfg.Metadata
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (g *Group) stepTree(nodes []workflow.Node) []workflowStep {
	var out []workflowStep
	for _, n := range nodes {
		var d workflowStep
		switch x := n.(type) {
		case *workflow.Step:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Step"}
			switch a := x.Agent.(type) {
			case *agent.Agent:
				r := g.agentResponse(a)
				d.Agent = &r
			case *team.Team:
				r := g.teamResponse(a)
				d.Team = &r
			}
		case *workflow.Steps:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Steps", Steps: g.stepTree(x.Steps)}
		case *workflow.Loop:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Loop", Steps: g.stepTree(x.Steps)}
		case *workflow.Parallel:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Parallel", Steps: g.stepTree(x.Steps)}
		case *workflow.Condition:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Condition", Steps: g.stepTree(x.Steps)}
		case *workflow.Router:
			// agno's Router keeps its steps in choices, which to_dict
			// does not list.
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Router"}
		default:
			continue
		}
		out = append(out, d)
	}
	return out
}

// handleWorkflowRun is POST /workflows/{workflow_id}/runs.
func (g *Group) handleWorkflowRun(w http.ResponseWriter, r *http.Request) {
	wf, ok := g.workflow(w, r)
	if !ok {
		return
	}
	rf, ok := g.parseRunForm(r, w)
	if !ok {
		return
	}
	defer rf.release()
	g.honorCancelIntent(r.Context(), wf.ID(), rf.req)
	req := rf.req
	if rf.background {
		if g.host.Store() == nil {
			httpapi.WriteError(w, http.StatusBadRequest, "Background runs need a database: configure [storage]")
			return
		}
		g.startWorkflowBackground(w, r, wf, rf)
		return
	}
	if g.host.Draining() {
		httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.ShuttingDown)
		return
	}
	ctx := r.Context()
	if !rf.stream {
		out, err := wf.Execute(ctx, req, nil)
		if err != nil {
			workflowError(w, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, clientOutput(out))
		return
	}
	if err := wf.ValidateInput(req.Input); err != nil {
		workflowError(w, err)
		return
	}
	g.streamWorkflow(w, func(emit run.Emitter) (*workflow.RunOutput, error) { return wf.Execute(ctx, req, emit) })
}

func workflowError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, runs.ErrRefused):
		httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.RefusedText(err))
	case errors.Is(err, run.ErrRunExists):
		httpapi.WriteError(w, http.StatusConflict, err.Error())
	case errors.Is(err, workflow.ErrInvalidInput):
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, workflow.ErrExpression):
		// The run's data defeated an expression of the workflow: the run is
		// stored ERROR, and this is no server fault.
		httpapi.WriteError(w, http.StatusUnprocessableEntity, "Error running workflow: "+strings.TrimPrefix(err.Error(), workflow.ErrRunFailed.Error()+": "))
	default:
		httpapi.WriteError(w, http.StatusInternalServerError, "Error running workflow: "+strings.TrimPrefix(err.Error(), workflow.ErrRunFailed.Error()+": "))
	}
}

func (g *Group) startWorkflowBackground(w http.ResponseWriter, r *http.Request, wf *workflow.Workflow, rf *runForm) {
	req := rf.req
	req.Prepared, req.Resumable = true, true
	g.launch(w, r, rf, storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: storage.SessionWorkflow, ComponentID: wf.ID(), UserID: req.UserID},
		map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "workflow_id": wf.ID(), "status": run.StatusPending, "created_at": run.Now()},
		func(ctx context.Context) { _, _ = wf.Execute(ctx, req, nil) })
}

// clientOutput is a workflow run as agno's clients get it: without the
// resume state kept for its continuation, and with agno's default
// content_type "str".
func clientOutput(out *workflow.RunOutput) *workflow.RunOutput {
	c := *out
	c.Resume = nil
	if c.ContentType == "" {
		c.ContentType = "str"
	}
	return &c
}

// streamWorkflow streams a workflow (run or continue) as SSE; a run that
// ends paused is followed by agno's legacy WorkflowRunOutput event.
func (g *Group) streamWorkflow(w http.ResponseWriter, exec func(run.Emitter) (*workflow.RunOutput, error)) {
	sse := g.host.SSE(w)
	out, err := exec(sse.Event)
	if err != nil && out == nil {
		sse.Event(run.Stamp(&run.WorkflowError{Error: err.Error()}))
		return
	}
	if out != nil && out.Status == run.StatusPaused {
		sse.JSON("WorkflowRunOutput", clientOutput(out))
	}
}

// handleWorkflowContinue is POST /workflows/{workflow_id}/runs/{run_id}/continue.
func (g *Group) handleWorkflowContinue(w http.ResponseWriter, r *http.Request) {
	wf, ok := g.workflow(w, r)
	if !ok {
		return
	}
	f, err := g.host.ParseForm(w, r, "step_requirements", "session_id", "user_id", "stream", "factory_input")
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	var reqs []*workflow.StepRequirement
	if raw := f.Str("step_requirements"); raw != "" {
		if reqs, err = workflow.ParseStepRequirements([]byte(raw)); err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	stream, err := f.Bool("stream", true)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	runID := r.PathValue("run_id")
	if !g.host.OwnRun(w, r, runID, f.Str("session_id")) || !g.host.ApprovalGate(w, r, runID) {
		return
	}
	creq := &workflow.ContinueRequest{RunID: runID, SessionID: f.Str("session_id"), UserID: f.Str("user_id"), StepRequirements: reqs, Stream: stream, StreamEvents: stream, StoreEvents: true}
	if g.host.Draining() {
		httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.ShuttingDown)
		return
	}
	ctx := r.Context()
	if !stream {
		out, err := wf.ExecuteContinue(ctx, creq, nil)
		if err != nil && out == nil {
			workflowContinueError(w, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, clientOutput(out))
		return
	}
	if err := g.checkPaused(ctx, runID, wf.ID()); err != nil {
		workflowContinueError(w, err)
		return
	}
	g.streamWorkflow(w, func(emit run.Emitter) (*workflow.RunOutput, error) { return wf.ExecuteContinue(ctx, creq, emit) })
}

func workflowContinueError(w http.ResponseWriter, err error) {
	var np *notPaused
	switch {
	case errors.Is(err, runs.ErrRefused):
		httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.RefusedText(err))
	case errors.Is(err, run.ErrNotFound):
		httpapi.WriteError(w, http.StatusNotFound, "Run not found")
	case errors.As(err, &np):
		httpapi.WriteError(w, http.StatusConflict, alreadyText(np.status))
	case errors.Is(err, run.ErrNotPaused):
		httpapi.WriteError(w, http.StatusConflict, err.Error())
	default:
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
	}
}

func (g *Group) handleWorkflowCancel(w http.ResponseWriter, r *http.Request) {
	if wf, ok := g.workflow(w, r); ok {
		g.cancel(w, r, wf.ID())
	}
}

func (g *Group) handleWorkflowResume(w http.ResponseWriter, r *http.Request) {
	if wf, ok := g.workflow(w, r); ok {
		g.resume(w, r, wf.ID())
	}
}

func (g *Group) handleWorkflowGetRun(w http.ResponseWriter, r *http.Request) {
	wf, ok := g.workflow(w, r)
	if !ok {
		return
	}
	doc, _, ok := g.storedRun(w, r, wf.ID(), storage.SessionWorkflow)
	if !ok {
		return
	}
	delete(doc, "resume_state")
	httpapi.WriteJSON(w, http.StatusOK, doc)
}

func (g *Group) handleWorkflowListRuns(w http.ResponseWriter, r *http.Request) {
	if wf, ok := g.workflow(w, r); ok {
		g.listRuns(w, r, wf.ID(), "workflow")
	}
}
