package agentos_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// jwtSchedules serves the schedule OS in JWT mode (isolation as given).
func jwtSchedules(t *testing.T, db *sqldb.DB, isolation bool) (*scheduleEnv, *jwtOS) {
	t.Helper()
	env := scheduleOS(t, db, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: isolation}
		c.Scheduler.PollInterval = 20 * time.Millisecond
	})
	return env, &jwtOS{srv: env.srv}
}

// sessionRuns counts the runs of a session the token's user sees.
func sessionRuns(t *testing.T, j *jwtOS, token, sessionID string) int {
	t.Helper()
	r := j.call(t, token, "GET", "/sessions/"+url.PathEscape(sessionID)+"/runs?type=agent", nil)
	if r.status == 404 {
		return 0
	}
	if r.status != 200 {
		t.Fatalf("runs of %s: %d %s", sessionID, r.status, r.body)
	}
	l, _ := r.json(t).([]any)
	return len(l)
}

// firedOnce makes the schedule due now and waits for the poller's
// attempt, read from the control-plane table.
func firedOnce(t *testing.T, env *scheduleEnv, id string) map[string]any {
	t.Helper()
	ctx := context.Background()
	if _, err := env.db.Exec(ctx, `UPDATE {t:agno_schedules} SET next_run_at = ? WHERE id = ?`, time.Now().Unix(), id); err != nil {
		t.Fatal(err)
	}
	st, err := schedule.NewStore(ctx, env.db)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		runs, _, err := st.ListRuns(ctx, id, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].Status != schedule.StatusRunning {
			r := runs[0]
			out := map[string]any{"status": r.Status}
			if r.Error != nil {
				out["error"] = *r.Error
			}
			if r.SessionID != nil {
				out["session_id"] = *r.SessionID
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("schedule %s not fired: %v", id, runs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A schedule fires as the user who made it: bob cannot schedule runs into
// alice's session, neither when he creates the schedule nor by naming a
// session that only later becomes hers; what fires is admitted as bob.
func TestScheduleFiresAsItsOwner(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		scheduleLeaks(t)
		env, j := jwtSchedules(t, db, true)
		alice := tokenFor(t, "alice", "agents:run", "sessions:read")
		bob := tokenFor(t, "bob", "agents:run", "sessions:read", "schedules:write", "schedules:read")
		j.ok(t, alice, "POST", "/agents/reporter/runs", url.Values{"message": {"alice's secret plan"}, "stream": {"false"}, "session_id": {"alice-s"}})

		r := j.call(t, bob, "POST", "/schedules", map[string]any{"name": "spy", "cron_expr": "@yearly", "endpoint": "/agents/reporter/runs",
			"payload": map[string]any{"message": "what did we discuss?", "session_id": "alice-s"}})
		if r.status != 404 || !strings.Contains(r.body, "payload.session_id") {
			t.Fatalf("bob schedules into alice's session: %d %s", r.status, r.body)
		}
		// A session id nobody has yet passes the check; alice then takes it:
		// when the poller fires bob's schedule it is bob's request again,
		// and refused (a trigger by bob is refused before it fires).
		late := j.ok(t, bob, "POST", "/schedules", map[string]any{"name": "late", "cron_expr": "@yearly", "endpoint": "/agents/reporter/runs",
			"payload": map[string]any{"message": "what did we discuss?", "session_id": "alice-later"}})
		lateID := late["id"].(string)
		j.ok(t, alice, "POST", "/agents/reporter/runs", url.Values{"message": {"alice again"}, "stream": {"false"}, "session_id": {"alice-later"}})
		if r := j.call(t, bob, "POST", "/schedules/"+lateID+"/trigger", nil); r.status != 404 {
			t.Fatalf("bob triggers into alice's session: %d %s", r.status, r.body)
		}
		fired := firedOnce(t, env, lateID)
		if fired["status"] != "failed" || !strings.Contains(fmt.Sprint(fired["error"]), "Session not found") {
			t.Fatalf("bob's schedule into alice's later session: %v", fired)
		}
		if n := sessionRuns(t, j, alice, "alice-later"); n != 1 {
			t.Fatalf("alice's session has %d runs, want only hers", n)
		}

		// Bob's own schedule runs as bob, whatever user_id its payload says.
		own := j.ok(t, bob, "POST", "/schedules", map[string]any{"name": "own", "cron_expr": "@yearly", "endpoint": "/agents/reporter/runs",
			"payload": map[string]any{"message": "bob's digest", "user_id": "alice"}})
		fired = firedOnce(t, env, own["id"].(string))
		if fired["status"] != "success" {
			t.Fatalf("bob's own schedule: %v", fired)
		}
		sid, _ := fired["session_id"].(string)
		if n := sessionRuns(t, j, bob, sid); n != 1 {
			t.Fatalf("bob's schedule run is not in bob's session %q: %d", sid, n)
		}
		if n := sessionRuns(t, j, alice, sid); n != 0 {
			t.Fatalf("bob's scheduled run is alice's: %d", n)
		}
	})
}

// Schedules are owned: under isolation another user neither sees, nor
// changes, nor fires, nor reads the runs of a schedule that is not his;
// an admin sees them all.
func TestScheduleOwnership(t *testing.T) {
	scheduleLeaks(t)
	_, j := jwtSchedules(t, sqldbtest.SQLite(t), true)
	admin := tokenFor(t, "root", auth.DefaultAdminScope)
	alice := tokenFor(t, "alice", "agents:run", "schedules:write", "schedules:read", "schedules:delete")
	bob := tokenFor(t, "bob", "agents:run", "schedules:write", "schedules:read", "schedules:delete")
	wipe := j.ok(t, admin, "POST", "/schedules", map[string]any{"name": "nightly-wipe", "cron_expr": "@yearly", "endpoint": "/sessions", "method": "DELETE",
		"payload": map[string]any{"session_ids": []string{"ops-log"}}})
	mine := j.ok(t, alice, "POST", "/schedules", map[string]any{"name": "alice-digest", "cron_expr": "@yearly", "endpoint": "/agents/reporter/runs",
		"payload": map[string]any{"message": "digest"}})
	fired := j.ok(t, alice, "POST", "/schedules/"+mine["id"].(string)+"/trigger", nil)
	runID := fired["id"].(string)

	for _, id := range []string{wipe["id"].(string), mine["id"].(string)} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/schedules/" + id, nil},
			{"PATCH", "/schedules/" + id, map[string]any{"cron_expr": "* * * * *", "payload": map[string]any{"session_ids": []string{"alice-s"}}}},
			{"POST", "/schedules/" + id + "/enable", nil},
			{"POST", "/schedules/" + id + "/disable", nil},
			{"POST", "/schedules/" + id + "/trigger", nil},
			{"GET", "/schedules/" + id + "/runs", nil},
			{"GET", "/schedules/" + id + "/runs/" + runID, nil},
			{"DELETE", "/schedules/" + id, nil},
		} {
			if r := j.call(t, bob, c.method, c.path, c.body); r.status != 404 {
				t.Errorf("bob %s %s: %d %s", c.method, c.path, r.status, r.body)
			}
		}
	}
	if l := j.ok(t, bob, "GET", "/schedules", nil); len(l["data"].([]any)) != 0 {
		t.Errorf("bob lists others' schedules: %v", l["data"])
	}
	if l := j.ok(t, alice, "GET", "/schedules", nil); len(l["data"].([]any)) != 1 || obj(l["meta"])["total_count"] != 1.0 {
		t.Errorf("alice's list: %v", l)
	}
	if l := j.ok(t, admin, "GET", "/schedules", nil); len(l["data"].([]any)) != 2 {
		t.Errorf("the admin's list: %v", l["data"])
	}
	if got := j.ok(t, admin, "GET", "/schedules/"+wipe["id"].(string), nil); got["cron_expr"] != "@yearly" || got["endpoint"] != "/sessions" {
		t.Errorf("the admin's schedule changed: %v", got)
	}
}

