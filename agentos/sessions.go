package agentos

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// sessionTable is the table the session routes accept in their `table`
// query parameter.
const sessionTable = "agno_sessions"

// sessionAPIRoutes are agno's /sessions routes (tag Sessions).
func (o *OS) sessionAPIRoutes() []apiRoute {
	return []apiRoute{
		{Pattern: "GET /sessions", Handler: o.handleListSessions, Access: needs("sessions:read"), Tag: "Sessions", Summary: "List sessions", Query: []apiParam{pTypeQ,
			{Name: "component_id", Type: "string", Desc: "Agent, team or workflow id"}, pUserQ,
			{Name: "session_name", Type: "string", Desc: "Partial session name"}, pLimitQ, pPage0Q,
			{Name: "sort_by", Type: "string", Desc: "Sort field", Default: "created_at"}, pSortOrderQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[SessionSchema]"},
		{Pattern: "POST /sessions", Handler: o.handleCreateSession, Access: needs("sessions:write"), Tag: "Sessions", Summary: "Create a session", Query: []apiParam{pTypeQ, pDBQ, pTableQ},
			JSON: []apiParam{{Name: "session_id", Type: "string"}, {Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"},
				{Name: "metadata", Type: "object"}, {Name: "user_id", Type: "string"}, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"}},
			Status: http.StatusCreated, Result: "Session detail"},
		{Pattern: "DELETE /sessions", Handler: o.handleDeleteSessions, Access: needs("sessions:delete"), Tag: "Sessions", Summary: "Delete sessions", Query: []apiParam{pUserQ, pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "session_ids", Type: "array", Required: true}, {Name: "session_types", Type: "array", Required: true}},
			Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /sessions/{session_id}", Handler: o.handleGetSession, Access: needs("sessions:read"), Tag: "Sessions", Summary: "Get a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ}, Result: "Session detail"},
		{Pattern: "PATCH /sessions/{session_id}", Handler: o.handleUpdateSession, Access: needs("sessions:write"), Tag: "Sessions", Summary: "Update a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "session_name", Type: "string"}, {Name: "session_state", Type: "object"}, {Name: "metadata", Type: "object"}, {Name: "summary", Type: "object"}},
			Result: "Session detail"},
		{Pattern: "DELETE /sessions/{session_id}", Handler: o.handleDeleteSession, Access: needs("sessions:delete"), Tag: "Sessions", Summary: "Delete a session", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "POST /sessions/{session_id}/rename", Handler: o.handleRenameSession, Access: needs("sessions:write"), Tag: "Sessions", Summary: "Rename a session", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ},
			JSON: []apiParam{{Name: "session_name", Type: "string", Required: true}}, Result: "Session detail"},
		{Pattern: "GET /sessions/{session_id}/runs", Handler: o.handleSessionRuns, Access: needs("sessions:read"), Tag: "Sessions", Summary: "List a session's runs", Query: []apiParam{pTypeQ, pUserQ,
			{Name: "created_after", Type: "integer", Desc: "Epoch seconds"}, {Name: "created_before", Type: "integer", Desc: "Epoch seconds"}, pDBQ, pTableQ},
			Result: "[RunSchema | TeamRunSchema | WorkflowRunSchema]"},
		{Pattern: "GET /sessions/{session_id}/runs/{run_id}", Handler: o.handleSessionRun, Access: needs("sessions:read"), Tag: "Sessions", Summary: "Get a session's run", Query: []apiParam{pTypeQ, pUserQ, pDBQ, pTableQ}, Result: "Run schema"},
	}
}

// dataStore resolves the database of a data route from db_id and table
// (agno's get_db), or answers 503 when AgentOS has none.
func (o *OS) dataStore(r *http.Request, feature, table string) (storage.Store, error) {
	if o.cfg.Store == nil {
		return nil, errStatus(http.StatusServiceUnavailable, "%s not available: pass a `db` to AgentOS to enable this feature.", feature)
	}
	q := r.URL.Query()
	dbID, tbl := q.Get("db_id"), q.Get("table")
	switch {
	case tbl != "" && dbID == "":
		return nil, errStatus(http.StatusBadRequest, "The db_id query parameter is required when passing a table")
	case dbID != "" && dbID != o.cfg.DBID:
		return nil, errStatus(http.StatusNotFound, "No database found with id '%s'", dbID)
	case tbl != "" && tbl != table:
		return nil, errStatus(http.StatusNotFound, "No database with id '%s' has table '%s'", dbID, tbl)
	}
	return o.cfg.Store, nil
}

// ---- sessions ----

// errSessionHidden marks a session the request may not see (other user or
// type); it is answered as not found.
var errSessionHidden = errors.New("session not visible")

// visible reports whether a session matches the requested type and user.
func visible(s *storage.Session, typ storage.SessionType, userID string) bool {
	return (typ == "" || s.SessionType == typ) && (userID == "" || s.UserID == userID)
}

// getSession loads a session the request may see.
func getSession(ctx context.Context, st storage.Store, id string, typ storage.SessionType, userID string) (*storage.Session, error) {
	s, err := st.GetSession(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errSessionHidden
	}
	if err != nil {
		return nil, err
	}
	if !visible(s, typ, userID) {
		return nil, errSessionHidden
	}
	if hidden, err := onlyInFlight(ctx, st, id); err != nil || hidden {
		return nil, cmp.Or(err, errSessionHidden)
	}
	return s, nil
}

// onlyInFlight reports a session whose only runs are foreground runs in
// flight. agno stores such a session with its first run's end, so its
// clients (agent-ui on a new chat) expect it not to exist until then.
func onlyInFlight(ctx context.Context, st storage.Store, sessionID string) (bool, error) {
	shown, err := st.ListRuns(ctx, storage.RunQuery{SessionID: sessionID, TopLevel: true, Settled: true, Limit: 1})
	if err != nil || len(shown) > 0 {
		return false, err
	}
	any, err := st.ListRuns(ctx, storage.RunQuery{SessionID: sessionID, TopLevel: true, Limit: 1})
	return len(any) > 0, err
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
		only, err := onlyInFlight(ctx, st, r.SessionID)
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

// shown reports a run listings show: settled, or listed while in flight
// (background runs); a foreground run shows once it ends, as in agno.
func shown(rec *storage.Run) bool { return !rec.InFlight() || rec.Listed }

// storedDoc is a run row with its decoded document.
type storedDoc struct {
	rec *storage.Run
	doc map[string]any
}

func loadRuns(ctx context.Context, st storage.Store, q storage.RunQuery) ([]storedDoc, error) {
	recs, err := st.ListRuns(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]storedDoc, 0, len(recs))
	for _, rec := range recs {
		out = append(out, storedDoc{rec: rec, doc: decodeDoc(rec)})
	}
	return out, nil
}

func decodeDoc(rec *storage.Run) map[string]any {
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	rowStatus(doc, rec)
	readStored(doc, rec)
	return doc
}

// readStored brings a stored run's document up to today's shapes: runs
// stored by earlier versions are read as agno's clients expect.
func readStored(doc map[string]any, rec *storage.Run) {
	if rec.SessionType == storage.SessionWorkflow {
		workflow.UpgradeStoredMetrics(doc)
	}
}

// rowStatus puts the row's status in its document: the row moves first
// (a claimed paused run is RUNNING before its document is rewritten).
func rowStatus(doc map[string]any, rec *storage.Run) {
	if _, ok := doc["status"]; ok && rec.Status != "" {
		doc["status"] = string(rec.Status)
	}
}

// stringifyInput renders a run input as agno's stringify_input_content:
// text as is, anything else as json.dumps.
func stringifyInput(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	s, err := pyjson.Dumps(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}

// nameFromRuns is agno's get_session_name fallback over a session's first
// runs: a workflow's first input, else the first user message (team
// sessions look at team runs only), else the first run input.
func nameFromRuns(s *storage.Session, runs []storedDoc) string {
	if s.SessionType == storage.SessionWorkflow {
		if len(runs) == 0 {
			return ""
		}
		switch in := runs[0].doc["input"].(type) {
		case string:
			return in
		case map[string]any:
			return stringifyInput(in)
		}
		if name := workflowName(s); name != "" {
			return "New " + name + " Session"
		}
		return ""
	}
	for _, r := range runs {
		if s.SessionType == storage.SessionTeam && r.doc["agent_id"] != nil {
			continue
		}
		msgs, _ := r.doc["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if c, _ := mm["content"].(string); mm["role"] == "user" && c != "" {
				return c
			}
		}
		if in, ok := r.doc["input"].(map[string]any); ok && in["input_content"] != nil {
			return stringifyInput(in["input_content"])
		}
	}
	return ""
}

// sessionName is the stored name, else the fallback from the first run
// (reading every top-level run only when the first one says nothing).
func sessionName(ctx context.Context, st storage.Store, s *storage.Session) (string, error) {
	if s.SessionName != "" {
		return s.SessionName, nil
	}
	q := storage.RunQuery{SessionID: s.SessionID, TopLevel: true, Limit: 1}
	runs, err := loadRuns(ctx, st, q)
	if err != nil || len(runs) == 0 {
		return "", err
	}
	if name := nameFromRuns(s, runs); name != "" || s.SessionType == storage.SessionWorkflow {
		return name, nil
	}
	q.Limit = 0
	if runs, err = loadRuns(ctx, st, q); err != nil {
		return "", err
	}
	return nameFromRuns(s, runs), nil
}

func workflowName(s *storage.Session) string {
	for _, k := range []string{"workflow_name", "name"} {
		if n, _ := s.Data[k].(string); n != "" {
			return n
		}
	}
	return ""
}

// chatHistory is agno's get_chat_history: the user and assistant messages
// of the session's top-level runs, in order, without runs that paused,
// failed or were cancelled and without messages copied in as history.
func chatHistory(runs []storedDoc) []any {
	out := []any{}
	for _, r := range runs {
		switch r.rec.Status {
		case run.StatusPaused, run.StatusCancelled, run.StatusError:
			continue
		}
		msgs, _ := r.doc["messages"].([]any)
		for _, m := range msgs {
			mm, ok := m.(map[string]any)
			if !ok || mm["role"] == "system" || mm["role"] == "tool" {
				continue
			}
			if fromHistory, _ := mm["from_history"].(bool); fromHistory {
				continue
			}
			out = append(out, mm)
		}
	}
	return out
}

// sessionData is agno's session_data column: name, state and metrics.
func sessionData(s *storage.Session) map[string]any {
	d := map[string]any{}
	if s.SessionName != "" {
		d["session_name"] = s.SessionName
	}
	if s.SessionState != nil {
		d["session_state"] = s.SessionState
	}
	if s.Metrics != nil {
		d["session_metrics"] = toJSONMap(s.Metrics)
	}
	if len(d) == 0 {
		return nil
	}
	return d
}

// metricsOf returns (metrics, total_tokens) as agno's detail schemas do:
// {} when the session has data but no metrics yet.
func metricsOf(s *storage.Session) (metrics, totalTokens any) {
	if s.Metrics != nil {
		return toJSONMap(s.Metrics), s.Metrics.TotalTokens
	}
	if sessionData(s) != nil {
		return map[string]any{}, nil
	}
	return nil, nil
}

func summaryOf(s *storage.Session) any {
	if s.Summary == nil {
		return nil
	}
	return toJSONMap(s.Summary)
}

// SessionSchema is agno's SessionSchema, the GET /sessions item
// (exclude_none: unset fields are absent).
type SessionSchema struct {
	SessionID      string         `json:"session_id"`
	SessionName    string         `json:"session_name"`
	SessionState   map[string]any `json:"session_state,omitzero"`
	CreatedAt      any            `json:"created_at,omitempty"`
	UpdatedAt      any            `json:"updated_at,omitempty"`
	SessionType    string         `json:"session_type,omitempty"`
	UserID         string         `json:"user_id,omitempty"`
	AgentID        string         `json:"agent_id,omitempty"`
	TeamID         string         `json:"team_id,omitempty"`
	WorkflowID     string         `json:"workflow_id,omitempty"`
	SessionSummary any            `json:"session_summary,omitempty"`
	Metrics        map[string]any `json:"metrics,omitzero"`
	TotalTokens    *int           `json:"total_tokens,omitempty"`
	Metadata       map[string]any `json:"metadata,omitzero"`
}

// sessionSchema is agno's SessionSchema (the list item).
func sessionSchema(s *storage.Session, name string) SessionSchema {
	out := SessionSchema{
		SessionID: s.SessionID, SessionName: name, SessionState: s.SessionState,
		CreatedAt: isoSeconds(s.CreatedAt), UpdatedAt: isoSeconds(cmp.Or(s.UpdatedAt, s.CreatedAt)),
		SessionType: string(s.SessionType), UserID: s.UserID, AgentID: s.AgentID, TeamID: s.TeamID,
		WorkflowID: s.WorkflowID, SessionSummary: summaryOf(s), Metadata: s.Metadata,
	}
	if s.Metrics != nil {
		tokens := s.Metrics.TotalTokens
		out.Metrics, out.TotalTokens = toJSONMap(s.Metrics), &tokens
	}
	return out
}

// AgentSessionDetailSchema is agno's AgentSessionDetailSchema with every
// field (None as null); routes with exclude_none pass it to excludeNone.
type AgentSessionDetailSchema struct {
	UserID         *string        `json:"user_id"`
	AgentSessionID string         `json:"agent_session_id"`
	SessionID      string         `json:"session_id"`
	SessionName    string         `json:"session_name"`
	SessionSummary any            `json:"session_summary"`
	SessionState   map[string]any `json:"session_state"`
	AgentID        *string        `json:"agent_id"`
	TotalTokens    any            `json:"total_tokens"`
	AgentData      map[string]any `json:"agent_data"`
	Metrics        any            `json:"metrics"`
	Metadata       map[string]any `json:"metadata"`
	ChatHistory    []any          `json:"chat_history"`
	CreatedAt      any            `json:"created_at"`
	UpdatedAt      any            `json:"updated_at"`
}

// TeamSessionDetailSchema is agno's TeamSessionDetailSchema.
type TeamSessionDetailSchema struct {
	SessionID      string         `json:"session_id"`
	SessionName    string         `json:"session_name"`
	UserID         *string        `json:"user_id"`
	TeamID         *string        `json:"team_id"`
	SessionSummary any            `json:"session_summary"`
	SessionState   map[string]any `json:"session_state"`
	Metrics        any            `json:"metrics"`
	TeamData       map[string]any `json:"team_data"`
	Metadata       map[string]any `json:"metadata"`
	ChatHistory    []any          `json:"chat_history"`
	CreatedAt      any            `json:"created_at"`
	UpdatedAt      any            `json:"updated_at"`
	TotalTokens    any            `json:"total_tokens"`
}

// WorkflowSessionDetailSchema is agno's WorkflowSessionDetailSchema.
type WorkflowSessionDetailSchema struct {
	UserID       *string        `json:"user_id"`
	WorkflowID   *string        `json:"workflow_id"`
	WorkflowName *string        `json:"workflow_name"`
	SessionID    string         `json:"session_id"`
	SessionName  string         `json:"session_name"`
	SessionData  map[string]any `json:"session_data"`
	SessionState map[string]any `json:"session_state"`
	WorkflowData map[string]any `json:"workflow_data"`
	Metadata     map[string]any `json:"metadata"`
	CreatedAt    any            `json:"created_at"`
	UpdatedAt    any            `json:"updated_at"`
}

// sessionDetail is the detail schema of s's type.
func sessionDetail(s *storage.Session, name string, history []any) any {
	created := isoSeconds(s.CreatedAt)
	updated := isoSeconds(s.UpdatedAt)
	if updated == nil {
		updated = created
	}
	metrics, tokens := metricsOf(s)
	switch s.SessionType {
	case storage.SessionWorkflow:
		return WorkflowSessionDetailSchema{
			UserID: nullString(s.UserID), WorkflowID: nullString(s.WorkflowID), WorkflowName: nullString(workflowName(s)),
			SessionID: s.SessionID, SessionName: name, SessionData: sessionData(s), SessionState: s.SessionState,
			WorkflowData: s.Data, Metadata: s.Metadata, CreatedAt: created, UpdatedAt: updated,
		}
	case storage.SessionTeam:
		return TeamSessionDetailSchema{
			SessionID: s.SessionID, SessionName: name, UserID: nullString(s.UserID), TeamID: nullString(s.TeamID),
			SessionSummary: summaryOf(s), SessionState: s.SessionState, Metrics: metrics, TeamData: s.Data,
			Metadata: s.Metadata, ChatHistory: history, CreatedAt: created, UpdatedAt: updated, TotalTokens: tokens,
		}
	}
	return AgentSessionDetailSchema{
		UserID: nullString(s.UserID), AgentSessionID: s.SessionID, SessionID: s.SessionID, SessionName: name,
		SessionSummary: summaryOf(s), SessionState: s.SessionState, AgentID: nullString(s.AgentID), TotalTokens: tokens,
		AgentData: s.Data, Metrics: metrics, Metadata: s.Metadata, ChatHistory: history, CreatedAt: created, UpdatedAt: updated,
	}
}

// excludeNone is v without its null fields (FastAPI's
// response_model_exclude_none on a typed response).
func excludeNone(v any) any {
	m := toJSONMap(v)
	if m == nil {
		return v
	}
	return withoutNone(m)
}

// detailOf builds a session's detail schema, reading its runs for the name
// and the chat history.
func detailOf(ctx context.Context, st storage.Store, s *storage.Session) (any, error) {
	if s.SessionType == storage.SessionWorkflow {
		name, err := sessionName(ctx, st, s)
		if err != nil {
			return nil, err
		}
		return sessionDetail(s, name, nil), nil
	}
	runs, err := loadRuns(ctx, st, storage.RunQuery{SessionID: s.SessionID, TopLevel: true})
	if err != nil {
		return nil, err
	}
	name := s.SessionName
	if name == "" {
		name = nameFromRuns(s, runs)
	}
	return sessionDetail(s, name, chatHistory(runs)), nil
}

var sessionSorts = []string{"created_at", "updated_at", "session_name"}

// sessionRequest opens the store and reads `type` for a route on one
// session; false means the answer was sent.
func (o *OS) sessionRequest(w http.ResponseWriter, r *http.Request) (storage.Store, *queryParams, storage.SessionType, bool) {
	st, err := o.dataStore(r, "Sessions", sessionTable)
	if err != nil {
		fail(w, err)
		return nil, nil, "", false
	}
	p := newQueryParams(w, r)
	typ := p.SessionType("")
	return st, p, typ, !p.Bad
}

// handleListSessions is GET /sessions.
func (o *OS) handleListSessions(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, "Sessions", sessionTable)
	if err != nil {
		// agno answers every database-selection error of this route as 404.
		var he *httpError
		if errors.As(err, &he) && he.Status != http.StatusServiceUnavailable {
			err = &httpError{Status: http.StatusNotFound, Detail: he.Detail}
		}
		fail(w, err)
		return
	}
	p := newQueryParams(w, r)
	q := storage.SessionQuery{
		SessionType:  p.SessionType(""),
		ComponentID:  p.Str("component_id"),
		UserID:       p.Str("user_id"),
		NameContains: p.Str("session_name"),
		Limit:        p.Int("limit", 20, 1, maxPageLimit),
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
		fail(w, err)
		return
	}
	took := time.Since(start)
	data := make([]SessionSchema, 0, len(sessions))
	for _, s := range sessions {
		name, err := sessionName(r.Context(), st, s)
		if err != nil {
			fail(w, err)
			return
		}
		data = append(data, sessionSchema(s, name))
	}
	writeJSON(w, http.StatusOK, paginatedResponse(data, q.Page, q.Limit, total, took))
}

