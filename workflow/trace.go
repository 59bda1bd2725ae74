package workflow

import (
	"context"
	"errors"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tracing"
)

// Execute runs a request, emitting events to emit (nil: none), under the
// workflow run's span. With a workflow agent configured, the agent answers
// and runs the workflow when it decides to.
func (w *Workflow) Execute(ctx context.Context, req *run.Request, emit run.Emitter) (*RunOutput, error) {
	ctx, span := tracing.StartWorkflow(ctx, w.traceInfo(req.RunID, req.SessionID, req.UserID, tracing.RequestInput(req)))
	out, err := w.executeRun(ctx, req, emit)
	endWorkflowSpan(span, out, err)
	return out, err
}

// ExecuteContinue continues a paused run with an explicit emitter, under
// a new span of the run.
func (w *Workflow) ExecuteContinue(ctx context.Context, req *ContinueRequest, emit run.Emitter) (*RunOutput, error) {
	ctx, span := tracing.StartWorkflow(ctx, w.traceInfo(req.RunID, req.SessionID, req.UserID, ""))
	out, err := w.executeContinue(ctx, req, emit)
	endWorkflowSpan(span, out, err)
	return out, err
}

func (w *Workflow) traceInfo(runID, sessionID, userID, input string) tracing.Workflow {
	return tracing.Workflow{ID: w.cfg.ID, Name: w.cfg.Name, Description: w.cfg.Description,
		RunID: runID, SessionID: sessionID, UserID: userID, Input: input, Steps: stepList{w}}
}

// stepList names the top-level steps and their types for the span
// (agno.workflow.steps, agno.workflow.step_types).
type stepList struct{ w *Workflow }

func (l stepList) Steps() (names, types []string) {
	for _, n := range l.w.cfg.Steps {
		names = append(names, n.nodeName())
		types = append(types, n.nodeType())
	}
	return names, types
}

func endWorkflowSpan(span tracing.Span, out *RunOutput, err error) {
	if !span.Recording() {
		return
	}
	failure := ""
	if err != nil {
		failure = err.Error()
	}
	var content any
	if out != nil {
		span.SetIDs(out.RunID, out.SessionID, out.UserID)
		content = out.Content
		if out.Status == run.StatusError && failure == "" {
			failure = "workflow run failed"
		}
	}
	span.EndChain(content, failure)
}

// runNode runs one node under its step span.
func (x *execution) runNode(ctx context.Context, n Node, addr string, in *StepInput, index *int) (*StepOutput, error) {
	if o := x.done(addr); o != nil {
		return o, nil
	}
	ctx, span := tracing.StartStep(ctx, stepTrace(n, in))
	o, err := x.runNodeUntraced(ctx, n, addr, in, index)
	if span.Recording() {
		failure := ""
		var ps *pauseSignal
		if err != nil && !errors.As(err, &ps) {
			failure = err.Error()
		} else if o != nil && !o.Success && o.Error != "" {
			failure = o.Error
		}
		var content any
		if o != nil {
			content = o.Content
		}
		span.EndChain(content, failure)
	}
	return o, err
}

func stepTrace(n Node, in *StepInput) tracing.Step {
	st := tracing.Step{Name: n.nodeName()}
	if in != nil {
		st.Input = in.Input
	}
	if s, ok := n.(*Step); ok && s.Agent != nil {
		st.Executor, st.ExecutorName = "agent", s.Agent.Name()
		if _, team := s.Agent.(interface{ Members() []run.Executor }); team {
			st.Executor = "team"
		}
	}
	return st
}
