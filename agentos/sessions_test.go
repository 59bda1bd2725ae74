package agentos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// backends are the stores every data-route test runs against.
var backends = []struct {
	name string
	open func(t testing.TB) storage.Store
}{
	{"memory", func(testing.TB) storage.Store { return memory.New() }},
	{"sqlite", func(t testing.TB) storage.Store {
		st, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}},
	// PostgreSQL runs when AGNO_TEST_POSTGRES_DSN is set (else skips).
	{"postgres", func(t testing.TB) storage.Store {
		dsn := pgtest.DSN(t)
		st, err := postgres.Open(t.Context(), postgres.Config{DSN: dsn, Schema: pgtest.Schema(t, dsn), MaxConns: 4, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}},
}

// eachBackend runs fn once per storage backend with a fresh store.
func eachBackend(t *testing.T, fn func(t *testing.T, st storage.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, before) })
			st := b.open(t)
			t.Cleanup(func() { _ = st.Close() })
			fn(t, st)
		})
	}
}

// dataOS is an OS over st with a chat agent (history on, so later runs
// carry history copies), a team with one member, and a one-step workflow.
func dataOS(t testing.TB, st storage.Store) *httptest.Server {
	t.Helper()
	usage := &model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
	chat, err := agent.New(agent.Config{Name: "Chat Agent", Store: st, AddHistoryToContext: true, StoreHistoryMessages: true,
		Instructions: []string{"Answer briefly."},
		Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			return modeltest.Response{Content: "Echo: " + req.Messages[len(req.Messages)-1].Content, Usage: usage}
		})})
	if err != nil {
		t.Fatal(err)
	}
	helper, err := agent.New(agent.Config{Name: "Helper", Role: "helps", Model: modeltest.New(modeltest.Response{Content: "helper result"})})
	if err != nil {
		t.Fatal(err)
	}
	leader := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "Team answer", Usage: usage}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"helper","task":"help"}`)}, Usage: usage}
	})
	tm, err := team.New(team.Config{Name: "Support Team", Model: leader, Members: []run.Executor{helper}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{Name: "Pipeline", Store: st, Steps: []workflow.Node{
		&workflow.Step{Name: "process", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "processed: " + in.InputString()}, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{chat}, Teams: []*team.Team{tm}, Workflows: []*workflow.Workflow{wf}, Store: st,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	return srv
}

// call sends a request with an optional JSON body and decodes the JSON
// answer (nil for 204).
func call(t testing.TB, srv *httptest.Server, method, path string, body any) (int, any) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) == 0 {
		return resp.StatusCode, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, v
}

// mustCall is call expecting a status.
func mustCall(t testing.TB, srv *httptest.Server, want int, method, path string, body any) any {
	t.Helper()
	got, v := call(t, srv, method, path, body)
	if got != want {
		t.Fatalf("%s %s: status %d, want %d: %v", method, path, got, want, v)
	}
	return v
}

// runComponent starts a non-streaming run through the HTTP API.
func runComponent(t testing.TB, srv *httptest.Server, path, message, sessionID, userID string) map[string]any {
	t.Helper()
	form := url.Values{"message": {message}, "stream": {"false"}, "session_id": {sessionID}, "user_id": {userID}}
	resp, err := srv.Client().PostForm(srv.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("run %s: %d %s", path, resp.StatusCode, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any         { l, _ := v.([]any); return l }

var isoRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

func wantISO(t *testing.T, what string, v any) {
	t.Helper()
	s, _ := v.(string)
	if !isoRE.MatchString(s) {
		t.Errorf("%s = %v, want an ISO 8601 UTC datetime", what, v)
	}
}

// wantDetail checks {"detail": msg}.
func wantDetail(t *testing.T, v any, msg string) {
	t.Helper()
	if got := obj(v)["detail"]; got != msg {
		t.Errorf("detail = %v, want %q", got, msg)
	}
}

// wantFieldError checks a FastAPI 422 body naming loc.
func wantFieldError(t *testing.T, v any, loc ...string) {
	t.Helper()
	errs := list(obj(v)["detail"])
	if len(errs) == 0 {
		t.Fatalf("no validation errors in %v", v)
	}
	got := fmt.Sprint(obj(errs[0])["loc"])
	if want := fmt.Sprint(toAny(loc)); got != want {
		t.Errorf("error loc = %s, want %s (%v)", got, want, errs[0])
	}
	if obj(errs[0])["msg"] == "" {
		t.Errorf("error without a message: %v", errs[0])
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func contents(msgs []any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, fmt.Sprint(obj(m)["role"], ": ", obj(m)["content"]))
	}
	return out
}

func TestDataRoutesWithoutStore(t *testing.T) {
	a, err := agent.New(agent.Config{Name: "A", Model: modeltest.New(modeltest.Response{Content: "x"})})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	for _, c := range []struct{ method, path, feature string }{
		{"GET", "/sessions", "Sessions"}, {"POST", "/sessions", "Sessions"}, {"GET", "/sessions/x", "Sessions"},
		{"GET", "/sessions/x/runs", "Sessions"}, {"GET", "/sessions/x/runs/y", "Sessions"}, {"PATCH", "/sessions/x", "Sessions"},
		{"POST", "/sessions/x/rename", "Sessions"}, {"DELETE", "/sessions/x", "Sessions"},
		{"GET", "/memories", "Memory"}, {"GET", "/memories/x", "Memory"}, {"DELETE", "/memories/x", "Memory"},
		{"GET", "/memory_topics", "Memory"}, {"GET", "/user_memory_stats", "Memory"},
	} {
		v := mustCall(t, srv, http.StatusServiceUnavailable, c.method, c.path, nil)
		wantDetail(t, v, c.feature+" not available: pass a `db` to AgentOS to enable this feature.")
	}
	// Bodies are validated before the database is looked for.
	v := mustCall(t, srv, http.StatusServiceUnavailable, "POST", "/memories", map[string]any{"memory": "m", "user_id": "u"})
	wantDetail(t, v, "Memory not available: pass a `db` to AgentOS to enable this feature.")
	mustCall(t, srv, http.StatusServiceUnavailable, "DELETE", "/sessions", map[string]any{"session_ids": []string{"a"}, "session_types": []string{"agent"}})
}

func TestAgentSessionRoutes(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		ctx := t.Context()
		start := time.Now().Unix()
		r1 := runComponent(t, srv, "/agents/chat-agent/runs", "What is Go?", "s1", "alice")
		r2 := runComponent(t, srv, "/agents/chat-agent/runs", "And Rust?", "s1", "alice")
		runComponent(t, srv, "/agents/chat-agent/runs", "Hi from Bob", "s2", "bob")

		// List: names fall back to the first input, ISO times, metrics.
		page := obj(mustCall(t, srv, 200, "GET", "/sessions?type=agent&sort_order=asc", nil))
		meta := obj(page["meta"])
		if meta["total_count"] != 2.0 || meta["page"] != 1.0 || meta["limit"] != 20.0 || meta["total_pages"] != 1.0 {
			t.Errorf("meta = %v", meta)
		}
		if _, ok := meta["search_time_ms"].(float64); !ok {
			t.Errorf("meta.search_time_ms missing: %v", meta)
		}
		byID := map[string]map[string]any{}
		for _, d := range list(page["data"]) {
			byID[obj(d)["session_id"].(string)] = obj(d)
		}
		s1 := byID["s1"]
		if s1["session_name"] != "What is Go?" || s1["session_type"] != "agent" || s1["agent_id"] != "chat-agent" || s1["user_id"] != "alice" {
			t.Errorf("s1 = %v", s1)
		}
		if s1["total_tokens"] != 30.0 || obj(s1["metrics"])["total_tokens"] != 30.0 {
			t.Errorf("s1 tokens = %v / %v, want 30 (two runs of 15)", s1["total_tokens"], s1["metrics"])
		}
		wantISO(t, "created_at", s1["created_at"])
		wantISO(t, "updated_at", s1["updated_at"])
		if _, ok := s1["team_id"]; ok {
			t.Errorf("None fields must be left out of the list: %v", s1)
		}
		if byID["s2"]["session_name"] != "Hi from Bob" {
			t.Errorf("s2 name = %v", byID["s2"]["session_name"])
		}

		// Filters.
		for q, want := range map[string]int{
			"user_id=alice": 1, "user_id=carol": 0, "component_id=chat-agent": 2, "component_id=other": 0,
			"type=team": 0, "": 2,
		} {
			p := obj(mustCall(t, srv, 200, "GET", "/sessions?"+q, nil))
			if n := len(list(p["data"])); n != want || obj(p["meta"])["total_count"] != float64(want) {
				t.Errorf("?%s: %d sessions (meta %v), want %d", q, n, p["meta"], want)
			}
		}

		// Detail with the chat history: user and assistant turns only, no
		// system prompt, no history copies.
		d := obj(mustCall(t, srv, 200, "GET", "/sessions/s1", nil))
		want := []string{"user: What is Go?", "assistant: Echo: What is Go?", "user: And Rust?", "assistant: Echo: And Rust?"}
		if got := contents(list(d["chat_history"])); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chat_history = %q, want %q", got, want)
		}
		if d["agent_session_id"] != "s1" || d["session_name"] != "What is Go?" || d["total_tokens"] != 30.0 || d["agent_id"] != "chat-agent" {
			t.Errorf("detail = %v", d)
		}
		wantISO(t, "detail created_at", d["created_at"])
		d = obj(mustCall(t, srv, 200, "GET", "/sessions/s1?type=agent&user_id=alice", nil))
		if d["session_id"] != "s1" {
			t.Errorf("typed detail = %v", d)
		}

		// Isolation and 404s.
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/s1?user_id=bob", nil), "Session with id 's1' not found")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/s1?type=team", nil), "Team Session with id 's1' not found")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/missing", nil), "Session with id 'missing' not found")
		wantFieldError(t, mustCall(t, srv, 422, "GET", "/sessions/s1?type=robot", nil), "query", "type")

		// Runs of the session.
		runs := list(mustCall(t, srv, 200, "GET", "/sessions/s1/runs", nil))
		if len(runs) != 2 {
			t.Fatalf("runs = %v", runs)
		}
		first := obj(runs[0])
		if first["run_id"] != r1["run_id"] || first["run_input"] != "What is Go?" || first["content"] != "Echo: What is Go?" ||
			first["agent_id"] != "chat-agent" || first["user_id"] != "alice" || first["status"] != "COMPLETED" || first["run_response_format"] != "text" {
			t.Errorf("first run = %v", first)
		}
		wantISO(t, "run created_at", first["created_at"])
		if len(list(first["events"])) == 0 || len(list(first["messages"])) == 0 {
			t.Errorf("run without stored events or messages: %v", first)
		}
		// The stored second run carries the first as history copies, which
		// the chat history below must leave out.
		hist := 0
		for _, m := range list(obj(runs[1])["messages"]) {
			if obj(m)["from_history"] == true {
				hist++
			}
		}
		if hist == 0 {
			t.Fatal("second run stored no history messages; the chat_history check would prove nothing")
		}
		if _, ok := first["citations"]; ok {
			t.Errorf("the runs list leaves None out: %v", first)
		}
		for q, n := range map[string]int{
			fmt.Sprintf("created_after=%d", start): 2, fmt.Sprintf("created_after=%d", start+3600): 0,
			fmt.Sprintf("created_before=%d", start-3600): 0, fmt.Sprintf("created_before=%d&user_id=alice", start+3600): 2,
		} {
			if got := list(mustCall(t, srv, 200, "GET", "/sessions/s1/runs?"+q, nil)); len(got) != n {
				t.Errorf("runs?%s = %d, want %d", q, len(got), n)
			}
		}
		wantFieldError(t, mustCall(t, srv, 422, "GET", "/sessions/s1/runs?created_after=yesterday", nil), "query", "created_after")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/s1/runs?user_id=bob", nil), "Session with ID s1 not found")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/nope/runs", nil), "Session with ID nope not found")

		one := obj(mustCall(t, srv, 200, "GET", "/sessions/s1/runs/"+r2["run_id"].(string), nil))
		if one["run_input"] != "And Rust?" || one["content"] != "Echo: And Rust?" {
			t.Errorf("single run = %v", one)
		}
		if v, ok := one["citations"]; !ok || v != nil {
			t.Errorf("the single-run route keeps None fields (citations): %v", one)
		}
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/s1/runs/nope", nil), "Run with ID nope not found in session s1")
		s2runs := list(mustCall(t, srv, 200, "GET", "/sessions/s2/runs", nil))
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/s1/runs/"+obj(s2runs[0])["run_id"].(string), nil),
			fmt.Sprintf("Run with ID %s not found in session s1", obj(s2runs[0])["run_id"]))
		mustCall(t, srv, 201, "POST", "/sessions", map[string]any{"session_id": "empty"})
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/empty/runs/x", nil), "Session with ID empty has no runs")

		// Rename and name filter.
		rn := obj(mustCall(t, srv, 200, "POST", "/sessions/s1/rename", map[string]any{"session_name": "Go chat"}))
		if rn["session_name"] != "Go chat" {
			t.Errorf("rename = %v", rn)
		}
		if v, ok := rn["session_summary"]; !ok || v != nil {
			t.Errorf("rename keeps None fields: %v", rn)
		}
		p := obj(mustCall(t, srv, 200, "GET", "/sessions?session_name=go%20CH", nil))
		if l := list(p["data"]); len(l) != 1 || obj(l[0])["session_id"] != "s1" {
			t.Errorf("session_name filter = %v", p["data"])
		}
		wantDetail(t, mustCall(t, srv, 404, "POST", "/sessions/s1/rename?user_id=bob", map[string]any{"session_name": "x"}), "Session with id 's1' not found")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/sessions/s1/rename", map[string]any{"name": "x"}), "body", "session_name")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/sessions/s1/rename", map[string]any{"session_name": 5}), "body", "session_name")

		// PATCH.
		up := obj(mustCall(t, srv, 200, "PATCH", "/sessions/s1?user_id=alice", map[string]any{
			"session_state": map[string]any{"step": "done"}, "metadata": map[string]any{"tag": "x"},
			"summary": map[string]any{"summary": "Talked about languages", "topics": []string{"go", "rust"}},
		}))
		if obj(up["session_state"])["step"] != "done" || obj(up["metadata"])["tag"] != "x" ||
			obj(up["session_summary"])["summary"] != "Talked about languages" || up["session_name"] != "Go chat" {
			t.Errorf("patch = %v", up)
		}
		got := obj(mustCall(t, srv, 200, "GET", "/sessions/s1", nil))
		if obj(got["session_state"])["step"] != "done" || fmt.Sprint(obj(got["session_summary"])["topics"]) != "[go rust]" {
			t.Errorf("after patch = %v", got)
		}
		wantDetail(t, mustCall(t, srv, 404, "PATCH", "/sessions/nope", map[string]any{"session_name": "x"}), "Session with id 'nope' not found")
		wantDetail(t, mustCall(t, srv, 404, "PATCH", "/sessions/s1?user_id=bob", map[string]any{"session_name": "x"}), "Session with id 's1' not found")
		wantFieldError(t, mustCall(t, srv, 422, "PATCH", "/sessions/s1", map[string]any{"session_state": "done"}), "body", "session_state")
		wantFieldError(t, mustCall(t, srv, 422, "PATCH", "/sessions/s1", map[string]any{"summary": map[string]any{"topics": []string{}}}), "body", "summary", "summary")
		wantFieldError(t, mustCall(t, srv, 422, "PATCH", "/sessions/s1", nil), "body")
		wantFieldError(t, mustCall(t, srv, 422, "PATCH", "/sessions/s1", "{not json"), "body", "1") // FastAPI names the offset of the bad character
		if obj(mustCall(t, srv, 200, "GET", "/sessions/s1", nil))["session_name"] != "Go chat" {
			t.Error("rejected updates must change nothing")
		}

		// Delete one: another user's id is left alone; the owner's goes with
		// its runs and events.
		s2run := obj(s2runs[0])["run_id"].(string)
		mustCall(t, srv, 204, "DELETE", "/sessions/s2?user_id=alice", nil)
		mustCall(t, srv, 200, "GET", "/sessions/s2", nil)
		mustCall(t, srv, 204, "DELETE", "/sessions/s2", nil)
		mustCall(t, srv, 404, "GET", "/sessions/s2", nil)
		if _, err := st.GetRun(ctx, s2run); err == nil {
			t.Error("the deleted session's run is still stored")
		}
		if evs, _ := st.ListEvents(ctx, s2run, -1); len(evs) != 0 {
			t.Errorf("the deleted session's run events are still stored: %d", len(evs))
		}
		mustCall(t, srv, 204, "DELETE", "/sessions/never-existed", nil)

		// Delete many.
		wantDetail(t, mustCall(t, srv, 400, "DELETE", "/sessions", map[string]any{"session_ids": []string{"s1", "empty"}, "session_types": []string{"agent"}}),
			"Session IDs and session types must have the same length")
		wantFieldError(t, mustCall(t, srv, 422, "DELETE", "/sessions", map[string]any{"session_ids": []string{}, "session_types": []string{}}), "body", "session_ids")
		wantFieldError(t, mustCall(t, srv, 422, "DELETE", "/sessions", map[string]any{"session_ids": []string{"s1"}, "session_types": []string{"robot"}}), "body", "session_types", "0")
		wantFieldError(t, mustCall(t, srv, 422, "DELETE", "/sessions", map[string]any{"session_types": []string{"agent"}}), "body", "session_ids")
		mustCall(t, srv, 204, "DELETE", "/sessions?user_id=bob", map[string]any{"session_ids": []string{"s1"}, "session_types": []string{"agent"}})
		mustCall(t, srv, 200, "GET", "/sessions/s1", nil)
		mustCall(t, srv, 204, "DELETE", "/sessions", map[string]any{"session_ids": []string{"s1", "empty"}, "session_types": []string{"agent", "agent"}})
		if p := obj(mustCall(t, srv, 200, "GET", "/sessions", nil)); obj(p["meta"])["total_count"] != 0.0 {
			t.Errorf("sessions left after delete: %v", p)
		}
	})
}

func TestCreateSession(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		d := obj(mustCall(t, srv, 201, "POST", "/sessions?type=team", map[string]any{
			"session_id": "t-1", "session_name": "Planning", "session_state": map[string]any{"n": 1},
			"metadata": map[string]any{"k": "v"}, "user_id": "alice", "team_id": "support-team", "agent_id": "ignored",
		}))
		if d["session_id"] != "t-1" || d["team_id"] != "support-team" || d["session_name"] != "Planning" || d["user_id"] != "alice" ||
			obj(d["session_state"])["n"] != 1.0 || obj(d["metadata"])["k"] != "v" {
			t.Errorf("created = %v", d)
		}
		if h, ok := d["chat_history"].([]any); !ok || len(h) != 0 {
			t.Errorf("a new session's chat_history is [], got %v", d["chat_history"])
		}
		if _, ok := d["agent_id"]; ok {
			t.Errorf("a team session takes no agent_id: %v", d)
		}
		wantISO(t, "created_at", d["created_at"])
		s, err := st.GetSession(t.Context(), "t-1")
		if err != nil || s.SessionType != storage.SessionTeam || s.TeamID != "support-team" {
			t.Fatalf("stored = %+v, %v", s, err)
		}

		// A run in the pre-created session keeps its name and state.
		runComponent(t, srv, "/teams/support-team/runs", "plan it", "t-1", "alice")
		d = obj(mustCall(t, srv, 200, "GET", "/sessions/t-1?type=team", nil))
		if d["session_name"] != "Planning" || obj(d["session_state"])["n"] != 1.0 {
			t.Errorf("after a run = %v", d)
		}

		wantDetail(t, mustCall(t, srv, 409, "POST", "/sessions", map[string]any{"session_id": "t-1"}),
			"Session with id 't-1' already exists; omit session_id to get a new one, or PATCH /sessions/t-1 to change it")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/sessions", map[string]any{"session_state": "x"}), "body", "session_state")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/sessions", "[1,2]"), "body")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/sessions?type=robot", nil), "query", "type")

		// No body at all: an agent session with a fresh id.
		d = obj(mustCall(t, srv, 201, "POST", "/sessions", nil))
		id, _ := d["session_id"].(string)
		if len(id) != 36 || d["agent_session_id"] != id || d["session_name"] != "" {
			t.Errorf("default created = %v", d)
		}
		if s, err := st.GetSession(t.Context(), id); err != nil || s.SessionType != storage.SessionAgent {
			t.Errorf("stored default = %+v, %v", s, err)
		}
	})
}

func TestListSessionsPagingSortingValidation(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		base := time.Date(2025, 9, 5, 16, 2, 9, 0, time.UTC).Unix()
		for i := range 5 {
			_, _, err := st.EnsureSession(t.Context(), &storage.Session{
				SessionID: fmt.Sprintf("p%d", i), SessionType: storage.SessionAgent, AgentID: "chat-agent",
				SessionName: fmt.Sprintf("name-%c", 'e'-i), CreatedAt: base + int64(i), UpdatedAt: base + 100 - int64(i),
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		ids := func(path string) (string, map[string]any) {
			p := obj(mustCall(t, srv, 200, "GET", path, nil))
			var out []string
			for _, d := range list(p["data"]) {
				out = append(out, obj(d)["session_id"].(string))
			}
			return strings.Join(out, ","), obj(p["meta"])
		}
		got, meta := ids("/sessions?limit=2&page=2&sort_order=asc")
		if got != "p2,p3" || meta["page"] != 2.0 || meta["limit"] != 2.0 || meta["total_pages"] != 3.0 || meta["total_count"] != 5.0 {
			t.Errorf("page 2 asc = %s %v", got, meta)
		}
		if got, _ := ids("/sessions?limit=2"); got != "p4,p3" {
			t.Errorf("default order (created_at desc) = %s", got)
		}
		if got, _ := ids("/sessions?limit=2&page=3"); got != "p0" {
			t.Errorf("last page = %s", got)
		}
		if got, _ := ids("/sessions?limit=2&page=9"); got != "" {
			t.Errorf("past the end = %s", got)
		}
		if got, _ := ids("/sessions?sort_by=updated_at&sort_order=asc"); got != "p4,p3,p2,p1,p0" {
			t.Errorf("updated_at asc = %s", got)
		}
		if got, _ := ids("/sessions?sort_by=session_name&sort_order=asc"); got != "p4,p3,p2,p1,p0" {
			t.Errorf("session_name asc = %s", got)
		}
		p := obj(mustCall(t, srv, 200, "GET", "/sessions?sort_order=asc&limit=1", nil))
		first := obj(list(p["data"])[0])
		if first["created_at"] != "2025-09-05T16:02:09Z" || first["updated_at"] != "2025-09-05T16:03:49Z" {
			t.Errorf("timestamps = %v / %v", first["created_at"], first["updated_at"])
		}
		for q, param := range map[string]string{
			"limit=0": "limit", "limit=ten": "limit", "page=-1": "page",
			"sort_by=colour": "sort_by", "sort_order=up": "sort_order", "type=robot": "type",
		} {
			v := mustCall(t, srv, 422, "GET", "/sessions?"+q, nil)
			wantFieldError(t, v, "query", param)
		}
		// Database selection.
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions?db_id=other", nil), "No database found with id 'other'")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions?table=agno_sessions", nil), "The db_id query parameter is required when passing a table")
		wantDetail(t, mustCall(t, srv, 400, "GET", "/sessions/p1?table=agno_sessions", nil), "The db_id query parameter is required when passing a table")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/sessions/p1?db_id=agno-db&table=agno_memories", nil), "No database with id 'agno-db' has table 'agno_memories'")
		mustCall(t, srv, 200, "GET", "/sessions/p1?db_id=agno-db&table=agno_sessions", nil)
	})
}

func TestTeamAndWorkflowSessions(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		out := runComponent(t, srv, "/teams/support-team/runs", "Need help with billing", "team-s", "carol")
		if out["content"] != "Team answer" {
			t.Fatalf("team run = %v", out)
		}
		d := obj(mustCall(t, srv, 200, "GET", "/sessions/team-s", nil))
		if d["team_id"] != "support-team" || d["session_name"] != "Need help with billing" || d["user_id"] != "carol" {
			t.Errorf("team detail = %v", d)
		}
		if _, ok := d["agent_session_id"]; ok {
			t.Errorf("a team session has no agent_session_id: %v", d)
		}
		// Member messages stay out of the team's chat history.
		want := []string{"user: Need help with billing", "assistant: <nil>", "assistant: Team answer"}
		if got := contents(list(d["chat_history"])); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("team chat_history = %q, want %q", got, want)
		}
		runs := list(mustCall(t, srv, 200, "GET", "/sessions/team-s/runs?type=team", nil))
		if len(runs) != 2 {
			t.Fatalf("team session runs = %v", runs)
		}
		var teamRun, memberRun map[string]any
		for _, r := range runs {
			if obj(r)["team_id"] != nil {
				teamRun = obj(r)
			} else {
				memberRun = obj(r)
			}
		}
		if teamRun == nil || memberRun == nil {
			t.Fatalf("want one TeamRunSchema and one member RunSchema: %v", runs)
		}
		if teamRun["run_input"] != "Need help with billing" || teamRun["content"] != "Team answer" {
			t.Errorf("team run = %v", teamRun)
		}
		if _, ok := teamRun["user_id"]; ok {
			t.Errorf("TeamRunSchema has no user_id: %v", teamRun)
		}
		if memberRun["agent_id"] != "helper" || memberRun["parent_run_id"] != teamRun["run_id"] || memberRun["content"] != "helper result" {
			t.Errorf("member run = %v", memberRun)
		}
		one := obj(mustCall(t, srv, 200, "GET", "/sessions/team-s/runs/"+teamRun["run_id"].(string), nil))
		if one["team_id"] != "support-team" {
			t.Errorf("single team run = %v", one)
		}

		runComponent(t, srv, "/workflows/pipeline/runs", "raw data", "wf-s", "dave")
		page := obj(mustCall(t, srv, 200, "GET", "/sessions?type=workflow", nil))
		if l := list(page["data"]); len(l) != 1 || obj(l[0])["session_name"] != "raw data" || obj(l[0])["workflow_id"] != "pipeline" {
			t.Errorf("workflow sessions = %v", page["data"])
		}
		wd := obj(mustCall(t, srv, 200, "GET", "/sessions/wf-s?type=workflow", nil))
		if wd["workflow_id"] != "pipeline" || wd["workflow_name"] != "Pipeline" || wd["session_name"] != "raw data" {
			t.Errorf("workflow detail = %v", wd)
		}
		if _, ok := wd["chat_history"]; ok {
			t.Errorf("workflow detail has no chat_history: %v", wd)
		}
		wr := list(mustCall(t, srv, 200, "GET", "/sessions/wf-s/runs", nil))
		if len(wr) != 1 {
			t.Fatalf("workflow runs = %v", wr)
		}
		w0 := obj(wr[0])
		if w0["workflow_id"] != "pipeline" || w0["run_input"] != "raw data" || w0["content"] != "processed: raw data" || len(list(w0["step_results"])) != 1 {
			t.Errorf("workflow run = %v", w0)
		}
		wantISO(t, "workflow run created_at", w0["created_at"])
		single := obj(mustCall(t, srv, 200, "GET", "/sessions/wf-s/runs/"+w0["run_id"].(string), nil))
		if single["workflow_id"] != "pipeline" || single["status"] != "COMPLETED" {
			t.Errorf("single workflow run = %v", single)
		}

		// Type filter across kinds.
		for typ, n := range map[string]int{"agent": 0, "team": 1, "workflow": 1} {
			p := obj(mustCall(t, srv, 200, "GET", "/sessions?type="+typ, nil))
			if got := len(list(p["data"])); got != n {
				t.Errorf("type=%s: %d sessions, want %d", typ, got, n)
			}
		}
	})
}

// BenchmarkSessionRoutes measures GET /sessions (20 per page, names from
// the first run) and GET /sessions/{id} (chat history of 10 runs) over
// each backend, through HTTP on loopback.
func BenchmarkSessionRoutes(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := be.open(b)
			b.Cleanup(func() { _ = st.Close() })
			srv := dataOS(b, st)
			for i := range 40 {
				runComponent(b, srv, "/agents/chat-agent/runs", fmt.Sprintf("question %d", i), fmt.Sprintf("bench-%d", i), "u")
			}
			for i := range 9 {
				runComponent(b, srv, "/agents/chat-agent/runs", fmt.Sprintf("follow-up %d", i), "bench-0", "u")
			}
			b.Run("list", func(b *testing.B) {
				for b.Loop() {
					mustCall(b, srv, 200, "GET", "/sessions?type=agent&limit=20", nil)
				}
			})
			b.Run("detail", func(b *testing.B) {
				for b.Loop() {
					mustCall(b, srv, 200, "GET", "/sessions/bench-0", nil)
				}
			})
		})
	}
}
