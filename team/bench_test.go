package team_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// BenchmarkTeamRun is the framework cost of one team run: a leader with 3
// members delegates once (coordinate mode) and answers; models are the
// in-process fake, so the figure is CPU spent in agno-go itself.
func BenchmarkTeamRun(b *testing.B) {
	var members []run.Executor
	for _, name := range []string{"Alpha", "Beta", "Gamma"} {
		// NoRecord: a benchmark's fake keeps no copy of each request.
		m := modeltest.New(modeltest.Response{Content: name + " result"})
		m.NoRecord = true
		a, _ := agent.New(agent.Config{Name: name, Role: "helper", Model: m})
		members = append(members, a)
	}
	leader := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "final"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"beta","task":"do it"}`)}}
	})
	leader.NoRecord = true
	tm, err := team.New(team.Config{Name: "Bench", Model: leader, Members: members})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, _ := tm.Run(ctx, "go")
		if out.Content != "final" {
			b.Fatal(out.Content)
		}
	}
}