// handleCreateSession is POST /sessions: an empty session, 201.
func (o *OS) handleCreateSession(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, "Sessions", sessionTable)
	if err != nil {
		fail(w, err)
		return
	}
	p := newQueryParams(w, r)
	typ := p.SessionType(storage.SessionAgent)
	if p.Bad {
		return
	}
	b, ok := readBody(w, r, false)
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
		writeError(w, http.StatusInternalServerError, "Failed to create session: "+err.Error())
		return
	}
	if !created {
		writeError(w, http.StatusConflict, fmt.Sprintf("Session with id '%s' already exists; omit session_id to get a new one, or PATCH /sessions/%s to change it", id, id))
		return
	}
	writeJSON(w, http.StatusCreated, excludeNone(sessionDetail(stored, name, []any{})))
}

// handleGetSession is GET /sessions/{session_id}.
func (o *OS) handleGetSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := o.sessionRequest(w, r)
	if !ok {
		return
	}
	id := r.PathValue("session_id")
	s, err := getSession(r.Context(), st, id, typ, p.Str("user_id"))
	if errors.Is(err, errSessionHidden) {
		if typ == "" {
			writeError(w, http.StatusNotFound, fmt.Sprintf("Session with id '%s' not found", id))
		} else {
			writeError(w, http.StatusNotFound, fmt.Sprintf("%s Session with id '%s' not found", titleCase(string(typ)), id))
		}
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	d, err := detailOf(r.Context(), st, s)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, excludeNone(d))
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runDoc is a stored run's document with its stored events.
func runDoc(ctx context.Context, st storage.Store, r storedDoc) (map[string]any, []any, error) {
	evs, err := st.ListEvents(ctx, r.rec.RunID, -1)
	if err != nil {
		return nil, nil, err
	}
	var events []any
	for _, e := range evs {
		var v map[string]any
		if run.DecodeJSON(e.Data, &v) == nil {
			events = append(events, v)
		}
	}
	return r.doc, events, nil
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

// sessionRunSchema is agno's RunSchema / TeamRunSchema / WorkflowRunSchema
// of a stored run, every field present (None as nil), starting from the
// summaries the component routes give.
func sessionRunSchema(rec *storage.Run, doc map[string]any, events []any, kind string) map[string]any {
	get := func(k string, def any) any {
		if v, ok := doc[k]; ok && v != nil {
			return v
		}
		return def
	}
	listOrNil := func(k string) any {
		if l, ok := doc[k].([]any); ok && len(l) > 0 {
			return l
		}
		return nil
	}
	media := func(s map[string]any) {
		for _, k := range []string{"images", "videos", "audio", "files"} {
			s[k] = get(k, []any{})
		}
		s["reasoning_content"] = get("reasoning_content", "")
		s["reasoning_steps"] = get("reasoning_steps", []any{})
		s["references"] = get("references", []any{})
		s["citations"] = get("citations", nil)
		s["reasoning_messages"] = get("reasoning_messages", []any{})
		s["response_audio"] = get("response_audio", nil)
		s["created_at"] = isoSeconds(rec.CreatedAt)
	}
	if kind == "workflow" {
		s := workflowRunSchema(rec)
		var in any
		if v, ok := doc["input"]; ok && v != nil {
			in = stringifyInput(v)
		} else {
			in = firstExecutorInput(doc)
		}
		s["run_input"] = in
		var evs any = []any{}
		if len(events) > 0 {
			evs = events
		}
		s["events"] = evs
		s["workflow_id"] = get("workflow_id", rec.ComponentID)
		s["user_id"] = get("user_id", "")
		s["content"] = get("content", "")
		s["content_type"] = get("content_type", "")
		s["status"] = get("status", string(rec.Status))
		s["metrics"] = get("metrics", map[string]any{})
		s["step_results"] = get("step_results", []any{})
		s["step_executor_runs"] = get("step_executor_runs", []any{})
		for _, k := range []string{"step_requirements", "pause_kind", "paused_step_name", "paused_step_index"} {
			s[k] = get(k, nil)
		}
		media(s)
		return s
	}
	s := runSchema(rec, kind)
	s["parent_run_id"] = get("parent_run_id", rec.ParentRunID)
	if kind == "team" {
		delete(s, "user_id")
		s["team_id"] = get("team_id", "")
	} else {
		s["agent_id"] = get("agent_id", "")
		s["user_id"] = get("user_id", "")
	}
	s["status"] = get("status", nil)
	s["run_input"] = runInput(doc)
	s["content"] = get("content", "")
	s["metrics"] = get("metrics", map[string]any{})
	s["messages"] = listOrNil("messages")
	s["tools"] = listOrNil("tools")
	if len(events) > 0 {
		s["events"] = events
	} else {
		s["events"] = nil
	}
	s["session_state"] = get("session_state", nil)
	s["followups"] = get("followups", nil)
	media(s)
	im := map[string]any{"images": []any{}, "videos": []any{}, "audios": []any{}, "files": []any{}}
	if in, ok := doc["input"].(map[string]any); ok {
		for k := range im {
			if l, ok := in[k].([]any); ok {
				im[k] = l
			}
		}
	}
	s["input_media"] = im
	return s
}

// runInput is agno's get_run_input for agent and team runs: the stored
// input, else the last user message.
func runInput(doc map[string]any) string {
	if in, ok := doc["input"].(map[string]any); ok && in["input_content"] != nil {
		return stringifyInput(in["input_content"])
	}
	return lastUserMessage(doc["messages"])
}

func lastUserMessage(v any) string {
	msgs, _ := v.([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		if mm, ok := msgs[i].(map[string]any); ok && mm["role"] == "user" {
			c, _ := mm["content"].(string)
			return c
		}
	}
	return ""
}

// firstExecutorInput is the workflow fallback: the user message of the
// first step executor run.
func firstExecutorInput(doc map[string]any) string {
	if runs, ok := doc["step_executor_runs"].([]any); ok && len(runs) > 0 {
		if first, ok := runs[0].(map[string]any); ok {
			return lastUserMessage(first["messages"])
		}
	}
	return lastUserMessage(doc["messages"])
}

// handleSessionRuns is GET /sessions/{session_id}/runs.
func (o *OS) handleSessionRuns(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := o.sessionRequest(w, r)
	if !ok {
		return
	}
	after, before := p.OptionalInt("created_after"), p.OptionalInt("created_before")
	if p.Bad {
		return
	}
	id := r.PathValue("session_id")
	s, err := getSession(r.Context(), st, id, typ, p.Str("user_id"))
	if errors.Is(err, errSessionHidden) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s not found", id))
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	runs, err := loadRuns(r.Context(), st, storage.RunQuery{SessionID: id, CreatedAfter: after, CreatedBefore: before, Settled: true})
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]map[string]any, 0, len(runs))
	for _, sr := range runs {
		kind := runKind(s.SessionType, sr.doc)
		if kind == "" {
			continue
		}
		doc, events, err := runDoc(r.Context(), st, sr)
		if err != nil {
			fail(w, err)
			return
		}
		out = append(out, withoutNone(sessionRunSchema(sr.rec, doc, events, kind)))
	}
	writeJSON(w, http.StatusOK, out)
}

