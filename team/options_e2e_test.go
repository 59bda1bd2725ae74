package team_test

// End-to-end checks of the team options that shape what members and the
// leader see: determine_input_for_members, team history, shared member
// interactions and store_member_responses. Every model is a real OpenAI
// client against the fake wire server, so the assertions are on the
// messages as they crossed the wire.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
)

// wireRec is wire that also hands back the server, whose recorded
// requests are what the model really received.
func wireRec(t *testing.T, fn modeltest.Responder) (model.Model, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "fake-model", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

// userTexts lists the user messages of every request the server got.
func userTexts(srv *modeltest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		for _, m := range r.Request.Messages {
			if m.Role == model.RoleUser {
				out = append(out, m.Content)
			}
		}
	}
	return out
}

func sqliteStore(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: path, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// replies answers with the given texts in turn, whatever it is asked.
func replies(texts ...string) modeltest.Responder {
	var n atomic.Int32
	return func(*model.Request) modeltest.Response {
		i := min(int(n.Add(1))-1, len(texts)-1)
		return modeltest.Response{Content: texts[i]}
	}
}

// script is a leader that plays calls in order, then answers with the
// last tool result.
func script(calls ...modeltest.Response) modeltest.Responder {
	var n atomic.Int32
	return func(req *model.Request) modeltest.Response {
		if i := int(n.Add(1)) - 1; i < len(calls) {
			return calls[i]
		}
		return modeltest.Response{Content: "Team answer: " + lastMsg(req).Content}
	}
}

func TestE2EDetermineInputForMembers(t *testing.T) {
	off := false
	for _, tc := range []struct {
		name      string
		mode      team.Mode
		call      modeltest.Response
		determine *bool
		want      string // what the member is asked
	}{
		{"coordinate/off", team.ModeCoordinate, toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"leader's rewrite"}`), &off, "Summarise the memo, please."},
		{"broadcast/off", team.ModeBroadcast, toolCall("d", "delegate_task_to_members", `{"task":"leader's rewrite"}`), &off, "Summarise the memo, please."},
		// The default lets the leader write the task: the control case.
		{"coordinate/default", team.ModeCoordinate, toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"leader's rewrite"}`), nil, "leader's rewrite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wm, wsrv := wireRec(t, answerer("Writer"))
			writer, _ := agent.New(agent.Config{Name: "Writer", Model: wm})
			tm := newTeam(t, team.Config{Name: "Crew", Mode: tc.mode, DetermineInputForMembers: tc.determine,
				Model: wire(t, leader(tc.call)), Members: []run.Executor{writer}})
			out, err := tm.Run(context.Background(), "Summarise the memo, please.")
			if err != nil || out.Status != run.StatusCompleted {
				t.Fatalf("err %v status %s", err, out.Status)
			}
			if got := userTexts(wsrv); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("member was asked %q, want %q", got, tc.want)
			}
		})
	}
}

func TestE2ETeamHistoryInContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	// Models outlive the team values so their servers record both runs.
	var leaderCalls atomic.Int32
	lm, lsrv := wireRec(t, func(req *model.Request) modeltest.Response {
		n := leaderCalls.Add(1)
		if last := lastMsg(req); last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team answer: " + last.Content}
		}
		return toolCall(fmt.Sprintf("d%d", n), "delegate_task_to_member", fmt.Sprintf(`{"member_id":"writer","task":"task %d"}`, n))
	})
	wm, wsrv := wireRec(t, replies("member reply 1", "member reply 2"))
	runOnce := func(input string) {
		// A fresh store handle and team per run: the history comes from disk.
		st := sqliteStore(t, path)
		defer st.Close()
		writer, _ := agent.New(agent.Config{Name: "Writer", Model: wm})
		tm := newTeam(t, team.Config{Name: "Crew", Model: lm, Members: []run.Executor{writer}, Store: st,
			AddHistoryToContext: true, AddTeamHistoryToMembers: true})
		out, err := tm.Run(context.Background(), input, run.WithSessionID("s"))
		if err != nil || out.Status != run.StatusCompleted {
			t.Fatalf("err %v status %s", err, out.Status)
		}
	}
	runOnce("first question")
	runOnce("second question")

	// Leader, second run, first call: the first run's leader messages (no
	// member messages, no system message) before the new input.
	reqs := lsrv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("leader calls %d", len(reqs))
	}
	var got []string
	for _, m := range reqs[2].Request.Messages[1:] {
		s := string(m.Role) + ":" + m.Content
		for _, c := range m.ToolCalls {
			s += " call " + c.Function.Name + c.Function.Arguments
		}
		got = append(got, s)
	}
	want := []string{
		"user:first question",
		`assistant: call delegate_task_to_member{"member_id":"writer","task":"task 1"}`,
		"tool:member reply 1",
		"assistant:Team answer: member reply 1",
		"user:second question",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || reqs[2].Request.Messages[0].Role != model.RoleSystem {
		t.Fatalf("leader messages on the second run:\n%q\nwant\n%q", got, want)
	}

	// Member: the first task bare, the second prefixed by agno's
	// <team_history_context> block of the completed team run.
	tasks := userTexts(wsrv)
	wantTasks := []string{
		"task 1",
		"<team_history_context>\n[run-1]\ninput: first question\nresponse: Team answer: member reply 1\n\n</team_history_context>\n\n\ntask 3",
	}
	if fmt.Sprint(tasks) != fmt.Sprint(wantTasks) {
		t.Fatalf("member tasks:\n%q\nwant\n%q", tasks, wantTasks)
	}
}

