package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agno-go/agno/internal/faultfs"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// Faults an operator meets, on the binary: each sub-test ends with a
// SIGTERM that must exit cleanly within the shutdown timeout.
func TestFaults(t *testing.T) {
	bin := agnoBinary(t)
	for _, be := range replicaBackends {
		t.Run(be.name, func(t *testing.T) {
			t.Run("a second start leaves the live process alone", func(t *testing.T) { faultSecondStart(t, newCluster(t, bin, be)) })
			t.Run("SIGSTOP past the lease: taken over, no zombie writes", func(t *testing.T) { faultPausedReplica(t, newCluster(t, bin, be)) })
		})
	}
}

// startFails runs the binary on cfg and port, expects it to exit with an
// error, and returns what it printed.
func (c *cluster) startFails(cfg string, port int) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "agentos", "start", "--config", cfg, "--port", fmt.Sprint(port))
	cmd.Env = append(os.Environ(), "TMPDIR="+c.t.TempDir(), "REPLICA_MODEL_KEY="+replicaModelKey, "OS_SECURITY_KEY=")
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		c.t.Fatalf("the second start did not fail (%v):\n%s", err, out)
	}
	return string(out)
}

func portOf(t *testing.T, p *agnoProcess) int {
	t.Helper()
	u, err := url.Parse(p.base)
	if err != nil {
		t.Fatal(err)
	}
	var port int
	if _, err := fmt.Sscan(u.Port(), &port); err != nil {
		t.Fatal(err)
	}
	return port
}

// Issue item 2: starting the same config again while it serves a run —
// on its port, on its HITL socket, or on other ones with its instance id
// — fails with the reason and touches nothing of the live process: its
// run completes, nothing is recovered.
func faultSecondStart(t *testing.T, c *cluster) {
	a := c.start("a")
	g := c.model.gate("double")
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:double"}, "session_id": {"double"}}, nil)
	runID := str(fg.await(t, named("RunStarted")).data["run_id"])
	g.waitArrived(t)

	same := c.config("a", c.socket("a"))
	if out := c.startFails(same, portOf(t, a)); !strings.Contains(out, "address already in use") {
		t.Errorf("same port:\n%s", out)
	}
	if out := c.startFails(same, freePort(t)); !strings.Contains(out, "socket in use") {
		t.Errorf("same socket:\n%s", out)
	}
	out := c.startFails(c.config("a", shortSocket(t)), freePort(t))
	if !strings.Contains(out, "instance replica-a is alive: its lease was renewed") {
		t.Errorf("same instance id:\n%s", out)
	}
	if strings.Contains(out, "interrupted") || strings.Contains(out, "panic") {
		t.Errorf("the second start touched runs:\n%s", out)
	}

	g.open()
	if last := lastOf(fg.rest(t, 10*time.Second)); last.name != "RunCompleted" {
		t.Fatalf("the live run ended with %s %v", last.name, last.data)
	}
	c.waitStatus(a, "agents/researcher", runID, "double", "COMPLETED", 10*time.Second)
	// The live process still serves new runs and its socket.
	if code, out := c.callJSON(http.MethodPost, a.base+"/agents/researcher/runs", url.Values{"message": {"after"}, "stream": {"false"}}); code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("a run after the second starts: %d %v", code, out)
	}
	if _, err := os.Stat(c.socket("a")); err != nil {
		t.Fatalf("the live HITL socket: %v", err)
	}
	a.stop(t)
}

