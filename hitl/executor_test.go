package hitl_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// cashier is an agent on store whose pay tool needs a confirmation; its
// model pays once, then answers with what the tool said.
func cashier(t *testing.T, store storage.Store, paid *atomic.Int32) *agent.Agent {
	t.Helper()
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return fmt.Sprintf("paid %d", a.Amount), nil
	}, tool.RequiresConfirmation()))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "done: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":5}`)}}
	})
	a, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// An agent paused on a tool confirmation is announced, listed, and
// answered over the socket like a workflow step; the answer is taken
// once.
func TestAgentPauseOverSocket(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	a := cashier(t, store, &paid)
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, Agents: []run.Executor{a}, Store: store})
	c := dial(t, path)

	out, err := a.Run(context.Background(), "pay 5", run.WithSessionID("s1"), run.WithRunID("ar"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run: %v %s", err, out.Status)
	}
	p := nextPause(t, c)
	if p.RunID != "ar" || p.AgentID != a.ID() || p.AgentName != "Cashier" || p.Kind() != "agent" || p.SessionID != "s1" ||
		len(p.Requirements) != 1 || p.Requirements[0].ToolExecution.ToolName != "pay" || p.StepRequirements != nil {
		t.Fatalf("pause %+v", p)
	}
	// A client connecting now finds it in storage.
	late := dial(t, path)
	if init := late.Initial(); len(init) != 1 || init[0].RunID != "ar" || len(init[0].Requirements) != 1 {
		t.Fatalf("listing on connect: %+v", init)
	}
	if _, err := p.Select("", "x"); err == nil {
		t.Fatal("a route choice for an agent's tool call was accepted")
	}
	if _, err := p.Approve("some-step"); err == nil || !strings.Contains(err.Error(), "leave --step out") {
		t.Fatalf("approve with a step: %v", err)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if paid.Load() != 0 {
		t.Fatal("paid before the answer")
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctxT(t), "ar")
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != run.StatusCompleted || f.AgentID != a.ID() || f.Content != "done: paid 5" || paid.Load() != 5 {
		t.Fatalf("finished %+v paid %d", f, paid.Load())
	}
	if st := storedStatus(t, store, "ar"); st != run.StatusCompleted {
		t.Fatalf("stored %s", st)
	}
	// The same answer again is refused with agno's text; nothing runs twice.
	err = late.Answer(ctxT(t), p, answers)
	if err == nil || err.Error() != "Run is not paused (status=COMPLETED)" || paid.Load() != 5 {
		t.Fatalf("second answer: %v, paid %d", err, paid.Load())
	}
	if pend, err := late.Pending(ctxT(t)); err != nil || len(pend) != 0 {
		t.Fatalf("pending after the answer: %+v %v", pend, err)
	}
}

func TestAgentRejectOverSocket(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	a := cashier(t, store, &paid)
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, LookupAgent: func(id string) run.Executor {
		if id == a.ID() {
			return a
		}
		return nil
	}, Store: store})
	c := dial(t, path)
	if _, err := a.Run(context.Background(), "pay 5", run.WithSessionID("s1"), run.WithRunID("ar")); err != nil {
		t.Fatal(err)
	}
	p := nextPause(t, c)
	answers, err := p.Reject("", "not today")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctxT(t), "ar")
	if err != nil || f.Status != run.StatusCompleted || paid.Load() != 0 {
		t.Fatalf("finished %+v %v, paid %d", f, err, paid.Load())
	}
	rec, err := store.GetRun(context.Background(), "ar")
	if err != nil || !strings.Contains(string(rec.Data), "not today") {
		t.Fatalf("the note did not reach the run: %v", err)
	}
}

// continue-run is checked before anything runs: agno's texts for what is
// missing, unknown or not paused.
func TestContinueRunErrors(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	a := cashier(t, store, &paid)
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, Agents: []run.Executor{a}, Store: store})
	c := dial(t, path)
	if _, err := a.Run(context.Background(), "pay 5", run.WithSessionID("s1"), run.WithRunID("ar")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  hitl.ContinueRunRequest
		want string
	}{
		{hitl.ContinueRunRequest{RunID: "ar"}, "agent_id or team_id is required"},
		{hitl.ContinueRunRequest{AgentID: a.ID(), TeamID: "t", RunID: "ar"}, "Give agent_id or team_id, not both"},
		{hitl.ContinueRunRequest{AgentID: a.ID()}, "run_id is required"},
		{hitl.ContinueRunRequest{AgentID: "nobody", RunID: "ar"}, "Agent nobody not found"},
		{hitl.ContinueRunRequest{TeamID: "nobody", RunID: "ar"}, "Team nobody not found"},
		{hitl.ContinueRunRequest{AgentID: a.ID(), RunID: "other"}, "Run other not found"},
		{hitl.ContinueRunRequest{AgentID: a.ID(), RunID: "ar", SessionID: "s2"}, "Run ar not found"},
		{hitl.ContinueRunRequest{AgentID: a.ID(), RunID: "ar", Requirements: []*run.Requirement{nil}}, "Invalid requirements: "},
		{hitl.ContinueRunRequest{AgentID: a.ID(), RunID: "ar", Requirements: []*run.Requirement{{ID: "not-asked"}}}, "Invalid requirements: "},
	} {
		err := c.ContinueRun(ctxT(t), tc.req)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
	if st := storedStatus(t, store, "ar"); st != run.StatusPaused || paid.Load() != 0 {
		t.Fatalf("refused answers touched the run: %s, paid %d", st, paid.Load())
	}
}

// A team paused on its member's tool call is served the same way.
func TestTeamPauseOverSocket(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	member := cashier(t, nil, &paid)
	leader := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"cashier","task":"pay 5"}`)}}
	})
	tm, err := team.New(team.Config{Name: "Ops", Model: leader, Members: []run.Executor{member}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, Teams: []run.Executor{tm}, Store: store})
	c := dial(t, path)
	out, err := tm.Run(context.Background(), "pay please", run.WithSessionID("s"), run.WithRunID("tr"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("run: %v %s", err, out.Status)
	}
	p := nextPause(t, c)
	if p.TeamID != tm.ID() || p.Kind() != "team" || len(p.Requirements) != 1 || p.Requirements[0].MemberAgentID != "cashier" {
		t.Fatalf("pause %+v", p)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctxT(t), p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctxT(t), "tr")
	if err != nil || f.Status != run.StatusCompleted || f.TeamID != tm.ID() || paid.Load() != 5 {
		t.Fatalf("finished %+v %v, paid %d", f, err, paid.Load())
	}
}

