package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// The run engine across processes: two real `agno agentos start` share
// one Postgres schema, or one SQLite file, each under its own instance id
// with a short lease. Every scenario gets a fresh database and its own
// pair of processes, so a kill or a stuck run in one cannot leak into
// another.

// replicaLease is [agentos] lease_seconds: short, so that a lease expiry
// fits the suite.
const replicaLease = 3 * time.Second

const replicaModelKey = "sk-replicas"

// A "slow" run streams slowTokens tokens slowTokenDelay apart (~1.8 s),
// long enough for the test to disconnect and resume while it runs.
const (
	slowTokens     = 60
	slowTokenDelay = 30 * time.Millisecond
)

type replicaBackend struct {
	name string
	// db makes a fresh database, dropped or removed when the test ends.
	db func(t *testing.T) replicaDB
}

type replicaDB struct {
	// storage is the [storage] table of the replicas' config.
	storage string
	// lockRun, when set, holds a run's row locked from the test: claims
	// of it wait (reads do not) until release; blocked counts them.
	lockRun func(t *testing.T, runID string) (blocked func() int, release func())
}

var replicaBackends = []replicaBackend{
	{"postgres", func(t *testing.T) replicaDB {
		dsn := pgtest.DSN(t)
		schema := pgtest.Schema(t, dsn)
		return replicaDB{
			storage: fmt.Sprintf("[storage]\ndriver = \"postgres\"\ndsn_env = %q\nschema = %q\n", pgtest.EnvDSN, schema),
			lockRun: func(t *testing.T, runID string) (func() int, func()) { return lockPostgresRun(t, dsn, schema, runID) },
		}
	}},
	{"sqlite", func(t *testing.T) replicaDB {
		return replicaDB{storage: fmt.Sprintf("[storage]\npath = %q\n", filepath.Join(t.TempDir(), "shared.db"))}
	}},
}

// lockPostgresRun locks a run's row FOR UPDATE in a transaction of its
// own; blocked counts the sessions waiting for a lock in the schema.
func lockPostgresRun(t *testing.T, dsn, schema, runID string) (blocked func() int, release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := tx.QueryRow(ctx, "SELECT 1 FROM "+pgx.Identifier{schema, "agno_runs"}.Sanitize()+" WHERE run_id = $1 FOR UPDATE", runID).Scan(&one); err != nil {
		t.Fatalf("lock run %s: %v", runID, err)
	}
	probe, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { probe.Close(context.Background()) })
	var once sync.Once
	release = func() { once.Do(func() { _ = tx.Commit(ctx) }) }
	t.Cleanup(release)
	return func() int {
		var n int
		// Waiters queue behind the first (a tuple lock), so count every
		// session waiting for a lock on a statement of this test's schema.
		if err := probe.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> $1 AND strpos(query, $2) > 0", pid, schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}, release
}

func TestReplicas(t *testing.T) {
	bin := agnoBinary(t)
	for _, be := range replicaBackends {
		t.Run(be.name, func(t *testing.T) {
			t.Run("B starting leaves A's running runs alone", func(t *testing.T) { replicaStartDuringRun(t, newCluster(t, bin, be)) })
			t.Run("cancel on B reaches a run on A within 1s", func(t *testing.T) { replicaCancel(t, newCluster(t, bin, be)) })
			t.Run("background stream from A resumed on B", func(t *testing.T) { replicaResume(t, newCluster(t, bin, be)) })
			t.Run("paused on A continued on B once", func(t *testing.T) { replicaContinue(t, newCluster(t, bin, be)) })
			t.Run("kill -9 A: B recovers after the lease", func(t *testing.T) { replicaKill(t, newCluster(t, bin, be)) })
			t.Run("foreground runs hidden until they end", func(t *testing.T) { replicaHiddenForeground(t, newCluster(t, bin, be)) })
			t.Run("pauses reach every replica's WebSocket and HITL socket", func(t *testing.T) { replicaPauseEverywhere(t, newCluster(t, bin, be)) })
		})
	}
}