// Without isolation a user may change another's schedule, but every
// change is checked as a creation by that user, and the schedule then
// fires as that user: bob cannot turn an admin's DELETE /sessions
// schedule onto alice's session.
func TestScheduleChangesRecheck(t *testing.T) {
	scheduleLeaks(t)
	_, j := jwtSchedules(t, sqldbtest.SQLite(t), false)
	admin := tokenFor(t, "root", auth.DefaultAdminScope)
	bob := tokenFor(t, "bob", "agents:reporter:run", "schedules:write", "schedules:read")
	wipe := j.ok(t, admin, "POST", "/schedules", map[string]any{"name": "nightly-wipe", "cron_expr": "@yearly", "endpoint": "/sessions", "method": "DELETE",
		"payload": map[string]any{"session_ids": []string{"ops-log"}}})
	id := wipe["id"].(string)
	for _, patch := range []map[string]any{
		{"payload": map[string]any{"session_ids": []string{"alice-s"}}},
		{"cron_expr": "* * * * *"},
		{"name": "renamed"},
	} {
		if r := j.call(t, bob, "PATCH", "/schedules/"+id, patch); r.status != 403 || !strings.Contains(r.body, "Only admins") {
			t.Errorf("bob PATCH %v: %d %s", patch, r.status, r.body)
		}
	}
	if r := j.call(t, bob, "POST", "/schedules/"+id+"/enable", nil); r.status != 403 {
		t.Errorf("bob enables the admin's schedule: %d %s", r.status, r.body)
	}
	if r := j.call(t, bob, "POST", "/schedules/"+id+"/trigger", nil); r.status != 403 {
		t.Errorf("bob fires the admin's schedule: %d %s", r.status, r.body)
	}
	if got := j.ok(t, admin, "GET", "/schedules/"+id, nil); got["cron_expr"] != "@yearly" || fmt.Sprint(got["payload"]) != "map[session_ids:[ops-log]]" {
		t.Errorf("the admin's schedule changed: %v", got)
	}
	// Bob's change of a schedule he may run makes it fire as bob, with
	// bob's scopes: moving it to an agent he may not run is refused.
	digest := j.ok(t, admin, "POST", "/schedules", map[string]any{"name": "digest", "cron_expr": "@yearly", "endpoint": "/agents/reporter/runs"})
	if r := j.call(t, bob, "PATCH", "/schedules/"+digest["id"].(string), map[string]any{"endpoint": "/agents/mail-agent/runs"}); r.status != 403 {
		t.Errorf("bob moves a schedule to an agent he may not run: %d %s", r.status, r.body)
	}
	j.ok(t, bob, "PATCH", "/schedules/"+digest["id"].(string), map[string]any{"payload": map[string]any{"message": "bob's words"}})
	if fired := j.ok(t, bob, "POST", "/schedules/"+digest["id"].(string)+"/trigger", nil); fired["status"] != "success" {
		t.Errorf("bob's changed schedule: %v", fired)
	}
}

// A schedule stored before schedules kept their principal acts for
// nobody in JWT mode: it fails, saying how to fix it, until someone who
// may call its endpoint saves it again.
func TestScheduleWithoutPrincipal(t *testing.T) {
	scheduleLeaks(t)
	db := sqldbtest.SQLite(t)
	_, j := jwtSchedules(t, db, true)
	st, err := schedule.NewStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	old, err := schedule.New(schedule.Schedule{Name: "old", CronExpr: "@yearly", Endpoint: "/agents/reporter/runs", Payload: map[string]any{"message": "hi"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	admin := tokenFor(t, "root", auth.DefaultAdminScope)
	fired := j.ok(t, admin, "POST", "/schedules/"+old.ID+"/trigger", nil)
	if fired["status"] != "failed" || !strings.Contains(fmt.Sprint(fired["error"]), "acts for nobody") {
		t.Fatalf("a schedule without principal: %v", fired)
	}
	j.ok(t, admin, "POST", "/schedules/"+old.ID+"/enable", nil)
	if fired := j.ok(t, admin, "POST", "/schedules/"+old.ID+"/trigger", nil); fired["status"] != "success" {
		t.Fatalf("re-enabled by an admin: %v", fired)
	}
}
