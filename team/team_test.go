package team_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func text(s string) modeltest.Response { return modeltest.Response{Content: s} }

func call(id, name, args string) modeltest.Response {
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall(id, name, args)}}
}

func member(t *testing.T, name, role string, m model.Model, tools ...tool.Provider) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{Name: name, Role: role, Model: m, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func newTeam(t *testing.T, cfg team.Config) *team.Team {
	t.Helper()
	tm, err := team.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func collect(t *testing.T, seq func(func(run.Event, error) bool)) []run.Event {
	t.Helper()
	var evs []run.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func kinds(evs []run.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Kind())
	}
	return strings.Join(ks, " ")
}

func lastToolMessage(req *model.Request) model.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == model.RoleTool {
			return req.Messages[i]
		}
	}
	return model.Message{}
}

func TestCoordinateStreamsMemberEvents(t *testing.T) {
	store := memory.New()
	researcher := member(t, "Researcher", "Finds facts", modeltest.New(text("Paris is the capital.")))
	leaderModel := modeltest.New(
		call("d1", "delegate_task_to_member", `{"member_id":"researcher","task":"Find the capital of France"}`),
		text("The capital of France is Paris."),
	)
	tm := newTeam(t, team.Config{Name: "Research Team", Model: leaderModel, Members: []run.Executor{researcher}, Store: store})
	evs := collect(t, tm.RunStream(context.Background(), "capital of France?", run.WithStreamEvents(true), run.WithRunID("team-run"), run.WithSessionID("s1")))

	var teamKinds, memberKinds []string
	for _, e := range evs {
		b := e.Base()
		if b.TeamID == "research-team" {
			teamKinds = append(teamKinds, e.Kind())
			if b.RunID != "team-run" {
				t.Fatalf("team event with run id %q", b.RunID)
			}
			continue
		}
		if b.AgentID != "researcher" || b.ParentRunID != "team-run" || b.SessionID != "s1" || b.RunID == "team-run" {
			t.Fatalf("member event %s base %+v", e.Kind(), b)
		}
		memberKinds = append(memberKinds, e.Kind())
	}
	if teamKinds[0] != "TeamRunStarted" || teamKinds[len(teamKinds)-1] != "TeamRunCompleted" || !strings.Contains(strings.Join(teamKinds, " "), "TeamToolCallStarted TeamToolCallCompleted") {
		t.Fatalf("team events: %v", teamKinds)
	}
	if got := strings.Join(memberKinds, " "); !strings.Contains(got, "RunStarted") || !strings.Contains(got, "RunContent") || !strings.Contains(got, "RunCompleted") {
		t.Fatalf("member events: %v", got)
	}
	// As agno's events: an agent's content carries workflow_agent (false
	// here), a team's has no such field.
	for _, e := range evs {
		c, ok := e.(*run.RunContent)
		if !ok {
			continue
		}
		raw, _ := json.Marshal(c)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		flag, has := m["workflow_agent"]
		if team := c.TeamID != ""; team && has || !team && flag != false {
			t.Errorf("%s: %s", e.Kind(), raw)
		}
	}
	// Member events sit between the delegation's start and completion.
	start, end := strings.Index(kinds(evs), "TeamToolCallStarted"), strings.Index(kinds(evs), "TeamToolCallCompleted")
	if m := strings.Index(kinds(evs), " RunContent"); m < start || m > end {
		t.Fatalf("member content outside the delegation: %s", kinds(evs))
	}
	if got := lastToolMessage(leaderModel.Requests()[1]).Content; got != "Paris is the capital." {
		t.Fatalf("delegate tool result %q", got)
	}
	// The member run is stored in the team session, under the team run.
	runs, _ := store.ListRuns(context.Background(), storage.RunQuery{SessionID: "s1"})
	if len(runs) != 2 || runs[1].ComponentID != "researcher" || runs[1].ParentRunID != "team-run" || runs[0].RunID != "team-run" {
		t.Fatalf("stored runs: %+v", runs)
	}
	sess, _ := store.GetSession(context.Background(), "s1")
	if sess.SessionType != storage.SessionTeam || sess.TeamID != "research-team" {
		t.Fatalf("session %+v", sess)
	}
}

