package agent

import (
	"context"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tracing"
)

// execute runs req under the run's span: model and tool calls, and the
// runs of agents the tools start, nest under it.
func (a *Agent) execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	ctx, span := tracing.StartRun(ctx, a.traceRun(req.RunID, req.SessionID, req.UserID, tracing.RequestInput(req)))
	if span.Recording() {
		span.SetTools(a.spec.ToolNames())
	}
	out, err := a.spec.Execute(ctx, req, emit)
	span.EndRun(out, err)
	return out, err
}

// resume continues a paused run under a new span of the run.
func (a *Agent) resume(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	ctx, span := tracing.StartRun(ctx, a.traceRun(req.RunID, req.SessionID, req.UserID, tracing.ContinueInput(req)))
	if span.Recording() {
		span.SetTools(a.spec.ToolNames())
	}
	out, err := a.spec.Continue(ctx, req, emit)
	span.EndRun(out, err)
	return out, err
}

func (a *Agent) traceRun(runID, sessionID, userID, input string) tracing.Run {
	return tracing.Run{ID: a.spec.ID, Name: a.spec.Name, RunID: runID, SessionID: sessionID, UserID: userID,
		Input: input}
}