// 1. A replica that starts must not take the runs of a live one: its
// start-up recovery and its lease checks leave A's in-flight runs (a
// background one, listed, and a foreground stream) alone for well past a
// lease, and both complete on A.
func replicaStartDuringRun(t *testing.T, c *cluster) {
	a := c.start("a")
	bgGate, fgGate := c.model.gate("s1-bg"), c.model.gate("s1-fg")
	bg := c.background(a, "researcher", "hold:s1-bg", "s1-bg-session")
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s1-fg"}, "session_id": {"s1-fg-session"}}, nil)
	fgRun := str(fg.await(t, named("RunStarted")).data["run_id"])
	bgGate.waitArrived(t)
	fgGate.waitArrived(t)

	b := c.start("b")
	// Past B's start-up recovery and two of its lease checks (every
	// lease/2), and past the expiry of a lease A would fail to renew.
	observeUntil := time.Now().Add(2*replicaLease + time.Second)
	for time.Now().Before(observeUntil) {
		if code, st := c.runStatus(b, "agents/researcher", bg, "s1-bg-session"); code != 200 || st != "RUNNING" {
			t.Fatalf("B sees A's background run as %d %s while A runs it", code, st)
		}
		// A foreground run is hidden while in flight; one marked ERROR shows.
		if code, st := c.runStatus(b, "agents/researcher", fgRun, "s1-fg-session"); code != 404 {
			t.Fatalf("B sees A's foreground run as %d %s while A runs it", code, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	bgGate.open()
	fgGate.open()
	if last := lastOf(fg.rest(t, 10*time.Second)); last.name != "RunCompleted" {
		t.Fatalf("A's foreground stream ended with %s %v", last.name, last.data)
	}
	c.waitStatus(b, "agents/researcher", bg, "s1-bg-session", "COMPLETED", 10*time.Second)
	c.waitStatus(b, "agents/researcher", fgRun, "s1-fg-session", "COMPLETED", 10*time.Second)
	if strings.Contains(b.logs.String(), "marked a run interrupted") {
		t.Fatalf("B recovered a run of live A:\n%s", b.logs.String())
	}
}

// 2. A cancel posted to B reaches the run where it executes, on A: the
// run ends CANCELLED within a second of the request, for a foreground
// stream (seen on A's stream and through B) and a background run.
func replicaCancel(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	const within = time.Second

	g := c.model.gate("s2-fg")
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s2-fg"}, "session_id": {"s2-fg"}}, nil)
	runID := str(fg.await(t, named("RunStarted")).data["run_id"])
	g.waitArrived(t)
	start := c.cancelOn(b, "agents/researcher", runID, "s2-fg")
	end := fg.await(t, terminal)
	if took := time.Since(start); end.name != "RunCancelled" || took > within {
		t.Fatalf("A's stream ended with %s %v %s after the cancel on B (want RunCancelled within %s)", end.name, end.data, took, within)
	}
	if took := c.waitStatus(b, "agents/researcher", runID, "s2-fg", "CANCELLED", 5*time.Second).Sub(start); took > within {
		t.Fatalf("B saw the foreground run CANCELLED %s after the cancel (want within %s)", took, within)
	} else {
		t.Logf("foreground run on A CANCELLED (seen on B) %s after the cancel on B", took.Round(time.Millisecond))
	}

	g = c.model.gate("s2-bg")
	bg := c.background(a, "researcher", "hold:s2-bg", "s2-bg")
	g.waitArrived(t)
	start = c.cancelOn(b, "agents/researcher", bg, "s2-bg")
	if took := c.waitStatus(b, "agents/researcher", bg, "s2-bg", "CANCELLED", 5*time.Second).Sub(start); took > within {
		t.Fatalf("the background run on A was CANCELLED %s after the cancel on B (want within %s)", took, within)
	} else {
		t.Logf("background run on A CANCELLED %s after the cancel on B", took.Round(time.Millisecond))
	}
	if code, st := c.runStatus(a, "agents/researcher", bg, "s2-bg"); code != 200 || st != "CANCELLED" {
		t.Fatalf("A sees the run as %d %s", code, st)
	}
}

// 3. A background stream started on A, left after event k, resumed on B
// (last_event_index=k) and on A (Last-Event-ID header): each resume
// carries every later event exactly once, in order, while the run still
// runs on A, until it settles; the stored stream replays the same. For an
// agent run (to RunCompleted) and a workflow whose agent step streams
// into it (to WorkflowPaused, then continued on B).
func replicaResume(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	all := resumeAcross(t, c, a, b, "agents/researcher", "s3", "RunCompleted", "COMPLETED")
	var content strings.Builder
	for _, e := range all {
		if e.name == "RunContent" {
			content.WriteString(str(e.data["content"]))
		}
	}
	if want := strings.Join(modeltest.FillerTokens(slowTokens), ""); content.String() != want || str(lastOf(all).data["content"]) != want {
		t.Fatalf("streamed content %q, RunCompleted %q, want %q", content.String(), lastOf(all).data["content"], want)
	}

	all = resumeAcross(t, c, a, b, "workflows/review", "s3-wf", "WorkflowPaused", "PAUSED")
	paused := lastOf(all).data
	reqs := paused["step_requirements"].([]any)
	reqs[0].(map[string]any)["confirmed"] = true
	rb, _ := json.Marshal(reqs)
	if code, out := c.continueReview(b, str(paused["run_id"]), "s3-wf", string(rb)); code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("continue on B of the resumed workflow: %d %v", code, out)
	}
}

// resumeAcross runs a slow background stream of component on A, leaves it
// after event k, resumes it on B and on A, and checks every stream until
// the run settles (event final, then status); it returns the stored
// stream.
func resumeAcross(t *testing.T, c *cluster, a, b *agnoProcess, component, session, final, status string) []sse {
	t.Helper()
	const k, kHeader = 4, 2
	form := url.Values{"message": {"slow resume"}, "session_id": {session}, "background": {"true"}, "stream": {"true"}}
	first := c.openSSE(a.base+"/"+component+"/runs", form, nil)
	head := first.until(t, 10*time.Second, func(e sse) bool { return eventIndex(e) >= k })
	first.close() // the client leaves; a background run goes on
	runID := str(head[0].data["run_id"])
	checkTail(t, "A's stream", head, -1, runID, head[len(head)-1].name)

	onB := c.openSSE(b.base+"/"+component+"/runs/"+runID+"/resume", url.Values{"last_event_index": {fmt.Sprint(k)}, "session_id": {session}}, nil)
	onA := c.openSSE(a.base+"/"+component+"/runs/"+runID+"/resume", url.Values{"session_id": {session}}, http.Header{"Last-Event-ID": {fmt.Sprint(kHeader)}})
	tailB, tailA := onB.rest(t, 20*time.Second), onA.rest(t, 20*time.Second)
	for _, r := range []struct {
		where string
		after int
		evs   []sse
	}{{"B", k, tailB}, {"A (Last-Event-ID)", kHeader, tailA}} {
		if len(r.evs) < 2 || r.evs[0].name != "catch_up" || r.evs[0].data["status"] != "running" {
			t.Fatalf("resume on %s did not catch up a running run: %s", r.where, eventNames(r.evs))
		}
		checkTail(t, r.where, r.evs[1:], r.after, runID, final)
	}

	// The stored stream, replayed on B once the run settled, is the same
	// events: A's head, then B's tail.
	replay := c.openSSE(b.base+"/"+component+"/runs/"+runID+"/resume", url.Values{"last_event_index": {"-1"}, "session_id": {session}}, nil).rest(t, 10*time.Second)
	if len(replay) == 0 || replay[0].name != "replay" || replay[0].data["status"] != status {
		t.Fatalf("replay after the end: %s %v", eventNames(replay), lastOf(replay[:1]).data)
	}
	all := replay[1:]
	checkTail(t, "the replay", all, -1, runID, final)
	if got, want := eventNames(all), eventNames(append(append([]sse{}, head...), tailB[1:]...)); got != want {
		t.Fatalf("stored stream differs from what the clients saw:\nstored %s\nseen   %s", got, want)
	}
	return all
}

// checkTail checks a run's stream: the events after index after, each
// once and in order, of the run (or of an agent inside the workflow run),
// ending with final.
func checkTail(t *testing.T, where string, evs []sse, after int, runID, final string) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatalf("%s: no events after %d", where, after)
	}
	for i, e := range evs {
		ofRun := str(e.data["run_id"]) == runID || str(e.data["workflow_run_id"]) == runID
		if got := eventIndex(e); got != after+1+i || !ofRun || e.data["event"] != e.name {
			t.Fatalf("%s: event %d is #%d %s of run %v, want event_index %d of run %s (indexes %v)", where, i, got, e.name, e.data["run_id"], after+1+i, runID, indexes(evs))
		}
	}
	if last := lastOf(evs); last.name != final {
		t.Fatalf("%s ended with %s, want %s: %s", where, last.name, final, eventNames(evs))
	}
}

