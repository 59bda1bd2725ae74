package httpapi

import (
	"errors"
	"net/http"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// How a run that could not start is answered: the run routes
// (agentos/runsapi) and the interfaces and planes that start runs in
// agentos say it alike.

// ShuttingDown answers a run refused while the OS drains.
const ShuttingDown = "AgentOS is shutting down"

// RefusedText answers a run the engine refused (runs.ErrRefused).
func RefusedText(err error) string {
	if errors.Is(err, runs.ErrLeaseLapsed) {
		return "This AgentOS instance lost its database lease and takes no new run until it renews it: retry, another replica can take the run"
	}
	return ShuttingDown
}

// RunExistsText answers a client-chosen run id that is taken.
func RunExistsText(runID string) string {
	return "Run " + runID + " already exists: choose another run_id, or leave it out to get a new one"
}

// RunError answers a run that could not start.
func RunError(w http.ResponseWriter, runID string, err error) {
	if errors.Is(err, run.ErrRunExists) || errors.Is(err, storage.ErrConflict) {
		WriteError(w, http.StatusConflict, RunExistsText(runID))
		return
	}
	if errors.Is(err, runs.ErrRefused) {
		WriteError(w, http.StatusServiceUnavailable, RefusedText(err))
		return
	}
	Fail(w, err)
}
