package workflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// cashier is an agent on the fake OpenAI server whose pay tool needs a
// human's confirmation: it calls pay once, then reports the tool result.
func cashier(t *testing.T, paid *atomic.Int32) *agent.Agent {
	t.Helper()
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return "paid", nil
	}, tool.RequiresConfirmation()))
	m := wire(t, func(req *model.Request) modeltest.Response {
		if last := lastMsg(req); last.Role == model.RoleTool {
			return modeltest.Response{Content: "Cashier: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":1}`)}}
	})
	a, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// An agent step on the OpenAI wire pauses on its tool and continues from
// a fresh workflow value on the same store.
func TestExecutorPauseOverTheWire(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	build := func() *workflow.Workflow {
		return newWF(t, workflow.Config{Name: "pay-flow", Store: store, Steps: []workflow.Node{
			&workflow.Step{Name: "pay", Agent: cashier(t, &paid)},
			&workflow.Step{Name: "receipt", Func: fn("receipt", nil)},
		}})
	}
	evs := collect(t, build().RunStream(context.Background(), "pay", run.WithRunID("r"), run.WithSessionID("s")))
	if !strings.HasSuffix(kinds(evs), "RunPaused StepExecutorPaused WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	sp := eventJSON(t, evs, "StepExecutorPaused")
	reqs, _ := sp["executor_requirements"].([]any)
	if sp["executor_type"] != "agent" || sp["executor_id"] != "cashier" || len(reqs) != 1 || paid.Load() != 0 {
		t.Fatalf("StepExecutorPaused %v (paid %d)", sp, paid.Load())
	}
	out, err := build().GetRun(context.Background(), "r")
	if err != nil || out.PauseKind != "executor" {
		t.Fatalf("stored run: %v %+v", err, out)
	}
	req := out.ActiveRequirement()
	_ = req.ExecutorRequirements[0].Confirm()
	done, err := build().Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil || done.Status != run.StatusCompleted || paid.Load() != 1 || done.StepResults[0].Content != "Cashier: paid" || done.Content != "receipt(Cashier: paid)" {
		t.Fatalf("continue: %v %+v (paid %d)", err, done, paid.Load())
	}
}

// A team member's tool that needs confirmation pauses the team inside its
// step, and so the workflow; continuing confirms it through the team.
func TestTeamMemberToolPausesTheWorkflow(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	leader := wire(t, func(req *model.Request) modeltest.Response {
		if last := lastMsg(req); last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"cashier","task":"pay 1"}`)}}
	})
	build := func() *workflow.Workflow {
		tm, err := team.New(team.Config{Name: "Billing", Model: leader, Members: []run.Executor{cashier(t, &paid)}})
		if err != nil {
			t.Fatal(err)
		}
		return newWF(t, workflow.Config{Name: "billing-flow", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "bill", Agent: tm}}})
	}
	evs := collect(t, build().RunStream(context.Background(), "bill me", run.WithRunID("r"), run.WithSessionID("s")))
	if !strings.HasSuffix(kinds(evs), "StepExecutorPaused WorkflowPaused") {
		t.Fatalf("events %s", kinds(evs))
	}
	sp := eventJSON(t, evs, "StepExecutorPaused")
	if sp["executor_type"] != "team" || sp["executor_id"] != "billing" || sp["executor_name"] != "Billing" || sp["step_name"] != "bill" {
		t.Fatalf("StepExecutorPaused %v", sp)
	}
	out, err := build().GetRun(context.Background(), "r")
	if err != nil {
		t.Fatal(err)
	}
	req := out.ActiveRequirement()
	if out.PauseKind != "executor" || req.ExecutorType != "team" || len(req.ExecutorRequirements) != 1 {
		t.Fatalf("pause %s requirement %+v", out.PauseKind, req)
	}
	er := req.ExecutorRequirements[0]
	if er.MemberAgentID != "cashier" || er.ToolExecution == nil || er.ToolExecution.ToolName != "pay" {
		b, _ := json.Marshal(er)
		t.Fatalf("member requirement %s", b)
	}
	_ = er.Confirm()
	done, err := build().Continue(context.Background(), workflow.ContinueRequest{RunID: "r", StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil || done.Status != run.StatusCompleted || paid.Load() != 1 || !strings.Contains(done.ContentString(), "Cashier: paid") {
		t.Fatalf("continue: %v %+v (paid %d)", err, done, paid.Load())
	}
}