// 4. A workflow paused on A is continued on B: COMPLETED, its step run
// once; a second continue, on either replica, is 409. The same for an
// agent paused on a tool call. Continues racing on A and B: exactly one
// wins, and the step or tool runs once.
func replicaContinue(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	runID, reqs := c.pauseReview(a, "s4", "plan-s4")
	before := c.model.writerCalls()
	code, out := c.continueReview(b, runID, "s4", reqs)
	if code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("continue on B: %d %v", code, out)
	}
	if n := c.model.writerCalls() - before; n != 1 {
		t.Fatalf("the confirmed step ran %d times, want once", n)
	}
	for _, p := range []*agnoProcess{a, b} {
		if code, out := c.continueReview(p, runID, "s4", reqs); code != 409 {
			t.Fatalf("second continue on %s: %d %v, want 409", p.base, code, out)
		}
	}
	if code, st := c.runStatus(a, "workflows/review", runID, "s4"); code != 200 || st != "COMPLETED" {
		t.Fatalf("A sees the continued run as %d %s", code, st)
	}

	// An agent paused on a tool call on A: the same, once.
	opRun, tools := c.pauseOperator(a, "s4-op")
	if code, out := c.continueOperator(b, opRun, "s4-op", tools); code != 200 || out["status"] != "COMPLETED" || out["content"] != "Done: confirmed" {
		t.Fatalf("agent continue on B: %d %v", code, out)
	}
	for _, p := range []*agnoProcess{a, b} {
		if code, out := c.continueOperator(p, opRun, "s4-op", tools); code != 409 {
			t.Fatalf("second agent continue on %s: %d %v, want 409", p.base, code, out)
		}
	}

	runID, reqs = c.pauseReview(a, "s4-race", "plan-s4-race")
	before = c.model.writerCalls()
	raceContinues(t, c, "workflow", runID, a, b, func(p *agnoProcess) int { code, _ := c.continueReview(p, runID, "s4-race", reqs); return code })
	if n := c.model.writerCalls() - before; n != 1 {
		t.Fatalf("racing continues ran the confirmed step %d times, want once", n)
	}
	c.waitStatus(b, "workflows/review", runID, "s4-race", "COMPLETED", 5*time.Second)

	opRun, tools = c.pauseOperator(a, "s4-op-race")
	before = c.model.toolResults()
	raceContinues(t, c, "agent", opRun, a, b, func(p *agnoProcess) int { code, _ := c.continueOperator(p, opRun, "s4-op-race", tools); return code })
	if n := c.model.toolResults() - before; n != 1 {
		t.Fatalf("racing continues ran the confirmed tool %d times, want once", n)
	}
	c.waitStatus(b, "agents/operator", opRun, "s4-op-race", "COMPLETED", 5*time.Second)
}

