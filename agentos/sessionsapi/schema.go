package sessionsapi

import (
	"cmp"
	"context"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// The answer shapes of the session routes: agno's SessionSchema and
// session detail schemas, with the name and chat history read from the
// session's runs.

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
		out = append(out, storedDoc{rec: rec, doc: httpapi.DecodeRun(rec)})
	}
	return out, nil
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
			return httpapi.StringifyInput(in)
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
			return httpapi.StringifyInput(in["input_content"])
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
		d["session_metrics"] = httpapi.ToJSONMap(s.Metrics)
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
		return httpapi.ToJSONMap(s.Metrics), s.Metrics.TotalTokens
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
	return httpapi.ToJSONMap(s.Summary)
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
		CreatedAt: httpapi.IsoSeconds(s.CreatedAt), UpdatedAt: httpapi.IsoSeconds(cmp.Or(s.UpdatedAt, s.CreatedAt)),
		SessionType: string(s.SessionType), UserID: s.UserID, AgentID: s.AgentID, TeamID: s.TeamID,
		WorkflowID: s.WorkflowID, SessionSummary: summaryOf(s), Metadata: s.Metadata,
	}
	if s.Metrics != nil {
		tokens := s.Metrics.TotalTokens
		out.Metrics, out.TotalTokens = httpapi.ToJSONMap(s.Metrics), &tokens
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
	created := httpapi.IsoSeconds(s.CreatedAt)
	updated := httpapi.IsoSeconds(s.UpdatedAt)
	if updated == nil {
		updated = created
	}
	metrics, tokens := metricsOf(s)
	switch s.SessionType {
	case storage.SessionWorkflow:
		return WorkflowSessionDetailSchema{
			UserID: httpapi.NullString(s.UserID), WorkflowID: httpapi.NullString(s.WorkflowID), WorkflowName: httpapi.NullString(workflowName(s)),
			SessionID: s.SessionID, SessionName: name, SessionData: sessionData(s), SessionState: s.SessionState,
			WorkflowData: s.Data, Metadata: s.Metadata, CreatedAt: created, UpdatedAt: updated,
		}
	case storage.SessionTeam:
		return TeamSessionDetailSchema{
			SessionID: s.SessionID, SessionName: name, UserID: httpapi.NullString(s.UserID), TeamID: httpapi.NullString(s.TeamID),
			SessionSummary: summaryOf(s), SessionState: s.SessionState, Metrics: metrics, TeamData: s.Data,
			Metadata: s.Metadata, ChatHistory: history, CreatedAt: created, UpdatedAt: updated, TotalTokens: tokens,
		}
	}
	return AgentSessionDetailSchema{
		UserID: httpapi.NullString(s.UserID), AgentSessionID: s.SessionID, SessionID: s.SessionID, SessionName: name,
		SessionSummary: summaryOf(s), SessionState: s.SessionState, AgentID: httpapi.NullString(s.AgentID), TotalTokens: tokens,
		AgentData: s.Data, Metrics: metrics, Metadata: s.Metadata, ChatHistory: history, CreatedAt: created, UpdatedAt: updated,
	}
}

// excludeNone is v without its null fields (FastAPI's
// response_model_exclude_none on a typed response).
func excludeNone(v any) any {
	m := httpapi.ToJSONMap(v)
	if m == nil {
		return v
	}
	return httpapi.WithoutNone(m)
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
