package agentos_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// blocker is an agent whose tool blocks until released (or the run is
// cancelled); started receives each blocked run's id.
type blocker struct {
	agent   *agent.Agent
	started chan string
	release chan struct{}
	once    sync.Once
}

func newBlocker(t *testing.T, name string, store storage.Store) *blocker {
	t.Helper()
	b := &blocker{started: make(chan string, 4), release: make(chan struct{})}
	t.Cleanup(b.unblock) // a failed test must not leave runs blocked
	block := tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		b.started <- run.FromContext(ctx).RunID
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-b.release:
			return "released", nil
		}
	}))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "done: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("b", "block", `{}`)}}
	})
	a, err := agent.New(agent.Config{Name: name, Model: m, Tools: []tool.Provider{block}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	b.agent = a
	return b
}

func (b *blocker) unblock() { b.once.Do(func() { close(b.release) }) }

// waitStatus polls the store until the run has the status.
func waitStatus(t *testing.T, store storage.Store, runID string, want run.Status) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, err := store.GetRun(context.Background(), runID)
		if err == nil && rec.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: %+v %v, want %s", runID, rec, err, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startBackground(t *testing.T, srv *httptest.Server, path, session string) string {
	t.Helper()
	resp := postForm(t, srv, path, url.Values{"message": {"go"}, "stream": {"false"}, "background": {"true"}, "session_id": {session}})
	var acc map[string]any
	decode(t, resp, &acc)
	if resp.StatusCode != 202 {
		t.Fatalf("background run: %d %v", resp.StatusCode, acc)
	}
	return acc["run_id"].(string)
}

// Extra form fields are forwarded as agno forwards them: known ones reach
// the run, unknown ones are accepted and ignored, invalid JSON is dropped.
func TestExtraFormFieldsForwarded(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)
	resp := postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"s1"},
		"session_state": {`{"color":"red"}`}, "metadata": {`{"k":"v"}`}, "dependencies": {"{not json"},
		"custom_flag": {"true"}, "anything": {"goes"}, "use_json_schema": {"true"}})
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || fmt.Sprint(out["session_state"]) != "map[color:red]" || fmt.Sprint(out["metadata"]) != "map[k:v]" {
		t.Fatalf("run with extras: %d %v", resp.StatusCode, out)
	}
	// A JSON field of the wrong shape is refused.
	resp = postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_state": {`[1,2]`}})
	if resp.StatusCode != 400 {
		t.Fatalf("array session_state: %d", resp.StatusCode)
	}
	// stream_events defaults to true on the run routes; false streams
	// content only.
	full := names(readSSE(t, postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}})))
	bare := names(readSSE(t, postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi"}, "stream_events": {"false"}})))
	if !strings.HasPrefix(full, "RunStarted") || strings.Contains(bare, "RunStarted") || !strings.Contains(bare, "RunContent") {
		t.Fatalf("stream_events: default %q, false %q", full, bare)
	}
	// Continue takes extras too.
	evs := readSSE(t, postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"send an email"}, "session_id": {"s2"}}))
	paused := evs[len(evs)-1].data
	tools := paused["tools"].([]any)
	tools[0].(map[string]any)["confirmed"] = true
	tb, _ := json.Marshal(tools)
	resp = postForm(t, srv, "/agents/main-agent/runs/"+paused["run_id"].(string)+"/continue", url.Values{"tools": {string(tb)}, "session_id": {"s2"},
		"stream": {"false"}, "session_state": {`{"approved_by":"ops"}`}, "metadata": {`{"ticket":7}`}, "unknown_field": {"x"}})
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || fmt.Sprint(out["session_state"]) != "map[approved_by:ops]" {
		t.Fatalf("continue with extras: %d %v", resp.StatusCode, out)
	}
	resp = postForm(t, srv, "/agents/main-agent/runs/"+paused["run_id"].(string)+"/continue", url.Values{"tools": {string(tb)}, "session_id": {"s2"}, "metadata": {`"text"`}})
	if resp.StatusCode != 400 {
		t.Fatalf("continue with a non-object metadata: %d", resp.StatusCode)
	}
}

