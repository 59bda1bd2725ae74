package agentos_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/tool"
)

// The fields of agno's pydantic models (os/routers/schedules/schema.py),
// each true when it may be null.
var (
	scheduleResponseFields = map[string]bool{
		"id": false, "name": false, "description": true, "method": false, "endpoint": false, "payload": true,
		"cron_expr": false, "timezone": false, "timeout_seconds": false, "max_retries": false, "retry_delay_seconds": false,
		"enabled": false, "next_run_at": true, "created_at": true, "updated_at": true,
	}
	scheduleRunResponseFields = map[string]bool{
		"id": false, "schedule_id": false, "attempt": false, "triggered_at": true, "completed_at": true, "status": false,
		"status_code": true, "run_id": true, "session_id": true, "error": true, "input": true, "output": true,
		"requirements": true, "created_at": true,
	}
	scheduleStateFields = map[string]bool{"id": false, "name": false, "enabled": false, "next_run_at": true, "updated_at": true}
	scheduleMetaFields  = map[string]bool{"page": false, "limit": false, "total_pages": false, "total_count": false, "search_time_ms": false}
)

// wantScheduleShape checks v's exact key set against a model's fields, and that
// each null is of an Optional field; nulls lists the keys expected null.
func wantScheduleShape(t *testing.T, what string, v any, fields map[string]bool, nulls ...string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %v", what, v)
	}
	var got, want []string
	for k := range m {
		got = append(got, k)
	}
	for k := range fields {
		want = append(want, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s keys:\n got %v\nwant %v", what, got, want)
	}
	isNull := map[string]bool{}
	for _, k := range nulls {
		isNull[k] = true
	}
	for k, v := range m {
		if (v == nil) != isNull[k] {
			t.Errorf("%s.%s = %v, want null: %v", what, k, v, isNull[k])
		}
		if v == nil && !fields[k] {
			t.Errorf("%s.%s is null but not Optional in agno's model", what, k)
		}
	}
}

type scheduleEnv struct {
	srv  *httptest.Server
	os   *agentos.OS
	db   *sqldb.DB
	sent *atomic.Int32
	// prompts the reporter's model received.
	prompts chan string
}

// scheduleOS serves a reporter agent (a fake OpenAI-compatible model) and
// a mail agent whose tool pauses for confirmation, with db as the control
// plane.
func scheduleOS(t *testing.T, db *sqldb.DB, edit func(*agentos.Config)) *scheduleEnv {
	t.Helper()
	env := &scheduleEnv{db: db, sent: new(atomic.Int32), prompts: make(chan string, 16)}
	store := memory.New()
	reporter, err := agent.New(agent.Config{ID: "reporter", Name: "Reporter", Store: store, Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1].Content
		select {
		case env.prompts <- last:
		default:
		}
		return modeltest.Response{Content: "Report: " + last}
	})})
	if err != nil {
		t.Fatal(err)
	}
	send, m := mailParts(env.sent)
	mail, err := agent.New(agent.Config{ID: "mail-agent", Name: "Mail Agent", Model: m, Tools: []tool.Provider{send}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agentos.Config{Agents: []*agent.Agent{reporter, mail}, Store: store, DB: db,
		Scheduler: agentos.SchedulerConfig{Enabled: true, PollInterval: time.Hour}, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.os = o
	env.srv = httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		env.srv.Close()
		_ = o.Close()
	})
	return env
}

func scheduleLeaks(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}

