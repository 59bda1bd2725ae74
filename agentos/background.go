package agentos

import (
	"context"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
)

// launch runs exec detached from the request that started it (agent,
// team and workflow background runs, WebSocket starts): its events go to
// the run's buffer, shutdown waits for it, and a panic ends the run ERROR
// instead of the process. ok is false while AgentOS shuts down.
func (o *OS) launch(parent context.Context, runID, kind string, exec func(ctx context.Context, emit run.Emitter) run.Status) (buf *runBuffer, ok bool) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	done, ok := o.track(runID, kind, cancel)
	if !ok {
		cancel(nil)
		return nil, false
	}
	buf, gen := o.buffers.start(runID)
	go func() {
		defer done()
		defer cancel(nil)
		status := run.StatusError
		defer func() { buf.finish(gen, status) }()
		defer safe.Recover(o.log, kind+" run "+runID, func(pe *safe.PanicError) { o.failRun(runID, pe) })
		status = exec(ctx, func(e run.Event) bool { buf.add(e); return true })
	}()
	return buf, true
}

// failRun stores a run whose goroutine panicked as ERROR, so it is not
// left RUNNING.
func (o *OS) failRun(runID string, cause error) {
	if o.cfg.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	if err != nil || rec.Status.Terminal() {
		return
	}
	if err := markRun(ctx, o.cfg.Store, rec, run.StatusError, cause.Error()); err != nil {
		o.log.Error("could not store a crashed run as ERROR", "run_id", runID, "error", err)
	}
}
