package agentos

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/storage"
)

// authorize is JWT mode's gate (agno's JWTMiddleware with authorization)
// of a route needing a token: the token is verified, then admitted as
// its caller.
func (o *OS) authorize(w http.ResponseWriter, r *http.Request, rt *apiRoute) (*http.Request, bool) {
	token := auth.TokenFromRequest(r)
	if token == "" {
		writeError(w, http.StatusUnauthorized, "Authorization header missing")
		return nil, false
	}
	c, err := o.callerFromToken(token)
	if err != nil {
		var ae *auth.Error
		if errors.As(err, &ae) {
			writeError(w, ae.Status, ae.Detail)
		} else {
			writeError(w, http.StatusUnauthorized, "Invalid token: "+err.Error())
		}
		return nil, false
	}
	return o.admit(w, r, c, rt)
}

// admit checks what c may do with r — the scope of rt, the row serving r,
// and for an isolated caller its own user — and returns r carrying c. It
// is the one check of every request in JWT mode: a token's, and one an
// object made through the API sends for its principal (internalHandler).
// An isolated caller's user_id query parameter is its own: every handler
// that reads user_id reads the caller's sub.
func (o *OS) admit(w http.ResponseWriter, r *http.Request, c *caller, rt *apiRoute) (*http.Request, bool) {
	if o.isolated(c) && c.UserID == "" {
		writeError(w, http.StatusUnauthorized, "Invalid token: no sub claim. With user isolation on, a token must name its user in sub (or carry the admin scope)")
		return nil, false
	}
	if scope := requiredScope(r, rt); scope != "" {
		typ, id := auth.ResourceOf(r.URL.Path)
		if !o.verifier.Allowed(c.Scopes, []string{scope}, typ, id) &&
			!(typ != "" && id == "" && r.Method == http.MethodGet) { // listings filter instead
			writeError(w, http.StatusForbidden, "Insufficient permissions. Required scope(s): "+scope)
			return nil, false
		}
	}
	if o.isolated(c) {
		q := r.URL.Query()
		q.Set("user_id", c.UserID)
		r.URL.RawQuery = q.Encode()
	}
	return r.WithContext(withCaller(r.Context(), c)), true
}

// readable filters a listing of typ ("agents") to the ids the caller may
// read or run; ok is false (403 written) when it may see none of them.
func (o *OS) readable(w http.ResponseWriter, r *http.Request, typ string) (keep func(id string) bool, ok bool) {
	c := callerOf(r.Context())
	if c == nil || o.verifier == nil {
		return func(string) bool { return true }, true
	}
	all, granted := o.verifier.Accessible(c.Scopes, typ, "")
	if all {
		return func(string) bool { return true }, true
	}
	set := make(map[string]bool, len(granted))
	for _, id := range granted {
		set[id] = true
	}
	if len(set) == 0 {
		writeError(w, http.StatusForbidden, "Insufficient permissions. Required scope(s): "+typ+":read")
		return nil, false
	}
	return func(id string) bool { return set[id] }, true
}

// errRunNotOwned answers a run an isolated caller does not own as if it
// did not exist.
//
//lint:ignore ST1005 agno's 404 detail, word for word
var errRunNotOwned = errors.New("Run not found")

// ownRun checks, for an isolated caller, that runID is a run of the
// session sessionID and that the session is the caller's (agno's
// verify_run_in_session). The session id is required: a 400 names it.
// Outside isolation it only reports ok.
func (o *OS) ownRun(w http.ResponseWriter, r *http.Request, runID, sessionID string) bool {
	user := scopedUser(r.Context())
	if user == "" {
		return true
	}
	if sessionID == "" {
		writeError(w, http.StatusBadRequest, "session_id is required for this action")
		return false
	}
	if !o.runOwnedBy(r.Context(), runID, sessionID, user) {
		writeError(w, http.StatusNotFound, errRunNotOwned.Error())
		return false
	}
	return true
}

// runOwnedBy reports whether runID is a run of sessionID and the session
// belongs to user.
func (o *OS) runOwnedBy(ctx context.Context, runID, sessionID, user string) bool {
	st := o.cfg.Store
	if st == nil {
		return false
	}
	rec, err := st.GetRun(ctx, runID)
	if err != nil || rec.SessionID != sessionID {
		return false
	}
	s, err := st.GetSession(ctx, sessionID)
	if err != nil {
		// A run's first moments precede its session row: the run's own
		// user decides.
		return errors.Is(err, storage.ErrNotFound) && rec.UserID == user
	}
	return s.UserID == user
}

// sessionOpenTo reports whether user may add runs to the session
// sessionID: it is the user's, or does not exist yet (a new session).
func (o *OS) sessionOpenTo(ctx context.Context, sessionID, user string) bool {
	if o.cfg.Store == nil {
		return true
	}
	s, err := o.cfg.Store.GetSession(ctx, sessionID)
	if errors.Is(err, storage.ErrNotFound) {
		// A run of another user may hold the id before its session row
		// exists: its first write makes the session theirs.
		recs, err := o.cfg.Store.ListRuns(ctx, storage.RunQuery{SessionID: sessionID, Limit: 1})
		return err == nil && (len(recs) == 0 || recs[0].UserID == user)
	}
	return err == nil && s.UserID == user
}

// mayRead reports whether the caller may see a registry entry: agents,
// teams and workflows are those its scopes let it read or run.
func (o *OS) mayRead(r *http.Request, e RegistryEntry) bool {
	c := callerOf(r.Context())
	if c == nil || o.verifier == nil {
		return true
	}
	typ := map[ResourceType]string{ResourceAgent: "agents", ResourceTeam: "teams", ResourceWorkflow: "workflows"}[e.Type]
	if typ == "" {
		return true
	}
	all, ids := o.verifier.Accessible(c.Scopes, typ, "")
	return all || slices.Contains(ids, e.ID)
}

// mayRun is agno's require_resource_access(type, "run") for the routes
// its scope table leaves out (resume): the path's resource type and id.
func (o *OS) mayRun(w http.ResponseWriter, r *http.Request, id string) bool {
	typ, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	return o.mayRunAs(w, r, typ, id)
}

// mayRunAs checks the caller's <typ>:run on typ/id ("agents", "helper"),
// answering 403 when it has none.
func (o *OS) mayRunAs(w http.ResponseWriter, r *http.Request, typ, id string) bool {
	if o.may(callerOf(r.Context()), []string{typ + ":run"}, typ, id) {
		return true
	}
	writeError(w, http.StatusForbidden, "Access denied to run this "+strings.TrimSuffix(typ, "s"))
	return false
}