// End to end: a schedule of an agent run, triggered, runs the agent
// through AgentOS (a background run, followed to its end) and is
// recorded; the agent's run is stored COMPLETED.
func TestScheduleTriggerRunsAgent(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		scheduleLeaks(t)
		env := scheduleOS(t, db, nil)
		created := obj(mustCall(t, env.srv, 201, "POST", "/schedules", map[string]any{
			"name": "Daily report", "cron_expr": "0 9 * * *", "endpoint": "/agents/reporter/runs",
			"payload": map[string]any{"message": "summarise the day", "session_id": "sched-session", "stream": true, "version": "3"},
		}))
		wantScheduleShape(t, "ScheduleResponse", created, scheduleResponseFields, "description", "updated_at")
		if created["method"] != "POST" || created["timezone"] != "UTC" || created["timeout_seconds"] != 3600.0 || created["max_retries"] != 0.0 ||
			created["retry_delay_seconds"] != 60.0 || created["enabled"] != true {
			t.Fatalf("defaults: %v", created)
		}
		id := created["id"].(string)
		next := int64(created["next_run_at"].(float64))
		if now := time.Now().Unix(); next <= now || next > now+86400 {
			t.Fatalf("next_run_at %d, now %d", next, now)
		}

		fired := obj(mustCall(t, env.srv, 200, "POST", "/schedules/"+id+"/trigger", nil))
		wantScheduleShape(t, "ScheduleRunResponse", fired, scheduleRunResponseFields, "error", "requirements")
		if fired["status"] != "success" || fired["status_code"] != 200.0 || fired["attempt"] != 1.0 || fired["schedule_id"] != id ||
			fired["session_id"] != "sched-session" || fired["run_id"] == "" {
			t.Fatalf("trigger: %v", fired)
		}
		if out := obj(fired["output"]); out["content"] != "Report: summarise the day" || out["content_type"] != "str" {
			t.Fatalf("output %v", fired["output"])
		}
		if got := <-env.prompts; got != "summarise the day" {
			t.Fatalf("the agent got %q", got)
		}
		runID := fired["run_id"].(string)
		stored := obj(mustCall(t, env.srv, 200, "GET", "/agents/reporter/runs/"+runID+"?session_id=sched-session", nil))
		if stored["status"] != "COMPLETED" || stored["content"] != "Report: summarise the day" {
			t.Fatalf("stored run %v", stored)
		}

		page := obj(mustCall(t, env.srv, 200, "GET", "/schedules/"+id+"/runs", nil))
		wantScheduleShape(t, "PaginationInfo", page["meta"], scheduleMetaFields)
		if meta := obj(page["meta"]); meta["total_count"] != 1.0 || meta["page"] != 1.0 || meta["limit"] != 100.0 || meta["total_pages"] != 1.0 {
			t.Fatalf("meta %v", meta)
		}
		runs := list(page["data"])
		if len(runs) != 1 || obj(runs[0])["id"] != fired["id"] || obj(runs[0])["status"] != "success" {
			t.Fatalf("runs %v", runs)
		}
		one := obj(mustCall(t, env.srv, 200, "GET", "/schedules/"+id+"/runs/"+fired["id"].(string), nil))
		if one["run_id"] != runID || one["completed_at"] == nil {
			t.Fatalf("run %v", one)
		}
		mustCall(t, env.srv, 404, "GET", "/schedules/"+id+"/runs/nope", nil)

		// A paused run ends the schedule run paused, with its requirements.
		mail := obj(mustCall(t, env.srv, 201, "POST", "/schedules", map[string]any{
			"name": "mailer", "cron_expr": "@daily", "endpoint": "/agents/mail-agent/runs", "payload": map[string]any{"message": "send the email"},
		}))
		paused := obj(mustCall(t, env.srv, 200, "POST", "/schedules/"+mail["id"].(string)+"/trigger", nil))
		if paused["status"] != "paused" || len(list(paused["requirements"])) != 1 || env.sent.Load() != 0 {
			t.Fatalf("paused: %v", paused)
		}
		pausedRun := obj(mustCall(t, env.srv, 200, "GET", "/agents/mail-agent/runs/"+paused["run_id"].(string)+"?session_id="+paused["session_id"].(string), nil))
		if pausedRun["status"] != "PAUSED" {
			t.Fatalf("stored %v", pausedRun["status"])
		}

		// A non-run endpoint is a plain request; a failing one is recorded
		// failed with the answer.
		health := obj(mustCall(t, env.srv, 201, "POST", "/schedules", map[string]any{"name": "health", "cron_expr": "* * * * *", "endpoint": "/health", "method": "get"}))
		if h := obj(mustCall(t, env.srv, 200, "POST", "/schedules/"+health["id"].(string)+"/trigger", nil)); h["status"] != "success" || h["status_code"] != 200.0 || h["run_id"] != nil {
			t.Fatalf("health: %v", h)
		}
		missing := obj(mustCall(t, env.srv, 201, "POST", "/schedules", map[string]any{"name": "ghost", "cron_expr": "* * * * *", "endpoint": "/agents/ghost/runs",
			"payload": map[string]any{"message": "x"}}))
		if g := obj(mustCall(t, env.srv, 200, "POST", "/schedules/"+missing["id"].(string)+"/trigger", nil)); g["status"] != "failed" || g["status_code"] != 404.0 ||
			!strings.Contains(fmt.Sprint(g["error"]), "Agent not found") {
			t.Fatalf("ghost: %v", g)
		}
	})
}

