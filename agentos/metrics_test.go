package agentos

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
)

// metricsOS serves an agent and a team whose models are a fake OpenAI
// server answering every call with the same usage, over a SQLite file
// holding both the run store and the control-plane tables.
func metricsOS(t *testing.T, refresh ...time.Duration) (*OS, *httptest.Server, storage.Store) {
	t.Helper()
	usage := &model.Usage{InputTokens: 11, OutputTokens: 7, TotalTokens: 18, CacheReadTokens: 2, ReasoningTokens: 1}
	llm := modeltest.NewServer(modeltest.ServerConfig{Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		for _, tl := range req.Tools {
			if tl.Name == "delegate_task_to_member" && last.Role != model.RoleTool {
				return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"helper","task":"help"}`)}, Usage: usage}
			}
		}
		return modeltest.Response{Content: "answer", Usage: usage}
	}})
	t.Cleanup(llm.Close)
	newModel := func(id string) model.Model {
		m, err := openai.New(openai.Config{ID: id, BaseURL: llm.URL, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agno.db")
	st, err := sqlite.Open(ctx, sqlite.Config{Path: path, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqldb.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	writer, err := agent.New(agent.Config{ID: "writer", Name: "Writer", Model: newModel("gpt-4o"), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Role: "helps", Model: newModel("gpt-4o-mini")})
	if err != nil {
		t.Fatal(err)
	}
	crew, err := team.New(team.Config{ID: "crew", Name: "Crew", Model: newModel("gpt-4o"), Members: []run.Executor{helper}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	var mc MetricsConfig
	if len(refresh) > 0 {
		mc.RefreshInterval = refresh[0]
	}
	o, err := New(Config{Agents: []*agent.Agent{writer}, Teams: []*team.Team{crew}, Store: st, DB: db, Metrics: mc,
		Closers: []func() error{db.Close, st.Close}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := o.Close(); err != nil {
			t.Error(err)
		}
	})
	return o, srv, st
}

// fetch sends a request and decodes the JSON answer.
func metricsFetch(t *testing.T, srv *httptest.Server, method, path string, form url.Values) (int, any) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: %d %q is not JSON", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, v
}

func metricsKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Field lists of agno's pydantic models (os/routers/metrics/schemas.py)
// and of the dicts calculate_date_metrics writes (db/*/utils.py).
var (
	metricsResponseFields = []string{"metrics", "updated_at"}
	dayMetricsFields      = []string{"id", "agent_runs_count", "agent_sessions_count", "team_runs_count", "team_sessions_count",
		"workflow_runs_count", "workflow_sessions_count", "users_count", "token_metrics", "model_metrics", "date", "created_at", "updated_at"}
	tokenMetricsFields = []string{"input_tokens", "output_tokens", "total_tokens", "audio_total_tokens", "audio_input_tokens",
		"audio_output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"}
	modelMetricsFields = []string{"model_id", "model_provider", "count"}
)

func metricsSameKeys(t *testing.T, what string, got map[string]any, want []string) {
	t.Helper()
	w := slices.Clone(want)
	slices.Sort(w)
	if g := metricsKeys(got); !slices.Equal(g, w) {
		t.Errorf("%s keys %v, want %v", what, g, w)
	}
}

// checkDayShape checks one DayAggregatedMetrics: agno's keys, none null,
// datetimes as pydantic renders UTC ones.
func checkMetricsDayShape(t *testing.T, d map[string]any) {
	t.Helper()
	metricsSameKeys(t, "DayAggregatedMetrics", d, dayMetricsFields)
	for k, v := range d {
		if v == nil {
			t.Errorf("DayAggregatedMetrics.%s is null", k)
		}
	}
	metricsSameKeys(t, "token_metrics", d["token_metrics"].(map[string]any), tokenMetricsFields)
	for _, m := range d["model_metrics"].([]any) {
		metricsSameKeys(t, "model_metrics item", m.(map[string]any), modelMetricsFields)
	}
	for _, k := range []string{"date", "created_at", "updated_at"} {
		if _, err := time.Parse("2006-01-02T15:04:05Z", d[k].(string)); err != nil {
			t.Errorf("%s %q is not a UTC datetime: %v", k, d[k], err)
		}
	}
	if !strings.HasSuffix(d["date"].(string), "T00:00:00Z") {
		t.Errorf("date %q is not a day's midnight", d["date"])
	}
}

// Runs made over HTTP show in the metrics after a refresh: two agent runs
// (two users, two sessions) and one team run that delegated to a member.
func TestMetricsCountRunsMadeOverHTTP(t *testing.T) {
	_, srv, st := metricsOS(t)
	// Before any run: no rows, updated_at null.
	code, body := metricsFetch(t, srv, "GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /metrics = %d %v", code, body)
	}
	resp := body.(map[string]any)
	metricsSameKeys(t, "MetricsResponse", resp, metricsResponseFields)
	if m, ok := resp["metrics"].([]any); !ok || len(m) != 0 || resp["updated_at"] != nil {
		t.Errorf("empty metrics = %v", resp)
	}
	if code, body := metricsFetch(t, srv, "POST", "/metrics/refresh", nil); code != http.StatusOK || len(body.([]any)) != 0 {
		t.Errorf("refresh with nothing stored = %d %v, want 200 []", code, body)
	}

	for _, run := range []struct{ path, user string }{
		{"/agents/writer/runs", "u1"}, {"/agents/writer/runs", "u2"}, {"/teams/crew/runs", "u1"},
	} {
		code, body := metricsFetch(t, srv, "POST", run.path, url.Values{"message": {"hi"}, "stream": {"false"}, "user_id": {run.user}})
		if code != http.StatusOK {
			t.Fatalf("POST %s = %d %v", run.path, code, body)
		}
	}

	before := time.Now().Unix()
	code, body = metricsFetch(t, srv, "POST", "/metrics/refresh", nil)
	if code != http.StatusOK {
		t.Fatalf("POST /metrics/refresh = %d %v", code, body)
	}
	refreshed := body.([]any)
	if len(refreshed) != 1 {
		t.Fatalf("refreshed %d days, want today only: %v", len(refreshed), refreshed)
	}
	checkMetricsDayShape(t, refreshed[0].(map[string]any))

	code, body = metricsFetch(t, srv, "GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /metrics = %d %v", code, body)
	}
	resp = body.(map[string]any)
	metricsSameKeys(t, "MetricsResponse", resp, metricsResponseFields)
	days := resp["metrics"].([]any)
	if len(days) != 1 {
		t.Fatalf("GET /metrics lists %d days, want 1: %v", len(days), days)
	}
	day := days[0].(map[string]any)
	checkMetricsDayShape(t, day)
	if day["id"] != refreshed[0].(map[string]any)["id"] {
		t.Errorf("listed id %v, refreshed %v", day["id"], refreshed[0].(map[string]any)["id"])
	}
	today := time.Now().UTC().Format(time.DateOnly) + "T00:00:00Z"
	if day["date"] != today {
		t.Errorf("date %v, want %s", day["date"], today)
	}
	if up, _ := time.Parse("2006-01-02T15:04:05Z", resp["updated_at"].(string)); up.Unix() < before-1 || resp["updated_at"] != day["updated_at"] {
		t.Errorf("updated_at %v (day %v), want the refresh time", resp["updated_at"], day["updated_at"])
	}

	// The team session holds the team run and its member's run (agno's
	// team session keeps member runs): 2 team runs.
	wantCounts := map[string]float64{"agent_runs_count": 2, "agent_sessions_count": 2, "team_runs_count": 2, "team_sessions_count": 1,
		"workflow_runs_count": 0, "workflow_sessions_count": 0, "users_count": 2}
	for k, w := range wantCounts {
		if day[k] != w {
			t.Errorf("%s = %v, want %v", k, day[k], w)
		}
	}
	// Tokens are the sessions' accumulated metrics: each agent run made
	// one model call (11/7/18, 2 cached, 1 reasoning); the team session
	// holds what its run recorded, the leader's two calls.
	sessions, _, err := st.ListSessions(t.Context(), storage.SessionQuery{SessionType: storage.SessionTeam})
	if err != nil || len(sessions) != 1 || sessions[0].Metrics == nil || sessions[0].Metrics.TotalTokens != 36 {
		t.Fatalf("team sessions %v, %v: want one holding 36 tokens", sessions, err)
	}
	tokens, _ := json.Marshal(day["token_metrics"])
	if want := `{"audio_input_tokens":0,"audio_output_tokens":0,"audio_total_tokens":0,"cache_read_tokens":8,"cache_write_tokens":0,` +
		`"input_tokens":44,"output_tokens":28,"reasoning_tokens":4,"total_tokens":72}`; string(tokens) != want {
		t.Errorf("token_metrics %s, want %s", tokens, want)
	}
	// Runs per model, agent sessions first: the writer's two runs and the
	// team leader on gpt-4o, the member on gpt-4o-mini.
	models, _ := json.Marshal(day["model_metrics"])
	if want := `[{"count":3,"model_id":"gpt-4o","model_provider":"OpenAI"},{"count":1,"model_id":"gpt-4o-mini","model_provider":"OpenAI"}]`; string(models) != want {
		t.Errorf("model_metrics %s, want %s", models, want)
	}

	// A second refresh the same day recomputes today, keeping its id.
	code, body = metricsFetch(t, srv, "POST", "/metrics/refresh", nil)
	if code != http.StatusOK || len(body.([]any)) != 1 || body.([]any)[0].(map[string]any)["id"] != day["id"] {
		t.Errorf("second refresh = %d %v, want today's row again", code, body)
	}

	// Date range: a range before today lists nothing, one ending today
	// lists today.
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	code, body = metricsFetch(t, srv, "GET", "/metrics?ending_date="+yesterday, nil)
	if code != http.StatusOK || len(body.(map[string]any)["metrics"].([]any)) != 0 || body.(map[string]any)["updated_at"] != nil {
		t.Errorf("metrics through yesterday = %d %v, want none and updated_at null", code, body)
	}
	code, body = metricsFetch(t, srv, "GET", "/metrics?starting_date="+yesterday+"&ending_date="+time.Now().UTC().Format(time.DateOnly), nil)
	if code != http.StatusOK || len(body.(map[string]any)["metrics"].([]any)) != 1 {
		t.Errorf("metrics yesterday..today = %d %v, want today", code, body)
	}
}

func TestMetricsQueryValidation(t *testing.T) {
	_, srv, _ := metricsOS(t)
	for _, c := range []struct {
		query string
		code  int
		want  string
	}{
		{"starting_date=abc", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","starting_date"],"msg":"Input should be a valid date or datetime, input is too short","input":"abc"}]}`},
		{"starting_date=2025-13-01", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","starting_date"],"msg":"Input should be a valid date or datetime, month value is outside expected range of 1-12","input":"2025-13-01"}]}`},
		{"ending_date=2025-02-30", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","ending_date"],"msg":"Input should be a valid date or datetime, day value is outside expected range","input":"2025-02-30"}]}`},
		{"ending_date=2025/07/31", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","ending_date"],"msg":"Input should be a valid date or datetime, invalid date separator, expected ` + "`-`" + `","input":"2025/07/31"}]}`},
		{"ending_date=2025-07-31T10:00:00", 422, `{"detail":[{"type":"date_from_datetime_inexact","loc":["query","ending_date"],"msg":"Datetimes provided to dates should have zero time - e.g. be exact dates","input":"2025-07-31T10:00:00"}]}`},
		{"starting_date=x&ending_date=", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","starting_date"],"msg":"Input should be a valid date or datetime, input is too short","input":"x"},` +
			`{"type":"date_from_datetime_parsing","loc":["query","ending_date"],"msg":"Input should be a valid date or datetime, input is too short","input":""}]}`},
		// Bad dates are reported before a bad db_id, as FastAPI validates first.
		{"starting_date=abc&db_id=other", 422, `{"detail":[{"type":"date_from_datetime_parsing","loc":["query","starting_date"],"msg":"Input should be a valid date or datetime, input is too short","input":"abc"}]}`},
		{"starting_date=2025-07-31T00:00:00Z&ending_date=2025-08-01", 200, `{"metrics":[],"updated_at":null}`},
		{"starting_date=1753920000", 200, `{"metrics":[],"updated_at":null}`},
		{"db_id=other", 404, `{"detail":"No database found with id 'other'"}`},
		{"table=agno_metrics", 400, `{"detail":"The db_id query parameter is required when passing a table"}`},
		{"db_id=agno-db&table=agno_sessions", 404, `{"detail":"No database with id 'agno-db' has table 'agno_sessions'"}`},
		{"db_id=agno-db&table=agno_metrics", 200, `{"metrics":[],"updated_at":null}`},
	} {
		resp, err := srv.Client().Get(srv.URL + "/metrics?" + c.query)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || string(raw) != c.want {
			t.Errorf("GET /metrics?%s = %d %s\nwant %d %s", c.query, resp.StatusCode, raw, c.code, c.want)
		}
	}
	if code, body := metricsFetch(t, srv, "POST", "/metrics/refresh?db_id=other", nil); code != 404 {
		t.Errorf("refresh with an unknown db_id = %d %v", code, body)
	}
}

// Without a db, agno answers 503 for the metrics routes.
func TestMetricsWithoutDB(t *testing.T) {
	o, err := New(Config{Agents: []*agent.Agent{newAgent(t, agent.Config{Name: "a"})}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	for _, m := range []string{"GET /metrics", "POST /metrics/refresh"} {
		method, path, _ := strings.Cut(m, " ")
		code, body := metricsFetch(t, srv, method, path, nil)
		if want := "Metrics not available: pass a `db` to AgentOS to enable this feature."; code != 503 || body.(map[string]any)["detail"] != want {
			t.Errorf("%s = %d %v, want 503 %q", m, code, body, want)
		}
	}
}

// The background refresh fills the table without a POST and stops at
// Close (TestMain checks no goroutine is left).
func TestMetricsBackgroundRefresh(t *testing.T) {
	_, srv, _ := metricsOS(t, 20*time.Millisecond)
	if code, body := metricsFetch(t, srv, "POST", "/agents/writer/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "user_id": {"u1"}}); code != 200 {
		t.Fatalf("run = %d %v", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := metricsFetch(t, srv, "GET", "/metrics", nil)
		days := body.(map[string]any)["metrics"].([]any)
		if len(days) == 1 && days[0].(map[string]any)["agent_runs_count"] == float64(1) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("background refresh did not run: %v", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
