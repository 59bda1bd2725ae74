// Package sessionsapi is the Sessions route group of AgentOS: agno's
// /sessions routes over the sessions of the OS store and the runs in
// them. It builds on the core (agentos/internal/httpapi) and on Host,
// what it needs of the OS; agentos serves its rows.
package sessionsapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Host is what the group needs of the OS.
type Host interface {
	// DataStore resolves the database a data route of feature names by
	// db_id and table (agno's get_db); its error is answered as it is
	// (httpapi.Fail).
	DataStore(r *http.Request, feature, table string) (storage.Store, error)
}

// Group is the Sessions routes: New, then Routes.
type Group struct{ host Host }

// New is the group serving h's sessions.
func New(h Host) *Group { return &Group{host: h} }

// feature and table are the session routes' tag and the table they
// accept in their `table` query parameter.
const (
	feature = "Sessions"
	table   = "agno_sessions"
)

// typeQuery is `type`, agno's alias of session_type.
var typeQuery = httpapi.Param{Name: "type", Type: "string", Desc: "Session type", Enum: []string{"agent", "team", "workflow"}, Default: "agent"}

// Routes are agno's /sessions routes (tag Sessions).
func (g *Group) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "GET /sessions", Handler: g.handleListSessions, Access: httpapi.Needs("sessions:read"), Tag: "Sessions", Summary: "List sessions", Query: []httpapi.Param{typeQuery,
			{Name: "component_id", Type: "string", Desc: "Agent, team or workflow id"}, httpapi.UserQuery,
			{Name: "session_name", Type: "string", Desc: "Partial session name"}, httpapi.LimitQuery, httpapi.Page0Query,
			{Name: "sort_by", Type: "string", Desc: "Sort field", Default: "created_at"}, httpapi.SortOrderQuery, httpapi.DBQuery, httpapi.TableQuery},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[SessionSchema]"},
		{Pattern: "POST /sessions", Handler: g.handleCreateSession, Access: httpapi.Needs("sessions:write"), Tag: "Sessions", Summary: "Create a session", Query: []httpapi.Param{typeQuery, httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "session_id", Type: "string"}, {Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"},
				{Name: "metadata", Type: "object"}, {Name: "user_id", Type: "string"}, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"}},
			Status: http.StatusCreated, Result: "Session detail"},
		{Pattern: "DELETE /sessions", Handler: g.handleDeleteSessions, Access: httpapi.Needs("sessions:delete"), Tag: "Sessions", Summary: "Delete sessions", Query: []httpapi.Param{httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery},
			JSON:   []httpapi.Param{{Name: "session_ids", Type: "array", Required: true}, {Name: "session_types", Type: "array", Required: true}},
			Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /sessions/{session_id}", Handler: g.handleGetSession, Access: httpapi.Needs("sessions:read"), Tag: "Sessions", Summary: "Get a session", Query: []httpapi.Param{typeQuery, httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Result: "Session detail"},
		{Pattern: "PATCH /sessions/{session_id}", Handler: g.handleUpdateSession, Access: httpapi.Needs("sessions:write"), Tag: "Sessions", Summary: "Update a session", Query: []httpapi.Param{typeQuery, httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery},
			JSON:   []httpapi.Param{{Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"}, {Name: "metadata", Type: "object"}, {Name: "summary", Type: "object"}},
			Result: "Session detail"},
		{Pattern: "DELETE /sessions/{session_id}", Handler: g.handleDeleteSession, Access: httpapi.Needs("sessions:delete"), Tag: "Sessions", Summary: "Delete a session", Query: []httpapi.Param{httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "POST /sessions/{session_id}/rename", Handler: g.handleRenameSession, Access: httpapi.Needs("sessions:write"), Tag: "Sessions", Summary: "Rename a session", Query: []httpapi.Param{typeQuery, httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "session_name", Type: "string", Required: true}}, Result: "Session detail"},
		{Pattern: "GET /sessions/{session_id}/runs", Handler: g.handleSessionRuns, Access: httpapi.Needs("sessions:read"), Tag: "Sessions", Summary: "List a session's runs", Query: []httpapi.Param{typeQuery, httpapi.UserQuery,
			{Name: "created_after", Type: "integer", Desc: "Epoch seconds"}, {Name: "created_before", Type: "integer", Desc: "Epoch seconds"}, httpapi.DBQuery, httpapi.TableQuery},
			Result: "[RunSchema | TeamRunSchema | WorkflowRunSchema]"},
		{Pattern: "GET /sessions/{session_id}/runs/{run_id}", Handler: g.handleSessionRun, Access: httpapi.Needs("sessions:read"), Tag: "Sessions", Summary: "Get a session's run", Query: []httpapi.Param{typeQuery, httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Result: "Run schema"},
	}
}

// listShownSessions is ListSessions without the sessions whose only runs
// are foreground runs in flight: agno stores those with the run's end, so
// agent-ui does not list a new chat until its first answer is complete.
// The page is cut from the first pages plus the hidden ones, which are
// few (one per foreground run in flight on a new session).
func listShownSessions(ctx context.Context, st storage.Store, q storage.SessionQuery) ([]*storage.Session, int, error) {
	hidden, err := hiddenSessions(ctx, st, q)
	if err != nil {
		return nil, 0, err
	}
	if len(hidden) == 0 {
		return st.ListSessions(ctx, q)
	}
	wq := q
	if q.Limit > 0 {
		page := max(q.Page, 1)
		if page > (math.MaxInt-len(hidden))/q.Limit {
			// So far out that the window would overflow: no page there
			// holds rows; the store answers the total.
			_, total, err := st.ListSessions(ctx, q)
			if err != nil {
				return nil, 0, err
			}
			return []*storage.Session{}, max(total-len(hidden), 0), nil
		}
		wq.Page, wq.Limit = 1, page*q.Limit+len(hidden)
	}
	all, total, err := st.ListSessions(ctx, wq)
	if err != nil {
		return nil, 0, err
	}
	shown := make([]*storage.Session, 0, len(all))
	for _, s := range all {
		if !hidden[s.SessionID] {
			shown = append(shown, s)
		}
	}
	if q.Limit > 0 {
		from := min((max(q.Page, 1)-1)*q.Limit, len(shown))
		shown = shown[from:min(from+q.Limit, len(shown))]
	}
	return shown, max(total-len(hidden), 0), nil
}

// hiddenSessions are the sessions matching q whose only runs are
// foreground runs in flight.
func hiddenSessions(ctx context.Context, st storage.Store, q storage.SessionQuery) (map[string]bool, error) {
	inFlight, err := st.ListRuns(ctx, storage.RunQuery{Status: []run.Status{run.StatusPending, run.StatusRunning}, TopLevel: true})
	if err != nil {
		return nil, err
	}
	hidden, checked := map[string]bool{}, map[string]bool{}
	for _, r := range inFlight {
		if r.Listed || checked[r.SessionID] {
			continue
		}
		checked[r.SessionID] = true
		only, err := httpapi.OnlyInFlight(ctx, st, r.SessionID)
		if err != nil {
			return nil, err
		}
		if !only {
			continue
		}
		s, err := st.GetSession(ctx, r.SessionID)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if sessionMatches(s, q) {
			hidden[s.SessionID] = true
		}
	}
	return hidden, nil
}

// sessionMatches applies q's filters to s as ListSessions does.
func sessionMatches(s *storage.Session, q storage.SessionQuery) bool {
	return (q.SessionType == "" || s.SessionType == q.SessionType) &&
		(q.ComponentID == "" || s.ComponentID() == q.ComponentID) &&
		(q.UserID == "" || s.UserID == q.UserID) &&
		(q.NameContains == "" || strings.Contains(strings.ToLower(s.SessionName), strings.ToLower(q.NameContains)))
}

var sessionSorts = []string{"created_at", "updated_at", "session_name"}

// sessionRequest opens the store and reads `type` for a route on one
// session; false means the answer was sent.
func (g *Group) sessionRequest(w http.ResponseWriter, r *http.Request) (storage.Store, *httpapi.Query, storage.SessionType, bool) {
	st, err := g.host.DataStore(r, feature, table)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, nil, "", false
	}
	p := httpapi.NewQuery(w, r)
	typ := p.SessionType("")
	return st, p, typ, !p.Bad
}

// handleListSessions is GET /sessions.
func (g *Group) handleListSessions(w http.ResponseWriter, r *http.Request) {
	st, err := g.host.DataStore(r, feature, table)
	if err != nil {
		// agno answers every database-selection error of this route as 404.
		var he *httpapi.StatusError
		if errors.As(err, &he) && he.Status != http.StatusServiceUnavailable {
			err = &httpapi.StatusError{Status: http.StatusNotFound, Detail: he.Detail}
		}
		httpapi.Fail(w, err)
		return
	}
	p := httpapi.NewQuery(w, r)
	q := storage.SessionQuery{
		SessionType:  p.SessionType(""),
		ComponentID:  p.Str("component_id"),
		UserID:       p.Str("user_id"),
		NameContains: p.Str("session_name"),
		Limit:        p.Int("limit", 20, 1, httpapi.MaxPageLimit),
		Page:         p.Int("page", 1, 0, 0),
		SortBy:       p.Enum("sort_by", "created_at", sessionSorts...),
		SortOrder:    p.SortOrder(),
	}
	if p.Bad {
		return
	}
	start := time.Now()
	sessions, total, err := listShownSessions(r.Context(), st, q)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	took := time.Since(start)
	data := make([]SessionSchema, 0, len(sessions))
	for _, s := range sessions {
		name, err := sessionName(r.Context(), st, s)
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		data = append(data, sessionSchema(s, name))
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, took))
}

// handleCreateSession is POST /sessions: an empty session, 201.
func (g *Group) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	st, err := g.host.DataStore(r, feature, table)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	p := httpapi.NewQuery(w, r)
	typ := p.SessionType(storage.SessionAgent)
	if p.Bad {
		return
	}
	b, ok := httpapi.ReadBody(w, r, false)
	if !ok {
		return
	}
	var id, name, userID, agentID, teamID, workflowID string
	var state, metadata map[string]any
	b.Get("session_id", &id)
	b.Get("session_name", &name)
	b.Get("session_state", &state)
	b.Get("metadata", &metadata)
	b.Get("user_id", &userID)
	b.Get("agent_id", &agentID)
	b.Get("team_id", &teamID)
	b.Get("workflow_id", &workflowID)
	if b.Bad {
		return
	}
	if id == "" {
		id = run.NewID()
	}
	now := run.Now()
	s := &storage.Session{SessionID: id, SessionType: typ, UserID: userID, SessionName: name,
		SessionState: state, Metadata: metadata, CreatedAt: now, UpdatedAt: now}
	switch typ {
	case storage.SessionTeam:
		s.TeamID = teamID
	case storage.SessionWorkflow:
		s.WorkflowID = workflowID
	default:
		s.AgentID = agentID
	}
	stored, created, err := st.EnsureSession(r.Context(), s)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to create session: "+err.Error())
		return
	}
	if !created {
		httpapi.WriteError(w, http.StatusConflict, fmt.Sprintf("Session with id '%s' already exists; omit session_id to get a new one, or PATCH /sessions/%s to change it", id, id))
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, excludeNone(sessionDetail(stored, name, []any{})))
}