// The poller fires a due schedule on its own, once per due time.
func TestSchedulePollerFiresDueSchedule(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		scheduleLeaks(t)
		env := scheduleOS(t, db, func(c *agentos.Config) { c.Scheduler.PollInterval = 20 * time.Millisecond })
		created := obj(mustCall(t, env.srv, 201, "POST", "/schedules", map[string]any{
			// Yearly: the next due time after the forced one is far away,
			// so a second firing here is a double claim, not a minute
			// boundary crossed during the test.
			"name": "tick", "cron_expr": "0 0 1 1 *", "endpoint": "/agents/reporter/runs", "payload": map[string]any{"message": "tick"},
		}))
		id := created["id"].(string)
		// Make it due now (the API only sets times in the future).
		if _, err := db.Exec(context.Background(), `UPDATE {t:agno_schedules} SET next_run_at = ? WHERE id = ?`, time.Now().Unix(), id); err != nil {
			t.Fatal(err)
		}
		var runs []any
		deadline := time.Now().Add(15 * time.Second)
		for {
			runs = list(obj(mustCall(t, env.srv, 200, "GET", "/schedules/"+id+"/runs", nil))["data"])
			if len(runs) == 1 && obj(runs[0])["status"] == "success" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not fired: %v", runs)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // ten more polls
		if n := len(list(obj(mustCall(t, env.srv, 200, "GET", "/schedules/"+id+"/runs", nil))["data"])); n != 1 {
			t.Fatalf("fired %d times for one due time", n)
		}
		s := obj(mustCall(t, env.srv, 200, "GET", "/schedules/"+id, nil))
		if next := int64(s["next_run_at"].(float64)); next <= time.Now().Unix() {
			t.Fatalf("next_run_at %d not moved on", next)
		}
	})
}

