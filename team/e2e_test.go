package team_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/agenttool"
)

// wire returns a real OpenAI client talking to a fake OpenAI-compatible
// server that answers with fn.
func wire(t *testing.T, fn modeltest.Responder) model.Model {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "fake-model", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func lastMsg(req *model.Request) model.Message { return req.Messages[len(req.Messages)-1] }

func toolCall(id, name, args string) modeltest.Response {
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall(id, name, args)}}
}

// answerer is a member model: it answers with its name and the task.
func answerer(name string) modeltest.Responder {
	return func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: name + " on: " + lastMsg(req).Content}
	}
}

// leader delegates once with call, then answers with the tool result.
func leader(call modeltest.Response) modeltest.Responder {
	return func(req *model.Request) modeltest.Response {
		if m := lastMsg(req); m.Role == model.RoleTool {
			return modeltest.Response{Content: "Team answer: " + m.Content}
		}
		return call
	}
}

func TestE2EModes(t *testing.T) {
	for _, tc := range []struct {
		mode team.Mode
		call modeltest.Response
		want string
	}{
		{team.ModeCoordinate, toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"draft"}`), "Team answer: Writer on: draft"},
		{team.ModeRoute, toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"draft"}`), "Writer on: draft"},
		{team.ModeBroadcast, toolCall("d", "delegate_task_to_members", `{"task":"review"}`), "Team answer: Agent Writer: Writer on: review\n\nAgent Critic: Critic on: review"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			writer, _ := agent.New(agent.Config{Name: "Writer", Model: wire(t, answerer("Writer"))})
			critic, _ := agent.New(agent.Config{Name: "Critic", Model: wire(t, answerer("Critic"))})
			tm := newTeam(t, team.Config{Name: "Crew", Mode: tc.mode, Model: wire(t, leader(tc.call)), Members: []run.Executor{writer, critic}})
			var memberEvents int
			var final *run.RunCompleted
			for ev, err := range tm.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("team-run")) {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Base().AgentID != "" {
					memberEvents++
					if ev.Base().ParentRunID != "team-run" {
						t.Fatalf("member event %s parent %q", ev.Kind(), ev.Base().ParentRunID)
					}
				}
				if c, ok := ev.(*run.RunCompleted); ok && ev.Base().TeamID != "" {
					final = c
				}
			}
			if final == nil || final.Content != tc.want || memberEvents == 0 {
				t.Fatalf("final %+v member events %d", final, memberEvents)
			}
		})
	}
}

func TestE2ETasksMode(t *testing.T) {
	researcher, _ := agent.New(agent.Config{Name: "Researcher", Model: wire(t, answerer("Researcher"))})
	var step atomic.Int32
	lead := wire(t, func(req *model.Request) modeltest.Response {
		switch step.Add(1) {
		case 1:
			return toolCall("c1", "create_task", `{"title":"Find facts","assignee":"researcher"}`)
		case 2:
			id := taskIDRe.FindStringSubmatch(lastMsg(req).Content)[1]
			return toolCall("c2", "execute_task", fmt.Sprintf(`{"task_id":%q,"member_id":"researcher"}`, id))
		case 3:
			return toolCall("c3", "mark_all_complete", `{"summary":"done"}`)
		}
		return modeltest.Response{Content: "Report ready."}
	})
	tm := newTeam(t, team.Config{Name: "Planner", Mode: team.ModeTasks, Model: lead, Members: []run.Executor{researcher}})
	out, err := tm.Run(context.Background(), "research")
	if err != nil || out.Status != run.StatusCompleted || out.Content != "Report ready." {
		t.Fatalf("err %v status %s content %v", err, out.Status, out.Content)
	}
	tasks := out.SessionState["_team_tasks"].(map[string]any)
	if tasks["goal_complete"] != true {
		t.Fatalf("task list %v", tasks)
	}
}