// handleSessionRun is GET /sessions/{session_id}/runs/{run_id}.
func (o *OS) handleSessionRun(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := o.sessionRequest(w, r)
	if !ok {
		return
	}
	id, runID := r.PathValue("session_id"), r.PathValue("run_id")
	if _, err := getSession(r.Context(), st, id, typ, p.Str("user_id")); errors.Is(err, errSessionHidden) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s not found", id))
		return
	} else if err != nil {
		fail(w, err)
		return
	}
	rec, err := st.GetRun(r.Context(), runID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		fail(w, err)
		return
	}
	if err != nil || rec.SessionID != id || !shown(rec) {
		some, lerr := st.ListRuns(r.Context(), storage.RunQuery{SessionID: id, Limit: 1, Settled: true})
		if lerr != nil {
			fail(w, lerr)
			return
		}
		if len(some) == 0 {
			writeError(w, http.StatusNotFound, fmt.Sprintf("Session with ID %s has no runs", id))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("Run with ID %s not found in session %s", runID, id))
		return
	}
	sr := storedDoc{rec: rec, doc: decodeDoc(rec)}
	doc, events, err := runDoc(r.Context(), st, sr)
	if err != nil {
		fail(w, err)
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
	writeJSON(w, http.StatusOK, sessionRunSchema(rec, doc, events, kind))
}

