package agentos

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
)

// Work the server does later on a caller's behalf — a schedule firing, a
// run it follows — is a request to this AgentOS made in process, for the
// principal of the object that asked for it. It passes the same check as
// a client's request (admit): no code path runs caller-supplied work as an
// internal admin.

type principalKey struct{}

// actingFor marks ctx as work done for p.
func actingFor(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// internalHandler is Handler without its network-facing layers (CORS,
// protected mode, bearer or JWT authentication): the requests it serves
// are made by this process, each for the principal in its context. In
// JWT mode that principal becomes the request's caller and is admitted as
// a token with its scopes would be; a request without one is refused.
// Built at first use, when every plane has started.
func (o *OS) internalHandler() http.Handler {
	o.internalOnce.Do(func() {
		mux := http.NewServeMux()
		pass := func(_ http.ResponseWriter, r *http.Request, _ *apiRoute) (*http.Request, bool) { return r, true }
		if o.jwtMode() {
			pass = func(w http.ResponseWriter, r *http.Request, rt *apiRoute) (*http.Request, bool) {
				p, ok := r.Context().Value(principalKey{}).(principal)
				if !ok {
					writeError(w, http.StatusForbidden, "an in-process request must act for a principal")
					return nil, false
				}
				return o.admit(w, r, o.callerFor(p), rt)
			}
		}
		o.internal = stripTrailingSlash(recoverPanics(o.serveRows(mux, o.routes(mux), pass), o))
	})
	return o.internal
}

// serveInternal makes one in-process request for p.
func (o *OS) serveInternal(ctx context.Context, p principal, method, target, contentType string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(actingFor(ctx, p), method, "http://agentos.internal"+target, body)
	if err != nil {
		return 0, nil, err
	}
	req.RemoteAddr = "127.0.0.1:0"
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	o.internalHandler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}
