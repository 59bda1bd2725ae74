package team_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/agenttool"
)

// An agent whose tool is a whole team sees the team's events, and its
// members' events, live between its own ToolCallStarted and Completed.
func TestE2ETeamAsToolStreamsToParent(t *testing.T) {
	writer, _ := agent.New(agent.Config{Name: "Writer", Model: wire(t, answerer("Writer"))})
	crew := newTeam(t, team.Config{Name: "Crew", Members: []run.Executor{writer},
		Model: wire(t, leader(toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"draft"}`)))})
	asTool, err := agenttool.New(agenttool.Config{Executor: crew})
	if err != nil {
		t.Fatal(err)
	}
	pm, psrv := wireRec(t, leader(toolCall("a", "ask_crew", `{"task":"get a draft"}`)))
	boss, err := agent.New(agent.Config{Name: "Boss", Model: pm, Tools: []tool.Provider{asTool}})
	if err != nil {
		t.Fatal(err)
	}
	var evs []run.Event
	for ev, err := range boss.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("boss-run")) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	start, end := -1, -1
	for i, e := range evs {
		if e.Base().AgentID != "boss" {
			continue
		}
		switch x := e.(type) {
		case *run.ToolCallStarted:
			if x.Tool.ToolName == "ask_crew" {
				start = i
			}
		case *run.ToolCallCompleted:
			if x.Tool.ToolName == "ask_crew" {
				end = i
			}
		}
	}
	if start < 0 || end < start {
		t.Fatalf("parent tool events missing: %s", kinds(evs))
	}
	// Everything in between is the team (child of the parent run) or its
	// member (child of the team run); nothing of theirs leaks outside.
	var teamRun string
	var inner []string
	for _, e := range evs[start+1 : end] {
		b := e.Base()
		switch {
		case b.TeamID == "crew" && b.ParentRunID == "boss-run" && b.NestedDepth == 1:
			teamRun = b.RunID
			inner = append(inner, "team:"+e.Kind())
		case b.AgentID == "writer" && b.ParentRunID != "" && b.ParentRunID == teamRun && b.NestedDepth == 2:
			inner = append(inner, "member:"+e.Kind())
		default:
			t.Fatalf("unexpected event %s inside the tool call: %+v", e.Kind(), b)
		}
	}
	for i, e := range evs {
		if (i < start || i > end) && e.Base().AgentID != "boss" {
			t.Fatalf("team event %s outside the parent's tool call", e.Kind())
		}
	}
	got := strings.Join(inner, " ")
	for _, want := range []string{"team:TeamRunStarted team:", "team:TeamToolCallStarted member:RunStarted", "member:RunContent", "member:RunCompleted team:TeamToolCallCompleted", "team:TeamRunCompleted"} {
		if !strings.Contains(got, want) {
			t.Fatalf("events inside ask_crew: %s (missing %q)", got, want)
		}
	}
	if !strings.HasSuffix(got, "team:TeamRunCompleted") {
		t.Fatalf("team completion not last inside the tool call: %s", got)
	}
	// The parent model gets the team's final answer as the tool result.
	reqs := psrv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("parent model calls %d", len(reqs))
	}
	if m := lastMsg(reqs[1].Request); m.Role != model.RoleTool || m.Content != "Team answer: Writer on: draft" {
		t.Fatalf("tool result for the parent %+v", m)
	}
}