func TestLeaderSystemMessage(t *testing.T) {
	paper2, _ := agent.New(agent.Config{Name: "Paper Reader", Role: "Reads papers", Description: "Summarises arXiv", Model: modeltest.New(text("x"))})
	search := tool.Must(tool.New("duckduckgo_search", "search", func(context.Context, struct{}) (string, error) { return "", nil }))
	web := member(t, "Web Searcher", "Search the web", modeltest.New(text("x")), search)
	sub := newTeam(t, team.Config{Name: "Research Team", Description: "Deep research", Model: modeltest.New(text("x")), Members: []run.Executor{paper2}})
	leader := modeltest.New(text("hi"))
	tm := newTeam(t, team.Config{Name: "Top", Model: leader, Members: []run.Executor{web, sub}, AddMemberToolsToContext: true,
		Description: "A research team", Instructions: []string{"Be concise", "Cite sources"}, Markdown: true})
	if _, err := tm.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	got := leader.Requests()[0].Messages[0].Content
	want := "You coordinate a team of specialized AI agents to fulfill the user's request. Delegate to members when their expertise or tools are needed. For straightforward requests you can handle directly — including using your own tools — respond without delegating.\n\n" +
		"<team_members>\n" +
		"<member id=\"web-searcher\" name=\"Web Searcher\">\n  Role: Search the web\n  Tools: duckduckgo_search\n</member>\n" +
		"<member id=\"research-team\" name=\"Research Team\" type=\"team\">\n  Description: Deep research\n" +
		"  <member id=\"paper-reader\" name=\"Paper Reader\">\n    Role: Reads papers\n    Description: Summarises arXiv\n  </member>\n</member>\n" +
		"</team_members>\n\n<how_to_respond>\nYou operate in coordinate mode."
	if !strings.HasPrefix(got, want) {
		t.Fatalf("leader system message:\n%s", got)
	}
	tail := "</how_to_respond>\n\n<description>\nA research team\n</description>\n\n- Be concise\n- Cite sources\n<additional_information>\n- Use markdown to format your answers.\n</additional_information>"
	if !strings.HasSuffix(got, tail) {
		t.Fatalf("leader system message tail:\n%q", got[len(got)-300:])
	}
	if tools := leader.Requests()[0].Tools; len(tools) != 1 || tools[0].Name != "delegate_task_to_member" {
		t.Fatalf("leader tools %+v", tools)
	}
}

func TestRouteMemberAnswerIsTeamAnswer(t *testing.T) {
	a := member(t, "Billing", "Handles billing", modeltest.New(text("Your invoice is paid.")))
	leader := modeltest.New(call("d1", "delegate_task_to_member", `{"member_id":"billing","task":"Is my invoice paid?"}`), text("never"))
	tm := newTeam(t, team.Config{Name: "Support", Mode: team.ModeRoute, Model: leader, Members: []run.Executor{a}})
	out, err := tm.Run(context.Background(), "invoice?")
	if err != nil {
		t.Fatal(err)
	}
	if out.Content != "Your invoice is paid." || leader.Calls() != 1 || out.TeamID != "support" {
		t.Fatalf("content %q leader calls %d", out.Content, leader.Calls())
	}
	if !strings.Contains(leader.Requests()[0].Messages[0].Content, "You operate in route mode.") {
		t.Fatal("route prompt missing")
	}
}