// countingStore counts reads of runs.
type countingStore struct {
	storage.Store
	reads atomic.Int32
}

func (c *countingStore) ListRuns(ctx context.Context, q storage.RunQuery) ([]*storage.Run, error) {
	c.reads.Add(1)
	return c.Store.ListRuns(ctx, q)
}

func (c *countingStore) GetRun(ctx context.Context, id string) (*storage.Run, error) {
	c.reads.Add(1)
	return c.Store.GetRun(ctx, id)
}

// Runs that never pause are none of the socket's business: thousands of
// them going by (more than its change queue holds) make it read nothing
// from storage, and a pause among them is still announced.
func TestRunsThatDoNotPauseCostTheSocketNothing(t *testing.T) {
	store := &countingStore{Store: memory.New()}
	var paid atomic.Int32
	a := cashier(t, store, &paid)
	plain, err := agent.New(agent.Config{Name: "Plain", Model: modeltest.NewFunc(func(*model.Request) modeltest.Response {
		return modeltest.Response{Content: "ok"}
	}), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir(t), "hitl.sock")
	startServer(t, hitl.Config{SocketPath: path, Agents: []run.Executor{a, plain}, Store: store})
	c := dial(t, path)
	before := store.reads.Load()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				if _, err := plain.Run(context.Background(), "hi", run.WithSessionID(fmt.Sprintf("s-%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := a.Run(context.Background(), "pay 5", run.WithSessionID("s-pay"), run.WithRunID("pay")); err != nil {
		t.Fatal(err)
	}
	if p := nextPause(t, c); p.RunID != "pay" {
		t.Fatalf("announced %+v", p)
	}
	// The pause itself is read once or twice (its change, maybe its echo).
	if n := store.reads.Load() - before; n > 4 {
		t.Fatalf("2,000 runs that never paused made the socket read runs %d times", n)
	}
}
