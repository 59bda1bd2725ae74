package agentos_test

import (
	"testing"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// An eval runs its agent or team as its caller: evals:write alone runs
// nothing (the run scope is needed, as for a run), and under isolation
// eval runs are their creator's — listed, read, renamed and deleted by
// their owner only; an admin sees all.
func TestEvalsActAsTheirCaller(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEvalEnv(t, db, func(c *agentos.Config) {
			c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
		})
		j := &jwtOS{srv: e.srv}
		body := map[string]any{"agent_id": "calc", "eval_type": "accuracy", "input": "What is 2+2?", "expected_output": "4"}
		writer := tokenFor(t, "bob", "evals:write", "evals:read", "evals:delete")
		if r := j.call(t, writer, "POST", "/eval-runs", body); r.status != 403 || r.body != `{"detail":"Access denied to run this agent"}` {
			t.Fatalf("an eval without agents:run: %d %s", r.status, r.body)
		}
		if r := j.call(t, writer, "POST", "/eval-runs", map[string]any{"team_id": "crew", "eval_type": "performance", "input": "hi"}); r.status != 403 {
			t.Fatalf("a team eval without teams:run: %d %s", r.status, r.body)
		}
		alice := tokenFor(t, "alice", "evals:write", "evals:read", "evals:delete", "agents:calc:run")
		bob := tokenFor(t, "bob", "evals:write", "evals:read", "evals:delete", "agents:calc:run")
		mine := j.ok(t, alice, "POST", "/eval-runs", body)
		id := mine["id"].(string)
		j.ok(t, bob, "POST", "/eval-runs", body)

		if l := j.ok(t, bob, "GET", "/eval-runs", nil); len(l["data"].([]any)) != 1 || obj(l["meta"])["total_count"] != 1.0 {
			t.Errorf("bob lists: %v", l)
		}
		if r := j.call(t, bob, "GET", "/eval-runs/"+id, nil); r.status != 404 {
			t.Errorf("bob reads alice's eval: %d %s", r.status, r.body)
		}
		if r := j.call(t, bob, "PATCH", "/eval-runs/"+id, map[string]any{"name": "bob's now"}); r.status != 404 {
			t.Errorf("bob renames alice's eval: %d %s", r.status, r.body)
		}
		if r := j.call(t, bob, "DELETE", "/eval-runs", map[string]any{"eval_run_ids": []string{id}}); r.status != 204 {
			t.Errorf("bob deletes: %d %s", r.status, r.body)
		}
		if got := j.ok(t, alice, "GET", "/eval-runs/"+id, nil); got["id"] != id || got["name"] != nil {
			t.Errorf("alice's eval after bob: %v", got)
		}
		if l := j.ok(t, tokenFor(t, "root", auth.DefaultAdminScope), "GET", "/eval-runs", nil); len(l["data"].([]any)) != 2 {
			t.Errorf("the admin lists: %v", l["data"])
		}
	})
}