// raceContinues sends several continues of one paused run at once on
// each replica: exactly one may win, the others are 409. Where the test
// can lock the run's row (Postgres), every continue has read the run
// paused and waits at its claim before the lock goes: the claim alone
// decides. Elsewhere the race is left to timing.
func raceContinues(t *testing.T, c *cluster, what, runID string, a, b *agnoProcess, continueOn func(*agnoProcess) int) {
	t.Helper()
	codes := make([]int, 6) // 3 per replica: within a small Postgres pool
	var blocked func() int
	release := func() {}
	if c.db.lockRun != nil {
		blocked, release = c.db.lockRun(t, runID)
	}
	var wg sync.WaitGroup
	for i := range codes {
		p := []*agnoProcess{a, b}[i%2]
		wg.Go(func() { codes[i] = continueOn(p) })
	}
	if blocked != nil {
		deadline := time.Now().Add(10 * time.Second)
		for n := blocked(); n < len(codes); n = blocked() {
			if time.Now().After(deadline) {
				release()
				wg.Wait()
				t.Fatalf("%d of %d racing %s continues reached the claim (answers %v)", n, len(codes), what, codes)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	release()
	wg.Wait()
	won, lost := 0, 0
	for _, code := range codes {
		switch code {
		case 200:
			won++
		case 409:
			lost++
		}
	}
	if won != 1 || lost != len(codes)-1 {
		t.Fatalf("racing %s continues on A and B answered %v, want one 200, the others 409", what, codes)
	}
}

// 5. kill -9 A: its in-flight runs (background and foreground) stay
// RUNNING until its lease expires, then B marks them ERROR; the workflow
// and the agent run A paused before dying are untouched and continue on
// B.
func replicaKill(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	paused, reqs := c.pauseReview(a, "s5-paused", "plan-s5")
	opRun, tools := c.pauseOperator(a, "s5-op")
	bgGate, fgGate := c.model.gate("s5-bg"), c.model.gate("s5-fg")
	// A background stream whose client left after its first event.
	started := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s5-bg"}, "session_id": {"s5-bg"}, "background": {"true"}, "stream": {"true"}}, nil)
	bg := str(started.await(t, named("RunStarted")).data["run_id"])
	started.close()
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s5-fg"}, "session_id": {"s5-fg"}}, nil)
	fgRun := str(fg.await(t, named("RunStarted")).data["run_id"])
	bgGate.waitArrived(t)
	fgGate.waitArrived(t)
	c.waitStatus(b, "agents/researcher", bg, "s5-bg", "RUNNING", 5*time.Second)
	// A client following A's background run on B: its stream must end
	// once the run is recovered, not wait for a dead replica.
	follower := c.openSSE(b.base+"/agents/researcher/runs/"+bg+"/resume", url.Values{"last_event_index": {"-1"}, "session_id": {"s5-bg"}}, nil)
	if head := follower.until(t, 10*time.Second, named("RunStarted")); len(head) != 2 || head[0].name != "catch_up" || eventIndex(head[1]) != 0 {
		t.Fatalf("follower on B: %s %v", eventNames(head), indexes(head))
	}

	// A foreground run's row is written 250 ms into it (runs.Config
	// StartDelay): one killed younger than that leaves nothing to recover.
	time.Sleep(400 * time.Millisecond)
	// A renews its lease every lease/3, so its last heartbeat is at most
	// that old when it dies: its lease cannot expire before then + 2/3 of
	// a lease (less a margin for a late heartbeat).
	killed := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	a.exited <- nil // for startAgno's cleanup
	notBefore := killed.Add(2*replicaLease/3 - 300*time.Millisecond)
	// Expiry: heartbeats are whole seconds; B checks every lease/2.
	deadline := killed.Add(replicaLease + time.Second + replicaLease/2 + 3*time.Second)
	for {
		code, st := c.runStatus(b, "agents/researcher", bg, "s5-bg")
		if code != 200 {
			t.Fatalf("B lost A's background run: %d", code)
		}
		if st == "ERROR" {
			if at := time.Now(); at.Before(notBefore) {
				t.Fatalf("B marked A's run ERROR %s after the kill, before A's %s lease could expire", at.Sub(killed), replicaLease)
			}
			break
		}
		if st != "RUNNING" {
			t.Fatalf("A's background run is %s after the kill", st)
		}
		if time.Now().After(deadline) {
			t.Fatalf("B did not mark A's run ERROR within %s of the kill", deadline.Sub(killed))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("B marked A's run ERROR %s after the kill", time.Since(killed).Round(10*time.Millisecond))
	rest := follower.rest(t, 5*time.Second)
	for i, e := range rest {
		if eventIndex(e) != 1+i {
			t.Fatalf("follower on B after the kill: %s %v", eventNames(rest), indexes(rest))
		}
	}
	for _, r := range []struct{ id, session string }{{bg, "s5-bg"}, {fgRun, "s5-fg"}} {
		c.waitStatus(b, "agents/researcher", r.id, r.session, "ERROR", 5*time.Second)
		_, doc := c.getRun(b, "agents/researcher", r.id, r.session)
		if !strings.Contains(str(doc["content"]), "interrupted") {
			t.Fatalf("recovered run %s content %q", r.id, doc["content"])
		}
	}
	if code, st := c.runStatus(b, "workflows/review", paused, "s5-paused"); code != 200 || st != "PAUSED" {
		t.Fatalf("A's paused workflow after recovery: %d %s", code, st)
	}
	if code, st := c.runStatus(b, "agents/operator", opRun, "s5-op"); code != 200 || st != "PAUSED" {
		t.Fatalf("A's paused agent run after recovery: %d %s", code, st)
	}
	if code, out := c.continueReview(b, paused, "s5-paused", reqs); code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("continue of A's paused workflow on B: %d %v", code, out)
	}
	if code, out := c.continueOperator(b, opRun, "s5-op", tools); code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("continue of A's paused agent run on B: %d %v", code, out)
	}
}

// 6. agent-ui's view: a foreground run is stored only when it ends, as in
// agno. While one streams on a brand-new session, the session and its
// runs are 404 and listings leave them out; a background run is listed
// from its start; and a settled session's listings leave out its new
// in-flight foreground run.
func replicaHiddenForeground(t *testing.T, c *cluster) {
	a := c.start("a")
	g := c.model.gate("s6-fg")
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s6-fg"}, "session_id": {"s6-fg"}}, nil)
	fgRun := str(fg.await(t, named("RunStarted")).data["run_id"])
	g.waitArrived(t)
	bgGate := c.model.gate("s6-bg")
	bg := c.background(a, "researcher", "hold:s6-bg", "s6-bg")
	bgGate.waitArrived(t)

	for _, p := range []string{"/sessions/s6-fg", "/sessions/s6-fg/runs", "/sessions/s6-fg/runs/" + fgRun,
		"/agents/researcher/runs?session_id=s6-fg", "/agents/researcher/runs/" + fgRun + "?session_id=s6-fg"} {
		if code, body := c.call(http.MethodGet, a.base+p, nil); code != 404 {
			t.Fatalf("GET %s mid-stream: %d %s, want 404", p, code, body)
		}
	}
	if ids := c.sessionIDs(a, ""); ids["s6-fg"] || !ids["s6-bg"] {
		t.Fatalf("GET /sessions mid-stream lists %v: want the background session, not the foreground one", ids)
	}
	// Pages are cut after the hidden session is left out.
	for page, want := range map[int]bool{1: true, 2: false} {
		if ids := c.sessionIDs(a, fmt.Sprintf("&limit=1&page=%d", page)); ids["s6-bg"] != want || ids["s6-fg"] {
			t.Fatalf("GET /sessions?limit=1&page=%d mid-stream lists %v", page, ids)
		}
	}
	if runs := c.runIDs(a, "/agents/researcher/runs?session_id=s6-bg"); len(runs) != 1 || runs[bg] != "RUNNING" {
		t.Fatalf("background run listing %v", runs)
	}
	if runs := c.runIDs(a, "/sessions/s6-bg/runs"); len(runs) != 1 || runs[bg] != "RUNNING" {
		t.Fatalf("background session runs %v", runs)
	}

	g.open()
	if last := lastOf(fg.rest(t, 10*time.Second)); last.name != "RunCompleted" {
		t.Fatalf("stream ended with %s", last.name)
	}
	for _, p := range []string{"/sessions/s6-fg", "/agents/researcher/runs/" + fgRun + "?session_id=s6-fg"} {
		if code, body := c.call(http.MethodGet, a.base+p, nil); code != 200 {
			t.Fatalf("GET %s after the run: %d %s", p, code, body)
		}
	}
	for _, p := range []string{"/sessions/s6-fg/runs", "/agents/researcher/runs?session_id=s6-fg"} {
		if runs := c.runIDs(a, p); len(runs) != 1 || runs[fgRun] != "COMPLETED" {
			t.Fatalf("GET %s after the run: %v", p, runs)
		}
	}
	if ids := c.sessionIDs(a, ""); !ids["s6-fg"] {
		t.Fatalf("GET /sessions after the run lists %v", ids)
	}

	// A second foreground run on the now-settled session: the session
	// stays, the in-flight run is left out of its listings.
	g = c.model.gate("s6-again")
	again := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:s6-again"}, "session_id": {"s6-fg"}}, nil)
	againRun := str(again.await(t, named("RunStarted")).data["run_id"])
	g.waitArrived(t)
	for _, p := range []string{"/sessions/s6-fg/runs", "/agents/researcher/runs?session_id=s6-fg"} {
		if runs := c.runIDs(a, p); len(runs) != 1 || runs[fgRun] != "COMPLETED" {
			t.Fatalf("GET %s with a second run in flight: %v", p, runs)
		}
	}
	if code, _ := c.call(http.MethodGet, a.base+"/sessions/s6-fg", nil); code != 200 {
		t.Fatalf("GET /sessions/s6-fg with a second run in flight: %d", code)
	}
	g.open()
	again.rest(t, 10*time.Second)
	if runs := c.runIDs(a, "/sessions/s6-fg/runs"); len(runs) != 2 || runs[againRun] != "COMPLETED" {
		t.Fatalf("session runs after the second run: %v", runs)
	}
	bgGate.open()
	c.waitStatus(a, "agents/researcher", bg, "s6-bg", "COMPLETED", 10*time.Second)
}

// ---- the cluster: replicas over one database and one fake model ----

type cluster struct {
	t      *testing.T
	bin    string
	db     replicaDB
	model  *gatedModel
	client *http.Client
	// sockets are the replicas' HITL sockets by name.
	sockets map[string]string
	// lease is the replicas' lease_seconds (replicaLease when zero).
	lease time.Duration
	// env is added to the replicas' environment.
	env []string
}

func newCluster(t *testing.T, bin string, be replicaBackend) *cluster {
	c := &cluster{t: t, bin: bin, model: newGatedModel(t), db: be.db(t), client: &http.Client{Transport: &http.Transport{}}, sockets: map[string]string{}}
	t.Cleanup(c.client.CloseIdleConnections)
	return c
}

// start runs one replica, named for its instance id, on the shared
// database: the researcher and writer agents, the operator (its shell
// tool waits for a confirmation) and the review workflow (its publish
// step waits for one).
func (c *cluster) start(name string) *agnoProcess {
	c.t.Helper()
	return startAgno(c.t, c.bin, []string{"agentos", "start", "--config", c.config(name, c.socket(name))},
		append([]string{"REPLICA_MODEL_KEY=" + replicaModelKey, "OS_SECURITY_KEY="}, c.env...))
}

// config writes replica name's config, with its HITL socket at socket,
// and returns its path.
func (c *cluster) config(name, socket string) string {
	t := c.t
	t.Helper()
	lease := c.lease
	if lease == 0 {
		lease = replicaLease
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"config.toml": fmt.Sprintf(`[agentos]
name = "replicas"
instance_id = "replica-%s"
lease_seconds = %d

[models.default]
provider = "openai-compatible"
base_url = %q
api_key_env = "REPLICA_MODEL_KEY"
model = "fake-model"
max_retries = 0

[toolkits.shell]
requires_confirmation = true

[workflows.hitl]
transport = "both"
socket_path = %q

%s`, name, int(lease/time.Second), c.model.URL, socket, c.db.storage),
		"agents/researcher.toml": "name = \"Researcher\"\nmodel = \"default\"\ninstructions = \"[researcher]\"\n",
		"agents/writer.toml":     "name = \"Writer\"\nmodel = \"default\"\ninstructions = \"[writer]\"\n",
		"agents/operator.toml":   "name = \"Operator\"\nmodel = \"default\"\ntools = [\"shell\"]\n",
		"workflows/review.toml": "name = \"review\"\n[[steps]]\nname = \"draft\"\nagent = \"researcher\"\n" +
			"[[steps]]\nname = \"publish\"\nagent = \"writer\"\nrequires_confirmation = true\nconfirmation_message = \"Publish?\"\non_reject = \"cancel\"\n",
	})
	return filepath.Join(dir, "config.toml")
}

// socket is replica name's HITL socket path (short: Unix socket paths
// are limited to ~107 bytes).
func (c *cluster) socket(name string) string {
	if p, ok := c.sockets[name]; ok {
		return p
	}
	p := shortSocket(c.t)
	c.sockets[name] = p
	return p
}

// call sends a request (a form when form is set) and returns the status
// and body.
func (c *cluster) call(method, u string, form url.Values) (int, []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, u, err)
	}
	return resp.StatusCode, b
}