func TestBroadcastRunsMembersConcurrently(t *testing.T) {
	// One model shared by the three members answers only once all three
	// calls are in flight: members run one after another would time out.
	var arrived atomic.Int32
	all := make(chan struct{})
	shared := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if arrived.Add(1) == 3 {
			close(all)
		}
		select {
		case <-all:
			return text("view of " + req.Messages[len(req.Messages)-1].Content[:4])
		case <-time.After(5 * time.Second):
			return modeltest.Response{Err: errors.New("members did not run concurrently")}
		}
	})
	var members []run.Executor
	for _, name := range []string{"Optimist", "Pessimist", "Realist"} {
		members = append(members, member(t, name, "", shared))
	}
	leader := modeltest.New(call("b1", "delegate_task_to_members", `{"task":"Rate the plan"}`), text("Synthesis."))
	tm := newTeam(t, team.Config{Name: "Panel", Mode: team.ModeBroadcast, Model: leader, Members: members})
	evs := collect(t, tm.RunStream(context.Background(), "plan?", run.WithStreamEvents(true)))
	res := lastToolMessage(leader.Requests()[1]).Content
	want := "Agent Optimist: view of Rate\n\nAgent Pessimist: view of Rate\n\nAgent Realist: view of Rate"
	if res != want {
		t.Fatalf("broadcast result %q", res)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Base().AgentID != "" && e.Kind() == "RunCompleted" {
			seen[e.Base().AgentID] = true
		}
	}
	if len(seen) != 3 {
		t.Fatalf("member completions in stream: %v (%s)", seen, kinds(evs))
	}
}

type confirmArgs struct {
	Amount int `json:"amount"`
}

func TestMemberPauseContinuesAfterRestart(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "Pay an amount", func(_ context.Context, a confirmArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return fmt.Sprintf("paid %d", a.Amount), nil
	}, tool.RequiresConfirmation()))
	build := func() (*team.Team, *modeltest.Fake) {
		memberModel := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
				return text("Payment done.")
			}
			return call("p1", "pay", `{"amount":5}`)
		})
		cashier := member(t, "Cashier", "Pays", memberModel, pay)
		leader := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == model.RoleTool {
				return text("Team: " + last.Content)
			}
			return call("d1", "delegate_task_to_member", `{"member_id":"cashier","task":"pay 5"}`)
		})
		return newTeam(t, team.Config{Name: "Ops", Model: leader, Members: []run.Executor{cashier}, Store: store}), leader
	}
	tm, _ := build()
	evs := collect(t, tm.RunStream(context.Background(), "pay please", run.WithStreamEvents(true), run.WithSessionID("s")))
	paused, ok := evs[len(evs)-1].(*run.RunPaused)
	if !ok || paused.Kind() != "TeamRunPaused" {
		t.Fatalf("events: %s", kinds(evs))
	}
	if paid.Load() != 0 {
		t.Fatal("tool ran before confirmation")
	}
	req := paused.Requirements[0]
	if req.MemberAgentID != "cashier" || req.MemberAgentName != "Cashier" || req.MemberRunID == "" {
		t.Fatalf("requirement %+v", req)
	}
	// A fresh team value on the same store continues the run by id.
	tm2, leader2 := build()
	if err := req.Confirm(); err != nil {
		t.Fatal(err)
	}
	evs = collect(t, tm2.ContinueStream(context.Background(), run.ContinueRequest{RunID: paused.RunID, SessionID: "s", Requirements: []*run.Requirement{req}, StreamEvents: true}))
	if last := evs[len(evs)-1]; last.Kind() != "TeamRunCompleted" {
		t.Fatalf("continue events %s", kinds(evs))
	}
	if paid.Load() != 5 {
		t.Fatalf("confirmed tool ran %d", paid.Load())
	}
	done := evs[len(evs)-1].(*run.RunCompleted)
	want := "Team: Member results after human-in-the-loop resolution:\n[Cashier]: Payment done."
	if done.Content != want {
		t.Fatalf("team content %q", done.Content)
	}
	if got := lastToolMessage(leader2.Requests()[0]).Content; got != "Member results after human-in-the-loop resolution:\n[Cashier]: Payment done." {
		t.Fatalf("rewritten delegate result %q", got)
	}
	// The member's run ended completed in the team session.
	rec, err := store.GetRun(context.Background(), req.MemberRunID)
	if err != nil || rec.Status != run.StatusCompleted || rec.ParentRunID != paused.RunID {
		t.Fatalf("member run %+v %v", rec, err)
	}
}

