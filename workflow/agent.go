package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// WorkflowAgent makes a workflow conversational (agno's WorkflowAgent): an
// agent with one tool, run_workflow, that answers from the session's
// earlier workflow runs when it can and runs the workflow when it must.
type WorkflowAgent struct {
	Model model.Model `toml:"model"`
	// Instructions replace agno's orchestration instructions; the workflow
	// context (description and history) is appended unless they place it
	// with {workflow_context}.
	Instructions string `toml:"instructions"`
	// AddWorkflowHistory shows the agent earlier runs of the session
	// (default true); NumHistoryRuns bounds them (default 5).
	AddWorkflowHistory *bool `toml:"add_workflow_history"`
	NumHistoryRuns     int   `toml:"num_history_runs"`
}

// defaultAgentInstructions are agno's WorkflowAgent instructions.
const defaultAgentInstructions = `You are a workflow orchestration agent. Your job is to help users by either:
1. **Answering directly** from the workflow history context if the question can be answered from previous runs
2. **Running the workflow** by calling the run_workflow tool ONCE when you need to process a new query

Guidelines:
- ALWAYS check the workflow history first before calling the tool
- Answer directly from history if:
    * The user asks about something already in history
    * The user asks for comparisons/analysis of things in history (e.g., "compare X and Y")
    * The user asks follow-up questions about previous results
- Only call the run_workflow tool for NEW topics not covered in history
- IMPORTANT: Do NOT call the tool multiple times. Call it once and use the result.
- Keep your responses concise and helpful
- When you must call the workflow, pass a clear and concise query

{workflow_context}
`

const runWorkflowParams = `{"type":"object","properties":{"query":{"type":"string","description":"The input query/question to process through the workflow"}},"required":["query"]}`

// newAgent builds the agent of a workflow with a WorkflowAgent.
func (w *Workflow) newAgent(wa *WorkflowAgent) (*agent.Agent, error) {
	if wa.Model == nil {
		return nil, errors.New("Agent.Model is nil; a workflow agent needs a model")
	}
	instr := defaultAgentInstructions
	if wa.Instructions != "" {
		instr = wa.Instructions
		if !strings.Contains(instr, "{workflow_context}") {
			instr += "\n\n{workflow_context}"
		}
	}
	fn, err := tool.NewRaw("run_workflow",
		"Execute the complete workflow with the given query.\nUse this tool when you need to run the workflow to answer the user's question.",
		json.RawMessage(runWorkflowParams), w.runWorkflowTool)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{ID: w.cfg.ID + "-agent", Model: wa.Model, Instructions: []string{instr},
		Tools: []tool.Provider{fn}, Canceller: lazyCanceller{w}, Logger: w.cfg.Logger})
}

// agentCall is one workflow-agent turn, reached by its tool through the
// context.
type agentCall struct {
	req    *run.Request
	stream bool

	mu   sync.Mutex
	runs []*execution
}

type agentCallKey struct{}

// executed reports whether the tool ran the workflow in this turn.
func (c *agentCall) executed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.runs) > 0
}

// runWorkflowTool is run_workflow: it runs the steps with the agent's
// query. The first call of a turn takes the turn's run id, so the run the
// caller asked for is the one the workflow executed.
func (w *Workflow) runWorkflowTool(ctx context.Context, args map[string]any) (tool.Result, error) {
	call, _ := ctx.Value(agentCallKey{}).(*agentCall)
	if call == nil {
		return tool.Result{}, errors.New("run_workflow runs only inside its workflow's agent")
	}
	query, _ := args["query"].(string)
	first := !call.executed()
	runID := run.NewID()
	if first {
		runID = call.req.RunID
	}
	req := &run.Request{Input: query, RunID: runID, SessionID: call.req.SessionID, UserID: call.req.UserID,
		Images: call.req.Images, Files: call.req.Files, Metadata: call.req.Metadata, Dependencies: call.req.Dependencies,
		AdditionalData: call.req.AdditionalData, SessionState: call.req.SessionState,
		Stream: call.stream, StreamEvents: call.stream, Prepared: first && call.req.Prepared}
	var emit run.Emitter
	if call.stream {
		emit = run.EmitterFrom(ctx) // the agent's stream carries the workflow's events
	}
	out, err := w.execute(ctx, req, emit, &innerRun{input: call.req.Input, unregistered: first, done: func(x *execution) {
		call.mu.Lock()
		call.runs = append(call.runs, x)
		call.mu.Unlock()
	}})
	if out == nil && err != nil {
		return tool.Result{}, err
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("the workflow failed: %s", out.ContentString())
	}
	return tool.Text(run.ContentText(out.Content)), nil
}

