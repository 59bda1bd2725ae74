package team

import (
	"context"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tracing"
)

// execute runs req under the team run's span; members' runs nest under
// the span of the delegation tool call that started them.
func (t *Team) execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	ctx, span := tracing.StartRun(ctx, tracing.Run{Team: true, ID: t.cfg.ID, Name: t.cfg.Name,
		RunID: req.RunID, SessionID: req.SessionID, UserID: req.UserID, Input: tracing.RequestInput(req)})
	out, err := t.spec.Execute(ctx, req, emit)
	span.EndRun(out, err)
	return out, err
}

// resume continues a paused team run under a new span of the run.
func (t *Team) resume(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	ctx, span := tracing.StartRun(ctx, tracing.Run{Team: true, ID: t.cfg.ID, Name: t.cfg.Name,
		RunID: req.RunID, SessionID: req.SessionID, UserID: req.UserID, Input: tracing.ContinueInput(req)})
	out, err := t.spec.Continue(ctx, req, emit)
	span.EndRun(out, err)
	return out, err
}