func TestCancelCascadesToMembers(t *testing.T) {
	store := memory.New()
	started := make(chan string, 1)
	block := tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		started <- run.FromContext(ctx).RunID
		<-ctx.Done()
		return "", ctx.Err()
	}))
	slow := member(t, "Slow", "", modeltest.New(call("b", "block", `{}`), text("never")), block)
	leader := modeltest.New(call("d1", "delegate_task_to_member", `{"member_id":"slow","task":"wait"}`), text("never"))
	tm := newTeam(t, team.Config{Name: "T", Model: leader, Members: []run.Executor{slow}, Store: store})
	done := make(chan *run.Output)
	go func() {
		out, _ := tm.Run(context.Background(), "go", run.WithRunID("team-run"), run.WithSessionID("s"))
		done <- out
	}()
	memberRun := <-started
	if ok, _ := tm.Cancel(context.Background(), "team-run"); !ok {
		t.Fatal("team run not reached")
	}
	out := <-done
	if out.Status != run.StatusCancelled {
		t.Fatalf("team status %s", out.Status)
	}
	var member *run.Output
	for _, m := range out.MemberResponses {
		if m.RunID == memberRun {
			member = m
		}
	}
	if member == nil || member.Status != run.StatusCancelled {
		t.Fatalf("member run %+v", member)
	}
	rec, err := store.GetRun(context.Background(), memberRun)
	if err != nil || rec.Status != run.StatusCancelled {
		t.Fatalf("stored member run %+v %v", rec, err)
	}
}

func TestNestedTeamTagsAndGrandchildAddressing(t *testing.T) {
	leaf := member(t, "Leaf", "", modeltest.New(text("leaf answer")))
	subLeader := modeltest.New(call("s1", "delegate_task_to_member", `{"member_id":"leaf","task":"go"}`), text("sub answer"))
	sub := newTeam(t, team.Config{Name: "Sub Team", Model: subLeader, Members: []run.Executor{leaf}})
	top := modeltest.New(call("t1", "delegate_task_to_member", `{"member_id":"sub-team","task":"ask sub"}`), text("top answer"))
	tm := newTeam(t, team.Config{Name: "Top Team", Model: top, Members: []run.Executor{sub}})
	evs := collect(t, tm.RunStream(context.Background(), "q", run.WithStreamEvents(true), run.WithRunID("top-run")))
	var subRun string
	for _, e := range evs {
		b := e.Base()
		if b.TeamID == "sub-team" {
			if b.ParentRunID != "top-run" || !strings.HasPrefix(e.Kind(), "Team") || b.NestedDepth != 1 {
				t.Fatalf("sub-team event %s %+v", e.Kind(), b)
			}
			subRun = b.RunID
		}
	}
	found := false
	for _, e := range evs {
		if e.Base().TeamID == "top-team" && e.Base().NestedDepth != 0 {
			t.Fatalf("top team event depth %d", e.Base().NestedDepth)
		}
		if e.Base().AgentID != "leaf" {
			continue
		}
		found = true
		if e.Base().ParentRunID != subRun || e.Base().NestedDepth != 2 {
			t.Fatalf("leaf event parent %q depth %d, want sub run %q depth 2", e.Base().ParentRunID, e.Base().NestedDepth, subRun)
		}
	}
	if !found || subRun == "" {
		t.Fatalf("nested events missing: %s", kinds(evs))
	}
	// The top leader can address the grandchild directly.
	top2 := modeltest.New(call("t1", "delegate_task_to_member", `{"member_id":"leaf","task":"direct"}`), text("done"))
	tm2 := newTeam(t, team.Config{Name: "Top Team", Model: top2, Members: []run.Executor{sub}})
	_, _ = tm2.Run(context.Background(), "q")
	if got := lastToolMessage(top2.Requests()[1]).Content; got != "leaf answer" {
		t.Fatalf("grandchild result %q", got)
	}
}

