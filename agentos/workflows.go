package agentos

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// workflowAPIRoutes are agno's /workflows routes (tag Workflows).
func (o *OS) workflowAPIRoutes() []apiRoute {
	return []apiRoute{
		{Pattern: "GET /workflows", Handler: o.handleWorkflows, Access: needs("workflows:read"), Tag: "Workflows", Summary: "List workflows", Result: "[WorkflowSummaryResponse]"},
		{Pattern: "GET /workflows/{workflow_id}", Handler: o.handleWorkflow, Access: needs("workflows:read"), Tag: "Workflows", Summary: "Get a workflow with its step tree", Result: "WorkflowResponse"},
		{Pattern: "POST /workflows/{workflow_id}/runs", Handler: o.handleWorkflowRun, Access: needs("workflows:run"), Tag: "Workflows", Summary: "Run a workflow", Desc: runFormExtra,
			Form: []apiParam{pMessage, pStream, pBackground, pSession, pUser, pVersion, pFactory}, Stream: true,
			Result: "WorkflowRunOutput; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/continue", Handler: o.handleWorkflowContinue, Access: needs("workflows:run"), Tag: "Workflows", Summary: "Continue a paused workflow run",
			Form:   []apiParam{{Name: "step_requirements", Type: "string", Desc: "JSON list of StepRequirement objects (confirmation, user input, route choice, output review)"}, pSessionOpt, pUser, pStream, pFactory},
			Stream: true, Result: "WorkflowRunOutput, or an SSE stream"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/cancel", Handler: o.handleWorkflowCancel, Access: needs("workflows:run"), Tag: "Workflows", Summary: "Cancel a workflow run", Query: []apiParam{pSessionQ}, Result: "{}"},
		{Pattern: "POST /workflows/{workflow_id}/runs/{run_id}/resume", Handler: o.handleWorkflowResume, Access: checkedBy("OS.mayRun: workflows:run on the path's workflow"), Tag: "Workflows", Summary: "Resume a workflow run's event stream", Form: []apiParam{pLastEvent, pSessionOpt}, Stream: true, Result: "SSE stream: missed events, then live ones"},
		{Pattern: "GET /workflows/{workflow_id}/runs/{run_id}", Handler: o.handleWorkflowGetRun, Access: needs("workflows:read"), Tag: "Workflows", Summary: "Get a workflow run", Query: []apiParam{pSessionQ}, Result: "WorkflowRunOutput"},
		{Pattern: "GET /workflows/{workflow_id}/runs", Handler: o.handleWorkflowListRuns, Access: needs("workflows:read"), Tag: "Workflows", Summary: "List a session's workflow runs", Query: []apiParam{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, pStatusQ}, Result: "[WorkflowRunSchema]"},
		{Pattern: "GET /workflows/ws", Handler: o.handleWorkflowWS, Access: open("the socket authenticates in its first message: wsConn.authenticate, then wsConn.mayRun per workflow"), Tag: "Workflows", Summary: "WebSocket for workflow runs",
			Desc:   "Upgrade to a WebSocket. Client actions: authenticate, start-workflow, continue-workflow, reconnect, ping. Live events arrive as SSE-framed text; control messages as JSON.",
			Status: http.StatusSwitchingProtocols, Result: "Switching Protocols"},
	}
}

func (o *OS) workflow(w http.ResponseWriter, r *http.Request) (*workflow.Workflow, bool) {
	wf, ok := o.catalog().workflows[r.PathValue("workflow_id")]
	if !ok {
		writeError(w, http.StatusNotFound, "Workflow not found")
		return nil, false
	}
	return wf, true
}

func (o *OS) handleWorkflows(w http.ResponseWriter, r *http.Request) {
	keep, ok := o.readable(w, r, "workflows")
	if !ok {
		return
	}
	out := []WorkflowSummaryResponse{}
	for _, wf := range o.catalog().Workflows {
		if keep(wf.ID()) {
			out = append(out, o.workflowSummary(wf))
		}
	}
	writeJSON(w, http.StatusOK, out)
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
func (o *OS) handleWorkflow(w http.ResponseWriter, r *http.Request) {
	wf, ok := o.workflow(w, r)
	if !ok {
		return
	}
	cfg := wf.Config()
	out := WorkflowResponse{ID: wf.ID(), Name: wf.Name(), DBID: o.cfg.DBID, Description: wf.Description(),
		Steps: o.stepTree(cfg.Steps), WorkflowAgent: cfg.Agent != nil, IsComponent: o.isComponent(wf)}
	if s := cfg.InputSchema; len(s) > 0 {
		var m map[string]any
		if run.DecodeJSON(s, &m) == nil {
			out.InputSchema = m
		}
	}
	if len(cfg.Metadata) > 0 {
		out.Metadata = cfg.Metadata
	}
	writeJSON(w, http.StatusOK, out)
}

func (o *OS) stepTree(nodes []workflow.Node) []workflowStep {
	var out []workflowStep
	for _, n := range nodes {
		var d workflowStep
		switch x := n.(type) {
		case *workflow.Step:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Step"}
			switch a := x.Agent.(type) {
			case *agent.Agent:
				r := o.agentResponse(a)
				d.Agent = &r
			case *team.Team:
				r := o.teamResponse(a)
				d.Team = &r
			}
		case *workflow.Steps:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Steps", Steps: o.stepTree(x.Steps)}
		case *workflow.Loop:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Loop", Steps: o.stepTree(x.Steps)}
		case *workflow.Parallel:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Parallel", Steps: o.stepTree(x.Steps)}
		case *workflow.Condition:
			d = workflowStep{Name: x.Name, Description: x.Description, Type: "Condition", Steps: o.stepTree(x.Steps)}
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
func (o *OS) handleWorkflowRun(w http.ResponseWriter, r *http.Request) {
	wf, ok := o.workflow(w, r)
	if !ok {
		return
	}
	rf, ok := o.parseRunForm(r, w)
	if !ok {
		return
	}
	defer rf.release()
	o.honorCancelIntent(r.Context(), wf.ID(), rf.req)
	req := rf.req
	if rf.background {
		if o.cfg.Store == nil {
			writeError(w, http.StatusBadRequest, "Background runs need a database: configure [storage]")
			return
		}
		o.startWorkflowBackground(w, r, wf, rf)
		return
	}
	if o.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, shuttingDown)
		return
	}
	ctx := r.Context()
	if !rf.stream {
		out, err := wf.Execute(ctx, req, nil)
		if err != nil {
			workflowError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, clientOutput(out))
		return
	}
	if err := wf.ValidateInput(req.Input); err != nil {
		workflowError(w, err)
		return
	}
	streamWorkflow(w, func(emit run.Emitter) (*workflow.RunOutput, error) { return wf.Execute(ctx, req, emit) })
}

func workflowError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, runs.ErrRefused):
		writeError(w, http.StatusServiceUnavailable, refusedText(err))
	case errors.Is(err, run.ErrRunExists):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, workflow.ErrInvalidInput):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, workflow.ErrExpression):
		// The run's data defeated an expression of the workflow: the run is
		// stored ERROR, and this is no server fault.
		writeError(w, http.StatusUnprocessableEntity, "Error running workflow: "+strings.TrimPrefix(err.Error(), workflow.ErrRunFailed.Error()+": "))
	default:
		writeError(w, http.StatusInternalServerError, "Error running workflow: "+strings.TrimPrefix(err.Error(), workflow.ErrRunFailed.Error()+": "))
	}
}

