package httpapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/workflow"
)

// A session's visibility and the stored runs' documents and schemas:
// the session routes (agentos/sessionsapi) and the run routes of the
// agents, teams and workflows answer them alike.

// ErrSessionHidden marks a session the request may not see (other user
// or type); it is answered as not found.
var ErrSessionHidden = errors.New("session not visible")

// SessionVisible reports whether a session matches the requested type
// and user.
func SessionVisible(s *storage.Session, typ storage.SessionType, userID string) bool {
	return (typ == "" || s.SessionType == typ) && (userID == "" || s.UserID == userID)
}

// GetSession loads a session the request may see, else ErrSessionHidden.
func GetSession(ctx context.Context, st storage.Store, id string, typ storage.SessionType, userID string) (*storage.Session, error) {
	s, err := st.GetSession(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrSessionHidden
	}
	if err != nil {
		return nil, err
	}
	if !SessionVisible(s, typ, userID) {
		return nil, ErrSessionHidden
	}
	if hidden, err := OnlyInFlight(ctx, st, id); err != nil || hidden {
		return nil, cmp.Or(err, ErrSessionHidden)
	}
	return s, nil
}

// OnlyInFlight reports a session whose only runs are foreground runs in
// flight. agno stores such a session with its first run's end, so its
// clients (agent-ui on a new chat) expect it not to exist until then.
func OnlyInFlight(ctx context.Context, st storage.Store, sessionID string) (bool, error) {
	shown, err := st.ListRuns(ctx, storage.RunQuery{SessionID: sessionID, TopLevel: true, Settled: true, Limit: 1})
	if err != nil || len(shown) > 0 {
		return false, err
	}
	any, err := st.ListRuns(ctx, storage.RunQuery{SessionID: sessionID, TopLevel: true, Limit: 1})
	return len(any) > 0, err
}

// Shown reports a run listings show: settled, or listed while in flight
// (background runs); a foreground run shows once it ends, as in agno.
func Shown(rec *storage.Run) bool { return !rec.InFlight() || rec.Listed }

// DecodeRun is a stored run's document as the routes answer it.
func DecodeRun(rec *storage.Run) map[string]any {
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	RowStatus(doc, rec)
	ReadStored(doc, rec)
	return doc
}

// ReadStored brings a stored run's document up to today's shapes: runs
// stored by earlier versions are read as agno's clients expect.
func ReadStored(doc map[string]any, rec *storage.Run) {
	if rec.SessionType == storage.SessionWorkflow {
		workflow.UpgradeStoredMetrics(doc)
	}
}

// RowStatus puts the row's status in its document: the row moves first
// (a claimed paused run is RUNNING before its document is rewritten).
func RowStatus(doc map[string]any, rec *storage.Run) {
	if _, ok := doc["status"]; ok && rec.Status != "" {
		doc["status"] = string(rec.Status)
	}
}

// RunEvents are a stored run's stored events (nil without any).
func RunEvents(ctx context.Context, st storage.Store, runID string) ([]any, error) {
	evs, err := st.ListEvents(ctx, runID, -1)
	if err != nil {
		return nil, err
	}
	var events []any
	for _, e := range evs {
		var v map[string]any
		if run.DecodeJSON(e.Data, &v) == nil {
			events = append(events, v)
		}
	}
	return events, nil
}

// StringifyInput renders a run input as agno's stringify_input_content:
// text as is, anything else as json.dumps.
func StringifyInput(v any) string {
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

// RunSchema is agno's RunSchema / TeamRunSchema / WorkflowRunSchema (kind
// agent, team or workflow) of a stored run with its document and events,
// every field present (None as nil).
func RunSchema(rec *storage.Run, doc map[string]any, events []any, kind string) map[string]any {
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
		s["created_at"] = IsoSeconds(rec.CreatedAt)
	}
	if kind == "workflow" {
		s := workflowRunSummary(rec)
		var in any
		if v, ok := doc["input"]; ok && v != nil {
			in = StringifyInput(v)
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
	s := runSummary(rec, kind)
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

// runSummary is the start of RunSchema's agent and team runs, from the
// stored row and its document as stored.
func runSummary(rec *storage.Run, kind string) map[string]any {
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	s := map[string]any{"run_id": rec.RunID, "status": rec.Status, "created_at": rec.CreatedAt}
	if rec.ParentRunID != "" {
		s["parent_run_id"] = rec.ParentRunID
	}
	if rec.UserID != "" {
		s["user_id"] = rec.UserID
	}
	s[kind+"_id"] = rec.ComponentID
	if in, ok := doc["input"].(map[string]any); ok {
		if c, ok := in["input_content"]; ok {
			s["run_input"] = c
		}
	}
	format := "text"
	if ct, _ := doc["content_type"].(string); ct != "" && ct != "str" {
		format = "json"
	}
	s["run_response_format"] = format
	for _, f := range []string{"content", "reasoning_content", "metrics", "messages", "tools", "session_state", "images", "references"} {
		if v, ok := doc[f]; ok {
			s[f] = v
		}
	}
	return s
}

// workflowRunSummary is the start of RunSchema's workflow runs.
func workflowRunSummary(rec *storage.Run) map[string]any {
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	ReadStored(doc, rec)
	s := map[string]any{"run_id": rec.RunID, "workflow_id": rec.ComponentID, "status": rec.Status, "created_at": rec.CreatedAt}
	if rec.UserID != "" {
		s["user_id"] = rec.UserID
	}
	if v, ok := doc["input"]; ok {
		s["run_input"] = v
	}
	for _, f := range []string{"content", "content_type", "step_results", "step_executor_runs", "step_requirements", "pause_kind", "paused_step_name", "paused_step_index", "metrics"} {
		if v, ok := doc[f]; ok {
			s[f] = v
		}
	}
	return s
}

// runInput is agno's get_run_input for agent and team runs: the stored
// input, else the last user message.
func runInput(doc map[string]any) string {
	if in, ok := doc["input"].(map[string]any); ok && in["input_content"] != nil {
		return StringifyInput(in["input_content"])
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
