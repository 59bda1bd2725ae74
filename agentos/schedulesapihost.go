package agentos

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// schedulesHost is what the Schedules group needs of the OS
// (schedulesapi.Host): the checks a request passes, and the requests and
// runs a schedule fires.
type schedulesHost struct{ *Host }

// Instance is the run engine's: the poller's leases name the process
// that holds them.
func (h schedulesHost) Instance() string { return h.o.eng.Instance() }

func (h schedulesHost) CallerFor(p principal) *caller { return h.o.callerFor(p) }

func (h schedulesHost) May(c *caller, required []string, typ, id string) bool {
	return h.o.may(c, required, typ, id)
}

func (h schedulesHost) SessionOpenTo(ctx context.Context, sessionID, user string) bool {
	return h.o.sessionOpenTo(ctx, sessionID, user)
}

func (h schedulesHost) ServeInternal(ctx context.Context, p principal, method, target, contentType string, body io.Reader) (int, []byte, error) {
	return h.o.serveInternal(ctx, p, method, target, contentType, body)
}

// StoredRun is the stored document of a run of componentID in
// sessionID, as GET .../runs/{run_id} answers it; nil while it is not
// stored yet.
func (h schedulesHost) StoredRun(ctx context.Context, componentID, runID, sessionID string) (map[string]any, error) {
	st := h.o.cfg.Store
	if st == nil {
		return nil, errors.New("no store to follow the run in")
	}
	rec, err := st.GetRun(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.ComponentID != componentID || rec.SessionID != sessionID {
		return nil, fmt.Errorf("run %s is not a run of %s in session %s", runID, componentID, sessionID)
	}
	doc := map[string]any{}
	if len(rec.Data) > 0 {
		if err := run.DecodeJSON(rec.Data, &doc); err != nil {
			return nil, err
		}
	}
	readStored(doc, rec)
	doc["status"] = string(rec.Status) // the row's status is the live one
	return doc, nil
}