func TestCancelRuns(t *testing.T) {
	store := memory.New()
	b := newBlocker(t, "Slow", store)
	stepStarted := make(chan string, 1)
	wf, err := workflow.New(workflow.Config{Name: "Slow Flow", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "wait", Func: func(ctx context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			stepStarted <- "go"
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{b.agent}, Workflows: []*workflow.Workflow{wf}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)

	runID := startBackground(t, srv, "/agents/slow/runs", "s")
	<-b.started
	resp := postForm(t, srv, "/agents/slow/runs/"+runID+"/cancel?session_id=s", nil)
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || string(body) != "{}" {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	waitStatus(t, store, runID, run.StatusCancelled)

	// Cancel before start, as agno: {} for a run id nobody has yet, and
	// the run that then takes the id, asked for by the same caller on the
	// same agent within a minute, ends CANCELLED.
	b.unblock()
	resp = postForm(t, srv, "/agents/slow/runs/early-run/cancel", nil)
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || string(body) != "{}" {
		t.Fatalf("cancel before start: %d %s", resp.StatusCode, body)
	}
	resp = postForm(t, srv, "/agents/slow/runs", url.Values{"message": {"go"}, "run_id": {"early-run"}, "stream": {"false"}})
	var early map[string]any
	decode(t, resp, &early)
	if early["status"] != "CANCELLED" {
		t.Fatalf("a run cancelled before it started: %d %v", resp.StatusCode, early)
	}
	// The intent was used once: it does not outlive its run.
	if resp := postForm(t, srv, "/agents/slow/runs/early-run/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("cancel of an ended run: %d", resp.StatusCode)
	}
	// An intent on another component does not cancel this agent's run.
	if resp := postForm(t, srv, "/workflows/slow-flow/runs/agent-run/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("cancel before start on a workflow: %d", resp.StatusCode)
	}
	resp = postForm(t, srv, "/agents/slow/runs", url.Values{"message": {"go"}, "run_id": {"agent-run"}, "stream": {"false"}})
	var later map[string]any
	decode(t, resp, &later)
	if later["status"] != "COMPLETED" {
		t.Fatalf("a run given the id of another component's cancel: %d %v", resp.StatusCode, later)
	}
	// An id taken when the cancel came keeps no intent: the next run
	// under it (were it free again) is not cancelled by it.
	if resp := postForm(t, srv, "/workflows/slow-flow/runs/agent-run/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("cancel of another component's run: %d", resp.StatusCode)
	}
	if resp := postForm(t, srv, "/agents/slow/runs/agent-run/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("cancel of a completed run: %d", resp.StatusCode)
	}
	resp = postForm(t, srv, "/agents/nope/runs/x/cancel", nil)
	var e map[string]any
	decode(t, resp, &e)
	if resp.StatusCode != 404 || e["detail"] != "Agent not found" {
		t.Fatalf("cancel on unknown agent: %d %v", resp.StatusCode, e)
	}

	wfRun := startBackground(t, srv, "/workflows/slow-flow/runs", "w")
	<-stepStarted
	if resp := postForm(t, srv, "/workflows/slow-flow/runs/"+wfRun+"/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("workflow cancel: %d", resp.StatusCode)
	}
	waitStatus(t, store, wfRun, run.StatusCancelled)
	resp = postForm(t, srv, "/workflows/nope/runs/x/cancel", nil)
	decode(t, resp, &e)
	if resp.StatusCode != 404 || e["detail"] != "Workflow not found" {
		t.Fatalf("cancel on unknown workflow: %d %v", resp.StatusCode, e)
	}

	// A workflow cancelled before it started ends CANCELLED (its step
	// would wait for the cancel forever).
	if resp := postForm(t, srv, "/workflows/slow-flow/runs/early-flow/cancel", nil); resp.StatusCode != 200 {
		t.Fatalf("workflow cancel before start: %d", resp.StatusCode)
	}
	done := make(chan map[string]any, 1)
	go func() {
		var out map[string]any
		decode(t, postForm(t, srv, "/workflows/slow-flow/runs", url.Values{"message": {"go"}, "run_id": {"early-flow"}, "stream": {"false"}}), &out)
		done <- out
	}()
	select {
	case out := <-done:
		if out["status"] != "CANCELLED" {
			t.Fatalf("a workflow cancelled before it started: %v", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a workflow cancelled before it started is still running")
	}
}

// frameReader reads SSE frames one at a time.
type frameReader struct{ r *bufio.Reader }

func (f frameReader) next(t *testing.T) (string, map[string]any) {
	t.Helper()
	var name string
	for {
		line, err := f.r.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && name == "" {
				return "", nil
			}
			t.Fatalf("reading SSE: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data %q", line)
			}
			if _, err := f.r.ReadString('\n'); err != nil { // the blank line
				t.Fatalf("frame end: %v", err)
			}
			return name, d
		}
	}
}

func (f frameReader) rest(t *testing.T) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		name, d := f.next(t)
		if name == "" {
			return out
		}
		out = append(out, sseEvent{name, d})
	}
}

func resume(t *testing.T, srv *httptest.Server, path string, last int) frameReader {
	t.Helper()
	resp := postForm(t, srv, path, url.Values{"last_event_index": {fmt.Sprint(last)}, "session_id": {"s"}})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("resume: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return frameReader{bufio.NewReader(resp.Body)}
}

// §2.2: a background run's stream is resumable — catch_up while running,
// replay from the buffer once done, replay from the database when the
// buffer is gone, an error event for an unknown run.
func TestResumeBackgroundRun(t *testing.T) {
	store := memory.New()
	b := newBlocker(t, "Slow", store)
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{b.agent}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)
	// A background stream whose client leaves once the tool blocks.
	ctx, leave := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/agents/slow/runs",
		strings.NewReader(url.Values{"message": {"go"}, "background": {"true"}, "session_id": {"s"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, first := frameReader{bufio.NewReader(resp.Body)}.next(t)
	runID, _ := first["run_id"].(string)
	if first["event_index"] != 0.0 || runID == "" {
		t.Fatalf("first background frame %v", first)
	}
	<-b.started
	leave()
	resp.Body.Close()

	fr := resume(t, srv, "/agents/slow/runs/"+runID+"/resume", 0)
	name, meta := fr.next(t)
	if name != "catch_up" || meta["event"] != "catch_up" || meta["run_id"] != runID || meta["status"] != "running" || meta["message"] != "Catching up on missed events." {
		t.Fatalf("first frame %s %v", name, meta)
	}
	missed, count := int(meta["missed_events"].(float64)), int(meta["current_event_count"].(float64))
	if missed < 1 || missed != count-1 {
		t.Fatalf("missed %d of %d", missed, count)
	}
	for i := 1; i <= missed; i++ {
		name, d := fr.next(t)
		if int(d["event_index"].(float64)) != i || d["run_id"] != runID || d["event"] != name {
			t.Fatalf("missed event %d: %s %v", i, name, d)
		}
	}
	b.unblock() // live events follow on the same stream
	live := fr.rest(t)
	if len(live) == 0 || live[len(live)-1].name != "RunCompleted" || int(live[0].data["event_index"].(float64)) != count {
		t.Fatalf("live events: %s", names(live))
	}
	total := count + len(live)
	waitStatus(t, store, runID, run.StatusCompleted)

	fr = resume(t, srv, "/agents/slow/runs/"+runID+"/resume", 2)
	name, meta = fr.next(t)
	if name != "replay" || meta["status"] != "COMPLETED" || int(meta["total_events"].(float64)) != total || int(meta["total_buffered"].(float64)) != total ||
		meta["last_event_index_requested"] != 2.0 || meta["message"] != "Run completed. Replaying missed events." {
		t.Fatalf("buffer replay header %s %v", name, meta)
	}
	replayed := fr.rest(t)
	if len(replayed) != total-3 || replayed[0].data["event_index"] != 3.0 {
		t.Fatalf("buffer replay: %d events from %v", len(replayed), replayed[0].data["event_index"])
	}

	// Another process (an engine of its own) has no buffer: the stored
	// events are replayed.
	other, err := runs.New(runs.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := agentos.New(agentos.Config{Agents: []*agent.Agent{b.agent}, Store: store, Runs: other})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(o2.Handler())
	t.Cleanup(srv2.Close)
	fr = resume(t, srv2, "/agents/slow/runs/"+runID+"/resume", -1)
	name, meta = fr.next(t)
	if name != "replay" || meta["status"] != "COMPLETED" || meta["message"] != "Run completed. Replaying all events from database." {
		t.Fatalf("database replay header %s %v", name, meta)
	}
	stored := fr.rest(t)
	if len(stored) != int(meta["total_events"].(float64)) || len(stored) == 0 || stored[len(stored)-1].name != "RunCompleted" || stored[0].data["event_index"] == nil {
		t.Fatalf("database replay: %v %s", meta["total_events"], names(stored))
	}

	fr = resume(t, srv2, "/agents/slow/runs/no-such-run/resume", -1)
	name, meta = fr.next(t)
	if name != "error" || len(meta) != 2 || meta["event"] != "error" || meta["error"] != "Run no-such-run not found in buffer or database" {
		t.Fatalf("unknown run: %s %v", name, meta)
	}
}

// GET /{agents|teams|workflows}/{id}/runs lists one component's runs of a
// session, optionally by status.
func TestListComponentRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		runComponent(t, srv, "/agents/chat-agent/runs", "one", "s1", "u")
		runComponent(t, srv, "/agents/chat-agent/runs", "two", "s1", "u")
		runComponent(t, srv, "/agents/chat-agent/runs", "other session", "s2", "u")
		runComponent(t, srv, "/teams/support-team/runs", "team", "t1", "u")
		runComponent(t, srv, "/workflows/pipeline/runs", "flow", "w1", "u")

		runs := list(mustCall(t, srv, 200, "GET", "/agents/chat-agent/runs?session_id=s1", nil))
		if len(runs) != 2 || obj(runs[0])["run_input"] != "one" || obj(runs[1])["run_input"] != "two" {
			t.Fatalf("agent runs %v", runs)
		}
		r := obj(runs[0])
		if r["agent_id"] != "chat-agent" || r["status"] != "COMPLETED" || r["user_id"] != "u" || r["run_response_format"] != "text" || r["content"] != "Echo: one" {
			t.Fatalf("RunSchema %v", r)
		}
		if got := list(mustCall(t, srv, 200, "GET", "/agents/chat-agent/runs?session_id=s1&status=completed", nil)); len(got) != 2 {
			t.Fatalf("status=completed: %d", len(got))
		}
		if got := list(mustCall(t, srv, 200, "GET", "/agents/chat-agent/runs?session_id=s1&status=ERROR", nil)); len(got) != 0 {
			t.Fatalf("status=ERROR: %v", got)
		}
		teamRuns := list(mustCall(t, srv, 200, "GET", "/teams/support-team/runs?session_id=t1", nil))
		if len(teamRuns) != 1 || obj(teamRuns[0])["team_id"] != "support-team" {
			t.Fatalf("team runs %v", teamRuns)
		}
		wfRuns := list(mustCall(t, srv, 200, "GET", "/workflows/pipeline/runs?session_id=w1", nil))
		if len(wfRuns) != 1 || obj(wfRuns[0])["workflow_id"] != "pipeline" || obj(wfRuns[0])["content"] != "processed: flow" {
			t.Fatalf("workflow runs %v", wfRuns)
		}
		// Another component's session lists nothing of this one.
		if got := list(mustCall(t, srv, 200, "GET", "/agents/chat-agent/runs?session_id=t1", nil)); len(got) != 0 {
			t.Fatalf("agent runs in the team session: %v", got)
		}
		wantDetail(t, mustCall(t, srv, 404, "GET", "/agents/chat-agent/runs?session_id=nope", nil), "Session not found")
		wantFieldError(t, mustCall(t, srv, 422, "GET", "/agents/chat-agent/runs", nil), "query", "session_id")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/agents/nope/runs?session_id=s1", nil), "Agent not found")
	})
}

// A team's paused member tool is confirmed over HTTP with `requirements`.
func TestTeamContinueWithRequirements(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "Pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int32(a.Amount))
		return fmt.Sprintf("paid %d", a.Amount), nil
	}, tool.RequiresConfirmation()))
	cashier, err := agent.New(agent.Config{Name: "Cashier", Role: "Pays", Tools: []tool.Provider{pay}, Model: modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "Payment done."}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("p1", "pay", `{"amount":5}`)}}
	})})
	if err != nil {
		t.Fatal(err)
	}
	leader := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"cashier","task":"pay 5"}`)}}
	})
	tm, err := team.New(team.Config{Name: "Ops", Model: leader, Members: []run.Executor{cashier}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Teams: []*team.Team{tm}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)

	pause := func(session string) (string, []any) {
		before := paid.Load()
		evs := readSSE(t, postForm(t, srv, "/teams/ops/runs", url.Values{"message": {"pay please"}, "session_id": {session}}))
		last := evs[len(evs)-1]
		if last.name != "TeamRunPaused" || paid.Load() != before {
			t.Fatalf("events %s, paid %d", names(evs), paid.Load())
		}
		reqs := last.data["requirements"].([]any)
		r := reqs[0].(map[string]any)
		if r["member_agent_id"] != "cashier" || r["tool_execution"] == nil {
			t.Fatalf("requirement %v", r)
		}
		r["confirmation"] = true
		r["tool_execution"].(map[string]any)["confirmed"] = true
		return last.data["run_id"].(string), reqs
	}
	runID, reqs := pause("s1")
	rb, _ := json.Marshal(reqs)
	resp := postForm(t, srv, "/teams/ops/runs/"+runID+"/continue", url.Values{"requirements": {string(rb)}, "session_id": {"s1"}, "stream": {"false"}, "note": {"extra fields pass"}})
	var out map[string]any
	decode(t, resp, &out)
	if resp.StatusCode != 200 || out["status"] != "COMPLETED" || out["team_id"] != "ops" || paid.Load() != 5 ||
		out["content"] != "Team: Member results after human-in-the-loop resolution:\n[Cashier]: Payment done." {
		t.Fatalf("continue: %d %v paid %d", resp.StatusCode, out, paid.Load())
	}
	resp = postForm(t, srv, "/teams/ops/runs/"+runID+"/continue", url.Values{"requirements": {string(rb)}, "session_id": {"s1"}, "stream": {"false"}})
	if resp.StatusCode != 409 {
		t.Fatalf("second continue: %d", resp.StatusCode)
	}
	// Streamed continue.
	runID, reqs = pause("s2")
	rb, _ = json.Marshal(reqs)
	evs := readSSE(t, postForm(t, srv, "/teams/ops/runs/"+runID+"/continue", url.Values{"requirements": {string(rb)}, "session_id": {"s2"}}))
	if got := names(evs); !strings.HasPrefix(got, "TeamRunContinued") || !strings.HasSuffix(got, "TeamRunCompleted") || paid.Load() != 10 {
		t.Fatalf("streamed continue: %s paid %d", got, paid.Load())
	}
	for _, c := range []struct {
		form   url.Values
		status int
	}{
		{url.Values{"requirements": {"[not json"}, "session_id": {"s2"}}, 400},
		{url.Values{"requirements": {string(rb)}}, 400},
		{url.Values{"requirements": {string(rb)}, "session_id": {"s2"}, "stream": {"false"}}, 409},
	} {
		if resp := postForm(t, srv, "/teams/ops/runs/"+runID+"/continue", c.form); resp.StatusCode != c.status {
			t.Errorf("%v: %d, want %d", c.form, resp.StatusCode, c.status)
		}
	}
}

// A reload swaps the catalog; a run in flight keeps its agent and
// completes.
func TestRunSurvivesReload(t *testing.T) {
	store := memory.New()
	b := newBlocker(t, "Slow", store)
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{b.agent}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)
	runID := startBackground(t, srv, "/agents/slow/runs", "s")
	<-b.started
	fresh, _ := agent.New(agent.Config{Name: "Fresh", Model: modeltest.New()})
	if err := o.Replace(agentos.Catalog{Agents: []*agent.Agent{fresh}}); err != nil {
		t.Fatal(err)
	}
	var agents []map[string]any
	resp, _ := srv.Client().Get(srv.URL + "/agents")
	decode(t, resp, &agents)
	resp.Body.Close()
	if len(agents) != 1 || agents[0]["id"] != "fresh" {
		t.Fatalf("after reload: %v", agents)
	}
	b.unblock()
	waitStatus(t, store, runID, run.StatusCompleted)
	rec, _ := store.GetRun(context.Background(), runID)
	if !strings.Contains(string(rec.Data), "done: released") {
		t.Fatalf("run output %s", rec.Data)
	}
}

// Shutdown answers new requests 503 (agno's shape, the connection
// closed) while the listener stays open, and lets a run that finishes
// within the timeout complete (it is not cancelled).
func TestShutdownLetsRunFinish(t *testing.T) {
	store := memory.New()
	b := newBlocker(t, "Slow", store)
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{b.agent}, Store: store, ShutdownTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- o.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	resp, err := http.PostForm(base+"/agents/slow/runs", url.Values{"message": {"go"}, "stream": {"false"}, "background": {"true"}, "session_id": {"s"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	runID := <-b.started
	stop()
	// Release the run only once the server answers the drain, so it
	// finishes during the shutdown: the listener is still open, and a new
	// request gets agno's 503 with its connection closed.
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatalf("the listener closed during the drain: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if string(body) != `{"detail":"AgentOS is shutting down"}` || !resp.Close {
				t.Fatalf("503 during the drain: %s close=%v", body, resp.Close)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 503 during the drain: %d %s", resp.StatusCode, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned before the run finished: %v", err)
	default:
	}
	b.unblock()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	rec, err := store.GetRun(context.Background(), runID)
	if err != nil || rec.Status != run.StatusCompleted {
		t.Fatalf("run after shutdown: %+v %v", rec, err)
	}
}
