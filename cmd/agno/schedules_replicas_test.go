package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
)

// The scheduler across processes: two real `agno agentos start` with
// [scheduler] enabled poll one database every second; each due time of a
// schedule fires once, on one of them: one schedule run, one agent run.

// schedulePoll is [scheduler] poll_interval_seconds of the replicas.
const schedulePoll = time.Second

// scheduleBackend is a fresh database for the replicas, and a handle on
// it for the test (to make a schedule due now).
type scheduleBackend struct {
	name string
	open func(t *testing.T) (storage string, db *sqldb.DB)
}

var scheduleBackends = []scheduleBackend{
	{"postgres", func(t *testing.T) (string, *sqldb.DB) {
		dsn := pgtest.DSN(t)
		schema := pgtest.Schema(t, dsn)
		db, err := sqldb.OpenPostgres(context.Background(), dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return fmt.Sprintf("[storage]\ndriver = \"postgres\"\ndsn_env = %q\nschema = %q\n", pgtest.EnvDSN, schema), db
	}},
	{"sqlite", func(t *testing.T) (string, *sqldb.DB) {
		path := filepath.Join(t.TempDir(), "shared.db")
		db, err := sqldb.OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return fmt.Sprintf("[storage]\npath = %q\n", path), db
	}},
}

func TestScheduleReplicas(t *testing.T) {
	bin := agnoBinary(t)
	for _, be := range scheduleBackends {
		t.Run(be.name, func(t *testing.T) {
			storage, db := be.open(t)
			c := &cluster{t: t, bin: bin, model: newGatedModel(t), db: replicaDB{storage: storage}, client: &http.Client{Transport: &http.Transport{}}, sockets: map[string]string{}}
			t.Cleanup(c.client.CloseIdleConnections)
			a, b := startScheduler(c, "a"), startScheduler(c, "b")
			scheduleForcedDueTimes(t, c, db, a, b)
			if be.name == "postgres" { // a real minute boundary, once
				scheduleEveryMinute(t, c, a, b)
			}
		})
	}
}

// startScheduler runs a replica with the scheduler on.
func startScheduler(c *cluster, name string) *agnoProcess {
	t := c.t
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"config.toml": fmt.Sprintf(`[agentos]
name = "scheduled"
instance_id = "sched-%s"
lease_seconds = %d

[models.default]
provider = "openai-compatible"
base_url = %q
api_key_env = "REPLICA_MODEL_KEY"
model = "fake-model"
max_retries = 0

[scheduler]
enabled = true
poll_interval_seconds = %d

%s`, name, int(replicaLease/time.Second), c.model.URL, int(schedulePoll/time.Second), c.db.storage),
		"agents/researcher.toml": "name = \"Researcher\"\nmodel = \"default\"\ninstructions = \"[researcher]\"\n",
	})
	return startAgno(t, c.bin, []string{"agentos", "start", "--config", filepath.Join(dir, "config.toml")},
		[]string{"REPLICA_MODEL_KEY=" + replicaModelKey, "OS_SECURITY_KEY="})
}

// sendJSON sends a JSON body and decodes the JSON answer.
func (c *cluster) sendJSON(method, u string, body any) (int, map[string]any) {
	c.t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, u, bytes.NewReader(raw))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		out["_body"] = string(b)
	}
	return resp.StatusCode, out
}

// scheduleRuns lists a schedule's runs, seen from p.
func (c *cluster) scheduleRuns(p *agnoProcess, id string) []map[string]any {
	c.t.Helper()
	code, out := c.callJSON(http.MethodGet, p.base+"/schedules/"+id+"/runs?limit=1000", nil)
	if code != http.StatusOK {
		c.t.Fatalf("schedule runs: %d %v", code, out)
	}
	var runs []map[string]any
	for _, r := range out["data"].([]any) {
		runs = append(runs, r.(map[string]any))
	}
	return runs
}

// agentRuns lists the researcher's runs of a session, seen from p.
func (c *cluster) agentRuns(p *agnoProcess, session string) []map[string]any {
	c.t.Helper()
	code, b := c.call(http.MethodGet, p.base+"/agents/researcher/runs?session_id="+url.QueryEscape(session), nil)
	if code == http.StatusNotFound {
		return nil
	}
	var runs []map[string]any
	if code != http.StatusOK || json.Unmarshal(b, &runs) != nil {
		c.t.Fatalf("agent runs: %d %s", code, b)
	}
	return runs
}

// modelCalls counts the model requests carrying text.
func (c *cluster) modelCalls(text string) int {
	n := 0
	for _, r := range c.model.Requests() {
		if bytes.Contains(r.Body, []byte(text)) {
			n++
		}
	}
	return n
}

// scheduleClaims counts the firings each replica logged.
func scheduleClaims(ps ...*agnoProcess) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = strings.Count(p.logs.String(), "scheduler: claimed schedule")
	}
	return out
}

