package agentos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/storage"
)

// GET /ready is the readiness probe (not in agno, whose /health is a
// constant 200 and stays one here): 200 while the server can serve
// runs, 503 while its database does not answer, or cannot keep writes,
// and while it drains at shutdown. Open like /health: a load balancer or
// an orchestrator calls it without a key.

// readyTimeout bounds the storage check of one /ready.
const readyTimeout = 2 * time.Second

// readyCheck is one check of /ready: "ok" or "down" with why.
type readyCheck struct {
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// readyResponse is /ready's body: status "ready", "unavailable" or
// "draining", and the checks made (storage; none while draining or
// without a Store).
type readyResponse struct {
	Status string                `json:"status"`
	Checks map[string]readyCheck `json:"checks"`
}

// isReadyPath reports the readiness route (refuseWhileDraining lets it
// through, so a drain answers its own shape).
func isReadyPath(p string) bool { return strings.TrimRight(p, "/") == "/ready" }

func (o *OS) handleReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if o.draining.Load() {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, readyResponse{Status: "draining", Checks: map[string]readyCheck{}})
		return
	}
	resp := readyResponse{Status: "ready", Checks: map[string]readyCheck{}}
	status := http.StatusOK
	if o.cfg.Store != nil {
		err := o.pingStorage(r.Context())
		o.logReadiness(err)
		if err != nil {
			resp.Status, status = "unavailable", http.StatusServiceUnavailable
			resp.Checks["storage"] = readyCheck{Status: "down", Detail: readyDetail(err)}
		} else {
			resp.Checks["storage"] = readyCheck{Status: "ok"}
		}
	}
	writeJSON(w, status, resp)
}

// readyDetail is the message of a failed check. The route is open, so a
// database that does not answer is named without its address (the
// server log has the cause); a file that cannot keep writes names its
// base name and the fix.
func readyDetail(err error) string {
	switch {
	case errors.Is(err, storage.ErrUnwritable), errors.Is(err, storage.ErrClosed):
		return err.Error()
	case errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, storage.ErrUnavailable):
		return fmt.Sprintf("the database did not answer within %s (the server log says why)", readyTimeout)
	}
	return "the database does not answer (the server log says why)"
}

// logReadiness logs a failed check when its cause changes, so a probe
// every few seconds during an outage logs it once.
func (o *OS) logReadiness(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	o.ready.mu.Lock()
	prev := o.ready.logged
	o.ready.logged = msg
	o.ready.mu.Unlock()
	if prev == msg {
		return
	}
	if err != nil {
		o.log.Warn("readiness: storage check failed", "error", err)
	} else {
		o.log.Info("readiness: storage answers again")
	}
}

// readiness is an OS's /ready state: concurrent calls share the check
// in flight, so a flood of probes (the route is open) costs the database
// one query at a time.
type readiness struct {
	mu       sync.Mutex
	inFlight *readyPing
	logged   string // the cause last logged ("" when ready)
}

type readyPing struct {
	done chan struct{}
	err  error
}

// pingStorage checks the store within readyTimeout, joining a check
// already in flight.
func (o *OS) pingStorage(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	o.ready.mu.Lock()
	p := o.ready.inFlight
	joined := p != nil
	if !joined {
		p = &readyPing{done: make(chan struct{})}
		o.ready.inFlight = p
	}
	o.ready.mu.Unlock()
	if joined {
		select {
		case <-p.done:
			return p.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The check outlives a caller that leaves: others may wait for it.
	pctx, pcancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
	p.err = storage.Ping(pctx, o.cfg.Store)
	pcancel()
	o.ready.mu.Lock()
	o.ready.inFlight = nil
	o.ready.mu.Unlock()
	close(p.done)
	return p.err
}