func (o *OS) startWorkflowBackground(w http.ResponseWriter, r *http.Request, wf *workflow.Workflow, rf *runForm) {
	req := rf.req
	req.Prepared, req.Resumable = true, true
	o.launch(w, r, rf, storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: storage.SessionWorkflow, ComponentID: wf.ID(), UserID: req.UserID},
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
func streamWorkflow(w http.ResponseWriter, exec func(run.Emitter) (*workflow.RunOutput, error)) {
	sse := newSSE(w)
	out, err := exec(func(e run.Event) bool { return sse.send(e, -1) })
	if err != nil && out == nil {
		sse.send(run.Stamp(&run.WorkflowError{Error: err.Error()}), -1)
		return
	}
	if out != nil && out.Status == run.StatusPaused {
		sse.json("WorkflowRunOutput", clientOutput(out))
	}
}

// handleWorkflowContinue is POST /workflows/{workflow_id}/runs/{run_id}/continue.
func (o *OS) handleWorkflowContinue(w http.ResponseWriter, r *http.Request) {
	wf, ok := o.workflow(w, r)
	if !ok {
		return
	}
	f, err := o.parseForm(w, r, "step_requirements", "session_id", "user_id", "stream", "factory_input")
	if err != nil {
		fail(w, err)
		return
	}
	var reqs []*workflow.StepRequirement
	if raw := f.str("step_requirements"); raw != "" {
		if reqs, err = workflow.ParseStepRequirements([]byte(raw)); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	stream, err := f.boolean("stream", true)
	if err != nil {
		fail(w, err)
		return
	}
	runID := r.PathValue("run_id")
	if !o.ownRun(w, r, runID, f.str("session_id")) || !o.approvalGate(w, r, runID) {
		return
	}
	creq := &workflow.ContinueRequest{RunID: runID, SessionID: f.str("session_id"), UserID: f.str("user_id"), StepRequirements: reqs, Stream: stream, StreamEvents: stream, StoreEvents: true}
	if o.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, shuttingDown)
		return
	}
	ctx := r.Context()
	if !stream {
		out, err := wf.ExecuteContinue(ctx, creq, nil)
		if err != nil && out == nil {
			workflowContinueError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, clientOutput(out))
		return
	}
	if err := o.checkPaused(ctx, runID, wf.ID()); err != nil {
		workflowContinueError(w, err)
		return
	}
	streamWorkflow(w, func(emit run.Emitter) (*workflow.RunOutput, error) { return wf.ExecuteContinue(ctx, creq, emit) })
}