func sumInts(ns []int) int {
	s := 0
	for _, n := range ns {
		s += n
	}
	return s
}

// scheduleSettle waits until the schedule has want finished runs (seen from p),
// then watches three more polls of both replicas for an extra firing.
func scheduleSettle(t *testing.T, c *cluster, p *agnoProcess, id string, want int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		runs := c.scheduleRuns(p, id)
		done := 0
		for _, r := range runs {
			if r["status"] != "running" {
				done++
			}
		}
		if len(runs) > want {
			t.Fatalf("%d schedule runs, want %d: %v", len(runs), want, runs)
		}
		if done == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d schedule runs finished: %v", done, want, runs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(3 * schedulePoll)
	runs := c.scheduleRuns(p, id)
	if len(runs) != want {
		t.Fatalf("%d schedule runs after three more polls, want %d", len(runs), want)
	}
	return runs
}

// Due times made by the test (next_run_at set to now, as the cron would
// when its time comes): each fires once across the two replicas.
func scheduleForcedDueTimes(t *testing.T, c *cluster, db *sqldb.DB, a, b *agnoProcess) {
	const session, message, rounds = "sched-forced", "scheduled forced tick", 4
	code, s := c.sendJSON(http.MethodPost, a.base+"/schedules", map[string]any{
		"name": "forced", "cron_expr": "0 0 1 1 *", "endpoint": "/agents/researcher/runs",
		"payload": map[string]any{"message": message, "session_id": session},
	})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, s)
	}
	id := s["id"].(string)
	yearly := int64(s["next_run_at"].(float64))
	for round := 1; round <= rounds; round++ {
		if _, err := db.Exec(context.Background(), `UPDATE {t:agno_schedules} SET next_run_at = ? WHERE id = ?`, time.Now().Unix(), id); err != nil {
			t.Fatal(err)
		}
		runs := scheduleSettle(t, c, b, id, round)
		if r := runs[0]; r["status"] != "success" || r["session_id"] != session || r["run_id"] == nil {
			t.Fatalf("round %d: last schedule run %v", round, r)
		}
		agentRuns := c.agentRuns(a, session)
		if len(agentRuns) != round {
			t.Fatalf("round %d: %d agent runs, want %d", round, len(agentRuns), round)
		}
		for _, r := range agentRuns {
			if r["status"] != "COMPLETED" {
				t.Fatalf("round %d: agent run %v", round, r)
			}
		}
		if n := c.modelCalls(message); n != round {
			t.Fatalf("round %d: the model was called %d times", round, n)
		}
		if got := scheduleClaims(a, b); sumInts(got) != round {
			t.Fatalf("round %d: claims logged by a, b: %v", round, got)
		}
		_, s = c.callJSON(http.MethodGet, a.base+"/schedules/"+id, nil)
		if next := int64(s["next_run_at"].(float64)); next != yearly && next < time.Now().Unix() {
			t.Fatalf("round %d: next_run_at %d not moved on", round, next)
		}
	}
	t.Logf("claims by replica a, b: %v", scheduleClaims(a, b))
}

// An every-minute schedule fires once at the next minute boundary.
func scheduleEveryMinute(t *testing.T, c *cluster, a, b *agnoProcess) {
	const session, message = "sched-minute", "scheduled minute tick"
	before := sumInts(scheduleClaims(a, b))
	code, s := c.sendJSON(http.MethodPost, b.base+"/schedules", map[string]any{
		"name": "every minute", "cron_expr": "* * * * *", "endpoint": "/agents/researcher/runs",
		"payload": map[string]any{"message": message, "session_id": session},
	})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, s)
	}
	id := s["id"].(string)
	due := time.Unix(int64(s["next_run_at"].(float64)), 0)
	if due.Second() != 0 || time.Until(due) > time.Minute {
		t.Fatalf("next_run_at %s is not the next minute", due)
	}
	time.Sleep(time.Until(due))
	runs := scheduleSettle(t, c, a, id, 1)
	// Disabled before the next minute: one due time, one firing.
	if code, out := c.callJSON(http.MethodPost, a.base+"/schedules/"+id+"/disable", nil); code != http.StatusOK || out["enabled"] != false {
		t.Fatalf("disable: %d %v", code, out)
	}
	if triggered := int64(runs[0]["triggered_at"].(float64)); runs[0]["status"] != "success" || triggered < due.Unix() || triggered > due.Unix()+int64(3*schedulePoll/time.Second) {
		t.Fatalf("minute run %v (due %d)", runs[0], due.Unix())
	}
	if n := len(c.agentRuns(b, session)); n != 1 || c.modelCalls(message) != 1 {
		t.Fatalf("%d agent runs, %d model calls for one minute", n, c.modelCalls(message))
	}
	if got := sumInts(scheduleClaims(a, b)) - before; got != 1 {
		t.Fatalf("%d claims for one minute", got)
	}
}