func TestScheduleCRUDAndValidation(t *testing.T) {
	scheduleLeaks(t)
	env := scheduleOS(t, sqldbtest.SQLite(t), func(c *agentos.Config) { c.Scheduler.Enabled = false })
	srv := env.srv
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "nightly", "cron_expr": "0 3 * * *", "endpoint": "/agents/reporter/runs"}
		for k, v := range extra {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	detail := func(v any) map[string]any { return obj(list(obj(v)["detail"])[0]) }

	// Pydantic's 422s, one per bad field.
	for _, tc := range []struct {
		body      map[string]any
		loc, typ  string
		msgPrefix string
	}{
		{body(map[string]any{"name": nil}), "name", "missing", "Field required"},
		{body(map[string]any{"name": "-bad"}), "name", "value_error", "Value error, Name must start with alphanumeric"},
		{body(map[string]any{"name": "a/b"}), "name", "value_error", "Value error, Name must start"},
		{body(map[string]any{"name": strings.Repeat("n", 256)}), "name", "string_too_long", "String should have at most 255 characters"},
		{body(map[string]any{"name": 7}), "name", "string_type", "Input should be a valid string"},
		{body(map[string]any{"cron_expr": nil}), "cron_expr", "missing", "Field required"},
		{body(map[string]any{"endpoint": "agents/x/runs"}), "endpoint", "value_error", "Value error, Endpoint must start with '/'"},
		{body(map[string]any{"endpoint": "/http://evil"}), "endpoint", "value_error", "Value error, Endpoint must be a path, not a full URL"},
		{body(map[string]any{"method": "TRACE"}), "method", "value_error", "Value error, Method must be GET, POST, PUT, PATCH, or DELETE"},
		{body(map[string]any{"payload": "text"}), "payload", "dict_type", "Input should be a valid dictionary"},
		{body(map[string]any{"timeout_seconds": 0}), "timeout_seconds", "greater_than_equal", "Input should be greater than or equal to 1"},
		{body(map[string]any{"timeout_seconds": 86401}), "timeout_seconds", "less_than_equal", "Input should be less than or equal to 86400"},
		{body(map[string]any{"max_retries": 11}), "max_retries", "less_than_equal", "Input should be less than or equal to 10"},
		{body(map[string]any{"retry_delay_seconds": 1.5}), "retry_delay_seconds", "int_from_float", "Input should be a valid integer"},
		{body(map[string]any{"max_retries": "many"}), "max_retries", "int_parsing", "Input should be a valid integer"},
	} {
		d := detail(mustCall(t, srv, 422, "POST", "/schedules", tc.body))
		if fmt.Sprint(d["loc"]) != fmt.Sprint([]any{"body", tc.loc}) || d["type"] != tc.typ || !strings.HasPrefix(fmt.Sprint(d["msg"]), tc.msgPrefix) {
			t.Errorf("%v: got %v", tc.body, d)
		}
	}
	if d := detail(mustCall(t, srv, 422, "POST", "/schedules", body(map[string]any{"name": "-x"}))); d["input"] != "-x" || fmt.Sprint(d["ctx"]) != "map[error:map[]]" {
		t.Errorf("value_error input/ctx: %v", d)
	}
	if d := obj(mustCall(t, srv, 422, "POST", "/schedules", map[string]any{})); len(list(d["detail"])) != 3 {
		t.Errorf("an empty body names its three required fields: %v", d)
	}
	mustCall(t, srv, 422, "POST", "/schedules", nil)
	mustCall(t, srv, 422, "POST", "/schedules", "[1]")
	// agno's own 422s (a string detail) for cron and timezone.
	if d := obj(mustCall(t, srv, 422, "POST", "/schedules", body(map[string]any{"cron_expr": "every day"}))); d["detail"] != "Invalid cron expression: every day" {
		t.Errorf("cron: %v", d)
	}
	if d := obj(mustCall(t, srv, 422, "POST", "/schedules", body(map[string]any{"timezone": "Mars/Base"}))); d["detail"] != "Invalid timezone: Mars/Base" {
		t.Errorf("tz: %v", d)
	}
	if n := obj(mustCall(t, srv, 200, "GET", "/schedules", nil))["meta"].(map[string]any)["total_count"]; n != 0.0 {
		t.Fatalf("a refused create stored something: %v", n)
	}

	a := obj(mustCall(t, srv, 201, "POST", "/schedules", body(map[string]any{"name": "Nightly run 1", "timezone": "Europe/Paris",
		"method": "post", "description": "nightly", "max_retries": 2, "payload": map[string]any{"message": "hi"}})))
	wantScheduleShape(t, "ScheduleResponse", a, scheduleResponseFields, "updated_at")
	if a["method"] != "POST" || a["timezone"] != "Europe/Paris" || a["max_retries"] != 2.0 {
		t.Fatalf("created %v", a)
	}
	id := a["id"].(string)
	if d := obj(mustCall(t, srv, 409, "POST", "/schedules", body(map[string]any{"name": "Nightly run 1"}))); d["detail"] != "Schedule with name 'Nightly run 1' already exists" {
		t.Errorf("409: %v", d)
	}
	b := obj(mustCall(t, srv, 201, "POST", "/schedules", body(map[string]any{"name": "b", "cron_expr": "*/10 * * * *"})))
	wantScheduleShape(t, "ScheduleResponse", b, scheduleResponseFields, "description", "payload", "updated_at")

	// GET, PATCH.
	wantScheduleShape(t, "ScheduleResponse", mustCall(t, srv, 200, "GET", "/schedules/"+id, nil), scheduleResponseFields, "updated_at")
	if d := obj(mustCall(t, srv, 404, "GET", "/schedules/nope", nil)); d["detail"] != "Schedule not found" {
		t.Errorf("404: %v", d)
	}
	up := obj(mustCall(t, srv, 200, "PATCH", "/schedules/"+id, map[string]any{"cron_expr": "0 * * * *", "description": nil, "payload": nil}))
	wantScheduleShape(t, "ScheduleResponse", up, scheduleResponseFields, "description", "payload")
	if up["cron_expr"] != "0 * * * *" || up["next_run_at"].(float64) > float64(time.Now().Unix()+3600) {
		t.Fatalf("patched %v", up)
	}
	if same := obj(mustCall(t, srv, 200, "PATCH", "/schedules/"+id, map[string]any{})); same["updated_at"] != up["updated_at"] {
		t.Errorf("an empty patch changed the schedule: %v", same)
	}
	if d := detail(mustCall(t, srv, 422, "PATCH", "/schedules/"+id, map[string]any{"name": nil})); d["msg"] != "Value error, 'name' cannot be set to null" ||
		fmt.Sprint(d["loc"]) != "[body]" {
		t.Errorf("null name: %v", d)
	}
	mustCall(t, srv, 422, "PATCH", "/schedules/nope", map[string]any{"name": nil}) // the body is checked first
	if d := obj(mustCall(t, srv, 409, "PATCH", "/schedules/"+id, map[string]any{"name": "b"})); d["detail"] != "Schedule with name 'b' already exists" {
		t.Errorf("rename 409: %v", d)
	}
	if d := obj(mustCall(t, srv, 422, "PATCH", "/schedules/"+id, map[string]any{"timezone": "Nope/Nope"})); d["detail"] != "Invalid timezone: Nope/Nope" {
		t.Errorf("patch tz: %v", d)
	}
	mustCall(t, srv, 404, "PATCH", "/schedules/nope", map[string]any{"name": "x"})

	// Disable, enable, trigger without the poller.
	off := obj(mustCall(t, srv, 200, "POST", "/schedules/"+id+"/disable", nil))
	wantScheduleShape(t, "ScheduleStateResponse", off, scheduleStateFields)
	if off["enabled"] != false {
		t.Fatalf("disable %v", off)
	}
	if d := obj(mustCall(t, srv, 409, "POST", "/schedules/"+id+"/trigger", nil)); d["detail"] != "Schedule is disabled" {
		t.Errorf("trigger disabled: %v", d)
	}
	on := obj(mustCall(t, srv, 200, "POST", "/schedules/"+id+"/enable", nil))
	if on["enabled"] != true || on["next_run_at"] == nil {
		t.Fatalf("enable %v", on)
	}
	if d := obj(mustCall(t, srv, 503, "POST", "/schedules/"+id+"/trigger", nil)); d["detail"] != "Scheduler is not running" {
		t.Errorf("trigger without the poller: %v", d)
	}
	mustCall(t, srv, 404, "POST", "/schedules/nope/enable", nil)

	// List: filter and pages.
	mustCall(t, srv, 200, "POST", "/schedules/"+b["id"].(string)+"/disable", nil)
	page := obj(mustCall(t, srv, 200, "GET", "/schedules?enabled=true", nil))
	if data := list(page["data"]); len(data) != 1 || obj(data[0])["id"] != id {
		t.Fatalf("enabled: %v", page)
	}
	wantScheduleShape(t, "ScheduleResponse", list(page["data"])[0], scheduleResponseFields, "description", "payload")
	page = obj(mustCall(t, srv, 200, "GET", "/schedules?limit=1&page=2", nil))
	if meta := obj(page["meta"]); meta["total_count"] != 2.0 || meta["total_pages"] != 2.0 || len(list(page["data"])) != 1 || meta["search_time_ms"] != 0.0 {
		t.Fatalf("page 2: %v", page)
	}
	for _, q := range []string{"enabled=maybe", "limit=0", "limit=1001", "page=0", "limit=x"} {
		mustCall(t, srv, 422, "GET", "/schedules?"+q, nil)
	}
	mustCall(t, srv, 422, "GET", "/schedules/"+id+"/runs?limit=0", nil)
	mustCall(t, srv, 404, "GET", "/schedules/nope/runs", nil)

	// Delete: 204, then gone.
	if code, v := call(t, srv, "DELETE", "/schedules/"+id, nil); code != 204 || v != nil {
		t.Fatalf("delete: %d %v", code, v)
	}
	mustCall(t, srv, 404, "DELETE", "/schedules/"+id, nil)
	mustCall(t, srv, 404, "GET", "/schedules/"+id, nil)
}