func (c *cluster) callJSON(method, u string, form url.Values) (int, map[string]any) {
	c.t.Helper()
	code, b := c.call(method, u, form)
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		out["_body"] = string(b)
	}
	return code, out
}

// background starts a background, non-streamed run on p and returns its
// id (agno's 202).
func (c *cluster) background(p *agnoProcess, agentID, message, session string) string {
	c.t.Helper()
	code, out := c.callJSON(http.MethodPost, p.base+"/agents/"+agentID+"/runs",
		url.Values{"message": {message}, "session_id": {session}, "background": {"true"}, "stream": {"false"}})
	if code != http.StatusAccepted || str(out["run_id"]) == "" {
		c.t.Fatalf("background run: %d %v", code, out)
	}
	return str(out["run_id"])
}

// getRun is GET /{kind}/{id}/runs/{run_id}?session_id=.
func (c *cluster) getRun(p *agnoProcess, component, runID, session string) (int, map[string]any) {
	c.t.Helper()
	return c.callJSON(http.MethodGet, p.base+"/"+component+"/runs/"+runID+"?session_id="+url.QueryEscape(session), nil)
}

func (c *cluster) runStatus(p *agnoProcess, component, runID, session string) (int, string) {
	c.t.Helper()
	code, doc := c.getRun(p, component, runID, session)
	return code, str(doc["status"])
}