// agentContext is what the agent's instructions get for
// {workflow_context}: the description, then the session's history.
func (w *Workflow) agentContext(ctx context.Context, sessionID string) string {
	wa := w.cfg.Agent
	var text string
	if wa.AddWorkflowHistory == nil || *wa.AddWorkflowHistory {
		n := wa.NumHistoryRuns
		if n <= 0 {
			n = 5
		}
		var h []HistoryRun
		if w.cfg.Store != nil {
			h = w.loadHistory(ctx, sessionID, n)
		}
		text = historyText(h)
		if text == "" {
			text = "No previous workflow runs in this session."
		}
	} else {
		text = "No workflow history available."
	}
	if w.cfg.Description != "" {
		text = "Workflow Description: " + w.cfg.Description + "\n\n" + text
	}
	return text
}

// executeAgent runs a workflow-agent turn (agno's _run_workflow_agent and
// _run_workflow_agent_stream). The stream carries WorkflowAgentStarted,
// the workflow's events if the agent ran it, the agent's own content
// (marked workflow_agent) until then, and WorkflowAgentCompleted; a direct
// answer is stored as a completed run of its own.
func (w *Workflow) executeAgent(ctx context.Context, req *run.Request, emit run.Emitter) (*RunOutput, error) {
	x := w.newExecution(req, emit)
	x.out = w.newOutput(req)
	x.direct = true
	if err := x.begin(ctx, false); err != nil { // the row is the workflow run's, or written at finish
		return x.result(x.finish(err))
	}
	defer x.release()
	x.send(&run.WorkflowAgentStarted{EventBase: run.EventBase{WorkflowID: w.cfg.ID, WorkflowName: w.cfg.Name, SessionID: req.SessionID}}, true)

	call := &agentCall{req: req, stream: emit != nil}
	var agentEmit run.Emitter
	if emit != nil {
		agentEmit = func(e run.Event) bool {
			if c, ok := e.(*run.RunContent); ok {
				if c.StepName == "" {
					if call.executed() {
						return true // agno drops the agent's words after the workflow ran
					}
					c.WorkflowAgent = run.ContentFlag(&c.EventBase, true)
				}
				return x.forward(e)
			}
			if b := e.Base(); b.WorkflowID != "" && b.AgentID == "" && b.TeamID == "" {
				return x.forward(e)
			}
			return true // agno streams only workflow events and content from this turn
		}
	}
	agentOut, err := w.agent.Execute(context.WithValue(x.ctx, agentCallKey{}, call), &run.Request{
		Input: req.Input, SessionID: req.SessionID, UserID: req.UserID, ParentRunID: req.RunID,
		SessionState: x.rc.StateSnapshot(), Dependencies: map[string]any{"workflow_context": w.agentContext(x.ctx, req.SessionID)},
		Stream: req.Stream, StreamEvents: req.Stream, Images: req.Images, Files: req.Files,
	}, agentEmit)
	if err == nil && agentOut != nil {
		agentOut.WorkflowID = w.cfg.ID
		switch agentOut.Status {
		case run.StatusError:
			err = errors.New(agentOut.ContentString())
		case run.StatusCancelled:
			err = &cancelSignal{reason: agentOut.ContentString()}
		}
	}
	var agentContent any
	agentRunID := ""
	if agentOut != nil {
		agentContent, agentRunID = agentOut.Content, agentOut.RunID
	}

	call.mu.Lock()
	runs := call.runs
	call.mu.Unlock()
	if len(runs) > 0 {
		// The workflow ran: its first run (the caller's run id) is the
		// answer, with the agent's run attached.
		ran := runs[0]
		x.send(&run.WorkflowAgentCompleted{EventBase: run.EventBase{WorkflowID: w.cfg.ID, WorkflowName: w.cfg.Name,
			RunID: agentRunID, SessionID: req.SessionID}, Content: agentContent}, true)
		if agentOut != nil {
			agentOut.ParentRunID = ran.out.RunID
			ran.out.WorkflowAgentRun = agentOut
			_ = ran.persist(false)
		}
		out := ran.out
		if out.Status == run.StatusError {
			return out, ran.failed()
		}
		return out, nil
	}
	if err == nil {
		x.out.Content = agentContent
		x.out.WorkflowAgentRun = agentOut
		x.send(&run.WorkflowAgentCompleted{EventBase: run.EventBase{WorkflowID: w.cfg.ID, WorkflowName: w.cfg.Name,
			RunID: agentRunID, SessionID: req.SessionID}, Content: agentContent}, true)
	}
	return x.result(x.finish(err))
}