// The schedule routes need a DB (agno's 503); with one, the poller
// fires through the auth of the mode AgentOS runs in: the security key,
// JWT (as the caller that made the schedule, through the same scope check).
func TestScheduleAuthModes(t *testing.T) {
	scheduleLeaks(t)
	t.Run("security key", func(t *testing.T) {
		env := scheduleOS(t, sqldbtest.SQLite(t), func(c *agentos.Config) { c.SecurityKey = "the-key" })
		r := (&jwtOS{srv: env.srv}).call(t, "", "GET", "/schedules", nil)
		if r.status != 401 {
			t.Fatalf("no key: %d", r.status)
		}
		j := &jwtOS{srv: env.srv}
		s := j.ok(t, "the-key", "POST", "/schedules", map[string]any{"name": "k", "cron_expr": "@hourly", "endpoint": "/agents/reporter/runs", "payload": map[string]any{"message": "keyed"}})
		if fired := j.ok(t, "the-key", "POST", "/schedules/"+s["id"].(string)+"/trigger", nil); fired["status"] != "success" {
			t.Fatalf("trigger with a key: %v", fired)
		}
	})
	t.Run("jwt", func(t *testing.T) {
		env := scheduleOS(t, sqldbtest.SQLite(t), func(c *agentos.Config) {
			c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
		})
		j := &jwtOS{srv: env.srv}
		admin := tokenFor(t, "root", auth.DefaultAdminScope)
		s := j.ok(t, admin, "POST", "/schedules", map[string]any{"name": "j", "cron_expr": "@hourly", "endpoint": "/agents/reporter/runs", "payload": map[string]any{"message": "jwt"}})
		if fired := j.ok(t, admin, "POST", "/schedules/"+s["id"].(string)+"/trigger", nil); fired["status"] != "success" {
			t.Fatalf("trigger in JWT mode: %v", fired)
		}
		// A scheduler may only fire what it may run itself.
		writer := tokenFor(t, "alice", "schedules:write", "schedules:read")
		if r := j.call(t, writer, "POST", "/schedules", map[string]any{"name": "w", "cron_expr": "@hourly", "endpoint": "/agents/reporter/runs"}); r.status != 403 ||
			!strings.Contains(r.body, "agents:run") {
			t.Fatalf("without agents:run: %d %s", r.status, r.body)
		}
		runner := tokenFor(t, "alice", "schedules:write", "schedules:read", "agents:reporter:run")
		if r := j.call(t, runner, "POST", "/schedules", map[string]any{"name": "h", "cron_expr": "@hourly", "endpoint": "/health", "method": "GET"}); r.status != 403 ||
			!strings.Contains(r.body, "Only admins can schedule an endpoint that is not a run endpoint") {
			t.Fatalf("non-run endpoint: %d %s", r.status, r.body)
		}
		own := j.ok(t, runner, "POST", "/schedules", map[string]any{"name": "mine", "cron_expr": "@hourly", "endpoint": "/agents/reporter/runs",
			"payload": map[string]any{"message": "m", "user_id": "bob"}})
		if obj(own["payload"])["user_id"] != "alice" {
			t.Fatalf("an isolated caller's schedule runs as someone else: %v", own["payload"])
		}
		if r := j.call(t, tokenFor(t, "alice", "schedules:read"), "POST", "/schedules", map[string]any{}); r.status != 403 {
			t.Fatalf("without schedules:write: %d", r.status)
		}
	})
	t.Run("no db", func(t *testing.T) {
		a, _ := agent.New(agent.Config{Name: "x", Model: modeltest.New()})
		o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(o.Handler())
		defer func() { srv.Close(); o.Close() }()
		if d := obj(mustCall(t, srv, 503, "GET", "/schedules", nil)); !strings.HasPrefix(fmt.Sprint(d["detail"]), "Schedules not available") {
			t.Fatalf("no db: %v", d)
		}
	})
}

func TestScheduleConfigChecks(t *testing.T) {
	a, _ := agent.New(agent.Config{Name: "x", Model: modeltest.New()})
	_, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: memory.New(), DB: sqldbtest.SQLite(t),
		Scheduler: agentos.SchedulerConfig{Enabled: true, PollInterval: -time.Second}, Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "poll_interval_seconds") {
		t.Fatalf("negative interval: %v", err)
	}
}