// waitStatus polls p until the run shows status and returns when it did.
func (c *cluster) waitStatus(p *agnoProcess, component, runID, session, status string, within time.Duration) time.Time {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		code, st := c.runStatus(p, component, runID, session)
		if code == 200 && st == status {
			return time.Now()
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("run %s on %s: %d %s after %s, want %s", runID, p.base, code, st, within, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cancelOn posts a cancel of a run to p and returns when the accepted
// request was sent. A foreground run's row is written just after its
// first event, so a cancel that raced it (404) is retried.
func (c *cluster) cancelOn(p *agnoProcess, component, runID, session string) time.Time {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		start := time.Now()
		code, body := c.call(http.MethodPost, p.base+"/"+component+"/runs/"+runID+"/cancel?session_id="+url.QueryEscape(session), url.Values{})
		if code == 200 {
			return start
		}
		if code != 404 || time.Now().After(deadline) {
			c.t.Fatalf("cancel on %s: %d %s", p.base, code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pauseReview runs the review workflow on p (not streamed) to its
// confirmation and returns the run id and the confirmed requirements.
func (c *cluster) pauseReview(p *agnoProcess, session, message string) (string, string) {
	c.t.Helper()
	code, out := c.callJSON(http.MethodPost, p.base+"/workflows/review/runs", url.Values{"message": {message}, "session_id": {session}, "stream": {"false"}})
	reqs, _ := out["step_requirements"].([]any)
	if code != 200 || out["status"] != "PAUSED" || len(reqs) != 1 {
		c.t.Fatalf("review run: %d %v", code, out)
	}
	reqs[0].(map[string]any)["confirmed"] = true
	b, err := json.Marshal(reqs)
	if err != nil {
		c.t.Fatal(err)
	}
	return str(out["run_id"]), string(b)
}

// pauseOperator runs the operator on p (not streamed) to its tool
// confirmation and returns the run id and the confirmed tools.
func (c *cluster) pauseOperator(p *agnoProcess, session string) (string, string) {
	c.t.Helper()
	code, out := c.callJSON(http.MethodPost, p.base+"/agents/operator/runs", url.Values{"message": {"echo it"}, "session_id": {session}, "stream": {"false"}})
	tools, _ := out["tools"].([]any)
	if code != 200 || out["status"] != "PAUSED" || len(tools) != 1 {
		c.t.Fatalf("operator run: %d %v", code, out)
	}
	tools[0].(map[string]any)["confirmed"] = true
	b, err := json.Marshal(tools)
	if err != nil {
		c.t.Fatal(err)
	}
	return str(out["run_id"]), string(b)
}

// continueOperator confirms a paused operator run on p (not streamed).
// Safe to call from several goroutines (it does not fail the test).
func (c *cluster) continueOperator(p *agnoProcess, runID, session, tools string) (int, map[string]any) {
	return c.postForm(p.base+"/agents/operator/runs/"+runID+"/continue", url.Values{"tools": {tools}, "session_id": {session}, "stream": {"false"}})
}

// continueReview confirms a paused review run on p (not streamed). Safe
// to call from several goroutines (it does not fail the test).
func (c *cluster) continueReview(p *agnoProcess, runID, session, reqs string) (int, map[string]any) {
	return c.postForm(p.base+"/workflows/review/runs/"+runID+"/continue", url.Values{"step_requirements": {reqs}, "session_id": {session}, "stream": {"false"}})
}

// postForm posts a form and decodes the JSON answer; a transport error
// is status 0. It does not fail the test (for goroutines).
func (c *cluster) postForm(u string, form url.Values) (int, map[string]any) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, map[string]any{"_error": err.Error()}
	}
	defer resp.Body.Close()
	out := map[string]any{}
	b, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(b, &out) != nil {
		out["_body"] = string(b)
	}
	return resp.StatusCode, out
}

// sessionIDs lists a page of GET /sessions (query: more parameters) and
// checks its total_count is the number of sessions shown in all.
func (c *cluster) sessionIDs(p *agnoProcess, query string) map[string]bool {
	c.t.Helper()
	if query == "" {
		query = "&limit=100"
	}
	code, b := c.call(http.MethodGet, p.base+"/sessions?type=agent"+query, nil)
	var page struct {
		Data []struct {
			SessionID string `json:"session_id"`
		} `json:"data"`
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	if code != 200 || json.Unmarshal(b, &page) != nil {
		c.t.Fatalf("GET /sessions: %d %s", code, b)
	}
	ids := map[string]bool{}
	for _, s := range page.Data {
		ids[s.SessionID] = true
	}
	if all := c.shownSessions(p); page.Meta.TotalCount != all {
		c.t.Fatalf("GET /sessions: total_count %d, %d sessions shown", page.Meta.TotalCount, all)
	}
	return ids
}

// shownSessions counts the agent sessions GET /sessions shows on one page.
func (c *cluster) shownSessions(p *agnoProcess) int {
	c.t.Helper()
	code, b := c.call(http.MethodGet, p.base+"/sessions?type=agent&limit=100", nil)
	var page struct {
		Data []any `json:"data"`
	}
	if code != 200 || json.Unmarshal(b, &page) != nil {
		c.t.Fatalf("GET /sessions: %d %s", code, b)
	}
	return len(page.Data)
}

// runIDs lists a run listing as run id → status (200 expected).
func (c *cluster) runIDs(p *agnoProcess, path string) map[string]string {
	c.t.Helper()
	code, b := c.call(http.MethodGet, p.base+path, nil)
	var list []struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	if code != 200 || json.Unmarshal(b, &list) != nil {
		c.t.Fatalf("GET %s: %d %s", path, code, b)
	}
	out := map[string]string{}
	for _, r := range list {
		out[r.RunID] = r.Status
	}
	return out
}

// ---- SSE ----

// sseStream reads an SSE response as it arrives.
type sseStream struct {
	events chan sse
	cancel context.CancelFunc
	done   chan struct{}
}

// openSSE posts form to u and reads the event stream in the background
// until it ends or close.
func (c *cluster) openSSE(u string, form url.Values, header http.Header) *sseStream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.client.Do(req)
	if err != nil {
		cancel()
		c.t.Fatalf("POST %s: %v", u, err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		c.t.Fatalf("POST %s: %d %s", u, resp.StatusCode, b)
	}
	s := &sseStream{events: make(chan sse, 256), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
				continue
			}
			d, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			m := map[string]any{}
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				m = map[string]any{"_bad_json": d}
			}
			select {
			case s.events <- sse{name, m}:
			case <-ctx.Done():
				return
			}
		}
	}()
	c.t.Cleanup(s.close)
	return s
}

// close leaves the stream (the client disconnects).
func (s *sseStream) close() {
	s.cancel()
	<-s.done
}

// until reads events up to the first that matches; the stream ending or
// the timeout fails the test.
func (s *sseStream) until(t *testing.T, within time.Duration, match func(sse) bool) []sse {
	t.Helper()
	var got []sse
	timeout := time.After(within)
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended before the awaited event: %s", eventNames(got))
			}
			got = append(got, e)
			if match(e) {
				return got
			}
		case <-timeout:
			t.Fatalf("no awaited event within %s: %s", within, eventNames(got))
		}
	}
}

