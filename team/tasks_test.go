package team_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

var taskIDRe = regexp.MustCompile(`Task created: \[([0-9a-f]{8})\]`)

// tasksLeader plans one task in the first iteration, stops without
// finishing, then executes it and marks the goal complete in the second.
func tasksLeader() *modeltest.Fake {
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		var id string
		var sawState, executed, completed bool
		for _, m := range req.Messages {
			if m := taskIDRe.FindStringSubmatch(m.Content); m != nil {
				id = m[1]
			}
			sawState = sawState || strings.HasPrefix(m.Content, "<current_task_state>")
			executed = executed || strings.HasPrefix(m.Content, "Task ["+id+"] completed")
			completed = completed || strings.HasPrefix(m.Content, "Goal marked as complete")
		}
		switch {
		case id == "":
			return call("c1", "create_task", `{"title":"Research topic","description":"Find three facts","assignee":"researcher"}`)
		case !sawState:
			return text("Planned.") // iteration 1 ends with the task still pending
		case !executed:
			return call("c2", "execute_task", fmt.Sprintf(`{"task_id":%q,"member_id":"researcher"}`, id))
		case !completed:
			return call("c3", "mark_all_complete", `{"summary":"Facts found."}`)
		}
		return text("All done.")
	})
}

func TestTasksModeLoop(t *testing.T) {
	researcher := member(t, "Researcher", "Researches", modeltest.New(text("fact one, two, three")))
	leader := tasksLeader()
	tm := newTeam(t, team.Config{Name: "Planner", Mode: team.ModeTasks, Model: leader, Members: []run.Executor{researcher}})
	evs := collect(t, tm.RunStream(context.Background(), "research X", run.WithStreamEvents(true)))
	var teamKinds []string
	for _, e := range evs {
		if e.Base().TeamID != "" {
			teamKinds = append(teamKinds, e.Kind())
		}
	}
	got := strings.Join(teamKinds, " ")
	for _, want := range []string{"TeamTaskIterationStarted", "TeamTaskCreated", "TeamTaskUpdated", "TeamTaskStateUpdated", "TeamTaskIterationCompleted"} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %s in %s", want, got)
		}
	}
	var iterations []int
	var final *run.TeamTaskStateUpdated
	for _, e := range evs {
		switch x := e.(type) {
		case *run.TeamTaskIterationStarted:
			iterations = append(iterations, x.Iteration)
			if x.MaxIterations != 10 {
				t.Fatalf("max_iterations %d", x.MaxIterations)
			}
		case *run.TeamTaskStateUpdated:
			final = x
		}
	}
	if fmt.Sprint(iterations) != "[1 2]" {
		t.Fatalf("iterations %v", iterations)
	}
	if !final.GoalComplete || final.CompletionSummary != "Facts found." || len(final.Tasks) != 1 || final.Tasks[0].Status != "completed" || final.Tasks[0].Result != "fact one, two, three" {
		t.Fatalf("final task state %+v", final)
	}
	// Iteration 2 began with the task state as a user message.
	var stateMsg string
	for _, r := range leader.Requests() {
		for _, m := range r.Messages {
			if strings.HasPrefix(m.Content, "<current_task_state>") {
				stateMsg = m.Content
			}
		}
	}
	want := "<current_task_state>\nTasks (1 total: 1 pending):\n  [" + final.Tasks[0].ID + "] Research topic - PENDING (assigned: researcher)\n</current_task_state>\n\nContinue working on the tasks. Create, execute, or update tasks as needed. When all tasks are done, call `mark_all_complete` with a summary."
	if stateMsg != want {
		t.Fatalf("state message:\n%q\nwant\n%q", stateMsg, want)
	}
	last := evs[len(evs)-1].(*run.RunCompleted)
	if last.Kind() != "TeamRunCompleted" || !strings.Contains(last.Content.(string), "All done.") {
		t.Fatalf("final event %s %v", last.Kind(), last.Content)
	}
	if _, ok := last.SessionState["_team_tasks"]; !ok {
		t.Fatalf("task list not in session state: %v", last.SessionState)
	}
}

func TestTaskToolErrors(t *testing.T) {
	a := member(t, "A", "", modeltest.New(text("x")))
	leader := modeltest.New(
		call("c1", "update_task_status", `{"task_id":"nope","status":"done"}`),
		call("c2", "update_task_status", `{"task_id":"nope","status":"blocked"}`),
		call("c3", "execute_task", `{"task_id":"nope","member_id":"a"}`),
		call("c4", "list_tasks", `{}`),
		call("c5", "execute_tasks_parallel", `{"task_ids":[]}`),
		text("stop"),
	)
	max := 1
	tm := newTeam(t, team.Config{Name: "P", Mode: team.ModeTasks, Model: leader, Members: []run.Executor{a}, MaxIterations: max})
	_, _ = tm.Run(context.Background(), "go")
	want := []string{
		"Invalid status 'done'. Must be one of: pending, in_progress, completed, failed.",
		"Cannot manually set status to 'blocked'. Blocked status is managed automatically based on task dependencies.",
		"Task with ID 'nope' not found.",
		"No tasks created yet.",
		"No valid tasks to execute.",
	}
	for i, w := range want {
		if got := lastToolMessage(leader.Requests()[i+1]).Content; got != w {
			t.Errorf("call %d: %q, want %q", i+1, got, w)
		}
	}
}