// handleDeleteSession is DELETE /sessions/{session_id}: 204, with its runs
// and events; with user_id only that user's session goes.
func (o *OS) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, "Sessions", sessionTable)
	if err != nil {
		fail(w, err)
		return
	}
	id := r.PathValue("session_id")
	if err := deleteVisibleSessions(r.Context(), st, r.URL.Query().Get("user_id"), id); err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to delete session: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func deleteVisibleSessions(ctx context.Context, st storage.Store, userID string, ids ...string) error {
	ids, err := ownedIDs(ids, userID, func(id string) (bool, error) {
		_, err := getSession(ctx, st, id, "", userID)
		if errors.Is(err, errSessionHidden) {
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
func (o *OS) handleDeleteSessions(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
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
			b.RejectCtx([]string{"session_types", strconv.Itoa(i)}, "Input should be "+quoteChoices(sessionTypeNames), "enum", map[string]any{"expected": quoteChoices(sessionTypeNames)})
			return
		}
	}
	if len(ids) != len(types) {
		writeError(w, http.StatusBadRequest, "Session IDs and session types must have the same length")
		return
	}
	st, err := o.dataStore(r, "Sessions", sessionTable)
	if err != nil {
		fail(w, err)
		return
	}
	if err := deleteVisibleSessions(r.Context(), st, r.URL.Query().Get("user_id"), ids...); err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to delete sessions: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// updateSession applies change to a session the request may see and
// answers its detail (None fields kept, as agno's rename and update
// routes do).
func (o *OS) updateSession(w http.ResponseWriter, r *http.Request, st storage.Store, typ storage.SessionType, userID string, change func(*storage.Session) error) {
	id := r.PathValue("session_id")
	s, err := st.UpdateSession(r.Context(), id, func(s *storage.Session) error {
		if !visible(s, typ, userID) {
			return errSessionHidden
		}
		return change(s)
	})
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, errSessionHidden) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Session with id '%s' not found", id))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to update session: "+err.Error())
		return
	}
	d, err := detailOf(r.Context(), st, s)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// handleRenameSession is POST /sessions/{session_id}/rename.
func (o *OS) handleRenameSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := o.sessionRequest(w, r)
	if !ok {
		return
	}
	b, ok := readBody(w, r, true)
	if !ok {
		return
	}
	var name string
	if !b.Require("session_name", &name) {
		return
	}
	o.updateSession(w, r, st, typ, p.Str("user_id"), func(s *storage.Session) error {
		s.SessionName = name
		return nil
	})
}

// handleUpdateSession is PATCH /sessions/{session_id}: session_name,
// session_state, metadata and summary, each replaced when given.
func (o *OS) handleUpdateSession(w http.ResponseWriter, r *http.Request) {
	st, p, typ, ok := o.sessionRequest(w, r)
	if !ok {
		return
	}
	b, ok := readBody(w, r, true)
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
	o.updateSession(w, r, st, typ, p.Str("user_id"), func(s *storage.Session) error {
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