// await reads events up to the first that matches and returns it.
func (s *sseStream) await(t *testing.T, match func(sse) bool) sse {
	t.Helper()
	return lastOf(s.until(t, 10*time.Second, match))
}

// rest reads the stream to its end.
func (s *sseStream) rest(t *testing.T, within time.Duration) []sse {
	t.Helper()
	var got []sse
	timeout := time.After(within)
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				return got
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("stream did not end within %s: %s", within, eventNames(got))
		}
	}
}

func named(name string) func(sse) bool { return func(e sse) bool { return e.name == name } }

func terminal(e sse) bool {
	switch e.name {
	case "RunCompleted", "RunCancelled", "RunError", "RunPaused":
		return true
	}
	return false
}

func lastOf(evs []sse) sse {
	if len(evs) == 0 {
		return sse{name: "(none)"}
	}
	return evs[len(evs)-1]
}

// indexes are the events' event_index values (for failure messages).
func indexes(evs []sse) []int {
	out := make([]int, len(evs))
	for i, e := range evs {
		out[i] = eventIndex(e)
	}
	return out
}

// eventIndex is an event's event_index, -1 without one.
func eventIndex(e sse) int {
	if f, ok := e.data["event_index"].(float64); ok {
		return int(f)
	}
	return -1
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ---- the fake model ----

// gatedModel is the fake OpenAI-compatible server of the replicas. A
// request whose last user message says "hold:NAME" waits at gate NAME
// until the test opens it (or the caller goes away), so a run stays in
// flight exactly as long as a scenario needs; "slow" streams a long
// answer slowly; anything else is answered at once.
type gatedModel struct {
	*modeltest.Handler
	URL string

	mu    sync.Mutex
	gates map[string]*gate
}

type gate struct {
	arrived, released       chan struct{}
	arriveOnce, releaseOnce sync.Once
}

var holdMarker = regexp.MustCompile(`hold:([A-Za-z0-9_-]+)`)

func newGatedModel(t *testing.T) *gatedModel {
	m := &gatedModel{gates: map[string]*gate{}}
	m.Handler = modeltest.NewHandler(modeltest.ServerConfig{APIKey: replicaModelKey, Responder: replicaResponder})
	srv := httptest.NewServer(m)
	m.URL = srv.URL + "/v1"
	t.Cleanup(srv.Close)
	t.Cleanup(m.openAll) // before Close, which waits for held requests
	return m
}

func replicaResponder(req *model.Request) modeltest.Response {
	var text string
	for _, msg := range req.Messages {
		if msg.Role == model.RoleUser {
			text = msg.Content
		}
	}
	// The operator asks to run a command, then reports its output.
	for _, tl := range req.Tools {
		if tl.Name != "run_shell_command" {
			continue
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "Done: " + strings.TrimSpace(last.Content)}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_echo", "run_shell_command", `{"args":["echo","confirmed"]}`)}}
	}
	if strings.Contains(text, "slow") {
		return modeltest.Response{Tokens: modeltest.FillerTokens(slowTokens), TokenDelay: slowTokenDelay}
	}
	return modeltest.Response{Content: "Answer: " + text}
}

func (m *gatedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if sm := holdMarker.FindStringSubmatch(lastUserText(body)); sm != nil {
			g := m.gate(sm[1])
			g.arriveOnce.Do(func() { close(g.arrived) })
			select {
			case <-g.released:
			case <-r.Context().Done():
				return
			}
		}
	}
	m.Handler.ServeHTTP(w, r)
}