// handleGetSession is GET /sessions/{session_id}.
func (g *Group) handleGetSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := g.sessionRequest(w, r)
	if !ok {
		return
	}
	id := r.PathValue("session_id")
	s, err := httpapi.GetSession(r.Context(), st, id, typ, p.Str("user_id"))
	if errors.Is(err, httpapi.ErrSessionHidden) {
		if typ == "" {
			httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Session with id '%s' not found", id))
		} else {
			httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("%s Session with id '%s' not found", titleCase(string(typ)), id))
		}
		return
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	d, err := detailOf(r.Context(), st, s)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, excludeNone(d))
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runKind picks the schema of a run in a session listing as agno does: in
// agent sessions every run is a RunSchema; in team sessions member runs
// are RunSchema and team runs TeamRunSchema; in workflow sessions the
// workflow's own runs are WorkflowRunSchema.
func runKind(sessionType storage.SessionType, doc map[string]any) string {
	switch {
	case sessionType == storage.SessionAgent:
		return "agent"
	case doc["agent_id"] != nil:
		return "agent"
	case doc["team_id"] != nil:
		return "team"
	case sessionType == storage.SessionWorkflow:
		return "workflow"
	}
	return ""
}

// handleSessionRuns is GET /sessions/{session_id}/runs.
func (g *Group) handleSessionRuns(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := g.sessionRequest(w, r)
	if !ok {
		return
	}
	after, before := p.OptionalInt("created_after"), p.OptionalInt("created_before")
	if p.Bad {
		return
	}
	id := r.PathValue("session_id")
	s, err := httpapi.GetSession(r.Context(), st, id, typ, p.Str("user_id"))
	if errors.Is(err, httpapi.ErrSessionHidden) {
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s not found", id))
		return
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	runs, err := loadRuns(r.Context(), st, storage.RunQuery{SessionID: id, CreatedAfter: after, CreatedBefore: before, Settled: true})
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	out := make([]map[string]any, 0, len(runs))
	for _, sr := range runs {
		kind := runKind(s.SessionType, sr.doc)
		if kind == "" {
			continue
		}
		events, err := httpapi.RunEvents(r.Context(), st, sr.rec.RunID)
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		out = append(out, httpapi.WithoutNone(httpapi.RunSchema(sr.rec, sr.doc, events, kind)))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// handleSessionRun is GET /sessions/{session_id}/runs/{run_id}.
func (g *Group) handleSessionRun(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := g.sessionRequest(w, r)
	if !ok {
		return
	}
	id, runID := r.PathValue("session_id"), r.PathValue("run_id")
	if _, err := httpapi.GetSession(r.Context(), st, id, typ, p.Str("user_id")); errors.Is(err, httpapi.ErrSessionHidden) {
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s not found", id))
		return
	} else if err != nil {
		httpapi.Fail(w, err)
		return
	}
	rec, err := st.GetRun(r.Context(), runID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		httpapi.Fail(w, err)
		return
	}
	if err != nil || rec.SessionID != id || !httpapi.Shown(rec) {
		some, lerr := st.ListRuns(r.Context(), storage.RunQuery{SessionID: id, Limit: 1, Settled: true})
		if lerr != nil {
			httpapi.Fail(w, lerr)
			return
		}
		if len(some) == 0 {
			httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s has no runs", id))
			return
		}
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Run with ID %s not found in session %s", runID, id))
		return
	}
	doc := httpapi.DecodeRun(rec)
	events, err := httpapi.RunEvents(r.Context(), st, rec.RunID)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	kind := "agent"
	switch {
	case doc["agent_id"] != nil:
	case doc["team_id"] != nil:
		kind = "team"
	case doc["workflow_id"] != nil || rec.SessionType == storage.SessionWorkflow:
		kind = "workflow"
	}
	// agno's single-run route keeps None fields.
	httpapi.WriteJSON(w, http.StatusOK, httpapi.RunSchema(rec, doc, events, kind))
}

// handleDeleteSession is DELETE /sessions/{session_id}: 204, with its runs
// and events; with user_id only that user's session goes.
func (g *Group) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	st, err := g.host.DataStore(r, feature, table)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	id := r.PathValue("session_id")
	if err := deleteVisibleSessions(r.Context(), st, r.URL.Query().Get("user_id"), id); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete session: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func deleteVisibleSessions(ctx context.Context, st storage.Store, userID string, ids ...string) error {
	ids, err := httpapi.OwnedIDs(ids, userID, func(id string) (bool, error) {
		_, err := httpapi.GetSession(ctx, st, id, "", userID)
		if errors.Is(err, httpapi.ErrSessionHidden) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	return st.DeleteSessions(ctx, ids...)
}

// handleDeleteSessions is DELETE /sessions with {session_ids, session_types}.
func (g *Group) handleDeleteSessions(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var ids, types []string
	b.Require("session_ids", &ids)
	b.Require("session_types", &types)
	if b.Bad {
		return
	}
	for _, f := range []struct {
		name string
		list []string
	}{{"session_ids", ids}, {"session_types", types}} {
		if len(f.list) == 0 {
			b.RejectCtx([]string{f.name}, "List should have at least 1 item after validation, not 0", "too_short", map[string]any{"field_type": "List", "min_length": 1, "actual_length": 0})
			return
		}
	}
	for i, t := range types {
		if !storage.SessionType(t).Valid() {
			b.RejectCtx([]string{"session_types", strconv.Itoa(i)}, "Input should be "+httpapi.QuoteChoices(httpapi.SessionTypeNames), "enum", map[string]any{"expected": httpapi.QuoteChoices(httpapi.SessionTypeNames)})
			return
		}
	}
	if len(ids) != len(types) {
		httpapi.WriteError(w, http.StatusBadRequest, "Session IDs and session types must have the same length")
		return
	}
	st, err := g.host.DataStore(r, feature, table)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if err := deleteVisibleSessions(r.Context(), st, r.URL.Query().Get("user_id"), ids...); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete sessions: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// updateSession applies change to a session the request may see and
// answers its detail (None fields kept, as agno's rename and update
// routes do).
func (g *Group) updateSession(w http.ResponseWriter, r *http.Request, st storage.Store, typ storage.SessionType, userID string, change func(*storage.Session) error) {
	id := r.PathValue("session_id")
	s, err := st.UpdateSession(r.Context(), id, func(s *storage.Session) error {
		if !httpapi.SessionVisible(s, typ, userID) {
			return httpapi.ErrSessionHidden
		}
		return change(s)
	})
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, httpapi.ErrSessionHidden) {
		httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Session with id '%s' not found", id))
		return
	}
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to update session: "+err.Error())
		return
	}
	d, err := detailOf(r.Context(), st, s)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, d)
}

// handleRenameSession is POST /sessions/{session_id}/rename.
func (g *Group) handleRenameSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := g.sessionRequest(w, r)
	if !ok {
		return
	}
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var name string
	if !b.Require("session_name", &name) {
		return
	}
	g.updateSession(w, r, st, typ, p.Str("user_id"), func(s *storage.Session) error {
		s.SessionName = name
		return nil
	})
}

// handleUpdateSession is PATCH /sessions/{session_id}: session_name,
// session_state, metadata and summary, each replaced when given.
func (g *Group) handleUpdateSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := g.sessionRequest(w, r)
	if !ok {
		return
	}
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var (
		name            string
		state, metadata map[string]any
		summaryRaw      map[string]any
	)
	hasName := b.Get("session_name", &name)
	hasState := b.Get("session_state", &state)
	hasMeta := b.Get("metadata", &metadata)
	hasSummary := b.Get("summary", &summaryRaw)
	if b.Bad {
		return
	}
	var summary *storage.Summary
	if hasSummary {
		text, ok := summaryRaw["summary"].(string)
		if !ok {
			b.Reject([]string{"summary", "summary"}, "summary needs a \"summary\" string (and optionally \"topics\" and \"updated_at\")", "missing")
			return
		}
		summary = &storage.Summary{Summary: text}
		if topics, ok := summaryRaw["topics"].([]any); ok {
			for _, t := range topics {
				if s, ok := t.(string); ok {
					summary.Topics = append(summary.Topics, s)
				}
			}
		}
		if u, ok := summaryRaw["updated_at"].(string); ok {
			summary.UpdatedAt = u
		}
	}
	g.updateSession(w, r, st, typ, p.Str("user_id"), func(s *storage.Session) error {
		if hasName {
			s.SessionName = name
		}
		if hasState {
			s.SessionState = state
		}
		if hasMeta {
			s.Metadata = metadata
		}
		if summary != nil {
			s.Summary = summary
		}
		return nil
	})
}