func TestE2EShareMemberInteractions(t *testing.T) {
	rm, rsrv := wireRec(t, replies("Facts: water is wet.", "Draft checked."))
	wm, wsrv := wireRec(t, replies("Draft ready."))
	researcher, _ := agent.New(agent.Config{Name: "Researcher", Model: rm})
	writer, _ := agent.New(agent.Config{Name: "Writer", Model: wm})
	tm := newTeam(t, team.Config{Name: "Crew", ShareMemberInteractions: true, Members: []run.Executor{researcher, writer},
		Model: wire(t, script(
			toolCall("d1", "delegate_task_to_member", `{"member_id":"researcher","task":"find facts"}`),
			toolCall("d2", "delegate_task_to_member", `{"member_id":"writer","task":"write it up"}`),
			toolCall("d3", "delegate_task_to_member", `{"member_id":"researcher","task":"check the draft"}`),
		))})
	if out, err := tm.Run(context.Background(), "report on water"); err != nil || out.Content != "Team answer: Draft checked." {
		t.Fatalf("err %v out %+v", err, out)
	}
	const head = "<member_interaction_context>\nSee below interactions with other team members.\n"
	first := "Member: Researcher\nTask: find facts\nResponse: Facts: water is wet.\n\n"
	// Each interaction records the leader's task, not the prompt built
	// from it: the third call must not see the first block nested inside
	// the writer's task (agno records the plain task for this reason).
	second := "Member: Writer\nTask: write it up\nResponse: Draft ready.\n\n"
	wantW := []string{head + first + "</member_interaction_context>\n\n\nwrite it up"}
	wantR := []string{"find facts", head + first + second + "</member_interaction_context>\n\n\ncheck the draft"}
	if got := userTexts(wsrv); fmt.Sprint(got) != fmt.Sprint(wantW) {
		t.Fatalf("writer was asked:\n%q\nwant\n%q", got, wantW)
	}
	if got := userTexts(rsrv); fmt.Sprint(got) != fmt.Sprint(wantR) {
		t.Fatalf("researcher was asked:\n%q\nwant\n%q", got, wantR)
	}
}

func TestE2EStoreMemberResponses(t *testing.T) {
	for _, stored := range []bool{false, true} {
		t.Run(fmt.Sprint("stored=", stored), func(t *testing.T) {
			st := sqliteStore(t, filepath.Join(t.TempDir(), "agno.db"))
			defer st.Close()
			writer, _ := agent.New(agent.Config{Name: "Writer", Model: wire(t, answerer("Writer"))})
			tm := newTeam(t, team.Config{Name: "Crew", Store: st, StoreMemberResponses: stored, Members: []run.Executor{writer},
				Model: wire(t, leader(toolCall("d", "delegate_task_to_member", `{"member_id":"writer","task":"draft"}`)))})
			var done *run.RunCompleted
			var memberRun string
			for ev, err := range tm.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("team-run"), run.WithSessionID("s")) {
				if err != nil {
					t.Fatal(err)
				}
				if c, ok := ev.(*run.RunCompleted); ok {
					if ev.Base().TeamID == "crew" {
						done = c
					} else if ev.Base().AgentID == "writer" {
						memberRun = ev.Base().RunID
					}
				}
			}
			if done == nil || done.Kind() != "TeamRunCompleted" || memberRun == "" {
				t.Fatalf("completion %+v member run %q", done, memberRun)
			}
			rec, err := st.GetRun(context.Background(), "team-run")
			if err != nil {
				t.Fatal(err)
			}
			var saved run.Output
			if err := json.Unmarshal(rec.Data, &saved); err != nil {
				t.Fatal(err)
			}
			for where, members := range map[string][]*run.Output{"TeamRunCompleted": done.MemberResponses, "stored run": saved.MemberResponses} {
				if !stored {
					if len(members) != 0 {
						t.Fatalf("%s carries %d member responses with store_member_responses off", where, len(members))
					}
					continue
				}
				if len(members) != 1 || members[0].RunID != memberRun || members[0].AgentID != "writer" || members[0].Content != "Writer on: draft" {
					t.Fatalf("%s member responses %+v", where, members)
				}
			}
			// The member's own run row is kept under the team run either way.
			mrec, err := st.GetRun(context.Background(), memberRun)
			if err != nil || mrec.ParentRunID != "team-run" || mrec.Status != run.StatusCompleted {
				t.Fatalf("member row %+v %v", mrec, err)
			}
			runs, _ := st.ListRuns(context.Background(), storage.RunQuery{SessionID: "s"})
			if len(runs) != 2 {
				t.Fatalf("stored runs %d", len(runs))
			}
		})
	}
}