func TestE2EMemberHITLAndRestart(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "Pay", func(_ context.Context, a confirmArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	build := func() *team.Team {
		cashier, _ := agent.New(agent.Config{Name: "Cashier", Tools: []tool.Provider{pay}, Model: wire(t, func(req *model.Request) modeltest.Response {
			if lastMsg(req).Role == model.RoleTool {
				return modeltest.Response{Content: "Paid 7."}
			}
			return toolCall("p", "pay", `{"amount":7}`)
		})})
		return newTeam(t, team.Config{Name: "Ops", Store: store, Members: []run.Executor{cashier},
			Model: wire(t, leader(toolCall("d", "delegate_task_to_member", `{"member_id":"cashier","task":"pay"}`)))})
	}
	out, _ := build().Run(context.Background(), "pay", run.WithSessionID("s"))
	if out.Status != run.StatusPaused || paid.Load() != 0 {
		t.Fatalf("status %s paid %d", out.Status, paid.Load())
	}
	req := out.ActiveRequirements()[0]
	_ = req.Confirm()
	done, err := build().Continue(context.Background(), run.ContinueRequest{RunID: out.RunID, SessionID: "s", Requirements: []*run.Requirement{req}})
	if err != nil || done.Status != run.StatusCompleted || paid.Load() != 7 ||
		done.Content != "Team answer: Member results after human-in-the-loop resolution:\n[Cashier]: Paid 7." {
		t.Fatalf("err %v status %s paid %d content %q", err, done.Status, paid.Load(), done.Content)
	}
}

func TestE2ECancelCascade(t *testing.T) {
	started := make(chan string, 1)
	slowTool := tool.Must(tool.New("slow", "slow", func(ctx context.Context, _ struct{}) (string, error) {
		started <- run.FromContext(ctx).RunID
		<-ctx.Done()
		return "", ctx.Err()
	}))
	worker, _ := agent.New(agent.Config{Name: "Worker", Tools: []tool.Provider{slowTool}, Model: wire(t, func(*model.Request) modeltest.Response {
		return toolCall("s", "slow", `{}`)
	})})
	tm := newTeam(t, team.Config{Name: "T", Members: []run.Executor{worker},
		Model: wire(t, leader(toolCall("d", "delegate_task_to_member", `{"member_id":"worker","task":"wait"}`)))})
	res := make(chan *run.Output)
	go func() {
		out, _ := tm.Run(context.Background(), "go", run.WithRunID("team-e2e"))
		res <- out
	}()
	memberRun := <-started
	_, _ = tm.Cancel(context.Background(), "team-e2e")
	out := <-res
	if out.Status != run.StatusCancelled || len(out.MemberResponses) != 1 || out.MemberResponses[0].RunID != memberRun || out.MemberResponses[0].Status != run.StatusCancelled {
		t.Fatalf("team %s members %+v", out.Status, out.MemberResponses)
	}
}

func TestE2ESubAgentStreamsToParent(t *testing.T) {
	lookup := tool.Must(tool.New("lookup", "Look up", func(context.Context, struct{}) (string, error) { return "42", nil }))
	sub, _ := agent.New(agent.Config{Name: "Helper", Tools: []tool.Provider{lookup}, Model: wire(t, func(req *model.Request) modeltest.Response {
		if lastMsg(req).Role == model.RoleTool {
			return modeltest.Response{Content: "the answer is 42"}
		}
		return toolCall("l", "lookup", `{}`)
	})})
	asTool, _ := agenttool.New(agenttool.Config{Executor: sub})
	parent, _ := agent.New(agent.Config{Name: "Boss", Tools: []tool.Provider{asTool},
		Model: wire(t, leader(toolCall("a", "ask_helper", `{"task":"find it"}`)))})
	var order []string
	for ev, err := range parent.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("p")) {
		if err != nil {
			t.Fatal(err)
		}
		who := "parent"
		if ev.Base().AgentID == "helper" {
			who = "sub"
			if ev.Base().ParentRunID != "p" {
				t.Fatalf("sub event parent %q", ev.Base().ParentRunID)
			}
		}
		order = append(order, who+":"+ev.Kind())
	}
	got := strings.Join(order, " ")
	if !strings.Contains(got, "parent:ToolCallStarted sub:RunStarted") || !strings.Contains(got, "sub:ToolCallCompleted") ||
		!strings.Contains(got, "sub:RunCompleted parent:ToolCallCompleted") || !strings.HasSuffix(got, "parent:RunCompleted") {
		t.Fatalf("order: %s", got)
	}
}