// lastUserText is the last user message of a chat completion request.
func lastUserText(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			var s string
			if json.Unmarshal(req.Messages[i].Content, &s) == nil {
				return s
			}
			return string(req.Messages[i].Content)
		}
	}
	return ""
}

func (m *gatedModel) gate(name string) *gate {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.gates[name]
	if !ok {
		g = &gate{arrived: make(chan struct{}), released: make(chan struct{})}
		m.gates[name] = g
	}
	return g
}

func (m *gatedModel) openAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, g := range m.gates {
		g.open()
	}
}

// waitArrived waits for the model request held at the gate: the run is
// in flight, waiting for its model.
func (g *gate) waitArrived(t *testing.T) {
	t.Helper()
	select {
	case <-g.arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the run's model request never arrived at its gate")
	}
}

func (g *gate) open() { g.releaseOnce.Do(func() { close(g.released) }) }

// toolResults counts the model requests answering the operator's tool
// call (one per execution of the confirmed command).
func (m *gatedModel) toolResults() int {
	n := 0
	for _, r := range m.Requests() {
		if bytes.Contains(r.Body, []byte(`"tool_call_id":"call_echo"`)) {
			n++
		}
	}
	return n
}

// writerCalls counts the model requests of the writer agent (the review
// workflow's confirmed step).
func (m *gatedModel) writerCalls() int {
	n := 0
	for _, r := range m.Requests() {
		if bytes.Contains(r.Body, []byte("[writer]")) {
			n++
		}
	}
	return n
}
