package team_test

import (
	"context"
	"fmt"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// memberModel is a model that answers with its name and the task it was given.
func memberModel(name string) *modeltest.Fake {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: name + " on: " + req.Messages[len(req.Messages)-1].Content}
	})
}

// leaderModel is a team leader's model: it delegates the task to the writer, then
// answers with what the writer said.
func leaderModel() *modeltest.Fake {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team answer: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"writer","task":"draft the report"}`)}}
	})
}

// In coordinate mode the leader delegates tasks to members with the
// delegate_task_to_member tool and writes the answer from their results.
func ExampleNew() {
	researcher, _ := agent.New(agent.Config{Name: "Researcher", Model: memberModel("Researcher")})
	writer, _ := agent.New(agent.Config{Name: "Writer", Model: memberModel("Writer")})

	t, err := team.New(team.Config{Name: "Research Team", Model: leaderModel(), Mode: team.ModeCoordinate,
		Members: []run.Executor{researcher, writer}})
	if err != nil {
		panic(err)
	}
	out, err := t.Run(context.Background(), "Write the Q3 report")
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status, out.TeamName)
	fmt.Println(out.Content)
	// Output:
	// COMPLETED Research Team
	// Team answer: Writer on: draft the report
}

// A team's stream carries its members' events too: team events are named
// Team…, a member's carry its agent name and the team run as parent.
func ExampleTeam_RunStream() {
	writer, _ := agent.New(agent.Config{Name: "Writer", Model: memberModel("Writer")})
	t, err := team.New(team.Config{Name: "Crew", Model: leaderModel(), Members: []run.Executor{writer}})
	if err != nil {
		panic(err)
	}
	for ev, err := range t.RunStream(context.Background(), "Write the Q3 report", run.WithStreamEvents(true)) {
		if err != nil {
			panic(err)
		}
		switch e := ev.(type) {
		case *run.RunStarted:
			fmt.Println(e.Kind(), e.TeamName+e.AgentName)
		case *run.RunCompleted:
			fmt.Printf("%s %s: %v\n", e.Kind(), e.TeamName+e.AgentName, e.Content)
		}
	}
	// Output:
	// TeamRunStarted Crew
	// RunStarted Writer
	// RunCompleted Writer: Writer on: draft the report
	// TeamRunCompleted Crew: Team answer: Writer on: draft the report
}