// Issue items 3 and 5: a replica paused past its lease is taken over by
// the other; the follower of its run on the other replica gets agno's
// RunError; when the paused replica wakes, its run stops there at once —
// its model answer is stored nowhere, not one event is added — and it
// goes back to taking runs.
func faultPausedReplica(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	g := c.model.gate("paused")
	started := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:paused"}, "session_id": {"paused"}, "background": {"true"}, "stream": {"true"}}, nil)
	runID := str(started.await(t, named("RunStarted")).data["run_id"])
	started.close()
	g.waitArrived(t)
	c.waitStatus(b, "agents/researcher", runID, "paused", "RUNNING", 5*time.Second)
	follower := c.openSSE(b.base+"/agents/researcher/runs/"+runID+"/resume", url.Values{"last_event_index": {"-1"}, "session_id": {"paused"}}, nil)
	follower.await(t, named("RunStarted"))

	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = a.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	c.waitStatus(b, "agents/researcher", runID, "paused", "ERROR", 3*replicaLease+5*time.Second)
	if last := lastOf(follower.rest(t, 10*time.Second)); last.name != "RunError" || !strings.Contains(str(last.data["content"]), "interrupted") {
		t.Fatalf("the follower on B ended with %s %v", last.name, last.data)
	}
	before := c.storedEvents(b, runID, "paused")

	// The model answers while A sleeps; A reads it when it wakes.
	g.open()
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	deadline := time.Now().Add(3*replicaLease + 5*time.Second)
	for !strings.Contains(a.logs.String(), "was taken over while its lease had lapsed") {
		if time.Now().After(deadline) {
			t.Fatalf("A did not learn it lost the run:\n%s", a.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A takes runs again once its lease is renewed.
	for {
		code, out := c.callJSON(http.MethodPost, a.base+"/agents/researcher/runs", url.Values{"message": {"awake"}, "stream": {"false"}})
		if code == 200 && out["status"] == "COMPLETED" {
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("a run on A after it woke: %d %v", code, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after := c.storedEvents(b, runID, "paused"); after != before {
		t.Fatalf("A wrote %d events to the run B took over", after-before)
	}
	_, doc := c.getRun(b, "agents/researcher", runID, "paused")
	if doc["status"] != "ERROR" || strings.Contains(str(doc["content"]), "Answer:") {
		t.Fatalf("the taken-over run after A woke: %v %q", doc["status"], doc["content"])
	}
	a.stop(t)
	b.stop(t)
}

// storedEvents is how many events of a finished run p replays.
func (c *cluster) storedEvents(p *agnoProcess, runID, session string) int {
	c.t.Helper()
	s := c.openSSE(p.base+"/agents/researcher/runs/"+runID+"/resume", url.Values{"last_event_index": {"-1"}, "session_id": {session}}, nil)
	defer s.close()
	n := 0
	for _, e := range s.rest(c.t, 10*time.Second) {
		if e.name != "catch_up" {
			n++
		}
	}
	return n
}

// Issue item 1: SQLite on a filesystem that fills while AgentOS serves,
// and one that is read-only at start. A run whose end cannot be stored
// answers the storage's message, streamed or not, nothing panics, what
// was stored stays, and SIGTERM exits at once.
func TestSQLiteDiskFaults(t *testing.T) {
	bin := agnoBinary(t)
	dir := faultfs.Tmpfs(t, 16<<20)
	db := filepath.Join(dir, "agno.db")
	c := newCluster(t, bin, replicaBackend{name: "sqlite", db: func(*testing.T) replicaDB {
		return replicaDB{storage: fmt.Sprintf("[storage]\npath = %q\n", db)}
	}})
	a := c.start("a")
	if code, out := c.callJSON(http.MethodPost, a.base+"/agents/researcher/runs", url.Values{"message": {"kept"}, "session_id": {"kept"}, "stream": {"false"}}); code != 200 || out["status"] != "COMPLETED" {
		t.Fatalf("a run before the disk fills: %d %v", code, out)
	}
	free := faultfs.Fill(t, dir)
	long := strings.Repeat("an answer that cannot be kept ", 20000)
	code, out := c.callJSON(http.MethodPost, a.base+"/agents/researcher/runs", url.Values{"message": {long}, "session_id": {"on-full-disk"}, "stream": {"false"}})
	if msg := str(out["content"]) + str(out["detail"]); !strings.Contains(msg, "disk is full") || (code == 200 && out["status"] != "ERROR") {
		t.Errorf("a non-stream run on a full disk: %d %v %.400s", code, out["status"], msg)
	}
	s := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {long}, "session_id": {"on-full-disk-stream"}}, nil)
	if last := lastOf(s.rest(t, 30*time.Second)); last.name != "RunError" || !strings.Contains(str(last.data["content"]), "disk is full") {
		t.Errorf("a stream on a full disk ended with %s %.400v", last.name, last.data)
	}
	free()
	// The runs on the full disk may outlast the lease, which cannot be
	// renewed meanwhile: A takes runs again once it renews it.
	for deadline := time.Now().Add(2 * replicaLease); ; time.Sleep(100 * time.Millisecond) {
		code, out := c.callJSON(http.MethodPost, a.base+"/agents/researcher/runs", url.Values{"message": {"again"}, "session_id": {"again"}, "stream": {"false"}})
		if code == 200 && out["status"] == "COMPLETED" {
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("a run once space is free: %d %v", code, out)
		}
	}
	if n := len(c.runIDs(a, "/sessions/kept/runs")); n != 1 {
		t.Errorf("the run stored before the disk filled: %d runs", n)
	}
	if strings.Contains(a.logs.String(), "panic") {
		t.Errorf("panic in the log:\n%s", a.logs.String())
	}
	a.stop(t)

	// The same file on a read-only filesystem.
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v %s", err, out)
	}
	defer func() { _ = exec.Command("mount", "-o", "remount,rw", dir).Run() }()
	printed := c.startFails(c.config("a", c.socket("a")), freePort(t))
	t.Logf("a start on a read-only filesystem: %s", lastLines(printed, 2))
	if !strings.Contains(printed, "read-only") || !strings.Contains(printed, "agno.db") || strings.Contains(printed, "panic") {
		t.Errorf("a start on a read-only filesystem:\n%s", printed)
	}
	// Read-write again: everything stored is there.
	if out, err := exec.Command("mount", "-o", "remount,rw", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-write: %v %s", err, out)
	}
	a = c.start("a")
	if n := len(c.runIDs(a, "/sessions/kept/runs")) + len(c.runIDs(a, "/sessions/again/runs")); n != 2 {
		t.Errorf("runs stored before the faults: %d of 2", n)
	}
	a.stop(t)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// stallingProvider speaks OpenAI's streamed chat completions
// (https://platform.openai.com/docs/api-reference/chat/streaming): two
// chunks, then silence until the caller leaves; under /huge it answers a
// non-streamed completion of ~5 MB.
func stallingProvider(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/huge") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"huge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"%s"}}]}`, strings.Repeat("word ", 1<<20))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, tok := range []string{"Hel", "lo"} {
			_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue items 6 and 7 on the binary: a model that stalls mid-answer ends
// its run at idle_timeout, one that answers too much at
// max_response_bytes, each saying which; a run stuck on a model with the
// default bounds does not hold up SIGTERM.
func TestModelFaults(t *testing.T) {
	bin := agnoBinary(t)
	provider := stallingProvider(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"config.toml": fmt.Sprintf(`[models.stalls]
provider = "openai-compatible"
base_url = %[1]q
model = "m"
idle_timeout = 1
max_retries = 0

[models.rambles]
provider = "openai-compatible"
base_url = "%[1]s/huge"
model = "m"
max_response_bytes = 100000
max_retries = 0

[models.stuck]
provider = "openai-compatible"
base_url = %[1]q
model = "m"
max_retries = 0

[storage]
path = %[2]q
`, provider, filepath.Join(dir, "agno.db")),
		"agents/stalls.toml":  "name = \"Stalls\"\nmodel = \"stalls\"\n",
		"agents/rambles.toml": "name = \"Rambles\"\nmodel = \"rambles\"\n",
		"agents/stuck.toml":   "name = \"Stuck\"\nmodel = \"stuck\"\n",
	})
	p := startAgno(t, bin, []string{"agentos", "start", "--config", filepath.Join(dir, "config.toml")}, []string{"OS_SECURITY_KEY="})
	c := &cluster{t: t, client: &http.Client{Transport: &http.Transport{}}}
	defer c.client.CloseIdleConnections()

	s := c.openSSE(p.base+"/agents/stalls/runs", url.Values{"message": {"hi"}}, nil)
	if last := lastOf(s.rest(t, 30*time.Second)); last.name != "RunError" || !strings.Contains(str(last.data["content"]), "idle_timeout") {
		t.Errorf("a stalled stream ended with %s %v", last.name, last.data)
	}
	code, out := c.callJSON(http.MethodPost, p.base+"/agents/rambles/runs", url.Values{"message": {"hi"}, "stream": {"false"}})
	if msg := str(out["content"]) + str(out["detail"]); !strings.Contains(msg, "max_response_bytes") || (code == 200 && out["status"] != "ERROR") {
		t.Errorf("an oversized answer: %d %v %.300s", code, out["status"], msg)
	}
	stuck := c.openSSE(p.base+"/agents/stuck/runs", url.Values{"message": {"hi"}}, nil)
	stuck.await(t, named("RunContent"))
	// The drain waits 30 s for runs, cancels them, and waits 5 s more;
	// meanwhile the listener stays open and says so to a load balancer.
	p.stopWithin(t, 45*time.Second, func() {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			code, out := c.callJSON(http.MethodPost, p.base+"/agents/stalls/runs", url.Values{"message": {"late"}, "stream": {"false"}})
			if code == http.StatusServiceUnavailable && out["detail"] == "AgentOS is shutting down" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("a run asked for while draining: %d %v", code, out)
				break
			}
		}
		if code, out := c.callJSON(http.MethodGet, p.base+"/ready", nil); code != http.StatusServiceUnavailable || out["status"] != "draining" {
			t.Errorf("/ready while draining: %d %v", code, out)
		}
	})
	stuck.close()
}

// Issue item 4: the database goes away for longer than the lease while
// two replicas serve runs. When it is back, neither declares the other
// dead from heartbeats the outage made stale: the runs in flight on both
// complete, nothing is marked interrupted, both take runs again, and
// both stop cleanly.
func TestOutageLongerThanTheLease(t *testing.T) {
	bin := agnoBinary(t)
	pg := pgtest.Private(t)
	const lease = 6 * time.Second // above the reconnection backoff's 5 s cap
	c := newCluster(t, bin, replicaBackend{name: "private postgres", db: func(*testing.T) replicaDB {
		return replicaDB{storage: "[storage]\ndriver = \"postgres\"\ndsn_env = \"AGNO_OUTAGE_DSN\"\n"}
	}})
	c.lease, c.env = lease, []string{"AGNO_OUTAGE_DSN=" + pg.DSN()}
	a, b := c.start("a"), c.start("b")
	fgGate, bgGate := c.model.gate("outage-fg"), c.model.gate("outage-bg")
	fg := c.openSSE(a.base+"/agents/researcher/runs", url.Values{"message": {"hold:outage-fg"}, "session_id": {"outage-fg"}}, nil)
	fgRun := str(fg.await(t, named("RunStarted")).data["run_id"])
	bg := c.background(b, "researcher", "hold:outage-bg", "outage-bg")
	fgGate.waitArrived(t)
	bgGate.waitArrived(t)
	c.waitStatus(a, "agents/researcher", bg, "outage-bg", "RUNNING", 5*time.Second)

	pg.Stop()
	down := time.Now()
	// A run asked for meanwhile is refused, or ends ERROR, with a reason;
	// it is not left hanging and not answered COMPLETED.
	code, out := c.callJSON(http.MethodPost, a.base+"/agents/writer/runs", url.Values{"message": {"during"}, "stream": {"false"}})
	if code == 200 && out["status"] != "ERROR" || code != 200 && len(out) == 0 {
		t.Errorf("a run during the outage: %d %v", code, out)
	}
	time.Sleep(time.Until(down.Add(lease * 3 / 2)))
	pg.Start()
	// Two leases after the database is back, both runs are still theirs.
	for until := time.Now().Add(2 * lease); time.Now().Before(until); time.Sleep(200 * time.Millisecond) {
		if code, st := c.runStatus(a, "agents/researcher", bg, "outage-bg"); code == 200 && st != "RUNNING" {
			t.Fatalf("B's run after the outage: %s", st)
		}
	}
	fgGate.open()
	bgGate.open()
	if last := lastOf(fg.rest(t, 20*time.Second)); last.name != "RunCompleted" {
		t.Fatalf("A's stream across the outage ended with %s %v", last.name, last.data)
	}
	c.waitStatus(b, "agents/researcher", bg, "outage-bg", "COMPLETED", 20*time.Second)
	c.waitStatus(b, "agents/researcher", fgRun, "outage-fg", "COMPLETED", 20*time.Second)
	for _, p := range []*agnoProcess{a, b} {
		if strings.Contains(p.logs.String(), "marked a run interrupted") {
			t.Errorf("%s recovered a live replica's run:\n%s", p.base, p.logs.String())
		}
		deadline := time.Now().Add(2 * lease)
		for {
			code, out := c.callJSON(http.MethodPost, p.base+"/agents/writer/runs", url.Values{"message": {"after"}, "stream": {"false"}})
			if code == 200 && out["status"] == "COMPLETED" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a run on %s after the outage: %d %v", p.base, code, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	a.stop(t)
	b.stop(t)
}