func TestMemberNotFoundAndNoMemberEvents(t *testing.T) {
	a := member(t, "A", "", modeltest.New(text("a says")))
	off := false
	leader := modeltest.New(call("d1", "delegate_task_to_member", `{"member_id":"nobody","task":"x"}`),
		call("d2", "delegate_task_to_member", `{"member_id":"a","task":"x"}`), text("fin"))
	tm := newTeam(t, team.Config{Name: "T", Model: leader, Members: []run.Executor{a}, StreamMemberEvents: &off})
	evs := collect(t, tm.RunStream(context.Background(), "q", run.WithStreamEvents(true)))
	for _, e := range evs {
		if e.Base().AgentID != "" {
			t.Fatalf("member event %s with stream_member_events=false", e.Kind())
		}
	}
	if got := lastToolMessage(leader.Requests()[1]).Content; !strings.HasPrefix(got, "Member with ID nobody not found in the team or any subteams. Please choose the correct member from the list of members:\n\n<member id=\"a\" name=\"A\">") {
		t.Fatalf("not-found text %q", got)
	}
}

func TestSharedSessionStateMergedBack(t *testing.T) {
	note := tool.Must(tool.New("note", "n", func(ctx context.Context, _ struct{}) (string, error) {
		rc := run.FromContext(ctx)
		v, _ := rc.StateValue("counter")
		rc.SetStateValue("member_saw", v)
		rc.SetStateValue("counter", 2)
		return "noted", nil
	}))
	a := member(t, "A", "", modeltest.New(call("n", "note", `{}`), text("ok")), note)
	leader := modeltest.New(call("d1", "delegate_task_to_member", `{"member_id":"a","task":"x"}`), text("fin"))
	tm := newTeam(t, team.Config{Name: "T", Model: leader, Members: []run.Executor{a}, SessionState: map[string]any{"counter": 1}})
	out, _ := tm.Run(context.Background(), "q")
	b, _ := json.Marshal(out.SessionState)
	if out.SessionState["counter"] != 2 || fmt.Sprint(out.SessionState["member_saw"]) != "1" {
		t.Fatalf("team state %s", b)
	}
}

func TestConfigValidation(t *testing.T) {
	a := member(t, "A", "", modeltest.New())
	cases := map[string]team.Config{
		"Model is required":       {Members: []run.Executor{a}},
		"Members is empty":        {Model: modeltest.New()},
		"is not one of":           {Model: modeltest.New(), Members: []run.Executor{a}, Mode: "collaborate"},
		"two members have the id": {Model: modeltest.New(), Members: []run.Executor{a, a}},
	}
	for want, cfg := range cases {
		if _, err := team.New(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	tm := newTeam(t, team.Config{Model: modeltest.New(), Members: []run.Executor{a}, RespondDirectly: true})
	if tm.Mode() != team.ModeRoute {
		t.Fatalf("legacy respond_directly → %s", tm.Mode())
	}
}

// agno's team leader leaves {var} in the user message as sent (only its
// system message is resolved), unlike an agent.
func TestTeamUserMessageIsNotResolved(t *testing.T) {
	leader := modeltest.New(modeltest.Response{Content: "ok"})
	tm := newTeam(t, team.Config{Name: "T", Model: leader, Members: []run.Executor{member(t, "m", "r", modeltest.New(modeltest.Response{Content: "x"}))}, SessionState: map[string]any{"city": "Paris"}})
	if _, err := tm.Run(context.Background(), "Weather in {city}?"); err != nil {
		t.Fatal(err)
	}
	msgs := leader.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "Weather in {city}?" {
		t.Errorf("team user message %q", got)
	}
}
