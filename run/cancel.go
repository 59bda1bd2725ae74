package run

import (
	"context"
	"errors"
)

// ErrCancelled is the cause of a run context cancelled by Cancel.
var ErrCancelled = errors.New("run cancelled")

// Canceller cancels runs by id. The default is the run engine of the
// store (package runs), which reaches a run on any instance sharing it.
type Canceller interface {
	// Register ties a run id to the cancel function of its context. If a
	// cancel for the id arrived earlier, cancel is called at once. The
	// returned function unregisters the run.
	Register(runID string, cancel context.CancelCauseFunc) (unregister func())
	// Cancel cancels the run, or records the intent for a run not yet
	// registered. It reports whether a running run was reached.
	Cancel(ctx context.Context, runID string) (bool, error)
}