func workflowContinueError(w http.ResponseWriter, err error) {
	var np *notPaused
	switch {
	case errors.Is(err, runs.ErrRefused):
		writeError(w, http.StatusServiceUnavailable, refusedText(err))
	case errors.Is(err, run.ErrNotFound):
		writeError(w, http.StatusNotFound, "Run not found")
	case errors.As(err, &np):
		writeError(w, http.StatusConflict, alreadyText(np.status))
	case errors.Is(err, run.ErrNotPaused):
		writeError(w, http.StatusConflict, err.Error())
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
}

func (o *OS) handleWorkflowCancel(w http.ResponseWriter, r *http.Request) {
	if wf, ok := o.workflow(w, r); ok {
		o.cancel(w, r, wf.ID())
	}
}

func (o *OS) handleWorkflowResume(w http.ResponseWriter, r *http.Request) {
	if wf, ok := o.workflow(w, r); ok {
		o.resume(w, r, wf.ID())
	}
}

func (o *OS) handleWorkflowGetRun(w http.ResponseWriter, r *http.Request) {
	wf, ok := o.workflow(w, r)
	if !ok {
		return
	}
	doc, _, ok := o.storedRun(w, r, wf.ID(), storage.SessionWorkflow)
	if !ok {
		return
	}
	delete(doc, "resume_state")
	writeJSON(w, http.StatusOK, doc)
}

func (o *OS) handleWorkflowListRuns(w http.ResponseWriter, r *http.Request) {
	if wf, ok := o.workflow(w, r); ok {
		o.listRuns(w, r, wf.ID(), "workflow")
	}
}
